// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Bench floors: an empty perf_event program on the same events; and an
 * empty program on every syscall's exit (raw_syscalls' sys_exit), what such
 * a hook costs at the least (section o: the off-CPU walk again's hook is on
 * rseq_update instead).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("perf_event")
int fxs_empty(void *ctx)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int fxs_sysexit(void *ctx)
{
	return 0;
}
