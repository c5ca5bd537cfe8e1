// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/rangemap.h"

void rangemap_init(struct rangemap *m, size_t value_size, size_t cap)
{
	*m = (struct rangemap){.value_size = value_size, .cap = cap};
	itree_init(&m->tree);
}

static void free_node(struct itree_node *n, void *ctx)
{
	(void)ctx;
	free(itree_entry(n, struct rangemap_entry, node));
}

void rangemap_clear(struct rangemap *m)
{
	itree_clear(&m->tree, free_node, NULL);
}

static bool full(const struct rangemap *m)
{
	return m->cap && m->tree.n >= m->cap;
}

static struct rangemap_entry *new_entry(struct rangemap *m, uint64_t start, uint64_t end,
					const void *value)
{
	struct rangemap_entry *e = malloc(sizeof(*e) + m->value_size);

	if (!e)
		return NULL;
	e->node.start = start;
	e->node.end = end;
	e->node.seq = ++m->seq;
	memcpy(e->value, value, m->value_size);
	return e;
}

/* Make room for [start, end): cut (or, replace, drop) every range it overlaps. */
static int make_room(struct rangemap *m, uint64_t start, uint64_t end, bool replace)
{
	struct itree_node *n;

	while ((n = itree_first_overlap(&m->tree, start, end))) {
		struct rangemap_entry *e = itree_entry(n, struct rangemap_entry, node);
		uint64_t s = n->start, x = n->end;

		itree_remove(&m->tree, n);
		if (replace || (s >= start && x <= end)) {
			free(e);
			continue;
		}
		if (s < start && x > end) {
			/* the new range lies inside: the part after it is a range of its own */
			/* n is out of the tree: with it back, the tail must fit too */
			if (m->cap && m->tree.n + 2 > m->cap) {
				m->dropped++;
			} else {
				struct rangemap_entry *tail = new_entry(m, end, x, e->value);

				if (!tail) {
					free(e);
					return -ENOMEM;
				}
				itree_insert(&m->tree, &tail->node);
			}
		}
		if (s < start) {
			n->end = start;
		} else {
			n->start = end;
			n->seq = ++m->seq;
		}
		itree_insert(&m->tree, n);
	}
	return 0;
}

int rangemap_set(struct rangemap *m, uint64_t start, uint64_t end, const void *value,
		 enum rangemap_mode mode)
{
	struct rangemap_entry *e;
	int err;

	if (start >= end)
		return -EINVAL;
	err = make_room(m, start, end, mode == RANGEMAP_REPLACE);
	if (err)
		return err;
	if (full(m)) {
		m->dropped++;
		return 1;
	}
	e = new_entry(m, start, end, value);
	if (!e)
		return -ENOMEM;
	itree_insert(&m->tree, &e->node);
	return 0;
}

int rangemap_unset(struct rangemap *m, uint64_t start, uint64_t end)
{
	return start < end ? make_room(m, start, end, false) : 0;
}

void rangemap_remove(struct rangemap *m, struct rangemap_entry *e)
{
	itree_remove(&m->tree, &e->node);
	free(e);
}

struct rangemap_entry *rangemap_find(const struct rangemap *m, uint64_t addr)
{
	struct itree_node *n =
		addr < UINT64_MAX ? itree_first_overlap(&m->tree, addr, addr + 1) : NULL;

	return n ? itree_entry(n, struct rangemap_entry, node) : NULL;
}

struct rangemap_entry *rangemap_first(const struct rangemap *m)
{
	struct itree_node *n = itree_first(&m->tree);

	return n ? itree_entry(n, struct rangemap_entry, node) : NULL;
}

struct rangemap_entry *rangemap_next(const struct rangemap *m, const struct rangemap_entry *e)
{
	struct itree_node *n = itree_next(&m->tree, &e->node);

	return n ? itree_entry(n, struct rangemap_entry, node) : NULL;
}

size_t rangemap_count(const struct rangemap *m)
{
	return m->tree.n;
}

int rangemap_copy(struct rangemap *dst, const struct rangemap *src)
{
	for (struct rangemap_entry *e = rangemap_first(src); e; e = rangemap_next(src, e)) {
		int r = rangemap_set(dst, e->node.start, e->node.end, e->value, RANGEMAP_REPLACE);

		if (r < 0)
			return r;
	}
	return 0;
}
