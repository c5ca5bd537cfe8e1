// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of util/itree and util/rangemap (issue 40): overlap queries
 * against a linear scan over random intervals, inserts and removes in any
 * order; ranges set over others (cut at either end, split in the middle,
 * covered, replaced whole) against a map of every address of a small space;
 * the cap and its drop count; copies; and 200,000 ranges set top-down (as
 * mmap places them) and half unmapped, which a list with linear inserts
 * could not do in the test's time.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/itree.h"
#include "util/rangemap.h"
#include "check_main.h"

struct iv {
	struct itree_node node;
	bool in;
};

struct collect {
	struct itree_node *seen[512];
	size_t n;
};

static int collect_fn(struct itree_node *n, void *ctx)
{
	struct collect *c = ctx;

	ck_assert_uint_lt(c->n, 512);
	c->seen[c->n++] = n;
	return 0;
}

START_TEST(test_itree_against_scan)
{
	static struct iv v[400];
	struct itree t;
	unsigned seed = 7;

	itree_init(&t);
	for (size_t i = 0; i < 400; i++) {
		v[i].node.start = rand_r(&seed) % 1000;
		v[i].node.end = v[i].node.start + 1 + rand_r(&seed) % 60;
		v[i].node.seq = i;
	}
	for (int round = 0; round < 3000; round++) {
		struct iv *x = &v[rand_r(&seed) % 400];
		uint64_t s = rand_r(&seed) % 1100, e = s + 1 + rand_r(&seed) % 80;
		struct collect c = {.n = 0};
		size_t want = 0, k = 0;
		struct itree_node *first = NULL;

		if (x->in)
			itree_remove(&t, &x->node);
		else
			itree_insert(&t, &x->node);
		x->in = !x->in;
		itree_overlaps(&t, s, e, collect_fn, &c);
		for (size_t i = 0; i < 400; i++) {
			if (!v[i].in || v[i].node.start >= e || v[i].node.end <= s)
				continue;
			want++;
			if (!first || v[i].node.start < first->start ||
			    (v[i].node.start == first->start && v[i].node.seq < first->seq))
				first = &v[i].node;
		}
		ck_assert_uint_eq(c.n, want);
		ck_assert_ptr_eq(itree_first_overlap(&t, s, e), first);
		/* in order, each overlapping */
		for (size_t i = 0; i < c.n; i++) {
			bool in_order = !i || c.seen[i - 1]->start < c.seen[i]->start ||
					(c.seen[i - 1]->start == c.seen[i]->start &&
					 c.seen[i - 1]->seq < c.seen[i]->seq);

			if (!(c.seen[i]->start < e && c.seen[i]->end > s) || !in_order)
				ck_abort_msg("round %d: found %zu out of place", round, i);
		}
		for (struct itree_node *n = itree_first(&t); n; n = itree_next(&t, n))
			k++;
		ck_assert_uint_eq(k, t.n);
	}
}
END_TEST

/* A model of a small address space: each address's value, 0 for none. */
#define SPACE 300
static void check_model(const struct rangemap *m, const int model[SPACE])
{
	uint64_t last_end = 0;

	/* one assert each: check's asserts are slow in a loop this long */
	for (uint64_t a = 0; a < SPACE; a++) {
		struct rangemap_entry *e = rangemap_find(m, a);
		int got = e ? *(int *)rangemap_value(e) : 0;

		if (got != model[a])
			ck_abort_msg("address %llu: %d, not %d", (unsigned long long)a, got,
				     model[a]);
	}
	/* apart, in order */
	for (struct rangemap_entry *e = rangemap_first(m); e; e = rangemap_next(m, e)) {
		if (last_end > e->node.start || e->node.start >= e->node.end)
			ck_abort_msg("range %llu-%llu after %llu",
				     (unsigned long long)e->node.start,
				     (unsigned long long)e->node.end, (unsigned long long)last_end);
		last_end = e->node.end;
	}
}

START_TEST(test_cut_against_model)
{
	struct rangemap m;
	int model[SPACE] = {0};
	unsigned seed = 3;

	rangemap_init(&m, sizeof(int), 0);
	for (int i = 1; i < 4000; i++) {
		uint64_t s = rand_r(&seed) % (SPACE - 20), e = s + 1 + rand_r(&seed) % 20;

		if (rand_r(&seed) % 4 == 0) {
			ck_assert_int_eq(rangemap_unset(&m, s, e), 0);
			for (uint64_t a = s; a < e; a++)
				model[a] = 0;
		} else {
			ck_assert_int_eq(rangemap_set(&m, s, e, &i, RANGEMAP_CUT), 0);
			for (uint64_t a = s; a < e; a++)
				model[a] = i;
		}
		check_model(&m, model);
	}
	rangemap_clear(&m);
	ck_assert_uint_eq(rangemap_count(&m), 0);
}
END_TEST

START_TEST(test_split_and_replace)
{
	struct rangemap m;
	int one = 1, two = 2;
	struct rangemap_entry *e;

	rangemap_init(&m, sizeof(int), 0);
	ck_assert_int_eq(rangemap_set(&m, 100, 200, &one, RANGEMAP_CUT), 0);
	ck_assert_int_eq(rangemap_set(&m, 140, 150, &two, RANGEMAP_CUT), 0);
	ck_assert_uint_eq(rangemap_count(&m), 3);
	e = rangemap_find(&m, 199);
	ck_assert_uint_eq(e->node.start, 150);
	ck_assert_int_eq(*(int *)rangemap_value(e), 1);
	ck_assert_uint_eq(rangemap_find(&m, 100)->node.end, 140);
	ck_assert_ptr_null(rangemap_find(&m, 200));
	ck_assert_int_eq(rangemap_set(&m, 140, 150, &two, RANGEMAP_CUT), 0);
	ck_assert_uint_eq(rangemap_count(&m), 3);
	/* replace: every range it touches goes whole */
	ck_assert_int_eq(rangemap_set(&m, 139, 141, &two, RANGEMAP_REPLACE), 0);
	ck_assert_uint_eq(rangemap_count(&m), 2);
	ck_assert_ptr_null(rangemap_find(&m, 100));
	ck_assert_ptr_null(rangemap_find(&m, 145));
	ck_assert_int_eq(rangemap_set(&m, 5, 5, &two, RANGEMAP_CUT), -EINVAL);
	rangemap_clear(&m);
}
END_TEST

START_TEST(test_cap)
{
	struct rangemap m, copy;
	int v = 1;

	rangemap_init(&m, sizeof(int), 4);
	for (uint64_t i = 0; i < 6; i++)
		rangemap_set(&m, i * 10, i * 10 + 5, &v, RANGEMAP_CUT);
	ck_assert_uint_eq(rangemap_count(&m), 4);
	ck_assert_uint_eq(m.dropped, 2);
	/* a split at the cap keeps the head, drops the tail, and the new range */
	ck_assert_int_eq(rangemap_set(&m, 1, 2, &v, RANGEMAP_CUT), 1);
	ck_assert_uint_eq(rangemap_count(&m), 4);
	ck_assert_uint_eq(m.dropped, 4);
	ck_assert_ptr_nonnull(rangemap_find(&m, 0));
	ck_assert_ptr_null(rangemap_find(&m, 3));
	/* room made by the cut is room */
	ck_assert_int_eq(rangemap_set(&m, 10, 15, &v, RANGEMAP_CUT), 0);
	rangemap_init(&copy, sizeof(int), 2);
	ck_assert_int_eq(rangemap_copy(&copy, &m), 0);
	ck_assert_uint_eq(rangemap_count(&copy), 2);
	ck_assert_uint_eq(copy.dropped, 2);
	rangemap_clear(&m);
	rangemap_clear(&copy);
}
END_TEST

/* 200,000 ranges top-down, then every other one unmapped: n log n, not n². */
START_TEST(test_many_top_down)
{
	struct rangemap m;
	const uint64_t n = 200000, page = 4096, top = 0x7f0000000000ULL;

	rangemap_init(&m, sizeof(uint64_t), 0);
	for (uint64_t i = 0; i < n; i++)
		ck_assert_int_eq(
			rangemap_set(&m, top - (i + 1) * page, top - i * page, &i, RANGEMAP_CUT),
			0);
	ck_assert_uint_eq(rangemap_count(&m), n);
	for (uint64_t i = 0; i < n; i += 2)
		rangemap_unset(&m, top - (i + 1) * page, top - i * page);
	ck_assert_uint_eq(rangemap_count(&m), n / 2);
	ck_assert_uint_eq(*(uint64_t *)rangemap_value(rangemap_find(&m, top - 2 * page)), 1);
	/* one large mapping over all of them */
	ck_assert_int_eq(rangemap_set(&m, top - n * page, top, &n, RANGEMAP_CUT), 0);
	ck_assert_uint_eq(rangemap_count(&m), 1);
	rangemap_clear(&m);
}
END_TEST

static Suite *rangemap_suite(void)
{
	Suite *s = suite_create("rangemap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_itree_against_scan);
	tcase_add_test(tc, test_cut_against_model);
	tcase_add_test(tc, test_split_and_replace);
	tcase_add_test(tc, test_cap);
	tcase_add_test(tc, test_many_top_down);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(rangemap_suite)
