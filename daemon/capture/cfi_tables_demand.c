// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which tables in use get the room when they do not all fit (issue 37).
 *
 * The module left out is the one the capture learned of last, which need
 * not be the one stacks need least: a CI run at --cfi-memory 8M let libLLVM
 * and its small libraries in and left clang's libclang-cpp out, and as every
 * stack of clang passes through libclang-cpp, none was whole; so it is when
 * another program (llc) holds libLLVM's table in use first.
 *
 * So the stacks say which they need. While a module in use is left out, each
 * on-CPU stack counts the tables it was walked by and the one it lost its
 * table in (cfi_tables_demand()). Every DEMAND_WINDOW stacks, the module left
 * out that most of them lost their table in is let in, when at least a
 * quarter did and the tables in use whose rows make room for it walked at
 * most half as many, none of which then lost its table: they are left out in
 * its place (their frames by frame pointers, marked, and named). A table
 * walked by stacks that lost theirs further on is on the same stacks as the
 * one they lost: leaving it out for that one would make none of them whole
 * (a run here left libLLVM out for libclang-cpp; clang's stacks pass through
 * both). A table moves so at most DEMAND_MOVES times in a capture, and the
 * other way only for twice its own stacks again: no two tables take each
 * other's room in turn.
 */
#include <errno.h>
#include <stdlib.h>

#include "capture/cfi_tables.h"
#include "capture/cfi_tables_internal.h"

#define DEMAND_WINDOW 128
#define DEMAND_MOVES  4

bool cfi_tables_short(const struct cfi_tables *t)
{
	return t->stats.left_out > 0;
}

void cfi_tables_demand(struct cfi_tables *t, const uint32_t *walked, size_t nr, uint32_t lost)
{
	for (size_t i = 0; i < nr; i++) {
		if (walked[i] >= t->nr_mods)
			continue;
		t->mods[walked[i]].walked++;
		t->mods[walked[i]].walked_lost += lost != UINT32_MAX;
	}
	if (lost < t->nr_mods)
		t->mods[lost].lost++;
	t->demand_stacks++;
}

/* Whether m can be left out now and let in again later: its file can be opened again. */
static bool can_give_way(const struct mod *m)
{
	return m->state == CFI_MOD_LOADED && m->reopenable && m->moves < DEMAND_MOVES;
}

/* A loaded table's slice of the rows array. */
struct slot {
	uint32_t first, end;
	size_t id;
};

static int by_first(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/*
 * Give way to want: the rows array's cheapest stretch long enough for it,
 * whose tables all go (the free rows and those coming back between them
 * count), each costing the stacks it walked (nothing when no process maps
 * it: evicted), the shorter of two that cost the same. A table's rows are
 * one stretch, so the room must be: the same room in pieces would leave
 * want out again (a run here let libclang-cpp in for libz3 and libicuuc,
 * whose rows were not side by side, three times). Only if the cost is at
 * most half the stacks want lost. slots[] has nr_mods entries. Returns
 * whether want's room was made.
 */
static bool make_room(struct cfi_tables *t, struct mod *want, const bool *used, struct slot *slots)
{
	uint64_t best = UINT64_MAX, best_len = UINT64_MAX;
	size_t nr = 0, from = 0, to = 0;

	for (size_t i = 0; i < t->nr_mods; i++)
		if (t->mods[i].state == CFI_MOD_LOADED)
			slots[nr++] =
				(struct slot){t->mods[i].first, t->mods[i].first + t->mods[i].n, i};
	qsort(slots, nr, sizeof(*slots), by_first);
	/* the stretch from slot i's start (the end of the one before) to slot j's */
	for (size_t i = 0; i <= nr; i++) {
		uint64_t start = i ? slots[i - 1].end : 0, cost = 0;

		for (size_t j = i; cost <= best; j++) {
			uint64_t len = (j < nr ? slots[j].first : t->ops.nr_words) - start;
			const struct mod *m;

			if (len >= want->need) {
				/* at the same cost, the shorter: fewer tables out */
				if (cost < best || len < best_len) {
					best = cost;
					best_len = len;
					from = i;
					to = j;
				}
				break;
			}
			if (j == nr)
				break;
			m = &t->mods[slots[j].id];
			/* on stacks that lost their table further on: needed beside it */
			if (used[slots[j].id] && (!can_give_way(m) || m->walked_lost))
				break;
			cost += used[slots[j].id] ? m->walked : 0;
		}
	}
	if (best == UINT64_MAX || best * 2 > want->lost)
		return false;
	for (size_t k = from; k < to; k++) {
		struct mod *m = &t->mods[slots[k].id];

		if (!used[slots[k].id]) {
			cfi_tables_evict(t, m);
			continue;
		}
		cfi_tables_unload(t, m);
		m->state = CFI_MOD_LEFT_OUT;
		m->reopen = true; /* its fd was closed at its load */
		m->moves++;
		m->tries++;
		t->stats.left_out++; /* counted out until its table is loaded again */
	}
	return true;
}

int cfi_tables_rebalance(struct cfi_tables *t)
{
	struct mod *want = NULL;
	struct slot *slots;
	bool *used;

	if (t->demand_stacks < DEMAND_WINDOW)
		return 0;
	used = malloc(t->nr_mods * sizeof(*used) + 1);
	slots = malloc(t->nr_mods * sizeof(*slots) + 1);
	if (!used || !slots) {
		free(used);
		free(slots);
		return -ENOMEM;
	}
	cfi_tables_mark_in_use(t, used);
	for (size_t i = 0; i < t->nr_mods; i++) {
		struct mod *m = &t->mods[i];

		if (m->state == CFI_MOD_LEFT_OUT && used[i] && (m->fd >= 0 || m->reopen) &&
		    m->moves < DEMAND_MOVES && m->need <= t->ops.nr_words &&
		    (!want || m->lost > want->lost))
			want = m;
	}
	if (want && (uint64_t)want->lost * 4 >= t->demand_stacks &&
	    make_room(t, want, used, slots)) {
		/* made again from its file, loaded when the rows left out are no walk's */
		want->state = CFI_MOD_QUEUED;
		want->started = false;
		want->moves++;
		t->stats.swapped++;
		if ((size_t)(want - t->mods) < t->next_queued)
			t->next_queued = (size_t)(want - t->mods);
	}
	for (size_t i = 0; i < t->nr_mods; i++)
		t->mods[i].walked = t->mods[i].walked_lost = t->mods[i].lost = 0;
	t->demand_stacks = 0;
	free(used);
	free(slots);
	return 0;
}
