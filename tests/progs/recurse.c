// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Recursion to a known depth, then a spin: the stack is main -> recurse x N ->
 * spin. argv[1]: depth (default 100), argv[2]: seconds of CPU (default 2).
 */
#include <stdlib.h>
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

__attribute__((noinline)) void recurse(int depth)
{
	if (depth > 1)
		recurse(depth - 1);
	else
		spin();
	sink++;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 100;

	seconds = argc > 2 ? atof(argv[2]) : 2;
	recurse(depth);
	return 0;
}
