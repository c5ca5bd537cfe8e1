// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JIT code in the report: the capture wrote the perf-map entries its samples
 * fell in (lang/perfmap.h); a pc that no ELF file names is looked up among
 * its process's. The file alone names them: no /tmp of the machine that
 * captured is read. fxsamplerd's scrapes add the entries of live processes'
 * maps too (report_jit_unnamed(), report_jit_add()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/sorted.h"
#include "lang/perfmap.h"
#include "report/report.h"
#include "symbols/sym_cache.h"
#include "symbols/symbolizer.h"
#include "report/report_internal.h"

void report_perfmap_free(struct report_jit *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i].name);
	free(j->v);
	memset(j, 0, sizeof(*j));
}

static int add_entry(void *ctx, uint64_t pid, const struct perfmap_entry *e)
{
	struct report_jit *j = ctx;
	struct jit_sym *s;

	if (e->name_len > PERFMAP_MAX_NAME)
		return -EINVAL;

	if (array_reserve((void **)&j->v, &j->cap, j->n, sizeof(*j->v)))
		return -ENOMEM;
	s = &j->v[j->n];
	s->name = strndup(e->name, e->name_len);
	if (!s->name)
		return -ENOMEM;
	s->pid = pid;
	s->start = e->start;
	s->size = e->size;
	s->seq = j->n++;
	j->sorted = false;
	return 0;
}

int report_perfmap_add(struct report *r, const struct fxt_record *rec)
{
	int err;

	if (rec->type != FXT_RT_BLOB || !rec->name || !rec->blob ||
	    strcmp(rec->name, FXT_PERFMAP_BLOB))
		return 0;
	/* a malformed record keeps the entries before its fault */
	err = perfmap_blob_parse((const char *)rec->blob, rec->blob_len, add_entry, &r->jit);
	return err == -ENOMEM ? err : 0;
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct jit_sym *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

struct jit_key {
	uint64_t pid, addr;
};

/* Orders (pid, addr) against an entry by (pid, start): the upper bound is past it. */
static int cmp_key(const void *key, const void *elem)
{
	const struct jit_key *k = key;
	const struct jit_sym *s = elem;

	if (k->pid != s->pid)
		return k->pid < s->pid ? -1 : 1;
	return k->addr < s->start ? -1 : 1;
}

/* How far back to look for a longer entry that covers addr past a shorter one. */
#define JIT_LOOK_BACK 64

const char *report_perfmap_find(struct report *r, uint64_t pid, uint64_t addr)
{
	struct report_jit *j = &r->jit;
	struct jit_key k = {pid, addr};
	const struct jit_sym *best = NULL;
	size_t i;

	if (!j->n)
		return NULL;
	if (!j->sorted) {
		qsort(j->v, j->n, sizeof(*j->v), cmp_sym);
		j->sorted = true;
	}
	i = sorted_upper(j->v, j->n, sizeof(*j->v), &k, cmp_key);
	for (size_t seen = 0; i > 0 && seen < JIT_LOOK_BACK; i--, seen++) {
		const struct jit_sym *s = &j->v[i - 1];

		if (s->pid != pid)
			break;
		if (addr - s->start < s->size && (!best || s->seq > best->seq))
			best = s;
	}
	return best ? best->name : NULL;
}

int report_jit_add(struct report *r, uint64_t pid, uint64_t start, uint64_t size, const char *name,
		   size_t name_len)
{
	struct perfmap_entry e = {start, size, name, name_len};

	return add_entry(&r->jit, pid, &e);
}

/* One process's unnamed pcs, gathered over the stacks. */
struct jit_need {
	uint64_t pid, first_ts;
	uint64_t *pcs;
	size_t n, cap;
};

static int cmp_need(const void *pa, const void *pb)
{
	const struct jit_need *a = pa, *b = pb;

	return (a->pid > b->pid) - (a->pid < b->pid);
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

static struct jit_need *need_of(struct jit_need **v, size_t *n, size_t *cap, uint64_t pid)
{
	struct jit_need k = {.pid = pid}, *e;
	size_t pos;

	e = sorted_find(*v, *n, sizeof(**v), &k, cmp_need, &pos);
	if (e)
		return e;
	if (array_reserve((void **)v, cap, *n, sizeof(**v)))
		return NULL;
	memmove(&(*v)[pos + 1], &(*v)[pos], (*n - pos) * sizeof(**v));
	(*v)[pos] = (struct jit_need){.pid = pid, .first_ts = UINT64_MAX};
	(*n)++;
	return &(*v)[pos];
}

/* Whether no symbol and no entry of r names pc of pid. */
static int unnamed(struct report *r, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		   bool *ret)
{
	struct sym_frame sf;
	int err = r->sym_cache ? sym_cache_resolve(r->sym_cache, pid, pc, is_return, ts, &sf)
			       : symbolizer_resolve(r->sym, pid, pc, is_return, ts, &sf);

	/* as get_loc() names them: any pc no symbol names (JIT code shows as in "//anon") */
	*ret = !err && !sf.resolved && !report_perfmap_find(r, pid, pc - is_return);
	return err;
}

int report_jit_unnamed(struct report *r, report_jit_need_fn fn, void *ctx)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	struct jit_need *v = NULL, *e;
	size_t n = 0, cap = 0, i;
	int err = 0;

	for (i = 0; !err && i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];
		unsigned nk = report_kernel_count(s);

		for (unsigned j = nk; !err && j < s->nr; j++) {
			uint64_t pc = s->frames[j];
			bool is_return = symbolizer_frame_is_return(j - nk, s->flags), want;

			if (pc & (KFRAME_TAG | PYFRAME_TAG) || !s->pid)
				continue;
			err = unnamed(r, s->pid, pc, is_return, s->ts, &want);
			if (err || !want)
				continue;
			e = need_of(&v, &n, &cap, s->pid);
			if (!e || array_reserve((void **)&e->pcs, &e->cap, e->n, sizeof(*e->pcs))) {
				err = -ENOMEM;
				break;
			}
			e->pcs[e->n++] = pc - is_return;
			if (s->ts < e->first_ts)
				e->first_ts = s->ts;
		}
	}
	for (i = 0; !err && i < n; i++) {
		size_t k = 0;

		qsort(v[i].pcs, v[i].n, sizeof(*v[i].pcs), cmp_u64);
		for (size_t m = 0; m < v[i].n; m++)
			if (!k || v[i].pcs[m] != v[i].pcs[k - 1])
				v[i].pcs[k++] = v[i].pcs[m];
		err = fn(ctx, v[i].pid, v[i].first_ts, v[i].pcs, k);
	}
	for (i = 0; i < n; i++)
		free(v[i].pcs);
	free(v);
	return err;
}
