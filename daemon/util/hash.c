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

/*
 * The index's 32 bits of a hash, mixed (murmur3's finalizer) so that keys
 * hashed by FNV-1a, whose low bits vary little, spread over the slots.
 */
static uint32_t tag_of(uint64_t hash)
{
	hash ^= hash >> 33;
	hash *= 0xff51afd7ed558ccdULL;
	hash ^= hash >> 33;
	hash *= 0xc4ceb9fe1a85ec53ULL;
	hash ^= hash >> 33;
	return (uint32_t)(hash >> 32);
}

bool hash_index_find(const struct hash_index *h, uint64_t hash, hash_eq_fn eq, const void *ctx,
		     const void *key, size_t *ret_pos)
{
	uint32_t tag = tag_of(hash);
	size_t mask, i;

	if (!h->cap)
		return false;
	mask = h->cap - 1;
	for (i = tag & mask; h->slots[i]; i = (i + 1) & mask) {
		if (h->tags[i] == tag && eq(ctx, h->slots[i] - 1, key)) {
			*ret_pos = h->slots[i] - 1;
			return true;
		}
	}
	return false;
}

static void put(uint32_t *slots, uint32_t *tags, size_t cap, uint32_t tag, uint32_t slot)
{
	size_t mask = cap - 1, i;

	for (i = tag & mask; slots[i]; i = (i + 1) & mask)
		;
	slots[i] = slot;
	tags[i] = tag;
}

int hash_index_insert(struct hash_index *h, uint64_t hash, size_t pos)
{
	if (pos >= UINT32_MAX)
		return -ENOMEM;
	/* Keep the load under one half so probes stay short. */
	if ((h->n + 1) * 2 > h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64, i;
		uint32_t *slots, *tags;

		/* A tag places an entry: no more slots than its 32 bits tell apart. */
		if (cap > (size_t)UINT32_MAX + 1)
			return -ENOMEM;
		slots = calloc(cap, sizeof(*slots));
		tags = calloc(cap, sizeof(*tags));
		if (!slots || !tags) {
			free(slots);
			free(tags);
			return -ENOMEM;
		}
		for (i = 0; i < h->cap; i++)
			if (h->slots[i])
				put(slots, tags, cap, h->tags[i], h->slots[i]);
		free(h->slots);
		free(h->tags);
		h->slots = slots;
		h->tags = tags;
		h->cap = cap;
	}
	put(h->slots, h->tags, h->cap, tag_of(hash), (uint32_t)pos + 1);
	h->n++;
	return 0;
}

void hash_index_free(struct hash_index *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h->tags);
	memset(h, 0, sizeof(*h));
}
