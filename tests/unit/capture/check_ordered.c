// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ordered: records read ring by ring come out in time order, those past the
 * horizon wait, and sizes and contents survive the moves.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "capture/ordered.h"
#include "check_main.h"

struct seen {
	uint64_t times[64];
	uint32_t pids[64];
	size_t sizes[64];
	unsigned n, fail_at;
};

static int take(void *ctx, const struct fxs_sample *rec, size_t size)
{
	struct seen *s = ctx;

	if (s->fail_at && s->n + 1 == s->fail_at)
		return -EIO;
	s->times[s->n] = rec->time_ns;
	s->pids[s->n] = rec->pid;
	s->sizes[s->n] = size;
	/* the payload after the header is whole */
	for (size_t i = sizeof(*rec); i < size; i++)
		ck_assert_int_eq(((const uint8_t *)rec)[i], (uint8_t)(rec->pid + i));
	s->n++;
	return 0;
}

/* A record of time t, named by pid, extra payload bytes after the header. */
static void add(struct ordered *o, uint64_t t, uint32_t pid, size_t extra)
{
	uint8_t buf[256] = {0};
	struct fxs_sample *h = (void *)buf;

	h->time_ns = t;
	h->pid = pid;
	for (size_t i = sizeof(*h); i < sizeof(*h) + extra; i++)
		buf[i] = (uint8_t)(pid + i);
	ck_assert_int_eq(ordered_add(o, buf, sizeof(*h) + extra), 0);
}

START_TEST(test_time_order_across_rings)
{
	struct ordered o = {0};
	struct seen s = {0};

	/* ring 0, then ring 1: a mapping at 20 on CPU 1 precedes a sample at 30 on CPU 0 */
	add(&o, 10, 1, 3);
	add(&o, 30, 2, 0);
	add(&o, 20, 3, 77);
	add(&o, 30, 4, 5); /* same time: reading order */
	ck_assert_int_eq(ordered_flush(&o, UINT64_MAX, take, &s), 0);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_uint_eq(s.pids[0], 1);
	ck_assert_uint_eq(s.pids[1], 3);
	ck_assert_uint_eq(s.pids[2], 2);
	ck_assert_uint_eq(s.pids[3], 4);
	ck_assert_uint_eq(s.sizes[1], sizeof(struct fxs_sample) + 77);
	ck_assert_uint_eq(o.nr, 0);
	ordered_free(&o);
}
END_TEST

START_TEST(test_horizon_keeps_the_rest)
{
	struct ordered o = {0};
	struct seen s = {0};

	/* added out of order, so that what stays is not in offset order */
	add(&o, 50, 1, 40);
	add(&o, 5, 2, 9);
	add(&o, 40, 3, 1);
	add(&o, 15, 4, 100);
	ck_assert_int_eq(ordered_flush(&o, 20, take, &s), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.pids[0], 2);
	ck_assert_uint_eq(s.pids[1], 4);
	ck_assert_uint_eq(o.nr, 2);
	/* the next drain adds an older one than those kept: it comes first */
	add(&o, 30, 5, 2);
	ck_assert_int_eq(ordered_flush(&o, UINT64_MAX, take, &s), 0);
	ck_assert_uint_eq(s.n, 5);
	ck_assert_uint_eq(s.pids[2], 5);
	ck_assert_uint_eq(s.pids[3], 3);
	ck_assert_uint_eq(s.pids[4], 1);
	ck_assert_uint_eq(s.sizes[4], sizeof(struct fxs_sample) + 40);
	ordered_free(&o);
}
END_TEST

START_TEST(test_error_stops)
{
	struct ordered o = {0};
	struct seen s = {.fail_at = 2};
	uint8_t small[8] = {0};

	ck_assert_int_eq(ordered_add(&o, small, sizeof(small)), -EINVAL);
	add(&o, 1, 1, 0);
	add(&o, 2, 2, 0);
	add(&o, 3, 3, 0);
	ck_assert_int_eq(ordered_flush(&o, UINT64_MAX, take, &s), -EIO);
	ck_assert_uint_eq(s.n, 1);
	/* the one that failed is gone, the one after it kept */
	ck_assert_uint_eq(o.nr, 1);
	s.fail_at = 0;
	ck_assert_int_eq(ordered_flush(&o, UINT64_MAX, take, &s), 0);
	ck_assert_uint_eq(s.pids[1], 3);
	ordered_free(&o);
}
END_TEST

static Suite *ordered_suite(void)
{
	Suite *s = suite_create("ordered");
	TCase *tc = tcase_create("flush");

	tcase_add_test(tc, test_time_order_across_rings);
	tcase_add_test(tc, test_horizon_keeps_the_rest);
	tcase_add_test(tc, test_error_stops);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(ordered_suite)
