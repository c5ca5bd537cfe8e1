/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The frame-pointer walkers' decision for riscv64's first frame, as pure
 * inline logic: bpf/walk.bpf.h applies it, and tests/unit/capture/
 * check_fpframe.c checks it on stack bytes recorded from a real program.
 *
 * GCC before 14 (Debian 12's riscv64-linux-gnu-gcc 12 among them) gives a
 * leaf function, one that calls nothing, a frame that saves s0 but not ra:
 *
 *   addi sp,sp,-16 ; sd s0,8(sp) ; addi s0,sp,16
 *
 * Its frame record is then one word: [s0-8] holds the caller's s0, where a
 * full record holds the return address, and [s0-16] holds whatever the stack
 * held. The return address is still in the ra register, which only the frame
 * the sample's registers describe (the first) can use. Linux's own riscv
 * unwinder (walk_stackframe in arch/riscv/kernel/stacktrace.c) tells the two
 * apart the same way: a word in the ra slot that is a valid frame address
 * above the current one (8-byte aligned, at least s0 + 16) is a saved s0, not
 * a return address. Code lies below the stack on riscv64 (user space's stack
 * is at its top), so a real return address never passes.
 */
#ifndef FXS_INCLUDE_FPFRAME_H
#define FXS_INCLUDE_FPFRAME_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/*
 * How far above s0 the caller's frame may be: the default stack limit (8
 * MiB). Linux bounds it by the kernel stack; a user stack has no such bound,
 * and a word further up is taken for garbage, not followed.
 */
#define FXS_RV_LEAF_MAX_GAP (8ULL << 20)

/*
 * Whether the first frame, with registers sp and s0, is a leaf's whose ra
 * slot ([s0-8]) holds ra_slot, the caller's s0: true when s0 is a frame
 * address at or above sp + 16 (the record lies in the stack), and ra_slot is
 * a user-space (top bit clear), 8-byte aligned address from s0 + 16 to s0 +
 * FXS_RV_LEAF_MAX_GAP.
 */
static __always_inline int fxs_rv_leaf_frame(__u64 sp, __u64 s0, __u64 ra_slot)
{
	return (__s64)ra_slot >= 0 && !(ra_slot & 7) && s0 >= sp + 16 && s0 < ra_slot &&
	       ra_slot - s0 >= 16 && ra_slot - s0 <= FXS_RV_LEAF_MAX_GAP;
}

/*
 * One step of the walk from the first frame (registers sp, s0 and ra; its
 * record's words fp_slot = [s0-16] and ra_slot = [s0-8]): the caller's pc into
 * *ret and its frame pointer into *next. A leaf's frame takes them from ra
 * and the ra slot; any other frame from the record, as every later frame does.
 */
static __always_inline void fxs_rv_first_frame(__u64 sp, __u64 s0, __u64 ra, __u64 fp_slot,
					       __u64 ra_slot, __u64 *ret, __u64 *next)
{
	if (fxs_rv_leaf_frame(sp, s0, ra_slot)) {
		*ret = ra;
		*next = ra_slot;
	} else {
		*ret = ra_slot;
		*next = fp_slot;
	}
}

#endif /* FXS_INCLUDE_FPFRAME_H */
