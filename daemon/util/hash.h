/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The hash index of report's tables. */
#ifndef FXS_DAEMON_HASH_H
#define FXS_DAEMON_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint64_t hash_u64(uint64_t h, uint64_t v);

/*
 * An open-addressing index from a hash to a position in an array the caller
 * owns: the keys stay in the array, compared by a callback.
 */
struct hindex {
	size_t *slots; /* position + 1; 0: empty */
	uint64_t *hashes;
	size_t cap; /* a power of two */
	size_t n;
};

typedef bool (*heq_fn)(const void *ctx, size_t pos, const void *key);

bool hindex_find(const struct hindex *h, uint64_t hash, heq_fn eq, const void *ctx, const void *key,
		 size_t *ret_pos);
int hindex_insert(struct hindex *h, uint64_t hash, size_t pos);
void hindex_free(struct hindex *h);

#endif /* FXS_DAEMON_HASH_H */
