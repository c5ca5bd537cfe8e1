// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report_paths: labels interned once, the folded lines' order and equality
 * read label by label as strcmp of the joined line would give them, and the
 * frame-by-frame order the flame graph's tree is built in.
 */
#include <check.h>

#include "report/report_internal.h"
#include "report/report_paths.h"
#include "report_fixture.h"

/* Threads whose names sort differently alone than joined with ';' ("a b" < "a;"). */
static struct report *new_named_report(void)
{
	static const char *const names[] = {"a", "a b", "a-b", "ab", "a"};
	const uint64_t pc[] = {0xdead};
	struct report *r = report__new(NULL);
	unsigned i;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rec_process(r, 300, "p"), 0);
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(rec_thread(r, 300, 301 + i, names[i]), 0);
		ck_assert_int_eq(rec_backtrace(r, i * MS, 300, 301 + i, 0, pc, 1), 0);
	}
	ck_assert_int_eq(report_prepare(r), 0);
	return r;
}

START_TEST(test_interned)
{
	struct report *r = new_named_report();
	struct report_paths p;
	size_t i, k;

	ck_assert_int_eq(report_paths_build(r, &p), 0);
	ck_assert_uint_eq(p.nr, 5);
	/* p, four thread names (two threads share "a"), one frame. */
	ck_assert_uint_eq(p.nr_labels, 6);
	ck_assert_uint_eq(p.max_len, 3);
	for (i = 0; i < p.nr; i++) {
		ck_assert_uint_eq(report_path_len(&p, i), 3);
		ck_assert_int_eq(p.labels[report_path(&p, i)[0]].kind, LABEL_PROCESS);
		ck_assert_int_eq(p.labels[report_path(&p, i)[1]].kind, LABEL_THREAD);
	}
	/* Ranks are a permutation in label order. */
	for (i = 0; i < p.nr_labels; i++)
		for (k = 0; k < p.nr_labels; k++)
			if (i != k)
				ck_assert_int_eq(strcmp(p.labels[i].text, p.labels[k].text) < 0,
						 p.labels[i].rank < p.labels[k].rank);
	report_paths_free(&p);
	report__free(r);
}
END_TEST

START_TEST(test_text_order)
{
	struct report *r = new_named_report();
	struct report_paths p;
	char line[5][64];
	size_t *order, i, k;

	ck_assert_int_eq(report_paths_build(r, &p), 0);
	ck_assert_int_eq(report_paths_text_order(&p, &order), 0);
	for (i = 0; i < p.nr; i++) {
		const uint32_t *ids = report_path(&p, order[i]);

		line[i][0] = '\0';
		for (k = 0; k < report_path_len(&p, order[i]); k++) {
			if (k)
				strcat(line[i], ";");
			strcat(line[i], p.labels[ids[k]].text);
		}
	}
	/* strcmp of the whole lines: ' ' and '-' sort before ';', 'b' after. */
	ck_assert_str_eq(line[0], "p;a b;[unknown]");
	ck_assert_str_eq(line[1], "p;a-b;[unknown]");
	ck_assert_str_eq(line[2], "p;a;[unknown]");
	ck_assert_str_eq(line[3], "p;a;[unknown]");
	ck_assert_str_eq(line[4], "p;ab;[unknown]");
	for (i = 0; i + 1 < p.nr; i++)
		ck_assert_int_eq(report_paths_text_cmp(&p, order[i], order[i + 1]) == 0, i == 2);
	free(order);
	report_paths_free(&p);
	report__free(r);
}
END_TEST

START_TEST(test_tree_order)
{
	struct report *r = new_named_report();
	struct report_paths p;
	size_t *order, i;

	ck_assert_int_eq(report_paths_build(r, &p), 0);
	ck_assert_int_eq(report_paths_tree_order(&p, &order), 0);
	/* Frame by frame: "a" before "a b" before "a-b" before "ab". */
	ck_assert_str_eq(p.labels[report_path(&p, order[0])[1]].text, "a");
	ck_assert_str_eq(p.labels[report_path(&p, order[1])[1]].text, "a");
	ck_assert_str_eq(p.labels[report_path(&p, order[2])[1]].text, "a b");
	ck_assert_str_eq(p.labels[report_path(&p, order[3])[1]].text, "a-b");
	ck_assert_str_eq(p.labels[report_path(&p, order[4])[1]].text, "ab");
	for (i = 0; i < p.nr; i++)
		ck_assert_uint_lt(order[i], p.nr);
	free(order);
	report_paths_free(&p);
	report__free(r);
}
END_TEST

static Suite *report_paths_suite(void)
{
	Suite *s = suite_create("report-paths");
	TCase *tc = tcase_create("paths");

	tcase_add_test(tc, test_interned);
	tcase_add_test(tc, test_text_order);
	tcase_add_test(tc, test_tree_order);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return report_fixture_main(report_paths_suite);
}
