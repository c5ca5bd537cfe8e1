/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What capture.c and capture_counters.c share: the capture itself. Not for
 * other modules.
 */
#ifndef FXS_DAEMON_CAPTURE_INTERNAL_H
#define FXS_DAEMON_CAPTURE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "capture/cfi_capture.h"
#include "capture/capture.h"
#include "capture/kstacks.h"
#include "capture/lifecycle.h"
#include "capture/modules.h"
#include "capture/targets.h"
#include "capture/thread_names.h"
#include "util/idset.h"

struct capture {
	struct capture_opts opts;
	struct sampler sampler;
	struct bpf_sampler *bpf;
	struct fxt_stream *fxt;
	int lock_fd;
	struct idset pids;	   /* processes written */
	struct idset tids;	   /* threads written */
	struct thread_names names; /* the names written for each, and when they held */
	struct modules *modules;
	struct cfi_capture *cfi; /* --unwind=auto|cfi */
	struct targets *targets; /* a pid session's processes, by pidfd */
	struct kstacks *kstacks; /* with opts.kernel */
	uint64_t kernel_unresolved;
	/* Per CPU: samples written by the kernel that we dropped for their credentials. */
	uint64_t creds_dropped[FXS_MAX_CPUS];
	/* Off-CPU intervals the kernel wrote and we dropped for their credentials. */
	uint64_t offcpu_creds_dropped;
	/*
	 * Mapping events (bpf_sampler_mmap_events()): those the kernel wrote and
	 * we dropped for their credentials, and the mmap records written from
	 * the events, from /proc/PID/maps, and copied from a parent at a fork.
	 */
	bool mmap_events;
	uint64_t mmap_creds_dropped;
	uint64_t maps_from_events, maps_scanned, maps_inherited;
	uint64_t last_ts;
	/* CLOCK_BOOTTIME (the samples' clock) and CLOCK_REALTIME at the start. */
	uint64_t start_boot_ns, start_real_ns;
	int err; /* first error of the sample callback */
};

/*
 * At the end: the counter events (per CPU, "samples", "offcpu", "mmap") and
 * the "records dropped" event when anything was lost. 0 or -errno.
 */
int capture_write_counters(struct capture *c, uint64_t ts);

#endif /* FXS_DAEMON_CAPTURE_INTERNAL_H */
