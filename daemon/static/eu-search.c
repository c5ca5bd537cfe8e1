// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * elfutils 0.192's libelf.a (Debian 13) calls its private tsearch wrappers
 * (lib/eu-search.c), which only its shared library carries, so a static link
 * fails on eu_tsearch and friends. These are the same calls over glibc's
 * tsearch. They sit in an archive linked after -lelf (make cross), so a
 * libelf.a that has them (0.188 in Debian 12, later fixed releases) keeps its
 * own. Only the tree's root, its first member, is touched: its lock, when
 * elfutils was built with one, is replaced by one lock for all trees.
 */
#include <pthread.h>
#include <search.h>
#include <stdlib.h>

struct eu_tree {
	void *root;
};

typedef int (*eu_cmp)(const void *, const void *);

/* Prototypes for -Wmissing-prototypes: elfutils' header is not installed. */
void *eu_tsearch(const void *key, struct eu_tree *tree, eu_cmp compare);
void *eu_tfind(const void *key, struct eu_tree *tree, eu_cmp compare);
void *eu_tdelete(const void *key, struct eu_tree *tree, eu_cmp compare);
void eu_tdestroy(struct eu_tree *tree, void (*free_node)(void *));
void eu_search_tree_init(struct eu_tree *tree);
void eu_search_tree_fini(struct eu_tree *tree, void (*free_node)(void *));

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *eu_tsearch(const void *key, struct eu_tree *tree, eu_cmp compare)
{
	void *r;

	pthread_mutex_lock(&lock);
	r = tsearch(key, &tree->root, compare);
	pthread_mutex_unlock(&lock);
	return r;
}

void *eu_tfind(const void *key, struct eu_tree *tree, eu_cmp compare)
{
	void *r;

	pthread_mutex_lock(&lock);
	r = tfind(key, &tree->root, compare);
	pthread_mutex_unlock(&lock);
	return r;
}

void *eu_tdelete(const void *key, struct eu_tree *tree, eu_cmp compare)
{
	void *r;

	pthread_mutex_lock(&lock);
	r = tdelete(key, &tree->root, compare);
	pthread_mutex_unlock(&lock);
	return r;
}

void eu_tdestroy(struct eu_tree *tree, void (*free_node)(void *))
{
	pthread_mutex_lock(&lock);
	tdestroy(tree->root, free_node);
	tree->root = NULL;
	pthread_mutex_unlock(&lock);
}

void eu_search_tree_init(struct eu_tree *tree)
{
	tree->root = NULL;
}

void eu_search_tree_fini(struct eu_tree *tree, void (*free_node)(void *))
{
	eu_tdestroy(tree, free_node);
}
