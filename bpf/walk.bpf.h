/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Frame-pointer walkers of the user stack. BPF only. Each takes the frames to
 * fill (frames[0] already holds the interrupted pc) and whatever scratch it
 * needs from its caller: a header defines no map.
 */
#ifndef FXS_BPF_WALK_BPF_H
#define FXS_BPF_WALK_BPF_H

#include "fpframe.h"

/*
 * Where each arch keeps the frame record, two words: the caller's frame
 * pointer, then the return address. x86-64 ([rbp], [rbp+8]) and arm64 ([x29],
 * [x29+8]) point the frame pointer at the record; riscv64's s0 points at the
 * CFA, the record is the 16 bytes below it ([s0-16], [s0-8]).
 */
#if defined(__TARGET_ARCH_riscv)
#define FXS_FRAME_OFF 16
#else
#define FXS_FRAME_OFF 0
#endif

/*
 * A user-space address: the top bit is clear on x86-64, arm64 and riscv64
 * (kernel addresses fill the upper half on all three), so a pc with it set
 * was interrupted in the kernel.
 */
static __always_inline bool fxs_user_addr(__u64 addr)
{
	return (__s64)addr >= 0;
}

/*
 * A return address as the code has it. arm64 code built with
 * -mbranch-protection (Debian 13's default flags) saves a pointer-signed lr
 * in its frame record: the signature fills bits above the 48-bit user VA, so
 * clearing them gives the address back. Kernels with 52-bit VA (Debian 13's)
 * still map user space below 2^48 unless a program asks for higher with an
 * mmap hint. Other arches store it plain.
 */
static __always_inline __u64 fxs_ret_addr(__u64 ret)
{
#if defined(__TARGET_ARCH_arm64)
	return ret & ((1ULL << 48) - 1);
#else
	return ret;
#endif
}

/*
 * The caller's pc (*ret) and frame pointer (*next) from frame record
 * (fp_slot, ra_slot) at fp. The first frame (i == 1) is the one the sample's
 * registers describe: on riscv64 it may be a GCC leaf's, which saved s0 but
 * not ra (include/fpframe.h), and then sp and ra, those registers, give it.
 */
static __always_inline void fxs_frame_step(int i, __u64 fp, __u64 sp, __u64 ra, __u64 fp_slot,
					   __u64 ra_slot, __u64 *ret, __u64 *next)
{
	*ret = ra_slot;
	*next = fp_slot;
#if defined(__TARGET_ARCH_riscv)
	if (i == 1)
		fxs_rv_first_frame(sp, fp, ra, fp_slot, ra_slot, ret, next);
#endif
}

/*
 * The walkers go frame by frame through struct fxs_fp_walk, which holds where
 * the walk is, so that it can be taken up again: the walk runs in parts of a
 * few dozen frames, each a call of a global function that the verifier checks
 * once (sampler.bpf.c's fp_walk_part()), so a walk of FXS_MAX_FRAMES costs the
 * verifier no more than one part. A loop of the whole depth in one function
 * did not load: Linux 6.1's verifier gave up on walk_fast unrolled to 255
 * frames (E2BIG), and bpf_loop() needs the JIT, which Debian's riscv64 kernel
 * ships off.
 *
 * walk_fast copies the stack in windows, one bpf_probe_read_user per window
 * instead of one per frame, and resolves the frames from the copy. A helper
 * call costs far more than the bytes it copies, and frames are small, so a
 * window usually holds many frames.
 *
 * A window never crosses the 4 KiB page that holds its first word (a read
 * that runs into an unmapped page faults, and a fault costs microseconds),
 * except when the frame record itself straddles two pages (it starts at the
 * last word of a page), where walk_simple's 16-byte read crosses the same boundary. So a
 * window read faults exactly when walk_simple's read of its first frame
 * would, and every later frame it serves lies in pages that window already
 * proved mapped. 4 KiB is the smallest page on every arch we build for.
 *
 * The first window is short (most of a deep stack's frames sit near the
 * sampled fp, and the copy's cost grows with its length); later windows take
 * the rest of the page up to FXS_WALK_WIN.
 */
#ifndef FXS_WALK_WIN
#define FXS_WALK_WIN 2048
#endif
#ifndef FXS_WALK_FIRST
#define FXS_WALK_FIRST 512
#endif
#define FXS_WALK_PAGE 4096

/* walk_fast's copy of the stack. */
struct fxs_walk_win {
	__u64 w[FXS_WALK_WIN / 8];
};

/* A frame-pointer walk, from its caller (a per-CPU map value: it is large). */
struct fxs_fp_walk {
	__u64 fp;	      /* the next frame record is at fp - FXS_FRAME_OFF */
	__u64 sp, ra;	      /* the sample's registers: riscv64's first frame (fxs_frame_step) */
	__u64 base, len, cap; /* walk_fast's window holds the stack's [base, base + len) */
	__u32 n;	      /* frames so far (frames[0], the pc, is the caller's) */
	__u32 max;	      /* cfg_max_frames, <= FXS_MAX_FRAMES */
	__u32 flags;	      /* FXS_SF_* stop flags */
	__u32 pad;
	__u64 frames[FXS_MAX_FRAMES];
	struct fxs_walk_win win;
};

/* A walk from the registers fp, sp and ra, of at most max frames. */
static __always_inline void fp_walk_start(struct fxs_fp_walk *w, __u64 fp, __u64 sp, __u64 ra,
					  __u32 max)
{
	w->fp = fp;
	w->sp = sp;
	w->ra = ra;
	w->base = 0;
	w->len = 0;
	w->cap = FXS_WALK_FIRST;
	w->n = 1;
	w->max = max < FXS_MAX_FRAMES ? max : FXS_MAX_FRAMES;
	w->flags = 0;
}

/*
 * The frame of record (fp_slot, ra_slot) at fp: the caller's pc goes into
 * the frames, its frame pointer is the next record's. 1: the walk is over.
 * Stops on pc 0, at max frames when there is a frame beyond (truncated), and
 * on an fp that does not grow (the loop guard).
 */
static __always_inline int fp_walk_push(struct fxs_fp_walk *w, __u64 fp, __u64 fp_slot,
					__u64 ra_slot)
{
	__u32 n = w->n;
	__u64 ret, next;

	fxs_frame_step(n, fp, w->sp, w->ra, fp_slot, ra_slot, &ret, &next);
	if (ret == 0)
		return 1;
	if (n >= w->max || n >= FXS_MAX_FRAMES) {
		/* There is a frame beyond the cap: the stack is cut here. */
		w->flags |= FXS_SF_TRUNCATED;
		return 1;
	}
	w->frames[n & (FXS_MAX_FRAMES - 1)] = fxs_ret_addr(ret);
	w->n = n + 1;
	if (next != 0 && next <= fp) {
		w->flags |= FXS_SF_STOP_BAD_FP;
		return 1;
	}
	w->fp = next;
	return 0;
}

/*
 * One frame of the plain walker, one 16-byte read of the frame record (at
 * fp - FXS_FRAME_OFF): its first word -> next fp, its second -> return
 * address. Stops on fp 0, a misaligned fp and a read fault too. 1: over.
 */
static __always_inline int walk_simple_step(struct fxs_fp_walk *w)
{
	__u64 fp = w->fp, pair[2];

	if (fp == 0)
		return 1;
	if (fp & 7) {
		w->flags |= FXS_SF_STOP_BAD_FP;
		return 1;
	}
	if (bpf_probe_read_user(pair, sizeof(pair), (void *)(fp - FXS_FRAME_OFF))) {
		w->flags |= FXS_SF_STOP_FAULT;
		return 1;
	}
	return fp_walk_push(w, fp, pair[0], pair[1]);
}

/* One frame of the bulk walker: walk_simple_step's frame, from the window. */
static __always_inline int walk_fast_step(struct fxs_fp_walk *w)
{
	__u64 fp = w->fp, rec, off, room;

	if (fp == 0)
		return 1;
	if (fp & 7) {
		w->flags |= FXS_SF_STOP_BAD_FP;
		return 1;
	}
	/*
	 * rec, the frame record, only grows with fp, so it leaves the window at
	 * the top or not at all.
	 */
	rec = fp - FXS_FRAME_OFF;
	off = rec - w->base;
	if (off >= w->len || w->len - off < 16) {
		room = FXS_WALK_PAGE - (rec & (FXS_WALK_PAGE - 1));
		if (room < 16)
			room += FXS_WALK_PAGE;
		if (room > w->cap)
			room = w->cap;
		if (room > FXS_WALK_WIN)
			room = FXS_WALK_WIN;
		/* No change (room <= FXS_WALK_WIN): bounds it for 6.1's verifier. */
		room &= 2 * FXS_WALK_WIN - 1;
		if (bpf_probe_read_user(w->win.w, room, (void *)rec)) {
			w->flags |= FXS_SF_STOP_FAULT;
			return 1;
		}
		w->base = rec;
		w->len = room;
		off = 0;
		w->cap = FXS_WALK_WIN;
	}
	/* Never taken (off + 16 <= len <= FXS_WALK_WIN); bounds it for the verifier. */
	if (off > FXS_WALK_WIN - 16)
		return 1;
	return fp_walk_push(w, fp, w->win.w[off / 8], w->win.w[off / 8 + 1]);
}

/*
 * The bench's baselines, behind cfg_walker values fxsampler never loads.
 *
 * walk_plain: the textbook walker, one 16-byte read per frame at fp, no stop
 * reasons but a fault. Kept as it is, so that the baseline does not move when
 * the walkers above do.
 */
#define FXS_PLAIN_FRAMES 255
static __always_inline __u32 walk_plain(__u64 *frames, __u64 fp, __u32 max, __u8 *flags)
{
	__u64 pair[2];
	__u32 n = 1;

	for (int i = 1; i < FXS_PLAIN_FRAMES; i++) {
		if (fp == 0 || n >= max)
			break;
		if (bpf_probe_read_user(pair, sizeof(pair), (void *)fp)) {
			*flags |= FXS_SF_STOP_FAULT;
			break;
		}
		if (pair[1] == 0)
			break;
		frames[n & (FXS_MAX_FRAMES - 1)] = pair[1];
		n++;
		if (pair[0] <= fp)
			break;
		fp = pair[0];
	}
	return n;
}

/*
 * The kernel's own user-stack unwinder in the walker's place: it starts from
 * the registers of a perf_event program's ctx itself and overwrites frames[0].
 */
#define FXS_GETSTACK_FRAMES 255
static __always_inline __u32 walk_getstack(void *ctx, __u64 *frames, __u8 *flags)
{
	/* the kernel's perf_event_max_stack (127 by default) cuts it anyway */
	long r = bpf_get_stack(ctx, frames, FXS_GETSTACK_FRAMES * sizeof(__u64), BPF_F_USER_STACK);

	if (r <= 0) {
		*flags |= FXS_SF_STOP_FAULT;
		return 1;
	}
	return r / sizeof(__u64);
}

#endif /* FXS_BPF_WALK_BPF_H */
