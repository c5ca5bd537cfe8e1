// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwind/cfi_cache: rows kept for a module file come back only for that very
 * file (same device, inode, size, mtime and ctime), whole (CRC), from a
 * directory that is its owner's alone; past the cap the least recently used
 * go.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "unwind/cfi_cache.h"
#include "fixture.h"
#include "check_main.h"

#define NR 5000

static struct fxs_cfi_row rows[NR];

static void setup(void)
{
	make_tmpdir("fxs-cfi-cache");
	for (uint32_t i = 0; i < NR; i++)
		rows[i] = (struct fxs_cfi_row){.pc = 0x1000 + i * 4,
					       .rule = FXS_CFI_SP | (i % 7) << 8};
}

static void teardown(void)
{
	run("rm -rf '%s'", tmpdir);
}

/* A module file of its own; its fstat() in *st. */
static void module_file(const char *name, const char *text, struct stat *st)
{
	write_file(fx(name), text);
	ck_assert_int_eq(stat(fx(name), st), 0);
}

/* The one file the cache holds (by its suffix), or "". */
static const char *kept_file(void)
{
	static char path[PATH_MAX + 300];
	FILE *ls;

	snprintf(path, sizeof(path), "ls '%s'/cache/*.rows 2>/dev/null | head -1", tmpdir);
	ls = popen(path, "r");
	ck_assert_ptr_nonnull(ls);
	if (!fgets(path, sizeof(path), ls))
		path[0] = '\0';
	pclose(ls);
	path[strcspn(path, "\n")] = '\0';
	return path;
}

START_TEST(test_round_trip_and_misses)
{
	int dir = cfi_cache_open(fx("cache"));
	struct fxs_cfi_row *got = NULL;
	struct stat st, other;
	uint32_t n = 0;
	int fd;

	ck_assert_int_ge(dir, 0);
	module_file("lib.so", "code", &st);
	ck_assert_int_eq(cfi_cache_get(dir, &st, &got, &n), -ENOENT);
	ck_assert_int_eq(cfi_cache_put(dir, &st, rows, NR, CFI_CACHE_CAP), 0);
	ck_assert_int_eq(cfi_cache_get(dir, &st, &got, &n), 0);
	ck_assert_uint_eq(n, NR);
	ck_assert_int_eq(memcmp(got, rows, sizeof(rows)), 0);
	free(got);

	/* another file: a miss */
	module_file("other.so", "code", &other);
	ck_assert_int_eq(cfi_cache_get(dir, &other, &got, &n), -ENOENT);
	/* the file written again in place (same size): its ctime moves, a miss */
	usleep(20000);
	write_file(fx("lib.so"), "CODE");
	ck_assert_int_eq(stat(fx("lib.so"), &other), 0);
	ck_assert_uint_eq(other.st_ino, st.st_ino);
	ck_assert_int_eq(cfi_cache_get(dir, &other, &got, &n), -ENOENT);

	/* one byte of the rows changed on disk: its CRC says so, a miss */
	ck_assert_int_eq(cfi_cache_get(dir, &st, &got, &n), 0);
	free(got);
	fd = open(kept_file(), O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "x", 1, 200), 1);
	close(fd);
	ck_assert_int_eq(cfi_cache_get(dir, &st, &got, &n), -ENOENT);
	/* cut short: a miss */
	ck_assert_int_eq(cfi_cache_put(dir, &st, rows, NR, CFI_CACHE_CAP), 0);
	ck_assert_int_eq(truncate(kept_file(), 100), 0);
	ck_assert_int_eq(cfi_cache_get(dir, &st, &got, &n), -ENOENT);
	close(dir);
}
END_TEST

/* A directory others may write to, or a link to one, is not used. */
START_TEST(test_directory_ours_alone)
{
	int dir;

	ck_assert_int_eq(mkdir(fx("open"), 0700), 0);
	ck_assert_int_eq(chmod(fx("open"), 0777), 0);
	ck_assert_int_eq(cfi_cache_open(fx("open")), -EPERM);
	ck_assert_int_eq(chmod(fx("open"), 0755), 0);
	dir = cfi_cache_open(fx("open"));
	ck_assert_int_ge(dir, 0);
	close(dir);
	ck_assert_int_eq(symlink(fx("open"), fx("link")), 0);
	ck_assert_int_eq(cfi_cache_open(fx("link")), -EPERM);
	/* made with its parent when missing, 0700 */
	dir = cfi_cache_open(fx("a/cfi"));
	ck_assert_int_ge(dir, 0);
	close(dir);
}
END_TEST

/* Past the cap the least recently used file goes; a hit counts as a use. */
START_TEST(test_cap_least_recently_used)
{
	int dir = cfi_cache_open(fx("cache"));
	uint64_t one = sizeof(rows) + 256, cap = 2 * one + one / 2;
	struct fxs_cfi_row *got;
	struct stat a, b, c;
	uint32_t n;

	ck_assert_int_ge(dir, 0);
	module_file("a.so", "a", &a);
	module_file("b.so", "b", &b);
	module_file("c.so", "c", &c);
	ck_assert_int_eq(cfi_cache_put(dir, &a, rows, NR, cap), 0);
	usleep(20000);
	ck_assert_int_eq(cfi_cache_put(dir, &b, rows, NR, cap), 0);
	usleep(20000);
	/* a used after b: b is the least recently used when c comes */
	ck_assert_int_eq(cfi_cache_get(dir, &a, &got, &n), 0);
	free(got);
	usleep(20000);
	ck_assert_int_eq(cfi_cache_put(dir, &c, rows, NR, cap), 0);
	ck_assert_int_eq(cfi_cache_get(dir, &b, &got, &n), -ENOENT);
	ck_assert_int_eq(cfi_cache_get(dir, &a, &got, &n), 0);
	free(got);
	ck_assert_int_eq(cfi_cache_get(dir, &c, &got, &n), 0);
	free(got);
	/* larger than the cap alone: not kept */
	ck_assert_int_eq(cfi_cache_put(dir, &b, rows, NR, one / 2), -E2BIG);
	close(dir);
}
END_TEST

/* A temporary file a capture left mid-write goes at the next write, once old. */
START_TEST(test_stale_temporaries)
{
	int dir = cfi_cache_open(fx("cache"));
	struct timespec old[2] = {{.tv_sec = time(NULL) - 3600}, {.tv_sec = time(NULL) - 3600}};
	struct stat st;

	ck_assert_int_ge(dir, 0);
	write_file(fx("cache/x.rows.tmp.1"), "half");
	write_file(fx("cache/y.rows.tmp.2"), "being written");
	ck_assert_int_eq(utimensat(AT_FDCWD, fx("cache/x.rows.tmp.1"), old, 0), 0);
	module_file("lib.so", "code", &st);
	ck_assert_int_eq(cfi_cache_put(dir, &st, rows, NR, CFI_CACHE_CAP), 0);
	ck_assert_int_eq(access(fx("cache/x.rows.tmp.1"), F_OK), -1);
	ck_assert_int_eq(access(fx("cache/y.rows.tmp.2"), F_OK), 0);
	close(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cfi_cache");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_round_trip_and_misses);
	tcase_add_test(tc, test_directory_ours_alone);
	tcase_add_test(tc, test_cap_least_recently_used);
	tcase_add_test(tc, test_stale_temporaries);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite)
