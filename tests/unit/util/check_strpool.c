// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* strpool: one stable copy of each distinct byte string. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "util/strpool.h"
#include "check_main.h"

START_TEST(test_strpool_same_pointer)
{
	struct strpool p = {0};
	char buf[] = "/usr/lib/libc.so.6";
	const char *a = strpool_str(&p, "/usr/lib/libc.so.6");
	const char *b, *c;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_ne(a, buf);
	ck_assert_str_eq(a, buf);
	/* The same bytes from another buffer: the same copy. */
	b = strpool_str(&p, buf);
	ck_assert_ptr_eq(a, b);
	buf[0] = 'X'; /* the pool keeps its own copy */
	ck_assert_str_eq(a, "/usr/lib/libc.so.6");
	c = strpool_str(&p, "/usr/lib/libm.so.6");
	ck_assert_ptr_ne(a, c);
	ck_assert_uint_eq(p.n, 2);
	ck_assert_uint_eq(strpool_len(a), strlen(a));
	/* The empty string is a string too. */
	ck_assert_str_eq(strpool_str(&p, ""), "");
	ck_assert_ptr_eq(strpool_str(&p, ""), strpool_intern(&p, "x", 0));
	ck_assert_uint_eq(strpool_len(strpool_str(&p, "")), 0);
	strpool_free(&p);
	ck_assert_ptr_null(p.chunks);
	ck_assert_uint_eq(p.n, 0);
	strpool_free(&p);
	strpool_free(NULL);
	/* Reusable after free. */
	ck_assert_str_eq(strpool_str(&p, "again"), "again");
	strpool_free(&p);
}
END_TEST

/* Build ids are bytes: NULs inside, and a prefix is another string. */
START_TEST(test_strpool_bytes)
{
	struct strpool p = {0};
	const unsigned char id[] = {0x12, 0x00, 0x34, 0x00, 0xff};
	const char *a = strpool_intern(&p, id, sizeof(id));
	const char *b = strpool_intern(&p, id, 2);
	const char *c = strpool_intern(&p, id, 1);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_ne(b, c);
	ck_assert_ptr_ne(a, c);
	ck_assert_mem_eq(a, id, sizeof(id));
	ck_assert_int_eq(a[sizeof(id)], '\0');
	ck_assert_uint_eq(strpool_len(a), sizeof(id));
	ck_assert_uint_eq(strpool_len(b), 2);
	ck_assert_ptr_eq(strpool_intern(&p, id, sizeof(id)), a);
	ck_assert_ptr_eq(strpool_intern(&p, id, 2), b);
	strpool_free(&p);
}
END_TEST

/* Many strings over many chunks, and strings bigger than a chunk: none moves. */
START_TEST(test_strpool_many)
{
	enum { N = 100000 };
	static const char *got[N];
	struct strpool p = {0};
	static char big[200000];
	const char *bigs[3];
	char name[64];
	size_t i;

	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "libfoo.so+0x%zx", i * 16);
		got[i] = strpool_str(&p, name);
		ck_assert_ptr_nonnull(got[i]);
		if (i == N / 2) {
			for (size_t j = 0; j < 3; j++) {
				memset(big, 'a' + (int)j, sizeof(big) - 1);
				bigs[j] = strpool_str(&p, big);
				ck_assert_ptr_nonnull(bigs[j]);
			}
		}
	}
	ck_assert_uint_eq(p.n, N + 3);
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "libfoo.so+0x%zx", i * 16);
		ck_assert_str_eq(got[i], name);
		ck_assert_ptr_eq(strpool_str(&p, name), got[i]);
	}
	for (size_t j = 0; j < 3; j++) {
		ck_assert_uint_eq(strlen(bigs[j]), sizeof(big) - 1);
		ck_assert_int_eq(bigs[j][0], 'a' + (int)j);
		ck_assert_int_eq(bigs[j][sizeof(big) - 2], 'a' + (int)j);
	}
	ck_assert_uint_eq(p.n, N + 3);
	strpool_free(&p);
}
END_TEST

static Suite *strpool_suite(void)
{
	Suite *s = suite_create("strpool");
	TCase *tc = tcase_create("strpool");

	tcase_add_test(tc, test_strpool_same_pointer);
	tcase_add_test(tc, test_strpool_bytes);
	tcase_add_test(tc, test_strpool_many);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(strpool_suite)
