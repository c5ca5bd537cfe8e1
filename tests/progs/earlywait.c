// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Threads that block in their first millisecond, built without frame
 * pointers (the Makefile): an off-CPU stack taken before the process's CFI
 * tables are published goes by frame pointers, and misses the caller of libc
 * (check_offcpu's test_early_waits). Three threads, each through its own
 * function calling libc, 200 ms at a time for argv[1] seconds (default 3):
 *
 *   sleeper  sleeper_loop -> ew_sleep: nanosleep
 *   piper    piper_loop -> ew_read: read() of a pipe main writes into every 200 ms
 *   locker   locker_loop -> ew_lock: pthread_mutex_lock of a mutex main
 *            holds, but for a moment every 200 ms (a futex wait)
 *
 * At the end it prints one line per thread, "name tid".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUND_NS 200000000ULL

static uint64_t deadline;
static int pipefd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int stop, main_holds, rounds;
static volatile unsigned long sink;

struct thread {
	const char *name;
	void (*loop)(void);
	pid_t tid;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* --- the user's own callers of libc --- */
__attribute__((noinline)) void ew_sleep(void)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = ROUND_NS};

	nanosleep(&ts, NULL);
	sink++;
}

__attribute__((noinline)) int ew_read(void)
{
	char c;
	int n = read(pipefd[0], &c, 1);

	sink++;
	return n;
}

__attribute__((noinline)) void ew_lock(void)
{
	pthread_mutex_lock(&lock);
	sink++;
}

/* --- the threads' loops --- */
__attribute__((noinline)) void sleeper_loop(void)
{
	while (now_ns() < deadline)
		ew_sleep();
	sink++;
}

__attribute__((noinline)) void piper_loop(void)
{
	while (ew_read() == 1)
		sink++;
	sink++;
}

__attribute__((noinline)) void locker_loop(void)
{
	while (!atomic_load(&stop)) {
		ew_lock();
		atomic_fetch_add(&rounds, 1);
		pthread_mutex_unlock(&lock);
		/* on the CPU until main holds it again: the next lock waits */
		while (!atomic_load(&stop) && !atomic_load(&main_holds))
			sink++;
	}
}

static struct thread threads[] = {
	{"sleeper", sleeper_loop, 0},
	{"piper", piper_loop, 0},
	{"locker", locker_loop, 0},
};

#define NR_THREADS (sizeof(threads) / sizeof(threads[0]))

static void *run(void *arg)
{
	struct thread *t = arg;

	t->tid = syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), t->name);
	t->loop();
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	struct timespec round = {.tv_sec = 0, .tv_nsec = ROUND_NS};
	pthread_t tids[NR_THREADS];

	if (pipe(pipefd))
		return 1;
	deadline = now_ns() + (uint64_t)(seconds * 1e9);
	pthread_mutex_lock(&lock);
	atomic_store(&main_holds, 1);
	for (size_t i = 0; i < NR_THREADS; i++)
		if (pthread_create(&tids[i], NULL, run, &threads[i]))
			return 1;
	while (now_ns() < deadline) {
		int r = atomic_load(&rounds);

		nanosleep(&round, NULL);
		if (write(pipefd[1], "x", 1) != 1)
			return 1;
		/* the lock for a moment: the locker takes it, then main again */
		atomic_store(&main_holds, 0);
		pthread_mutex_unlock(&lock);
		while (atomic_load(&rounds) == r)
			sink++;
		pthread_mutex_lock(&lock);
		atomic_store(&main_holds, 1);
	}
	atomic_store(&stop, 1);
	close(pipefd[1]);
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < NR_THREADS; i++)
		pthread_join(tids[i], NULL);
	for (size_t i = 0; i < NR_THREADS; i++)
		printf("%s %d\n", threads[i].name, (int)threads[i].tid);
	return 0;
}
