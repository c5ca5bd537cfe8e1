/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The skeleton's knobs read from the environment before load, for measuring
 * (make bench, the verifier's statistics), not for users: each is named in
 * docs/testing.md or bench/. Unset, the programs load as they ship.
 */
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "capture/bpf_sampler_internal.h"

/*
 * The Python walk make bench's section p asks for (FXS_BENCH_PY_WALK: old,
 * leaf, win1k; bpf/python.bpf.h's cfg_py_walk and cfg_py_window), to measure
 * today's beside others in the same run; the walk itself without it.
 */
static void bench_py_walk(struct sampler_bpf *skel)
{
	const char *w = getenv("FXS_BENCH_PY_WALK");

	if (!w)
		return;
	skel->rodata->cfg_py_walk = !strcmp(w, "old") ? 2 : !strcmp(w, "leaf") ? 1 : 0;
	if (!strcmp(w, "win1k"))
		skel->rodata->cfg_py_window = 1024;
}

/*
 * FXS_BPF_LOG_LEVEL: the verifier's log of each program at that level
 * (4: its statistics, instructions processed, states and time), which
 * libbpf prints with its debug output (record -v). For measuring what a
 * kernel's verifier spends on the programs (docs/testing.md).
 */
static void verifier_log_level(struct sampler_bpf *skel)
{
	const char *l = getenv("FXS_BPF_LOG_LEVEL");
	struct bpf_program *prog;

	if (!l || !*l)
		return;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_log_level(prog, (uint32_t)atoi(l));
}

/*
 * FXS_BENCH_OFFCPU_REWALK=off: off-CPU stacks are not walked again
 * (bpf/offcpu_rewalk.bpf.h), for make bench's section o to measure the
 * stacks and the cost of before beside today's in the same run.
 */
bool bpf_sampler_knob_no_offcpu_rewalk(void)
{
	const char *r = getenv("FXS_BENCH_OFFCPU_REWALK");

	return r && !strcmp(r, "off");
}

void bpf_sampler_env_knobs(struct sampler_bpf *skel)
{
	bench_py_walk(skel);
	verifier_log_level(skel);
}
