// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program that maps 40 small shared libraries built without frame pointers
 * (bench/progs/mod.c; bench section v): main -> m0 -> m1 -> ... -> m39,
 * which spins. How long after its exec its first stack is whole (walked by
 * CFI through the 40 modules to _start) is the time fxsampler takes to make
 * and load their tables.
 *
 *   mods40 [SECONDS]     call through the chain for SECONDS (default 2)
 */
#include <stdlib.h>
#include <time.h>

int m0(unsigned long n);

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	unsigned long long end = now_ns() + (unsigned long long)(seconds * 1e9);
	int r = 0;

	while (now_ns() < end)
		r += m0(100000);
	return r == 42;
}
