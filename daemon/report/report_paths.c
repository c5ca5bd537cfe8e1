// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stack paths as ids of interned labels, and the two orders the outputs need. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "report/report_internal.h"
#include "report/report_paths.h"

struct label_key {
	const char *text;
	enum report_label_kind kind;
};

static bool label_eq(const void *ctx, size_t pos, const void *key)
{
	const struct report_label *l = &((const struct report_label *)ctx)[pos];
	const struct label_key *k = key;

	return l->kind == k->kind && !strcmp(l->text, k->text);
}

/*
 * The id of (text, kind), added when new; -ENOMEM. name: the function's
 * name the label is of (NULL: none), kept instead of a copy when the label
 * is just that (most are: no process, thread or kernel frame, no suffix).
 */
static int64_t intern(struct report_paths *p, const char *text, enum report_label_kind kind,
		      const char *name)
{
	struct label_key key = {text, kind};
	uint64_t h = hash_u64(fnv1a(FNV_INIT, text, strlen(text)), kind);
	bool copied = !name || strcmp(name, text);
	size_t pos;
	char *copy = NULL;

	if (hash_index_find(&p->idx, h, label_eq, p->labels, &key, &pos))
		return (int64_t)pos;
	if (p->nr_labels >= UINT32_MAX ||
	    array_reserve((void **)&p->labels, &p->cap_labels, p->nr_labels, sizeof(*p->labels)))
		return -ENOMEM;
	if (copied && !(copy = strdup(text)))
		return -ENOMEM;
	if (hash_index_insert(&p->idx, h, p->nr_labels)) {
		free(copy);
		return -ENOMEM;
	}
	p->labels[p->nr_labels] =
		(struct report_label){.text = copied ? copy : name, .kind = kind, .copied = copied};
	return (int64_t)p->nr_labels++;
}

static int push_id(struct report_paths *p, uint32_t id)
{
	if (array_reserve((void **)&p->ids, &p->cap_ids, p->nr_ids, sizeof(*p->ids)))
		return -ENOMEM;
	p->ids[p->nr_ids++] = id;
	return 0;
}

/* The kinds of a stack's labels, in report_stack_path()'s order. */
struct kind_walk {
	unsigned roots;
	size_t fixed; /* root frames and [truncated] */
	unsigned frame;
	unsigned inlined_left;
};

/* The kind of label k, and the name of the function it is of (*name, NULL: none). */
static enum report_label_kind next_kind(const struct report *r, const struct stack *s,
					struct kind_walk *w, size_t k, const char **name)
{
	const struct func *funcs = T(r->funcs, struct func);
	const struct loc *locs = T(r->locs, struct loc);
	const struct loc *l;
	const struct func *f;

	*name = NULL;
	if (k == 0 && w->roots >= 1)
		return LABEL_PROCESS;
	if (k == 1 && w->roots >= 2)
		return LABEL_THREAD;
	if (k < w->fixed)
		return LABEL_SPECIAL;
	/* stack_path's order: a frame, then its inlined ones. */
	if (w->inlined_left) {
		w->inlined_left--;
		return LABEL_INLINED;
	}
	l = &locs[s->locs[--w->frame]];
	f = &funcs[l->func];
	w->inlined_left = l->nr_inl;
	*name = f->name;
	return f->resolved ? LABEL_FUNC : f->module ? LABEL_UNRESOLVED : LABEL_SPECIAL;
}

static int rank_order(const void *pa, const void *pb, void *ctx)
{
	const struct report_label *la = &((const struct report_label *)ctx)[*(const uint32_t *)pa];
	const struct report_label *lb = &((const struct report_label *)ctx)[*(const uint32_t *)pb];
	int c = strcmp(la->text, lb->text);

	return c ? c : (int)la->kind - (int)lb->kind;
}

static int rank_labels(struct report_paths *p)
{
	uint32_t *order = malloc((p->nr_labels ? p->nr_labels : 1) * sizeof(*order));
	size_t i;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < p->nr_labels; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, p->nr_labels, sizeof(*order), rank_order, p->labels);
	for (i = 0; i < p->nr_labels; i++)
		p->labels[order[i]].rank = (uint32_t)i;
	free(order);
	return 0;
}

int report_paths_build(struct report *r, struct report_paths *p)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	struct sbuf b = {};
	size_t i, k, nr;
	int err = 0;

	memset(p, 0, sizeof(*p));
	p->start = malloc((r->stacks.n + 1) * sizeof(*p->start));
	if (!p->start)
		return -ENOMEM;
	for (i = 0; i < r->stacks.n && !err; i++) {
		const struct stack *s = &stacks[i];
		struct kind_walk w = {.roots = report_root_frames(r), .frame = s->nr_locs};
		const char *label;

		w.fixed = w.roots + !!(s->flags & FXT_BT_FLAG_TRUNCATED);
		p->start[i] = p->nr_ids;
		nr = report_stack_path(r, s, &b);
		if (b.err) {
			err = b.err;
			break;
		}
		if (nr > p->max_len)
			p->max_len = (unsigned)nr;
		for (k = 0, label = b.s; k < nr && !err; k++, label += strlen(label) + 1) {
			const char *name;
			enum report_label_kind kind = next_kind(r, s, &w, k, &name);
			int64_t id = intern(p, label, kind, name);

			err = id < 0 ? (int)id : push_id(p, (uint32_t)id);
		}
	}
	p->start[i] = p->nr_ids;
	p->nr = i;
	free(b.s);
	/* The tables only grow while the paths are built: hand back the slack. */
	if (!err && p->nr_ids < p->cap_ids) {
		uint32_t *tmp = realloc(p->ids, (p->nr_ids ? p->nr_ids : 1) * sizeof(*p->ids));

		if (tmp) {
			p->ids = tmp;
			p->cap_ids = p->nr_ids;
		}
	}
	if (!err)
		err = rank_labels(p);
	if (err)
		report_paths_free(p);
	return err;
}

void report_paths_free(struct report_paths *p)
{
	size_t i;

	for (i = 0; i < p->nr_labels; i++)
		if (p->labels[i].copied)
			free((char *)p->labels[i].text);
	free(p->labels);
	hash_index_free(&p->idx);
	free(p->ids);
	free(p->start);
	memset(p, 0, sizeof(*p));
}

/*
 * One byte of a path's folded line, read label by label: a label's end is
 * ';' when another follows, the line's end 0.
 */
struct text_cursor {
	const struct report_paths *p;
	const uint32_t *id, *end;
	const char *c;
};

static void cursor_init(struct text_cursor *t, const struct report_paths *p, size_t i)
{
	t->p = p;
	t->id = report_path(p, i);
	t->end = t->id + report_path_len(p, i);
	t->c = t->id < t->end ? p->labels[*t->id].text : "";
}

static int cursor_byte(const struct text_cursor *t)
{
	if (*t->c)
		return (unsigned char)*t->c;
	return t->id + 1 < t->end ? ';' : 0;
}

static void cursor_next(struct text_cursor *t)
{
	if (*t->c)
		t->c++;
	else if (++t->id < t->end)
		t->c = t->p->labels[*t->id].text;
}

int report_paths_text_cmp(const struct report_paths *p, size_t a, size_t b)
{
	struct text_cursor ta, tb;
	int ca, cb;

	cursor_init(&ta, p, a);
	cursor_init(&tb, p, b);
	for (;;) {
		ca = cursor_byte(&ta);
		cb = cursor_byte(&tb);
		if (ca != cb)
			return ca - cb;
		if (!ca)
			return 0;
		cursor_next(&ta);
		cursor_next(&tb);
	}
}

static int text_order(const void *pa, const void *pb, void *ctx)
{
	return report_paths_text_cmp(ctx, *(const size_t *)pa, *(const size_t *)pb);
}

static int tree_order(const void *pa, const void *pb, void *ctx)
{
	const struct report_paths *p = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const uint32_t *ia = report_path(p, a), *ib = report_path(p, b);
	size_t na = report_path_len(p, a), nb = report_path_len(p, b), k;

	for (k = 0; k < na && k < nb; k++)
		if (ia[k] != ib[k])
			return p->labels[ia[k]].rank < p->labels[ib[k]].rank ? -1 : 1;
	return na < nb ? -1 : na > nb;
}

static int sorted_order(const struct report_paths *p, size_t **ret_order,
			int (*cmp)(const void *, const void *, void *))
{
	size_t *order = malloc((p->nr ? p->nr : 1) * sizeof(*order)), i;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < p->nr; i++)
		order[i] = i;
	qsort_r(order, p->nr, sizeof(*order), cmp, (void *)p);
	*ret_order = order;
	return 0;
}

int report_paths_text_order(const struct report_paths *p, size_t **ret_order)
{
	return sorted_order(p, ret_order, text_order);
}

int report_paths_tree_order(const struct report_paths *p, size_t **ret_order)
{
	return sorted_order(p, ret_order, tree_order);
}
