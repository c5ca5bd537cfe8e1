// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/hash.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "report/offcpu.h"
#include "sampler.h"

struct thread_slot {
	struct offcpu_thread t;
	/* The interval being written: its start (the switch out), then its end. */
	bool have_out, have_in;
	uint64_t out_ts, in_ts;
};

struct offcpu {
	struct thread_slot *slots; /* [n], in order of first sight, indexed by tid */
	size_t cap, n;
	struct hash_index idx;
	uint64_t ticks_per_second;
	uint64_t period_ns;
	uint64_t intervals;
	bool last_paired;
	uint64_t last_ns;
};

struct offcpu *offcpu__new(void)
{
	struct offcpu *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->ticks_per_second = 1000000000ULL;
	return o;
}

void offcpu__free(struct offcpu *o)
{
	if (!o)
		return;
	free(o->slots);
	hash_index_free(&o->idx);
	free(o);
}

static bool tid_eq(const void *ctx, size_t pos, const void *key)
{
	return ((const struct offcpu *)ctx)->slots[pos].t.tid == *(const uint64_t *)key;
}

/* The thread's slot, made on first sight; NULL only without memory. */
static struct thread_slot *get(struct offcpu *o, uint64_t tid)
{
	uint64_t h = hash_u64(FNV_INIT, tid);
	struct thread_slot *s;
	size_t pos;

	if (hash_index_find(&o->idx, h, tid_eq, o, &tid, &pos))
		return &o->slots[pos];
	if (array_reserve((void **)&o->slots, &o->cap, o->n, sizeof(*o->slots)) ||
	    hash_index_insert(&o->idx, h, o->n))
		return NULL;
	s = &o->slots[o->n++];
	memset(s, 0, sizeof(*s));
	s->t.tid = tid;
	return s;
}

static uint64_t to_ns(const struct offcpu *o, uint64_t ticks)
{
	if (o->ticks_per_second == 1000000000ULL)
		return ticks;
	return (uint64_t)((unsigned __int128)ticks * 1000000000ULL / o->ticks_per_second);
}

static int add_switch(struct offcpu *o, const struct fxt_record *rec)
{
	struct thread_slot *s;

	if (rec->subtype != FXT_SCHED_CONTEXT_SWITCH)
		return 0;
	/* A thread leaving to idle opens an interval; one coming from idle ends it. */
	if (rec->out_tid && !rec->in_tid) {
		s = get(o, rec->out_tid);
		if (!s)
			return -ENOMEM;
		s->have_out = true;
		s->have_in = false;
		s->out_ts = rec->ts;
	} else if (rec->in_tid && !rec->out_tid) {
		s = get(o, rec->in_tid);
		if (!s)
			return -ENOMEM;
		if (s->have_out && rec->ts >= s->out_ts) {
			s->have_in = true;
			s->in_ts = rec->ts;
		}
	}
	return 0;
}

static int add_backtrace(struct offcpu *o, const struct fxt_record *rec)
{
	struct thread_slot *s = get(o, rec->tid);
	unsigned state;

	if (!s)
		return -ENOMEM;
	s->t.pid = rec->pid;
	if (!(rec->bt_flags & FXT_BT_FLAG_OFFCPU)) {
		s->t.samples++;
		return 0;
	}
	o->last_paired = s->have_out && s->have_in && s->out_ts == rec->ts;
	if (!o->last_paired)
		return 0;
	state = FXT_BT_OFFCPU_STATE(rec->bt_flags);
	if (state >= FXS_OFF_NR_STATES)
		state = FXS_OFF_OTHER;
	o->last_ns = to_ns(o, s->in_ts - s->out_ts);
	s->t.state_ns[state] += o->last_ns;
	s->t.intervals++;
	s->have_out = s->have_in = false;
	o->intervals++;
	return 0;
}

int offcpu_add(struct offcpu *o, const struct fxt_record *rec)
{
	unsigned i;

	switch (rec->type) {
	case FXT_RT_INIT:
		if (rec->ticks_per_second)
			o->ticks_per_second = rec->ticks_per_second;
		return 0;
	case FXT_RT_SCHED:
		return add_switch(o, rec);
	case FXT_RT_PROFILER:
		return rec->subtype == FXT_PROF_BACKTRACE ? add_backtrace(o, rec) : 0;
	case FXT_RT_EVENT:
		if (rec->subtype != FXT_EVENT_COUNTER || !rec->category || !rec->name ||
		    strcmp(rec->category, "fxsampler") || strcmp(rec->name, "config"))
			return 0;
		for (i = 0; i < rec->nr_args; i++)
			if (rec->args[i].name && !strcmp(rec->args[i].name, "period_ns"))
				o->period_ns = rec->args[i].u;
		return 0;
	default:
		return 0;
	}
}

bool offcpu_last_interval(const struct offcpu *o, uint64_t *ret_ns)
{
	*ret_ns = o->last_paired ? o->last_ns : 0;
	return o->last_paired;
}

uint64_t offcpu_period_ns(const struct offcpu *o)
{
	return o->period_ns;
}

uint64_t offcpu_intervals(const struct offcpu *o)
{
	return o->intervals;
}

static int thread_order(const void *pa, const void *pb)
{
	const struct offcpu_thread *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

long offcpu_threads(const struct offcpu *o, struct offcpu_thread **ret)
{
	struct offcpu_thread *t = malloc((o->n ? o->n : 1) * sizeof(*t));
	size_t i, n = 0;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < o->n; i++)
		t[n++] = o->slots[i].t;
	qsort(t, n, sizeof(*t), thread_order);
	*ret = t;
	return (long)n;
}

int offcpu_write_summary(const struct offcpu *o, FILE *out, bool has_pid, uint64_t pid,
			 bool has_tid, uint64_t tid, offcpu_name_fn name, void *ctx)
{
	struct offcpu_thread *t;
	long n = offcpu_threads(o, &t);

	if (n < 0)
		return (int)n;
	fprintf(out,
		"\nThread states, ms (running: samples x %.3f ms; the rest: off-CPU "
		"intervals)\n",
		o->period_ns / 1e6);
	fprintf(out, "%8s %8s %10s %10s %10s %10s %8s %10s  %s\n", "PID", "TID", "Running",
		"Runnable", "Sleeping", "Uninterr", "Other", "Total", "Thread");
	for (long i = 0; i < n; i++) {
		const struct offcpu_thread *x = &t[i];
		double run = (double)x->samples * o->period_ns / 1e6, sum = run;
		const char *label = name ? name(ctx, x->tid) : NULL;

		if ((has_pid && x->pid != pid) || (has_tid && x->tid != tid))
			continue;
		for (int k = 0; k < FXS_OFF_NR_STATES; k++)
			sum += x->state_ns[k] / 1e6;
		fprintf(out,
			"%8" PRIu64 " %8" PRIu64 " %10.1f %10.1f %10.1f %10.1f %8.1f %10.1f  %s\n",
			x->pid, x->tid, run, x->state_ns[FXS_OFF_RUNNABLE] / 1e6,
			x->state_ns[FXS_OFF_SLEEPING] / 1e6,
			x->state_ns[FXS_OFF_UNINTERRUPTIBLE] / 1e6,
			(x->state_ns[FXS_OFF_STOPPED] + x->state_ns[FXS_OFF_OTHER]) / 1e6, sum,
			label ? label : "");
	}
	free(t);
	return ferror(out) ? -EIO : 0;
}
