// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwind/cfi_cache: rows kept for a module file come back only for that very
 * file (same device, inode, size and mtime, and the same build id, or the
 * same ctime when it has none), whole (CRC), from a directory that is its
 * owner's alone; past the cap the least recently used go.
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

/* A module file of its own; its key in *key, with build id id ("": none). */
static void module_file(const char *name, const char *text, const char *id,
			struct cfi_cache_key *key)
{
	memset(key, 0, sizeof(*key));
	write_file(fx(name), text);
	ck_assert_int_eq(stat(fx(name), &key->st), 0);
	key->build_id_len = (uint8_t)strlen(id);
	memcpy(key->build_id, id, key->build_id_len);
}

/* How many files the cache holds. */
static int kept_files(void)
{
	char cmd[PATH_MAX + 64];
	int nr = -1;
	FILE *ls;

	snprintf(cmd, sizeof(cmd), "ls '%s'/cache/*.rows | wc -l", tmpdir);
	ls = popen(cmd, "r");
	ck_assert_ptr_nonnull(ls);
	ck_assert_int_eq(fscanf(ls, "%d", &nr), 1);
	pclose(ls);
	return nr;
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
	struct cfi_cache_key key, other;
	struct fxs_cfi_row *got = NULL;
	uint32_t n = 0;
	int fd;

	ck_assert_int_ge(dir, 0);
	module_file("lib.so", "code", "id-1", &key);
	ck_assert_int_eq(cfi_cache_get(dir, &key, &got, &n), -ENOENT);
	ck_assert_int_eq(cfi_cache_put(dir, &key, rows, NR, CFI_CACHE_CAP), 0);
	ck_assert_int_eq(cfi_cache_get(dir, &key, &got, &n), 0);
	ck_assert_uint_eq(n, NR);
	ck_assert_int_eq(memcmp(got, rows, sizeof(rows)), 0);
	free(got);

	/* another file: a miss */
	module_file("other.so", "code", "id-1", &other);
	ck_assert_int_eq(cfi_cache_get(dir, &other, &got, &n), -ENOENT);
	/* the same file with another build id (written again in place, mtime set back): a miss */
	other = key;
	other.build_id[0] = 'X';
	ck_assert_int_eq(cfi_cache_get(dir, &other, &got, &n), -ENOENT);
	other.build_id_len = 0;
	ck_assert_int_eq(cfi_cache_get(dir, &other, &got, &n), -ENOENT);

	/* a hard link moves its ctime (as perf record's ~/.debug does): still a hit */
	usleep(20000);
	ck_assert_int_eq(link(fx("lib.so"), fx("lib.so.link")), 0);
	ck_assert_int_eq(stat(fx("lib.so"), &other.st), 0);
	ck_assert_int_ne(other.st.st_ctim.tv_nsec, key.st.st_ctim.tv_nsec);
	other = (struct cfi_cache_key){.st = other.st, .build_id_len = 4};
	memcpy(other.build_id, "id-1", 4);
	ck_assert_int_eq(cfi_cache_get(dir, &other, &got, &n), 0);
	free(got);

	/* one byte of the rows changed on disk: its CRC says so, a miss */
	fd = open(kept_file(), O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "x", 1, 200), 1);
	close(fd);
	ck_assert_int_eq(cfi_cache_get(dir, &key, &got, &n), -ENOENT);
	/* cut short: a miss */
	ck_assert_int_eq(cfi_cache_put(dir, &key, rows, NR, CFI_CACHE_CAP), 0);
	ck_assert_int_eq(truncate(kept_file(), 100), 0);
	ck_assert_int_eq(cfi_cache_get(dir, &key, &got, &n), -ENOENT);

	/* without a build id, its ctime tells: moved, a miss */
	module_file("plain.so", "code", "", &key);
	ck_assert_int_eq(cfi_cache_put(dir, &key, rows, NR, CFI_CACHE_CAP), 0);
	ck_assert_int_eq(cfi_cache_get(dir, &key, &got, &n), 0);
	free(got);
	usleep(20000);
	ck_assert_int_eq(chmod(fx("plain.so"), 0600), 0);
	ck_assert_int_eq(stat(fx("plain.so"), &other.st), 0);
	other.build_id_len = 0;
	ck_assert_int_eq(cfi_cache_get(dir, &other, &got, &n), -ENOENT);
	/* kept again, in the place of its old rows */
	ck_assert_int_eq(kept_files(), 2);
	ck_assert_int_eq(cfi_cache_put(dir, &other, rows, NR, CFI_CACHE_CAP), 0);
	ck_assert_int_eq(kept_files(), 2);
	ck_assert_int_eq(cfi_cache_get(dir, &key, &got, &n), -ENOENT);
	ck_assert_int_eq(cfi_cache_get(dir, &other, &got, &n), 0);
	free(got);

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
	struct cfi_cache_key a, b, c;
	struct fxs_cfi_row *got;
	uint32_t n;

	ck_assert_int_ge(dir, 0);
	module_file("a.so", "a", "id-a", &a);
	module_file("b.so", "b", "", &b);
	module_file("c.so", "c", "id-c", &c);
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
	struct cfi_cache_key key;

	ck_assert_int_ge(dir, 0);
	write_file(fx("cache/x.rows.tmp.1"), "half");
	write_file(fx("cache/y.rows.tmp.2"), "being written");
	ck_assert_int_eq(utimensat(AT_FDCWD, fx("cache/x.rows.tmp.1"), old, 0), 0);
	module_file("lib.so", "code", "id", &key);
	ck_assert_int_eq(cfi_cache_put(dir, &key, rows, NR, CFI_CACHE_CAP), 0);
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
