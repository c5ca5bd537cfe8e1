// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Scrape windows on the host profile's stream (scrape.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_python.h"
#include "fxt/fxt_reader.h"
#include "report/report.h"
#include "service/scrape.h"
#include "symbols/demangle.h"
#include "symbols/sym_cache.h"
#include "symbols/symbolizer.h"
#include "util/containers.h"

#define WHY_MAX 160
/*
 * The symbolizer keeps every process it was told of; past this many, a new
 * stream starts it over (its ELF and DWARF cache stays). The new capture
 * records again every process it samples; a window open across it may lose
 * the names of functions of processes that exited before.
 */
#define TAP_MAX_PROCESSES 4096
/*
 * A capture writes each Python code object's names once (a pycode blob): the
 * tap keeps them for the windows opened later, up to this many bytes a
 * stream; past it, a later window names those frames "[python: unknown code]".
 */
#define TAP_MAX_PYCODE_BYTES (32u << 20)

struct scrape_window {
	struct scrape_window *next, *prev;
	struct report *r;
	struct symbolizer *sym; /* the one r names frames with: the tap's, or its old one */
	uint64_t start;		/* boottime ns */
	uint64_t real_ns;	/* realtime ns at start */
	uint64_t sampled_ns;	/* the stream ran this long within the window, so far */
	bool in_gap;
	uint64_t gap_start;
	char gap_why[WHY_MAX];
	bool told_dropped, told_broken;
	bool offcpu; /* off-CPU intervals, not samples */
	/*
	 * Open across a new stream, whose code objects take the ids of the old
	 * one's: no Python frames from there on, rather than frames misnamed.
	 */
	bool py_off;
	char **comments;
	size_t nr_comments, cap_comments;
};

struct scrape_tap {
	struct demangler *dm;	/* each name demangled once, not per scrape; kept across renewals */
	struct symbolizer *sym; /* for every window, until scrape_tap_renew_symbols() */
	/*
	 * The symbolizer renewed last, kept (and fed the mapping records) for
	 * the windows opened before, until the last of them closes.
	 */
	struct symbolizer *old_sym;
	struct symbolizer_opts sym_opts;
	struct sym_cache *cache;     /* the frames sym resolved, across windows */
	struct sym_cache *old_cache; /* old_sym's, kept and freed with it */
	struct report *names;	     /* the current stream's process and thread names */
	struct fxt_reader *rd;	     /* the current stream; NULL between streams */
	uint64_t ticks_per_second;   /* of the current stream */
	bool running;
	bool broken; /* the stream could not be read: its samples reach no window */
	uint64_t run_start;
	char why[WHY_MAX]; /* why nothing runs, when nothing does */
	struct scrape_window *windows;
	unsigned nr_windows;
	unsigned streams;
	/*
	 * The last thread back from an off-CPU interval, and when: a capture
	 * writes an interval's switch out, switch in and backtrace one after
	 * the other, and the backtrace carries the start only.
	 */
	uint64_t last_in_tid, last_in_ts;
	struct report_opts names_opts;
	/* the current stream's pycode blobs, each a 4-byte length and its bytes */
	uint8_t *pycodes;
	size_t pycodes_len, pycodes_cap;
	scrape_jit_fn jit;
	void *jit_ctx;
};

struct scrape_tap *scrape_tap__new(const char *debug_dir)
{
	struct scrape_tap *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->dm = demangler__new();
	t->sym_opts.debug_dir = debug_dir ? strdup(debug_dir) : NULL;
	t->sym = symbolizer__new(&t->sym_opts);
	t->cache = t->sym ? sym_cache__new(t->sym) : NULL;
	t->names_opts.symbolizer = t->sym;
	t->names_opts.demangler = t->dm;
	t->names = t->cache && t->dm ? report__new(&t->names_opts) : NULL;
	if (!t->names) {
		scrape_tap__free(t);
		errno = ENOMEM;
		return NULL;
	}
	snprintf(t->why, sizeof(t->why), "no host capture ran");
	return t;
}

void scrape_tap__free(struct scrape_tap *t)
{
	if (!t)
		return;
	while (t->windows)
		scrape_window_free(t, t->windows);
	fxt_reader__free(t->rd);
	free(t->pycodes);
	report__free(t->names);
	sym_cache__free(t->cache);
	symbolizer__free(t->sym);
	demangler__free(t->dm);
	sym_cache__free(t->old_cache);
	symbolizer__free(t->old_sym);
	free((char *)t->sym_opts.debug_dir);
	free(t);
}

int scrape_tap_renew_symbols(struct scrape_tap *t)
{
	struct symbolizer *sym;
	struct sym_cache *cache;
	struct report *names;
	struct report_opts o;

	if (t->old_sym)
		return -EBUSY;
	sym = symbolizer__new(&t->sym_opts);
	cache = sym ? sym_cache__new(sym) : NULL;
	if (!cache) {
		symbolizer__free(sym);
		return -ENOMEM;
	}
	o = t->names_opts;
	o.symbolizer = sym;
	names = report__new(&o);
	if (!names) {
		sym_cache__free(cache);
		symbolizer__free(sym);
		return -ENOMEM;
	}
	report__free(t->names);
	t->names = names;
	t->names_opts = o;
	if (t->nr_windows) {
		t->old_sym = t->sym;
		t->old_cache = t->cache;
	} else {
		sym_cache__free(t->cache);
		symbolizer__free(t->sym);
	}
	t->sym = sym;
	t->cache = cache;
	return 0;
}

void scrape_tap_set_jit(struct scrape_tap *t, scrape_jit_fn fn, void *ctx)
{
	t->jit = fn;
	t->jit_ctx = ctx;
}

bool scrape_tap_running(const struct scrape_tap *t)
{
	return t->running;
}

unsigned scrape_tap_windows(const struct scrape_tap *t)
{
	return t->nr_windows;
}

unsigned scrape_tap_streams(const struct scrape_tap *t)
{
	return t->streams;
}

void scrape_tap_cache_stats(const struct scrape_tap *t, struct sym_cache_stats *ret)
{
	sym_cache_stats(t->cache, ret);
}

static int vnote(struct scrape_window *w, const char *fmt, va_list ap)
{
	char *s;

	if (array_reserve((void **)&w->comments, &w->cap_comments, w->nr_comments,
			  sizeof(*w->comments)))
		return -ENOMEM;
	if (vasprintf(&s, fmt, ap) < 0)
		return -ENOMEM;
	w->comments[w->nr_comments++] = s;
	return 0;
}

int scrape_window_note(struct scrape_window *w, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vnote(w, fmt, ap);
	va_end(ap);
	return err;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The gap of w ends at now: say how long, where in the window, and why. */
static void gap_done(struct scrape_window *w, uint64_t now)
{
	uint64_t from = w->gap_start - w->start, to = now > w->gap_start ? now - w->start : from;

	w->in_gap = false;
	/* a capture's own start takes a few ms: not worth a comment */
	if (to - from < 1000000)
		return;
	scrape_window_note(w, "not sampled for %.3f s (from %.3f s to %.3f s into the window): %s",
			   (double)(to - from) / 1e9, (double)from / 1e9, (double)to / 1e9,
			   w->gap_why);
}

/* The names the windows open now know of, before the stream's names go. */
static void adopt_all(struct scrape_tap *t)
{
	struct scrape_window *w;

	for (w = t->windows; w; w = w->next)
		report_adopt_names(w->r, t->names);
}

int scrape_tap_begin(struct scrape_tap *t, uint64_t now)
{
	struct scrape_window *w;
	struct report *names;

	if (t->running)
		scrape_tap_end(t, now, "the host capture started again");
	adopt_all(t);
	/* A new capture records every thread it samples again. */
	names = report__new(&t->names_opts);
	fxt_reader__free(t->rd);
	t->rd = fxt_reader__open_stream();
	if (!names || !t->rd) {
		report__free(names);
		fxt_reader__free(t->rd);
		t->rd = NULL;
		return -ENOMEM;
	}
	report__free(t->names);
	t->names = names;
	if (t->pycodes_len)
		for (w = t->windows; w; w = w->next)
			w->py_off = true;
	t->pycodes_len = 0;
	if (symbolizer_processes(t->sym) > TAP_MAX_PROCESSES) {
		/* the cached frames point into the processes' tables */
		sym_cache_clear(t->cache);
		symbolizer_forget_processes(t->sym);
	}
	t->ticks_per_second = 1000000000ULL;
	t->last_in_tid = t->last_in_ts = 0;
	for (w = t->windows; w; w = w->next)
		if (w->in_gap)
			gap_done(w, now);
	t->running = true;
	t->broken = false;
	t->run_start = now;
	t->streams++;
	return 0;
}

void scrape_tap_end(struct scrape_tap *t, uint64_t now, const char *why)
{
	struct scrape_window *w;

	if (!t->running)
		return;
	snprintf(t->why, sizeof(t->why), "%s", why);
	for (w = t->windows; w; w = w->next) {
		uint64_t from = max_u64(t->run_start, w->start);

		if (now > from)
			w->sampled_ns += now - from;
		w->in_gap = true;
		w->gap_start = max_u64(now, w->start);
		snprintf(w->gap_why, sizeof(w->gap_why), "%s", why);
	}
	t->running = false;
}

void scrape_tap_gap_reason(struct scrape_tap *t, const char *why)
{
	struct scrape_window *w;

	if (t->running)
		return;
	snprintf(t->why, sizeof(t->why), "%s", why);
	for (w = t->windows; w; w = w->next)
		if (w->in_gap)
			snprintf(w->gap_why, sizeof(w->gap_why), "%s", why);
}

static uint64_t ticks_to_ns(const struct scrape_tap *t, uint64_t ticks)
{
	if (t->ticks_per_second == 1000000000ULL)
		return ticks;
	return (uint64_t)((unsigned __int128)ticks * 1000000000ULL / t->ticks_per_second);
}

/* A blob named name to report r, as a stream's record would bring it. */
static int add_blob(struct report *r, const char *name, const uint8_t *blob, size_t len)
{
	struct fxt_record rec = {.type = FXT_RT_BLOB, .name = name, .blob = blob, .blob_len = len};

	return report_add(r, &rec);
}

/* A pycode blob kept for the windows opened later (up to TAP_MAX_PYCODE_BYTES). */
static int keep_pycode(struct scrape_tap *t, const struct fxt_record *rec)
{
	uint32_t n = (uint32_t)rec->blob_len;

	if (t->pycodes_len + 4 + n > TAP_MAX_PYCODE_BYTES)
		return 0;
	while (t->pycodes_cap < t->pycodes_len + 4 + n)
		if (array_reserve((void **)&t->pycodes, &t->pycodes_cap, t->pycodes_cap, 1))
			return -ENOMEM;
	memcpy(t->pycodes + t->pycodes_len, &n, 4);
	memcpy(t->pycodes + t->pycodes_len + 4, rec->blob, n);
	t->pycodes_len += 4 + n;
	return 0;
}

/* Python frames: a stack before its backtrace, a code object's names once. */
static int tap_python(struct scrape_tap *t, const struct fxt_record *rec)
{
	bool code = !strcmp(rec->name, FXT_PYCODE_BLOB);
	struct scrape_window *w;
	int err = code ? keep_pycode(t, rec) : 0;

	for (w = t->windows; w && !err; w = w->next)
		err = w->py_off ? 0 : report_add(w->r, rec);
	return err;
}

/* One record of the stream, to where it counts. */
static int tap_record(struct scrape_tap *t, const struct fxt_record *rec)
{
	struct scrape_window *w;
	uint64_t ts;
	bool off;
	int err;

	switch (rec->type) {
	case FXT_RT_INIT:
		if (rec->ticks_per_second)
			t->ticks_per_second = rec->ticks_per_second;
		return 0;
	case FXT_RT_KOBJ:
		return report_add(t->names, rec);
	case FXT_RT_SCHED:
		/* the off-CPU windows pair each interval's switches themselves */
		if (rec->subtype == FXT_SCHED_CONTEXT_SWITCH && rec->in_tid && !rec->out_tid) {
			t->last_in_tid = rec->in_tid;
			t->last_in_ts = ticks_to_ns(t, rec->ts);
		}
		for (w = t->windows; w; w = w->next) {
			err = w->offcpu ? report_add(w->r, rec) : 0;
			if (err)
				return err;
		}
		return 0;
	case FXT_RT_PROFILER:
		if (rec->subtype != FXT_PROF_BACKTRACE) {
			err = t->old_sym ? symbolizer_add_record(t->old_sym, rec) : 0;
			if (!err && t->old_cache)
				err = sym_cache_note_record(t->old_cache, rec);
			if (!err)
				err = sym_cache_note_record(t->cache, rec);
			return err ? err : symbolizer_add_record(t->sym, rec);
		}
		off = rec->bt_flags & FXT_BT_FLAG_OFFCPU;
		ts = ticks_to_ns(t, rec->ts);
		/* an interval counts where it ends: a wait longer than a window is not lost */
		if (off && t->last_in_tid == rec->tid && t->last_in_ts > ts)
			ts = t->last_in_ts;
		for (w = t->windows; w; w = w->next) {
			if (ts < w->start || off != w->offcpu)
				continue;
			err = report_add(w->r, rec);
			if (err)
				return err;
		}
		return 0;
	case FXT_RT_BLOB:
		if (rec->name &&
		    (!strcmp(rec->name, FXT_PYCODE_BLOB) || !strcmp(rec->name, FXT_PYSTACK_BLOB)))
			return tap_python(t, rec);
		/* perf-map entries the capture wrote at a process's end: its JIT code's names */
		if (!rec->name || strcmp(rec->name, FXT_PERFMAP_BLOB))
			return 0;
		for (w = t->windows; w; w = w->next) {
			err = report_add(w->r, rec);
			if (err)
				return err;
		}
		return 0;
	case FXT_RT_METADATA:
		if (rec->subtype != FXT_META_PROVIDER_EVENT ||
		    rec->provider_event != FXT_PROVIDER_EVENT_DROPPED)
			return 0;
		for (w = t->windows; w; w = w->next) {
			if (!w->told_dropped)
				scrape_window_note(w, "the host capture dropped records: this "
						      "window may lack samples");
			w->told_dropped = true;
		}
		return 0;
	default:
		return 0;
	}
}

int scrape_tap_feed(struct scrape_tap *t, const void *data, size_t len)
{
	struct fxt_record rec;
	int n, err;

	if (!t->running || t->broken || !t->rd || !len)
		return 0;
	err = fxt_reader_feed(t->rd, data, len);
	while (!err && (n = fxt_reader_next(t->rd, &rec)) != 0)
		err = n < 0 ? n : tap_record(t, &rec);
	if (err) {
		struct scrape_window *w;

		/* Samples go unread from here: each window says so. */
		t->broken = true;
		for (w = t->windows; w; w = w->next) {
			if (!w->told_broken)
				scrape_window_note(w,
						   "the host capture's stream could not be read "
						   "(%s): samples are missing from here on",
						   fxt_reader_error(t->rd) ?: strerror(-err));
			w->told_broken = true;
		}
	}
	return err;
}

struct scrape_window *scrape_window_open(struct scrape_tap *t, uint64_t now, uint64_t real_ns,
					 uint64_t period_ns, bool offcpu)
{
	struct report_opts o = {.period_ns = period_ns,
				.symbolizer = t->sym,
				.demangler = t->dm,
				.sym_cache = t->cache,
				.time_mode = offcpu ? REPORT_OFFCPU : REPORT_SAMPLES};
	struct scrape_window *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->r = report__new(&o);
	if (!w->r) {
		free(w);
		return NULL;
	}
	w->sym = t->sym;
	/* the code objects the stream named before this window */
	for (size_t off = 0; off + 4 <= t->pycodes_len;) {
		uint32_t n;

		memcpy(&n, t->pycodes + off, 4);
		if (add_blob(w->r, FXT_PYCODE_BLOB, t->pycodes + off + 4, n)) {
			report__free(w->r);
			free(w);
			return NULL;
		}
		off += 4 + n;
	}
	w->start = now;
	w->real_ns = real_ns;
	w->offcpu = offcpu;
	if (!t->running) {
		w->in_gap = true;
		w->gap_start = now;
		snprintf(w->gap_why, sizeof(w->gap_why), "%s", t->why);
	}
	w->next = t->windows;
	if (t->windows)
		t->windows->prev = w;
	t->windows = w;
	t->nr_windows++;
	return w;
}

void scrape_window_free(struct scrape_tap *t, struct scrape_window *w)
{
	size_t i;

	if (!w)
		return;
	if (w->prev)
		w->prev->next = w->next;
	else
		t->windows = w->next;
	if (w->next)
		w->next->prev = w->prev;
	t->nr_windows--;
	report__free(w->r);
	/* the last window of the old symbolizer takes it away */
	if (t->old_sym && w->sym == t->old_sym) {
		struct scrape_window *o = t->windows;

		while (o && o->sym != t->old_sym)
			o = o->next;
		if (!o) {
			sym_cache__free(t->old_cache);
			symbolizer__free(t->old_sym);
			t->old_cache = NULL;
			t->old_sym = NULL;
		}
	}
	for (i = 0; i < w->nr_comments; i++)
		free(w->comments[i]);
	free(w->comments);
	free(w);
}

uint64_t scrape_window_samples(const struct scrape_window *w)
{
	return report_samples(w->r);
}

struct jit_ask {
	struct scrape_tap *t;
	struct report *r;
};

static int jit_add(void *ctx, uint64_t pid, const struct perfmap_entry *e)
{
	return report_jit_add(ctx, pid, e->start, e->size, e->name, e->name_len);
}

static int jit_need(void *ctx, uint64_t pid, uint64_t first_ts, const uint64_t *pcs, size_t n)
{
	struct jit_ask *a = ctx;

	return a->t->jit(a->t->jit_ctx, pid, ticks_to_ns(a->t, first_ts), pcs, n, jit_add, a->r);
}

int scrape_window_close(struct scrape_tap *t, struct scrape_window *w, uint64_t now, FILE *out)
{
	struct jit_ask ask = {t, w->r};
	struct report_pprof_window pw = {};
	int err;

	if (t->running) {
		uint64_t from = max_u64(t->run_start, w->start);

		if (now > from)
			w->sampled_ns += now - from;
	} else if (w->in_gap) {
		gap_done(w, now);
	}
	sym_cache_tick(t->cache, now);
	if (t->old_cache)
		sym_cache_tick(t->old_cache, now);
	err = report_adopt_names(w->r, t->names);
	if (!err && t->jit)
		err = report_jit_unnamed(w->r, jit_need, &ask);
	pw.time_nanos = w->real_ns;
	pw.duration_nanos = w->sampled_ns;
	pw.comments = (const char *const *)w->comments;
	pw.nr_comments = (unsigned)w->nr_comments;
	if (!err)
		err = report_write_pprof_window(w->r, out, &pw);
	scrape_window_free(t, w);
	return err;
}
