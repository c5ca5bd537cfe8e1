/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel stacks (record --kernel): the kernel's own unwinder, through
 * bpf_get_stack(ctx, .., 0), for a sample that landed in the kernel (perf's
 * registers are the kernel's then) and for the thread leaving the CPU in
 * sched_switch (the tracepoint runs in its context). cfg_kernel is set
 * before load: without it the verifier drops every call below.
 */
#ifndef FXS_BPF_KSTACK_BPF_H
#define FXS_BPF_KSTACK_BPF_H

const volatile bool cfg_kernel = false;

/* The kernel stack of ctx into frames (room for FXS_MAX_KFRAMES): how many. */
static __always_inline __u8 kstack_get(void *ctx, __u64 *frames)
{
	long r;

	if (!cfg_kernel)
		return 0;
	r = bpf_get_stack(ctx, frames, FXS_MAX_KFRAMES * sizeof(__u64), 0);
	return r > 0 ? (r / sizeof(__u64)) & 0x7f : 0;
}

#endif /* FXS_BPF_KSTACK_BPF_H */
