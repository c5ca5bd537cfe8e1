// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Frames resolved once, across reports (sym_cache.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "symbols/sym_cache.h"
#include "util/containers.h"
#include "util/hash.h"

struct entry {
	uint64_t pid, pc;
	unsigned mapping;
	bool is_return;
	uint64_t used; /* the tick it was last used at */
	uint32_t gen;  /* its process's generation when resolved */
	struct sym_frame f;
};

struct entry_key {
	uint64_t pid, pc;
	unsigned mapping;
	bool is_return;
};

/*
 * A process's generation: one more at each of its module records. A module
 * record replaces the symbolizer's module of that id (and frees the path a
 * frame points to), or names one a mapping had none for: its process's
 * entries are stale from then on, and resolved again when next asked for.
 */
struct pid_gen {
	uint64_t pid;
	uint32_t gen;
};

struct sym_cache {
	struct symbolizer *sym;
	struct entry *v;
	size_t n, cap;
	struct hash_index idx;
	struct pid_gen *pids;
	size_t nr_pids, cap_pids;
	struct hash_index pid_idx;
	uint64_t now; /* the last tick's */
	struct sym_cache_stats st;
};

struct sym_cache *sym_cache__new(struct symbolizer *s)
{
	struct sym_cache *c = calloc(1, sizeof(*c));

	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->sym = s;
	return c;
}

void sym_cache__free(struct sym_cache *c)
{
	if (!c)
		return;
	free(c->v);
	hash_index_free(&c->idx);
	free(c->pids);
	hash_index_free(&c->pid_idx);
	free(c);
}

static uint64_t entry_hash(uint64_t pid, uint64_t pc, bool is_return, unsigned mapping)
{
	return hash_u64(hash_u64(hash_u64(hash_u64(FNV_INIT, pid), pc), is_return), mapping);
}

static bool entry_eq(const void *ctx, size_t pos, const void *key)
{
	const struct entry *e = &((const struct sym_cache *)ctx)->v[pos];
	const struct entry_key *k = key;

	return e->pid == k->pid && e->pc == k->pc && e->mapping == k->mapping &&
	       e->is_return == k->is_return;
}

/* Keep the entries keep() says, in their order, and index them anew. */
static void compact(struct sym_cache *c,
		    bool (*keep)(const struct sym_cache *, const struct entry *, uint64_t),
		    uint64_t arg)
{
	size_t i, n = 0;

	hash_index_free(&c->idx);
	for (i = 0; i < c->n; i++) {
		struct entry *e = &c->v[i];

		if (!keep(c, e, arg)) {
			c->st.evicted++;
			continue;
		}
		/* the index had room for more: this cannot fail for want of memory twice */
		if (hash_index_insert(&c->idx, entry_hash(e->pid, e->pc, e->is_return, e->mapping),
				      n)) {
			c->st.evicted += c->n - i;
			break;
		}
		c->v[n++] = *e;
	}
	c->n = n;
}

static bool used_since(const struct sym_cache *c, const struct entry *e, uint64_t since)
{
	return e->used >= since;
}

static bool pid_eq(const void *ctx, size_t pos, const void *key)
{
	return ((const struct sym_cache *)ctx)->pids[pos].pid == *(const uint64_t *)key;
}

/* The process's entry in pids, or NULL. */
static struct pid_gen *find_pid(const struct sym_cache *c, uint64_t pid)
{
	size_t pos;

	return hash_index_find(&c->pid_idx, hash_u64(FNV_INIT, pid), pid_eq, c, &pid, &pos)
		       ? &c->pids[pos]
		       : NULL;
}

static uint32_t pid_gen(const struct sym_cache *c, uint64_t pid)
{
	const struct pid_gen *g = find_pid(c, pid);

	return g ? g->gen : 0;
}

int sym_cache_resolve(struct sym_cache *c, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		      struct sym_frame *ret)
{
	struct entry_key k = {pid, pc, 0, is_return};
	struct entry *e;
	uint32_t gen;
	uint64_t h;
	size_t pos;
	int err;

	k.mapping = symbolizer_mapping_id(c->sym, pid, pc, is_return, ts);
	/* no mapping: nothing to resolve, nothing to keep */
	if (!k.mapping)
		return symbolizer_resolve(c->sym, pid, pc, is_return, ts, ret);
	h = entry_hash(pid, pc, is_return, k.mapping);
	gen = pid_gen(c, pid);
	if (hash_index_find(&c->idx, h, entry_eq, c, &k, &pos)) {
		e = &c->v[pos];
		e->used = c->now;
		if (e->gen == gen) {
			*ret = e->f;
			c->st.hits++;
			return 0;
		}
		/* stale: resolved again in its place */
		c->st.misses++;
		err = symbolizer_resolve(c->sym, pid, pc, is_return, ts, ret);
		if (!err) {
			e->f = *ret;
			e->gen = gen;
		}
		return err;
	}
	c->st.misses++;
	err = symbolizer_resolve(c->sym, pid, pc, is_return, ts, ret);
	if (err)
		return err;
	if (c->n >= SYM_CACHE_MAX) {
		/* full: what the current tick has not used goes, else everything */
		compact(c, used_since, c->now);
		if (c->n >= SYM_CACHE_MAX)
			sym_cache_clear(c);
		h = entry_hash(pid, pc, is_return, k.mapping);
	}
	if (array_reserve((void **)&c->v, &c->cap, c->n, sizeof(*c->v)))
		return 0; /* resolved all the same; just not kept */
	if (hash_index_insert(&c->idx, h, c->n))
		return 0;
	e = &c->v[c->n++];
	e->pid = pid;
	e->pc = pc;
	e->mapping = k.mapping;
	e->is_return = is_return;
	e->used = c->now;
	e->gen = gen;
	e->f = *ret;
	return 0;
}

int sym_cache_note_record(struct sym_cache *c, const struct fxt_record *rec)
{
	struct pid_gen *g;

	if (rec->type != FXT_RT_PROFILER || rec->subtype != FXT_PROF_MODULE)
		return 0;
	g = find_pid(c, rec->pid);
	if (g) {
		g->gen++;
		return 0;
	}
	if (c->nr_pids >= 4 * SYM_CACHE_MAX) {
		/* too many to watch: start over, the entries with them */
		c->nr_pids = 0;
		hash_index_free(&c->pid_idx);
		sym_cache_clear(c);
	}
	if (array_reserve((void **)&c->pids, &c->cap_pids, c->nr_pids, sizeof(*c->pids)) ||
	    hash_index_insert(&c->pid_idx, hash_u64(FNV_INIT, rec->pid), c->nr_pids)) {
		/* unwatched, its entries cannot be trusted: none are kept */
		sym_cache_clear(c);
		return -ENOMEM;
	}
	c->pids[c->nr_pids++] = (struct pid_gen){rec->pid, 1};
	return 0;
}

void sym_cache_tick(struct sym_cache *c, uint64_t now)
{
	c->now = now;
	if (now > SYM_CACHE_MAX_AGE_NS)
		compact(c, used_since, now - SYM_CACHE_MAX_AGE_NS);
}

void sym_cache_clear(struct sym_cache *c)
{
	c->st.evicted += c->n;
	c->n = 0;
	hash_index_free(&c->idx);
}

void sym_cache_stats(const struct sym_cache *c, struct sym_cache_stats *ret)
{
	*ret = c->st;
	ret->entries = c->n;
}
