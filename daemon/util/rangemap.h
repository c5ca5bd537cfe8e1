/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A map of address ranges kept apart, each with a value of a fixed size: a
 * process's mappings as the kernel keeps them. Setting a range makes room for
 * it first, as mmap(2) does: what it overlaps is cut back to the parts outside
 * it (RANGEMAP_CUT: two pieces when it lies inside one), or goes whole
 * (RANGEMAP_REPLACE). On util/itree: a set, a lookup and a cut cost
 * O(log n), and each range goes at most once, so n sets cost O(n log n)
 * whatever their order (issue 40: a list with linear inserts let a process
 * mapping 200,000 regions stall the daemon).
 *
 * The cap bounds the ranges kept: a set that would go past it is dropped
 * and counted (after what it overlapped was cut: that part is unmapped
 * either way). A cut value keeps its bytes: a value must not depend on its
 * range's start (keep a bias, pc - vaddr, not a vaddr).
 */
#ifndef FXS_DAEMON_RANGEMAP_H
#define FXS_DAEMON_RANGEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/itree.h"

enum rangemap_mode {
	RANGEMAP_CUT,	  /* overlapped ranges keep their parts outside the new one */
	RANGEMAP_REPLACE, /* overlapped ranges go whole */
};

struct rangemap {
	struct itree tree;
	size_t value_size;
	size_t cap;	  /* the most ranges kept; 0: no cap */
	uint64_t dropped; /* ranges (or pieces) not kept for the cap */
	uint64_t seq;
};

/* One range; its value follows it. */
struct rangemap_entry {
	struct itree_node node; /* node.start, node.end: the range */
	max_align_t value[];
};

void rangemap_init(struct rangemap *m, size_t value_size, size_t cap);
/* Frees every range (the map stays usable, its dropped count too). */
void rangemap_clear(struct rangemap *m);
/*
 * [start, end) with *value (copied), after making room for it as mode says.
 * 0 kept, 1 dropped for the cap, -EINVAL for an empty range, -ENOMEM.
 */
int rangemap_set(struct rangemap *m, uint64_t start, uint64_t end, const void *value,
		 enum rangemap_mode mode);
/* [start, end) is unmapped: cut as RANGEMAP_CUT would, nothing set. */
int rangemap_unset(struct rangemap *m, uint64_t start, uint64_t end);
/* Take e out and free it. */
void rangemap_remove(struct rangemap *m, struct rangemap_entry *e);
/* The range holding addr, or NULL. */
struct rangemap_entry *rangemap_find(const struct rangemap *m, uint64_t addr);
/* The ranges in order of address: the first, the one after e (NULL: no more). */
struct rangemap_entry *rangemap_first(const struct rangemap *m);
struct rangemap_entry *rangemap_next(const struct rangemap *m, const struct rangemap_entry *e);
size_t rangemap_count(const struct rangemap *m);
/* dst (empty, initialized) gets a copy of src's ranges, within dst's cap. 0 or -ENOMEM. */
int rangemap_copy(struct rangemap *dst, const struct rangemap *src);

static inline void *rangemap_value(struct rangemap_entry *e)
{
	return e->value;
}

#endif /* FXS_DAEMON_RANGEMAP_H */
