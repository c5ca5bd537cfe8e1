// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* idset: the set of 64-bit ids. */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "util/idset.h"
#include "check_main.h"

START_TEST(test_idset_basic)
{
	struct idset s = {0};

	ck_assert_int_eq(idset_has(&s, 1), 0);
	ck_assert_int_eq(idset_has(&s, 0), 0);
	ck_assert_int_eq(idset_add(&s, 0), -EINVAL);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_int_eq(idset_add(&s, 42), 1);
	ck_assert_int_eq(idset_add(&s, 42), 0);
	ck_assert_int_eq(idset_add(&s, 42), 0);
	ck_assert_uint_eq(s.len, 1);
	ck_assert_int_eq(idset_has(&s, 42), 1);
	ck_assert_int_eq(idset_has(&s, 43), 0);
	ck_assert_int_eq(idset_has(&s, 0), 0);
	ck_assert_int_eq(idset_add(&s, 0), -EINVAL);
	ck_assert_uint_eq(s.len, 1);
	ck_assert_int_eq(idset_add(&s, UINT64_MAX), 1);
	ck_assert_int_eq(idset_has(&s, UINT64_MAX), 1);
	ck_assert_uint_eq(s.len, 2);

	idset_free(&s);
	ck_assert_ptr_null(s.ids);
	ck_assert_uint_eq(s.idx.cap, 0);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_int_eq(idset_has(&s, 42), 0);
	/* Free again, then reuse. */
	idset_free(&s);
	ck_assert_int_eq(idset_add(&s, 42), 1);
	ck_assert_int_eq(idset_has(&s, 42), 1);
	idset_free(&s);
}
END_TEST

START_TEST(test_idset_grow)
{
	const uint64_t n = 20000;
	struct idset s = {0};

	for (uint64_t id = 1; id <= n; id++) {
		ck_assert_int_eq(idset_add(&s, id), 1);
		/* The index: a power of two, at most half full. */
		ck_assert_uint_eq(s.idx.cap & (s.idx.cap - 1), 0);
		ck_assert_uint_le(s.len * 2, s.idx.cap);
	}
	ck_assert_uint_eq(s.len, n);
	for (uint64_t id = 1; id <= n; id++)
		ck_assert_int_eq(idset_add(&s, id), 0);
	ck_assert_uint_eq(s.len, n);
	for (uint64_t id = 1; id <= n; id++)
		ck_assert_int_eq(idset_has(&s, id), 1);
	for (uint64_t id = n + 1; id <= 2 * n; id++)
		ck_assert_int_eq(idset_has(&s, id), 0);
	idset_free(&s);
}
END_TEST

/* Ids that differ only in bits the hash may not spread, and pid/tid-like keys. */
START_TEST(test_idset_collisions)
{
	struct idset s = {0};
	unsigned added = 0;

	for (uint64_t i = 1; i <= 3000; i++) {
		ck_assert_int_eq(idset_add(&s, i << 40), 1);
		ck_assert_int_eq(idset_add(&s, i << 20), 1);
		ck_assert_int_eq(idset_add(&s, (i << 32) | i), 1);
		added += 3;
	}
	ck_assert_uint_eq(s.len, added);
	for (uint64_t i = 1; i <= 3000; i++) {
		ck_assert_int_eq(idset_has(&s, i << 40), 1);
		ck_assert_int_eq(idset_has(&s, i << 20), 1);
		ck_assert_int_eq(idset_has(&s, (i << 32) | i), 1);
		ck_assert_int_eq(idset_has(&s, (i << 40) | 1), 0);
	}
	idset_free(&s);
}
END_TEST

static Suite *idset_suite(void)
{
	Suite *s = suite_create("idset");
	TCase *tc = tcase_create("idset");

	tcase_add_test(tc, test_idset_basic);
	tcase_add_test(tc, test_idset_grow);
	tcase_add_test(tc, test_idset_collisions);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(idset_suite)
