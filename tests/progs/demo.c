// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program whose call chain is known: main -> run -> outer -> middle -> inner,
 * where inner spins. Built with frame pointers and without inlining. Runs for
 * argv[1] seconds (default 2) of CPU time on each of argv[2] threads (default 1).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds;
static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void inner(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) void middle(void)
{
	inner();
	sink++;
}

__attribute__((noinline)) void outer(void)
{
	middle();
	sink++;
}

static void *run(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "demo-worker-%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	outer();
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t tids[64];

	seconds = argc > 1 ? atof(argv[1]) : 2;
	if (nthreads < 1 || nthreads > 64)
		return 2;
	for (long i = 1; i < nthreads; i++)
		pthread_create(&tids[i], NULL, run, (void *)i);
	outer();
	for (int i = 1; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
