/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unwind tables of the CFI walker (record --unwind=cfi|auto): what crosses
 * the BPF / user-space boundary. User space generates a module's table from
 * its .eh_frame (or .debug_frame); the BPF walker looks up the row of a pc and
 * applies its rule to find the caller's CFA, pc and frame pointer.
 *
 * A table is an array of rows sorted by pc. A row covers [pc, next row's pc);
 * the last row of a table, and every gap between FDEs, is a row of kind
 * FXS_CFI_NONE. pc is the ELF virtual address of the module (p_vaddr space,
 * as symbols are), low 32 bits: a module whose code lies above 4 GiB of
 * vaddr gets no table.
 *
 * A rule is one 32-bit word (tables are kept on disk as struct fxs_cfi_row:
 * change CFI_CACHE_VERSION, daemon/unwind/cfi_cache.h, with either):
 *   bits  0..2   kind (FXS_CFI_*)
 *   bits  3..14  CFA offset / 8, unsigned (the CFA is base register + offset)
 *   bit  15      FXS_CFI_LOW: the base register is fp (else sp); elsewhere the
 *                CFA offset's 13th bit: frames up to 64 KiB (libLLVM's
 *                optimizer has 33 KiB ones: 1 % of a clang++ -O2 compile's
 *                stacks ended there when the offset stopped at 32 KiB)
 *   bits 16..23  where the return address is saved, signed, in 8-byte words
 *                from the CFA; 0: not saved, still in its register (arm64
 *                x30, riscv64 ra: valid only for the innermost frame)
 *   bits 24..31  where the frame pointer (rbp, x29, s0) is saved, signed, in
 *                8-byte words from the CFA; 0: not saved, unchanged
 * Offsets that do not fit, a CFA that is not sp- or fp-based, and saves by
 * expression make the row FXS_CFI_UNSUPPORTED: the walker ends the stack
 * there with a reason, never a guess.
 *
 * FXS_CFI_LOW is FXS_CFI_SP or FXS_CFI_FP (bit 15) with the saves counted
 * from the base register's value - 8 (CFA - offset - 8) instead of from the
 * CFA: a field k says base - 8 + 8 k, so x29 at [base] is 1, x30 at
 * [base + 8] is 2, and 0 still says "not saved". arm64 keeps its frame record
 * (x29, x30) at the bottom of its frames: over 1 KiB below the CFA in 18 % of
 * Debian 12 arm64 libc's code (vfprintf, ...). The generator uses it only
 * where the CFA-relative form does not fit.
 *
 * FXS_CFI_PLT: CFA = sp + 8, and 8 more where (pc & 15) >= 11, i.e. once the
 * 16-byte lazy-binding entry's "push $index" has run; the return address at
 * CFA - 8, the frame pointer unchanged (the rule's fields say so too).
 *
 * Applying a row: look up the innermost frame at its pc, every caller at its
 * return address - 1 (the call, not what follows it: a noreturn call may end
 * its function). CFA = sp or fp + offset; the caller's sp is the CFA, its pc
 * and fp are read where the fields say (or kept, for 0). FXS_CFI_END ends the
 * stack normally (_start, clone, start_thread: return address undefined);
 * NONE, UNSUPPORTED and SIGNAL end it with their reason. The fields of END
 * and SIGNAL rows are filled where they fit, for information only.
 */
#ifndef FXS_INCLUDE_UNWIND_H
#define FXS_INCLUDE_UNWIND_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum fxs_cfi_kind {
	FXS_CFI_NONE = 0,	 /* no FDE covers this pc */
	FXS_CFI_SP = 1,		 /* CFA = sp + offset */
	FXS_CFI_FP = 2,		 /* CFA = fp + offset */
	FXS_CFI_END = 3,	 /* the outermost frame: return address undefined */
	FXS_CFI_UNSUPPORTED = 4, /* a rule the walker does not apply */
	FXS_CFI_SIGNAL = 5,	 /* a signal frame (CIE augmentation "S") */
	FXS_CFI_PLT = 6,	 /* x86-64 .plt: CFA = rsp + 8, + 8 once past the push */
	FXS_CFI_LOW = 7,	 /* SP or FP (bit 15), saves counted from base - 8 */
};

#define FXS_CFI_KIND_BITS    3
#define FXS_CFI_CFA_SHIFT    3
#define FXS_CFI_CFA_MAX	     0x1fff /* in 8-byte words */
#define FXS_CFI_LOW_CFA_MAX  0xfff  /* FXS_CFI_LOW's: bit 15 is its base */
#define FXS_CFI_LOW_FP	     (1u << 15)
#define FXS_CFI_RA_SHIFT     16
#define FXS_CFI_FP_SHIFT     24
#define FXS_CFI_RULE_KIND(r) ((r)&0x7)
#define FXS_CFI_RULE_CFA(r)                                                                        \
	((((r) >> FXS_CFI_CFA_SHIFT) &                                                             \
	  (FXS_CFI_RULE_KIND(r) == FXS_CFI_LOW ? FXS_CFI_LOW_CFA_MAX : FXS_CFI_CFA_MAX)) *         \
	 8)
#define FXS_CFI_RULE_RA(r) ((__s64)(__s8)(((r) >> FXS_CFI_RA_SHIFT) & 0xff) * 8)
#define FXS_CFI_RULE_FP(r) ((__s64)(__s8)(((r) >> FXS_CFI_FP_SHIFT) & 0xff) * 8)

/*
 * A row as the generator makes it (daemon/unwind/cfi_table): the vaddr it
 * starts at and its rule. The walker reads rows compacted (below).
 */
struct fxs_cfi_row {
	__u32 pc;
	__u32 rule;
};

/*
 * Compact rows (daemon/unwind/cfi_pages.h), what the walker reads: a module's
 * vaddr is cut in 64 KiB pages, and a row is one 32-bit word of cfi_rows,
 *   bits  0..15  the pc's offset in its page
 *   bits 16..31  the rule's index in cfi_rules (the rules of every module,
 *                each once: a few thousand on a host)
 * A module's slice starts with its page index, nr_pages + 1 words: the rows
 * of page first_page + i are [index[i], index[i + 1]) of the rows that
 * follow. A pc before its page's first row takes the row before (the last of
 * an earlier page).
 */
#define FXS_CFI_PAGE_SHIFT   16
#define FXS_CFI_RULES_MAX    (1u << 16)
#define FXS_CFI_WORD(off, i) ((__u32)(off) | ((__u32)(i) << 16))
#define FXS_CFI_WORD_OFF(w)  ((w)&0xffff)
#define FXS_CFI_WORD_RULE(w) ((w) >> 16)

#endif /* FXS_INCLUDE_UNWIND_H */
