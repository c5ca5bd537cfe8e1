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
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "containers.h"
#include "elf_symbols.h"
#include "fxt.h"
#include "fxt_reader.h"
#include "offcpu.h"
#include "report.h"
#include "symbolizer.h"

#define BT_KEY_FLAGS	(FXT_BT_FLAG_TRUNCATED | FXT_BT_FLAG_PC_IS_RETURN)
#define TRUNCATED_FRAME "[truncated]"
#define COLUMNS		80

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

struct loc {
	uint64_t pid;
	uint64_t pc;
	bool is_return;
	size_t func;
	const struct symbolizer_mapping *mapping;
};

struct func {
	const char *name;   /* owned by the symbolizer, or a literal */
	const char *module; /* module path or NULL */
	bool resolved;
	uint64_t self;
	uint64_t total;
	size_t stamp; /* last stack counted in total, + 1 */
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

struct report {
	unsigned top;
	bool folded_no_thread;
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

	for (i = 0; i < t->n; i++)
		free(T(*t, struct name_ent)[i].name);
	table_free(t);
}

static void unprepare(struct report *r)
{
	size_t i;

	for (i = 0; i < r->stacks.n; i++) {
		free(T(r->stacks, struct stack)[i].locs);
		T(r->stacks, struct stack)[i].locs = NULL;
	}
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
	symbolizer__free(r->sym);
	offcpu__free(r->off);
	free(r);
}

uint64_t report_samples(const struct report *r)
{
	return r->samples;
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
	}
	free(e->name);
	e->name = copy;
	e->pid = pid;
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

static int add_stack(struct report *r, const struct stack_key *k, uint64_t weight)
{
	uint64_t h = hash_u64(hash_u64(hash_u64(FNV_INIT, k->pid), k->tid), k->flags);
	struct stack *s;
	size_t pos;

	h = fnv1a(h, k->frames, k->nr * sizeof(*k->frames));
	if (hindex_find(&r->stacks.idx, h, stack_eq, &r->stacks, k, &pos)) {
		T(r->stacks, struct stack)[pos].count += weight;
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
	r->stacks.n++;
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
	int err;

	if ((r->has_pid && rec->pid != r->pid) || (r->has_tid && rec->tid != r->tid))
		return 0;
	err = sample_weight(r, rec, &weight);
	if (err <= 0)
		return err;
	t = get_thread(r, rec->pid, rec->tid);
	if (!t)
		return -ENOMEM;
	err = add_stack(r, &k, weight);
	if (err)
		return err;
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

int report_add(struct report *r, const struct fxt_record *rec)
{
	int err = offcpu_add(r->off, rec);

	if (err)
		return err;
	switch (rec->type) {
	case FXT_RT_KOBJ:
		if (rec->subtype == FXT_OBJ_PROCESS)
			return set_name(&r->procs, rec->koid, rec->koid, rec->name);
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

static int get_loc(struct report *r, uint64_t pid, uint64_t pc, bool is_return, size_t *ret)
{
	struct loc_key k = {pid, pc, is_return};
	uint64_t h = hash_u64(hash_u64(hash_u64(FNV_INIT, pid), pc), is_return);
	struct sym_frame sf;
	struct loc *l;
	size_t func;
	int err;

	if (hindex_find(&r->locs.idx, h, loc_eq, &r->locs, &k, ret))
		return 0;
	err = symbolizer_resolve(r->sym, pid, pc, is_return, &sf);
	if (!err)
		err = get_func(r, sf.function, sf.module, sf.resolved, &func);
	if (err)
		return err;
	if (array_reserve(&r->locs.v, &r->locs.cap, r->locs.n, sizeof(struct loc)) ||
	    hindex_insert(&r->locs.idx, h, r->locs.n))
		return -ENOMEM;
	l = &T(r->locs, struct loc)[r->locs.n];
	l->pid = pid;
	l->pc = pc;
	l->is_return = is_return;
	l->func = func;
	l->mapping = sf.mapping;
	*ret = r->locs.n++;
	return 0;
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
			funcs[locs[s->locs[0]].func].self += s->count;
		for (j = 0; j < s->nr; j++) {
			struct func *f = &funcs[locs[s->locs[j]].func];

			/* Recursion counts once per sample. */
			if (f->stamp != i + 1) {
				f->stamp = i + 1;
				f->total += s->count;
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
	default:
		return "unreadable";
	}
}

int report_write_top(struct report *r, FILE *out, unsigned n)
{
	const size_t name_w = COLUMNS - 35, thread_w = COLUMNS - 36;
	struct failure_list fl = {};
	struct thread_ent *threads = NULL;
	const struct func *funcs;
	size_t *order = NULL, i, nf;
	char label[1024], buf[COLUMNS + 1];
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

	for (i = 0; i < nf; i++)
		order[i] = i;
	qsort_r(order, nf, sizeof(*order), func_order, (void *)funcs);
	fprintf(out, "\n%8s %7s %8s %7s  %s\n", "Self", "Self%", "Total", "Total%", "Function");
	for (i = 0; i < nf && i < n; i++) {
		const struct func *f = &funcs[order[i]];

		if (!f->total)
			break;
		if (f->resolved && f->module)
			snprintf(label, sizeof(label), "%s [%s]", f->name, base_name(f->module));
		else
			snprintf(label, sizeof(label), "%s", f->name);
		fprintf(out, "%8" PRIu64 " %6.2f%% %8" PRIu64 " %6.2f%%  %s\n", f->self,
			pct(f->self, r->samples), f->total, pct(f->total, r->samples),
			fit(label, name_w, buf, sizeof(buf)));
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
			fit(label, thread_w, buf, sizeof(buf)));
	}

	symbolizer_for_each_failure(r->sym, on_failure, &fl);
	err = fl.err;
	if (!err && fl.n) {
		qsort(fl.v, fl.n, sizeof(*fl.v), failure_order);
		fprintf(out, "\nNot symbolized:\n");
		for (i = 0; i < fl.n; i++)
			fprintf(out, "  %-17s  %s\n", failure_reason(fl.v[i].err),
				fit_left(fl.v[i].path, COLUMNS - 21, buf, sizeof(buf)));
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
	name = process_name(r, s->pid);
	if (name)
		sb_frame(b, name);
	else
		sb_printf(b, "[pid %" PRIu64 "]", s->pid);
	sb_put(b, "", 1);
	n++;
	if (!r->folded_no_thread) {
		name = thread_name(r, s->tid);
		if (name)
			sb_frame(b, name);
		else
			sb_printf(b, "[tid %" PRIu64 "]", s->tid);
		sb_put(b, "", 1);
		n++;
	}
	if (s->flags & FXT_BT_FLAG_TRUNCATED) {
		sb_put(b, TRUNCATED_FRAME, sizeof(TRUNCATED_FRAME));
		n++;
	}
	for (j = s->nr; j-- > 0;) {
		sb_frame(b, funcs[locs[s->locs[j]].func].name);
		sb_put(b, "", 1);
		n++;
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

static int mapping_order(const void *pa, const void *pb)
{
	const struct symbolizer_mapping *a = *(const struct symbolizer_mapping *const *)pa;
	const struct symbolizer_mapping *b = *(const struct symbolizer_mapping *const *)pb;

	return a->id < b->id ? -1 : a->id > b->id;
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

static int encode_profile(struct report *r, struct pbuf *p)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct loc *locs = T(r->locs, struct loc);
	const struct func *funcs = T(r->funcs, struct func);
	const struct symbolizer_mapping **maps = NULL;
	struct pbuf m = {}, sub = {}, packed = {};
	struct strtab st = {};
	size_t i, nmaps = 0, k;
	uint64_t key_pid, key_tid, period;
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	unsigned j;
	int err = 0;

	str_index(&st, "");
	/* sample_type = 1 */
	pb_uint(&sub, 1,
		str_index(&st, r->time_mode == REPORT_OFFCPU ? "off-cpu"
			       : r->time_mode == REPORT_WALL ? "wall"
							     : "samples"));
	pb_uint(&sub, 2, str_index(&st, r->time_mode ? "nanoseconds" : "count"));
	pb_msg(p, 1, &sub);

	/* sample = 2: location ids leaf first, the cut-off marker outermost. */
	key_pid = str_index(&st, "pid");
	key_tid = str_index(&st, "tid");
	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];

		for (j = 0; j < s->nr; j++)
			pb_varint(&packed, s->locs[j] + 2);
		if (s->flags & FXT_BT_FLAG_TRUNCATED)
			pb_varint(&packed, 1);
		pb_msg(&m, 1, &packed);
		pb_varint(&packed, s->count);
		pb_msg(&m, 2, &packed);
		pb_uint(&sub, 1, key_pid);
		pb_uint(&sub, 3, s->pid);
		pb_msg(&m, 3, &sub);
		pb_uint(&sub, 1, key_tid);
		pb_uint(&sub, 3, s->tid);
		pb_msg(&m, 3, &sub);
		pb_msg(p, 2, &m);
	}

	/* mapping = 3: those the locations use, by symbolizer id. */
	maps = calloc(r->locs.n ? r->locs.n : 1, sizeof(*maps));
	if (!maps) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->locs.n; i++)
		if (locs[i].mapping)
			maps[nmaps++] = locs[i].mapping;
	qsort(maps, nmaps, sizeof(*maps), mapping_order);
	for (i = 0; i < nmaps; i = k) {
		const struct symbolizer_mapping *mp = maps[i];

		for (k = i + 1; k < nmaps && maps[k] == mp; k++)
			;
		pb_uint(&m, 1, mp->id);
		pb_uint(&m, 2, mp->start);
		pb_uint(&m, 3, mp->start + mp->size);
		pb_uint(&m, 4, mp->file_offset);
		pb_uint(&m, 5, str_index(&st, mp->path ?: ""));
		if (mp->build_id_len)
			pb_uint(&m, 6,
				str_index(&st, elf_build_id_hex(mp->build_id, mp->build_id_len, hex,
								sizeof(hex))));
		/* Every location carries its function: pprof must not symbolize again. */
		pb_uint(&m, 7, 1);
		pb_msg(p, 3, &m);
	}

	/* location = 4: id 1 is the cut-off marker, then location i is id i + 2. */
	pb_uint(&m, 1, 1);
	pb_uint(&sub, 1, 1);
	pb_msg(&m, 4, &sub);
	pb_msg(p, 4, &m);
	for (i = 0; i < r->locs.n; i++) {
		pb_uint(&m, 1, i + 2);
		pb_uint(&m, 2, locs[i].mapping ? locs[i].mapping->id : 0);
		pb_uint(&m, 3, locs[i].pc);
		pb_uint(&sub, 1, locs[i].func + 1);
		pb_msg(&m, 4, &sub);
		pb_msg(p, 4, &m);
	}

	/* function = 5: function i is id i + 1 (0 is "[truncated]"). */
	for (i = 0; i < r->funcs.n; i++) {
		uint64_t name = str_index(&st, funcs[i].name);

		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, name);
		pb_uint(&m, 3, name);
		pb_uint(&m, 4, str_index(&st, funcs[i].module ?: ""));
		pb_msg(p, 5, &m);
	}

	/* duration_nanos = 10, period_type = 11, period = 12 */
	if (r->have_ts)
		pb_uint(p, 10, ticks_to_ns(r, r->last_ts - r->first_ts));
	pb_uint(&sub, 1, str_index(&st, "cpu"));
	pb_uint(&sub, 2, str_index(&st, "nanoseconds"));
	pb_msg(p, 11, &sub);
	period = period_ns(r);
	pb_uint(p, 12, period);

	/* string_table = 6, last: every string is known by now. */
	err = st.err;
	for (i = 0; !err && i < st.n; i++)
		pb_len(p, 6, st.v[i], strlen(st.v[i]));
	if (!err)
		err = m.err ? m.err : sub.err ? sub.err : packed.err ? packed.err : p->err;
out:
	free(maps);
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

/* ---- flame graph SVG ---- */

enum node_kind {
	NODE_ROOT,
	NODE_PROCESS,
	NODE_THREAD,
	NODE_SPECIAL,
	NODE_FUNC,
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
		unsigned j = s->nr;

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
			else {
				const struct func *f = &funcs[locs[s->locs[--j]].func];

				kind = f->resolved ? NODE_FUNC
				       : f->module ? NODE_UNRESOLVED
						   : NODE_SPECIAL;
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
#define SVG_FOOTER  10
#define SVG_FONT    12
#define SVG_CHAR_W  7.2 /* monospace at 12px: 0.6 em */
#define SVG_MIN_W   0.1 /* narrower frames are not drawn */

struct svg {
	FILE *out;
	uint64_t total;
	double scale; /* pixels per sample */
	unsigned height;
	const char *unit; /* what a count is: samples, or ns */
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

static void svg_node(struct svg *s, const struct node *n, uint64_t offset, unsigned depth)
{
	double x = SVG_PAD + (double)offset * s->scale, w = (double)n->count * s->scale;
	double y = s->height - SVG_FOOTER - (double)(depth + 1) * SVG_FRAME_H;
	unsigned r, g, b;
	size_t chars, i;
	uint64_t off = offset;

	if (w < SVG_MIN_W)
		return;
	node_color(n, &r, &g, &b);
	fputs("<g><title>", s->out);
	xml_text(s->out, n->label);
	fprintf(s->out, " (%" PRIu64 " %s, %.2f%%)</title>", n->count, s->unit,
		pct(n->count, s->total));
	fprintf(s->out,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\" "
		"rx=\"2\"/>",
		x, y, w, SVG_FRAME_H - 1, r, g, b);
	chars = (size_t)((w - 6) / SVG_CHAR_W);
	if (chars >= 3) {
		char buf[512];

		fprintf(s->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + SVG_FRAME_H - 4.5);
		xml_text(s->out, fit(n->label, chars < sizeof(buf) - 1 ? chars : sizeof(buf) - 1,
				     buf, sizeof(buf)));
		fputs("</text>", s->out);
	}
	fputs("</g>\n", s->out);
	for (i = 0; i < n->nr; i++) {
		svg_node(s, &n->children[i], off, depth + 1);
		off += n->children[i].count;
	}
}

int report_write_svg(struct report *r, FILE *out)
{
	struct node root = {};
	struct svg s = {.out = out, .unit = r->time_mode ? "ns" : "samples"};
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
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: monospace; font-size: %dpx; fill: #000; "
		"pointer-events: none; } g:hover rect { stroke: #000; stroke-width: 1; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"#f8f8f8\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">"
		"fxsampler: %" PRIu64 " %s</text>\n",
		SVG_WIDTH, s.height, SVG_WIDTH, s.height, SVG_FONT, SVG_WIDTH, s.height,
		SVG_WIDTH / 2, root.count, s.unit);
	if (root.count)
		svg_node(&s, &root, 0, 0);
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

static int write_file(struct report *r, const char *path, write_fn fn,
		      const struct report_opts *opts)
{
	FILE *f;
	int err;

	f = fopen(path, "we");
	if (!f) {
		err = -errno;
		fail_msg(opts, "cannot create '%s': %s", path, strerror(-err));
		return err;
	}
	err = fn(r, f);
	if (fclose(f) && !err)
		err = -errno;
	if (err)
		fail_msg(opts, "cannot write '%s': %s", path, strerror(-err));
	return err;
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
	struct fxt_reader *rd = NULL;
	struct fxt_record rec;
	struct report *r;
	int err;

	if (opts && opts->errbuf && opts->errbuf_size)
		opts->errbuf[0] = '\0';
	r = report__new(opts);
	if (!r) {
		err = -errno;
		fail_msg(opts, "report: %s", strerror(-err));
		return err;
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
	if (opts && opts->pprof_path) {
		err = write_file(r, opts->pprof_path, report_write_pprof, opts);
		if (err)
			goto out;
	}
	if (opts && opts->svg_path)
		err = write_file(r, opts->svg_path, report_write_svg, opts);
out:
	fxt_reader__free(rd);
	report__free(r);
	return err;
}
