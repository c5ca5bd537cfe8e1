// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Leaves whose CFI lies, for the CFI walker's "never a wrong frame": each
 * spins in code whose .eh_frame rule is deliberately corrupt, called from
 * main -> bc_caller. argv[1] picks the leaf, argv[2] the seconds (default 2):
 *
 *   sp0     CFA = rsp + 0: the CFA does not grow (bad_frame)
 *   far     CFA = rsp + 32 KiB - 8: past the top of the stack (a read fault)
 *   expr    CFA by a DWARF expression (unsupported_rule)
 *
 * x86-64 only; elsewhere it spins in plain C (the test skips there).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds;

/* The thread's CPU time: a loaded host gives the test as many samples as an idle one. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#if defined(__x86_64__)
/* Spin rdi iterations under a corrupt CFA rule. */
#define BAD_LEAF(name, cfi)                                                                        \
	__asm__(".text\n.globl " #name "\n.type " #name ",@function\n" #name ":\n"                 \
		".cfi_startproc\n" cfi "\n1: dec %rdi\njnz 1b\nret\n.cfi_endproc\n"                \
		".size " #name ",.-" #name "\n");                                                  \
	void name(unsigned long n)
BAD_LEAF(bc_sp0, ".cfi_def_cfa_offset 0");
/* the largest offset a row holds: a larger one would be unsupported_rule */
BAD_LEAF(bc_far, ".cfi_def_cfa_offset 0x7ff8");
/* DW_CFA_def_cfa_expression: DW_OP_breg7 (rsp) 8 */
BAD_LEAF(bc_expr, ".cfi_escape 0x0f, 0x02, 0x77, 0x08");
#else
static void spin(unsigned long n)
{
	for (volatile unsigned long i = n; i; i--)
		;
}
#define bc_sp0	spin
#define bc_far	spin
#define bc_expr spin
#endif

__attribute__((noinline)) void bc_caller(void (*leaf)(unsigned long))
{
	double end = now() + seconds;

	while (now() < end)
		leaf(1000000);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "sp0";

	seconds = argc > 2 ? atof(argv[2]) : 2;
	bc_caller(!strcmp(which, "far") ? bc_far : !strcmp(which, "expr") ? bc_expr : bc_sp0);
	return 0;
}
