// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Folded stacks ("a;b;c count"), and the stack labels the flame graph shares. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"
#include "report/report_paths.h"

/* ---- folded ---- */

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
	const struct name_ent *e = report_find_name(&r->procs, pid);

	return e ? e->cmdline : NULL;
}

unsigned report_root_frames(const struct report *r)
{
	return r->no_root_frames ? 0 : r->folded_no_thread ? 1 : 2;
}

/*
 * The labels of a stack root first: process and thread (report_root_frames()
 * of them), "[truncated]" when the walk was cut, then the frames outermost
 * first. Writes them into b separated by NULs; returns their number.
 */
size_t report_stack_path(const struct report *r, const struct stack *s, struct sbuf *b)
{
	const struct func *funcs = T(r->funcs, struct func);
	const struct loc *locs = T(r->locs, struct loc);
	unsigned roots = report_root_frames(r);
	const char *name = NULL;
	size_t n = 0;
	unsigned j;

	b->len = 0;
	if (roots >= 1) {
		if (r->split_processes)
			name = process_cmdline(r, s->pid);
		if (!name)
			name = report_process_name(r, s->pid);
		if (name)
			sb_frame(b, name);
		else
			sb_printf(b, "[pid %" PRIu64 "]", s->pid);
		sb_put(b, "", 1);
		n++;
	}
	if (roots >= 2) {
		name = report_thread_name(r, s->tid);
		if (name) {
			sb_frame(b, name);
			/* Threads that share a name share their frame unless asked. */
			if (r->split_threads)
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
	for (j = s->nr_locs; j-- > 0;) {
		const struct loc *l = &locs[s->locs[j]];
		unsigned k;

		sb_frame(b, funcs[l->func].name);
		/* flamegraph.pl's (and stackcollapse-perf's) mark of a kernel frame */
		if (funcs[l->func].kernel)
			sb_put(b, KERNEL_SUFFIX, strlen(KERNEL_SUFFIX));
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

/* Path i's folded line: its labels separated by ';'. */
static void put_line(FILE *out, const struct report_paths *p, size_t i)
{
	const uint32_t *ids = report_path(p, i);
	size_t k, n = report_path_len(p, i);

	for (k = 0; k < n; k++) {
		if (k)
			fputc(';', out);
		fputs(p->labels[ids[k]].text, out);
	}
}

int report_write_folded(struct report *r, FILE *out)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	struct report_paths p;
	size_t *order = NULL, i, k;
	int err;

	err = report_prepare(r);
	if (!err)
		err = report_paths_build(r, &p);
	if (err)
		return err;
	err = report_paths_text_order(&p, &order);
	/* Different pcs in the same functions fold into one line. */
	for (i = 0; !err && i < p.nr; i = k) {
		uint64_t count = 0;

		for (k = i; k < p.nr && !report_paths_text_cmp(&p, order[k], order[i]); k++)
			count += stacks[order[k]].count;
		put_line(out, &p, order[i]);
		fprintf(out, " %" PRIu64 "\n", count);
	}
	if (!err && ferror(out))
		err = -EIO;
	free(order);
	report_paths_free(&p);
	return err;
}
