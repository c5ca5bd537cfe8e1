// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "util/io.h"
#include "check_main.h"

static char path[] = "/tmp/fxs-check-io-XXXXXX";

static void setup(void)
{
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void teardown(void)
{
	unlink(path);
	strcpy(path, "/tmp/fxs-check-io-XXXXXX");
}

/* The pattern's n bytes. */
static char *pattern(size_t n)
{
	char *p = malloc(n + 1);

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (char)('a' + i % 26);
	return p;
}

/* n bytes of the pattern, plain or gzipped, at path. */
static void put(size_t n, bool gzipped)
{
	gzFile gz = gzopen(path, gzipped ? "wb" : "wbT");
	char *p = pattern(n);

	ck_assert_ptr_nonnull(gz);
	if (n)
		ck_assert_int_eq(gzwrite(gz, p, (unsigned)n), (int)n);
	ck_assert_int_eq(gzclose(gz), Z_OK);
	free(p);
}

static void assert_pattern(const char *text, size_t len, size_t want)
{
	char *p = pattern(want);

	ck_assert_uint_eq(len, want);
	ck_assert(!memcmp(text, p, want));
	ck_assert_int_eq(text[len], '\0');
	free(p);
}

/* Plain and gzipped alike, across many reads and reallocations, NUL-terminated. */
/* Bytes at an offset, whole; a file that ends before them says so. */
START_TEST(test_pread_all)
{
	char *want = pattern(100000), got[5000];
	FILE *f = fopen(path, "we");
	int fd;

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(want, 1, 100000, f), 100000);
	fclose(f);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread_all(fd, got, sizeof(got), 90000), 0);
	ck_assert_mem_eq(got, want + 90000, sizeof(got));
	ck_assert_int_eq(pread_all(fd, got, sizeof(got), 99000), -EIO);
	close(fd);
	ck_assert_int_eq(pread_all(-1, got, 1, 0), -EBADF);
	free(want);
}
END_TEST

START_TEST(test_read_whole)
{
	static const size_t sizes[] = {0, 1, 65535, 65536, 65537, 1000000};
	char *text;
	size_t len;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (int gzipped = 0; gzipped < 2; gzipped++) {
			put(sizes[i], gzipped);
			ck_assert_int_eq(read_whole(path, 0, &text, &len), 0);
			assert_pattern(text, len, sizes[i]);
			free(text);
		}
	}
}
END_TEST

/* Past max: -EFBIG and nothing returned; at max exactly: read. A missing file: -ENOENT. */
START_TEST(test_read_whole_errors)
{
	char *text = (char *)path;
	size_t len;

	put(100000, true);
	ck_assert_int_eq(read_whole(path, 99999, &text, &len), -EFBIG);
	ck_assert_ptr_null(text);
	ck_assert_int_eq(read_whole(path, 100000, &text, &len), 0);
	assert_pattern(text, len, 100000);
	free(text);
	ck_assert_int_eq(read_whole("/nonexistent/fxs", 0, &text, &len), -ENOENT);
	ck_assert_ptr_null(text);
}
END_TEST

static Suite *io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("read_whole");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pread_all);
	tcase_add_test(tc, test_read_whole);
	tcase_add_test(tc, test_read_whole_errors);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(io_suite)
