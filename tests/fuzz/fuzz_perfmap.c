// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: perf maps (lang/perfmap.h) as a user writes them, fed in
 * two chunks to the picker for a few fixed pcs, then every kept entry through
 * the blob payload and its parser. Whatever is kept must cover its pc, and
 * the payload must parse back to the same entries.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lang/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t pcs[] = {0x0, 0x1000, 0x1004, 0x7f0000001000, 0xffffffffffffff00};

static int count(void *ctx, uint64_t pid, const struct perfmap_entry *e)
{
	assert(pid == 7 && e->size);
	(*(size_t *)ctx)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct perfmap_pick p;
	static char buf[32000];
	const struct perfmap_kept *k;
	size_t half = size / 2, i = 0, len = 0, kept = 0, parsed = 0;
	int err;

	if (perfmap_pick_init(&p, pcs, sizeof(pcs) / sizeof(pcs[0])))
		return 0;
	err = perfmap_pick_feed(&p, (const char *)data, half);
	if (!err)
		err = perfmap_pick_feed(&p, (const char *)data + half, size - half);
	if (!err)
		err = perfmap_pick_end(&p);
	assert(!err || err == -E2BIG || err == -ENOMEM);
	for (size_t j = 0; j < sizeof(pcs) / sizeof(pcs[0]); j++) {
		if (p.entry_of[j]) {
			const struct perfmap_kept *e = &p.kept[p.entry_of[j] - 1];

			assert(e->name && pcs[j] - e->start < e->size);
		}
	}
	while (perfmap_pick_get(&p, &i, &k)) {
		if (!perfmap_blob_add(buf, sizeof(buf), &len, 7, k->start, k->size, k->name,
				      strlen(k->name)))
			break;
		kept++;
	}
	if (len) {
		assert(perfmap_blob_parse(buf, len, count, &parsed) == 0);
		assert(parsed == kept);
	}
	perfmap_pick_free(&p);
	return 0;
}
