// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Bench baseline: fxsampler's program with the kernel's own user-stack
 * unwinder, bpf_get_stack(BPF_F_USER_STACK), in the walker's place. Everything
 * else (gating, filter, names, the record, the ring write) is the real
 * program, included below, so the difference is the unwinder alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "sampler.h"
#include "walk.bpf.h"

/* fp_max only keeps fp "used"; the kernel starts from the registers itself. */
static __always_inline __u32 bench_get_stack(void *ctx, __u64 *frames, __u64 fp_max, __u8 *flags)
{
	long r = bpf_get_stack(ctx, frames, FXS_DEFAULT_FRAMES * sizeof(__u64), BPF_F_USER_STACK);

	if (r <= 0) {
		*flags |= FXS_SF_STOP_FAULT;
		return 1;
	}
	return r / sizeof(__u64);
}

/* walk.bpf.h is already in (its guard keeps it out below): swap the walkers. */
#define walk_simple(frames, fp, max, flags) bench_get_stack(ctx, frames, (fp) + max, flags)
#define walk_fast(frames, fp, max, flags) bench_get_stack(ctx, frames, (fp) + max, flags)
#include "sampler.bpf.c"
