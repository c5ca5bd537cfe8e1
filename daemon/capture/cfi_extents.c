// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The free stretches of the CFI walker's arrays: first fit, joined when freed. */
#include <errno.h>
#include <string.h>

#include "util/containers.h"
#include "capture/cfi_extents.h"

int cfi_extents_init(struct free_list *fl, uint32_t len)
{
	fl->n = fl->cap = 0;
	fl->e = NULL;
	fl->total = 0;
	if (!len)
		return 0;
	if (array_reserve((void **)&fl->e, &fl->cap, 0, sizeof(*fl->e)))
		return -ENOMEM;
	fl->e[0] = (struct extent){0, len};
	fl->n = 1;
	fl->total = len;
	return 0;
}

int64_t cfi_extents_alloc(struct free_list *fl, uint32_t len)
{
	for (size_t i = 0; i < fl->n; i++) {
		struct extent *e = &fl->e[i];
		uint32_t start = e->start;

		if (e->len < len)
			continue;
		e->start += len;
		e->len -= len;
		if (!e->len) {
			memmove(e, e + 1, (fl->n - i - 1) * sizeof(*e));
			fl->n--;
		}
		fl->total -= len;
		return start;
	}
	return -ENOSPC;
}

int cfi_extents_free(struct free_list *fl, struct extent x)
{
	size_t i = 0;

	if (!x.len)
		return 0;
	while (i < fl->n && fl->e[i].start < x.start)
		i++;
	fl->total += x.len;
	/* joins the one before, the one after, or both */
	if (i > 0 && fl->e[i - 1].start + fl->e[i - 1].len == x.start) {
		fl->e[i - 1].len += x.len;
		if (i < fl->n && x.start + x.len == fl->e[i].start) {
			fl->e[i - 1].len += fl->e[i].len;
			memmove(&fl->e[i], &fl->e[i + 1], (fl->n - i - 1) * sizeof(*fl->e));
			fl->n--;
		}
		return 0;
	}
	if (i < fl->n && x.start + x.len == fl->e[i].start) {
		fl->e[i].start = x.start;
		fl->e[i].len += x.len;
		return 0;
	}
	if (array_reserve((void **)&fl->e, &fl->cap, fl->n, sizeof(*fl->e)))
		return -ENOMEM;
	memmove(&fl->e[i + 1], &fl->e[i], (fl->n - i) * sizeof(*fl->e));
	fl->e[i] = x;
	fl->n++;
	return 0;
}
