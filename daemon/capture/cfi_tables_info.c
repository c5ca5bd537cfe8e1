// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the summary reads of the CFI tables: names, states, counters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cfi_tables.h"
#include "capture/cfi_tables_internal.h"

int cfi_tables_name(struct cfi_tables *t, int id, const char *name)
{
	char *copy;

	if (id < 0 || (size_t)id >= t->nr_mods || t->mods[id].name)
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	t->mods[id].name = copy;
	return 0;
}

size_t cfi_tables_modules(const struct cfi_tables *t, struct cfi_mod_info *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr_mods; i++) {
		const struct mod *m = &t->mods[i];

		if (m->state == CFI_MOD_QUEUED || m->state == CFI_MOD_LOADED ||
		    m->state == CFI_MOD_NO_CODE)
			continue;
		if (n < max)
			out[n] = (struct cfi_mod_info){
				.name = m->name ? m->name : "?",
				.state = m->state,
				.err = m->err,
				.bytes = (uint64_t)m->need * sizeof(uint32_t),
			};
		n++;
	}
	return n;
}

void cfi_tables_stats(const struct cfi_tables *t, struct cfi_tables_stats *ret)
{
	*ret = t->stats;
}

uint64_t cfi_tables_ranges_dropped(const struct cfi_tables *t)
{
	return t->ranges_dropped;
}

const char *cfi_tables_mod_name(const struct cfi_tables *t, uint32_t id)
{
	return id < t->nr_mods && t->mods[id].name ? t->mods[id].name : NULL;
}
