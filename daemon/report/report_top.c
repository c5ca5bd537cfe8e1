// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The top view: the summary, functions (or function and line), threads, failures. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "report/offcpu.h"
#include "report/report_internal.h"
#include "symbols/symbolizer.h"
#include "util/safe_open.h"

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

/* The value of counter name among c[0..n), 0 when absent. */
static uint64_t counter_of(const struct counter *c, unsigned n, const char *name)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return c[i].value;
	return 0;
}

/*
 * The stacks the CFI walker (--unwind=auto) took on by frame pointers, and
 * why it had no table where it fell back: the capture's own counts of each
 * reason (its "unwind" counter, every process of the capture), with the
 * table cache's evictions and failures behind "no_table".
 */
static void print_fallback(const struct report *r, FILE *out)
{
	bool off = r->time_mode == REPORT_OFFCPU;
	const struct counter *c = off ? r->unwind_offcpu : r->unwind;
	unsigned n = off ? r->nr_unwind_offcpu : r->nr_unwind;
	uint64_t all = counter_of(c, n, "fp_fallback"), jit = counter_of(c, n, "no_module"),
		 table = counter_of(c, n, "no_table"), proc = counter_of(c, n, "no_process"),
		 row = all > jit + table + proc ? all - jit - table - proc : 0;
	uint64_t evicted = counter_of(r->cfi_tables, r->nr_cfi_tables, "evicted"),
		 failed = counter_of(r->cfi_tables, r->nr_cfi_tables, "failed"),
		 cap = counter_of(r->cfi_tables, r->nr_cfi_tables, "cap_bytes");

	/* Each line fits a 70-column terminal (report_fit's cut is for names). */
	fprintf(out, "Stacks by frame pointers: %" PRIu64 " (%.2f%%)\n", r->fp_fallback,
		report_pct(r->fp_fallback, r->samples));
	if (!all)
		return;
	fprintf(out, "  where the CFI walker had no table for\n");
	if (table && (evicted || failed))
		fprintf(out,
			"  %9" PRIu64 " a module (%" PRIu64 " evicted at --cfi-memory %" PRIu64
			"M, %" PRIu64 " failed)\n",
			table, evicted, cap >> 20, failed);
	else if (table)
		fprintf(out, "  %9" PRIu64 " a module (not made yet)\n", table);
	/* which modules: the on-CPU stacks' (the capture counts no others) */
	if (table && !off)
		report_cfi_lost_lines(r, out);
	if (jit)
		fprintf(out, "  %9" PRIu64 " a pc in no file (JIT, anonymous, or not read yet)\n",
			jit);
	if (proc)
		fprintf(out, "  %9" PRIu64 " the process (its first milliseconds)\n", proc);
	if (row)
		fprintf(out, "  %9" PRIu64 " a pc in its module's CFI\n", row);
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
			report_pct(r->truncated, r->samples));
	if (r->fp_fallback)
		print_fallback(r, out);
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
	report_cfi_header(r, out);
}

void report_on_failure(void *ctx, const char *path, int err)
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

int report_failure_order(const void *pa, const void *pb)
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
	if (hash_index_find(&t->idx, h, line_eq, t, &k, &pos))
		return &T(*t, struct line_row)[pos];
	if (array_reserve(&t->v, &t->cap, t->n, sizeof(struct line_row)) ||
	    hash_index_insert(&t->idx, h, t->n))
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

		for (j = 0; j < s->nr_locs; j++) {
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
	/* perf's mark of a kernel function; a kernel module's name after it. */
	if (f->kernel && f->module && strcmp(f->module, KERNEL_MODULE_NAME))
		snprintf(label, size, "%s [k] %s", f->name, f->module);
	else if (f->kernel)
		snprintf(label, size, "%s [k]", f->name);
	else if (f->resolved && f->module)
		snprintf(label, size, "%s [%s]", f->name, report_base_name(f->module));
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
		int w = l->file ? snprintf(where, sizeof(where), "%s:%u", report_base_name(l->file),
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
			snprintf(where, sizeof(where), "%s:%u", report_base_name(l->file), l->line);
		else
			snprintf(where, sizeof(where), "-");
		func_label(&funcs[l->func], label, sizeof(label));
		fprintf(out, "%8" PRIu64 " %6.2f%% %8" PRIu64 " %6.2f%%  %-*s  %s\n", l->self,
			report_pct(l->self, r->samples), l->total, report_pct(l->total, r->samples),
			(int)loc_w, report_sanitize(where),
			report_fit(label, name_width(r, TOP_FIXED_W + loc_w + 2), buf,
				   sizeof(buf)));
	}
out:
	free(order);
	report_table_free(&rows);
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

	err = report_prepare(r);
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
			report_pct(f->self, r->samples), f->total, report_pct(f->total, r->samples),
			report_fit(label, name_width(r, TOP_FIXED_W), buf, sizeof(buf)));
	}

	if (r->threads.n)
		memcpy(threads, r->threads.v, r->threads.n * sizeof(*threads));
	qsort(threads, r->threads.n, sizeof(*threads), thread_order);
	fprintf(out, "\n%8s %7s %8s %8s  %s\n", "Samples", "Share", "PID", "TID", "Thread");
	for (i = 0; i < r->threads.n; i++) {
		const struct thread_ent *t = &threads[i];
		const char *tn = report_thread_name(r, t->tid),
			   *pn = report_process_name(r, t->pid);

		if (!t->samples)
			continue;
		if (!tn)
			snprintf(label, sizeof(label), "[tid %" PRIu64 "]", t->tid);
		else if (pn && strcmp(pn, tn))
			snprintf(label, sizeof(label), "%s (%s)", tn, pn);
		else
			snprintf(label, sizeof(label), "%s", tn);
		fprintf(out, "%8" PRIu64 " %6.2f%% %8" PRIu64 " %8" PRIu64 "  %s\n", t->samples,
			report_pct(t->samples, r->samples), t->pid, t->tid,
			report_fit(label, name_width(r, thread_w), buf, sizeof(buf)));
	}

	symbolizer_for_each_failure(r->sym, report_on_failure, &fl);
	err = fl.err;
	if (!err && fl.n) {
		qsort(fl.v, fl.n, sizeof(*fl.v), report_failure_order);
		fprintf(out, "\nNot symbolized:\n");
		for (i = 0; i < fl.n; i++)
			fprintf(out, "  %-17s  %s\n", failure_reason(fl.v[i].err),
				report_fit_left(fl.v[i].path, name_width(r, 21), buf, sizeof(buf)));
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
