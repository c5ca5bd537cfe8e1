// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Threads whose waits are known, for off-CPU profiling. Each runs for argv[1]
 * seconds (default 2) under its own chain, built with frame pointers and no
 * inlining, and measures the time it spends in its blocking call:
 *
 *   sleeper  a_outer -> a_mid -> a_leaf: nanosleep, 200 ms at a time
 *   piper    b_outer -> b_mid -> b_leaf: read() of a pipe that the feeder
 *            thread writes a byte into every 100 ms
 *   locker   c_outer -> c_mid -> c_leaf: pthread_mutex_lock of a mutex the
 *            holder thread keeps for 300 ms at a time (a futex wait)
 *   spinner  d_outer -> d_mid -> d_leaf: on the CPU all along
 *
 * The libc calls have no frame pointers, so a blocked stack reads
 * libc, *_mid, *_outer: the caller's frame pointer is still in rbp.
 *
 * At the end it prints one line per thread, "name tid wall_ns blocked_ns",
 * the known answers. With argv[2] "exit", the process exits after argv[1]
 * seconds, with the sleeper, the locker and most likely the piper blocked:
 * their last waits end with the process.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t deadline;
static volatile unsigned long sink;
static int pipefd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int stop;

struct result {
	const char *name;
	pid_t tid;
	uint64_t wall_ns, blocked_ns;
};

static struct result results[6];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL};

	nanosleep(&ts, NULL);
}

/* --- chain A: nanosleep --- */
__attribute__((noinline)) uint64_t a_leaf(void)
{
	uint64_t t0 = now_ns();

	sleep_ns(200000000ULL);
	return now_ns() - t0;
}

__attribute__((noinline)) uint64_t a_mid(void)
{
	uint64_t n = a_leaf();

	sink++;
	return n;
}

__attribute__((noinline)) void a_outer(struct result *r)
{
	while (now_ns() < deadline)
		r->blocked_ns += a_mid();
	sink++;
}

/* --- chain B: a pipe --- */
__attribute__((noinline)) uint64_t b_leaf(void)
{
	uint64_t t0 = now_ns();
	char c;

	if (read(pipefd[0], &c, 1) != 1)
		atomic_store(&stop, 1);
	return now_ns() - t0;
}

__attribute__((noinline)) uint64_t b_mid(void)
{
	uint64_t n = b_leaf();

	sink++;
	return n;
}

__attribute__((noinline)) void b_outer(struct result *r)
{
	while (now_ns() < deadline && !atomic_load(&stop))
		r->blocked_ns += b_mid();
	sink++;
}

/* --- chain C: a contended mutex --- */
__attribute__((noinline)) uint64_t c_leaf(void)
{
	uint64_t t0 = now_ns(), n;

	pthread_mutex_lock(&lock);
	n = now_ns() - t0;
	pthread_mutex_unlock(&lock);
	return n;
}

__attribute__((noinline)) uint64_t c_mid(void)
{
	uint64_t n = c_leaf();

	sink++;
	return n;
}

__attribute__((noinline)) void c_outer(struct result *r)
{
	while (now_ns() < deadline) {
		r->blocked_ns += c_mid();
		/* On the CPU a moment, so the holder takes the lock again first. */
		for (uint64_t end = now_ns() + 2000000; now_ns() < end;)
			sink++;
	}
}

/* --- chain D: busy --- */
__attribute__((noinline)) void d_leaf(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i;
}

__attribute__((noinline)) void d_mid(void)
{
	d_leaf();
	sink++;
}

__attribute__((noinline)) void d_outer(struct result *r)
{
	while (now_ns() < deadline)
		d_mid();
	sink++;
}

/* --- helpers: the feeder of the pipe and the holder of the lock --- */
__attribute__((noinline)) void feeder(struct result *r)
{
	while (now_ns() < deadline) {
		sleep_ns(100000000ULL);
		if (write(pipefd[1], "x", 1) != 1)
			break;
	}
}

__attribute__((noinline)) void holder(struct result *r)
{
	while (now_ns() < deadline) {
		pthread_mutex_lock(&lock);
		sleep_ns(300000000ULL);
		pthread_mutex_unlock(&lock);
		sleep_ns(1000000ULL);
	}
}

static void (*const bodies[])(struct result *) = {a_outer, b_outer, c_outer,
						  d_outer, feeder,  holder};
static const char *const names[] = {"sleeper", "piper", "locker", "spinner", "feeder", "holder"};

static void *run(void *arg)
{
	struct result *r = arg;
	uint64_t t0 = now_ns();
	long i = r - results;

	r->tid = syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), names[i]);
	bodies[i](r);
	r->wall_ns = now_ns() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	bool exit_blocked = argc > 2 && !strcmp(argv[2], "exit");
	pthread_t threads[6];
	int n = 6;

	if (pipe(pipefd))
		return 1;
	deadline = now_ns() + (uint64_t)(seconds * 1e9);
	if (exit_blocked)
		deadline += 3600ULL * 1000000000ULL;
	/* The holder first, so the locker finds the lock taken. */
	results[5].name = names[5];
	pthread_create(&threads[5], NULL, run, &results[5]);
	sleep_ns(10000000ULL);
	for (int i = 0; i < n - 1; i++) {
		results[i].name = names[i];
		pthread_create(&threads[i], NULL, run, &results[i]);
	}
	if (exit_blocked) {
		sleep_ns((uint64_t)(seconds * 1e9));
		struct timespec ts;

		/* The capture's clock, to find the intervals the exit ends. */
		clock_gettime(CLOCK_BOOTTIME, &ts);
		printf("exit %llu\n", (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
		fflush(stdout);
		_exit(0);
	}
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	for (int i = 0; i < n; i++)
		printf("%s %d %llu %llu\n", results[i].name, results[i].tid,
		       (unsigned long long)results[i].wall_ns,
		       (unsigned long long)results[i].blocked_ns);
	return 0;
}
