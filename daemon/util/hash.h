/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one hash table of the tree: an open-addressing index from a 64-bit
 * hash to positions in an array the caller owns. The entries stay in that
 * array, in insertion order (so iterating them is deterministic), and the
 * index compares keys through a callback, so one index serves any key: ids,
 * (pid, tid) pairs, strings, whole stacks. Linear probing, the capacity a
 * power of two kept at least twice the entries; no removal. A slot is 8
 * bytes (a 32-bit position and 32 bits of the mixed hash, which place and
 * tell apart the entries), so an index holds under 2^31 entries.
 *
 * Usage: find, and when absent append to the array, then insert the new
 * position under the same hash. A zeroed struct hash_index is empty.
 */
#ifndef FXS_DAEMON_HASH_H
#define FXS_DAEMON_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hash_index {
	uint32_t *slots; /* position + 1; 0: empty */
	uint32_t *tags; /* each slot's mixed hash, high half: where it goes, and most comparisons */
	size_t cap;	/* 0, or a power of two */
	size_t n;	/* positions inserted */
};

/* Whether the entry at pos of the caller's array (ctx) has key. */
typedef bool (*hash_eq_fn)(const void *ctx, size_t pos, const void *key);

/*
 * Find key under hash: true with *ret_pos its position, or false. An empty
 * index finds nothing.
 */
bool hash_index_find(const struct hash_index *h, uint64_t hash, hash_eq_fn eq, const void *ctx,
		     const void *key, size_t *ret_pos);
/*
 * Index position pos under hash (the caller checked that its key is absent).
 * 0, or -ENOMEM with the index unchanged (also for a position or a size past
 * what 32 bits hold).
 */
int hash_index_insert(struct hash_index *h, uint64_t hash, size_t pos);
/* Drop the index, leaving it empty and reusable. NULL-safe. */
void hash_index_free(struct hash_index *h);

/* Fold a 64-bit value into FNV-1a hash h (FNV_INIT to start; util/containers.h). */
uint64_t hash_u64(uint64_t h, uint64_t v);

#endif /* FXS_DAEMON_HASH_H */
