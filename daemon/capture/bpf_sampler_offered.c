// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The walks the running kernel is offered beyond the sampler's own, and why
 * not where it is not: the off-CPU walk again (bpf/offcpu_rewalk.bpf.h), the
 * Python walk, and the CFI walker's cause when it is refused. Decided before
 * load; each reason is kept for the capture to say once.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture/bpf_sampler_internal.h"
#include "capture/kpreempt.h"

/*
 * With --off-cpu and the CFI walker, an interval whose stack lacked its
 * tables is walked again once the thread runs again (bpf/offcpu_rewalk.bpf.h),
 * by a hook on rseq_update, where the kernel has it and does not preempt
 * kernel code (capture/kpreempt.h: the hook would share the sched_switch
 * program's per-CPU and per-task state with a program that may preempt it);
 * elsewhere, and with make bench's FXS_BENCH_OFFCPU_REWALK=off
 * (bpf_sampler_knobs.c), not, and why is kept for the capture to say.
 */
void bpf_sampler_offer_rewalk(struct bpf_sampler *b)
{
	enum kpreempt model;

	b->rewalk_off = NULL;
	if (!b->opts.offcpu || b->opts.unwind == FXS_UNWIND_FP)
		b->rewalk_off = "";
	else if (bpf_sampler_knob_no_offcpu_rewalk())
		b->rewalk_off = "FXS_BENCH_OFFCPU_REWALK=off";
	else if (libbpf_find_vmlinux_btf_id("rseq_update", BPF_TRACE_RAW_TP) <= 0)
		b->rewalk_off = "the kernel has no rseq_update tracepoint";
	else if ((model = kpreempt_running()) == KPREEMPT_FULL)
		b->rewalk_off = "the kernel preempts kernel code (its preemption model is full, "
				"lazy or RT)";
	else if (model == KPREEMPT_UNKNOWN)
		b->rewalk_off = "the kernel's preemption model is unknown (no "
				"/sys/kernel/debug/sched/preempt, uname -v, preempt= or config)";
	bpf_program__set_autoload(b->skel->progs.fxs_off_resume, !b->rewalk_off);
	b->skel->rodata->cfg_offcpu_rewalk = !b->rewalk_off;
}

bool bpf_sampler_offcpu_rewalk(const struct bpf_sampler *b, const char **ret_why)
{
	if (ret_why)
		*ret_why = b->rewalk_off && *b->rewalk_off ? b->rewalk_off : NULL;
	return !b->rewalk_off;
}

/*
 * Whether the Python walk is offered on the running kernel (uname -r): 6.1
 * and later. Measured on Debian 12's 6.1 (the oldest verifier it was made
 * to fit: docs/testing.md, check-vm's python check), Debian 13's 6.12 and
 * the host's 6.18; the releases between prune at least as well as 6.1, and
 * a verifier that refuses the walk anyway gets native frames, said once.
 */
static bool python_kernel(void)
{
	struct utsname u;
	unsigned a = 0, b = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &a, &b) != 2)
		return false;
	return a > 6 || (a == 6 && b >= 1);
}

/* Whether the kernel's BPF JIT is off (net.core.bpf_jit_enable 0: Debian's riscv64). */
static bool jit_off(void)
{
	char on = 0;
	int fd = open("/proc/sys/net/core/bpf_jit_enable", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &on, 1) != 1)
		on = 0;
	close(fd);
	return on == '0';
}

/*
 * The Python walk from Linux 6.1 (python_kernel()). Not with the JIT off:
 * each load's verification then took Debian 13's riscv64 kernel under qemu
 * past the VM tier's 300 s, and the interpreter would walk it slowly.
 */
void bpf_sampler_offer_python(struct bpf_sampler *b)
{
	if (b->opts.python && !python_kernel())
		b->py_off = "the Python walk needs Linux 6.1 or later";
	else if (b->opts.python && jit_off())
		b->py_off = "the Python walk needs the BPF JIT (net.core.bpf_jit_enable is 0)";
	if (b->py_off)
		b->opts.python = false;
	b->skel->rodata->cfg_python = b->opts.python;
}

bool bpf_sampler_python(const struct bpf_sampler *b, const char **ret_why)
{
	if (ret_why)
		*ret_why = b->py_off;
	return b->opts.python;
}

unsigned bpf_sampler_cfi_cause(void)
{
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL) == 0)
		return BPF_CFI_NO_LOOP;
	/* bpf_loop()'s callback runs only in JITed code (Debian's riscv64 kernel: JIT off) */
	return jit_off() ? BPF_CFI_NO_JIT : BPF_CFI_REJECTED;
}
