// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "cli/commands.h"
#include "cli/record_unwind.h"
#include "unwind/cfi_status.h"

/* The modules the file names (its "cfi_module" events), each once, as lines. */
static char **named;
static size_t nr_named, cap_named;

void record_unwind_module(const struct cfi_mod_info *m)
{
	char line[4200];

	cfi_mod_describe(m, line, sizeof(line));
	for (size_t i = 0; i < nr_named; i++)
		if (!strcmp(named[i], line))
			return;
	if (array_reserve((void **)&named, &cap_named, nr_named, sizeof(*named)))
		return;
	named[nr_named] = strdup(line);
	if (named[nr_named])
		nr_named++;
}

static void name_module(const struct fxt_record *rec)
{
	const char *names[FXT_READER_MAX_ARGS];
	uint64_t values[FXT_READER_MAX_ARGS];
	struct cfi_mod_info m;

	for (unsigned i = 0; i < rec->nr_args; i++) {
		names[i] = rec->args[i].name;
		values[i] = rec->args[i].u;
	}
	if (!cfi_mod_decode(names, values, rec->nr_args, &m))
		record_unwind_module(&m);
}

bool record_unwind_read(const struct fxt_record *rec, struct capture_stats *ret)
{
	static const char *const tables[] = {"tables",	"row_bytes", "cap_bytes", "evicted",
					     "no_cfi",	"failed",    "gen_ns",	  "left_out",
					     "swapped", "from_cache"};
	uint64_t *t[] = {&ret->cfi.tables,    &ret->cfi.row_bytes, &ret->cfi.cap_bytes,
			 &ret->cfi.evicted,   &ret->cfi.no_cfi,	   &ret->cfi.failed,
			 &ret->cfi.gen_ns,    &ret->cfi.left_out,  &ret->cfi.swapped,
			 &ret->cfi.from_cache};
	uint64_t *v = !strcmp(rec->name, "unwind") ? ret->unwind.samples : ret->unwind.offcpu;
	bool is_tables = !strcmp(rec->name, "cfi_tables");

	if (!strcmp(rec->name, CFI_MODULE_EVENT)) {
		name_module(rec);
		return true;
	}
	if (!is_tables && strcmp(rec->name, "unwind") && strcmp(rec->name, "unwind_offcpu"))
		return false;
	for (unsigned i = 0; i < rec->nr_args; i++) {
		if (!rec->args[i].name)
			continue;
		for (unsigned k = 0; is_tables && k < sizeof(tables) / sizeof(tables[0]); k++)
			if (!strcmp(rec->args[i].name, tables[k]))
				*t[k] = rec->args[i].u;
		for (unsigned k = 1; !is_tables && k < CFI_COUNT_NR; k++)
			if (!strcmp(rec->args[i].name, cfi_count_name(k)))
				v[k] = rec->args[i].u;
	}
	return true;
}

static void forget_named(void)
{
	for (size_t i = 0; i < nr_named; i++)
		free(named[i]);
	free(named);
	named = NULL;
	nr_named = cap_named = 0;
}

void record_unwind_print(const struct capture_stats *st)
{
	const uint64_t *u = st->unwind.samples, *o = st->unwind.offcpu;
	char early[512];
	size_t len = 0;
	uint64_t all = 0;

	if (st->cfi_fallback)
		cli_say("unwind: by frame pointers: the CFI walker did not load (%s)",
			cfi_fallback_text(st->cfi_fallback));
	for (unsigned k = FXS_UE_END; k < CFI_COUNT_NR; k++)
		all += u[k] + o[k];
	if (!all) {
		forget_named();
		return;
	}
	early[0] = '\0';
	for (unsigned k = FXS_UE_TRUNCATED; k < FXS_UE_NR && len < sizeof(early); k++)
		if (u[k] + o[k])
			len += snprintf(early + len, sizeof(early) - len, "%s%llu %s",
					len ? ", " : "", (unsigned long long)(u[k] + o[k]),
					cfi_count_name(k));
	cli_say("unwind: %llu stacks whole (to the outermost frame), %llu went on by frame "
		"pointers, %llu found a module by its file (before its process's ranges were "
		"published); ended early: %s",
		(unsigned long long)(u[FXS_UE_END] + o[FXS_UE_END]),
		(unsigned long long)(u[CFI_COUNT_FP_FALLBACK] + o[CFI_COUNT_FP_FALLBACK]),
		(unsigned long long)(u[CFI_COUNT_BY_FILE] + o[CFI_COUNT_BY_FILE]),
		len ? early : "none");
	cli_say("unwind tables: %llu modules, %llu KiB of %llu KiB loaded, %llu evicted, %llu "
		"left out, %llu without CFI, %llu failed; made in %llu ms",
		(unsigned long long)st->cfi.tables, (unsigned long long)st->cfi.row_bytes / 1024,
		(unsigned long long)st->cfi.cap_bytes / 1024, (unsigned long long)st->cfi.evicted,
		(unsigned long long)st->cfi.left_out, (unsigned long long)st->cfi.no_cfi,
		(unsigned long long)st->cfi.failed, (unsigned long long)st->cfi.gen_ns / 1000000);
	if (st->cfi.from_cache)
		cli_say("unwind tables: %llu read from the cache of tables made before, not made "
			"again",
			(unsigned long long)st->cfi.from_cache);
	if (st->cfi.swapped)
		cli_say("unwind tables: %llu let in for the stacks that lost their table in them, "
			"in place of tables in use that fewer stacks were walked by",
			(unsigned long long)st->cfi.swapped);
	for (size_t i = 0; i < nr_named; i++)
		cli_say("unwind table: %s", named[i]);
	forget_named();
}
