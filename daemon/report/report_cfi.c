// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The modules whose frames went without a CFI table (the file's "cfi_module"
 * counters, unwind/cfi_status.h), for report --top's header: each named
 * once, with why and what to do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "report/report_internal.h"
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

void report_cfi_free(struct report *r)
{
	for (size_t i = 0; i < r->nr_cfi_modules; i++)
		free(r->cfi_modules[i]);
	free(r->cfi_modules);
	r->cfi_modules = NULL;
	r->nr_cfi_modules = r->cap_cfi_modules = 0;
}
