// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A thread renamed while it waits, for off-CPU profiling: the process
 * (named "waiter") starts a thread that blocks at once in read() of a pipe
 * (w_outer -> w_leaf -> read). Only once the kernel shows that thread inside
 * read() does the main thread name it "piper" (pthread_setname_np). It runs
 * too little to be sampled on the CPU: only its off-CPU interval can carry
 * the new name.
 *
 * argv[1]: seconds until the main thread writes the byte that wakes it
 * (default 0.5); it then exits. Prints "piper TID" once renamed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int pipefd[2];
static volatile pid_t waiter_tid;

__attribute__((noinline)) static void w_leaf(void)
{
	char c;

	while (read(pipefd[0], &c, 1) < 0)
		;
}

__attribute__((noinline)) static void w_outer(void)
{
	w_leaf();
	__asm__ volatile("" ::: "memory");
}

static void *waiter_main(void *arg)
{
	(void)arg;
	waiter_tid = (pid_t)syscall(SYS_gettid);
	w_outer();
	return NULL;
}

/* Whether tid is blocked inside read(): /proc's syscall file names its number. */
static int in_read(pid_t tid)
{
	char path[64], buf[64] = "";
	FILE *f;
	long nr = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		nr = strtol(buf, NULL, 10);
	fclose(f);
	return nr == SYS_read;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	struct timespec ts = {.tv_sec = (time_t)secs,
			      .tv_nsec = (long)((secs - (time_t)secs) * 1e9)};
	pthread_t t;

	if (pipe(pipefd) || pthread_create(&t, NULL, waiter_main, NULL))
		return 1;
	while (!waiter_tid || !in_read(waiter_tid))
		usleep(1000);
	/* it blocked under its first name: now it gets its own */
	if (pthread_setname_np(t, "piper"))
		return 1;
	printf("piper %d\n", (int)waiter_tid);
	fflush(stdout);
	nanosleep(&ts, NULL);
	if (write(pipefd[1], "x", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
