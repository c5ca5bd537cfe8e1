// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Recursion to a known depth, then a spin: the stack is main -> recurse x N ->
 * spin. argv[1]: depth (default 100), argv[2]: seconds of CPU (default 2);
 * argv[3] "sleep": nap instead of spin, that many seconds of 20 ms sleeps
 * (off-CPU intervals in main -> recurse x N -> nap -> nanosleep).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static double seconds;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void spin(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void nap(void)
{
	struct timespec d = {0, 20 * 1000 * 1000};
	double end = wall_now() + seconds;

	while (wall_now() < end)
		nanosleep(&d, NULL);
}

static void (*bottom)(void) = spin;

__attribute__((noinline)) void recurse(int depth)
{
	if (depth > 1)
		recurse(depth - 1);
	else
		bottom();
	sink++;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 100;

	seconds = argc > 2 ? atof(argv[2]) : 2;
	if (argc > 3 && !strcmp(argv[3], "sleep"))
		bottom = nap;
	recurse(depth);
	return 0;
}
