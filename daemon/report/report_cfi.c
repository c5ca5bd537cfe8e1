// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The modules whose frames went without a CFI table (the file's "cfi_module"
 * counters, unwind/cfi_status.h), for report --top's header: each named
 * once, with why and what to do.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "report/report_internal.h"
#include "unwind/cfi_lost.h"
#include "unwind/cfi_status.h"

int report_cfi_module(struct report *r, const struct fxt_record *rec)
{
	const char *names[FXT_READER_MAX_ARGS];
	uint64_t values[FXT_READER_MAX_ARGS];
	struct cfi_mod_info m;
	char line[4200];

	for (unsigned i = 0; i < rec->nr_args; i++) {
		names[i] = rec->args[i].name;
		values[i] = rec->args[i].u;
	}
	if (cfi_mod_decode(names, values, rec->nr_args, &m))
		return 0; /* a newer writer's: skipped */
	cfi_mod_describe(&m, line, sizeof(line));
	for (size_t i = 0; i < r->nr_cfi_modules; i++)
		if (!strcmp(r->cfi_modules[i], line))
			return 0;
	if (array_reserve((void **)&r->cfi_modules, &r->cap_cfi_modules, r->nr_cfi_modules,
			  sizeof(*r->cfi_modules)))
		return -ENOMEM;
	r->cfi_modules[r->nr_cfi_modules] = strdup(line);
	if (!r->cfi_modules[r->nr_cfi_modules])
		return -ENOMEM;
	r->nr_cfi_modules++;
	return 0;
}

void report_cfi_header(const struct report *r, FILE *out)
{
	if (!r->nr_cfi_modules)
		return;
	fprintf(out, "Modules without unwind tables: %zu\n", r->nr_cfi_modules);
	for (size_t i = 0; i < r->nr_cfi_modules; i++) {
		char buf[512];

		/* on a terminal, a long path loses its start, as --top's modules do */
		fprintf(out, "  %s\n",
			r->width > 2
				? report_fit_left(r->cfi_modules[i], r->width - 2, buf, sizeof(buf))
				: r->cfi_modules[i]);
	}
}

int report_cfi_lost(struct report *r, const struct fxt_record *rec)
{
	for (unsigned i = 0; i < rec->nr_args; i++) {
		const char *name = rec->args[i].name;
		unsigned k;

		if (!name || rec->args[i].type != FXT_ARG_UINT64)
			continue;
		for (k = 0; k < r->nr_cfi_lost && strcmp(r->cfi_lost[k].name, name); k++)
			;
		/* past the slots (files of many captures): the last one, the others, takes it */
		if (k == r->nr_cfi_lost && k == CFI_LOST_NAMED)
			k = CFI_LOST_NAMED - 1;
		if (k == r->nr_cfi_lost) {
			r->cfi_lost[k].name = strdup(name);
			if (!r->cfi_lost[k].name)
				return -ENOMEM;
			r->nr_cfi_lost++;
		}
		r->cfi_lost[k].n += rec->args[i].u;
	}
	return 0;
}

static int lost_order(const void *pa, const void *pb)
{
	const struct report_lost *a = pa, *b = pb;

	/* the others last; else most first, then by name */
	if (!strcmp(a->name, CFI_LOST_OTHERS) != !strcmp(b->name, CFI_LOST_OTHERS))
		return !strcmp(a->name, CFI_LOST_OTHERS) ? 1 : -1;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->name, b->name);
}

void report_cfi_lost_lines(const struct report *r, FILE *out)
{
	struct report_lost v[CFI_LOST_NAMED + 1];
	unsigned n = r->nr_cfi_lost;

	memcpy(v, r->cfi_lost, n * sizeof(*v));
	qsort(v, n, sizeof(*v), lost_order);
	for (unsigned i = 0; i < n; i++) {
		const char *base = strrchr(v[i].name, '/');
		char buf[512];

		/* under the reason's count: the module by its file's name, as --top names them */
		base = base && base[1] ? base + 1 : v[i].name;
		fprintf(out, "  %9s %7" PRIu64 " %s\n", "", v[i].n,
			r->width > 22 ? report_fit_left(base, r->width - 20, buf, sizeof(buf))
				      : base);
	}
}

void report_cfi_free(struct report *r)
{
	for (unsigned i = 0; i < r->nr_cfi_lost; i++)
		free(r->cfi_lost[i].name);
	r->nr_cfi_lost = 0;
	for (size_t i = 0; i < r->nr_cfi_modules; i++)
		free(r->cfi_modules[i]);
	free(r->cfi_modules);
	r->cfi_modules = NULL;
	r->nr_cfi_modules = r->cap_cfi_modules = 0;
}
