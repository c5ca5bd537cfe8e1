/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One process's mappings as the symbolizer keeps them: every one it was
 * told of, over time (a later mapping over an earlier one does not end it:
 * a sample from before still names the earlier), in a util/itree, so that
 * adding a mapping and finding the one for a pc cost O(log n + k) for the k
 * mappings that were ever at that place (issue 40: a list scanned whole at
 * each add made report quadratic in mmap records: 21 s for 126,878).
 *
 * A mapping that began over an older one of another file or bias is a
 * "change": pcs there resolve otherwise from its time on. The times of the
 * changes are kept sorted, for symbolizer_epoch().
 */
#ifndef FXS_DAEMON_MAPPINGS_H
#define FXS_DAEMON_MAPPINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/itree.h"

/*
 * A mapping as its mmap record gave it; the caller's struct starts with it
 * (mappings_free() frees that block). Its start, end and arrival order are
 * its node's, not copies: a whole-host capture keeps 100,000 of these.
 */
struct mapping_entry {
	/*
	 * [start, end): end is start + size, or UINT64_MAX when that wraps;
	 * seq, the arrival order: of two that began at once, the later one shadows.
	 */
	struct itree_node node;
	uint64_t size, vaddr;
	uint64_t ts; /* when it began */
	unsigned flags;
	uint16_t module_id;
	bool is_change; /* it began over an older mapping: its time is in changes */
};

struct mappings {
	struct itree tree;
	uint64_t *changes; /* the times of the mappings marked is_change, sorted */
	size_t nr_changes, cap_changes;
};

/* Frees every mapping (the malloc'ed blocks they start) and the changes. */
void mappings_free(struct mappings *ms);
/*
 * Add m (every field but is_change set; of its node, start, end and seq): 1 when it is one of ms's
 * recorded again (the same range, file and flags, with no other mapping over it begun after it and
 * at or before m: that would make m the file mapped there anew), then m is not kept; 0 kept,
 * *ret_change set when a change was marked; -ENOMEM.
 */
int mappings_add(struct mappings *ms, struct mapping_entry *m, bool *ret_change);
/* The mapping covering pc at time ts: the newest that began at or before ts, else the oldest. */
struct mapping_entry *mappings_find(const struct mappings *ms, uint64_t pc, uint64_t ts);
/* The time of the last change at or before ts + 1, 0 when none (symbolizer_epoch()). */
uint64_t mappings_epoch(const struct mappings *ms, uint64_t ts);
/* fn on every mapping, in order of start. */
void mappings_each(const struct mappings *ms, void (*fn)(struct mapping_entry *m, void *ctx),
		   void *ctx);

#endif /* FXS_DAEMON_MAPPINGS_H */
