/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An interval tree: intervals [start, end) of addresses, in a treap ordered
 * by (start, seq) whose nodes also keep the greatest end below them, so that
 * the intervals overlapping a range are found in O(log n + k) for k found,
 * and an insert or a remove costs O(log n) (expected: the priorities are
 * pseudo-random). Intervals may overlap (the symbolizer's history of a
 * process's mappings) or be kept apart by the caller (rangemap).
 *
 * Intrusive: the caller's struct embeds a struct itree_node and owns its
 * memory; the tree only links them. seq breaks ties between intervals that
 * start at once and must be unique among them.
 */
#ifndef FXS_DAEMON_ITREE_H
#define FXS_DAEMON_ITREE_H

#include <stddef.h>
#include <stdint.h>

struct itree_node {
	struct itree_node *left, *right;
	uint64_t start, end; /* [start, end), start < end */
	uint64_t seq;
	uint64_t max_end; /* the greatest end in this subtree */
	uint32_t prio;
};

struct itree {
	struct itree_node *root;
	size_t n;
	uint32_t rng; /* xorshift state of the priorities */
};

#define itree_entry(node, type, member) ((type *)((char *)(node)-offsetof(type, member)))

/* An empty tree (a zeroed struct itree is one too). */
void itree_init(struct itree *t);
/* Link n, whose start, end and seq are set. */
void itree_insert(struct itree *t, struct itree_node *n);
/* Unlink n, which is in t. */
void itree_remove(struct itree *t, struct itree_node *n);
/*
 * The interval overlapping [start, end) that sorts first (the lowest start,
 * then the lowest seq), or NULL.
 */
struct itree_node *itree_first_overlap(const struct itree *t, uint64_t start, uint64_t end);
/*
 * fn for each interval overlapping [start, end), in order, until fn returns
 * non-zero, which is then returned. fn must not change the tree.
 */
typedef int (*itree_fn)(struct itree_node *n, void *ctx);
int itree_overlaps(const struct itree *t, uint64_t start, uint64_t end, itree_fn fn, void *ctx);
/* fn for every interval, in order, as itree_overlaps(). */
int itree_each(const struct itree *t, itree_fn fn, void *ctx);
/* The interval that sorts first, or NULL; the one after n, or NULL. */
struct itree_node *itree_first(const struct itree *t);
struct itree_node *itree_next(const struct itree *t, const struct itree_node *n);
/* Unlink every node, calling fn (may be NULL) on each, which may free it. */
void itree_clear(struct itree *t, void (*fn)(struct itree_node *n, void *ctx), void *ctx);

#endif /* FXS_DAEMON_ITREE_H */
