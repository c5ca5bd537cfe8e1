/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CFI walker's tables as BPF reads them (include/unwind_maps.h says how
 * user space fills them): each module's 4-byte rows in 64 KiB pages, found
 * by its page index, and the one array of rules the rows index
 * (daemon/unwind/cfi_pages encodes them). A pc's row is a binary search of
 * its page's rows alone; the searches are global functions, verified once
 * each. Included by walk_cfi.bpf.h.
 */
#ifndef FXS_BPF_CFI_ROWS_BPF_H
#define FXS_BPF_CFI_ROWS_BPF_H

#include "unwind.h"
#include "unwind_maps.h"

/*
 * Sized by user space before load (the table memory cap); 1 when unused.
 * Words: the modules' page indexes and 4-byte rows (include/unwind.h),
 * FXS_CFI_WORDS a value (cfi_word()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxs_cfi_words);
} cfi_rows SEC(".maps");

/* The rules the rows index (FXS_CFI_RULES_MAX words once sized; 1 value when unused). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxs_cfi_words);
} cfi_rules SEC(".maps");

/* Word i of an array of words (cfi_rows, cfi_rules), or NULL past its end. */
static __always_inline __u32 *cfi_word(void *map, __u32 i)
{
	__u32 key = i >> FXS_CFI_WORDS_LOG;
	struct fxs_cfi_words *v = bpf_map_lookup_elem(map, &key);

	return v ? &v->w[i & (FXS_CFI_WORDS - 1)] : NULL;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FXS_CFI_MAX_TABLES);
	__type(key, __u32);
	__type(value, struct fxs_cfi_table);
} cfi_tables SEC(".maps");

/*
 * The index in cfi_rows of the last row of [first, first + nr) (one page's
 * rows) whose offset in the page is at or below off, or -1. Global:
 * verified once, on its own.
 */
__noinline int cfi_find_row(__u32 first, __u32 nr, __u32 off)
{
	__u32 lo = 0, hi = nr, mid, *row;

	if (nr == 0 || nr > (1U << FXS_CFI_ROWS_LOG))
		return -1;
	for (int i = 0; i <= FXS_CFI_ROWS_LOG && lo < hi; i++) {
		mid = lo + (hi - lo) / 2;
		row = cfi_word(&cfi_rows, first + mid);
		if (!row)
			return -1;
		if (FXS_CFI_WORD_OFF(*row) <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	return first + lo - 1;
}

/* A table's rows that may hold vaddr rel's row, from its page index. */
struct fxs_cfi_page {
	__u32 rows; /* the index in cfi_rows of the table's first row */
	__u32 lo;   /* the page's first row (counted from the table's first) */
	__u32 hi;   /* its end: the next page's first */
	__u32 last; /* rel lies past the last row's page: its row is the table's last */
};

/* rel's page of table t into *p: false when rel lies below the table's first page. */
static __always_inline bool cfi_page(const struct fxs_cfi_table *t, __u32 rel,
				     struct fxs_cfi_page *p)
{
	__u32 page = rel >> FXS_CFI_PAGE_SHIFT, *lo, *hi;

	p->rows = t->first + t->nr_pages + 1;
	p->last = 0;
	if (page < t->first_page)
		return false;
	page -= t->first_page;
	if (page >= t->nr_pages) {
		p->last = 1;
		return true;
	}
	lo = cfi_word(&cfi_rows, t->first + page);
	hi = cfi_word(&cfi_rows, t->first + page + 1);
	if (!lo || !hi || *lo > *hi || *hi > t->nr_rows)
		return false;
	p->lo = *lo;
	p->hi = *hi;
	return true;
}

/*
 * The index in cfi_rows of the row covering vaddr rel in table (its key in
 * cfi_tables, loaded), or -1 (below its first row: as FXS_CFI_NONE). The last
 * row of rel's page at or below it, or the row before the page's first (the
 * last of an earlier page): one page's rows searched, not the table's.
 * Global: verified once, on its own.
 */
__noinline int cfi_table_row(__u32 table, __u32 rel)
{
	struct fxs_cfi_table *t = bpf_map_lookup_elem(&cfi_tables, &table);
	struct fxs_cfi_page p;
	int ri;

	if (!t || !t->nr_rows || !cfi_page(t, rel, &p))
		return -1;
	if (p.last)
		return p.rows + t->nr_rows - 1;
	ri = cfi_find_row(p.rows + p.lo, p.hi - p.lo, rel & 0xffff);
	if (ri >= 0)
		return ri;
	return p.lo ? (int)(p.rows + p.lo - 1) : -1;
}

/*
 * Whether row (an index in cfi_rows) is the one cfi_table_row() finds for
 * rel in table, by the page index and the rows beside it alone (a hint's
 * check): 1 or 0. Global: verified once, on its own.
 */
__noinline int cfi_row_holds(__u32 table, __u32 rel, __u32 row)
{
	struct fxs_cfi_table *t = bpf_map_lookup_elem(&cfi_tables, &table);
	__u32 i, off = rel & 0xffff, *w, *next;
	struct fxs_cfi_page p;

	if (!t || !t->nr_rows || !cfi_page(t, rel, &p))
		return 0;
	i = row - p.rows; /* the row, counted from the table's first */
	w = cfi_word(&cfi_rows, row);
	next = cfi_word(&cfi_rows, row + 1);
	if (!w || i >= t->nr_rows)
		return 0;
	if (p.last)
		return i + 1 == t->nr_rows;
	if (i + 1 == p.lo)
		/* the row before the page's first: the page has none at or below off */
		return p.lo == p.hi || (next && FXS_CFI_WORD_OFF(*next) > off);
	/* the page's last row at or below off */
	if (i < p.lo || i >= p.hi || FXS_CFI_WORD_OFF(*w) > off)
		return 0;
	return i + 1 == p.hi || (next && FXS_CFI_WORD_OFF(*next) > off);
}

/* The rule of a row (a word of cfi_rows): unsupported if its index is no rule's. */
static __always_inline __u32 cfi_rule_of(__u32 word)
{
	__u32 *rule = cfi_word(&cfi_rules, FXS_CFI_WORD_RULE(word));

	return rule ? *rule : FXS_CFI_UNSUPPORTED;
}

#endif /* FXS_BPF_CFI_ROWS_BPF_H */
