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
 * "rbp" is the frame pointer of the arch built for: x29 on arm64, s0 on
 * riscv64 (whose frame record sits 16 bytes below where s0 points).
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Above the top of the user address space (x86-64, arm64, riscv64): every read faults. */
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
#if defined(__x86_64__)
		__asm__ volatile("push %%rbp\n\t"
				 "movabs %[garbage], %%rbp\n\t"
				 "1: dec %[n]\n\t"
				 "jnz 1b\n\t"
				 "pop %%rbp"
				 : [n] "+r"(n)
				 : [garbage] "i"(GARBAGE_FP)
				 : "cc", "memory");
#elif defined(__aarch64__)
		__asm__ volatile("mov x9, x29\n\t"
				 "mov x29, %[garbage]\n\t"
				 "1: subs %[n], %[n], #1\n\t"
				 "b.ne 1b\n\t"
				 "mov x29, x9"
				 : [n] "+r"(n)
				 : [garbage] "r"(GARBAGE_FP)
				 : "x9", "cc", "memory");
#elif defined(__riscv)
		__asm__ volatile("mv t0, s0\n\t"
				 "mv s0, %[garbage]\n\t"
				 "1: addi %[n], %[n], -1\n\t"
				 "bnez %[n], 1b\n\t"
				 "mv s0, t0"
				 : [n] "+r"(n)
				 : [garbage] "r"(GARBAGE_FP)
				 : "t0", "memory");
#else
#error "badfp: no frame-pointer asm for this arch"
#endif
	}
}

__attribute__((noinline)) void spin_loop_rbp(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end) {
		unsigned long n = BURST;

		/* A frame record on the stack that points at itself, and rbp at it. */
#if defined(__x86_64__)
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
#elif defined(__aarch64__)
		__asm__ volatile("mov x9, x29\n\t"
				 "sub sp, sp, #16\n\t"
				 "mov x29, sp\n\t"
				 "stp x29, x29, [sp]\n\t"
				 "1: subs %[n], %[n], #1\n\t"
				 "b.ne 1b\n\t"
				 "add sp, sp, #16\n\t"
				 "mov x29, x9"
				 : [n] "+r"(n)
				 :
				 : "x9", "cc", "memory");
#elif defined(__riscv)
		/* s0 is the record's end: [s0 - 16] = [s0 - 8] = s0. */
		__asm__ volatile("mv t0, s0\n\t"
				 "addi sp, sp, -16\n\t"
				 "addi s0, sp, 16\n\t"
				 "sd s0, 0(sp)\n\t"
				 "sd s0, 8(sp)\n\t"
				 "1: addi %[n], %[n], -1\n\t"
				 "bnez %[n], 1b\n\t"
				 "addi sp, sp, 16\n\t"
				 "mv s0, t0"
				 : [n] "+r"(n)
				 :
				 : "t0", "memory");
#endif
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
	/*
	 * With frame pointers, the first word of the frame record is the
	 * caller's saved rbp: at rbp (x86-64, arm64), at s0 - 16 (riscv64).
	 */
#if defined(__riscv)
	volatile uint64_t *fp = (uint64_t *)__builtin_frame_address(0) - 2;
#else
	volatile uint64_t *fp = __builtin_frame_address(0);
#endif
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
