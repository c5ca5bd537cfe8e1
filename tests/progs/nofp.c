// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known chain in code without frame pointers, for the CFI walker: main ->
 * nf_outer -> nf_middle -> nf_inner -> nf_leaf, which spins. The Makefile
 * builds it twice: nofp with -O2 -fomit-frame-pointer (no function keeps a
 * frame pointer), nofp_leaf with -O2 -momit-leaf-frame-pointer (only the leaf
 * lacks one). Each function keeps a frame of its own (an array the next one
 * reads), so that the CFA moves with each.
 *
 * usage: nofp [SECONDS [SLEEP [CHILDREN [reuse]]]]
 *   SECONDS   of CPU in the chain (default 2)
 *   SLEEP     seconds to sleep first (default 0): under qemu TCG a module's
 *             table takes a second or more to make, and the VM tier checks
 *             the walker with its tables in place (the first samples'
 *             fallback is counted apart)
 *   CHILDREN  then fork that many children, one after another, which do not
 *             exec: each runs the same chain for 0.1 s of CPU (main ->
 *             fork_child -> nf_outer -> ...) and exits
 *   reuse     each child after the first is forked on the pid the one before
 *             had (through /proc/sys/kernel/ns_last_pid, root; retried while
 *             other processes take it); prints "reused N" (how many were)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double seconds;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The leaf: no calls in its loop, so the samples land in it. */
__attribute__((noinline)) unsigned long nf_leaf(volatile unsigned long *v, int n)
{
	unsigned long s = 0;

	for (int i = 0; i < 200000; i++)
		s += v[i % n] ^ (unsigned long)i;
	return s;
}

__attribute__((noinline)) unsigned long nf_inner(int k)
{
	volatile unsigned long v[8];

	for (int i = 0; i < 8; i++)
		v[i] = k + i;
	return nf_leaf(v, 8) + v[3];
}

__attribute__((noinline)) unsigned long nf_middle(int k)
{
	volatile unsigned long v[24];

	for (int i = 0; i < 24; i++)
		v[i] = k * i;
	return nf_inner(k + 1) + v[5];
}

__attribute__((noinline)) unsigned long nf_outer(int k)
{
	double end = cpu_now() + seconds;
	volatile unsigned long v[40];
	unsigned long s = 0;

	for (int i = 0; i < 40; i++)
		v[i] = i;
	while (cpu_now() < end)
		s += nf_middle(k) + v[k % 40];
	return s;
}

/* The next fork gets pid (if it is free and no one forks first). */
static void next_pid(pid_t pid)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");

	if (f) {
		fprintf(f, "%d", (int)pid - 1);
		fclose(f);
	}
}

/* A child on the pid want (any pid when 0): its pid, or -1. */
static pid_t fork_child(pid_t want)
{
	for (int tries = 0; tries < (want ? 50 : 1); tries++) {
		pid_t pid;

		if (want)
			next_pid(want);
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			if (want && getpid() != want)
				_exit(0); /* someone took it: try again */
			seconds = 0.1;
			sink = nf_outer(1);
			_exit(0);
		}
		if (!want || pid == want)
			return pid;
		waitpid(pid, NULL, 0);
	}
	return -1;
}

int main(int argc, char **argv)
{
	int children = argc > 3 ? atoi(argv[3]) : 0, reused = 0;
	int reuse = argc > 4 && !strcmp(argv[4], "reuse");
	pid_t last = 0;

	seconds = argc > 1 ? atof(argv[1]) : 2;
	if (argc > 2)
		usleep((useconds_t)(atof(argv[2]) * 1e6));
	sink = nf_outer(argc);
	for (int i = 0; i < children; i++) {
		pid_t pid = reuse && last ? fork_child(last) : -1;

		if (pid > 0)
			reused++;
		else
			pid = fork_child(0);
		if (pid < 0) {
			perror("nofp: fork");
			return 1;
		}
		waitpid(pid, NULL, 0);
		last = pid;
	}
	if (reuse)
		printf("reused %d\n", reused);
	return 0;
}
