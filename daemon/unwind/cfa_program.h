/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The DW_CFA interpreter: runs a CIE's initial instructions and an FDE's
 * program, and says the rules in force at each pc where they change. Only
 * the columns the walker uses are kept (the CFA, the return address, the
 * frame pointer and sp); every other register's operations are read and
 * checked, then dropped. Per-arch DWARF register numbers (x86-64 rsp 7, rbp 6,
 * return address 16; arm64 sp 31, x29, x30; riscv64 sp 2, s0 8, ra 1).
 * Bounded: program bytes, the remember_state stack. Pure.
 */
#ifndef FXS_DAEMON_UNWIND_CFA_PROGRAM_H
#define FXS_DAEMON_UNWIND_CFA_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/eh_frame.h"

/* Caps on a CFA program: longer ones and deeper remember_state are refused. */
#define CFA_MAX_PROGRAM (256u << 10) /* bytes of instructions, CIE's and FDE's */
#define CFA_MAX_STATES	16	     /* DW_CFA_remember_state depth */

struct cfa_arch {
	uint16_t machine; /* EM_* */
	uint8_t sp, fp;	  /* DWARF numbers of the stack and frame pointers */
	uint8_t lr;	  /* the link register holding the return address, or 0xff: none (x86-64) */
	const char *name;
};

/* The arch of an ELF e_machine, NULL when not supported. */
const struct cfa_arch *cfa_arch_of(uint16_t machine);

enum cfa_how {
	CFA_RULE_SAME = 0,   /* unset or DW_CFA_same_value: the caller's value is this frame's */
	CFA_RULE_UNDEF,	     /* DW_CFA_undefined */
	CFA_RULE_OFFSET,     /* saved at CFA + off */
	CFA_RULE_VAL_OFFSET, /* the value is CFA + off */
	CFA_RULE_REGISTER,   /* in register off */
	CFA_RULE_EXPR,	     /* saved at an expression's address */
	CFA_RULE_VAL_EXPR,   /* the value of an expression */
};

enum cfa_cfa_kind {
	CFA_CFA_REG = 0, /* CFA = register + offset */
	CFA_CFA_EXPR,	 /* DW_CFA_def_cfa_expression */
	CFA_CFA_PLT,	 /* the x86-64 lazy .plt expression: rsp + 8, + 8 from byte 11 of 16 */
};

struct cfa_reg_rule {
	uint8_t how; /* enum cfa_how */
	int64_t off;
};

struct cfa_state {
	uint8_t cfa_kind; /* enum cfa_cfa_kind */
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct cfa_reg_rule ra, fp, sp;
	bool ra_signed; /* arm64 DW_CFA_AARCH64_negate_ra_state: the RA carries a PAC */
};

/*
 * Called for each row: the state in force from pc on (until the next call's
 * pc or the FDE's end). pcs grow strictly, all in [pc_begin, pc_end). A
 * non-zero return stops the run and is returned.
 */
typedef int (*cfa_row_fn)(void *ctx, uint64_t pc, const struct cfa_state *st);

/*
 * Run fde's CIE initial instructions and its program. 0, the callback's
 * error, or -EBADMSG (an unknown or truncated op, set_loc backwards, an
 * advance in a CIE, restore_state with nothing remembered, an overflow),
 * -E2BIG (a program over CFA_MAX_PROGRAM, remember_state deeper than
 * CFA_MAX_STATES).
 */
int cfa_run(const struct cfa_arch *arch, const struct cfi_section *s, const struct cfi_fde *fde,
	    cfa_row_fn fn, void *ctx);

#endif /* FXS_DAEMON_UNWIND_CFA_PROGRAM_H */
