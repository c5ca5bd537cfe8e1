/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A module's rows as the CFI walker reads them: 4 bytes a row, in 64 KiB
 * pages of the module's vaddr, with the rules deduplicated in one array that
 * every module shares (include/unwind.h, "Compact rows"). cfi_table makes a
 * module's rows as 8-byte struct fxs_cfi_row {pc, rule}; this encodes them
 * into the words of the cfi_rows map, and the rules into the cfi_rules map,
 * as the OpenTelemetry profiler's stack deltas do (4-byte deltas in 64 KiB
 * pages, one global array of unwind rules).
 *
 * A module's slice of cfi_rows: nr_pages + 1 words of page index, then its
 * rows. index[i] is the number of rows below page first_page + i (so
 * index[0] is 0 and index[nr_pages] is nr_rows): the rows of a page are
 * [index[i], index[i + 1]). A row word is the pc's low 16 bits and, above
 * them, the rule's index in the rules array. The row covering a pc is the
 * last of its page at or below the pc's low bits, or, when the page has none
 * there (the pc lies before its page's first row), the row before the page's
 * first: still the last row of the module at or below pc. A lookup searches
 * one page's rows (at most 2^16, mostly a few hundred), not the module's.
 *
 * Pure: no libbpf, no logging.
 */
#ifndef FXS_DAEMON_UNWIND_CFI_PAGES_H
#define FXS_DAEMON_UNWIND_CFI_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "unwind.h"
#include "util/hash.h"

/*
 * The rules every module's rows index: append-only (a rule once written
 * never changes, so a walk reading a published row reads the right rule
 * while others are added), found again through a hash. The array is the
 * caller's (the cfi_rules map, mmapped), cap entries long.
 */
struct cfi_rules {
	uint32_t *rules;
	uint32_t cap; /* at most FXS_CFI_RULES_MAX */
	uint32_t n;
	struct hash_index index;
};

/* A module's geometry in its slice (struct fxs_cfi_table's fields). */
struct cfi_pages {
	uint32_t first_page; /* vaddr >> FXS_CFI_PAGE_SHIFT of its first row */
	uint32_t nr_pages;   /* from first_page to its last row's page */
	uint32_t nr_rows;
};

/* An empty set of rules over array (cap entries; cap > FXS_CFI_RULES_MAX: -EINVAL). */
int cfi_rules_init(struct cfi_rules *r, uint32_t *array, uint32_t cap);
void cfi_rules_free(struct cfi_rules *r);

/*
 * The words a module's slice takes (page index and rows), and its geometry
 * into *ret (may be NULL). rows sorted by pc, unique (cfi_table's); n 0: 0.
 */
uint64_t cfi_pages_words(const struct fxs_cfi_row *rows, uint32_t n, struct cfi_pages *ret);

/*
 * Encode rows into out (cfi_pages_words() long), their rules into r. 0, or
 *   -ENOSPC  the module's new rules do not fit the rules array: r is as it
 *            was, the module gets no table (named by the caller)
 *   -EINVAL  rows not sorted and unique, or out_len not the words they take
 *   -ENOMEM
 */
int cfi_pages_encode(const struct fxs_cfi_row *rows, uint32_t n, struct cfi_rules *r, uint32_t *out,
		     uint64_t out_len, struct cfi_pages *ret);

/*
 * The row covering vaddr pc in an encoded slice, as the walker finds it: its
 * index among the slice's rows (0 .. nr_rows - 1), or -1 when pc lies below
 * the first row (no FDE there: as FXS_CFI_NONE).
 */
int64_t cfi_pages_lookup(const uint32_t *words, const struct cfi_pages *g, uint32_t pc);

/* Row i of an encoded slice, decoded: its full pc and rule (r's). */
struct fxs_cfi_row cfi_pages_row(const uint32_t *words, const struct cfi_pages *g,
				 const struct cfi_rules *r, uint32_t i);

#endif /* FXS_DAEMON_UNWIND_CFI_PAGES_H */
