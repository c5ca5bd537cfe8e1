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

/*
 * A pc of a module file is keyed by the file and its vaddr there
 * (symbolizer_file_pc()), pid and mapping 0: every process that maps the
 * file shares the entry, so a host's short processes (a build's compilers)
 * hit what the processes before them resolved. Its frame's mapping is NULL,
 * set from the asking pc's own at each hit. Any other pc is keyed by its
 * process and mapping.
 */
struct entry_key {
	const void *file;
	uint64_t pid, pc;
	unsigned mapping;
	bool is_return;
};

struct entry {
	struct entry_key key;
	uint64_t used; /* the tick it was last used at */
	uint32_t gen;  /* its process's generation when resolved */
	struct sym_frame f;
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

static uint64_t entry_hash(const struct entry_key *k)
{
	uint64_t h = hash_u64(hash_u64(FNV_INIT, (uintptr_t)k->file), k->pid);

	return hash_u64(hash_u64(hash_u64(h, k->pc), k->is_return), k->mapping);
}

static bool entry_eq(const void *ctx, size_t pos, const void *key)
{
	const struct entry_key *e = &((const struct sym_cache *)ctx)->v[pos].key;
	const struct entry_key *k = key;

	return e->file == k->file && e->pid == k->pid && e->pc == k->pc &&
	       e->mapping == k->mapping && e->is_return == k->is_return;
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
		if (hash_index_insert(&c->idx, entry_hash(&e->key), n)) {
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

/* The key of a pc, by file when it is code of a module file: 1, 0 when no mapping covers it. */
static int key_of(struct sym_cache *c, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		  struct entry_key *k)
{
	uint64_t vaddr;
	int err;

	*k = (struct entry_key){.is_return = is_return};
	err = symbolizer_file_pc(c->sym, pid, pc, is_return, ts, &k->file, &vaddr);
	if (err < 0)
		return err;
	if (err) {
		k->pc = vaddr;
		return 1;
	}
	k->pid = pid;
	k->pc = pc;
	k->mapping = symbolizer_mapping_id(c->sym, pid, pc, is_return, ts);
	return k->mapping != 0;
}

/* The entry's frame, as the pc of pid at ts names it. */
static int frame_of(struct sym_cache *c, const struct entry *e, uint64_t pid, uint64_t pc,
		    uint64_t ts, struct sym_frame *ret)
{
	*ret = e->f;
	return e->key.file
		       ? symbolizer_mapping_at(c->sym, pid, pc, e->key.is_return, ts, &ret->mapping)
		       : 0;
}

/* Keep a frame just resolved under k (without the memory, it was resolved all the same). */
static void keep(struct sym_cache *c, const struct entry_key *k, uint32_t gen,
		 const struct sym_frame *f)
{
	struct entry *e;

	if (c->n >= SYM_CACHE_MAX) {
		/* full: what the current tick has not used goes, else everything */
		compact(c, used_since, c->now);
		if (c->n >= SYM_CACHE_MAX)
			sym_cache_clear(c);
	}
	if (array_reserve((void **)&c->v, &c->cap, c->n, sizeof(*c->v)) ||
	    hash_index_insert(&c->idx, entry_hash(k), c->n))
		return;
	e = &c->v[c->n++];
	e->key = *k;
	e->used = c->now;
	e->gen = gen;
	e->f = *f;
	if (k->file)
		e->f.mapping = NULL; /* the asking pc's own, at each hit */
}

int sym_cache_resolve(struct sym_cache *c, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		      struct sym_frame *ret)
{
	struct entry_key k;
	struct entry *e;
	uint32_t gen;
	size_t pos;
	int err = key_of(c, pid, pc, is_return, ts, &k);

	if (err < 0)
		return err;
	/* no mapping: nothing to resolve, nothing to keep */
	if (!err)
		return symbolizer_resolve(c->sym, pid, pc, is_return, ts, ret);
	/* a file's entries hold only what lives as long as the symbolizer: never stale */
	gen = k.file ? 0 : pid_gen(c, pid);
	if (hash_index_find(&c->idx, entry_hash(&k), entry_eq, c, &k, &pos)) {
		e = &c->v[pos];
		e->used = c->now;
		if (e->gen == gen) {
			c->st.hits++;
			return frame_of(c, e, pid, pc, ts, ret);
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
	if (!err)
		keep(c, &k, gen, ret);
	return err;
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
