// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JIT code in the report: the capture wrote the perf-map entries its samples
 * fell in (lang/perfmap.h); a pc that no ELF file names is looked up among
 * its process's. The file alone names them: no /tmp of the machine that
 * captured is read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/sorted.h"
#include "lang/perfmap.h"
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
