/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one way every Check test program (tests/unit, tests/live) runs its
 * suite: forked tests, Check's normal output, and an exit status that says
 * whether every test passed.
 */
#ifndef FXS_TESTS_CHECK_MAIN_H
#define FXS_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/*
 * Run every test of the n suites and free them: EXIT_SUCCESS, or EXIT_FAILURE
 * if any failed.
 */
static inline int check_run_suites(Suite *const *suites, size_t n)
{
	SRunner *sr = srunner_create(suites[0]);
	int failed;
	size_t i;

	for (i = 1; i < n; i++)
		srunner_add_suite(sr, suites[i]);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

static inline int check_run(Suite *s)
{
	return check_run_suites(&s, 1);
}

/* main() of a test program that only runs the suite suite_fn() builds. */
#define CHECK_MAIN(suite_fn)                                                                       \
	int main(void)                                                                             \
	{                                                                                          \
		return check_run(suite_fn());                                                      \
	}

#endif /* FXS_TESTS_CHECK_MAIN_H */
