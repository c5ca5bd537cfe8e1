// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Which module a stack lost its table in (unwind/cfi_lost.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/sorted.h"
#include "unwind/cfi_lost.h"

/* id in walked, once. */
static void walked_add(struct cfi_walked *walked, uint32_t id)
{
	for (size_t k = 0; k < walked->n; k++)
		if (walked->id[k] == id)
			return;
	if (walked->n < CFI_WALKED_MAX)
		walked->id[walked->n++] = id;
}

int cfi_lost_frame(const uint64_t *frames, unsigned nr, uint64_t ts, cfi_lost_lookup_fn lookup,
		   void *ctx, uint32_t *ret_id, struct cfi_walked *walked)
{
	for (unsigned i = 0; i < nr; i++) {
		/* a return address is past its call: the walker looks one byte back */
		uint64_t look = i ? frames[i] - 1 : frames[i];
		uint32_t id = UINT32_MAX;

		switch (lookup(ctx, look, ts, &id)) {
		case CFI_HAD_NO_TABLE:
			*ret_id = id;
			return (int)i;
		case CFI_HAD_TABLE:
			if (walked && id != UINT32_MAX)
				walked_add(walked, id);
			break;
		default:
			break;
		}
	}
	return -1;
}

static int cmp_id(const void *key, const void *elem)
{
	uint32_t k = *(const uint32_t *)key, e = ((const struct cfi_lost_ent *)elem)->id;

	return (k > e) - (k < e);
}

int cfi_lost_add(struct cfi_lost *l, uint32_t id)
{
	size_t pos;
	struct cfi_lost_ent *e = sorted_find(l->v, l->nr, sizeof(*l->v), &id, cmp_id, &pos);

	if (e) {
		e->n++;
		return 0;
	}
	if (array_reserve((void **)&l->v, &l->cap, l->nr, sizeof(*l->v)))
		return -ENOMEM;
	memmove(&l->v[pos + 1], &l->v[pos], (l->nr - pos) * sizeof(*l->v));
	l->v[pos] = (struct cfi_lost_ent){id, 1};
	l->nr++;
	return 0;
}

void cfi_lost_free(struct cfi_lost *l)
{
	free(l->v);
	*l = (struct cfi_lost){0};
}

/* Most counted first; ties: the lower id. */
static int cmp_count(const void *a, const void *b)
{
	const struct cfi_lost_ent *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

size_t cfi_lost_top(const struct cfi_lost *l, struct cfi_lost_ent *out, size_t max,
		    uint64_t *ret_rest)
{
	uint64_t rest = l->unknown;
	size_t n = 0;

	/* a selection into out, kept sorted: max is small */
	for (size_t i = 0; i < l->nr; i++) {
		struct cfi_lost_ent e = l->v[i];
		size_t at = n;

		while (at > 0 && cmp_count(&e, &out[at - 1]) < 0)
			at--;
		if (at >= max) {
			rest += e.n;
			continue;
		}
		if (n == max)
			rest += out[--n].n;
		memmove(&out[at + 1], &out[at], (n - at) * sizeof(*out));
		out[at] = e;
		n++;
	}
	*ret_rest = rest;
	return n;
}
