// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/sorted.h"
#include "symbols/mappings.h"

static struct mapping_entry *of(struct itree_node *n)
{
	return itree_entry(n, struct mapping_entry, node);
}

static void free_node(struct itree_node *n, void *ctx)
{
	(void)ctx;
	free(of(n));
}

void mappings_free(struct mappings *ms)
{
	itree_clear(&ms->tree, free_node, NULL);
	free(ms->changes);
	ms->changes = NULL;
	ms->nr_changes = ms->cap_changes = 0;
}

/* a began after b: later, or at the same time and recorded later. */
static bool newer(const struct mapping_entry *a, const struct mapping_entry *b)
{
	return a->ts != b->ts ? a->ts > b->ts : a->node.seq > b->node.seq;
}

static int cmp_u64(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, e = *(const uint64_t *)elem;

	return (k > e) - (k < e);
}

/* m began over an older mapping: pcs may resolve otherwise from its time on. */
static int mark_change(struct mappings *ms, struct mapping_entry *m)
{
	uint64_t ts = m->ts;
	size_t i = sorted_upper(ms->changes, ms->nr_changes, sizeof(ts), &ts, cmp_u64);

	if (m->is_change)
		return 0;
	if (array_reserve((void **)&ms->changes, &ms->cap_changes, ms->nr_changes, sizeof(ts)))
		return -ENOMEM;
	memmove(&ms->changes[i + 1], &ms->changes[i], (ms->nr_changes - i) * sizeof(ts));
	ms->changes[i] = ts;
	ms->nr_changes++;
	m->is_change = true;
	return 0;
}

static bool same(const struct mapping_entry *o, const struct mapping_entry *m)
{
	return o->node.start == m->node.start && o->size == m->size && o->vaddr == m->vaddr &&
	       o->module_id == m->module_id && o->flags == m->flags;
}

struct place {
	struct mapping_entry *m;
	struct mapping_entry *twin; /* the newest recorded like m, begun at or before it */
	struct mappings *ms;
	bool change;
	int err;
};

/* The newest earlier record of m itself, if any. */
static int find_twin(struct itree_node *n, void *ctx)
{
	struct place *pl = ctx;
	struct mapping_entry *o = of(n);

	if (same(o, pl->m) && o->ts <= pl->m->ts && (!pl->twin || newer(o, pl->twin)))
		pl->twin = o;
	return 0;
}

/* Another mapping over the twin, begun after it and at or before m: m is no repeat. */
static int covers_twin(struct itree_node *n, void *ctx)
{
	struct place *pl = ctx;
	struct mapping_entry *x = of(n);

	return x != pl->twin && newer(x, pl->twin) && x->ts <= pl->m->ts;
}

/* The same file at the same bias names every pc alike: no change. */
static int mark_changes(struct itree_node *n, void *ctx)
{
	struct place *pl = ctx;
	struct mapping_entry *o = of(n), *m = pl->m;

	if (o->module_id != m->module_id || o->node.start - o->vaddr != m->node.start - m->vaddr) {
		pl->err = mark_change(pl->ms, newer(m, o) ? m : o);
		pl->change = true;
	}
	return pl->err;
}

int mappings_add(struct mappings *ms, struct mapping_entry *m, bool *ret_change)
{
	struct place pl = {.m = m, .ms = ms};
	uint64_t start = m->node.start, end = m->node.end;

	*ret_change = false;
	/*
	 * Only the newest twin needs looking at: a mapping begun over an older
	 * twin after it is newer than that one too, or is the newest twin.
	 */
	itree_overlaps(&ms->tree, start, end, find_twin, &pl);
	if (pl.twin && !itree_overlaps(&ms->tree, start, end, covers_twin, &pl))
		return 1;
	itree_overlaps(&ms->tree, start, end, mark_changes, &pl);
	if (pl.err)
		return pl.err;
	*ret_change = pl.change;
	itree_insert(&ms->tree, &m->node);
	return 0;
}

struct lookup {
	uint64_t ts;
	struct mapping_entry *best, *oldest;
};

static int pick(struct itree_node *n, void *ctx)
{
	struct lookup *l = ctx;
	struct mapping_entry *m = of(n);

	if (!l->oldest || newer(l->oldest, m))
		l->oldest = m;
	if (m->ts <= l->ts && (!l->best || newer(m, l->best)))
		l->best = m;
	return 0;
}

struct mapping_entry *mappings_find(const struct mappings *ms, uint64_t pc, uint64_t ts)
{
	struct lookup l = {.ts = ts};

	if (pc == UINT64_MAX)
		return NULL;
	itree_overlaps(&ms->tree, pc, pc + 1, pick, &l);
	return l.best ? l.best : l.oldest;
}

uint64_t mappings_epoch(const struct mappings *ms, uint64_t ts)
{
	size_t i = sorted_upper(ms->changes, ms->nr_changes, sizeof(ts), &ts, cmp_u64);

	/* + 1: a change may be at time 0, and 0 is the epoch before the first */
	return !i ? 0 : ms->changes[i - 1] == UINT64_MAX ? UINT64_MAX : ms->changes[i - 1] + 1;
}

struct each {
	void (*fn)(struct mapping_entry *m, void *ctx);
	void *ctx;
};

static int each_fn(struct itree_node *n, void *ctx)
{
	struct each *e = ctx;

	e->fn(of(n), e->ctx);
	return 0;
}

void mappings_each(const struct mappings *ms, void (*fn)(struct mapping_entry *m, void *ctx),
		   void *ctx)
{
	struct each e = {fn, ctx};

	itree_each(&ms->tree, each_fn, &e);
}
