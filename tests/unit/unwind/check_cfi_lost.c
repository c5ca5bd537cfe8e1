// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwind/cfi_lost: the frame a walk lost its table at (the first, leaf
 * first, whose module had none when sampled; return addresses looked up one
 * byte back), and the modules most counted, the rest together.
 */
#include <check.h>
#include <stdint.h>

#include "unwind/cfi_lost.h"
#include "check_main.h"

/*
 * A process of three modules: [0x1000, 0x2000) id 1 loaded at ts 100,
 * [0x2000, 0x3000) id 2 loaded at ts 500, [0x3000, 0x4000) walked by frame
 * pointers; nothing elsewhere.
 */
static enum cfi_lost_had lookup(void *ctx, uint64_t look, uint64_t ts, uint32_t *ret_id)
{
	unsigned *calls = ctx;

	(*calls)++;
	if (look >= 0x1000 && look < 0x2000) {
		*ret_id = 1;
		return ts >= 100 ? CFI_HAD_TABLE : CFI_HAD_NO_TABLE;
	}
	if (look >= 0x2000 && look < 0x3000) {
		*ret_id = 2;
		return ts >= 500 ? CFI_HAD_TABLE : CFI_HAD_NO_TABLE;
	}
	return look >= 0x3000 && look < 0x4000 ? CFI_HAD_TABLE : CFI_HAD_NO_MODULE;
}

START_TEST(test_frame)
{
	/* leaf in module 1, called from 3 (frame pointers), from 2, from nowhere known */
	const uint64_t frames[] = {0x1800, 0x3010, 0x2010, 0x9000};
	unsigned calls = 0;
	uint32_t id = 0;

	/* at 200, module 2 had no table yet: the walk lost it at frame 2 */
	ck_assert_int_eq(cfi_lost_frame(frames, 4, 200, lookup, &calls, &id, NULL), 2);
	ck_assert_uint_eq(id, 2);
	ck_assert_uint_eq(calls, 3);
	/* at 50 the leaf's module had none either: the first one */
	ck_assert_int_eq(cfi_lost_frame(frames, 4, 50, lookup, &calls, &id, NULL), 0);
	ck_assert_uint_eq(id, 1);
	/* at 600 every module had one: not found */
	ck_assert_int_eq(cfi_lost_frame(frames, 4, 600, lookup, &calls, &id, NULL), -1);
	ck_assert_int_eq(cfi_lost_frame(frames, 0, 50, lookup, &calls, &id, NULL), -1);
}
END_TEST

/* A return address just past module 1's end is a call in it: looked up one byte back. */
START_TEST(test_return_address)
{
	const uint64_t frames[] = {0x3000, 0x2000};
	unsigned calls = 0;
	uint32_t id = 0;

	/* the pc 0x3000 is module 3's (exact); the return address 0x2000 is module 1's call */
	ck_assert_int_eq(cfi_lost_frame(frames, 2, 50, lookup, &calls, &id, NULL), 1);
	ck_assert_uint_eq(id, 1);
	/* at 200 module 1 had its table, and 0x1fff is not module 2's */
	ck_assert_int_eq(cfi_lost_frame(frames, 2, 200, lookup, &calls, &id, NULL), -1);
}
END_TEST

/*
 * The tables the frames before the lost one were walked by: each once,
 * frame pointers' code none; all of them when none was lost.
 */
START_TEST(test_walked)
{
	const uint64_t frames[] = {0x1800, 0x1900, 0x3010, 0x2010, 0x1a00};
	struct cfi_walked walked = {0};
	unsigned calls = 0;
	uint32_t id = 0;

	ck_assert_int_eq(cfi_lost_frame(frames, 5, 200, lookup, &calls, &id, &walked), 3);
	ck_assert_uint_eq(id, 2);
	ck_assert_uint_eq(walked.n, 1);
	ck_assert_uint_eq(walked.id[0], 1);
	walked.n = 0;
	ck_assert_int_eq(cfi_lost_frame(frames, 5, 600, lookup, &calls, &id, &walked), -1);
	ck_assert_uint_eq(walked.n, 2);
	ck_assert_uint_eq(walked.id[0], 1);
	ck_assert_uint_eq(walked.id[1], 2);
}
END_TEST

START_TEST(test_top)
{
	struct cfi_lost l = {0};
	struct cfi_lost_ent top[3];
	uint64_t rest = 0;
	/* counts by id: 3 and 9 five times, 2 and 7 twice, 4 once */
	const uint32_t adds[] = {7, 3, 9, 3, 9, 2, 3, 9, 3, 9, 2, 4, 7, 3, 9};

	for (unsigned i = 0; i < sizeof(adds) / sizeof(*adds); i++)
		ck_assert_int_eq(cfi_lost_add(&l, adds[i]), 0);
	l.unknown = 10;
	ck_assert_uint_eq(l.nr, 5);
	ck_assert_uint_eq(cfi_lost_top(&l, top, 3, &rest), 3);
	/* most first, ties by the lower id (2 before 7) */
	ck_assert_uint_eq(top[0].id, 3);
	ck_assert_uint_eq(top[0].n, 5);
	ck_assert_uint_eq(top[1].id, 9);
	ck_assert_uint_eq(top[1].n, 5);
	ck_assert_uint_eq(top[2].id, 2);
	ck_assert_uint_eq(top[2].n, 2);
	/* 7's two, 4's one and the ten unknown */
	ck_assert_uint_eq(rest, 13);
	/* no slot: every stack is the rest */
	ck_assert_uint_eq(cfi_lost_top(&l, top, 0, &rest), 0);
	ck_assert_uint_eq(rest, 25);
	cfi_lost_free(&l);
	ck_assert_uint_eq(l.nr, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cfi_lost");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_frame);
	tcase_add_test(tc, test_return_address);
	tcase_add_test(tc, test_walked);
	tcase_add_test(tc, test_top);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite)
