// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>

#include "util/containers.h"

int array_reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t new_cap;
	void *tmp;

	if (n < *cap)
		return 0;
	new_cap = *cap ? *cap * 2 : 16;
	tmp = reallocarray(*arr, new_cap, elem);
	if (!tmp)
		return -ENOMEM;
	*arr = tmp;
	*cap = new_cap;
	return 0;
}

uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
