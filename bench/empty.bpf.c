// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Bench floor: an empty perf_event program on the same events. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("perf_event")
int fxs_empty(void *ctx)
{
	return 0;
}
