/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A growable set of non-zero 64-bit ids (pids, tids, keys) on util/hash.h's
 * index: the ids in insertion order, indexed by their hash. A zeroed struct
 * idset is empty.
 */
#ifndef FXS_DAEMON_IDSET_H
#define FXS_DAEMON_IDSET_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct idset {
	uint64_t *ids; /* [len], in the order they were added */
	size_t len;
	size_t cap_ids;
	struct hash_index idx;
};

/* 1 if id was added, 0 if it was there, -ENOMEM, -EINVAL for id 0. */
int idset_add(struct idset *s, uint64_t id);
int idset_has(const struct idset *s, uint64_t id);
/* Leaves the set empty and reusable. NULL-safe. */
void idset_free(struct idset *s);

#endif /* FXS_DAEMON_IDSET_H */
