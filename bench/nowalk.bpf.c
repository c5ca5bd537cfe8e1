// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Bench ablation: fxsampler's program with no walk at all (frame 0 only), so
 * the rest of the program's cost per sample (gating, filter, names, clock,
 * ring write) can be told apart from the walker's.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "sampler.h"
#include "walk.bpf.h"

#define walk_simple(frames, fp, max, flags) ((fp) ? 1 : 1)
#define walk_fast(frames, fp, max, flags) ((fp) ? 1 : 1)
#include "sampler.bpf.c"
