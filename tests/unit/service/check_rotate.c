// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "fxt/fxt.h"
#include "service/rotate.h"
#include "check_main.h"

static const struct rotate_policy pol = {
	.max_file_size = 1000,
	.max_file_age_s = 3600,
	.max_total_size = 5000,
};

START_TEST(test_due)
{
	ck_assert(!rotate_due(&pol, 0, 0, 100, 100));
	ck_assert(!rotate_due(&pol, 999, 0, 100, 100 + 3599));
	ck_assert(rotate_due(&pol, 1000, 0, 100, 100));
	ck_assert(rotate_due(&pol, 5, 0, 100, 100 + 3600));
	/* a clock that went back does not rotate */
	ck_assert(!rotate_due(&pol, 5, 0, 100, 50));
	/* what may still come counts: the file closes before it would pass the size */
	ck_assert(!rotate_due(&pol, 700, 299, 100, 100));
	ck_assert(rotate_due(&pol, 700, 300, 100, 100));
	/* a reserve of more than half the file counts as half */
	ck_assert(!rotate_due(&pol, 499, 900, 100, 100));
	ck_assert(rotate_due(&pol, 500, 900, 100, 100));
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
	ck_assert_uint_eq(rotate_plan(&pol, f, 2, 1000, NULL), 0);
	/* sorted oldest first anyway */
	ck_assert_str_eq(f[0].name, "fxsampler-a.fxt");
	ck_assert_uint_eq(rotate_plan(&pol, f, 0, 1000, NULL), 0);
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
	ck_assert_uint_eq(rotate_plan(&pol, f, 5, 1000, NULL), 1);
	ck_assert_str_eq(f[0].name, "fxsampler-1.fxt");
	ck_assert_str_eq(f[4].name, "fxsampler-5.fxt");
	/* with 3000 to reserve, three */
	ck_assert_uint_eq(rotate_plan(&pol, f, 5, 3000, NULL), 3);
	ck_assert_str_eq(f[2].name, "fxsampler-3.fxt");
	/* a reserve alone over budget deletes everything, never more */
	ck_assert_uint_eq(rotate_plan(&pol, f, 5, 9000, NULL), 5);
	/* but never the file just completed */
	ck_assert_uint_eq(rotate_plan(&pol, f, 5, 9000, "fxsampler-5.fxt"), 4);
	ck_assert_str_eq(f[4].name, "fxsampler-5.fxt");
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

	/*
	 * A partial one salvage could not name counts and goes by its age like
	 * any other: 10000 bytes, a and b (name order at mtime 10), then d.
	 */
	ck_assert_uint_eq(rotate_plan(&pol, f, 4, 0, NULL), 3);
	ck_assert_str_eq(f[0].name, "fxsampler-a.fxt");
	ck_assert_str_eq(f[1].name, "fxsampler-b.fxt");
	ck_assert_str_eq(f[2].name, "fxsampler-d.fxt");
	ck_assert(f[3].partial);
}
END_TEST

/*
 * Continuous mode in the smallest budget the configuration allows (twice the
 * file size), 40 rotations: after each, the plan runs with the next file's
 * reserve and the file just completed. It never deletes that one, and what
 * is left is always the newest files. Files overshoot max_file_size a little
 * (a drain's worth), which without the keep rule would take the file just
 * completed.
 */
START_TEST(test_plan_small_budget_keeps_newest)
{
	static const struct rotate_policy small = {
		.max_file_size = 1000, .max_file_age_s = 10, .max_total_size = 2000};
	struct rotate_file f[64];
	size_t nr = 0, del, i;
	char just[NAME_MAX + 1];
	unsigned round;

	for (round = 0; round < 40; round++) {
		/* sizes 1000..1150, one every 10 s */
		snprintf(just, sizeof(just), "fxsampler-%04u.fxt", round);
		f[nr++] = file(just, 1000 + (round % 4) * 50, 100 + round * 10, false);
		del = rotate_plan(&small, f, nr, small.max_file_size, just);
		ck_assert_uint_lt(del, nr);
		for (i = 0; i < del; i++)
			ck_assert_str_ne(f[i].name, just);
		memmove(f, f + del, (nr - del) * sizeof(*f));
		nr -= del;
		/* the file just completed is last and kept, the rest are the newest */
		ck_assert_str_eq(f[nr - 1].name, just);
		for (i = 0; i < nr; i++) {
			char exp[NAME_MAX + 1];

			snprintf(exp, sizeof(exp), "fxsampler-%04u.fxt",
				 round - (unsigned)(nr - 1 - i));
			ck_assert_str_eq(f[i].name, exp);
		}
		ck_assert_uint_eq(nr, 1);
	}

	/* A budget of three files keeps the two newest as well. */
	nr = 0;
	for (round = 0; round < 10; round++) {
		snprintf(just, sizeof(just), "fxsampler-%04u.fxt", round);
		f[nr++] = file(just, 1000, 100 + round * 10, false);
		del = rotate_plan(&(struct rotate_policy){1000, 10, 3000}, f, nr, 1000, just);
		memmove(f, f + del, (nr - del) * sizeof(*f));
		nr -= del;
		ck_assert_uint_eq(nr, round ? 2 : 1);
		ck_assert_str_eq(f[nr - 1].name, just);
	}
	ck_assert_str_eq(f[0].name, "fxsampler-0008.fxt");

	/* The clock went back: the file just completed looks oldest, and stays. */
	nr = 0;
	f[nr++] = file("fxsampler-new.fxt", 1000, 5, false);
	f[nr++] = file("fxsampler-old1.fxt", 1000, 100, false);
	f[nr++] = file("fxsampler-old2.fxt", 1000, 110, false);
	del = rotate_plan(&small, f, nr, 1000, "fxsampler-new.fxt");
	ck_assert_uint_eq(del, 2);
	ck_assert_str_eq(f[2].name, "fxsampler-new.fxt");
}
END_TEST

/* --- salvage --- */

struct fxt_bytes {
	uint8_t *data;
	size_t len, cap;
};

static void put_word(struct fxt_bytes *b, uint64_t w)
{
	if (b->len + 8 > b->cap) {
		b->cap = b->cap ? b->cap * 2 : 4096;
		b->data = realloc(b->data, b->cap);
		ck_assert_ptr_nonnull(b->data);
	}
	for (int i = 0; i < 8; i++)
		b->data[b->len++] = (uint8_t)(w >> (8 * i));
}

/*
 * What the stream writes first (magic, provider "fxsampler", init), then one
 * of each record a capture holds; the offset where each record ends goes to
 * ends[]. The sizes are spelled out here, not taken from the writer.
 */
static size_t build_file(struct fxt_bytes *b, uint64_t *ends)
{
	size_t n = 0, i;

	put_word(b, FXT_MAGIC_WORD);
	ends[n++] = b->len;
	put_word(b, 0x0090000000110030ULL); /* provider info, 3 words */
	put_word(b, 0x656c706d61737866ULL);
	put_word(b, 0x72);
	ends[n++] = b->len;
	put_word(b, 0x21); /* init, 2 words */
	put_word(b, 1000000000);
	ends[n++] = b->len;
	put_word(b, 0x0000000600010022ULL); /* string 1 "worker", 2 words */
	put_word(b, 0x000072656b726f77ULL);
	ends[n++] = b->len;
	put_word(b, 0x0000000000010033ULL); /* thread 1 = (1234, 0), 3 words */
	put_word(b, 1234);
	put_word(b, 0);
	ends[n++] = b->len;
	put_word(b, 0x000050003011005aULL); /* mmap, 5 words */
	for (i = 0; i < 4; i++)
		put_word(b, i);
	ends[n++] = b->len;
	put_word(b, 0x000000001022003aULL); /* backtrace, 3 words */
	put_word(b, 7);
	put_word(b, 0x401234);
	ends[n++] = b->len;
	/* a large record of 5000 words: its size is the 32-bit field */
	put_word(b, FXT_RT_LARGE | 5000ULL << 4);
	for (i = 1; i < 5000; i++)
		put_word(b, 0);
	ends[n++] = b->len;
	put_word(b, 0x0000000000120010ULL); /* a metadata record after data counts */
	ends[n++] = b->len;
	return n;
}

START_TEST(test_salvage_cut_points)
{
	struct fxt_bytes b = {0};
	struct rotate_salvage sv;
	uint64_t ends[16], cut;
	size_t n = build_file(&b, ends), k;

	/* Whole: nothing to cut; 6 records after the 3 of the header. */
	rotate_salvage_scan(b.data, b.len, &sv);
	ck_assert_uint_eq(sv.keep, b.len);
	ck_assert_uint_eq(sv.records, 6);

	/* Cut anywhere: kept up to the last record boundary at or before it. */
	for (cut = 0; cut <= b.len; cut++) {
		uint64_t exp_keep = 0, exp_records = 0;

		for (k = 0; k < n && ends[k] <= cut; k++) {
			exp_keep = ends[k];
			exp_records = k >= 3 ? k - 2 : 0;
		}
		/* less than the magic is nothing at all */
		if (cut < 8)
			exp_keep = 0;
		rotate_salvage_scan(b.data, cut, &sv);
		ck_assert_msg(sv.keep == exp_keep && sv.records == exp_records,
			      "cut at %llu: kept %llu (%llu records), expected %llu (%llu)",
			      (unsigned long long)cut, (unsigned long long)sv.keep,
			      (unsigned long long)sv.records, (unsigned long long)exp_keep,
			      (unsigned long long)exp_records);
	}

	/* The header alone holds no record to keep. */
	rotate_salvage_scan(b.data, ends[2], &sv);
	ck_assert_uint_eq(sv.keep, ends[2]);
	ck_assert_uint_eq(sv.records, 0);

	/* Zeros after the records (a crash extended the file): cut there. */
	{
		size_t whole = b.len;

		for (k = 0; k < 100; k++)
			put_word(&b, 0);
		rotate_salvage_scan(b.data, b.len, &sv);
		ck_assert_uint_eq(sv.keep, whole);
		ck_assert_uint_eq(sv.records, 6);
		b.len = whole;
	}

	/* A header claiming more than is there: cut before it. */
	put_word(&b, 0x000000001022003aULL | 0x0f0ULL << 4); /* 0xf3 words */
	put_word(&b, 7);
	rotate_salvage_scan(b.data, b.len, &sv);
	ck_assert_uint_eq(sv.keep, ends[n - 1]);

	/* Not an FXT file: nothing to keep. */
	b.data[0] ^= 1;
	rotate_salvage_scan(b.data, b.len, &sv);
	ck_assert_uint_eq(sv.keep, 0);
	ck_assert_uint_eq(sv.records, 0);
	rotate_salvage_scan(b.data, 0, &sv);
	ck_assert_uint_eq(sv.keep, 0);
	free(b.data);
}
END_TEST

START_TEST(test_complete_name)
{
	char buf[NAME_MAX + 1];

	ck_assert_int_eq(
		rotate_complete_name("fxsampler-20250520T120000Z-0001.fxt.part", buf, sizeof(buf)),
		0);
	ck_assert_str_eq(buf, "fxsampler-20250520T120000Z-0001.fxt");
	ck_assert_int_eq(rotate_complete_name("fxsampler-x.fxt", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(rotate_complete_name("other.fxt.part", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(rotate_complete_name("fxsampler-x.fxt.part", buf, 15), -EINVAL);
	ck_assert_int_eq(rotate_complete_name("fxsampler-x.fxt.part", buf, 16), 0);
	ck_assert_str_eq(buf, "fxsampler-x.fxt");
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

/* The name a file is written under is util/outfile's temporary name for it. */
START_TEST(test_temp_names)
{
	char buf[NAME_MAX + 1];
	bool partial = false;

	ck_assert_int_eq(rotate_complete_name(".fxsampler-20250520T120000Z-0001.fxt.Ab3xYz", buf,
					      sizeof(buf)),
			 0);
	ck_assert_str_eq(buf, "fxsampler-20250520T120000Z-0001.fxt");
	ck_assert(rotate_is_ours(".fxsampler-20250520T120000Z-0001.fxt.Ab3xYz", &partial));
	ck_assert(partial);
	/* the CLI's temporary files beside them are not ours */
	ck_assert_int_eq(rotate_complete_name(".out.fxt.Ab3xYz", buf, sizeof(buf)), -EINVAL);
	ck_assert(!rotate_is_ours(".out.fxt.Ab3xYz", NULL));
	ck_assert(!rotate_is_ours(".fxsampler-x.fxt.Ab3xY", NULL));
	ck_assert(!rotate_is_ours(".fxsampler-x.fxt.part", NULL));
	ck_assert(!rotate_is_ours(".fxsampler-.fxt.Ab3xYz", NULL));
	ck_assert(!rotate_is_ours("fxsampler-x.fxt.Ab3xYz", NULL));
	ck_assert_int_eq(rotate_complete_name(".fxsampler-x.fxt.Ab3xYz", buf, 15), -EINVAL);
	ck_assert_int_eq(rotate_complete_name(".fxsampler-x.fxt.Ab3xYz", buf, 16), 0);
	ck_assert_str_eq(buf, "fxsampler-x.fxt");
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
	make_file(".unrelated.fxt.Ab3xYz", 9999, 10);
	snprintf(path, sizeof(path), "%s/fxsampler-dir.fxt", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/fxsampler-link.fxt", dir);
	snprintf(target, sizeof(target), "%s/unrelated.fxt", dir);
	ck_assert_int_eq(symlink(target, path), 0);

	ck_assert_int_eq(rotate_list(dir, &files, &nr), 0);
	ck_assert_uint_eq(nr, 3);
	del = rotate_plan(&pol, files, nr, 1000, NULL);
	/* 6100 + 1000: 0001 goes to get under 5000 */
	ck_assert_uint_eq(del, 1);
	ck_assert_str_eq(files[0].name, "fxsampler-20250101T000000Z-0001.fxt");
	ck_assert_uint_eq(files[0].size, 3000);
	ck_assert_int_eq(files[0].mtime_s, 1000);
	ck_assert_str_eq(files[1].name, "fxsampler-20250101T010000Z-0002.fxt");
	ck_assert_str_eq(files[2].name, "fxsampler-20250101T020000Z-0003.fxt.part");
	ck_assert(files[2].partial);
	free(files);

	/* the file being written, under outfile's temporary name */
	make_file(".fxsampler-20250101T030000Z-0004.fxt.Ab3xYz", 100, 4000);
	ck_assert_int_eq(rotate_list(dir, &files, &nr), 0);
	ck_assert_uint_eq(nr, 4);
	rotate_plan(&pol, files, nr, 1000, NULL);
	ck_assert_str_eq(files[3].name, ".fxsampler-20250101T030000Z-0004.fxt.Ab3xYz");
	ck_assert(files[3].partial);
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
	tcase_add_test(tc, test_plan_small_budget_keeps_newest);
	tcase_add_test(tc, test_salvage_cut_points);
	tcase_add_test(tc, test_complete_name);
	tcase_add_test(tc, test_is_ours);
	tcase_add_test(tc, test_temp_names);
	tcase_add_test(tc, test_file_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("list");
	tcase_add_checked_fixture(tc, setup_dir, teardown_dir);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_list_empty);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(rotate_suite)
