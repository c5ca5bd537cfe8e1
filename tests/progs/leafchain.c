// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program whose hot function is a true leaf, built as users build: only
 * -O2 -g -fno-omit-frame-pointer (the Makefile gives it no other flag). Its
 * chain is main -> chain_a -> chain_b -> chain_c -> leaf_caller -> spin_leaf; spin_leaf
 * calls nothing, so GCC gives it the frame of a leaf (riscv64: s0 saved, ra
 * not; arm64: no frame record at all). Runs for argv[1] seconds (default 2)
 * of CPU time, nearly all of it in spin_leaf.
 */
#include <stdlib.h>
#include <time.h>

/* No inlining, cloning or other interprocedural change: the names stay. */
#if defined(__clang__)
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noipa, used))
#endif

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The leaf: a loop the compiler cannot fold, no call. */
KEEP unsigned long spin_leaf(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Each caller uses the result after the call: no tail call at -O2. */
KEEP unsigned long leaf_caller(double seconds)
{
	unsigned long acc = 0;
	double end = cpu_now() + seconds;

	do
		acc += spin_leaf(200000);
	while (cpu_now() < end);
	return acc + 1;
}

KEEP unsigned long chain_c(double seconds)
{
	return leaf_caller(seconds) + 2;
}

KEEP unsigned long chain_b(double seconds)
{
	return chain_c(seconds) + 3;
}

KEEP unsigned long chain_a(double seconds)
{
	return chain_b(seconds) + 4;
}

int main(int argc, char **argv)
{
	sink = chain_a(argc > 1 ? atof(argv[1]) : 2);
	return 0;
}
