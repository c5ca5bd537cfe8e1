// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Bench baseline: fxsampler's program with a plain walker, one 16-byte
 * bpf_probe_read_user per frame, in the walker's place (the textbook walker,
 * kept here so the baseline does not move when bpf/walk.bpf.h does).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "sampler.h"
#include "walk.bpf.h"

static __always_inline __u32 bench_walk_plain(__u64 *frames, __u64 fp, __u32 max, __u8 *flags)
{
	__u64 pair[2];
	__u32 n = 1;

	for (int i = 1; i < FXS_MAX_FRAMES; i++) {
		if (fp == 0 || n >= max)
			break;
		if (bpf_probe_read_user(pair, sizeof(pair), (void *)fp)) {
			*flags |= FXS_SF_STOP_FAULT;
			break;
		}
		if (pair[1] == 0)
			break;
		frames[n & 0xff] = pair[1];
		n++;
		if (pair[0] <= fp)
			break;
		fp = pair[0];
	}
	return n;
}

#define walk_simple(frames, fp, max, flags) bench_walk_plain(frames, fp, max, flags)
#define walk_fast(frames, fp, max, flags) bench_walk_plain(frames, fp, max, flags)
#include "sampler.bpf.c"
