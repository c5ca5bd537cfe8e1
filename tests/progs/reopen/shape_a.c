// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libshape_a.so (tests/progs/reopen): built -O2 -fomit-frame-pointer, with
 * small frames. reopen runs it, closes it, and opens libshape_b.so, whose
 * frames are large, at the same address.
 */
#include <time.h>

/* The thread's CPU time: a loaded host gives the test as many samples as an idle one. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long sa_inner(unsigned long x)
{
	volatile unsigned long a[4];
	unsigned long s = 0;

	for (int i = 0; i < 4; i++)
		a[i] = x + (unsigned long)i;
	for (unsigned long k = 0; k < 20000; k++)
		s += a[k & 3] * k;
	return s;
}

__attribute__((noinline)) unsigned long sa_outer(unsigned long x)
{
	volatile unsigned long b[8];

	b[x & 7] = x;
	return sa_inner(b[x & 7]) + 1;
}

unsigned long sa_run(double seconds)
{
	double end = now() + seconds;
	unsigned long s = 0;

	while (now() < end)
		s += sa_outer(s);
	return s;
}
