// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "util/sorted.h"

static const void *at(const void *base, size_t size, size_t i)
{
	return (const char *)base + i * size;
}

/* The first index in [0, n] where cmp(key, elem) < 0 (strict) or <= 0. */
static size_t bound(const void *base, size_t n, size_t size, const void *key, sorted_cmp_fn cmp,
		    int strict)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp(key, at(base, size, mid));

		if (strict ? c >= 0 : c > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t sorted_lower(const void *base, size_t n, size_t size, const void *key, sorted_cmp_fn cmp)
{
	return bound(base, n, size, key, cmp, 0);
}

size_t sorted_upper(const void *base, size_t n, size_t size, const void *key, sorted_cmp_fn cmp)
{
	return bound(base, n, size, key, cmp, 1);
}

void *sorted_find(const void *base, size_t n, size_t size, const void *key, sorted_cmp_fn cmp,
		  size_t *ret_pos)
{
	size_t i = sorted_lower(base, n, size, key, cmp);

	if (i < n && cmp(key, at(base, size, i)) == 0)
		return (void *)at(base, size, i);
	if (ret_pos)
		*ret_pos = i;
	return NULL;
}
