// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known chain in code without frame pointers, for the CFI walker: main ->
 * nf_outer -> nf_middle -> nf_inner -> nf_leaf, which spins. The Makefile
 * builds it twice: nofp with -O2 -fomit-frame-pointer (no function keeps a
 * frame pointer), nofp_leaf with -O2 -momit-leaf-frame-pointer (only the leaf
 * lacks one). Each function keeps a frame of its own (an array the next one
 * reads), so that the CFA moves with each. argv[1]: seconds of CPU (default 2).
 * argv[2]: seconds to sleep first (default 0): under qemu TCG a module's
 * table takes a second or more to make, and the VM tier checks the walker
 * with its tables in place (the first samples' fallback is counted apart).
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double seconds;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The leaf: no calls in its loop, so the samples land in it. */
__attribute__((noinline)) unsigned long nf_leaf(volatile unsigned long *v, int n)
{
	unsigned long s = 0;

	for (int i = 0; i < 200000; i++)
		s += v[i % n] ^ (unsigned long)i;
	return s;
}

__attribute__((noinline)) unsigned long nf_inner(int k)
{
	volatile unsigned long v[8];

	for (int i = 0; i < 8; i++)
		v[i] = k + i;
	return nf_leaf(v, 8) + v[3];
}

__attribute__((noinline)) unsigned long nf_middle(int k)
{
	volatile unsigned long v[24];

	for (int i = 0; i < 24; i++)
		v[i] = k * i;
	return nf_inner(k + 1) + v[5];
}

__attribute__((noinline)) unsigned long nf_outer(int k)
{
	double end = cpu_now() + seconds;
	volatile unsigned long v[40];
	unsigned long s = 0;

	for (int i = 0; i < 40; i++)
		v[i] = i;
	while (cpu_now() < end)
		s += nf_middle(k) + v[k % 40];
	return s;
}

int main(int argc, char **argv)
{
	seconds = argc > 1 ? atof(argv[1]) : 2;
	if (argc > 2)
		usleep((useconds_t)(atof(argv[2]) * 1e6));
	sink = nf_outer(argc);
	return 0;
}
