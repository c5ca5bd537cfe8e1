// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/ordered.h"

static size_t aligned(size_t size)
{
	return (size + 7) & ~(size_t)7;
}

int ordered_add(struct ordered *o, const void *rec, size_t size)
{
	size_t need = aligned(size);

	if (size < sizeof(struct fxs_sample))
		return -EINVAL;
	if (o->cap - o->len < need) {
		size_t cap = (o->cap + need) * 2;
		char *tmp = realloc(o->buf, cap);

		if (!tmp)
			return -ENOMEM;
		o->buf = tmp;
		o->cap = cap;
	}
	if (o->nr == o->cap_recs) {
		size_t cap = o->cap_recs ? 2 * o->cap_recs : 1024;
		struct ordered_rec *tmp = realloc(o->recs, cap * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		o->recs = tmp;
		o->cap_recs = cap;
	}
	memcpy(o->buf + o->len, rec, size);
	o->recs[o->nr++] = (struct ordered_rec){
		.time_ns = ((const struct fxs_sample *)rec)->time_ns,
		.seq = o->seq++,
		.off = o->len,
		.size = size,
	};
	o->len += need;
	return 0;
}

static int cmp_rec(const void *pa, const void *pb)
{
	const struct ordered_rec *a = pa, *b = pb;

	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

int ordered_flush(struct ordered *o, uint64_t horizon, ordered_fn fn, void *ctx)
{
	size_t i, j, len = 0;
	char *rest = NULL;
	int err = 0;

	if (!o->nr)
		return 0;
	qsort(o->recs, o->nr, sizeof(*o->recs), cmp_rec);
	for (i = 0; i < o->nr && o->recs[i].time_ns <= horizon; i++) {
		err = fn(ctx, (const void *)(o->buf + o->recs[i].off), o->recs[i].size);
		if (err) {
			i++;
			break;
		}
	}
	/*
	 * What stays goes to a new buffer in time order: sorted, the records
	 * are no longer in the order of their offsets, so moving them in place
	 * would overwrite some.
	 */
	if (i < o->nr) {
		rest = malloc(o->cap);
		if (!rest)
			return err ? err : -ENOMEM;
	}
	for (j = 0; i < o->nr; i++, j++) {
		memcpy(rest + len, o->buf + o->recs[i].off, o->recs[i].size);
		o->recs[j] = o->recs[i];
		o->recs[j].off = len;
		len += aligned(o->recs[i].size);
	}
	if (rest) {
		free(o->buf);
		o->buf = rest;
	}
	o->nr = j;
	o->len = len;
	return err;
}

void ordered_free(struct ordered *o)
{
	free(o->buf);
	free(o->recs);
	memset(o, 0, sizeof(*o));
}
