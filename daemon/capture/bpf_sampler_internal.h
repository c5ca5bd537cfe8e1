/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What bpf_sampler.c (the skeleton, its events, rings and lifecycle) and
 * bpf_sampler_maps.c (the maps user space reads and writes: counters, the CFI
 * walker's arrays) share: the sampler's state.
 */
#ifndef FXS_CAPTURE_BPF_SAMPLER_INTERNAL_H
#define FXS_CAPTURE_BPF_SAMPLER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampler.skel.h"

#include "capture/bpf_sampler.h"
#include "capture/ordered.h"
#include "capture/sideband.h"

struct bpf_sampler {
	struct bpf_sampler_opts opts;
	uint32_t *pids;
	struct sampler_bpf *skel;
	struct ring_buffer *rb;
	int nr_cpus;		 /* possible CPUs */
	int *ring_fds;		 /* one per possible CPU */
	struct bpf_link **links; /* one per possible CPU while armed */
	uint64_t *armed_since;	 /* CLOCK_MONOTONIC ns, per CPU while armed */
	uint64_t *armed_ns;	 /* time each CPU was sampled, summed over sessions */
	uint64_t period_ns;
	int *event_fds;		   /* per CPU while armed: our own fd of its event, to read it */
	uint64_t *last_enabled;	   /* per CPU: its event's time enabled at the last look */
	uint64_t *last_look_ns;	   /* when that was */
	uint32_t session;	   /* the cookie of the armed session */
	struct bpf_link *off_link; /* the sched_switch program while armed */
	/* and its walk again once the tables are ready (bpf/offcpu_rewalk.bpf.h) */
	struct bpf_link *resume_link;
	bool armed;	      /* between arm and disarm: CPUs are followed */
	uint64_t drain_until; /* while armed: a drain returns by then (0: no limit) */
	unsigned drained;     /* records in this drain */
	bool over_budget;     /* the drain stopped at drain_until */
	bool draining_last;   /* the drain after disarm: what was mapped before counts */
	/* Mapping events: the kernel's perf side-band records (capture/sideband). */
	bool mmap_on;
	struct sideband *sb;
	struct fxs_mmap_counters mc; /* the mapping outcomes, counted as they are read */
	/*
	 * With mapping events, records go to on_sample in time order across
	 * CPUs (capture/ordered), not ring by ring.
	 */
	struct ordered held;
	/*
	 * The newest stamp of a held record that changes what the CFI walker
	 * knows (a mapping, a fork, an exec), and the last drain's horizon:
	 * while that record waits, the next drain comes early (bpf_sampler_wait).
	 */
	uint64_t urgent_ns, horizon_ns;
	/* the horizon of the last drain that read the rings whole: bpf_sampler_horizon() */
	uint64_t read_all_ns;
	void *cfi_rows, *cfi_ranges, *cfi_rules; /* the CFI walker's arrays, mmapped */
	size_t cfi_rows_len, cfi_ranges_len, cfi_rules_len;
	bool cfi_refused;	/* the load with the CFI walker failed */
	bool py_refused;	/* the load with the Python walk failed */
	const char *py_off;	/* asked for, not walked: why (the gate, or py_refused) */
	const char *rewalk_off; /* off-CPU with CFI, no walk again: why (offcpu_rewalk_setup) */
	unsigned cfi_fallback;	/* enum bpf_cfi_cause: why auto walks frame pointers */
	bool find_vma;		/* the walker finds modules by their file (bpf/vma.bpf.h) */
	bool find_vma_refused;	/* ... and the kernel's verifier refused that */
};

/* The rings' callbacks, and the drain (capture/bpf_sampler_read.c). */
int bpf_sampler_on_ring_record(void *ctx, void *data, size_t size);
int bpf_sampler_on_sideband(void *ctx, const struct fxs_sample *rec, size_t size);
int bpf_sampler_drain(void *ctx);

/* The walks the kernel is offered, before load (capture/bpf_sampler_offered.c). */
void bpf_sampler_offer_python(struct bpf_sampler *b);
void bpf_sampler_offer_rewalk(struct bpf_sampler *b);

/* The environment's knobs for measuring (capture/bpf_sampler_knobs.c), before load. */
void bpf_sampler_env_knobs(struct sampler_bpf *skel);
/* FXS_BENCH_OFFCPU_REWALK=off: make bench's off-CPU stacks of before (section o). */
bool bpf_sampler_knob_no_offcpu_rewalk(void);

/* Map the CFI walker's rows and ranges arrays, which user space writes in place. */
int bpf_sampler_map_cfi(struct bpf_sampler *b);

#endif /* FXS_CAPTURE_BPF_SAMPLER_INTERNAL_H */
