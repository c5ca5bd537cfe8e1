// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "util/containers.h"
#include "util/idset.h"

static uint64_t id_hash(uint64_t id)
{
	return hash_u64(FNV_INIT, id);
}

static bool id_eq(const void *ctx, size_t pos, const void *key)
{
	return ((const struct idset *)ctx)->ids[pos] == *(const uint64_t *)key;
}

int idset_has(const struct idset *s, uint64_t id)
{
	size_t pos;

	if (!id)
		return 0;
	return hash_index_find(&s->idx, id_hash(id), id_eq, s, &id, &pos);
}

int idset_add(struct idset *s, uint64_t id)
{
	if (!id)
		return -EINVAL;
	if (idset_has(s, id))
		return 0;
	if (array_reserve((void **)&s->ids, &s->cap_ids, s->len, sizeof(*s->ids)) ||
	    hash_index_insert(&s->idx, id_hash(id), s->len))
		return -ENOMEM;
	s->ids[s->len++] = id;
	return 1;
}

void idset_free(struct idset *s)
{
	if (!s)
		return;
	free(s->ids);
	hash_index_free(&s->idx);
	*s = (struct idset){0};
}
