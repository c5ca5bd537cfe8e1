// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>

#include "util/idset.h"

static size_t slot_of(uint64_t id, size_t cap)
{
	/* Fibonacci hashing spreads sequential pids over the table. */
	return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

static void insert(uint64_t *slots, size_t cap, uint64_t id)
{
	size_t i = slot_of(id, cap);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = id;
}

static int grow(struct idset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	uint64_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i])
			insert(slots, cap, s->slots[i]);
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

int idset_has(const struct idset *s, uint64_t id)
{
	size_t i;

	if (!s->cap || !id)
		return 0;
	for (i = slot_of(id, s->cap); s->slots[i]; i = (i + 1) & (s->cap - 1))
		if (s->slots[i] == id)
			return 1;
	return 0;
}

int idset_add(struct idset *s, uint64_t id)
{
	int err;

	if (!id)
		return -EINVAL;
	if (idset_has(s, id))
		return 0;
	/* Keep the load under one half so probes stay short. */
	if ((s->len + 1) * 2 > s->cap) {
		err = grow(s);
		if (err)
			return err;
	}
	insert(s->slots, s->cap, id);
	s->len++;
	return 1;
}

void idset_free(struct idset *s)
{
	free(s->slots);
	*s = (struct idset){0};
}
