/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The real resources behind struct sampler_ops: the BPF skeleton, one ring
 * buffer and one perf event per CPU. Logs nothing but libbpf's debug output.
 */
#ifndef FXS_DAEMON_BPF_SAMPLER_H
#define FXS_DAEMON_BPF_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/cfi_tables.h"
#include "capture/lifecycle.h"
#include "sampler.h"

/* Called for each record drained from a ring; return non-zero to stop draining. */
typedef int (*bpf_sample_fn)(void *ctx, const struct fxs_sample *sample, size_t size);

struct bpf_sampler_opts {
	const uint32_t *pids; /* thread groups to sample; none: the whole host */
	unsigned nr_pids;
	bool inherit;	  /* their children too */
	bool simple_walk; /* walk_simple instead of walk_fast */
	/* Only tasks fully uid's, with no capability beyond caps (needs pids). */
	bool check_creds;
	uint32_t uid;
	uint64_t caps;
	bool offcpu; /* also off-CPU intervals (FXS_SF_OFFCPU records) */
	uint64_t offcpu_min_ns;
	bool kernel; /* kernel stacks too (nr_kframes PCs after the user frames) */
	bool python; /* Python frames of the processes in py_procs (bpf/python.bpf.h) */
	/*
	 * Mapping and fork records (FXS_KIND_MMAP, FXS_KIND_FORK) from the
	 * kernel as they happen, where the kernel allows (see
	 * bpf_sampler_mmap_events()); records then reach on_sample in time
	 * order across CPUs.
	 */
	bool mmap_events;
	uint32_t unwind;	/* enum fxs_unwind_mode */
	uint64_t cfi_cap_bytes; /* the CFI rows' memory (not FXS_UNWIND_FP) */
	bpf_sample_fn on_sample;
	/*
	 * With mmap_events, also each record as it is read from its ring, before
	 * it waits for its turn (up to a drain later): what must be done while
	 * its process lives (python_capture_prefetch()); may be NULL.
	 */
	bpf_sample_fn on_arrival;
	/*
	 * A stop has waited waited_ns for in_flight writes (the lifecycle's
	 * warn_slow_stop, every 30 s of waiting); may be NULL. Gets ctx too.
	 */
	void (*on_slow_stop)(void *ctx, uint64_t waited_ns, uint32_t in_flight);
	void *ctx;
};

struct bpf_sampler;

/* Why the CFI walker is not used where it was asked for (0: it is, or was not asked). */
enum bpf_cfi_cause {
	BPF_CFI_LOADED,
	BPF_CFI_NO_LOOP,  /* no bpf_loop() before Linux 5.17 */
	BPF_CFI_NO_JIT,	  /* the BPF JIT is off: bpf_loop()'s callbacks need it */
	BPF_CFI_REJECTED, /* the kernel's verifier refused it (-v shows its log) */
};

extern const struct sampler_ops bpf_sampler_ops;

/*
 * After setup: why --unwind=auto walks by frame pointers (enum
 * bpf_cfi_cause), 0 when the CFI walker runs or was not asked for. With
 * --unwind=cfi such a kernel fails the setup with -EOPNOTSUPP instead.
 */
unsigned bpf_sampler_cfi_fallback(const struct bpf_sampler *b);
/* Probed: why this kernel would refuse the CFI walker (BPF_CFI_REJECTED if no known cause). */
unsigned bpf_sampler_cfi_cause(void);

/* NULL with errno set. Nothing is loaded until sampler_setup() runs alloc. */
struct bpf_sampler *bpf_sampler__new(const struct bpf_sampler_opts *opts);
void bpf_sampler__free(struct bpf_sampler *b);

/* Counters summed over CPUs; per_cpu (may be NULL) gets nr_cpus entries. */
int bpf_sampler_counters(const struct bpf_sampler *b, struct fxs_counters *ret_total,
			 struct fxs_counters *per_cpu, unsigned nr_cpus);
/*
 * Take pid out of the target set: it exited (forgotten, its pid may be
 * reused), or it is no longer the client's (kept as FXS_TARGET_LEFT until it
 * exits: its samples count as filtered_creds, its children are no targets).
 */
int bpf_sampler_untarget(struct bpf_sampler *b, uint32_t pid, bool exited);
/* The off-CPU counters summed over CPUs (all zero without opts.offcpu). */
int bpf_sampler_offcpu_counters(const struct bpf_sampler *b, struct fxs_offcpu_counters *ret);
/*
 * Wait up to timeout_ms for a ring to signal data (-EINTR on a signal), and
 * read what it holds; bpf_sampler's drain (sampler_read()) hands it on.
 */
int bpf_sampler_wait(struct bpf_sampler *b, int timeout_ms);
/*
 * Every record stamped before this (CLOCK_BOOTTIME) was handed on to
 * on_sample by the drains so far: nothing from before it is still to come.
 */
uint64_t bpf_sampler_horizon(const struct bpf_sampler *b);
/*
 * An fd that polls readable when a ring woke its reader (an exec, a walk that
 * lacked tables, a ring half full), for a caller's own poll loop; -EBADFD
 * before the rings exist.
 */
int bpf_sampler_wake_fd(const struct bpf_sampler *b);
/*
 * How soon the next drain should come, at most within_ms: sooner while a
 * mapping, fork or exec record the CFI walker waits for is held back.
 */
int bpf_sampler_next_drain_ms(const struct bpf_sampler *b, int within_ms);
unsigned bpf_sampler_nr_cpus(const struct bpf_sampler *b);
/*
 * While armed: arm CPUs that came online, disarm those that went offline.
 * Returns how many changed, or -errno. Call it from the drain loop.
 */
int bpf_sampler_follow_cpus(struct bpf_sampler *b);
/* Whether mapping events run (asked for, and the kernel has what they tap); after setup. */
bool bpf_sampler_mmap_events(const struct bpf_sampler *b);
/* The mapping-event counters summed over CPUs (all zero without them). */
int bpf_sampler_mmap_counters(const struct bpf_sampler *b, struct fxs_mmap_counters *ret);
/*
 * After setup: the CFI walker's maps as cfi_tables fills them (the rows and
 * ranges arrays mmapped, set_table and set_proc); -ENOENT under --unwind=fp.
 * ops->generate is the caller's. Also -ENOENT under auto on a kernel without
 * bpf_loop() (before 5.17), which then walks by frame pointers; setup fails
 * with -EOPNOTSUPP for cfi there.
 */
int bpf_sampler_cfi_maps(struct bpf_sampler *b, struct cfi_tables_ops *ops);
/*
 * cfi_files[*k] = *f (include/unwind_maps.h): the walker may find a module by
 * its file (bpf/vma.bpf.h). 0 or -errno; 0 and nothing done when the kernel
 * lacks bpf_find_vma() (the walker never looks).
 */
int bpf_sampler_cfi_file(struct bpf_sampler *b, const struct fxs_cfi_file_key *k,
			 const struct fxs_cfi_file *f);
/*
 * Whether the program walks Python frames (after setup); *ret_why (may be
 * NULL): when they were asked for and are not walked, why (for the one line
 * the capture says), else NULL.
 */
bool bpf_sampler_python(const struct bpf_sampler *b, const char **ret_why);

/*
 * Whether off-CPU stacks that lacked their tables are walked again
 * (bpf/offcpu_rewalk.bpf.h); if not, with --off-cpu and the CFI walker, why.
 */
bool bpf_sampler_offcpu_rewalk(const struct bpf_sampler *b, const char **ret_why);
/*
 * pid's interpreter for the Python walk (bpf/python.bpf.h), or none (p NULL):
 * 0 or -errno; -ENOENT without opts.python.
 */
int bpf_sampler_set_python(struct bpf_sampler *b, uint32_t pid, const struct fxs_py_proc *p);
/* How long cpu has been sampled in this sampler's life, in ns. */
uint64_t bpf_sampler_cpu_ns(const struct bpf_sampler *b, unsigned cpu);

#endif /* FXS_DAEMON_BPF_SAMPLER_H */
