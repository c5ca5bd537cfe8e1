// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libshape_b.so (tests/progs/reopen): built -O2 -fomit-frame-pointer, with
 * frames of KiBs, one more function deep than libshape_a.so: walked by
 * libshape_a.so's rules at its address, no stack would come out whole.
 */
#include <time.h>

/* The thread's CPU time: a loaded host gives the test as many samples as an idle one. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long sb_inner(unsigned long x)
{
	volatile unsigned long a[512];
	unsigned long s = 0;

	a[x & 511] = x;
	for (unsigned long k = 0; k < 20000; k++)
		s += a[(x + k) & 511] + k;
	return s;
}

__attribute__((noinline)) unsigned long sb_middle(unsigned long x)
{
	volatile unsigned long b[1024];

	b[x & 1023] = x;
	return sb_inner(b[x & 1023]) + 2;
}

__attribute__((noinline)) unsigned long sb_outer(unsigned long x)
{
	volatile unsigned long c[64];

	c[x & 63] = x;
	return sb_middle(c[x & 63]) + 1;
}

unsigned long sb_run(double seconds)
{
	double end = now() + seconds;
	unsigned long s = 0;

	while (now() < end)
		s += sb_outer(s);
	return s;
}
