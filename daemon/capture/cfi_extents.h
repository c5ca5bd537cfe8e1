/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The free stretches of one of the CFI walker's arrays (rows, ranges) that
 * cfi_tables hands out: first fit, neighbours joined when freed. Pure.
 */
#ifndef FXS_DAEMON_CFI_EXTENTS_H
#define FXS_DAEMON_CFI_EXTENTS_H

#include <stddef.h>
#include <stdint.h>

/* A stretch of one of the arrays. */
struct extent {
	uint32_t start, len;
};

struct free_list {
	struct extent *e; /* sorted by start, apart */
	size_t n, cap;
	uint64_t total;
};

/* All len entries free. 0 or -ENOMEM. */
int cfi_extents_init(struct free_list *fl, uint32_t len);
/* First fit: the start of len free entries, or -ENOSPC. */
int64_t cfi_extents_alloc(struct free_list *fl, uint32_t len);
/* x free again, joined with its neighbours. 0 or -ENOMEM. */
int cfi_extents_free(struct free_list *fl, struct extent x);

#endif /* FXS_DAEMON_CFI_EXTENTS_H */
