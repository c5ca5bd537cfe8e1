// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/hash.h"

uint64_t hash_u64(uint64_t h, uint64_t v)
{
	return fnv1a(h, &v, sizeof(v));
}

bool hash_index_find(const struct hash_index *h, uint64_t hash, hash_eq_fn eq, const void *ctx,
		     const void *key, size_t *ret_pos)
{
	size_t mask, i;

	if (!h->cap)
		return false;
	mask = h->cap - 1;
	for (i = hash & mask; h->slots[i]; i = (i + 1) & mask) {
		if (h->hashes[i] == hash && eq(ctx, h->slots[i] - 1, key)) {
			*ret_pos = h->slots[i] - 1;
			return true;
		}
	}
	return false;
}

static void put(size_t *slots, uint64_t *hashes, size_t cap, uint64_t hash, size_t slot)
{
	size_t mask = cap - 1, i;

	for (i = hash & mask; slots[i]; i = (i + 1) & mask)
		;
	slots[i] = slot;
	hashes[i] = hash;
}

int hash_index_insert(struct hash_index *h, uint64_t hash, size_t pos)
{
	/* Keep the load under one half so probes stay short. */
	if ((h->n + 1) * 2 > h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64, i;
		size_t *slots = calloc(cap, sizeof(*slots));
		uint64_t *hashes = calloc(cap, sizeof(*hashes));

		if (!slots || !hashes) {
			free(slots);
			free(hashes);
			return -ENOMEM;
		}
		for (i = 0; i < h->cap; i++)
			if (h->slots[i])
				put(slots, hashes, cap, h->hashes[i], h->slots[i]);
		free(h->slots);
		free(h->hashes);
		h->slots = slots;
		h->hashes = hashes;
		h->cap = cap;
	}
	put(h->slots, h->hashes, h->cap, hash, pos + 1);
	h->n++;
	return 0;
}

void hash_index_free(struct hash_index *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h->hashes);
	memset(h, 0, sizeof(*h));
}
