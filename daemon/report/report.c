// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report model and its accounting: report__new/free, and report_add()
 * aggregating each record into names, threads, stacks, counters and clocks
 * (report_internal.h describes the tables). The outputs live beside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "report/offcpu.h"
#include "report/report.h"
#include "report/report_internal.h"
#include "symbols/demangle.h"
#include "symbols/symbolizer.h"
#include "unwind/cfi_status.h"

void report_table_free(struct table *t)
{
	free(t->v);
	hash_index_free(&t->idx);
	memset(t, 0, sizeof(*t));
}

struct report *report__new(const struct report_opts *opts)
{
	struct symbolizer_opts so = {};
	struct report *r;

	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	if (opts) {
		r->top = opts->top;
		r->folded_no_thread = opts->folded_no_thread;
		r->split_processes = opts->split_processes;
		r->split_threads = opts->split_threads;
		r->no_root_frames = opts->no_root_frames;
		r->keep_samples = opts->perf_script_path || opts->perfetto_path;
		r->lines = opts->lines;
		r->svg_inverted = opts->svg_inverted;
		r->width = opts->width;
		so.debuginfod = !opts->no_debuginfod;
		so.debuginfod_limits = opts->debuginfod_limits;
		r->has_pid = opts->has_pid;
		r->pid = opts->pid;
		r->has_tid = opts->has_tid;
		r->tid = opts->tid;
		r->period_ns = opts->period_ns;
		so.debug_dir = opts->debug_dir;
		r->time_mode = opts->time_mode;
		r->kern.hide = opts->no_kernel;
		r->sym = opts->symbolizer;
		r->sym_borrowed = !!opts->symbolizer;
		r->dm = opts->no_demangle ? NULL : opts->demangler;
		r->dm_borrowed = !!r->dm;
		r->sym_cache = opts->symbolizer ? opts->sym_cache : NULL;
	}
	r->ticks_per_second = 1000000000ULL;
	if (!r->sym)
		r->sym = symbolizer__new(&so);
	if (!r->dm && !(opts && opts->no_demangle))
		r->dm = demangler__new();
	r->off = offcpu__new();
	if (!r->sym || !r->off || (!r->dm && !(opts && opts->no_demangle))) {
		if (!r->sym_borrowed)
			symbolizer__free(r->sym);
		if (!r->dm_borrowed)
			demangler__free(r->dm);
		offcpu__free(r->off);
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

static void names_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(T(*t, struct name_ent)[i].name);
		free(T(*t, struct name_ent)[i].cmdline);
	}
	report_table_free(t);
}

void report__free(struct report *r)
{
	size_t i;

	if (!r)
		return;
	report_unprepare(r);
	for (i = 0; i < r->stacks.n; i++)
		free(T(r->stacks, struct stack)[i].frames);
	report_table_free(&r->stacks);
	report_table_free(&r->threads);
	names_free(&r->procs);
	names_free(&r->tnames);
	for (i = 0; i < r->nr_counters; i++)
		free(r->counters[i].name);
	for (i = 0; i < r->nr_unwind; i++)
		free(r->unwind[i].name);
	for (i = 0; i < r->nr_unwind_offcpu; i++)
		free(r->unwind_offcpu[i].name);
	for (i = 0; i < r->nr_cfi_tables; i++)
		free(r->cfi_tables[i].name);
	report_cfi_free(r);
	free(r->deltas);
	free(r->samples_v);
	if (!r->sym_borrowed)
		symbolizer__free(r->sym);
	if (!r->dm_borrowed)
		demangler__free(r->dm);
	offcpu__free(r->off);
	report_kernel_free(&r->kern);
	report_perfmap_free(&r->jit);
	report_python_free(&r->py);
	free(r);
}

/* ---- accounting ---- */

static bool name_eq(const void *ctx, size_t pos, const void *key)
{
	return T(*(const struct table *)ctx, struct name_ent)[pos].id == *(const uint64_t *)key;
}

struct name_ent *report_find_name(const struct table *t, uint64_t id)
{
	size_t pos;

	if (!hash_index_find(&t->idx, hash_u64(FNV_INIT, id), name_eq, t, &id, &pos))
		return NULL;
	return &T(*t, struct name_ent)[pos];
}

/* Record a name; a later kernel object record renames (e.g. after exec). */
static int set_name(struct table *t, uint64_t id, uint64_t pid, const char *name)
{
	struct name_ent *e = report_find_name(t, id);
	char *copy = strdup(name ? name : "");

	if (!copy)
		return -ENOMEM;
	if (!e) {
		if (array_reserve(&t->v, &t->cap, t->n, sizeof(struct name_ent)) ||
		    hash_index_insert(&t->idx, hash_u64(FNV_INIT, id), t->n)) {
			free(copy);
			return -ENOMEM;
		}
		e = &T(*t, struct name_ent)[t->n++];
		e->id = id;
		e->name = NULL;
		e->cmdline = NULL;
	}
	free(e->name);
	e->name = copy;
	e->pid = pid;
	return 0;
}

/*
 * A process record's "cmdline" argument, which captures write where /proc
 * had it; older files have none, and a record without one keeps the last.
 */
static int set_cmdline(struct report *r, const struct fxt_record *rec)
{
	struct name_ent *e = report_find_name(&r->procs, rec->koid);
	unsigned i;

	for (i = 0; e && i < rec->nr_args; i++) {
		const struct fxt_rd_arg *a = &rec->args[i];
		char *copy;

		if (!a->name || strcmp(a->name, "cmdline") || a->type != FXT_ARG_STRING ||
		    !a->str || !a->str[0])
			continue;
		copy = strdup(a->str);
		if (!copy)
			return -ENOMEM;
		free(e->cmdline);
		e->cmdline = copy;
	}
	return 0;
}

struct thread_key {
	uint64_t pid, tid;
};

static bool thread_eq(const void *ctx, size_t pos, const void *key)
{
	const struct thread_ent *t = &T(*(const struct table *)ctx, struct thread_ent)[pos];
	const struct thread_key *k = key;

	return t->pid == k->pid && t->tid == k->tid;
}

static struct thread_ent *get_thread(struct report *r, uint64_t pid, uint64_t tid)
{
	struct thread_key k = {pid, tid};
	uint64_t h = hash_u64(hash_u64(FNV_INIT, pid), tid);
	struct thread_ent *t;
	size_t pos;

	if (hash_index_find(&r->threads.idx, h, thread_eq, &r->threads, &k, &pos))
		return &T(r->threads, struct thread_ent)[pos];
	if (array_reserve(&r->threads.v, &r->threads.cap, r->threads.n,
			  sizeof(struct thread_ent)) ||
	    hash_index_insert(&r->threads.idx, h, r->threads.n))
		return NULL;
	t = &T(r->threads, struct thread_ent)[r->threads.n++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return t;
}

struct stack_key {
	uint64_t pid, tid, epoch;
	unsigned flags, nr;
	const uint64_t *frames;
};

static bool stack_eq(const void *ctx, size_t pos, const void *key)
{
	const struct stack *s = &T(*(const struct table *)ctx, struct stack)[pos];
	const struct stack_key *k = key;

	return s->pid == k->pid && s->tid == k->tid && s->epoch == k->epoch &&
	       s->flags == k->flags && s->nr == k->nr &&
	       (!k->nr || !memcmp(s->frames, k->frames, k->nr * sizeof(*k->frames)));
}

static int add_stack(struct report *r, const struct stack_key *k, uint64_t ts, uint64_t weight,
		     size_t *ret)
{
	uint64_t h = hash_u64(hash_u64(hash_u64(hash_u64(FNV_INIT, k->pid), k->tid), k->flags),
			      k->epoch);
	struct stack *s;
	size_t pos;

	h = fnv1a(h, k->frames, k->nr * sizeof(*k->frames));
	if (hash_index_find(&r->stacks.idx, h, stack_eq, &r->stacks, k, &pos)) {
		T(r->stacks, struct stack)[pos].count += weight;
		*ret = pos;
		return 0;
	}
	if (array_reserve(&r->stacks.v, &r->stacks.cap, r->stacks.n, sizeof(struct stack)))
		return -ENOMEM;
	s = &T(r->stacks, struct stack)[r->stacks.n];
	memset(s, 0, sizeof(*s));
	s->frames = malloc(k->nr ? k->nr * sizeof(*s->frames) : 1);
	if (!s->frames)
		return -ENOMEM;
	if (hash_index_insert(&r->stacks.idx, h, r->stacks.n)) {
		free(s->frames);
		return -ENOMEM;
	}
	if (k->nr)
		memcpy(s->frames, k->frames, k->nr * sizeof(*s->frames));
	s->pid = k->pid;
	s->tid = k->tid;
	s->flags = k->flags;
	s->nr = k->nr;
	s->epoch = k->epoch;
	s->ts = ts;
	s->count = weight;
	*ret = r->stacks.n++;
	return 0;
}

/*
 * What a backtrace weighs in the view asked for: a sample, or ns (an off-CPU
 * interval's length; a sample's period). 1: *ret is it; 0: not in this view;
 * -ENODATA: --wall without the sampling period.
 */
static int sample_weight(struct report *r, const struct fxt_record *rec, uint64_t *ret)
{
	bool off = rec->bt_flags & FXT_BT_FLAG_OFFCPU;

	*ret = 1;
	switch (r->time_mode) {
	case REPORT_OFFCPU:
		return off && offcpu_last_interval(r->off, ret);
	case REPORT_WALL:
		if (off)
			return offcpu_last_interval(r->off, ret);
		*ret = r->period_ns ? r->period_ns : offcpu_period_ns(r->off);
		return *ret ? 1 : -ENODATA;
	default:
		return !off;
	}
}

/*
 * rec with its user frames up to the first pc no user address space has
 * (bit 57 and up: x86-64's and riscv64's five levels end at bit 56, arm64's
 * at 52). A walk that read such a "return address" had gone astray, and what
 * it found past it is no frame either; kept, bit 62 or 63 would read as a
 * Python or kernel frame. A sample of fakepy's, once in a thousand (CI, stop
 * 36), named a Python code object no record had.
 */
static const struct fxt_record *user_frames(const struct fxt_record *rec, struct fxt_record *copy)
{
	unsigned n = 0;

	while (rec->frames && n < rec->nr_frames && rec->frames[n] < USER_PC_END)
		n++;
	if (!rec->frames || n == rec->nr_frames)
		return rec;
	*copy = *rec;
	copy->nr_frames = n;
	return copy;
}

static int add_backtrace(struct report *r, const struct fxt_record *rec)
{
	struct fxt_record user;
	struct stack_key k = {
		.pid = rec->pid,
		.tid = rec->tid,
		.flags = rec->bt_flags & BT_KEY_FLAGS,
	};
	struct thread_ent *t;
	uint64_t weight;
	size_t stack;
	int err;

	/* Its kernel frames, if the record before it had them, go in front. */
	err = report_kernel_frames(r, user_frames(rec, &user), &k.frames, &k.nr);
	/* Its Python frames, if the record before it had them, after the native ones. */
	if (!err)
		err = report_python_frames(r, rec, &k.frames, &k.nr);
	if (err)
		return err;
	if ((r->has_pid && rec->pid != r->pid) || (r->has_tid && rec->tid != r->tid))
		return 0;
	err = sample_weight(r, rec, &weight);
	if (err <= 0)
		return err;
	t = get_thread(r, rec->pid, rec->tid);
	if (!t)
		return -ENOMEM;
	/*
	 * A pc means another function after a library is closed and another
	 * opened at its address: the samples of each mapping go apart. The
	 * mappings come before the samples taken in them (fxsampler-format(5)).
	 */
	k.epoch = symbolizer_epoch(r->sym, rec->pid, rec->ts);
	err = add_stack(r, &k, rec->ts, weight, &stack);
	if (err)
		return err;
	if (r->keep_samples) {
		if (array_reserve((void **)&r->samples_v, &r->cap_samples, r->nr_samples,
				  sizeof(*r->samples_v)))
			return -ENOMEM;
		r->samples_v[r->nr_samples++] = (struct sample){rec->ts, stack, rec->bt_flags};
	}
	t->samples += weight;
	if (t->have_ts && rec->ts > t->last_ts) {
		if (array_reserve((void **)&r->deltas, &r->cap_deltas, r->nr_deltas,
				  sizeof(*r->deltas)))
			return -ENOMEM;
		r->deltas[r->nr_deltas++] = rec->ts - t->last_ts;
	}
	if (!t->have_ts || rec->ts > t->last_ts)
		t->last_ts = rec->ts;
	t->have_ts = true;
	if (!r->have_ts || rec->ts < r->first_ts)
		r->first_ts = rec->ts;
	if (!r->have_ts || rec->ts > r->last_ts)
		r->last_ts = rec->ts;
	r->have_ts = true;
	r->samples += weight;
	if (k.flags & FXT_BT_FLAG_TRUNCATED)
		r->truncated += weight;
	if (rec->bt_flags & FXT_BT_FLAG_FP_FALLBACK)
		r->fp_fallback += weight;
	r->prepared = false;
	return 0;
}

/* A counter record of the capture's: keep its latest values in c (*nr of them). */
static int add_counters(struct counter *c, unsigned *nr, const struct fxt_record *rec)
{
	unsigned i, j;

	for (i = 0; i < rec->nr_args; i++) {
		const struct fxt_rd_arg *a = &rec->args[i];

		if (!a->name || (a->type != FXT_ARG_UINT64 && a->type != FXT_ARG_UINT32 &&
				 a->type != FXT_ARG_INT64 && a->type != FXT_ARG_INT32))
			continue;
		for (j = 0; j < *nr; j++)
			if (!strcmp(c[j].name, a->name))
				break;
		if (j == *nr) {
			if (j == FXT_READER_MAX_ARGS)
				continue;
			c[j].name = strdup(a->name);
			if (!c[j].name)
				return -ENOMEM;
			(*nr)++;
		}
		c[j].value = a->u;
	}
	return 0;
}

/* The capture's clocks; a record that lacks one of them is ignored. */
static void add_clock(struct report *r, const struct fxt_record *rec)
{
	static const char *const names[3] = {"start_boottime_ns", "start_realtime_ns",
					     "stop_boottime_ns"};
	uint64_t v[3] = {};
	unsigned i, k, found = 0;

	for (i = 0; i < rec->nr_args; i++) {
		const struct fxt_rd_arg *a = &rec->args[i];

		for (k = 0; a->name && a->type == FXT_ARG_UINT64 && k < 3; k++) {
			if (!strcmp(a->name, names[k])) {
				v[k] = a->u;
				found |= 1U << k;
			}
		}
	}
	if (found != 7 || v[2] < v[0])
		return;
	r->have_clock = true;
	r->clock_start_boot_ns = v[0];
	r->clock_start_real_ns = v[1];
	r->clock_stop_boot_ns = v[2];
}

int report_add(struct report *r, const struct fxt_record *rec)
{
	int err = offcpu_add(r->off, rec);

	if (err)
		return err;
	switch (rec->type) {
	case FXT_RT_KOBJ:
		if (rec->subtype == FXT_OBJ_PROCESS) {
			err = set_name(&r->procs, rec->koid, rec->koid, rec->name);
			return err ? err : set_cmdline(r, rec);
		}
		if (rec->subtype == FXT_OBJ_THREAD)
			return set_name(&r->tnames, rec->koid, rec->pid, rec->name);
		return 0;
	case FXT_RT_PROFILER:
		if (rec->subtype == FXT_PROF_BACKTRACE)
			return add_backtrace(r, rec);
		if (r->sym_borrowed)
			return 0;
		err = symbolizer_add_record(r->sym, rec);
		if (!err)
			r->prepared = false;
		return err;
	case FXT_RT_EVENT:
		if (rec->subtype == FXT_EVENT_COUNTER && rec->category && rec->name &&
		    !strcmp(rec->category, "fxsampler")) {
			if (!strcmp(rec->name, "samples"))
				return add_counters(r->counters, &r->nr_counters, rec);
			if (!strcmp(rec->name, "unwind"))
				return add_counters(r->unwind, &r->nr_unwind, rec);
			if (!strcmp(rec->name, "unwind_offcpu"))
				return add_counters(r->unwind_offcpu, &r->nr_unwind_offcpu, rec);
			if (!strcmp(rec->name, "cfi_tables"))
				return add_counters(r->cfi_tables, &r->nr_cfi_tables, rec);
			if (!strcmp(rec->name, CFI_MODULE_EVENT))
				return report_cfi_module(r, rec);
			if (!strcmp(rec->name, CFI_LOST_EVENT))
				return report_cfi_lost(r, rec);
		}
		if (rec->subtype == FXT_EVENT_INSTANT && rec->category && rec->name &&
		    !strcmp(rec->category, "fxsampler") && !strcmp(rec->name, FXT_CLOCK_EVENT))
			add_clock(r, rec);
		return 0;
	case FXT_RT_METADATA:
		if (rec->subtype == FXT_META_PROVIDER_EVENT &&
		    rec->provider_event == FXT_PROVIDER_EVENT_DROPPED)
			r->records_dropped = true;
		return 0;
	case FXT_RT_INIT:
		if (rec->ticks_per_second)
			r->ticks_per_second = rec->ticks_per_second;
		return 0;
	case FXT_RT_BLOB:
		return report_kernel_add(r, rec) ?: report_perfmap_add(r, rec) ?: report_python_add(r, rec);
	default:
		return 0;
	}
}

int report_adopt_names(struct report *r, const struct report *src)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct name_ent *e;
	size_t i;
	int err;

	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];

		if (!report_find_name(&r->procs, s->pid) &&
		    (e = report_find_name(&src->procs, s->pid))) {
			err = set_name(&r->procs, e->id, e->pid, e->name);
			if (err)
				return err;
		}
		if (!report_find_name(&r->tnames, s->tid) &&
		    (e = report_find_name(&src->tnames, s->tid))) {
			err = set_name(&r->tnames, e->id, e->pid, e->name);
			if (err)
				return err;
		}
	}
	return 0;
}

uint64_t report_samples(const struct report *r)
{
	return r->samples;
}

/* ---- names and times for the outputs ---- */

const char *report_process_name(const struct report *r, uint64_t pid)
{
	const struct name_ent *e = report_find_name(&r->procs, pid);

	if (e && e->name[0])
		return e->name;
	/* The main thread carries the process name too. */
	e = report_find_name(&r->tnames, pid);
	return e && e->name[0] ? e->name : NULL;
}

const char *report_thread_name(const struct report *r, uint64_t tid)
{
	const struct name_ent *e = report_find_name(&r->tnames, tid);

	return e && e->name[0] ? e->name : NULL;
}

uint64_t report_ticks_to_ns(const struct report *r, uint64_t ticks)
{
	if (r->ticks_per_second == 1000000000ULL)
		return ticks;
	return (uint64_t)((unsigned __int128)ticks * 1000000000ULL / r->ticks_per_second);
}

static int u64_order(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/*
 * The sampling period: given, or the median gap between two samples of one
 * thread, which is the period for a thread that stays on the CPU.
 */
uint64_t report_period_ns(struct report *r)
{
	if (r->period_ns)
		return r->period_ns;
	/* A capture with off-CPU intervals says it (and its gaps are no period). */
	if (offcpu_period_ns(r->off))
		return offcpu_period_ns(r->off);
	if (!r->nr_deltas)
		return 0;
	qsort(r->deltas, r->nr_deltas, sizeof(*r->deltas), u64_order);
	return report_ticks_to_ns(r, r->deltas[r->nr_deltas / 2]);
}
