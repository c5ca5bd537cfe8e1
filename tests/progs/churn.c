// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Many short-lived processes and threads: argv[1] rounds (default 4), each
 * forking argv[2] children (default 250) and starting as many threads, every
 * one of which spins in churn_work() for about a millisecond of CPU and
 * exits. At most 16 of each run at once. Exits 0 when all were reaped.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AT_ONCE 16

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void churn_work(void)
{
	double end = cpu_now() + 0.001;

	while (cpu_now() < end)
		for (int i = 0; i < 10000; i++)
			sink += i;
}

static void *thread_main(void *arg)
{
	churn_work();
	return arg;
}

static int run_processes(int n)
{
	int running = 0, status;

	for (int i = 0; i < n; i++) {
		pid_t pid;

		if (running == AT_ONCE) {
			if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
				return -1;
			running--;
		}
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			churn_work();
			_exit(0);
		}
		running++;
	}
	while (running--)
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return -1;
	return 0;
}

static int run_threads(int n)
{
	pthread_t t[AT_ONCE];

	for (int i = 0; i < n; i += AT_ONCE) {
		int k, batch = n - i < AT_ONCE ? n - i : AT_ONCE;

		for (k = 0; k < batch; k++)
			if (pthread_create(&t[k], NULL, thread_main, NULL))
				return -1;
		for (k = 0; k < batch; k++)
			pthread_join(t[k], NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 4;
	int n = argc > 2 ? atoi(argv[2]) : 250;

	for (int r = 0; r < rounds; r++) {
		if (run_processes(n) || run_threads(n)) {
			fprintf(stderr, "churn: round %d failed\n", r);
			return 1;
		}
	}
	return 0;
}
