/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one binary search of an array sorted by a key: base holds n elements
 * of size bytes each (structs, or pointers to them). cmp(key, elem) orders
 * key against one element as bsearch(3)'s does: < 0 when key sorts before
 * elem, 0 when it matches, > 0 when it sorts after; along the array it must
 * never go from <= 0 back to > 0 (the array is sorted for that key). The
 * results are indices into base, so an insertion point comes for free.
 */
#ifndef FXS_DAEMON_SORTED_H
#define FXS_DAEMON_SORTED_H

#include <stddef.h>

typedef int (*sorted_cmp_fn)(const void *key, const void *elem);

/*
 * The first index i with cmp(key, base[i]) <= 0, or n: the lower bound, where
 * key goes before the elements it matches.
 */
size_t sorted_lower(const void *base, size_t n, size_t size, const void *key, sorted_cmp_fn cmp);
/*
 * The first index i with cmp(key, base[i]) < 0, or n: the upper bound, the
 * number of elements key matches or sorts after (for ranges sorted by start,
 * the last one starting at or below an address is the one before it).
 */
size_t sorted_upper(const void *base, size_t n, size_t size, const void *key, sorted_cmp_fn cmp);
/*
 * The first element matching key, or NULL; then *ret_pos (if not NULL) is
 * where key would be inserted to keep the array sorted.
 */
void *sorted_find(const void *base, size_t n, size_t size, const void *key, sorted_cmp_fn cmp,
		  size_t *ret_pos);

#endif /* FXS_DAEMON_SORTED_H */
