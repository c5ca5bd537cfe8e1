// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "util/containers.h"
#include "util/hash.h"
#include "unwind/cfi_pages.h"

static bool rule_eq(const void *ctx, size_t pos, const void *key)
{
	return ((const uint32_t *)ctx)[pos] == *(const uint32_t *)key;
}

static uint64_t rule_hash(uint32_t rule)
{
	return hash_u64(FNV_INIT, rule);
}

int cfi_rules_init(struct cfi_rules *r, uint32_t *array, uint32_t cap)
{
	if (cap > FXS_CFI_RULES_MAX)
		return -EINVAL;
	*r = (struct cfi_rules){.rules = array, .cap = cap};
	return 0;
}

void cfi_rules_free(struct cfi_rules *r)
{
	hash_index_free(&r->index);
	r->n = 0;
}

/* rule's index, added when new; -ENOSPC when full, -ENOMEM. */
static int64_t intern(struct cfi_rules *r, uint32_t rule)
{
	uint64_t h = rule_hash(rule);
	size_t pos;

	if (hash_index_find(&r->index, h, rule_eq, r->rules, &rule, &pos))
		return (int64_t)pos;
	if (r->n >= r->cap)
		return -ENOSPC;
	r->rules[r->n] = rule;
	if (hash_index_insert(&r->index, h, r->n))
		return -ENOMEM;
	return r->n++;
}

/*
 * Back to the first n rules: the index is made again (at most 2^16 entries,
 * and only when a module's rules did not fit). The words past n stay written
 * but no row names them; the next rules written overwrite them.
 */
static int truncate_rules(struct cfi_rules *r, uint32_t n)
{
	hash_index_free(&r->index);
	r->n = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (hash_index_insert(&r->index, rule_hash(r->rules[i]), i))
			return -ENOMEM;
		r->n++;
	}
	return 0;
}

uint64_t cfi_pages_words(const struct fxs_cfi_row *rows, uint32_t n, struct cfi_pages *ret)
{
	struct cfi_pages g = {0};

	if (n) {
		g.first_page = rows[0].pc >> FXS_CFI_PAGE_SHIFT;
		g.nr_pages = (rows[n - 1].pc >> FXS_CFI_PAGE_SHIFT) - g.first_page + 1;
		g.nr_rows = n;
	}
	if (ret)
		*ret = g;
	return n ? (uint64_t)g.nr_pages + 1 + n : 0;
}

int cfi_pages_encode(const struct fxs_cfi_row *rows, uint32_t n, struct cfi_rules *r, uint32_t *out,
		     uint64_t out_len, struct cfi_pages *ret)
{
	/*
	 * The rules a module uses most, by a few bits of their own: most rows
	 * find theirs here, not in the hash (libLLVM's 950 k rows: 35 ms by
	 * the hash alone).
	 */
	struct {
		uint32_t rule;
		int32_t idx; /* -1: empty */
	} cache[256];
	uint32_t saved = r->n, page = 0;
	struct cfi_pages g;
	uint32_t *index = out, *words;

	if (cfi_pages_words(rows, n, &g) != out_len)
		return -EINVAL;
	if (ret)
		*ret = g;
	if (!n)
		return 0;
	memset(cache, 0xff, sizeof(cache));
	words = out + g.nr_pages + 1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = (rows[i].pc >> FXS_CFI_PAGE_SHIFT) - g.first_page, rule = rows[i].rule;
		uint32_t slot = (rule * 0x9e3779b1u) >> 24;

		if (i && rows[i].pc <= rows[i - 1].pc)
			goto bad;
		/* pages up to p start at row i (empty ones between hold none) */
		while (page <= p)
			index[page++] = i;
		if (cache[slot].idx < 0 || cache[slot].rule != rule) {
			int64_t idx = intern(r, rule);

			if (idx < 0)
				return truncate_rules(r, saved) ? -ENOMEM : (int)idx;
			cache[slot].rule = rule;
			cache[slot].idx = (int32_t)idx;
		}
		words[i] = FXS_CFI_WORD(rows[i].pc & 0xffff, (uint32_t)cache[slot].idx);
	}
	index[g.nr_pages] = n;
	return 0;
bad:
	return truncate_rules(r, saved) ? -ENOMEM : -EINVAL;
}

int64_t cfi_pages_lookup(const uint32_t *words, const struct cfi_pages *g, uint32_t pc)
{
	uint32_t page = pc >> FXS_CFI_PAGE_SHIFT, off = pc & 0xffff, lo, hi;
	const uint32_t *rows = words + g->nr_pages + 1;

	if (!g->nr_rows || page < g->first_page)
		return -1;
	if (page - g->first_page >= g->nr_pages)
		return (int64_t)g->nr_rows - 1; /* past the last row's page: the last row */
	lo = words[page - g->first_page];
	hi = words[page - g->first_page + 1];
	/* lo: the rows of the page at or below off, counted from the page's first */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (FXS_CFI_WORD_OFF(rows[mid]) <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo - 1: the page's last row at or below off, or the row before the page's first */
	return (int64_t)lo - 1;
}

struct fxs_cfi_row cfi_pages_row(const uint32_t *words, const struct cfi_pages *g,
				 const struct cfi_rules *r, uint32_t i)
{
	uint32_t page = 0, w = words[g->nr_pages + 1 + i], ri = FXS_CFI_WORD_RULE(w);

	/* the page holding row i: the last whose first row is at or below i */
	while (page + 1 < g->nr_pages && words[page + 1] <= i)
		page++;
	return (struct fxs_cfi_row){.pc = ((g->first_page + page) << FXS_CFI_PAGE_SHIFT) |
					  FXS_CFI_WORD_OFF(w),
				    .rule = ri < r->n ? r->rules[ri] : FXS_CFI_NONE};
}
