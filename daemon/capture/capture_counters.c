// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A capture's counters: the kernel's, with what user space dropped after the
 * kernel wrote it moved over, as the summary, STATUS and the .fxt's counter
 * events give them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture_internal.h"

static const char *const counter_names[FXS_CNT_NR] = {
	[FXS_CNT_FIRED] = "fired",
	[FXS_CNT_WRITTEN] = "written",
	[FXS_CNT_FILTERED] = "filtered",
	[FXS_CNT_DROP_NOT_RUNNING] = "dropped_not_running",
	[FXS_CNT_DROP_RING_FULL] = "dropped_ring_full",
	[FXS_CNT_DROP_NO_REGS] = "dropped_no_regs",
	[FXS_CNT_DROP_KTHREAD] = "skipped_kernel_thread",
	[FXS_CNT_STOP_TRUNCATED] = "stop_truncated",
	[FXS_CNT_STOP_FAULT] = "stop_fault",
	[FXS_CNT_STOP_BAD_FP] = "stop_bad_fp",
	[FXS_CNT_FILTERED_CREDS] = "filtered_creds",
};

const char *capture_counter_name(unsigned which)
{
	return which < FXS_CNT_NR ? counter_names[which] : "?";
}

/* The "mmap" counter event: the kernel's counters, then ours. */
enum {
	MAPS_FROM_EVENTS = FXS_MC_NR,
	MAPS_SCANNED,
	MAPS_INHERITED,
	MAPS_OVER_CAP,
	WALKER_OVER_CAP,
	MAPS_NR
};
static const char *const mmap_counter_names[MAPS_NR] = {
	[FXS_MC_SEEN] = "seen",
	[FXS_MC_NOT_RUNNING] = "not_running",
	[FXS_MC_FILTERED] = "filtered",
	[FXS_MC_FILTERED_CREDS] = "filtered_creds",
	[FXS_MC_WRITTEN] = "written",
	[FXS_MC_RING_FULL] = "dropped_ring_full",
	[FXS_MC_FORK_WRITTEN] = "forks_written",
	[FXS_MC_FORK_RING_FULL] = "forks_dropped_ring_full",
	[MAPS_FROM_EVENTS] = "records_from_events",
	[MAPS_SCANNED] = "records_from_proc",
	[MAPS_INHERITED] = "records_inherited",
	[MAPS_OVER_CAP] = "dropped_over_cap",
	[WALKER_OVER_CAP] = "walker_dropped_over_cap",
};

static const char *const offcpu_counter_names[FXS_OC_NR] = {
	[FXS_OC_SWITCHES] = "switches",
	[FXS_OC_NOT_RUNNING] = "not_running",
	[FXS_OC_FILTERED] = "filtered",
	[FXS_OC_EXITING] = "exiting",
	[FXS_OC_NO_STORAGE] = "dropped_no_storage",
	[FXS_OC_STARTED] = "started",
	[FXS_OC_WRITTEN] = "written",
	[FXS_OC_SHORT] = "short",
	[FXS_OC_RING_FULL] = "dropped_ring_full",
	[FXS_OC_CLOSED_NOT_RUNNING] = "dropped_not_running",
	[FXS_OC_AT_STOP] = "closed_at_stop",
	[FXS_OC_UNSEEN_END] = "dropped_unseen_end",
	[FXS_OC_FILTERED_CREDS] = "filtered_creds",
	/* the "offcpu_rewalk" counter's: an FXT record holds 15 arguments at most */
	[FXS_OC_REWALKED] = "rewalked",
	[FXS_OC_REWALK_MISSED] = "missed",
	[FXS_OC_REWALK_NO_HOOK] = "no_hook",
};

/* The kernel's counters, with the samples we dropped for their credentials moved over. */
static void adjust(const struct capture *c, struct fxs_counters *v, unsigned cpu)
{
	uint64_t d = 0;

	if (cpu == FXS_MAX_CPUS) {
		for (unsigned i = 0; i < FXS_MAX_CPUS; i++)
			d += c->creds_dropped[i];
	} else if (cpu < FXS_MAX_CPUS) {
		d = c->creds_dropped[cpu];
	}
	/* each was counted written first */
	if (d > v->v[FXS_CNT_WRITTEN])
		d = v->v[FXS_CNT_WRITTEN];
	v->v[FXS_CNT_WRITTEN] -= d;
	v->v[FXS_CNT_FILTERED_CREDS] += d;
}

/*
 * The kernel's off-CPU counters, with the intervals we dropped for their
 * credentials moved from started and written to filtered_creds: both sums
 * still hold.
 */
static void adjust_offcpu(const struct capture *c, struct fxs_offcpu_counters *off)
{
	uint64_t d = c->offcpu_creds_dropped;

	if (d > off->v[FXS_OC_WRITTEN])
		d = off->v[FXS_OC_WRITTEN];
	off->v[FXS_OC_WRITTEN] -= d;
	off->v[FXS_OC_STARTED] -= d;
	off->v[FXS_OC_FILTERED_CREDS] += d;
}

/*
 * The off-CPU totals, a counter event "offcpu" beside "samples", and how the
 * stacks that lacked their tables were walked again, "offcpu_rewalk".
 */
static int write_offcpu_counters(struct capture *c, uint64_t ts, struct fxs_offcpu_counters *off)
{
	int err = bpf_sampler_offcpu_counters(c->bpf, off);

	if (err)
		return err;
	adjust_offcpu(c, off);
	err = fxt_stream_counter(c->fxt, ts, 0, 0, "fxsampler", "offcpu", 0, offcpu_counter_names,
				 (const uint64_t *)off->v, FXS_OC_REWALKED);
	if (!err)
		err = fxt_stream_counter(c->fxt, ts, 0, 0, "fxsampler", "offcpu_rewalk", 0,
					 offcpu_counter_names + FXS_OC_REWALKED,
					 (const uint64_t *)off->v + FXS_OC_REWALKED,
					 FXS_OC_NR - FXS_OC_REWALKED);
	return err;
}

/* The kernel's mapping-event counters, with those we dropped for their credentials moved. */
void capture_mmap_counters(const struct capture *c, uint64_t ret[CAPTURE_MAPS_NR])
{
	struct fxs_mmap_counters k;
	uint64_t d = c->mmap_creds_dropped;

	memset(ret, 0, CAPTURE_MAPS_NR * sizeof(*ret));
	if (bpf_sampler_mmap_counters(c->bpf, &k))
		return;
	if (d > k.v[FXS_MC_WRITTEN])
		d = k.v[FXS_MC_WRITTEN];
	k.v[FXS_MC_WRITTEN] -= d;
	k.v[FXS_MC_FILTERED_CREDS] += d;
	memcpy(ret, k.v, sizeof(k.v));
	ret[MAPS_FROM_EVENTS] = c->maps_from_events;
	ret[MAPS_SCANNED] = c->maps_scanned;
	ret[MAPS_INHERITED] = c->maps_inherited;
	ret[MAPS_OVER_CAP] = modules_dropped(c->modules);
	ret[WALKER_OVER_CAP] = c->cfi ? cfi_capture_ranges_dropped(c->cfi) : 0;
}

const char *capture_mmap_counter_name(unsigned which)
{
	return which < MAPS_NR ? mmap_counter_names[which] : "?";
}

/* The mapping totals, a counter event "mmap" beside "samples"; dropped ones make a drop. */
static int write_mmap_counters(struct capture *c, uint64_t ts, bool *ret_dropped)
{
	uint64_t v[CAPTURE_MAPS_NR];

	capture_mmap_counters(c, v);
	*ret_dropped = v[FXS_MC_RING_FULL] || v[FXS_MC_FORK_RING_FULL] || v[MAPS_OVER_CAP];
	return fxt_stream_counter(c->fxt, ts, 0, 0, "fxsampler", "mmap", 0, mmap_counter_names, v,
				  MAPS_NR);
}

/*
 * What the byte budget (capture_opts.max_bytes) kept out of the file, a
 * counter event "file_budget", only when it kept something out.
 */
static int write_budget_counters(struct capture *c, uint64_t ts, bool *ret_dropped)
{
	static const char *const names[FXT_OVER_NR] = {"samples", "mappings", "other"};
	uint64_t v[FXT_OVER_NR];

	for (unsigned k = 0; k < FXT_OVER_NR; k++)
		v[k] = fxt_stream_over(c->fxt, k);
	*ret_dropped = v[FXT_OVER_SAMPLES] || v[FXT_OVER_MAPPINGS] || v[FXT_OVER_OTHER];
	if (!*ret_dropped)
		return 0;
	return fxt_stream_counter(c->fxt, ts, 0, 0, "fxsampler", "file_budget", 0, names, v,
				  FXT_OVER_NR);
}

int capture_write_counters(struct capture *c, uint64_t ts)
{
	bool budget_dropped = false;
	bool maps_dropped = false;
	struct fxs_offcpu_counters off = {0};
	const char *names[FXS_CNT_NR + 1];
	uint64_t values[FXS_CNT_NR + 1];
	unsigned nr_cpus = bpf_sampler_nr_cpus(c->bpf);
	struct fxs_counters total, *per_cpu;
	int err;

	for (int k = 0; k < FXS_CNT_NR; k++)
		names[k] = counter_names[k];
	names[FXS_CNT_NR] = "sampled_ns";
	per_cpu = calloc(nr_cpus, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	err = bpf_sampler_counters(c->bpf, &total, per_cpu, nr_cpus);
	if (err)
		goto out;
	adjust(c, &total, FXS_MAX_CPUS);
	/* One counter per CPU (id = cpu + 1), then the totals (id 0). */
	for (unsigned cpu = 0; cpu < nr_cpus && !err; cpu++) {
		char name[32];

		values[FXS_CNT_NR] = bpf_sampler_cpu_ns(c->bpf, cpu);
		if (!values[FXS_CNT_NR])
			continue;
		adjust(c, &per_cpu[cpu], cpu);
		memcpy(values, per_cpu[cpu].v, sizeof(per_cpu[cpu].v));
		snprintf(name, sizeof(name), "cpu%u", cpu);
		err = fxt_stream_counter(c->fxt, ts, 0, 0, "fxsampler", name, cpu + 1, names,
					 values, FXS_CNT_NR + 1);
	}
	if (!err)
		err = fxt_stream_counter(c->fxt, ts, 0, 0, "fxsampler", "samples", 0, names,
					 (const uint64_t *)total.v, FXS_CNT_NR);
	if (!err && c->opts.offcpu)
		err = write_offcpu_counters(c, ts, &off);
	if (!err && c->cfi)
		err = cfi_capture_write(c->cfi, c->fxt, ts);
	if (!err && c->py)
		err = python_capture_write(c->py, c->fxt, ts);
	if (!err)
		err = write_mmap_counters(c, ts, &maps_dropped);
	if (!err)
		err = write_budget_counters(c, ts, &budget_dropped);
	if (!err &&
	    (maps_dropped || budget_dropped || total.v[FXS_CNT_DROP_RING_FULL] ||
	     total.v[FXS_CNT_DROP_NO_REGS] || off.v[FXS_OC_RING_FULL] || off.v[FXS_OC_NO_STORAGE]))
		err = fxt_stream_dropped(c->fxt);
out:
	free(per_cpu);
	return err;
}

size_t capture_cfi_modules(const struct capture *c, struct cfi_mod_info *out, size_t max)
{
	return c->cfi ? cfi_capture_modules(c->cfi, out, max) : 0;
}

void capture_stats(const struct capture *c, struct capture_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	bpf_sampler_counters(c->bpf, &ret->counters, NULL, 0);
	adjust(c, &ret->counters, FXS_MAX_CPUS);
	ret->processes = c->pids.len;
	ret->threads = c->tids.len;
	ret->bytes = c->fxt ? fxt_stream_bytes(c->fxt) : 0;
	ret->kernel_unresolved = c->kernel_unresolved;
	ret->cfi_fallback = bpf_sampler_cfi_fallback(c->bpf);
	if (c->cfi) {
		cfi_capture_counts(c->cfi, &ret->unwind);
		cfi_capture_table_stats(c->cfi, &ret->cfi);
	}
	if (c->opts.offcpu)
		if (!bpf_sampler_offcpu_counters(c->bpf, &ret->offcpu))
			adjust_offcpu(c, &ret->offcpu);
	capture_mmap_counters(c, ret->maps);
	for (unsigned k = 0; c->fxt && k < FXT_OVER_NR; k++)
		ret->over[k] = fxt_stream_over(c->fxt, k);
	if (c->perfmap)
		perfmap_capture_stats(c->perfmap, &ret->perfmap);
	if (c->py)
		python_capture_counts(c->py, ret->python);
	for (unsigned cpu = 0; cpu < bpf_sampler_nr_cpus(c->bpf); cpu++)
		ret->nr_cpus += bpf_sampler_cpu_ns(c->bpf, cpu) > 0;
}
