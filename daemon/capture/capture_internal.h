/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What capture.c, capture_procs.c and capture_counters.c share: the capture
 * itself. Not for other modules.
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
#include "lang/python_capture.h"
#include "capture/targets.h"
#include "capture/thread_names.h"
#include "lang/perfmap_capture.h"
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
	struct cfi_capture *cfi;	 /* --unwind=auto|cfi */
	struct targets *targets;	 /* a pid session's processes, by pidfd */
	struct kstacks *kstacks;	 /* with opts.kernel */
	struct perfmap_capture *perfmap; /* JIT code named from perf maps */
	uint64_t perfmap_reap_ns;  /* host-wide: when its ended processes are looked for next */
	struct python_capture *py; /* with opts.python */
	/*
	 * Targets that exited, oldest first, whose modules entry goes once
	 * the sampler has handed on every record from before the exit.
	 */
	struct capture_exited {
		pid_t pid;
		uint32_t generation; /* modules_generation() at the exit */
		uint64_t at_ns;	     /* CLOCK_BOOTTIME, after the exit */
	} * exited;
	size_t nr_exited, cap_exited;
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

/*
 * capture_procs.c: the processes and threads a capture writes.
 *
 * capture_enter() before reading pid's /proc files: 0 (read them under
 * *ret_dir, NULL for "/proc/PID"), -ESRCH (gone) or -EACCES (no longer the
 * client's: drop its sample); capture_leave() after the reads.
 */
int capture_enter(struct capture *c, uint32_t pid, uint64_t ts, char *dir, size_t len,
		  const char **ret_dir);
void capture_leave(struct capture *c);
/* pid is no longer the client's: out of the kernel's targets, forgotten, told once. */
void capture_target_left(struct capture *c, uint32_t pid, int why);
/*
 * pid, a target, exited: its modules entry is dropped by the first
 * capture_forget_exited() after the sampler's horizon passed now (its
 * samples, and the fork records of its children, may still be held to be
 * put in time order). 0 or -ENOMEM.
 */
int capture_target_exited(struct capture *c, pid_t pid);
void capture_forget_exited(struct capture *c);
/* A sample the kernel wrote and we do not: filtered for its credentials. */
void capture_drop_for_creds(struct capture *c, const struct fxs_sample *s);
/*
 * Whether pid's mappings must be read from /proc (not all come as events);
 * past a secure exec, it also marks pid as one without events from now on.
 */
bool capture_needs_proc_maps(struct capture *c, uint32_t pid, const char *dir, bool added,
			     bool execed);
int capture_scan_maps(struct capture *c, uint64_t ts, uint32_t pid, const char *dir);
/* pid is sampled: the mappings kept for it go out, and its next ones as they come. */
int capture_emit_maps(struct capture *c, uint32_t pid, uint64_t ts);
/* Name s's thread (and its process) when new, or when comm renames it. */
int capture_note_thread(struct capture *c, const struct fxs_sample *s, const struct fxs_comm *comm,
			uint64_t name_ns);
/* pid's mappings anew (rate-limited), read only while it is still the client's. */
int capture_refresh_modules(struct capture *c, uint32_t pid, uint64_t ts);
/* pid's mappings anew when a pc is outside them and the kernel does not tell them. */
int capture_refresh_uncovered(struct capture *c, uint32_t pid, uint64_t ts, const uint64_t *pcs,
			      unsigned nr_pcs);

#endif /* FXS_DAEMON_CAPTURE_INTERNAL_H */
