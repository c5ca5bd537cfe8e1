/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One capture session: the host's sampler (BPF program, perf events, rings)
 * plus the FXT stream its samples are turned into. Used by `fxsampler record`
 * and by fxsamplerd alike; the bytes go to a sink the caller chooses, so the
 * daemon can stream them to its client.
 */
#ifndef FXS_DAEMON_CAPTURE_H
#define FXS_DAEMON_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/cfi_capture.h"
#include "unwind_maps.h"
#include "lang/python_capture.h"
#include "fxt/fxt_stream.h"
#include "lang/perfmap_capture.h"
#include "sampler.h"

#define CAPTURE_MAX_PIDS 64

/* A message for the capture's user, e.g. that a target left its reach. */
typedef void (*capture_notice_fn)(void *ctx, uint32_t pid, const char *text);

struct capture_opts {
	uint64_t period_ns; /* sampling period; 0 when freq_hz is set */
	uint64_t freq_hz;
	uint32_t buffer_size; /* bytes per CPU ring: a power of two, >= one page */
	uint32_t max_frames;  /* 1..FXS_MAX_FRAMES */
	uint32_t pids[CAPTURE_MAX_PIDS];
	unsigned nr_pids; /* 0: the whole host */
	bool inherit;	  /* also sample the targets' children */
	bool simple_walk; /* the one-read-per-frame walker (for comparison), not the bulk one */
	/*
	 * A session for a non-root client (needs pids): only what is fully
	 * uid's at each moment is sampled and read (real, effective and saved
	 * uid; no capability beyond caps, the client's permitted set). A
	 * target that leaves is dropped, counted, and told through notice.
	 */
	bool check_creds;
	uint32_t uid;
	uint64_t caps;
	capture_notice_fn notice; /* may be NULL */
	void *notice_ctx;
	/*
	 * Read every process's mappings from /proc/PID/maps, as before mapping
	 * events (the bench's baseline); otherwise the kernel reports them.
	 */
	bool proc_maps_only;
	bool offcpu;		/* also off-CPU intervals (record --off-cpu) */
	uint64_t offcpu_min_ns; /* shorter intervals are counted, not written */
	/*
	 * Kernel stacks too (record --kernel): written as ids, named at the end
	 * from /proc/kallsyms, never as addresses (capture/kstacks.h).
	 */
	bool kernel;
	/* Python frames of the CPython processes it samples (record --python). */
	bool python;
	/*
	 * Through fxsamplerd only (record --preempt, root): end the client
	 * session that holds the sampler and take it. The capture ignores it.
	 */
	bool preempt;
	/* A warning for the log, e.g. a stop still waiting for writes in flight; may be NULL. */
	void (*warn)(void *ctx, const char *text);
	void *warn_ctx;
	uint32_t unwind;	/* enum fxs_unwind_mode (record --unwind); 0: fp */
	uint64_t cfi_cap_bytes; /* the CFI tables' memory cap (record --cfi-memory) */
	/*
	 * The stream's byte budget (fxt_stream_set_budget()): continuous mode's
	 * max_file_size less what the finish writes. 0: none.
	 */
	uint64_t max_bytes;
};

/*
 * The CFI tables' memory cap: given, or 0 for cfi_capture_default_memory()
 * (1/256 of the machine's memory, 32 to 128 MiB); its bounds.
 */
#define CAPTURE_CFI_CAP_MIN (64ULL << 10)
#define CAPTURE_CFI_CAP_MAX (1ULL << 30)

/* Totals of one capture, for the summary and `fxsampler status`. */
struct capture_stats {
	struct fxs_counters counters; /* summed over CPUs */
	uint64_t processes;
	uint64_t threads;
	uint64_t bytes;			   /* FXT bytes produced so far */
	unsigned nr_cpus;		   /* CPUs sampled */
	struct fxs_offcpu_counters offcpu; /* summed over CPUs; zero without opts.offcpu */
	uint64_t kernel_unresolved;	   /* kernel locations no symbol named (at finish) */
	uint64_t maps[FXS_MC_NR + 5];	   /* as capture_mmap_counters() gives them */
	struct cfi_counts unwind;	   /* how the CFI walks ended; zero under --unwind=fp */
	struct cfi_tables_stats cfi;
	unsigned cfi_fallback;	      /* enum bpf_cfi_cause: why auto walked by frame pointers */
	uint64_t over[FXT_OVER_NR];   /* records opts.max_bytes kept out (enum fxt_over_kind) */
	struct perfmap_stats perfmap; /* JIT code named from perf maps (at finish) */
	uint64_t python[PY_CNT_NR];   /* the Python walk's counters; zero under --python=off */
};

struct capture;

/*
 * Set up: takes the host's sampler lock, loads the BPF program, creates the
 * rings and the FXT stream (whose prologue goes to the sink at once). Errors:
 * -EBUSY when another process holds the sampler (*ret_holder is its pid),
 * -EINVAL for bad options, -EPERM without CAP_BPF/CAP_PERFMON, -ESRCH when a
 * target pid does not exist, -EACCES when a target is not the client's
 * (check_creds), -EOPNOTSUPP when --unwind=cfi is asked of a kernel that
 * refuses the CFI walker (bpf_sampler_cfi_cause()), other -errno. Each target pid is held by a
 * pidfd from here on. Logs nothing but debug output.
 */
int capture__new(const struct capture_opts *opts, fxt_sink_fn sink, void *sink_ctx,
		 struct capture **ret, pid_t *ret_holder);
int capture_start(struct capture *c);
/* Drain the rings into the stream; waits up to timeout_ms for data. */
int capture_poll(struct capture *c, int timeout_ms);
/*
 * For a caller with its own poll loop (the daemon), calling capture_poll(c,
 * 0) when it is time: an fd that polls readable when the rings want to be
 * read (bpf_sampler_wake_fd()), and how soon the next drain should come, at
 * most within_ms (sooner while the CFI walker waits for a held record).
 */
int capture_wake_fd(const struct capture *c);
int capture_next_drain_ms(const struct capture *c, int within_ms);
/* Stop sampling, wait for writes in flight, drain what is left. */
int capture_stop(struct capture *c);
/* After stop: write the counters (and the "records dropped" event), flush. */
int capture_finish(struct capture *c);
void capture_stats(const struct capture *c, struct capture_stats *ret);
/*
 * The modules whose frames went without a CFI table (unwind/cfi_status.h):
 * fills at most max of out (valid until capture__free()), returns how many.
 */
size_t capture_cfi_modules(const struct capture *c, struct cfi_mod_info *out, size_t max);
/* How long cpu was sampled, in ns (0: never). */
uint64_t capture_cpu_ns(const struct capture *c, unsigned cpu);
/* The name the .fxt and the summary give a counter (FXS_CNT_*). */
const char *capture_counter_name(unsigned which);
/*
 * The mapping counters, as the "mmap" counter event has them: the kernel's
 * (enum fxs_mmap_counter, with the events dropped here for their credentials
 * moved from written to filtered_creds), then the mmap records written from
 * events, from /proc, and copied at forks. Zero without mapping events.
 */
#define CAPTURE_MAPS_NR (FXS_MC_NR + 5)
void capture_mmap_counters(const struct capture *c, uint64_t ret[CAPTURE_MAPS_NR]);
const char *capture_mmap_counter_name(unsigned which);
/* Destroy: stops if running, releases every BPF object and the lock. NULL-safe. */
void capture__free(struct capture *c);

#endif /* FXS_DAEMON_CAPTURE_H */
