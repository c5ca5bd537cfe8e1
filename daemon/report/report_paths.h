/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every stack's path of labels (report_stack_path()) as ids of interned
 * labels: each distinct label is kept once, a path is 4 bytes a frame. The
 * folded stacks and the flame graph sort and merge these instead of one
 * string per stack or one string per tree node, so their memory stays near
 * the model's own (a C++ build's 60,000 deep stacks took 265 MB as strings,
 * 1.2 GB as a tree of strdup'd labels).
 */
#ifndef FXS_DAEMON_REPORT_PATHS_H
#define FXS_DAEMON_REPORT_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct report;

/* What a label stands for, by its place in the path and its location. */
enum report_label_kind {
	LABEL_ROOT,
	LABEL_PROCESS,
	LABEL_THREAD,
	LABEL_SPECIAL, /* [truncated], a frame with no module */
	LABEL_FUNC,
	LABEL_INLINED,
	LABEL_UNRESOLVED, /* a module's pc with no symbol */
};

struct report_label {
	/* A function's own name (the report's) when the label is just that, else a copy. */
	const char *text;
	enum report_label_kind kind : 8;
	bool copied : 1; /* text is the label's own */
	uint32_t rank;	 /* place among all labels by text, then kind */
};

struct report_paths {
	struct report_label *labels; /* by id; a label is its (text, kind) */
	size_t nr_labels, cap_labels;
	struct hash_index idx;
	uint32_t *ids; /* every path, one after another, outermost first */
	size_t nr_ids, cap_ids;
	size_t *start; /* path i: ids[start[i]] .. ids[start[i + 1] - 1] */
	size_t nr;     /* paths: one per stack of the report, in its order */
	unsigned max_len;
};

/* The paths of every stack of a prepared report. 0 or -ENOMEM (p freed). */
int report_paths_build(struct report *r, struct report_paths *p);
void report_paths_free(struct report_paths *p);

static inline size_t report_path_len(const struct report_paths *p, size_t i)
{
	return p->start[i + 1] - p->start[i];
}

static inline const uint32_t *report_path(const struct report_paths *p, size_t i)
{
	return p->ids + p->start[i];
}

/*
 * Path numbers 0..nr-1 in *ret_order (malloc'd), sorted as their folded
 * lines ("a;b;c") sort by strcmp; equal lines are neighbours, and
 * report_paths_text_cmp() of neighbours is 0 exactly when their lines are equal.
 */
int report_paths_text_order(const struct report_paths *p, size_t **ret_order);
int report_paths_text_cmp(const struct report_paths *p, size_t a, size_t b);
/*
 * Sorted frame by frame, each by its label's rank: the order of a tree whose
 * siblings are sorted by label, outermost frame first.
 */
int report_paths_tree_order(const struct report_paths *p, size_t **ret_order);

#endif /* FXS_DAEMON_REPORT_PATHS_H */
