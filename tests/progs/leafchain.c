// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program whose hot function is a true leaf, built as users build: only
 * -O2 -g -fno-omit-frame-pointer (the Makefile gives it no other flag). Its
 * chain is main -> chain_a -> chain_b -> chain_c -> leaf_caller -> LEAF.
 * The leaf calls nothing, so GCC gives it the frame of a leaf (riscv64 by
 * GCC 12: s0 saved, ra not; arm64: no frame record at all).
 *
 *   leafchain [SECONDS [sleep|spin [WARMUP]]]
 *
 * Runs for SECONDS (default 2): of CPU time, nearly all of it in spin_leaf;
 * or, with "sleep", of wall time, nearly all of it asleep in sleep_leaf,
 * which enters the kernel itself (a raw clock_nanosleep system call, no libc
 * call), so that the off-CPU walk starts from the leaf's registers. WARMUP:
 * seconds asleep in main first (default 0).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* No inlining, cloning or other interprocedural change: the names stay. */
#if defined(__clang__)
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noipa, used))
#endif

static volatile unsigned long sink;

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
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

/* The sleeping leaf: clock_nanosleep(CLOCK_MONOTONIC, 0, {0, ns}, NULL) by hand. */
KEEP unsigned long sleep_leaf(unsigned long ns)
{
	struct timespec ts = {0, (long)ns};
#if defined(__x86_64__)
	register long r10 __asm__("r10") = 0;
	long ret = 230; /* __NR_clock_nanosleep */

	__asm__ volatile("syscall"
			 : "+a"(ret)
			 : "D"((long)CLOCK_MONOTONIC), "S"(0L), "d"(&ts), "r"(r10)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__) || defined(__riscv)
#if defined(__aarch64__)
	register long nr __asm__("x8") = 115; /* __NR_clock_nanosleep */
	register long ret __asm__("x0") = CLOCK_MONOTONIC;
	register long a1 __asm__("x1") = 0;
	register long a2 __asm__("x2") = (long)&ts;
	register long a3 __asm__("x3") = 0;
#define SYSCALL_INSN "svc #0"
#else
	register long nr __asm__("a7") = 115; /* __NR_clock_nanosleep */
	register long ret __asm__("a0") = CLOCK_MONOTONIC;
	register long a1 __asm__("a1") = 0;
	register long a2 __asm__("a2") = (long)&ts;
	register long a3 __asm__("a3") = 0;
#define SYSCALL_INSN "ecall"
#endif
	__asm__ volatile(SYSCALL_INSN : "+r"(ret) : "r"(nr), "r"(a1), "r"(a2), "r"(a3) : "memory");
#else
#error "leafchain: no system call by hand for this arch"
#endif
	return (unsigned long)ret;
}

/* Each caller uses the result after the call: no tail call at -O2. */
KEEP unsigned long leaf_caller(double seconds, int sleep)
{
	clockid_t clock = sleep ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
	double end = now(clock) + seconds;
	unsigned long acc = 0;

	do
		acc += sleep ? sleep_leaf(20 * 1000 * 1000) : spin_leaf(200000);
	while (now(clock) < end);
	return acc + 1;
}

KEEP unsigned long chain_c(double seconds, int sleep)
{
	return leaf_caller(seconds, sleep) + 2;
}

KEEP unsigned long chain_b(double seconds, int sleep)
{
	return chain_c(seconds, sleep) + 3;
}

KEEP unsigned long chain_a(double seconds, int sleep)
{
	return chain_b(seconds, sleep) + 4;
}

int main(int argc, char **argv)
{
	/* WARMUP: asleep first, while the VM tier's slow emulation makes the tables */
	if (argc > 3)
		usleep((useconds_t)(atof(argv[3]) * 1e6));
	sink = chain_a(argc > 1 ? atof(argv[1]) : 2, argc > 2 && !strcmp(argv[2], "sleep"));
	return 0;
}
