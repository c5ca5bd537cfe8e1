/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the modules of `fxsampler report` share, and nothing else includes:
 * the report model (report.c), its symbolized tables (report_symbolize.c),
 * the text helpers (report_text.c) and the stack labels (report_folded.c).
 *
 * Samples are aggregated by raw stack (pid, tid, flags, pcs) as they come;
 * symbolization waits until an output is asked for, because module and mmap
 * records may follow the samples they describe. Each distinct (pid, pc,
 * return-or-not) is resolved once into a location, each distinct (function,
 * module) becomes one function, and every output works from those tables.
 */
#ifndef FXS_DAEMON_REPORT_INTERNAL_H
#define FXS_DAEMON_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "report/report.h"
#include "util/hash.h"

struct offcpu;
struct symbolizer;
struct symbolizer_mapping;

#define BT_KEY_FLAGS	(FXT_BT_FLAG_TRUNCATED | FXT_BT_FLAG_PC_IS_RETURN)
#define TRUNCATED_FRAME "[truncated]"
#define INLINED_SUFFIX	" [inlined]"

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
	size_t *locs; /* after report_prepare(): location of each frame */
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

/* A growable array of entries (v, n, cap) and its index by key (util/hash.h). */
struct table {
	void *v;
	size_t n;
	size_t cap;
	struct hash_index idx;
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
	bool sym_borrowed; /* report_opts.symbolizer: the caller's, fed by the caller */

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

/* ---- the model (report.c) ---- */

/* Free a table's array and index (not what its entries own). */
void report_table_free(struct table *t);
/* The name entry of a pid (procs) or tid (tnames), or NULL. */
struct name_ent *report_find_name(const struct table *t, uint64_t id);
/* The process's name (else its main thread's), or NULL when unknown or empty. */
const char *report_process_name(const struct report *r, uint64_t pid);
/* The thread's name, or NULL when unknown or empty. */
const char *report_thread_name(const struct report *r, uint64_t tid);
/* File ticks as ns, by the file's ticks_per_second. */
uint64_t report_ticks_to_ns(const struct report *r, uint64_t ticks);
/* The sampling period in ns: given, from the off-CPU records, or estimated; 0: none. */
uint64_t report_period_ns(struct report *r);

/* ---- symbolization (report_symbolize.c) ---- */

/*
 * Resolve every stack into r->locs and r->funcs and count self and total per
 * function (function 0 is TRUNCATED_FRAME); a no-op until records are added.
 * 0 or -ENOMEM.
 */
int report_prepare(struct report *r);
/* Drop what report_prepare() made. */
void report_unprepare(struct report *r);

/* ---- text (report_text.c) ---- */

/* The last component of a path. */
const char *report_base_name(const char *path);
/* Control characters of buf, in place, as '?'; returns buf. */
const char *report_sanitize(char *buf);
/* s into buf, cut to width bytes with ".." at a UTF-8 boundary, sanitized. */
const char *report_fit(const char *s, size_t width, char *buf, size_t size);
/* The same, cutting the start ("..tail"). */
const char *report_fit_left(const char *s, size_t width, char *buf, size_t size);
/* part as a percentage of whole; 0 when whole is. */
double report_pct(uint64_t part, uint64_t whole);

/* ---- the modules that could not be symbolized (report_top.c) ---- */

struct failure {
	char *path;
	int err;
};

struct failure_list {
	struct failure *v;
	size_t n, cap;
	int err;
};

/* A symbolizer_for_each_failure() callback appending to a struct failure_list. */
void report_on_failure(void *ctx, const char *path, int err);
/* qsort order of struct failure: by path. */
int report_failure_order(const void *pa, const void *pb);

/* ---- stack labels (report_folded.c) ---- */

/* A growable string; err is sticky (-ENOMEM). */
struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

/*
 * The labels of a stack root first: process, thread (unless left out),
 * "[truncated]" when the walk was cut, then the frames outermost first.
 * Writes them into b separated by NULs; returns their number.
 */
size_t report_stack_path(const struct report *r, const struct stack *s, struct sbuf *b);

#endif /* FXS_DAEMON_REPORT_INTERNAL_H */
