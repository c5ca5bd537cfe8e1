// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A library loaded with dlopen after the capture began: lib_outer -> lib_spin. */
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void lib_spin(double seconds)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + seconds;
	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

__attribute__((noinline)) void lib_outer(double seconds)
{
	lib_spin(seconds);
	sink++;
}
