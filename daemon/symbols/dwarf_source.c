// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* DWARF answers of module files, one file's DWARF open at a time in a batch. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/sorted.h"
#include "util/strpool.h"
#include "symbols/dwarf_source.h"

/* Frames handed out, packed: a chunk is never moved or freed before ss. */
struct frame_chunk {
	struct frame_chunk *next;
	size_t used, cap;
	struct dwarf_frame frames[];
};

/* One (file, vaddr) of the batch. */
struct dwarf_want {
	struct dwarf_source *src;
	uint64_t vaddr;
};

#define CHUNK_FRAMES 1024

/* Room for n frames that never move; NULL: -ENOMEM. */
static struct dwarf_frame *hold(struct dwarf_sources *ss, unsigned n)
{
	struct frame_chunk *c = ss->chunks;

	if (!c || c->cap - c->used < n) {
		size_t cap = n > CHUNK_FRAMES ? n : CHUNK_FRAMES;

		c = malloc(sizeof(*c) + cap * sizeof(c->frames[0]));
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = ss->chunks;
		ss->chunks = c;
	}
	c->used += n;
	return &c->frames[c->used - n];
}

/* Open src's DWARF (once): dl, or NULL when it has none. -ENOMEM only. */
static int open_source(struct dwarf_sources *ss, struct dwarf_source *src)
{
	if (src->tried)
		return 0;
	src->tried = true;
	src->closed = false;
	if (src->no_dwarf)
		return 0;
	src->dl = dwarf_lines__open(src->path, src->build_id, src->build_id_len, &ss->opts,
				    &src->fetch_err);
	return !src->dl && errno == ENOMEM ? -ENOMEM : 0;
}

static int cmp_kept(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, e = ((const struct dwarf_kept *)elem)->vaddr;

	return (k > e) - (k < e);
}

static const struct dwarf_kept *find_kept(const struct dwarf_source *src, uint64_t vaddr)
{
	return sorted_find(src->kept, src->nr_kept, sizeof(*src->kept), &vaddr, cmp_kept, NULL);
}

/*
 * n frames of a lookup made to last, the inlined ones named: whole, a whole
 * chain (its last the subprogram) with its strings interned, for a DWARF
 * about to close; else inlined frames alone, pointing into the open DWARF.
 */
static const struct dwarf_frame *keep_frames(struct dwarf_sources *ss,
					     const struct dwarf_frame *frames, int n, bool whole)
{
	struct dwarf_frame *f = hold(ss, (unsigned)n);
	int i;

	if (!f)
		return NULL;
	for (i = 0; i < n; i++) {
		f[i] = frames[i];
		if (whole) {
			if ((frames[i].function &&
			     !(f[i].function = strpool_str(ss->pool, frames[i].function))) ||
			    (frames[i].file &&
			     !(f[i].file = strpool_str(ss->pool, frames[i].file))) ||
			    (frames[i].decl_file &&
			     !(f[i].decl_file = strpool_str(ss->pool, frames[i].decl_file))))
				return NULL;
		}
		/* the subprogram's missing name is the caller's to replace (by the ELF symbol's) */
		if ((i < n - 1 || !whole) && !f[i].function)
			f[i].function = ss->unknown;
	}
	return f;
}

/* The answer of n frames into *outer and *inlined (held when not yet). */
static int answer(struct dwarf_sources *ss, const struct dwarf_frame *frames, int n, bool held,
		  struct dwarf_frame *outer, const struct dwarf_frame **inlined)
{
	if (n <= 0)
		return n;
	*outer = frames[n - 1];
	if (n == 1)
		return 1;
	*inlined = held ? frames : keep_frames(ss, frames, n - 1, false);
	return *inlined ? n : -ENOMEM;
}

int dwarf_source_lookup(struct dwarf_sources *ss, struct dwarf_source *src, uint64_t vaddr,
			struct dwarf_frame *outer, const struct dwarf_frame **inlined)
{
	struct dwarf_frame frames[DWARF_MAX_FRAMES];
	const struct dwarf_kept *k;
	int err;

	*inlined = NULL;
	if (src->closed) {
		k = find_kept(src, vaddr);
		if (k)
			return answer(ss, k->frames, (int)k->n, true, outer, inlined);
		/* not in a batch: the DWARF again, open from now on */
		src->tried = false;
		err = open_source(ss, src);
		if (!src->dl) {
			/* gone since: the kept answers still answer theirs */
			src->closed = true;
			return err;
		}
	} else {
		err = open_source(ss, src);
		if (err || !src->dl)
			return err;
	}
	/* open: its strings live as long as the DWARF, which stays open */
	return answer(ss, frames, dwarf_lines__lookup(src->dl, vaddr, frames, DWARF_MAX_FRAMES),
		      false, outer, inlined);
}

static bool want_eq(const void *ctx, size_t pos, const void *key)
{
	const struct dwarf_want *w = &((const struct dwarf_sources *)ctx)->wants[pos];
	const struct dwarf_want *k = key;

	return w->src == k->src && w->vaddr == k->vaddr;
}

int dwarf_sources_want(struct dwarf_sources *ss, struct dwarf_source *src, uint64_t vaddr)
{
	struct dwarf_want k = {src, vaddr};
	uint64_t h = hash_u64(hash_u64(FNV_INIT, (uintptr_t)src), vaddr);
	size_t pos;

	/* Open (from before the batch, or reopened) or found to have none: nothing to batch. */
	if (src->no_dwarf || (src->tried && !src->closed))
		return 0;
	if (!src->tried && !src->probed) {
		int may =
			dwarf_lines__probe(src->path, src->build_id, src->build_id_len, &ss->opts);

		if (may < 0)
			return may;
		src->probed = may;
		src->tried = !may; /* none, as an open would have found */
		if (!may)
			return 0;
	}
	if ((src->closed && find_kept(src, vaddr)) ||
	    hash_index_find(&ss->want_idx, h, want_eq, ss, &k, &pos))
		return 0;
	if (array_reserve((void **)&ss->wants, &ss->cap_wants, ss->nr_wants, sizeof(*ss->wants)) ||
	    hash_index_insert(&ss->want_idx, h, ss->nr_wants))
		return -ENOMEM;
	ss->wants[ss->nr_wants++] = k;
	if (!src->batch_seq)
		src->batch_seq = ++ss->nr_batch_files;
	return 0;
}

static int want_order(const void *pa, const void *pb)
{
	const struct dwarf_want *a = pa, *b = pb;

	if (a->src->batch_seq != b->src->batch_seq)
		return a->src->batch_seq < b->src->batch_seq ? -1 : 1;
	return (a->vaddr > b->vaddr) - (a->vaddr < b->vaddr);
}

static int kept_order(const void *pa, const void *pb)
{
	const struct dwarf_kept *a = pa, *b = pb;

	return (a->vaddr > b->vaddr) - (a->vaddr < b->vaddr);
}

/* Look up wants [0, n) (all of src) in its DWARF, keep the answers, close it. */
static int resolve_file(struct dwarf_sources *ss, struct dwarf_source *src,
			const struct dwarf_want *w, size_t n)
{
	struct dwarf_frame frames[DWARF_MAX_FRAMES];
	size_t i;
	int err;
	bool was_closed = src->closed;

	src->batch_seq = 0;
	src->tried = false;
	err = open_source(ss, src);
	if (!src->dl) {
		src->closed = was_closed; /* gone since: the kept answers still answer theirs */
		return err;
	}
	for (i = 0; i < n; i++) {
		struct dwarf_kept *k;
		int nf = dwarf_lines__lookup(src->dl, w[i].vaddr, frames, DWARF_MAX_FRAMES);

		if (nf < 0)
			return nf;
		if (array_reserve((void **)&src->kept, &src->cap_kept, src->nr_kept,
				  sizeof(*src->kept)))
			return -ENOMEM;
		k = &src->kept[src->nr_kept];
		k->vaddr = w[i].vaddr;
		k->n = (unsigned)nf;
		k->frames = nf ? keep_frames(ss, frames, nf, true) : NULL;
		if (nf && !k->frames)
			return -ENOMEM;
		src->nr_kept++;
	}
	qsort(src->kept, src->nr_kept, sizeof(*src->kept), kept_order);
	/* Every string kept is the pool's: the DWARF and its inflated sections can go. */
	dwarf_lines__free(src->dl);
	src->dl = NULL;
	src->closed = true;
	return 0;
}

int dwarf_sources_resolve(struct dwarf_sources *ss)
{
	size_t i, j;
	int err = 0;

	hash_index_free(&ss->want_idx);
	if (ss->nr_wants)
		qsort(ss->wants, ss->nr_wants, sizeof(*ss->wants), want_order);
	for (i = 0; i < ss->nr_wants; i = j) {
		for (j = i + 1; j < ss->nr_wants && ss->wants[j].src == ss->wants[i].src; j++)
			;
		if (!err)
			err = resolve_file(ss, ss->wants[i].src, &ss->wants[i], j - i);
		ss->wants[i].src->batch_seq = 0;
	}
	free(ss->wants);
	ss->wants = NULL;
	ss->nr_wants = ss->cap_wants = 0;
	ss->nr_batch_files = 0;
	return err;
}

void dwarf_source_free(struct dwarf_source *src)
{
	if (!src)
		return;
	dwarf_lines__free(src->dl);
	src->dl = NULL;
	free(src->kept);
	src->kept = NULL;
	src->nr_kept = src->cap_kept = 0;
}

void dwarf_sources_free(struct dwarf_sources *ss)
{
	while (ss->chunks) {
		struct frame_chunk *c = ss->chunks;

		ss->chunks = c->next;
		free(c);
	}
	free(ss->wants);
	ss->wants = NULL;
	ss->nr_wants = ss->cap_wants = 0;
	hash_index_free(&ss->want_idx);
}
