// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* thread_names: a rename is news once, an older name never undoes a newer one. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "capture/thread_names.h"
#include "sampler.h"
#include "check_main.h"

static struct fxs_comm names(const char *thread, const char *process)
{
	struct fxs_comm c;

	memset(&c, 0, sizeof(c));
	strncpy(c.thread, thread, FXS_COMM_LEN);
	strncpy(c.process, process, FXS_COMM_LEN);
	return c;
}

START_TEST(test_new_thread_is_news)
{
	struct thread_names t = {0};
	struct fxs_comm w = names("waiter", "waiter");

	ck_assert(thread_names_news(&t, 7, &w, 100));
	ck_assert_int_eq(thread_names_set(&t, 7, &w, 100), 0);
	/* the same names again, later or earlier: nothing to write */
	ck_assert(!thread_names_news(&t, 7, &w, 200));
	ck_assert(!thread_names_news(&t, 7, &w, 50));
	/* another thread is new */
	ck_assert(thread_names_news(&t, 8, &w, 100));
	thread_names_free(&t);
}
END_TEST

/* A thread renamed while it waited: its interval's end brings the new name. */
START_TEST(test_rename)
{
	struct thread_names t = {0};
	struct fxs_comm w = names("waiter", "waiter"), p = names("piper", "waiter");

	ck_assert_int_eq(thread_names_set(&t, 7, &w, 100), 0);
	ck_assert(thread_names_news(&t, 7, &p, 300));
	ck_assert_int_eq(thread_names_set(&t, 7, &p, 300), 0);
	ck_assert(!thread_names_news(&t, 7, &p, 400));
	/* the old name from a record made before, drained late from another ring */
	ck_assert(!thread_names_news(&t, 7, &w, 150));
	/* renamed back, later: news again */
	ck_assert(thread_names_news(&t, 7, &w, 500));
	/* a process rename is a rename too */
	w = names("piper", "server");
	ck_assert(thread_names_news(&t, 7, &w, 500));
	thread_names_free(&t);
}
END_TEST

/* What follows a NUL does not count; 16 bytes without one are a whole name. */
START_TEST(test_compare_as_strings)
{
	struct thread_names t = {0};
	struct fxs_comm a = names("ab", "p"), b = a, full;

	memcpy(b.thread + 3, "junk", 4); /* "ab\0junk": residue of a longer name */
	ck_assert_int_eq(thread_names_set(&t, 1, &a, 1), 0);
	ck_assert(!thread_names_news(&t, 1, &b, 2));
	memset(full.thread, 'x', FXS_COMM_LEN);
	memset(full.process, 'y', FXS_COMM_LEN);
	ck_assert(thread_names_news(&t, 1, &full, 3));
	ck_assert_int_eq(thread_names_set(&t, 1, &full, 3), 0);
	ck_assert(!thread_names_news(&t, 1, &full, 4));
	ck_assert_uint_eq(t.len, 1);
	ck_assert_int_eq(memcmp(t.v[0].comm.thread, full.thread, FXS_COMM_LEN), 0);
	thread_names_free(&t);
	ck_assert_uint_eq(t.len, 0);
	thread_names_free(NULL);
}
END_TEST

/* Many threads: each keeps its own names through the index's growth. */
START_TEST(test_many)
{
	struct thread_names t = {0};
	char name[FXS_COMM_LEN];

	for (uint32_t tid = 1; tid <= 5000; tid++) {
		struct fxs_comm c;

		snprintf(name, sizeof(name), "t%u", tid);
		c = names(name, "p");
		ck_assert_int_eq(thread_names_set(&t, tid, &c, tid), 0);
	}
	for (uint32_t tid = 1; tid <= 5000; tid++) {
		struct fxs_comm c;

		snprintf(name, sizeof(name), "t%u", tid);
		c = names(name, "p");
		ck_assert(!thread_names_news(&t, tid, &c, tid));
	}
	ck_assert_uint_eq(t.len, 5000);
	thread_names_free(&t);
}
END_TEST

static Suite *thread_names_suite(void)
{
	Suite *s = suite_create("thread_names");
	TCase *tc = tcase_create("thread_names");

	tcase_add_test(tc, test_new_thread_is_news);
	tcase_add_test(tc, test_rename);
	tcase_add_test(tc, test_compare_as_strings);
	tcase_add_test(tc, test_many);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(thread_names_suite)
