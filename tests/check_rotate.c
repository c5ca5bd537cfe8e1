// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "rotate.h"

static const struct rotate_policy pol = {
	.max_file_size = 1000,
	.max_file_age_s = 3600,
	.max_total_size = 5000,
};

START_TEST(test_due)
{
	ck_assert(!rotate_due(&pol, 0, 100, 100));
	ck_assert(!rotate_due(&pol, 999, 100, 100 + 3599));
	ck_assert(rotate_due(&pol, 1000, 100, 100));
	ck_assert(rotate_due(&pol, 5, 100, 100 + 3600));
	/* a clock that went back does not rotate */
	ck_assert(!rotate_due(&pol, 5, 100, 50));
}
END_TEST

static struct rotate_file file(const char *name, uint64_t size, int64_t mtime, bool partial)
{
	struct rotate_file f = {.size = size, .mtime_s = mtime, .partial = partial};

	strcpy(f.name, name);
	return f;
}

START_TEST(test_plan_under_budget)
{
	struct rotate_file f[] = {
		file("fxsampler-b.fxt", 1000, 20, false),
		file("fxsampler-a.fxt", 1000, 10, false),
	};

	/* 2000 + 1000 reserved <= 5000 */
	ck_assert_uint_eq(rotate_plan(&pol, f, 2, 1000), 0);
	/* sorted oldest first anyway */
	ck_assert_str_eq(f[0].name, "fxsampler-a.fxt");
	ck_assert_uint_eq(rotate_plan(&pol, f, 0, 1000), 0);
}
END_TEST

START_TEST(test_plan_deletes_oldest)
{
	struct rotate_file f[] = {
		file("fxsampler-3.fxt", 1000, 30, false), file("fxsampler-1.fxt", 1000, 10, false),
		file("fxsampler-5.fxt", 1000, 50, false), file("fxsampler-2.fxt", 1000, 20, false),
		file("fxsampler-4.fxt", 1000, 40, false),
	};

	/* 5000 + 1000 reserved: one must go, the oldest */
	ck_assert_uint_eq(rotate_plan(&pol, f, 5, 1000), 1);
	ck_assert_str_eq(f[0].name, "fxsampler-1.fxt");
	ck_assert_str_eq(f[4].name, "fxsampler-5.fxt");
	/* with 3000 to reserve, three */
	ck_assert_uint_eq(rotate_plan(&pol, f, 5, 3000), 3);
	ck_assert_str_eq(f[2].name, "fxsampler-3.fxt");
	/* a reserve alone over budget deletes everything, never more */
	ck_assert_uint_eq(rotate_plan(&pol, f, 5, 9000), 5);
}
END_TEST

START_TEST(test_plan_ties_and_partials)
{
	struct rotate_file f[] = {
		file("fxsampler-b.fxt", 2000, 10, false),
		file("fxsampler-c.fxt.part", 4000, 99, true),
		file("fxsampler-a.fxt", 2000, 10, false),
		file("fxsampler-d.fxt", 2000, 11, false),
	};

	/* the partial goes whatever its age, and does not count; then a (name order) */
	ck_assert_uint_eq(rotate_plan(&pol, f, 4, 0), 2);
	ck_assert(f[0].partial);
	ck_assert_str_eq(f[1].name, "fxsampler-a.fxt");
	ck_assert_str_eq(f[2].name, "fxsampler-b.fxt");
}
END_TEST

START_TEST(test_is_ours)
{
	bool partial = true;

	ck_assert(rotate_is_ours("fxsampler-20250520T120000Z-0001.fxt", &partial));
	ck_assert(!partial);
	ck_assert(rotate_is_ours("fxsampler-20250520T120000Z-0001.fxt.part", &partial));
	ck_assert(partial);
	ck_assert(!rotate_is_ours("fxsampler-.fxt", NULL));
	ck_assert(!rotate_is_ours("fxsampler-x.fxt.tmp", NULL));
	ck_assert(!rotate_is_ours("notes.txt", NULL));
	ck_assert(!rotate_is_ours("my-fxsampler-x.fxt", NULL));
	ck_assert(!rotate_is_ours("fxsampler-x.part", NULL));
	ck_assert(!rotate_is_ours("", NULL));
}
END_TEST

START_TEST(test_file_name)
{
	char buf[64];
	bool partial;

	/* 2025-05-20 12:00:00 UTC */
	ck_assert_int_eq(rotate_file_name(buf, sizeof(buf), 1747742400, 7), 0);
	ck_assert_str_eq(buf, "fxsampler-20250520T120000Z-0007.fxt");
	ck_assert(rotate_is_ours(buf, &partial));
	ck_assert_int_eq(rotate_file_name(buf, 20, 1747742400, 7), -ENAMETOOLONG);
}
END_TEST

static char dir[64];

static void make_file(const char *name, size_t size, time_t mtime)
{
	struct timeval tv[2] = {{.tv_sec = mtime}, {.tv_sec = mtime}};
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	close(fd);
	ck_assert_int_eq(utimes(path, tv), 0);
}

static void setup_dir(void)
{
	strcpy(dir, "/tmp/check_rotate.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
}

START_TEST(test_list)
{
	struct rotate_file *files = NULL;
	char path[256], target[256];
	size_t nr = 0, del;

	make_file("fxsampler-20250101T000000Z-0001.fxt", 3000, 1000);
	make_file("fxsampler-20250101T010000Z-0002.fxt", 3000, 2000);
	make_file("fxsampler-20250101T020000Z-0003.fxt.part", 100, 3000);
	make_file("unrelated.fxt", 9999, 10);
	snprintf(path, sizeof(path), "%s/fxsampler-dir.fxt", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/fxsampler-link.fxt", dir);
	snprintf(target, sizeof(target), "%s/unrelated.fxt", dir);
	ck_assert_int_eq(symlink(target, path), 0);

	ck_assert_int_eq(rotate_list(dir, &files, &nr), 0);
	ck_assert_uint_eq(nr, 3);
	del = rotate_plan(&pol, files, nr, 1000);
	/* the partial, then 0001 to get 6000 + 1000 under 5000 */
	ck_assert_uint_eq(del, 2);
	ck_assert_str_eq(files[0].name, "fxsampler-20250101T020000Z-0003.fxt.part");
	ck_assert(files[0].partial);
	ck_assert_str_eq(files[1].name, "fxsampler-20250101T000000Z-0001.fxt");
	ck_assert_uint_eq(files[1].size, 3000);
	ck_assert_int_eq(files[1].mtime_s, 1000);
	ck_assert_str_eq(files[2].name, "fxsampler-20250101T010000Z-0002.fxt");
	free(files);

	ck_assert_int_eq(rotate_list("/nonexistent/fxs", &files, &nr), -ENOENT);
}
END_TEST

START_TEST(test_list_empty)
{
	struct rotate_file *files = NULL;
	size_t nr = 99;

	ck_assert_int_eq(rotate_list(dir, &files, &nr), 0);
	ck_assert_uint_eq(nr, 0);
	free(files);
}
END_TEST

static Suite *rotate_suite(void)
{
	Suite *s = suite_create("rotate");
	TCase *tc;

	tc = tcase_create("policy");
	tcase_add_test(tc, test_due);
	tcase_add_test(tc, test_plan_under_budget);
	tcase_add_test(tc, test_plan_deletes_oldest);
	tcase_add_test(tc, test_plan_ties_and_partials);
	tcase_add_test(tc, test_is_ours);
	tcase_add_test(tc, test_file_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("list");
	tcase_add_checked_fixture(tc, setup_dir, teardown_dir);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_list_empty);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rotate_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
