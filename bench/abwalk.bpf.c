// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Bench check: fxsampler's program where every sample is walked by both
 * walk_fast and walk_simple from the same fp; a per-CPU counter pair counts
 * the samples where they agree (frame count, stop flags, every frame) and
 * where they do not. The record written is walk_fast's.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "sampler.h"
#include "walk.bpf.h"

struct ab_frames {
	__u64 f[FXS_MAX_FRAMES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ab_frames);
} ab_frames SEC(".maps");

/* [0] agree, [1] differ */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} ab_stats SEC(".maps");

/*
 * Each walk runs in a global function, verified on its own, so the states of
 * the two walks do not multiply. Each returns its frame count | flags << 16.
 */
int ab_fast(__u64 fp, __u32 max);
int ab_simple(__u64 fp, __u32 max);
int ab_compare(__u32 r1, __u32 r2);

static __always_inline __u32 bench_walk_ab(__u64 *frames, __u64 fp, __u32 max, __u8 *flags)
{
	int r1 = ab_fast(fp, max);
	int r2 = ab_simple(fp, max);

	ab_compare(r1, r2);
	*flags |= r1 >> 16;
	return r1 & 0xffff;
}

#define walk_simple(frames, fp, max, flags) bench_walk_ab(frames, fp, max, flags)
#define walk_fast(frames, fp, max, flags) bench_walk_ab(frames, fp, max, flags)
#include "sampler.bpf.c"
#undef walk_simple
#undef walk_fast

__noinline int ab_fast(__u64 fp, __u32 max)
{
	__u32 zero = 0, n;
	struct scratch *s;
	__u8 f = 0;

	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 1;
	n = walk_fast(s->frames, fp, max, &f);
	return n | (__u32)f << 16;
}

__noinline int ab_simple(__u64 fp, __u32 max)
{
	struct ab_frames *other;
	__u32 zero = 0, n;
	__u8 f = 0;

	other = bpf_map_lookup_elem(&ab_frames, &zero);
	if (!other)
		return 1;
	n = walk_simple(other->f, fp, max, &f);
	return n | (__u32)f << 16;
}

__noinline int ab_compare(__u32 r1, __u32 r2)
{
	__u32 zero = 0, key = 1, n = r1 & 0xffff;
	struct ab_frames *other;
	struct scratch *s;
	__u64 *cnt;

	other = bpf_map_lookup_elem(&ab_frames, &zero);
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!other || !s)
		return 0;
	if (r1 == r2) {
		key = 0;
		for (int i = 1; i < FXS_MAX_FRAMES; i++) {
			if (i >= n)
				break;
			if (s->frames[i] != other->f[i]) {
				key = 1;
				break;
			}
		}
	}
	cnt = bpf_map_lookup_elem(&ab_stats, &key);
	if (cnt)
		(*cnt)++;
	return 0;
}
