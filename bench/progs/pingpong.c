// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A context-switch-heavy bench target: two processes pass a byte back and
 * forth over two pipes, so each round trip blocks each of them once. Both
 * run on CPU 0.
 *
 *   pingpong ITERS     fork the partner, print "ready", wait for SIGUSR1 (so
 *                      a profiler can attach to the pid first), then do ITERS
 *                      round trips and print the wall time they took in ns
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	int to_child[2], to_parent[2], sig;
	unsigned long long t0;
	sigset_t set;
	pid_t child;
	char c = 'x';
	cpu_set_t one;

	/*
	 * Both on one CPU: each round trip is then two switches from one to
	 * the other, steady whatever else the host runs on its other CPUs.
	 */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pipe(to_child) || pipe(to_parent))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		while (read(to_child[0], &c, 1) == 1)
			if (write(to_parent[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	/* SIGUSR1 is blocked now: the bench may send it. */
	printf("ready\n");
	fflush(stdout);
	sigwait(&set, &sig);
	t0 = now_ns();
	for (unsigned long i = 0; i < iters; i++)
		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
			return 1;
	printf("%llu\n", now_ns() - t0);
	close(to_child[1]);
	waitpid(child, NULL, 0);
	return 0;
}
