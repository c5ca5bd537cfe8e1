// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The stream's byte budget (fxt_stream_set_budget(), continuous mode's
 * max_file_size, issue 40): past it, what a target can multiply is kept out
 * and counted by kind; counters still go in, and the trace reads whole.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt_reader.h"
#include "fxt/fxt_stream.h"
#include "fxt_check.h"
#include "check_main.h"

START_TEST(test_budget_keeps_size)
{
	static const char *const names[] = {"written"};
	const uint64_t v[] = {7}, frames[4] = {1, 2, 3, 4};
	struct fxt_record rec;
	struct fxt_reader *r;
	struct mem_sink m;
	struct fxt_stream *s = new_stream(&m);
	uint64_t i, mmaps = 0, counters = 0, at;
	int err;

	fxt_stream_set_budget(s, 4096);
	/* 100,000 mappings in one go, as a process that maps a page at a time */
	for (i = 0; i < 100000; i++) {
		ck_assert_int_eq(
			fxt_stream_module(s, i, 42, (uint16_t)(i % 500), "/x/lib.so", NULL, 0), 0);
		ck_assert_int_eq(fxt_stream_mmap(s, i, 42, (uint16_t)(i % 500), 5,
						 0x10000 + i * 4096, 4096, 0),
				 0);
	}
	at = fxt_stream_bytes(s);
	/* one record past the budget at most: the last one that began below it */
	ck_assert_uint_ge(at, 4096);
	ck_assert_uint_lt(at, 4096 + 256);
	ck_assert_int_eq(fxt_stream_backtrace(s, 1, 42, 43, 0, frames, 4), 0);
	ck_assert_int_eq(fxt_stream_process_cmdline(s, 42, "p", "p --flag"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 42, 43, "t"), 0);
	ck_assert_int_eq(fxt_stream_blob(s, "fxsampler.kstack", frames, sizeof(frames)), 0);
	ck_assert_int_eq(fxt_stream_blob(s, "other", frames, sizeof(frames)), 0);
	ck_assert_int_eq(fxt_stream_context_switch(s, 1, 0, 0, 43, 0, 0), 0);
	ck_assert_int_eq(fxt_stream_bytes(s), at);
	ck_assert_uint_eq(fxt_stream_over(s, FXT_OVER_SAMPLES), 2);
	ck_assert_uint_eq(fxt_stream_over(s, FXT_OVER_OTHER), 4);
	ck_assert_uint_gt(fxt_stream_over(s, FXT_OVER_MAPPINGS), 199000);
	ck_assert_uint_eq(fxt_stream_over(s, FXT_OVER_NR), 0);
	/* the accounting is never kept out; bad arguments are still refused */
	ck_assert_int_eq(fxt_stream_counter(s, 2, 0, 0, "fxsampler", "samples", 0, names, v, 1), 0);
	ck_assert_int_eq(fxt_stream_dropped(s), 0);
	ck_assert_uint_gt(fxt_stream_bytes(s), at);
	ck_assert_int_eq(fxt_stream_mmap(s, 1, 1, 0, 9, 0, 0, 0), -EINVAL);
	end_stream(s);

	r = open_sink(&m);
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		mmaps += rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_MMAP;
		counters += rec.type == FXT_RT_EVENT && rec.subtype == FXT_EVENT_COUNTER;
	}
	ck_assert_int_eq(err, 0);
	fxt_reader__free(r);
	ck_assert_uint_eq(counters, 1);
	ck_assert_uint_gt(mmaps, 0);
	ck_assert_uint_lt(mmaps, 200);
	free(m.data);
}
END_TEST

/* No budget (the default, and every session's): nothing is kept out. */
START_TEST(test_no_budget)
{
	struct mem_sink m;
	struct fxt_stream *s = new_stream(&m);

	for (uint64_t i = 0; i < 10000; i++)
		ck_assert_int_eq(fxt_stream_mmap(s, i, 42, 0, 5, i * 4096, 4096, 0), 0);
	ck_assert_uint_gt(fxt_stream_bytes(s), 10000 * 32);
	for (unsigned k = 0; k < FXT_OVER_NR; k++)
		ck_assert_uint_eq(fxt_stream_over(s, k), 0);
	end_stream(s);
	free(m.data);
}
END_TEST

static Suite *fxt_budget_suite(void)
{
	Suite *s = suite_create("fxt_budget");
	TCase *tc = tcase_create("budget");

	tcase_add_test(tc, test_budget_keeps_size);
	tcase_add_test(tc, test_no_budget);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(fxt_budget_suite)
