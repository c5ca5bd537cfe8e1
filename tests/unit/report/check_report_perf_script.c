// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* report_write_perf_script(): samples in time order, as perf script prints them. */
#include <check.h>

#include "report_fixture.h"

/*
 * perf script text: every sample in time order (not file order), innermost
 * frame first, the cut-off marker last, names that cannot break a line.
 */
START_TEST(test_perf_script)
{
	/* What report_run does for --perf-script: the path keeps the samples. */
	const struct report_opts perf = {.perf_script_path = "unused"};
	struct report *r = report__new(NULL);
	const uint64_t s1[] = {BASE + a_leaf + 2, BASE + a_alpha + 5};
	const uint64_t s2[] = {0xdead};
	char line[3 * PATH_MAX], mod[PATH_MAX + 64];
	struct capture c;
	const char *text;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(report_write_perf_script(r, capture_open(&c)), -EINVAL);
	capture_text(&c);
	free(c.buf);
	report__free(r);
	r = report__new(&perf);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rec_process(r, 100, "prog"), 0);
	ck_assert_int_eq(rec_thread(r, 100, 100, "prog"), 0);
	ck_assert_int_eq(rec_thread(r, 100, 101, " bad\nname"), 0);
	ck_assert_int_eq(rec_module(r, 100, 0, prog), 0);
	ck_assert_int_eq(rec_mmap(r, 100, 0, PF_R | PF_X, BASE, 1 << 20, 0), 0);
	ck_assert_int_eq(rec_backtrace(r, 2 * MS + 5, 100, 101, FXT_BT_FLAG_TRUNCATED, s2, 1), 0);
	ck_assert_int_eq(rec_backtrace(r, 1 * MS, 100, 100, 0, s1, 2), 0);
	ck_assert_int_eq(rec_backtrace(r, 3 * MS, 100, 100, 0, s1, 2), 0);
	ck_assert_int_eq(report_write_perf_script(r, capture_open(&c)), 0);
	text = capture_text(&c);
	snprintf(mod, sizeof(mod), "(%s)", prog);
	/* Per-thread gaps: 2 ms on thread 100 is the period. */
	snprintf(line, sizeof(line),
		 "prog 100/100 0.001000000: 2000000 cpu-clock:\n"
		 "\t%16" PRIx64 " fxs_static_leaf %s\n"
		 "\t%16" PRIx64 " fxs_alpha %s\n\n"
		 "?bad?name 100/101 0.002000005: 2000000 cpu-clock:\n"
		 "\t%16x [unknown] ([unknown])\n"
		 "\t%16x [truncated] ([unknown])\n\n"
		 "prog 100/100 0.003000000: 2000000 cpu-clock:\n",
		 s1[0], mod, s1[1], mod, 0xdead, 0);
	ck_assert_msg(!strncmp(text, line, strlen(line)), "got:\n%s\nwant:\n%s", text, line);
	ck_assert_uint_eq(count_of(text, " cpu-clock:\n"), 3);
	free(c.buf);
	report__free(r);
}
END_TEST

static Suite *report_perf_script_suite(void)
{
	Suite *s = suite_create("report-perf-script");
	TCase *formats = tcase_create("formats");

	tcase_add_test(formats, test_perf_script);
	/* valgrind slows everything. */
	tcase_set_timeout(formats, 120);
	suite_add_tcase(s, formats);
	return s;
}

int main(void)
{
	return report_fixture_main(report_perf_script_suite);
}
