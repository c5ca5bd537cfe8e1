// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdbool.h>

#include "util/itree.h"

void itree_init(struct itree *t)
{
	*t = (struct itree){0};
}

static uint32_t next_prio(struct itree *t)
{
	uint32_t x = t->rng ? t->rng : 2463534242U;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	t->rng = x;
	return x;
}

/* a sorts before b */
static bool before(const struct itree_node *a, const struct itree_node *b)
{
	return a->start != b->start ? a->start < b->start : a->seq < b->seq;
}

static void update(struct itree_node *n)
{
	uint64_t m = n->end;

	if (n->left && n->left->max_end > m)
		m = n->left->max_end;
	if (n->right && n->right->max_end > m)
		m = n->right->max_end;
	n->max_end = m;
}

static struct itree_node *rotate_right(struct itree_node *n)
{
	struct itree_node *l = n->left;

	n->left = l->right;
	l->right = n;
	update(n);
	update(l);
	return l;
}

static struct itree_node *rotate_left(struct itree_node *n)
{
	struct itree_node *r = n->right;

	n->right = r->left;
	r->left = n;
	update(n);
	update(r);
	return r;
}

static struct itree_node *insert(struct itree_node *root, struct itree_node *n)
{
	if (!root)
		return n;
	if (before(n, root)) {
		root->left = insert(root->left, n);
		if (root->left->prio > root->prio)
			return rotate_right(root);
	} else {
		root->right = insert(root->right, n);
		if (root->right->prio > root->prio)
			return rotate_left(root);
	}
	update(root);
	return root;
}

void itree_insert(struct itree *t, struct itree_node *n)
{
	n->left = n->right = NULL;
	n->max_end = n->end;
	n->prio = next_prio(t);
	t->root = insert(t->root, n);
	t->n++;
}

/* Join two treaps, every node of a sorting before every node of b. */
static struct itree_node *merge(struct itree_node *a, struct itree_node *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->prio > b->prio) {
		a->right = merge(a->right, b);
		update(a);
		return a;
	}
	b->left = merge(a, b->left);
	update(b);
	return b;
}

static struct itree_node *remove_node(struct itree_node *root, struct itree_node *n, bool *found)
{
	if (!root)
		return NULL;
	if (root == n) {
		*found = true;
		return merge(root->left, root->right);
	}
	if (before(n, root))
		root->left = remove_node(root->left, n, found);
	else
		root->right = remove_node(root->right, n, found);
	update(root);
	return root;
}

void itree_remove(struct itree *t, struct itree_node *n)
{
	bool found = false;

	t->root = remove_node(t->root, n, &found);
	if (found)
		t->n--;
	n->left = n->right = NULL;
}

static struct itree_node *first_overlap(struct itree_node *n, uint64_t start, uint64_t end)
{
	while (n) {
		struct itree_node *hit;

		if (n->max_end <= start)
			return NULL;
		/* one in the left subtree sorts before n and every right one */
		if (n->left && n->left->max_end > start) {
			hit = first_overlap(n->left, start, end);
			if (hit)
				return hit;
		}
		if (n->start >= end)
			return NULL; /* n and all after it start too late */
		if (n->end > start)
			return n;
		n = n->right;
	}
	return NULL;
}

struct itree_node *itree_first_overlap(const struct itree *t, uint64_t start, uint64_t end)
{
	return start < end ? first_overlap(t->root, start, end) : NULL;
}

static int overlaps(struct itree_node *n, uint64_t start, uint64_t end, itree_fn fn, void *ctx)
{
	int r;

	while (n && n->max_end > start) {
		r = overlaps(n->left, start, end, fn, ctx);
		if (r)
			return r;
		if (n->start >= end)
			return 0;
		if (n->end > start) {
			r = fn(n, ctx);
			if (r)
				return r;
		}
		n = n->right;
	}
	return 0;
}

int itree_overlaps(const struct itree *t, uint64_t start, uint64_t end, itree_fn fn, void *ctx)
{
	return start < end ? overlaps(t->root, start, end, fn, ctx) : 0;
}

int itree_each(const struct itree *t, itree_fn fn, void *ctx)
{
	return overlaps(t->root, 0, UINT64_MAX, fn, ctx);
}

struct itree_node *itree_first(const struct itree *t)
{
	struct itree_node *n = t->root;

	while (n && n->left)
		n = n->left;
	return n;
}

struct itree_node *itree_next(const struct itree *t, const struct itree_node *x)
{
	struct itree_node *n = t->root, *succ = NULL;

	while (n) {
		if (before(x, n)) {
			succ = n;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return succ;
}

static void clear(struct itree_node *n, void (*fn)(struct itree_node *n, void *ctx), void *ctx)
{
	while (n) {
		struct itree_node *right = n->right;

		clear(n->left, fn, ctx);
		n->left = n->right = NULL;
		if (fn)
			fn(n, ctx);
		n = right;
	}
}

void itree_clear(struct itree *t, void (*fn)(struct itree_node *n, void *ctx), void *ctx)
{
	clear(t->root, fn, ctx);
	t->root = NULL;
	t->n = 0;
}
