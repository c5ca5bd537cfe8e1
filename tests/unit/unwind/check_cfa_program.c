// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests: the DW_CFA interpreter on programs written by hand: which rows
 * it reports and the rules in each, the x86-64 .plt expression, arm64's
 * negate_ra_state, and every way a program is refused (caps included).
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfa_program.h"

#include "cfi_bytes.h"
#include "check_main.h"

struct seen {
	uint64_t pc[64];
	struct cfa_state st[64];
	unsigned n;
};

static int collect(void *ctx, uint64_t pc, const struct cfa_state *st)
{
	struct seen *s = ctx;

	ck_assert_uint_lt(s->n, 64);
	if (s->n)
		ck_assert_uint_gt(pc, s->pc[s->n - 1]);
	s->pc[s->n] = pc;
	s->st[s->n++] = *st;
	return 0;
}

static struct cfi_section sec;
static struct cfi_fde fde;

/* An FDE over [0x1000, 0x1000 + len) whose CIE has cie_insns, running insns. */
static int run_on(uint16_t machine, uint64_t ra, int64_t data_align, const uint8_t *cie_insns,
		  size_t ncie, const uint8_t *insns, size_t n, uint64_t len, struct seen *s)
{
	memset(&fde, 0, sizeof(fde));
	memset(s, 0, sizeof(*s));
	fde.pc_begin = 0x1000;
	fde.pc_end = 0x1000 + len;
	fde.cie.code_align = 1;
	fde.cie.data_align = data_align;
	fde.cie.ra_reg = ra;
	fde.cie.fde_enc = 0x03; /* udata4, for set_loc */
	fde.cie.insns = cie_insns;
	fde.cie.insns_len = ncie;
	fde.insns = insns;
	fde.insns_len = n;
	return cfa_run(cfa_arch_of(machine), &sec, &fde, collect, s);
}

#define RUN_X86(s, len, ...) run_on(EM_X86_64, 16, -8, X86_CIE_INSNS, INSNS(__VA_ARGS__), len, s)

START_TEST(test_x86_prologue_epilogue)
{
	struct seen s;

	/*
	 * push rbp; mov rbp,rsp; ...; pop rbp (remember/restore around it); ret;
	 * more code.
	 */
	ck_assert_int_eq(RUN_X86(&s, 0x20, 0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x4a, 0x0a, 0x0c,
				 7, 8, 0x41, 0x0b, 0x45),
			 0);
	ck_assert_uint_eq(s.n, 6);
	ck_assert_uint_eq(s.pc[0], 0x1000);
	ck_assert_uint_eq(s.st[0].cfa_reg, 7);
	ck_assert_int_eq(s.st[0].cfa_off, 8);
	ck_assert_int_eq(s.st[0].ra.how, CFA_RULE_OFFSET);
	ck_assert_int_eq(s.st[0].ra.off, -8);
	ck_assert_int_eq(s.st[0].fp.how, CFA_RULE_SAME);
	ck_assert_uint_eq(s.pc[1], 0x1001);
	ck_assert_int_eq(s.st[1].cfa_off, 16);
	ck_assert_int_eq(s.st[1].fp.how, CFA_RULE_OFFSET);
	ck_assert_int_eq(s.st[1].fp.off, -16);
	ck_assert_uint_eq(s.pc[2], 0x1004);
	ck_assert_uint_eq(s.st[2].cfa_reg, 6);
	ck_assert_int_eq(s.st[2].cfa_off, 16);
	/* After the remembered state's epilogue: rsp + 8 for one byte (ret). */
	ck_assert_uint_eq(s.pc[3], 0x100e);
	ck_assert_uint_eq(s.st[3].cfa_reg, 7);
	ck_assert_int_eq(s.st[3].cfa_off, 8);
	ck_assert_uint_eq(s.pc[4], 0x100f);
	ck_assert_uint_eq(s.st[4].cfa_reg, 6);
	ck_assert_int_eq(s.st[4].fp.off, -16);
	/* The interpreter reports each location; equal rules merge in the table. */
	ck_assert_uint_eq(s.pc[5], 0x1014);
	ck_assert_uint_eq(s.st[5].cfa_reg, 6);
}
END_TEST

START_TEST(test_rows_stop_at_the_end)
{
	struct seen s;

	/* advance_loc1 40 and advance_loc2 past a 16-byte FDE: one row only. */
	ck_assert_int_eq(RUN_X86(&s, 16, 0x02, 40, 0x0e, 16, 0x03, 1, 0, 0x0e, 24), 0);
	ck_assert_uint_eq(s.n, 1);
	/* advance by 0 reports nothing new; set_loc moves forward only. */
	ck_assert_int_eq(RUN_X86(&s, 16, 0x40, 0x0e, 16, 0x01, 0x04, 0x10, 0, 0), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.pc[1], 0x1004);
	ck_assert_int_eq(RUN_X86(&s, 16, 0x44, 0x01, 0x02, 0x10, 0, 0), -EBADMSG);
}
END_TEST

START_TEST(test_plt_expression)
{
	struct seen s;

	ck_assert_int_eq(RUN_X86(&s, 32, 0x0e, 16, 0x46, 0x0e, 24, 0x4a, 0x0f, 11, 0x77, 8, 0x80, 0,
				 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22),
			 0);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_int_eq(s.st[1].cfa_kind, CFA_CFA_REG);
	ck_assert_int_eq(s.st[2].cfa_kind, CFA_CFA_PLT);
	/* DW_OP_lit10 instead of lit11: another expression, not applied. */
	ck_assert_int_eq(RUN_X86(&s, 32, 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3a, 0x2a, 0x33,
				 0x24, 0x22),
			 0);
	ck_assert_int_eq(s.st[0].cfa_kind, CFA_CFA_EXPR);
	/* The same bytes on arm64 mean other registers. */
	ck_assert_int_eq(
		run_on(EM_AARCH64, 30, -8, INSNS(0x0c, 31, 0),
		       INSNS(0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22),
		       16, &s),
		0);
	ck_assert_int_eq(s.st[0].cfa_kind, CFA_CFA_EXPR);
	/* def_cfa_register after an expression: the offset from before it (libgcrypt). */
	ck_assert_int_eq(RUN_X86(&s, 32, 0x0e, 56, 0x41, 0x0f, 1, 0x77, 0x41, 0x0d, 7), 0);
	ck_assert_int_eq(s.st[1].cfa_kind, CFA_CFA_EXPR);
	ck_assert_int_eq(s.st[2].cfa_kind, CFA_CFA_REG);
	ck_assert_uint_eq(s.st[2].cfa_reg, 7);
	ck_assert_int_eq(s.st[2].cfa_off, 56);
	/* def_cfa_offset on an expression's CFA is malformed. */
	ck_assert_int_eq(RUN_X86(&s, 32, 0x0f, 1, 0x77, 0x0e, 16), -EBADMSG);
}
END_TEST

START_TEST(test_register_rules)
{
	struct seen s;

	/* undefined ra; same_value rbp; register rbp in rbx; expression on rsp. */
	ck_assert_int_eq(RUN_X86(&s, 16, 0x07, 16, 0x41, 0x08, 6, 0x41, 0x09, 6, 3, 0x41, 0x10, 7,
				 1, 0x77, 0x41, 0x16, 16, 1, 0x77, 0x41, 0x14, 6, 2, 0x41, 0xc6,
				 0x41, 0x05, 6, 3, 0x41, 0x06, 6, 0x41, 0x11, 6, 0x7e, 0x41, 0x2f,
				 6, 1),
			 0);
	ck_assert_int_eq(s.st[0].ra.how, CFA_RULE_UNDEF);
	ck_assert_int_eq(s.st[1].fp.how, CFA_RULE_SAME);
	ck_assert_int_eq(s.st[1].ra.how, CFA_RULE_UNDEF);
	ck_assert_int_eq(s.st[2].fp.how, CFA_RULE_REGISTER);
	ck_assert_int_eq(s.st[2].fp.off, 3);
	ck_assert_int_eq(s.st[3].sp.how, CFA_RULE_EXPR);
	ck_assert_int_eq(s.st[4].ra.how, CFA_RULE_VAL_EXPR);
	ck_assert_int_eq(s.st[5].fp.how, CFA_RULE_VAL_OFFSET);
	ck_assert_int_eq(s.st[5].fp.off, -16);
	/* restore: back to the CIE's rule (none for rbp) */
	ck_assert_int_eq(s.st[6].fp.how, CFA_RULE_SAME);
	ck_assert_int_eq(s.st[7].fp.how, CFA_RULE_OFFSET);
	ck_assert_int_eq(s.st[7].fp.off, -24);
	ck_assert_int_eq(s.st[8].fp.how, CFA_RULE_SAME);
	/* offset_extended_sf -2 (factored by -8): +16 */
	ck_assert_int_eq(s.st[9].fp.off, 16);
	/* GNU_negative_offset_extended 1: -(1 * -8) */
	ck_assert_int_eq(s.st[10].fp.off, 8);
	/* Other registers are read and dropped; args_size and nops are harmless. */
	ck_assert_int_eq(
		RUN_X86(&s, 16, 0x83, 3, 0x2e, 16, 0x00, 0x05, 12, 4, 0x10, 13, 2, 0x77, 0), 0);
	ck_assert_uint_eq(s.n, 1);
}
END_TEST

START_TEST(test_arm64_negate_ra_state)
{
	struct seen s;

	/* paciasp; stp x29, x30, [sp, -16]!; ... remembered; autiasp; ret */
	ck_assert_int_eq(run_on(EM_AARCH64, 30, -8, INSNS(0x0c, 31, 0),
				INSNS(0x2d, 0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1, 0x44, 0x0a, 0xdd,
				      0xde, 0x0e, 0, 0x41, 0x2d, 0x41, 0x0b),
				64, &s),
			 0);
	ck_assert_uint_eq(s.n, 5);
	ck_assert(s.st[0].ra_signed);
	ck_assert_int_eq(s.st[0].ra.how, CFA_RULE_SAME);
	ck_assert_int_eq(s.st[1].ra.off, -8);
	ck_assert_int_eq(s.st[1].fp.off, -16);
	ck_assert_int_eq(s.st[2].ra.how, CFA_RULE_SAME);
	ck_assert(s.st[2].ra_signed);
	ck_assert(!s.st[3].ra_signed);
	/* restore_state brings the signing state back with the rules. */
	ck_assert(s.st[4].ra_signed);
	ck_assert_int_eq(s.st[4].ra.off, -8);
	/* On x86-64 0x2d (GNU_window_save) means nothing. */
	ck_assert_int_eq(RUN_X86(&s, 16, 0x2d), -EBADMSG);
}
END_TEST

START_TEST(test_riscv64_cie)
{
	struct seen s;

	/* Debian's riscv64 CIEs say only def_cfa_register sp: CFA = sp + 0. */
	ck_assert_int_eq(run_on(EM_RISCV, 1, -4, INSNS(0x0d, 2),
				INSNS(0x42, 0x0e, 16, 0x42, 0x81, 2, 0x88, 4), 16, &s),
			 0);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_int_eq(s.st[0].cfa_kind, CFA_CFA_REG);
	ck_assert_uint_eq(s.st[0].cfa_reg, 2);
	ck_assert_int_eq(s.st[0].cfa_off, 0);
	ck_assert_int_eq(s.st[0].ra.how, CFA_RULE_SAME);
	ck_assert_int_eq(s.st[2].ra.off, -8);
	ck_assert_int_eq(s.st[2].fp.off, -16);
	/* With no CIE rule at all, the CFA's register is none of ours. */
	ck_assert_int_eq(run_on(EM_RISCV, 1, -4, INSNS(0), INSNS(0), 16, &s), 0);
	ck_assert_uint_ne(s.st[0].cfa_reg, 2);
	ck_assert_uint_ne(s.st[0].cfa_reg, 8);
}
END_TEST

START_TEST(test_refused)
{
	static uint8_t big[CFA_MAX_PROGRAM + 1];
	uint8_t deep[CFA_MAX_STATES + 1];
	struct seen s;

	/* unknown op, truncated operands, LEB128 over 64 bits */
	ck_assert_int_eq(RUN_X86(&s, 16, 0x3f), -EBADMSG);
	ck_assert_int_eq(RUN_X86(&s, 16, 0x0c, 7), -EBADMSG);
	ck_assert_int_eq(RUN_X86(&s, 16, 0x04, 1, 0), -EBADMSG);
	ck_assert_int_eq(RUN_X86(&s, 16, 0x0e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				 0xff, 0x01),
			 -EBADMSG);
	ck_assert_int_eq(RUN_X86(&s, 16, 0x0f, 5, 1), -EBADMSG);
	/* restore_state with nothing remembered; remember_state too deep */
	ck_assert_int_eq(RUN_X86(&s, 16, 0x0b), -EBADMSG);
	memset(deep, 0x0a, sizeof(deep));
	ck_assert_int_eq(run_on(EM_X86_64, 16, -8, X86_CIE_INSNS, deep, sizeof(deep), 16, &s),
			 -E2BIG);
	ck_assert_int_eq(run_on(EM_X86_64, 16, -8, X86_CIE_INSNS, deep, CFA_MAX_STATES, 16, &s), 0);
	/* a program over the cap, even of nops */
	ck_assert_int_eq(run_on(EM_X86_64, 16, -8, X86_CIE_INSNS, big, sizeof(big), 16, &s),
			 -E2BIG);
	/* an advance or a restore in the CIE */
	ck_assert_int_eq(run_on(EM_X86_64, 16, -8, INSNS(0x0c, 7, 8, 0x41), INSNS(0), 16, &s),
			 -EBADMSG);
	ck_assert_int_eq(run_on(EM_X86_64, 16, -8, INSNS(0x0c, 7, 8, 0xc6), INSNS(0), 16, &s),
			 -EBADMSG);
	ck_assert_int_eq(run_on(EM_X86_64, 16, -8, INSNS(0x0a), INSNS(0), 16, &s), -EBADMSG);
	/* an advance that overflows the address */
	memset(&fde, 0, sizeof(fde));
	fde.pc_begin = 0x1000;
	fde.pc_end = 0x2000;
	fde.cie.code_align = UINT64_MAX / 2;
	fde.cie.data_align = -8;
	fde.cie.ra_reg = 16;
	fde.insns = (const uint8_t[]){0x43};
	fde.insns_len = 1;
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(cfa_run(cfa_arch_of(EM_X86_64), &sec, &fde, collect, &s), -EBADMSG);
	ck_assert_ptr_null(cfa_arch_of(EM_386));
}
END_TEST

static Suite *cfa_program_suite(void)
{
	Suite *s = suite_create("cfa_program");
	TCase *tc = tcase_create("ops");

	tcase_add_test(tc, test_x86_prologue_epilogue);
	tcase_add_test(tc, test_rows_stop_at_the_end);
	tcase_add_test(tc, test_plt_expression);
	tcase_add_test(tc, test_register_rules);
	tcase_add_test(tc, test_arm64_negate_ra_state);
	tcase_add_test(tc, test_riscv64_cie);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(cfa_program_suite)
