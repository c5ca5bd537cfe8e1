// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The `perf script` output: every sample in time order. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report_internal.h"

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
	err = report_prepare(r);
	if (err)
		return err;
	funcs = T(r->funcs, struct func);
	locs = T(r->locs, struct loc);
	period = report_period_ns(r);
	qsort(r->samples_v, r->nr_samples, sizeof(*r->samples_v), sample_order);
	for (i = 0; i < r->nr_samples; i++) {
		const struct stack *s = &stacks[r->samples_v[i].stack];
		const char *comm = report_thread_name(r, s->tid);
		uint64_t ns = report_ticks_to_ns(r, r->samples_v[i].ts);

		if (!comm)
			comm = report_process_name(r, s->pid);
		perf_field(out, comm ? comm : "", true);
		fprintf(out,
			" %" PRIu64 "/%" PRIu64 " %" PRIu64 ".%09" PRIu64 ": %" PRIu64
			" cpu-clock:\n",
			s->pid, s->tid, ns / NSEC_PER_SEC, ns % NSEC_PER_SEC, period);
		for (j = 0; j < s->nr_locs; j++) {
			const struct loc *l = &locs[s->locs[j]];
			const struct func *f = &funcs[l->func];
			unsigned frame;
			uint64_t pc = report_frame_pc(r, s, j, &frame);

			/* A kernel frame has no address in the file: perf's module marks it. */
			fprintf(out, "\t%16" PRIx64 " ", f->kernel || (pc & PYFRAME_TAG) ? 0 : pc);
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
