// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Spins in before_exec() for argv[1] seconds of CPU, then execs argv[2] with
 * the remaining arguments (the demo, in the tests): one pid, two images.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void before_exec(double seconds)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: execer SECONDS PROGRAM [ARGS..]\n");
		return 2;
	}
	before_exec(atof(argv[1]));
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
