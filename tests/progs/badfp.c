// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A target whose frame-pointer chain is broken on purpose, three ways, each
 * for argv[1] seconds of CPU (default 1):
 *   1. spin_garbage_rbp: rbp holds an address no process can map;
 *   2. spin_loop_rbp: rbp points at a word that holds rbp itself (a loop);
 *   3. chain_corrupt -> chain_leaf: the leaf's frames are valid, but the
 *      saved rbp one level up is garbage, so the walk breaks after them.
 * The walker must stop on each without crashing, hanging or looping to
 * --max-frames, keep the valid frames, and count the stop. The program
 * itself always exits 0: it restores rbp before anything uses it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Above the top of the x86-64 user address space: every read of it faults. */
#define GARBAGE_FP 0x8000deadbeef0000ULL
/* Iterations of one asm burst: a few ms, so most samples land inside one. */
#define BURST 20000000UL

static volatile unsigned long sink;
static double seconds;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void spin_garbage_rbp(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end) {
		unsigned long n = BURST;

		/* rbp is saved and restored inside the one statement. */
		__asm__ volatile("push %%rbp\n\t"
				 "movabs %[garbage], %%rbp\n\t"
				 "1: dec %[n]\n\t"
				 "jnz 1b\n\t"
				 "pop %%rbp"
				 : [n] "+r"(n)
				 : [garbage] "i"(GARBAGE_FP)
				 : "cc", "memory");
	}
}

__attribute__((noinline)) void spin_loop_rbp(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end) {
		unsigned long n = BURST;

		/* A word on the stack that points at itself, and rbp at it. */
		__asm__ volatile("push %%rbp\n\t"
				 "sub $16, %%rsp\n\t"
				 "mov %%rsp, %%rbp\n\t"
				 "mov %%rbp, (%%rbp)\n\t"
				 "mov %%rbp, 8(%%rbp)\n\t"
				 "1: dec %[n]\n\t"
				 "jnz 1b\n\t"
				 "add $16, %%rsp\n\t"
				 "pop %%rbp"
				 : [n] "+r"(n)
				 :
				 : "cc", "memory");
	}
}

__attribute__((noinline)) void chain_leaf(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) void chain_corrupt(void)
{
	/* With frame pointers, [rbp] is the caller's saved rbp. */
	volatile uint64_t *fp = __builtin_frame_address(0);
	uint64_t saved = fp[0];

	fp[0] = GARBAGE_FP;
	chain_leaf();
	fp[0] = saved;
}

int main(int argc, char **argv)
{
	seconds = argc > 1 ? atof(argv[1]) : 1;
	spin_garbage_rbp();
	spin_loop_rbp();
	chain_corrupt();
	return 0;
}
