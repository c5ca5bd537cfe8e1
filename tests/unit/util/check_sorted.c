// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of util/sorted, the one binary search: lower and upper bounds
 * and the exact find with its insertion point, against a linear scan on
 * every small array (duplicates included), over structs, pointers to them
 * and ranges, and as the sorted-insert of targets and modules uses it.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/sorted.h"
#include "check_main.h"

struct item {
	uint64_t pad;
	int key;
};

static int cmp_item(const void *key, const void *elem)
{
	int k = *(const int *)key, e = ((const struct item *)elem)->key;

	return (k > e) - (k < e);
}

static int cmp_item_ptr(const void *key, const void *elem)
{
	return cmp_item(key, *(const struct item *const *)elem);
}

struct range {
	uint64_t start, end;
};

/* An address against [start, end): matches inside, as proc_maps_find() looks one up. */
static int cmp_range(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key;
	const struct range *r = elem;

	return a < r->start ? -1 : a >= r->end ? 1 : 0;
}

START_TEST(test_empty)
{
	size_t pos = 99;
	int k = 1;

	ck_assert_uint_eq(sorted_lower(NULL, 0, sizeof(struct item), &k, cmp_item), 0);
	ck_assert_uint_eq(sorted_upper(NULL, 0, sizeof(struct item), &k, cmp_item), 0);
	ck_assert_ptr_null(sorted_find(NULL, 0, sizeof(struct item), &k, cmp_item, &pos));
	ck_assert_uint_eq(pos, 0);
}
END_TEST

START_TEST(test_duplicates)
{
	struct item v[] = {{0, 1}, {0, 3}, {0, 3}, {0, 3}, {0, 7}};
	size_t n = sizeof(v) / sizeof(v[0]), pos = 99;
	int k;

	k = 3;
	ck_assert_uint_eq(sorted_lower(v, n, sizeof(v[0]), &k, cmp_item), 1);
	ck_assert_uint_eq(sorted_upper(v, n, sizeof(v[0]), &k, cmp_item), 4);
	/* The first of equals, and the insertion point is left alone. */
	ck_assert_ptr_eq(sorted_find(v, n, sizeof(v[0]), &k, cmp_item, &pos), &v[1]);
	ck_assert_uint_eq(pos, 99);
	k = 0;
	ck_assert_uint_eq(sorted_lower(v, n, sizeof(v[0]), &k, cmp_item), 0);
	ck_assert_uint_eq(sorted_upper(v, n, sizeof(v[0]), &k, cmp_item), 0);
	k = 4;
	ck_assert_uint_eq(sorted_lower(v, n, sizeof(v[0]), &k, cmp_item), 4);
	ck_assert_uint_eq(sorted_upper(v, n, sizeof(v[0]), &k, cmp_item), 4);
	ck_assert_ptr_null(sorted_find(v, n, sizeof(v[0]), &k, cmp_item, &pos));
	ck_assert_uint_eq(pos, 4);
	k = 7;
	ck_assert_ptr_eq(sorted_find(v, n, sizeof(v[0]), &k, cmp_item, NULL), &v[4]);
	ck_assert_uint_eq(sorted_upper(v, n, sizeof(v[0]), &k, cmp_item), 5);
	k = 9;
	ck_assert_ptr_null(sorted_find(v, n, sizeof(v[0]), &k, cmp_item, &pos));
	ck_assert_uint_eq(pos, 5);
}
END_TEST

/* Every array of up to 12 keys in 0..5 drawn by a fixed seed, every key in -1..6. */
START_TEST(test_against_linear_scan)
{
	struct item v[12];
	unsigned seed = 12345;

	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(rand_r(&seed) % 13), lo, up, pos;
		int last = 0;

		for (size_t i = 0; i < n; i++) {
			last += rand_r(&seed) % 3 == 0;
			v[i] = (struct item){.key = last};
		}
		for (int k = -1; k <= last + 1; k++) {
			size_t want_lo = 0, want_up = 0;
			struct item *hit;

			while (want_lo < n && v[want_lo].key < k)
				want_lo++;
			while (want_up < n && v[want_up].key <= k)
				want_up++;
			lo = sorted_lower(v, n, sizeof(v[0]), &k, cmp_item);
			up = sorted_upper(v, n, sizeof(v[0]), &k, cmp_item);
			ck_assert_uint_eq(lo, want_lo);
			ck_assert_uint_eq(up, want_up);
			pos = SIZE_MAX;
			hit = sorted_find(v, n, sizeof(v[0]), &k, cmp_item, &pos);
			if (want_lo < want_up) {
				ck_assert_ptr_eq(hit, &v[want_lo]);
				ck_assert_uint_eq(pos, SIZE_MAX);
			} else {
				ck_assert_ptr_null(hit);
				ck_assert_uint_eq(pos, want_lo);
			}
		}
	}
}
END_TEST

/* An array of pointers, as the symbolizer keeps its processes and mappings. */
START_TEST(test_pointers)
{
	struct item a = {.key = 10}, b = {.key = 20}, c = {.key = 30};
	struct item *v[] = {&a, &b, &c};
	size_t pos;
	int k;

	k = 20;
	ck_assert_ptr_eq(sorted_find(v, 3, sizeof(v[0]), &k, cmp_item_ptr, NULL), &v[1]);
	k = 25;
	ck_assert_uint_eq(sorted_upper(v, 3, sizeof(v[0]), &k, cmp_item_ptr), 2);
	ck_assert_ptr_null(sorted_find(v, 3, sizeof(v[0]), &k, cmp_item_ptr, &pos));
	ck_assert_uint_eq(pos, 2);
}
END_TEST

START_TEST(test_ranges)
{
	struct range v[] = {{0x1000, 0x2000}, {0x2000, 0x2500}, {0x3000, 0x4000}};
	uint64_t a;

	a = 0x1000;
	ck_assert_ptr_eq(sorted_find(v, 3, sizeof(v[0]), &a, cmp_range, NULL), &v[0]);
	a = 0x1fff;
	ck_assert_ptr_eq(sorted_find(v, 3, sizeof(v[0]), &a, cmp_range, NULL), &v[0]);
	a = 0x2000;
	ck_assert_ptr_eq(sorted_find(v, 3, sizeof(v[0]), &a, cmp_range, NULL), &v[1]);
	a = 0x2500; /* the gap */
	ck_assert_ptr_null(sorted_find(v, 3, sizeof(v[0]), &a, cmp_range, NULL));
	a = 0x3fff;
	ck_assert_ptr_eq(sorted_find(v, 3, sizeof(v[0]), &a, cmp_range, NULL), &v[2]);
	a = 0x4000;
	ck_assert_ptr_null(sorted_find(v, 3, sizeof(v[0]), &a, cmp_range, NULL));
	a = 0xfff;
	ck_assert_ptr_null(sorted_find(v, 3, sizeof(v[0]), &a, cmp_range, NULL));
}
END_TEST

/* Insert where sorted_find says, as targets and modules do: sorted, no key twice. */
START_TEST(test_sorted_insert)
{
	struct item v[64];
	size_t n = 0, pos;

	/* Every key of 0..63 twice, in a scrambled order (37 is prime to 64). */
	for (int i = 0; i < 128; i++) {
		int k = i * 37 % 64;

		if (sorted_find(v, n, sizeof(v[0]), &k, cmp_item, &pos))
			continue;
		ck_assert_uint_lt(n, 64);
		memmove(&v[pos + 1], &v[pos], (n - pos) * sizeof(v[0]));
		v[pos] = (struct item){.key = k};
		n++;
	}
	ck_assert_uint_eq(n, 64);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(v[i].key, (int)i);
}
END_TEST

static Suite *sorted_suite(void)
{
	Suite *s = suite_create("sorted");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_duplicates);
	tcase_add_test(tc, test_against_linear_scan);
	tcase_add_test(tc, test_pointers);
	tcase_add_test(tc, test_ranges);
	tcase_add_test(tc, test_sorted_insert);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(sorted_suite)
