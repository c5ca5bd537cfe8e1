// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Aggregation and outputs of `fxsampler report`.
 *
 * Samples are aggregated by raw stack (pid, tid, flags, pcs) as they come;
 * symbolization waits until an output is asked for, because module and mmap
 * records may follow the samples they describe. Each distinct (pid, pc,
 * return-or-not) is resolved once into a location, each distinct (function,
 * module) becomes one function, and every output works from those tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/containers.h"
#include "symbols/elf_symbols.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "report/offcpu.h"
#include "util/outfile.h"
#include "report/report.h"
#include "util/safe_open.h"
#include "report/report_svg.h"
#include "symbols/symbolizer.h"

#define BT_KEY_FLAGS	(FXT_BT_FLAG_TRUNCATED | FXT_BT_FLAG_PC_IS_RETURN)
#define TRUNCATED_FRAME "[truncated]"
#define INLINED_SUFFIX	" [inlined]"

/* ---- small containers ---- */

static uint64_t hash_u64(uint64_t h, uint64_t v)
{
	return fnv1a(h, &v, sizeof(v));
}

/*
 * An open-addressing index from a hash to a position in an array the caller
 * owns: the keys stay in the array, compared by a callback.
 */
struct hindex {
	size_t *slots; /* position + 1; 0: empty */
	uint64_t *hashes;
	size_t cap; /* a power of two */
	size_t n;
};

typedef bool (*heq_fn)(const void *ctx, size_t pos, const void *key);

static bool hindex_find(const struct hindex *h, uint64_t hash, heq_fn eq, const void *ctx,
			const void *key, size_t *ret_pos)
{
	size_t mask, i;

	if (!h->cap)
		return false;
	mask = h->cap - 1;
	for (i = hash & mask; h->slots[i]; i = (i + 1) & mask) {
		if (h->hashes[i] == hash && eq(ctx, h->slots[i] - 1, key)) {
			*ret_pos = h->slots[i] - 1;
			return true;
		}
	}
	return false;
}

static void hindex_put(size_t *slots, uint64_t *hashes, size_t cap, uint64_t hash, size_t slot)
{
	size_t mask = cap - 1, i;

	for (i = hash & mask; slots[i]; i = (i + 1) & mask)
		;
	slots[i] = slot;
	hashes[i] = hash;
}

static int hindex_insert(struct hindex *h, uint64_t hash, size_t pos)
{
	if ((h->n + 1) * 2 > h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64, i;
		size_t *slots = calloc(cap, sizeof(*slots));
		uint64_t *hashes = calloc(cap, sizeof(*hashes));

		if (!slots || !hashes) {
			free(slots);
			free(hashes);
			return -ENOMEM;
		}
		for (i = 0; i < h->cap; i++)
			if (h->slots[i])
				hindex_put(slots, hashes, cap, h->hashes[i], h->slots[i]);
		free(h->slots);
		free(h->hashes);
		h->slots = slots;
		h->hashes = hashes;
		h->cap = cap;
	}
	hindex_put(h->slots, h->hashes, h->cap, hash, pos + 1);
	h->n++;
	return 0;
}

static void hindex_free(struct hindex *h)
{
	free(h->slots);
	free(h->hashes);
	memset(h, 0, sizeof(*h));
}

/* ---- the report ---- */

struct name_ent {
	uint64_t id;  /* pid or tid */
	uint64_t pid; /* threads: their process, 0 when unknown */
	char *name;
	char *cmdline; /* processes: from /proc at capture, NULL when not recorded */
};

struct thread_ent {
	uint64_t pid;
	uint64_t tid;
	uint64_t samples;
	uint64_t last_ts;
	bool have_ts;
};

struct stack {
	uint64_t pid;
	uint64_t tid;
	unsigned flags; /* BT_KEY_FLAGS bits */
	unsigned nr;
	uint64_t *frames; /* innermost first */
	uint64_t count;
	size_t *locs; /* after prepare(): location of each frame */
};

/* A function running at a source line: one pprof Line. */
struct loc_line {
	size_t func;
	const char *file; /* owned by the symbolizer; NULL without debug info */
	unsigned line;
};

struct loc {
	uint64_t pid;
	uint64_t pc;
	bool is_return;
	size_t func;
	const struct symbolizer_mapping *mapping;
	const char *file; /* where func executes, from DWARF; NULL without debug info */
	unsigned line;
	/* Functions inlined at pc, innermost first; the last was inlined into func. */
	struct loc_line *inl;
	unsigned nr_inl;
};

struct func {
	const char *name;   /* owned by the symbolizer, or a literal */
	const char *module; /* module path or NULL */
	bool resolved;
	uint64_t self;
	uint64_t total;
	size_t stamp;	  /* last stack counted in total, + 1 */
	const char *file; /* source file declaring it, from DWARF, or NULL */
	unsigned start_line;
};

struct counter {
	char *name;
	uint64_t value;
};

struct table {
	void *v;
	size_t n;
	size_t cap;
	struct hindex idx;
};

/* One sample, for the outputs in time order. */
struct sample {
	uint64_t ts;
	size_t stack;
};

struct report {
	unsigned top;
	bool folded_no_thread;
	bool merge_threads;
	bool keep_samples;
	struct sample *samples_v;
	size_t nr_samples, cap_samples;
	bool lines; /* top: rows by function and source line */
	bool svg_inverted;
	unsigned width; /* top: columns to fit in; 0: no limit */
	bool has_pid, has_tid;
	uint64_t pid, tid;
	uint64_t period_ns;
	struct symbolizer *sym;

	struct table procs;   /* struct name_ent, by pid */
	struct table tnames;  /* struct name_ent, by tid */
	struct table threads; /* struct thread_ent, by (pid, tid) */
	struct table stacks;  /* struct stack, by content */
	uint64_t samples;
	uint64_t truncated;
	uint64_t first_ts, last_ts;
	bool have_ts;
	uint64_t ticks_per_second;
	uint64_t *deltas; /* per-thread gaps between samples, to estimate the period */
	size_t nr_deltas, cap_deltas;
	struct counter counters[FXT_READER_MAX_ARGS];
	unsigned nr_counters;
	bool records_dropped;
	/* The capture's "clock" event (FXT_CLOCK_EVENT), when it has one. */
	bool have_clock;
	uint64_t clock_start_boot_ns, clock_start_real_ns, clock_stop_boot_ns;

	bool prepared;
	struct table locs;  /* struct loc, by (pid, pc, is_return) */
	struct table funcs; /* struct func, by (name, module) */

	unsigned time_mode; /* enum report_time */
	struct offcpu *off; /* the off-CPU intervals and thread states */
};

#define T(tab, type) ((type *)(tab).v)

static void table_free(struct table *t)
{
	free(t->v);
	hindex_free(&t->idx);
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
		r->merge_threads = opts->merge_threads;
		r->keep_samples = !!opts->perf_script_path;
		r->lines = opts->lines;
		r->svg_inverted = opts->svg_inverted;
		r->width = opts->width;
		so.debuginfod = !opts->no_debuginfod;
		r->has_pid = opts->has_pid;
		r->pid = opts->pid;
		r->has_tid = opts->has_tid;
		r->tid = opts->tid;
		r->period_ns = opts->period_ns;
		so.debug_dir = opts->debug_dir;
		r->time_mode = opts->time_mode;
	}
	r->ticks_per_second = 1000000000ULL;
	r->sym = symbolizer__new(&so);
	r->off = offcpu__new();
	if (!r->sym || !r->off) {
		symbolizer__free(r->sym);
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
	table_free(t);
}

static void unprepare(struct report *r)
{
	size_t i;

	for (i = 0; i < r->stacks.n; i++) {
		free(T(r->stacks, struct stack)[i].locs);
		T(r->stacks, struct stack)[i].locs = NULL;
	}
	for (i = 0; i < r->locs.n; i++)
		free(T(r->locs, struct loc)[i].inl);
	table_free(&r->locs);
	table_free(&r->funcs);
	r->prepared = false;
}

void report__free(struct report *r)
{
	size_t i;

	if (!r)
		return;
	unprepare(r);
	for (i = 0; i < r->stacks.n; i++)
		free(T(r->stacks, struct stack)[i].frames);
	table_free(&r->stacks);
	table_free(&r->threads);
	names_free(&r->procs);
	names_free(&r->tnames);
	for (i = 0; i < r->nr_counters; i++)
		free(r->counters[i].name);
	free(r->deltas);
	free(r->samples_v);
	symbolizer__free(r->sym);
	offcpu__free(r->off);
	free(r);
}

uint64_t report_samples(const struct report *r)
{
	return r->samples;
}

void report_keep_samples(struct report *r)
{
	r->keep_samples = true;
}

/* ---- accounting ---- */

static bool name_eq(const void *ctx, size_t pos, const void *key)
{
	return T(*(const struct table *)ctx, struct name_ent)[pos].id == *(const uint64_t *)key;
}

static struct name_ent *find_name(const struct table *t, uint64_t id)
{
	size_t pos;

	if (!hindex_find(&t->idx, hash_u64(FNV_INIT, id), name_eq, t, &id, &pos))
		return NULL;
	return &T(*t, struct name_ent)[pos];
}

/* Record a name; a later kernel object record renames (e.g. after exec). */
static int set_name(struct table *t, uint64_t id, uint64_t pid, const char *name)
{
	struct name_ent *e = find_name(t, id);
	char *copy = strdup(name ? name : "");

	if (!copy)
		return -ENOMEM;
	if (!e) {
		if (array_reserve(&t->v, &t->cap, t->n, sizeof(struct name_ent)) ||
		    hindex_insert(&t->idx, hash_u64(FNV_INIT, id), t->n)) {
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
	struct name_ent *e = find_name(&r->procs, rec->koid);
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

	if (hindex_find(&r->threads.idx, h, thread_eq, &r->threads, &k, &pos))
		return &T(r->threads, struct thread_ent)[pos];
	if (array_reserve(&r->threads.v, &r->threads.cap, r->threads.n,
			  sizeof(struct thread_ent)) ||
	    hindex_insert(&r->threads.idx, h, r->threads.n))
		return NULL;
	t = &T(r->threads, struct thread_ent)[r->threads.n++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return t;
}

struct stack_key {
	uint64_t pid, tid;
	unsigned flags, nr;
	const uint64_t *frames;
};

static bool stack_eq(const void *ctx, size_t pos, const void *key)
{
	const struct stack *s = &T(*(const struct table *)ctx, struct stack)[pos];
	const struct stack_key *k = key;

	return s->pid == k->pid && s->tid == k->tid && s->flags == k->flags && s->nr == k->nr &&
	       (!k->nr || !memcmp(s->frames, k->frames, k->nr * sizeof(*k->frames)));
}

static int add_stack(struct report *r, const struct stack_key *k, uint64_t weight, size_t *ret)
{
	uint64_t h = hash_u64(hash_u64(hash_u64(FNV_INIT, k->pid), k->tid), k->flags);
	struct stack *s;
	size_t pos;

	h = fnv1a(h, k->frames, k->nr * sizeof(*k->frames));
	if (hindex_find(&r->stacks.idx, h, stack_eq, &r->stacks, k, &pos)) {
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
	if (hindex_insert(&r->stacks.idx, h, r->stacks.n)) {
		free(s->frames);
		return -ENOMEM;
	}
	if (k->nr)
		memcpy(s->frames, k->frames, k->nr * sizeof(*s->frames));
	s->pid = k->pid;
	s->tid = k->tid;
	s->flags = k->flags;
	s->nr = k->nr;
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

static int add_backtrace(struct report *r, const struct fxt_record *rec)
{
	struct stack_key k = {
		.pid = rec->pid,
		.tid = rec->tid,
		.flags = rec->bt_flags & BT_KEY_FLAGS,
		.nr = rec->frames ? rec->nr_frames : 0,
		.frames = rec->frames,
	};
	struct thread_ent *t;
	uint64_t weight;
	size_t stack;
	int err;

	if ((r->has_pid && rec->pid != r->pid) || (r->has_tid && rec->tid != r->tid))
		return 0;
	err = sample_weight(r, rec, &weight);
	if (err <= 0)
		return err;
	t = get_thread(r, rec->pid, rec->tid);
	if (!t)
		return -ENOMEM;
	err = add_stack(r, &k, weight, &stack);
	if (err)
		return err;
	if (r->keep_samples) {
		if (array_reserve((void **)&r->samples_v, &r->cap_samples, r->nr_samples,
				  sizeof(*r->samples_v)))
			return -ENOMEM;
		r->samples_v[r->nr_samples++] = (struct sample){rec->ts, stack};
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
	r->prepared = false;
	return 0;
}

/* The capture's totals counter: keep its latest values. */
static int add_counters(struct report *r, const struct fxt_record *rec)
{
	unsigned i, j;

	for (i = 0; i < rec->nr_args; i++) {
		const struct fxt_rd_arg *a = &rec->args[i];

		if (!a->name || (a->type != FXT_ARG_UINT64 && a->type != FXT_ARG_UINT32 &&
				 a->type != FXT_ARG_INT64 && a->type != FXT_ARG_INT32))
			continue;
		for (j = 0; j < r->nr_counters; j++)
			if (!strcmp(r->counters[j].name, a->name))
				break;
		if (j == r->nr_counters) {
			if (j == FXT_READER_MAX_ARGS)
				continue;
			r->counters[j].name = strdup(a->name);
			if (!r->counters[j].name)
				return -ENOMEM;
			r->nr_counters++;
		}
		r->counters[j].value = a->u;
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
		err = symbolizer_add_record(r->sym, rec);
		if (!err)
			r->prepared = false;
		return err;
	case FXT_RT_EVENT:
		if (rec->subtype == FXT_EVENT_COUNTER && rec->category && rec->name &&
		    !strcmp(rec->category, "fxsampler") && !strcmp(rec->name, "samples"))
			return add_counters(r, rec);
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
	default:
		return 0;
	}
}

/* ---- symbolization into locations and functions ---- */

struct loc_key {
	uint64_t pid, pc;
	bool is_return;
};

static bool loc_eq(const void *ctx, size_t pos, const void *key)
{
	const struct loc *l = &T(*(const struct table *)ctx, struct loc)[pos];
	const struct loc_key *k = key;

	return l->pid == k->pid && l->pc == k->pc && l->is_return == k->is_return;
}

struct func_key {
	const char *name, *module;
};

static bool func_eq(const void *ctx, size_t pos, const void *key)
{
	const struct func *f = &T(*(const struct table *)ctx, struct func)[pos];
	const struct func_key *k = key;

	return !strcmp(f->name, k->name) && !strcmp(f->module ?: "", k->module ?: "");
}

static int get_func(struct report *r, const char *name, const char *module, bool resolved,
		    size_t *ret)
{
	struct func_key k = {name, module};
	uint64_t h = fnv1a(FNV_INIT, name, strlen(name) + 1);
	struct func *f;

	if (module)
		h = fnv1a(h, module, strlen(module));
	if (hindex_find(&r->funcs.idx, h, func_eq, &r->funcs, &k, ret))
		return 0;
	if (array_reserve(&r->funcs.v, &r->funcs.cap, r->funcs.n, sizeof(struct func)) ||
	    hindex_insert(&r->funcs.idx, h, r->funcs.n))
		return -ENOMEM;
	f = &T(r->funcs, struct func)[r->funcs.n];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->module = module;
	f->resolved = resolved;
	*ret = r->funcs.n++;
	return 0;
}

/* The first declaration DWARF gives a function is its pprof filename and start_line. */
static void func_set_source(struct report *r, size_t func, const char *file, unsigned line)
{
	struct func *f = &T(r->funcs, struct func)[func];

	if (!f->file && file) {
		f->file = file;
		f->start_line = line;
	}
}

static int get_loc(struct report *r, uint64_t pid, uint64_t pc, bool is_return, size_t *ret)
{
	struct loc_key k = {pid, pc, is_return};
	uint64_t h = hash_u64(hash_u64(hash_u64(FNV_INIT, pid), pc), is_return);
	struct loc_line *inl = NULL;
	struct sym_frame sf;
	struct loc *l;
	size_t func;
	unsigned i;
	int err;

	if (hindex_find(&r->locs.idx, h, loc_eq, &r->locs, &k, ret))
		return 0;
	err = symbolizer_resolve(r->sym, pid, pc, is_return, &sf);
	if (!err)
		err = get_func(r, sf.function, sf.module, sf.resolved, &func);
	if (err)
		return err;
	func_set_source(r, func, sf.decl_file, sf.decl_line);
	if (sf.nr_inlined) {
		inl = calloc(sf.nr_inlined, sizeof(*inl));
		if (!inl)
			return -ENOMEM;
	}
	for (i = 0; i < sf.nr_inlined; i++) {
		const struct dwarf_frame *df = &sf.inlined[i];

		err = get_func(r, df->function, sf.module, true, &inl[i].func);
		if (err) {
			free(inl);
			return err;
		}
		func_set_source(r, inl[i].func, df->decl_file, df->decl_line);
		inl[i].file = df->file;
		inl[i].line = df->line;
	}
	if (array_reserve(&r->locs.v, &r->locs.cap, r->locs.n, sizeof(struct loc)) ||
	    hindex_insert(&r->locs.idx, h, r->locs.n)) {
		free(inl);
		return -ENOMEM;
	}
	l = &T(r->locs, struct loc)[r->locs.n];
	l->pid = pid;
	l->pc = pc;
	l->is_return = is_return;
	l->func = func;
	l->mapping = sf.mapping;
	l->file = sf.file;
	l->line = sf.line;
	l->inl = inl;
	l->nr_inl = sf.nr_inlined;
	*ret = r->locs.n++;
	return 0;
}

/* The function executing at a location: its innermost inlined one. */
static size_t loc_leaf_func(const struct loc *l)
{
	return l->nr_inl ? l->inl[0].func : l->func;
}

static int prepare(struct report *r)
{
	struct stack *stacks = T(r->stacks, struct stack);
	size_t i, func;
	unsigned j;
	int err;

	if (r->prepared)
		return 0;
	unprepare(r);
	/* Function 0 stands for the cut-off part of truncated stacks. */
	err = get_func(r, TRUNCATED_FRAME, NULL, false, &func);
	if (err)
		return err;
	for (i = 0; i < r->stacks.n; i++) {
		struct stack *s = &stacks[i];

		s->locs = calloc(s->nr ? s->nr : 1, sizeof(*s->locs));
		if (!s->locs)
			return -ENOMEM;
		for (j = 0; j < s->nr; j++) {
			err = get_loc(r, s->pid, s->frames[j],
				      symbolizer_frame_is_return(j, s->flags), &s->locs[j]);
			if (err)
				return err;
		}
	}
	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];
		struct func *funcs = T(r->funcs, struct func);
		const struct loc *locs = T(r->locs, struct loc);

		if (s->nr)
			funcs[loc_leaf_func(&locs[s->locs[0]])].self += s->count;
		for (j = 0; j < s->nr; j++) {
			const struct loc *l = &locs[s->locs[j]];
			unsigned k;

			/* Recursion counts once per sample; inlined functions count too. */
			for (k = 0; k <= l->nr_inl; k++) {
				struct func *f = &funcs[k < l->nr_inl ? l->inl[k].func : l->func];

				if (f->stamp != i + 1) {
					f->stamp = i + 1;
					f->total += s->count;
				}
			}
		}
	}
	r->prepared = true;
	return 0;
}

/* ---- text helpers ---- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Control characters (a comm may hold a newline) would break the layout. */
static const char *sanitize(char *buf)
{
	char *p;

	for (p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return buf;
}

/* Copy s into buf, cut to width bytes with ".." (at a UTF-8 boundary). */
static const char *fit(const char *s, size_t width, char *buf, size_t size)
{
	size_t len = strlen(s), cut;

	if (len <= width || width < 3) {
		snprintf(buf, size, "%.*s", (int)(width < len ? width : len), s);
		return sanitize(buf);
	}
	cut = width - 2;
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	snprintf(buf, size, "%.*s..", (int)cut, s);
	return sanitize(buf);
}

/* The same, cutting the start: the end of a path says the most. */
static const char *fit_left(const char *s, size_t width, char *buf, size_t size)
{
	size_t len = strlen(s), start;

	if (len <= width || width < 3)
		return fit(s, width, buf, size);
	start = len - (width - 2);
	while (s[start] && ((unsigned char)s[start] & 0xc0) == 0x80)
		start++;
	snprintf(buf, size, "..%s", s + start);
	return sanitize(buf);
}

static const char *process_name(const struct report *r, uint64_t pid)
{
	const struct name_ent *e = find_name(&r->procs, pid);

	if (e && e->name[0])
		return e->name;
	/* The main thread carries the process name too. */
	e = find_name(&r->tnames, pid);
	return e && e->name[0] ? e->name : NULL;
}

static const char *thread_name(const struct report *r, uint64_t tid)
{
	const struct name_ent *e = find_name(&r->tnames, tid);

	return e && e->name[0] ? e->name : NULL;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- top ---- */

static int func_order(const void *pa, const void *pb, void *ctx)
{
	const struct func *funcs = ctx;
	const struct func *a = &funcs[*(const size_t *)pa], *b = &funcs[*(const size_t *)pb];
	int c;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->module ?: "", b->module ?: "");
}

static int thread_order(const void *pa, const void *pb)
{
	const struct thread_ent *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static void write_header(struct report *r, FILE *out)
{
	size_t procs = 0, i, j;
	const struct thread_ent *threads = T(r->threads, struct thread_ent);
	uint64_t dropped = 0;

	for (i = 0; i < r->threads.n; i++) {
		for (j = 0; j < i; j++)
			if (threads[j].pid == threads[i].pid)
				break;
		procs += j == i;
	}
	fprintf(out, "Samples: %" PRIu64 "  Threads: %zu  Processes: %zu\n", r->samples,
		r->threads.n, procs);
	if (r->time_mode)
		fprintf(out, "Values: ns %s (%" PRIu64 " off-CPU intervals; %.3f s in all)\n",
			r->time_mode == REPORT_OFFCPU ? "off the CPU"
						      : "of wall time: samples x period + off-CPU",
			offcpu_intervals(r->off), r->samples / 1e9);
	if (r->has_pid || r->has_tid) {
		fprintf(out, "Filter:");
		if (r->has_pid)
			fprintf(out, " pid %" PRIu64, r->pid);
		if (r->has_tid)
			fprintf(out, " tid %" PRIu64, r->tid);
		fprintf(out, "\n");
	}
	if (r->truncated)
		fprintf(out, "Truncated stacks: %" PRIu64 " (%.2f%%)\n", r->truncated,
			pct(r->truncated, r->samples));
	for (i = 0; i < r->nr_counters; i++)
		if (!strncmp(r->counters[i].name, "dropped_", 8))
			dropped += r->counters[i].value;
	if (dropped) {
		fprintf(out, "Dropped samples: %" PRIu64 "\n", dropped);
		for (i = 0; i < r->nr_counters; i++)
			if (!strncmp(r->counters[i].name, "dropped_", 8) && r->counters[i].value)
				fprintf(out, "  %s: %" PRIu64 "\n", r->counters[i].name + 8,
					r->counters[i].value);
	}
	if (r->records_dropped)
		fprintf(out, "Warning: the capture lost records (its buffers overflowed)\n");
}

struct failure {
	char *path;
	int err;
};

struct failure_list {
	struct failure *v;
	size_t n, cap;
	int err;
};

static void on_failure(void *ctx, const char *path, int err)
{
	struct failure_list *fl = ctx;
	char *copy;

	if (fl->err)
		return;
	copy = strdup(path);
	if (!copy || array_reserve((void **)&fl->v, &fl->cap, fl->n, sizeof(*fl->v))) {
		free(copy);
		fl->err = -ENOMEM;
		return;
	}
	fl->v[fl->n].path = copy;
	fl->v[fl->n++].err = err;
}

static int failure_order(const void *pa, const void *pb)
{
	return strcmp(((const struct failure *)pa)->path, ((const struct failure *)pb)->path);
}

static const char *failure_reason(int err)
{
	switch (err) {
	case -ESTALE:
		return "build id differs";
	case -ENOENT:
		return "not found";
	case -ENOEXEC:
		return "not an ELF object";
	case -EACCES:
	case -EPERM:
		return "permission denied";
	case -SAFE_OPEN_ENOTREG:
		return "not a regular file";
	default:
		return "unreadable";
	}
}

/* ---- top by source line ---- */

/* One row of `--top --lines`: a function at a line, with its own counts. */
struct line_row {
	size_t func;
	const char *file;
	unsigned line;
	uint64_t self, total;
	size_t stamp;
};

struct line_key {
	size_t func;
	const char *file;
	unsigned line;
};

static bool line_eq(const void *ctx, size_t pos, const void *key)
{
	const struct line_row *l = &T(*(const struct table *)ctx, struct line_row)[pos];
	const struct line_key *k = key;

	return l->func == k->func && l->line == k->line && !strcmp(l->file ?: "", k->file ?: "");
}

static struct line_row *get_line_row(struct table *t, size_t func, const char *file, unsigned line)
{
	struct line_key k = {func, file, line};
	uint64_t h = hash_u64(hash_u64(FNV_INIT, func), line);
	struct line_row *l;
	size_t pos;

	if (file)
		h = fnv1a(h, file, strlen(file));
	if (hindex_find(&t->idx, h, line_eq, t, &k, &pos))
		return &T(*t, struct line_row)[pos];
	if (array_reserve(&t->v, &t->cap, t->n, sizeof(struct line_row)) ||
	    hindex_insert(&t->idx, h, t->n))
		return NULL;
	l = &T(*t, struct line_row)[t->n++];
	memset(l, 0, sizeof(*l));
	l->func = func;
	l->file = file;
	l->line = line;
	return l;
}

/* Self and total samples per (function, file, line), inlined frames included. */
static int count_lines(struct report *r, struct table *rows)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct loc *locs = T(r->locs, struct loc);
	size_t i;
	unsigned j, k;

	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];

		for (j = 0; j < s->nr; j++) {
			const struct loc *l = &locs[s->locs[j]];

			for (k = 0; k <= l->nr_inl; k++) {
				const struct loc_line *ll = k < l->nr_inl ? &l->inl[k] : NULL;
				struct line_row *row = get_line_row(rows, ll ? ll->func : l->func,
								    ll ? ll->file : l->file,
								    ll ? ll->line : l->line);

				if (!row)
					return -ENOMEM;
				if (!j && !k)
					row->self += s->count;
				if (row->stamp != i + 1) {
					row->stamp = i + 1;
					row->total += s->count;
				}
			}
		}
	}
	return 0;
}

struct line_order_ctx {
	const struct line_row *rows;
	const struct func *funcs;
};

static int line_order(const void *pa, const void *pb, void *ctx)
{
	const struct line_order_ctx *c = ctx;
	const struct line_row *a = &c->rows[*(const size_t *)pa],
			      *b = &c->rows[*(const size_t *)pb];
	int d;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	d = strcmp(c->funcs[a->func].name, c->funcs[b->func].name);
	if (d)
		return d;
	d = strcmp(a->file ?: "", b->file ?: "");
	return d ? d : a->line < b->line ? -1 : a->line > b->line;
}

static void func_label(const struct func *f, char *label, size_t size)
{
	if (f->resolved && f->module)
		snprintf(label, size, "%s [%s]", f->name, base_name(f->module));
	else
		snprintf(label, size, "%s", f->name);
}

#define TOP_LABEL_MAX 8192
#define TOP_FIXED_W   35 /* the four count columns and their gaps */

/* Columns left for a name: all of them when the output is not cut to a width. */
static size_t name_width(const struct report *r, size_t fixed)
{
	if (!r->width)
		return TOP_LABEL_MAX - 1;
	return r->width > fixed + 20 ? r->width - fixed : 20;
}

/* The function rows of the top view by source line, name last. */
static int write_top_lines(struct report *r, FILE *out, unsigned n)
{
	const struct func *funcs = T(r->funcs, struct func);
	struct table rows = {};
	struct line_order_ctx c;
	size_t *order = NULL, i, loc_w = 8, shown;
	char label[TOP_LABEL_MAX], buf[TOP_LABEL_MAX], where[PATH_MAX + 16];
	int err;

	err = count_lines(r, &rows);
	if (err)
		goto out;
	order = calloc(rows.n ? rows.n : 1, sizeof(*order));
	if (!order) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < rows.n; i++)
		order[i] = i;
	c.rows = T(rows, struct line_row);
	c.funcs = funcs;
	qsort_r(order, rows.n, sizeof(*order), line_order, &c);
	shown = rows.n < n ? rows.n : n;
	/* The location column is as wide as its widest row. */
	for (i = 0; i < shown; i++) {
		const struct line_row *l = &c.rows[order[i]];
		int w = l->file ? snprintf(where, sizeof(where), "%s:%u", base_name(l->file),
					   l->line)
				: 1;

		if (w > 0 && (size_t)w > loc_w)
			loc_w = (size_t)w;
	}
	fprintf(out, "\n%8s %7s %8s %7s  %-*s  %s\n", "Self", "Self%", "Total", "Total%",
		(int)loc_w, "Location", "Function");
	for (i = 0; i < shown; i++) {
		const struct line_row *l = &c.rows[order[i]];

		if (!l->total)
			break;
		if (l->file)
			snprintf(where, sizeof(where), "%s:%u", base_name(l->file), l->line);
		else
			snprintf(where, sizeof(where), "-");
		func_label(&funcs[l->func], label, sizeof(label));
		fprintf(out, "%8" PRIu64 " %6.2f%% %8" PRIu64 " %6.2f%%  %-*s  %s\n", l->self,
			pct(l->self, r->samples), l->total, pct(l->total, r->samples), (int)loc_w,
			sanitize(where),
			fit(label, name_width(r, TOP_FIXED_W + loc_w + 2), buf, sizeof(buf)));
	}
out:
	free(order);
	table_free(&rows);
	return err;
}

int report_write_top(struct report *r, FILE *out, unsigned n)
{
	const size_t thread_w = 36;
	struct failure_list fl = {};
	struct thread_ent *threads = NULL;
	const struct func *funcs;
	size_t *order = NULL, i, nf;
	char label[TOP_LABEL_MAX], buf[TOP_LABEL_MAX];
	int err;

	err = prepare(r);
	if (err)
		return err;
	if (!n)
		n = r->top ? r->top : REPORT_DEFAULT_TOP;
	funcs = T(r->funcs, struct func);
	nf = r->funcs.n;
	order = calloc(nf ? nf : 1, sizeof(*order));
	threads = calloc(r->threads.n ? r->threads.n : 1, sizeof(*threads));
	if (!order || !threads) {
		err = -ENOMEM;
		goto out;
	}
	write_header(r, out);
	if (!r->samples) {
		fprintf(out, "No samples.\n");
		goto out_check;
	}

	if (r->lines) {
		err = write_top_lines(r, out, n);
		if (err)
			goto out;
	} else {
		for (i = 0; i < nf; i++)
			order[i] = i;
		qsort_r(order, nf, sizeof(*order), func_order, (void *)funcs);
		fprintf(out, "\n%8s %7s %8s %7s  %s\n", "Self", "Self%", "Total", "Total%",
			"Function");
	}
	for (i = 0; !r->lines && i < nf && i < n; i++) {
		const struct func *f = &funcs[order[i]];

		if (!f->total)
			break;
		func_label(f, label, sizeof(label));
		fprintf(out, "%8" PRIu64 " %6.2f%% %8" PRIu64 " %6.2f%%  %s\n", f->self,
			pct(f->self, r->samples), f->total, pct(f->total, r->samples),
			fit(label, name_width(r, TOP_FIXED_W), buf, sizeof(buf)));
	}

	if (r->threads.n)
		memcpy(threads, r->threads.v, r->threads.n * sizeof(*threads));
	qsort(threads, r->threads.n, sizeof(*threads), thread_order);
	fprintf(out, "\n%8s %7s %8s %8s  %s\n", "Samples", "Share", "PID", "TID", "Thread");
	for (i = 0; i < r->threads.n; i++) {
		const struct thread_ent *t = &threads[i];
		const char *tn = thread_name(r, t->tid), *pn = process_name(r, t->pid);

		if (!t->samples)
			continue;
		if (!tn)
			snprintf(label, sizeof(label), "[tid %" PRIu64 "]", t->tid);
		else if (pn && strcmp(pn, tn))
			snprintf(label, sizeof(label), "%s (%s)", tn, pn);
		else
			snprintf(label, sizeof(label), "%s", tn);
		fprintf(out, "%8" PRIu64 " %6.2f%% %8" PRIu64 " %8" PRIu64 "  %s\n", t->samples,
			pct(t->samples, r->samples), t->pid, t->tid,
			fit(label, name_width(r, thread_w), buf, sizeof(buf)));
	}

	symbolizer_for_each_failure(r->sym, on_failure, &fl);
	err = fl.err;
	if (!err && fl.n) {
		qsort(fl.v, fl.n, sizeof(*fl.v), failure_order);
		fprintf(out, "\nNot symbolized:\n");
		for (i = 0; i < fl.n; i++)
			fprintf(out, "  %-17s  %s\n", failure_reason(fl.v[i].err),
				fit_left(fl.v[i].path, name_width(r, 21), buf, sizeof(buf)));
	}
out_check:
	if (!err && ferror(out))
		err = -EIO;
out:
	for (i = 0; i < fl.n; i++)
		free(fl.v[i].path);
	free(fl.v);
	free(order);
	free(threads);
	return err;
}

/* ---- folded ---- */

struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *tmp;

		while (cap < b->len + n + 1)
			cap *= 2;
		tmp = realloc(b->s, cap);
		if (!tmp) {
			b->err = -ENOMEM;
			return;
		}
		b->s = tmp;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* One folded frame: ';' separates frames, a newline ends the line, a tab splits it. */
static void sb_frame(struct sbuf *b, const char *s)
{
	size_t start = b->len, i;

	sb_put(b, s, strlen(s));
	if (b->err)
		return;
	for (i = start; i < b->len; i++) {
		if (b->s[i] == ';')
			b->s[i] = ':';
		else if ((unsigned char)b->s[i] < 0x20 || b->s[i] == 0x7f)
			b->s[i] = '?';
	}
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static const char *process_cmdline(const struct report *r, uint64_t pid)
{
	const struct name_ent *e = find_name(&r->procs, pid);

	return e ? e->cmdline : NULL;
}

/*
 * The labels of a stack root first: process, thread (unless left out),
 * "[truncated]" when the walk was cut, then the frames outermost first.
 * Writes them into b separated by NULs; returns their number.
 */
static size_t stack_path(const struct report *r, const struct stack *s, struct sbuf *b)
{
	const struct func *funcs = T(r->funcs, struct func);
	const struct loc *locs = T(r->locs, struct loc);
	const char *name;
	size_t n = 0;
	unsigned j;

	b->len = 0;
	name = process_cmdline(r, s->pid);
	if (!name)
		name = process_name(r, s->pid);
	if (name)
		sb_frame(b, name);
	else
		sb_printf(b, "[pid %" PRIu64 "]", s->pid);
	sb_put(b, "", 1);
	n++;
	if (!r->folded_no_thread) {
		name = thread_name(r, s->tid);
		if (name) {
			sb_frame(b, name);
			/* Threads that share a name stay apart unless asked. */
			if (!r->merge_threads)
				sb_printf(b, "-%" PRIu64, s->tid);
		} else {
			sb_printf(b, "[tid %" PRIu64 "]", s->tid);
		}
		sb_put(b, "", 1);
		n++;
	}
	if (s->flags & FXT_BT_FLAG_TRUNCATED) {
		sb_put(b, TRUNCATED_FRAME, sizeof(TRUNCATED_FRAME));
		n++;
	}
	for (j = s->nr; j-- > 0;) {
		const struct loc *l = &locs[s->locs[j]];
		unsigned k;

		sb_frame(b, funcs[l->func].name);
		sb_put(b, "", 1);
		n++;
		/* Then what was inlined into it, outermost first, marked. */
		for (k = l->nr_inl; k-- > 0;) {
			sb_frame(b, funcs[l->inl[k].func].name);
			sb_put(b, INLINED_SUFFIX, sizeof(INLINED_SUFFIX));
			n++;
		}
	}
	return n;
}

struct folded_line {
	char *text;
	uint64_t count;
};

static int folded_order(const void *pa, const void *pb)
{
	return strcmp(((const struct folded_line *)pa)->text,
		      ((const struct folded_line *)pb)->text);
}

int report_write_folded(struct report *r, FILE *out)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	struct folded_line *lines = NULL;
	struct sbuf b = {};
	size_t i, k, n = 0;
	int err;

	err = prepare(r);
	if (err)
		return err;
	lines = calloc(r->stacks.n ? r->stacks.n : 1, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	for (i = 0; i < r->stacks.n; i++) {
		size_t nr = stack_path(r, &stacks[i], &b);

		if (b.err) {
			err = b.err;
			goto out;
		}
		/* The NULs between the labels become ';'. */
		for (k = 0; nr && k + 1 < b.len; k++)
			if (!b.s[k])
				b.s[k] = ';';
		lines[n].text = strdup(b.s);
		if (!lines[n].text) {
			err = -ENOMEM;
			goto out;
		}
		lines[n++].count = stacks[i].count;
	}
	qsort(lines, n, sizeof(*lines), folded_order);
	/* Different pcs in the same functions fold into one line. */
	for (i = 0; i < n; i = k) {
		uint64_t count = 0;

		for (k = i; k < n && !strcmp(lines[k].text, lines[i].text); k++)
			count += lines[k].count;
		fprintf(out, "%s %" PRIu64 "\n", lines[i].text, count);
	}
	if (ferror(out))
		err = -EIO;
out:
	for (i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
	free(b.s);
	return err;
}

/* ---- pprof: profile.proto by hand ---- */

struct pbuf {
	uint8_t *data;
	size_t len, cap;
	int err;
};

static void pb_bytes(struct pbuf *b, const void *p, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *tmp;

		while (cap < b->len + n)
			cap *= 2;
		tmp = realloc(b->data, cap);
		if (!tmp) {
			b->err = -ENOMEM;
			return;
		}
		b->data = tmp;
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_bytes(b, tmp, n);
}

#define PB_VARINT 0
#define PB_LEN	  2

static void pb_tag(struct pbuf *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; proto3 leaves zeros out. */
static void pb_uint(struct pbuf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

static void pb_len(struct pbuf *b, unsigned field, const void *p, size_t n)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, n);
	pb_bytes(b, p, n);
}

static void pb_msg(struct pbuf *b, unsigned field, struct pbuf *sub)
{
	if (sub->err && !b->err)
		b->err = sub->err;
	pb_len(b, field, sub->data, sub->len);
	sub->len = 0;
}

/* The string table: index 0 is "". Strings are copied. */
struct strtab {
	char **v;
	size_t n, cap;
	struct hindex idx;
	int err;
};

static bool str_eq(const void *ctx, size_t pos, const void *key)
{
	return !strcmp(((const struct strtab *)ctx)->v[pos], key);
}

static uint64_t str_index(struct strtab *t, const char *s)
{
	uint64_t h = fnv1a(FNV_INIT, s, strlen(s));
	size_t pos;
	char *copy;

	if (t->err)
		return 0;
	if (hindex_find(&t->idx, h, str_eq, t, s, &pos))
		return pos;
	copy = strdup(s);
	if (!copy || array_reserve((void **)&t->v, &t->cap, t->n, sizeof(*t->v)) ||
	    hindex_insert(&t->idx, h, t->n)) {
		free(copy);
		t->err = -ENOMEM;
		return 0;
	}
	t->v[t->n] = copy;
	return t->n++;
}

static void strtab_free(struct strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	hindex_free(&t->idx);
}

static uint64_t ticks_to_ns(const struct report *r, uint64_t ticks)
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
static uint64_t period_ns(struct report *r)
{
	if (r->period_ns)
		return r->period_ns;
	/* A capture with off-CPU intervals says it (and its gaps are no period). */
	if (offcpu_period_ns(r->off))
		return offcpu_period_ns(r->off);
	if (!r->nr_deltas)
		return 0;
	qsort(r->deltas, r->nr_deltas, sizeof(*r->deltas), u64_order);
	return ticks_to_ns(r, r->deltas[r->nr_deltas / 2]);
}

/* Mappings with the same contents (forked processes, one binary) are one pprof mapping. */
static int mapping_content_order(const void *pa, const void *pb)
{
	const struct symbolizer_mapping *a = *(const struct symbolizer_mapping *const *)pa;
	const struct symbolizer_mapping *b = *(const struct symbolizer_mapping *const *)pb;
	int c;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	if (a->file_offset != b->file_offset)
		return a->file_offset < b->file_offset ? -1 : 1;
	c = strcmp(a->path ?: "", b->path ?: "");
	if (c)
		return c;
	if (a->build_id_len != b->build_id_len)
		return a->build_id_len < b->build_id_len ? -1 : 1;
	c = a->build_id_len ? memcmp(a->build_id, b->build_id, a->build_id_len) : 0;
	if (c)
		return c;
	return strcmp(a->go_build_id ?: "", b->go_build_id ?: "");
}

/*
 * What pprof calls a location: one address in one mapping, resolved to one
 * function. loc is the first report loc of it (its inline chain and lines are
 * those of every equal one: same contents, same address); SIZE_MAX for the
 * cut-off marker.
 */
struct ploc_key {
	uint64_t mapping, address;
	size_t func;
	size_t loc;
};

struct ptables {
	/* pprof ids: 0 for none */
	uint64_t *map_of_sym;			/* by symbolizer mapping id */
	const struct symbolizer_mapping **maps; /* pprof mapping id - 1 -> one of its mappings */
	size_t nr_maps;
	uint64_t *loc_of;	/* by report loc */
	struct ploc_key *plocs; /* pprof location id - 1 */
	size_t nr_plocs, cap_plocs;
	struct hindex ploc_idx;
	uint64_t *func_of; /* by report func */
	size_t *funcs;	   /* pprof function id - 1 -> report func */
	size_t nr_funcs;
	uint64_t truncated_loc; /* the "[truncated]" location, when a stack uses it */
};

static void ptables_free(struct ptables *t)
{
	free(t->map_of_sym);
	free(t->maps);
	free(t->loc_of);
	free(t->plocs);
	hindex_free(&t->ploc_idx);
	free(t->func_of);
	free(t->funcs);
}

static bool ploc_eq(const void *ctx, size_t pos, const void *key)
{
	const struct ploc_key *a = &((const struct ptables *)ctx)->plocs[pos], *b = key;

	return a->mapping == b->mapping && a->address == b->address && a->func == b->func;
}

static uint64_t pfunc(struct ptables *t, size_t func)
{
	if (!t->func_of[func]) {
		t->funcs[t->nr_funcs] = func;
		t->func_of[func] = ++t->nr_funcs;
	}
	return t->func_of[func];
}

static int ploc(struct ptables *t, const struct loc *locs, uint64_t mapping, uint64_t address,
		size_t func, size_t loc, uint64_t *ret)
{
	struct ploc_key k = {mapping, address, func, loc};
	unsigned j;
	uint64_t h = hash_u64(hash_u64(hash_u64(FNV_INIT, mapping), address), func);
	size_t pos;

	if (hindex_find(&t->ploc_idx, h, ploc_eq, t, &k, &pos)) {
		*ret = pos + 1;
		return 0;
	}
	if (array_reserve((void **)&t->plocs, &t->cap_plocs, t->nr_plocs, sizeof(*t->plocs)) ||
	    hindex_insert(&t->ploc_idx, h, t->nr_plocs))
		return -ENOMEM;
	t->plocs[t->nr_plocs++] = k;
	if (loc != SIZE_MAX)
		for (j = 0; j < locs[loc].nr_inl; j++)
			pfunc(t, locs[loc].inl[j].func);
	pfunc(t, func);
	*ret = t->nr_plocs;
	return 0;
}

/*
 * Number the pprof tables from the report's: only what the samples use, each
 * distinct mapping, location and function once.
 */
static int build_ptables(struct report *r, struct ptables *t)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct loc *locs = T(r->locs, struct loc);
	const struct symbolizer_mapping **sorted = NULL;
	size_t i, n = 0, max_id = 0;
	unsigned j;
	int err = 0;

	for (i = 0; i < r->locs.n; i++)
		if (locs[i].mapping && locs[i].mapping->id > max_id)
			max_id = locs[i].mapping->id;
	t->map_of_sym = calloc(max_id + 1, sizeof(*t->map_of_sym));
	sorted = calloc(r->locs.n + 1, sizeof(*sorted));
	t->maps = calloc(r->locs.n + 1, sizeof(*t->maps));
	t->loc_of = calloc(r->locs.n + 1, sizeof(*t->loc_of));
	t->func_of = calloc(r->funcs.n + 1, sizeof(*t->func_of));
	t->funcs = calloc(r->funcs.n + 1, sizeof(*t->funcs));
	if (!t->map_of_sym || !sorted || !t->maps || !t->loc_of || !t->func_of || !t->funcs) {
		err = -ENOMEM;
		goto out;
	}
	/* Mappings: one entry per symbolizer mapping, then runs of equal contents. */
	for (i = 0; i < r->locs.n; i++) {
		const struct symbolizer_mapping *mp = locs[i].mapping;

		if (mp && !t->map_of_sym[mp->id]) {
			t->map_of_sym[mp->id] = 1;
			sorted[n++] = mp;
		}
	}
	qsort(sorted, n, sizeof(*sorted), mapping_content_order);
	for (i = 0; i < n; i++) {
		if (!i || mapping_content_order(&sorted[i - 1], &sorted[i]))
			t->maps[t->nr_maps++] = sorted[i];
		t->map_of_sym[sorted[i]->id] = t->nr_maps;
	}
	/* Locations and functions in the order the samples first use them. */
	for (i = 0; i < r->stacks.n && !err; i++) {
		const struct stack *s = &stacks[i];

		for (j = 0; j < s->nr && !err; j++) {
			const struct loc *l = &locs[s->locs[j]];

			if (t->loc_of[s->locs[j]])
				continue;
			err = ploc(t, locs, l->mapping ? t->map_of_sym[l->mapping->id] : 0, l->pc,
				   l->func, s->locs[j], &t->loc_of[s->locs[j]]);
		}
		/* Function 0 is the cut-off marker (prepare()). */
		if (!err && (s->flags & FXT_BT_FLAG_TRUNCATED) && !t->truncated_loc)
			err = ploc(t, locs, 0, 0, 0, SIZE_MAX, &t->truncated_loc);
	}
out:
	free(sorted);
	return err;
}

/* A label: a string (str) or a number (num) under key. */
static void pb_label(struct pbuf *p, struct pbuf *sub, uint64_t key, uint64_t str, uint64_t num)
{
	pb_uint(sub, 1, key);
	pb_uint(sub, 2, str);
	pb_uint(sub, 3, num);
	pb_msg(p, 3, sub);
}

static int encode_profile(struct report *r, struct pbuf *p)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct loc *locs = T(r->locs, struct loc);
	const struct func *funcs = T(r->funcs, struct func);
	struct pbuf m = {}, sub = {}, packed = {};
	struct ptables t = {};
	struct strtab st = {};
	size_t i;
	uint64_t key_pid, key_tid, key_thread, key_process, period, start, stop;
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	unsigned j;
	int err = 0;

	err = build_ptables(r, &t);
	if (err)
		goto out;
	period = period_ns(r);
	str_index(&st, "");
	/*
	 * sample_type = 1: as Go's CPU profiles, samples/count and
	 * cpu/nanoseconds; off-cpu/nanoseconds or wall/nanoseconds alone in those
	 * views, whose counts are ns already.
	 */
	if (r->time_mode) {
		pb_uint(&sub, 1,
			str_index(&st, r->time_mode == REPORT_OFFCPU ? "off-cpu" : "wall"));
		pb_uint(&sub, 2, str_index(&st, "nanoseconds"));
		pb_msg(p, 1, &sub);
	} else {
		pb_uint(&sub, 1, str_index(&st, "samples"));
		pb_uint(&sub, 2, str_index(&st, "count"));
		pb_msg(p, 1, &sub);
		pb_uint(&sub, 1, str_index(&st, "cpu"));
		pb_uint(&sub, 2, str_index(&st, "nanoseconds"));
		pb_msg(p, 1, &sub);
	}

	/* sample = 2: location ids leaf first, the cut-off marker outermost. */
	key_pid = str_index(&st, "pid");
	key_tid = str_index(&st, "tid");
	key_thread = str_index(&st, "thread");
	key_process = str_index(&st, "process");
	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];
		const char *tn = thread_name(r, s->tid), *pn = process_name(r, s->pid);

		for (j = 0; j < s->nr; j++)
			pb_varint(&packed, t.loc_of[s->locs[j]]);
		if (s->flags & FXT_BT_FLAG_TRUNCATED)
			pb_varint(&packed, t.truncated_loc);
		pb_msg(&m, 1, &packed);
		pb_varint(&packed, s->count);
		if (!r->time_mode)
			pb_varint(&packed, s->count * period);
		pb_msg(&m, 2, &packed);
		if (tn)
			pb_label(&m, &sub, key_thread, str_index(&st, tn), 0);
		if (pn)
			pb_label(&m, &sub, key_process, str_index(&st, pn), 0);
		pb_label(&m, &sub, key_pid, 0, s->pid);
		pb_label(&m, &sub, key_tid, 0, s->tid);
		pb_msg(p, 2, &m);
	}

	/* mapping = 3 */
	for (i = 0; i < t.nr_maps; i++) {
		const struct symbolizer_mapping *mp = t.maps[i];

		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, mp->start);
		pb_uint(&m, 3, mp->start + mp->size);
		pb_uint(&m, 4, mp->file_offset);
		pb_uint(&m, 5, str_index(&st, mp->path ?: ""));
		/* The GNU build id, else Go's (go tool pprof takes either). */
		if (mp->build_id_len)
			pb_uint(&m, 6,
				str_index(&st, elf_build_id_hex(mp->build_id, mp->build_id_len, hex,
								sizeof(hex))));
		else if (mp->go_build_id)
			pb_uint(&m, 6, str_index(&st, mp->go_build_id));
		/* Every location carries its function: pprof must not symbolize again. */
		pb_uint(&m, 7, 1);
		pb_msg(p, 3, &m);
	}

	/* location = 4 */
	for (i = 0; i < t.nr_plocs; i++) {
		const struct ploc_key *k = &t.plocs[i];
		const struct loc *l = k->loc == SIZE_MAX ? NULL : &locs[k->loc];

		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, k->mapping);
		pb_uint(&m, 3, k->address);
		/* line = 4: the inlined functions innermost first, then the one they are in. */
		for (j = 0; l && j < l->nr_inl; j++) {
			pb_uint(&sub, 1, t.func_of[l->inl[j].func]);
			pb_uint(&sub, 2, l->inl[j].line);
			pb_msg(&m, 4, &sub);
		}
		pb_uint(&sub, 1, t.func_of[k->func]);
		pb_uint(&sub, 2, l ? l->line : 0);
		pb_msg(&m, 4, &sub);
		pb_msg(p, 4, &m);
	}

	/* function = 5 */
	for (i = 0; i < t.nr_funcs; i++) {
		const struct func *f = &funcs[t.funcs[i]];
		uint64_t name = str_index(&st, f->name);

		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, name);
		pb_uint(&m, 3, name);
		/* filename = 4, start_line = 5: the source when DWARF gave it. */
		pb_uint(&m, 4, str_index(&st, f->file ?: f->module ?: ""));
		pb_uint(&m, 5, f->start_line);
		pb_msg(p, 5, &m);
	}

	/*
	 * time_nanos = 9, duration_nanos = 10: the capture's, when the file has
	 * its clock record, else from its first to its last sample.
	 */
	start = r->have_clock ? r->clock_start_boot_ns : ticks_to_ns(r, r->first_ts);
	stop = r->have_clock ? r->clock_stop_boot_ns : ticks_to_ns(r, r->last_ts);
	if (r->have_clock)
		pb_uint(p, 9, r->clock_start_real_ns);
	if ((r->have_clock || r->have_ts) && stop > start)
		pb_uint(p, 10, stop - start);
	/* period_type = 11, period = 12 */
	pb_uint(&sub, 1, str_index(&st, "cpu"));
	pb_uint(&sub, 2, str_index(&st, "nanoseconds"));
	pb_msg(p, 11, &sub);
	pb_uint(p, 12, period);

	/* string_table = 6, last: every string is known by now. */
	err = st.err;
	for (i = 0; !err && i < st.n; i++)
		pb_len(p, 6, st.v[i], strlen(st.v[i]));
	if (!err)
		err = m.err ? m.err : sub.err ? sub.err : packed.err ? packed.err : p->err;
out:
	ptables_free(&t);
	free(m.data);
	free(sub.data);
	free(packed.data);
	strtab_free(&st);
	return err;
}

static int gzip_to(FILE *out, const uint8_t *data, size_t len)
{
	unsigned char chunk[65536];
	z_stream zs = {};
	int zerr, err = 0;

	/* windowBits 15 + 16: a gzip wrapper, which pprof expects. */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)len;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zerr = deflate(&zs, Z_FINISH);
		if (zerr == Z_STREAM_ERROR) {
			err = -EIO;
			break;
		}
		if (fwrite(chunk, 1, sizeof(chunk) - zs.avail_out, out) !=
		    sizeof(chunk) - zs.avail_out) {
			err = -EIO;
			break;
		}
	} while (zerr != Z_STREAM_END);
	deflateEnd(&zs);
	return err;
}

int report_write_pprof(struct report *r, FILE *out)
{
	struct pbuf p = {};
	int err;

	err = prepare(r);
	if (!err)
		err = encode_profile(r, &p);
	/* uInt counts the input: a profile past 4 GiB is not worth supporting. */
	if (!err && p.len > UINT32_MAX)
		err = -EFBIG;
	if (!err)
		err = gzip_to(out, p.data, p.len);
	if (!err && ferror(out))
		err = -EIO;
	free(p.data);
	return err;
}

/* ---- perf script ---- */

#define NSEC_PER_SEC ((uint64_t)1000000000)

static int sample_order(const void *pa, const void *pb)
{
	const struct sample *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* Text for one field of a perf script line: no control characters, never empty. */
static void perf_field(FILE *out, const char *s, bool spaces)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!*p) {
		fputs("[unknown]", out);
		return;
	}
	for (; *p; p++) {
		/* A comm starting with a blank would not parse; a module path has none. */
		if (*p < 0x20 || *p == 0x7f || (*p == ' ' && (!spaces || p == (const void *)s)))
			fputc('?', out);
		else
			fputc(*p, out);
	}
}

int report_write_perf_script(struct report *r, FILE *out)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct func *funcs;
	const struct loc *locs;
	uint64_t period;
	size_t i;
	unsigned j;
	int err;

	if (!r->keep_samples)
		return -EINVAL;
	err = prepare(r);
	if (err)
		return err;
	funcs = T(r->funcs, struct func);
	locs = T(r->locs, struct loc);
	period = period_ns(r);
	qsort(r->samples_v, r->nr_samples, sizeof(*r->samples_v), sample_order);
	for (i = 0; i < r->nr_samples; i++) {
		const struct stack *s = &stacks[r->samples_v[i].stack];
		const char *comm = thread_name(r, s->tid);
		uint64_t ns = ticks_to_ns(r, r->samples_v[i].ts);

		if (!comm)
			comm = process_name(r, s->pid);
		perf_field(out, comm ? comm : "", true);
		fprintf(out,
			" %" PRIu64 "/%" PRIu64 " %" PRIu64 ".%09" PRIu64 ": %" PRIu64
			" cpu-clock:\n",
			s->pid, s->tid, ns / NSEC_PER_SEC, ns % NSEC_PER_SEC, period);
		for (j = 0; j < s->nr; j++) {
			const struct loc *l = &locs[s->locs[j]];
			const struct func *f = &funcs[l->func];

			fprintf(out, "\t%16" PRIx64 " ", l->pc);
			perf_field(out, f->name, true);
			fputs(" (", out);
			perf_field(out, f->module ? f->module : "", false);
			fputs(")\n", out);
		}
		if (s->flags & FXT_BT_FLAG_TRUNCATED)
			fprintf(out, "\t%16x %s ([unknown])\n", 0, TRUNCATED_FRAME);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- flame graph SVG ---- */

enum node_kind {
	NODE_ROOT,
	NODE_PROCESS,
	NODE_THREAD,
	NODE_SPECIAL,
	NODE_FUNC,
	NODE_INLINED,
	NODE_UNRESOLVED,
};

struct node {
	char *label;
	enum node_kind kind;
	uint64_t count;
	struct node *children;
	size_t nr, cap;
};

static void node_free(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		node_free(&n->children[i]);
	free(n->children);
	free(n->label);
}

static struct node *node_child(struct node *n, const char *label, enum node_kind kind)
{
	struct node *c;
	size_t i;

	/* The last child is the likeliest: stacks of one thread come together. */
	for (i = n->nr; i-- > 0;)
		if (!strcmp(n->children[i].label, label))
			return &n->children[i];
	if (array_reserve((void **)&n->children, &n->cap, n->nr, sizeof(*n->children)))
		return NULL;
	c = &n->children[n->nr];
	memset(c, 0, sizeof(*c));
	c->label = strdup(label);
	if (!c->label)
		return NULL;
	c->kind = kind;
	n->nr++;
	return c;
}

static int node_order(const void *pa, const void *pb)
{
	return strcmp(((const struct node *)pa)->label, ((const struct node *)pb)->label);
}

static unsigned node_depth(struct node *n)
{
	unsigned d = 0, c;
	size_t i;

	if (n->nr)
		qsort(n->children, n->nr, sizeof(*n->children), node_order);
	for (i = 0; i < n->nr; i++) {
		c = node_depth(&n->children[i]);
		if (c > d)
			d = c;
	}
	return d + 1;
}

static int build_tree(struct report *r, struct node *root)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct func *funcs = T(r->funcs, struct func);
	const struct loc *locs = T(r->locs, struct loc);
	struct sbuf b = {};
	size_t i, k, nr;
	int err = 0;

	root->label = strdup("all");
	if (!root->label)
		return -ENOMEM;
	root->kind = NODE_ROOT;
	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];
		struct node *n = root;
		const char *label;
		size_t fixed = 1 + !r->folded_no_thread + !!(s->flags & FXT_BT_FLAG_TRUNCATED);
		unsigned j = s->nr, ki = 0;

		nr = stack_path(r, s, &b);
		if (b.err) {
			err = b.err;
			break;
		}
		root->count += s->count;
		for (k = 0, label = b.s; k < nr; k++, label += strlen(label) + 1) {
			enum node_kind kind;

			if (k == 0)
				kind = NODE_PROCESS;
			else if (k == 1 && !r->folded_no_thread)
				kind = NODE_THREAD;
			else if (k < fixed)
				kind = NODE_SPECIAL;
			else if (ki) {
				/* stack_path's order: a frame, then its inlined ones. */
				ki--;
				kind = NODE_INLINED;
			} else {
				const struct loc *l = &locs[s->locs[--j]];
				const struct func *f = &funcs[l->func];

				kind = f->resolved ? NODE_FUNC
				       : f->module ? NODE_UNRESOLVED
						   : NODE_SPECIAL;
				ki = l->nr_inl;
			}
			n = node_child(n, label, kind);
			if (!n) {
				err = -ENOMEM;
				goto out;
			}
			n->count += s->count;
		}
	}
out:
	free(b.s);
	return err;
}

/* XML-escape s; bytes that are not valid UTF-8 or control characters become '?'. */
static void xml_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned char c = *p;
		size_t len = 0, i;

		if (c < 0x80)
			len = 1;
		else if ((c & 0xe0) == 0xc0 && c >= 0xc2)
			len = 2;
		else if ((c & 0xf0) == 0xe0)
			len = 3;
		else if ((c & 0xf8) == 0xf0 && c <= 0xf4)
			len = 4;
		for (i = 1; i < len; i++)
			if ((p[i] & 0xc0) != 0x80)
				len = 0;
		if (!len || (len == 1 && c < 0x20 && c != '\t')) {
			fputc('?', out);
			p++;
			continue;
		}
		switch (c) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fwrite(p, 1, len, out);
		}
		p += len;
	}
}

#define SVG_WIDTH   1200
#define SVG_PAD	    10
#define SVG_FRAME_H 16
#define SVG_HEADER  36
#define SVG_FOOTER  26 /* room for the details line */
#define SVG_FONT    12
#define SVG_CHAR_W  7.2 /* monospace at 12px: 0.6 em */
#define SVG_MIN_W   0.1 /* narrower frames are not drawn */
/*
 * Siblings narrower than a pixel are drawn as one frame, as flamegraph.pl
 * does, so that 100k distinct stacks still make a file of a few MB.
 */
#define SVG_MERGE_W 1.0

struct svg {
	FILE *out;
	uint64_t total;
	double scale; /* pixels per sample */
	unsigned height;
	bool inverted;	  /* an icicle: the root on top */
	const char *unit; /* what a count is: ns; NULL: samples */
};

static void node_color(const struct node *n, unsigned *r, unsigned *g, unsigned *b)
{
	uint64_t h = fnv1a(FNV_INIT, n->label, strlen(n->label));

	switch (n->kind) {
	case NODE_ROOT:
	case NODE_SPECIAL:
		*r = *g = *b = 160 + (unsigned)(h % 40);
		break;
	case NODE_PROCESS:
	case NODE_THREAD:
		*r = 80 + (unsigned)(h % 60);
		*g = 160 + (unsigned)((h >> 8) % 60);
		*b = 200 + (unsigned)((h >> 16) % 55);
		break;
	case NODE_INLINED:
		*r = 60 + (unsigned)(h % 60);
		*g = 180 + (unsigned)((h >> 8) % 50);
		*b = 150 + (unsigned)((h >> 16) % 50);
		break;
	case NODE_UNRESOLVED:
		*r = 200 + (unsigned)(h % 55);
		*g = 150 + (unsigned)((h >> 8) % 50);
		*b = 150 + (unsigned)((h >> 16) % 50);
		break;
	default:
		/* flamegraph.pl's "hot" palette. */
		*r = 205 + (unsigned)(h % 50);
		*g = (unsigned)((h >> 8) % 230);
		*b = (unsigned)((h >> 16) % 55);
	}
}

static const char *svg_unit(const struct svg *s, uint64_t count)
{
	return s->unit ? s->unit : count == 1 ? "sample" : "samples";
}

static void svg_frame(struct svg *s, const char *label, enum node_kind kind, uint64_t count,
		      uint64_t offset, unsigned depth)
{
	double x = SVG_PAD + (double)offset * s->scale, w = (double)count * s->scale;
	double y = s->inverted ? SVG_HEADER + (double)depth * SVG_FRAME_H
			       : s->height - SVG_FOOTER - (double)(depth + 1) * SVG_FRAME_H;
	struct node tmp = {.label = (char *)label, .kind = kind};
	unsigned r, g, b;
	size_t chars;

	node_color(&tmp, &r, &g, &b);
	fputs("<g><title>", s->out);
	xml_text(s->out, label);
	fprintf(s->out, " (%" PRIu64 " %s, %.2f%%)</title>", count, svg_unit(s, count),
		pct(count, s->total));
	fprintf(s->out,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\" "
		"rx=\"2\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\"/>",
		x, y, w, SVG_FRAME_H - 1, r, g, b, offset, count);
	chars = (size_t)((w - 6) / SVG_CHAR_W);
	if (chars >= 3) {
		char buf[512];

		fprintf(s->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + SVG_FRAME_H - 4.5);
		xml_text(s->out, fit(label, chars < sizeof(buf) - 1 ? chars : sizeof(buf) - 1, buf,
				     sizeof(buf)));
		fputs("</text>", s->out);
	}
	fputs("</g>\n", s->out);
}

static void svg_node(struct svg *s, const struct node *n, uint64_t offset, unsigned depth)
{
	uint64_t off = offset, run_off = 0, run_count = 0;
	size_t i, run_nr = 0;

	if ((double)n->count * s->scale < SVG_MIN_W)
		return;
	svg_frame(s, n->label, n->kind, n->count, offset, depth);
	for (i = 0; i <= n->nr; i++) {
		const struct node *c = i < n->nr ? &n->children[i] : NULL;
		bool narrow = c && (double)c->count * s->scale < SVG_MERGE_W;

		/* A run of narrow siblings ends: one frame for all of them. */
		if (!narrow && run_nr > 1 && (double)run_count * s->scale >= SVG_MIN_W) {
			char label[64];

			snprintf(label, sizeof(label), "[%zu frames, each under a pixel]", run_nr);
			svg_frame(s, label, NODE_SPECIAL, run_count, run_off, depth + 1);
		} else if (!narrow && run_nr == 1) {
			svg_node(s, &n->children[i - 1], run_off, depth + 1);
		}
		if (!c)
			break;
		if (narrow) {
			if (!run_nr++) {
				run_off = off;
				run_count = 0;
			}
			run_count += c->count;
		} else {
			run_nr = 0;
			svg_node(s, c, off, depth + 1);
		}
		off += c->count;
	}
}

int report_write_svg(struct report *r, FILE *out)
{
	struct node root = {};
	struct svg s = {
		.out = out, .inverted = r->svg_inverted, .unit = r->time_mode ? "ns" : NULL};
	unsigned depth;
	int err;

	err = prepare(r);
	if (!err)
		err = build_tree(r, &root);
	if (err)
		goto out;
	depth = node_depth(&root);
	s.total = root.count;
	s.scale = root.count ? (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)root.count : 0;
	s.height = SVG_HEADER + depth * SVG_FRAME_H + SVG_FOOTER;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-width=\"%d\" data-pad=\"%d\" "
		"data-char-w=\"%.1f\" data-frame-h=\"%d\" data-total=\"%" PRIu64 "\">\n"
		"<style>text { font-family: monospace; font-size: %dpx; fill: #000; "
		"pointer-events: none; }\n"
		"g:hover rect { stroke: #000; stroke-width: 1; } g { cursor: pointer; }\n"
		".zp rect { opacity: 0.55; } .hide { display: none; }\n"
		"text.btn { fill: #1f4e9c; pointer-events: all; cursor: pointer; "
		"text-decoration: underline; }\n"
		"#details, #matched { font-size: 13px; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"#f8f8f8\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">"
		"fxsampler: %" PRIu64 " %s%s</text>\n"
		"<text id=\"unzoom\" class=\"btn hide\" x=\"%d\" y=\"24\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\" text-anchor=\"end\">"
		"Search</text>\n"
		"<text id=\"clear\" class=\"btn hide\" x=\"%d\" y=\"24\" text-anchor=\"end\">"
		"Clear</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%u\" text-anchor=\"end\"></text>\n",
		SVG_WIDTH, s.height, SVG_WIDTH, s.height, SVG_WIDTH, SVG_PAD, SVG_CHAR_W,
		SVG_FRAME_H, root.count, SVG_FONT, SVG_WIDTH, s.height, SVG_WIDTH / 2, root.count,
		svg_unit(&s, root.count), s.inverted ? " (inverted)" : "", SVG_PAD,
		SVG_WIDTH - SVG_PAD, SVG_WIDTH - SVG_PAD - 70, SVG_PAD, s.height - 9,
		SVG_WIDTH - SVG_PAD, s.height - 9);
	if (root.count)
		svg_node(&s, &root, 0, 0);
	fputs(report_svg_script, out);
	fputs("</svg>\n", out);
	if (ferror(out))
		err = -EIO;
out:
	node_free(&root);
	return err;
}

/* ---- the whole command ---- */

static void fail_msg(const struct report_opts *opts, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fail_msg(const struct report_opts *opts, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (opts && opts->errbuf && opts->errbuf_size) {
		vsnprintf(opts->errbuf, opts->errbuf_size, fmt, ap);
	} else {
		fputs("fxsampler: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

typedef int (*write_fn)(struct report *r, FILE *out);

/*
 * An output file, made before any work so that a bad path fails at once
 * (outfile.h: a failed report leaves the old file; a device or a FIFO is
 * written through). f writes to a dup of its fd.
 */
struct out_file {
	const char *path;
	const char *what;
	write_fn fn;
	struct outfile of;
	FILE *f;
};

static int out_open(struct out_file *o, const struct report_opts *opts)
{
	int fd, err;

	err = outfile_open(&o->of, o->path, 0);
	if (err) {
		fail_msg(opts, "cannot create '%s': %s", o->path, outfile_strerror(&o->of, err));
		return err;
	}
	fd = dup(o->of.fd);
	o->f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!o->f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		outfile_abort(&o->of);
		fail_msg(opts, "cannot create '%s': %s", o->path, strerror(-err));
		return err;
	}
	return 0;
}

static void on_skipped(void *ctx, const char *path, int err)
{
	if (err == -SAFE_OPEN_ENOTREG)
		on_failure(ctx, path, err);
}

/*
 * One warning per module path that is not a regular file (a FIFO, a device,
 * a socket): it was skipped without being opened for real.
 */
static void warn_skipped(struct report *r)
{
	struct failure_list fl = {};
	const char *type;
	size_t i;

	symbolizer_for_each_failure(r->sym, on_skipped, &fl);
	if (fl.n)
		qsort(fl.v, fl.n, sizeof(*fl.v), failure_order);
	for (i = 0; i < fl.n; i++) {
		if (i && !strcmp(fl.v[i].path, fl.v[i - 1].path))
			continue;
		type = safe_open_describe(fl.v[i].path);
		fprintf(stderr, "fxsampler: module '%s': not a regular file (%s): not symbolized\n",
			fl.v[i].path, type ? type : "special file");
	}
	for (i = 0; i < fl.n; i++)
		free(fl.v[i].path);
	free(fl.v);
}

/* Drop an output that was not written (safe on one never opened or done). */
static void out_abort(struct out_file *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	outfile_abort(&o->of);
}

static int out_write(struct out_file *o, struct report *r, const struct report_opts *opts)
{
	long size = -1;
	int err;

	err = o->fn(r, o->f);
	if (!err && fflush(o->f))
		err = -errno;
	if (!err)
		size = o->of.direct ? -1 : ftell(o->f);
	if (fclose(o->f) && !err)
		err = -errno;
	o->f = NULL;
	if (!err)
		err = outfile_commit(&o->of);
	if (err) {
		fail_msg(opts, "cannot write '%s': %s", o->path, outfile_strerror(&o->of, err));
		out_abort(o);
		return err;
	}
	if (opts->info) {
		if (size >= 0)
			fprintf(opts->info, "fxsampler: wrote %s: %s, %ld bytes\n", o->path,
				o->what, size);
		else
			fprintf(opts->info, "fxsampler: wrote %s: %s\n", o->path, o->what);
	}
	return 0;
}

static void on_fetch_failure(void *ctx, const char *path, const char *build_id, int err)
{
	fprintf(ctx, "fxsampler: warning: debuginfod has no debug info for %s (build id %s): %s\n",
		path, build_id, strerror(-err));
}

static const char *state_label(void *ctx, uint64_t tid)
{
	return thread_name(ctx, tid);
}

/* After the top view of a capture with off-CPU intervals: time by thread state. */
static int write_thread_states(struct report *r, FILE *out)
{
	if (!offcpu_intervals(r->off))
		return 0;
	return offcpu_write_summary(r->off, out, r->has_pid, r->pid, r->has_tid, r->tid,
				    state_label, r);
}

int report_run(const char *path, const struct report_opts *opts, FILE *out)
{
	struct out_file outs[] = {
		{.what = "pprof profile", .fn = report_write_pprof},
		{.what = "flame graph", .fn = report_write_svg},
		{.what = "perf script samples", .fn = report_write_perf_script},
	};
	const size_t nr_outs = sizeof(outs) / sizeof(outs[0]);
	struct fxt_reader *rd = NULL;
	struct fxt_record rec;
	struct report *r;
	size_t i;
	int err;

	if (opts && opts->errbuf && opts->errbuf_size)
		opts->errbuf[0] = '\0';
	r = report__new(opts);
	if (!r) {
		err = -errno;
		fail_msg(opts, "report: %s", strerror(-err));
		return err;
	}
	/* Every output path is checked before the input is read. */
	if (opts) {
		outs[0].path = opts->pprof_path;
		outs[1].path = opts->svg_path;
		outs[2].path = opts->perf_script_path;
	}
	for (i = 0; i < nr_outs; i++) {
		if (!outs[i].path)
			continue;
		err = out_open(&outs[i], opts);
		if (err)
			goto out;
	}
	rd = fxt_reader__open(path);
	if (!rd) {
		err = -errno;
		fail_msg(opts, "cannot open '%s': %s", path, strerror(-err));
		goto out;
	}
	while ((err = fxt_reader_next(rd, &rec)) == 1) {
		err = report_add(r, &rec);
		if (err)
			break;
	}
	if (err == -EBADMSG) {
		fail_msg(opts, "'%s': %s", path, fxt_reader_error(rd));
		goto out;
	}
	if (err == -ENODATA) {
		fail_msg(opts,
			 "'%s' has no sampling period (recorded without --off-cpu): --wall "
			 "needs one",
			 path);
		goto out;
	}
	if (err) {
		fail_msg(opts, "cannot read '%s': %s", path, strerror(-err));
		goto out;
	}
	if (out) {
		if (opts && opts->folded)
			err = report_write_folded(r, out);
		else
			err = report_write_top(r, out, opts ? opts->top : 0);
		if (!err && !(opts && opts->folded))
			err = write_thread_states(r, out);
		if (err) {
			fail_msg(opts, "cannot write the report: %s", strerror(-err));
			goto out;
		}
	}
	for (i = 0; i < nr_outs; i++) {
		if (!outs[i].f)
			continue;
		err = out_write(&outs[i], r, opts);
		if (err)
			goto out;
	}
	warn_skipped(r);
	/* Fail soft: such modules show as module+0xOFFSET; say why. */
	if (opts && opts->info)
		symbolizer_for_each_fetch_failure(r->sym, on_fetch_failure, opts->info);
out:
	for (i = 0; i < nr_outs; i++)
		out_abort(&outs[i]);
	fxt_reader__free(rd);
	report__free(r);
	return err;
}
