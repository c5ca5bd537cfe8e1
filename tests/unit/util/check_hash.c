// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* util/hash: the one hash index of the tree (report, idset, offcpu, symbolizer). */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/hash.h"
#include "check_main.h"

/* The caller's array: keys are 64-bit values at their position. */
struct keys {
	uint64_t *v;
	size_t n, cap;
	unsigned compares;
};

static bool key_eq(const void *ctx, size_t pos, const void *key)
{
	struct keys *k = (struct keys *)ctx;

	k->compares++;
	return k->v[pos] == *(const uint64_t *)key;
}

static void add(struct keys *k, struct hash_index *h, uint64_t hash, uint64_t key)
{
	size_t pos;

	ck_assert(!hash_index_find(h, hash, key_eq, k, &key, &pos));
	ck_assert_int_eq(array_reserve((void **)&k->v, &k->cap, k->n, sizeof(*k->v)), 0);
	ck_assert_int_eq(hash_index_insert(h, hash, k->n), 0);
	k->v[k->n++] = key;
}

static bool find(struct keys *k, const struct hash_index *h, uint64_t hash, uint64_t key,
		 size_t *pos)
{
	*pos = SIZE_MAX;
	return hash_index_find(h, hash, key_eq, k, &key, pos);
}

START_TEST(test_empty_and_free_null)
{
	struct hash_index h = {0};
	struct keys k = {0};
	size_t pos;

	ck_assert(!find(&k, &h, 0, 0, &pos));
	ck_assert(!find(&k, &h, 12345, 1, &pos));
	ck_assert_uint_eq(k.compares, 0);
	hash_index_free(NULL);
	hash_index_free(&h);
	hash_index_free(&h);
	ck_assert_ptr_null(h.slots);
	ck_assert_uint_eq(h.cap, 0);
}
END_TEST

START_TEST(test_insert_find)
{
	struct hash_index h = {0};
	struct keys k = {0};
	size_t pos;

	for (uint64_t i = 0; i < 10; i++)
		add(&k, &h, hash_u64(FNV_INIT, i * 1000), i * 1000);
	ck_assert_uint_eq(h.n, 10);
	for (uint64_t i = 0; i < 10; i++) {
		ck_assert(find(&k, &h, hash_u64(FNV_INIT, i * 1000), i * 1000, &pos));
		ck_assert_uint_eq(pos, i);
	}
	ck_assert(!find(&k, &h, hash_u64(FNV_INIT, 1), 1, &pos));
	ck_assert_uint_eq(pos, SIZE_MAX);
	/* The right hash with a key that is not there: the callback says no. */
	ck_assert(!find(&k, &h, hash_u64(FNV_INIT, 2000), 2001, &pos));
	hash_index_free(&h);
	free(k.v);
}
END_TEST

START_TEST(test_grow)
{
	const uint64_t n = 100000;
	struct hash_index h = {0};
	struct keys k = {0};
	size_t pos, cap = 0, grows = 0;

	for (uint64_t i = 0; i < n; i++) {
		add(&k, &h, hash_u64(FNV_INIT, i), i);
		/* A power of two, at most half full. */
		ck_assert_uint_eq(h.cap & (h.cap - 1), 0);
		ck_assert_uint_le(h.n * 2, h.cap);
		grows += h.cap != cap;
		cap = h.cap;
	}
	ck_assert_uint_eq(h.n, n);
	ck_assert_uint_gt(grows, 5);
	for (uint64_t i = 0; i < n; i++) {
		ck_assert(find(&k, &h, hash_u64(FNV_INIT, i), i, &pos));
		ck_assert_uint_eq(pos, i);
	}
	for (uint64_t i = n; i < 2 * n; i++)
		ck_assert(!find(&k, &h, hash_u64(FNV_INIT, i), i, &pos));
	hash_index_free(&h);
	free(k.v);
}
END_TEST

START_TEST(test_collisions)
{
	struct hash_index h = {0};
	struct keys k = {0};
	size_t pos;

	/* Every key under one hash: found by the callback, through growth. */
	for (uint64_t i = 1; i <= 300; i++)
		add(&k, &h, 7, i);
	for (uint64_t i = 1; i <= 300; i++) {
		ck_assert(find(&k, &h, 7, i, &pos));
		ck_assert_uint_eq(pos, i - 1);
	}
	ck_assert(!find(&k, &h, 7, 301, &pos));
	hash_index_free(&h);
	free(k.v);
	memset(&k, 0, sizeof(k));

	/* Hashes that differ but share their low bits: same start slot. */
	for (uint64_t i = 0; i < 200; i++)
		add(&k, &h, i << 40, i);
	k.compares = 0;
	for (uint64_t i = 0; i < 200; i++) {
		ck_assert(find(&k, &h, i << 40, i, &pos));
		ck_assert_uint_eq(pos, i);
	}
	/* The stored hashes spare the callback: one compare per find. */
	ck_assert_uint_eq(k.compares, 200);
	ck_assert(!find(&k, &h, 200ULL << 40, 0, &pos));
	hash_index_free(&h);
	free(k.v);
}
END_TEST

START_TEST(test_free_then_reuse)
{
	struct hash_index h = {0};
	struct keys k = {0};
	size_t pos;

	add(&k, &h, 1, 10);
	add(&k, &h, 2, 20);
	hash_index_free(&h);
	ck_assert_ptr_null(h.slots);
	ck_assert_ptr_null(h.tags);
	ck_assert_uint_eq(h.cap, 0);
	ck_assert_uint_eq(h.n, 0);
	ck_assert(!find(&k, &h, 1, 10, &pos));
	k.n = 0;
	add(&k, &h, 2, 20);
	ck_assert(find(&k, &h, 2, 20, &pos));
	ck_assert_uint_eq(pos, 0);
	hash_index_free(&h);
	free(k.v);
}
END_TEST

START_TEST(test_hash_u64)
{
	uint64_t v = 0x0123456789abcdefULL;

	ck_assert_uint_eq(hash_u64(FNV_INIT, v), fnv1a(FNV_INIT, &v, sizeof(v)));
	ck_assert_uint_ne(hash_u64(FNV_INIT, 1), hash_u64(FNV_INIT, 2));
	/* Folding is ordered: (a, b) and (b, a) differ. */
	ck_assert_uint_ne(hash_u64(hash_u64(FNV_INIT, 1), 2), hash_u64(hash_u64(FNV_INIT, 2), 1));
}
END_TEST

static Suite *hash_suite(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("hash");

	tcase_add_test(tc, test_empty_and_free_null);
	tcase_add_test(tc, test_insert_find);
	tcase_add_test(tc, test_grow);
	tcase_add_test(tc, test_collisions);
	tcase_add_test(tc, test_free_then_reuse);
	tcase_add_test(tc, test_hash_u64);
	/* test_grow's million entries passed Check's 4 s under ASan on a loaded host */
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(hash_suite)
