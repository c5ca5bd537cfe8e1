// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <check.h>

#include "capture/kpreempt.h"
#include "check_main.h"

#define DEBIAN_UNAME "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)"

/* debugfs names the model in use, whatever the rest says. */
START_TEST(test_debugfs_first)
{
	ck_assert_int_eq(kpreempt_parse("none (voluntary) full lazy\n", DEBIAN_UNAME,
					"preempt=full", "CONFIG_PREEMPT=y\n"),
			 KPREEMPT_VOLUNTARY);
	ck_assert_int_eq(kpreempt_parse("(none) voluntary full\n", NULL, NULL, NULL),
			 KPREEMPT_NONE);
	ck_assert_int_eq(kpreempt_parse("none voluntary (full) lazy\n", NULL, NULL, NULL),
			 KPREEMPT_FULL);
	ck_assert_int_eq(kpreempt_parse("none voluntary full (lazy)\n", NULL, NULL, NULL),
			 KPREEMPT_FULL);
	/* a text without a model in use falls through to the rest */
	ck_assert_int_eq(kpreempt_parse("garbage", "#1 SMP PREEMPT_RT", NULL, NULL), KPREEMPT_FULL);
}
END_TEST

/* A kernel built for one model says so in uname -v, or says nothing for none/voluntary. */
START_TEST(test_uname_fixed_models)
{
	ck_assert_int_eq(kpreempt_parse(NULL, "#1 SMP PREEMPT_RT Fri", NULL, NULL), KPREEMPT_FULL);
	ck_assert_int_eq(kpreempt_parse(NULL, "#1 SMP PREEMPT Fri", "preempt=none", NULL),
			 KPREEMPT_FULL);
	ck_assert_int_eq(kpreempt_parse(NULL, "#1 SMP PREEMPT_LAZY Fri", NULL, NULL),
			 KPREEMPT_FULL);
	ck_assert_int_eq(kpreempt_parse(NULL, "#1 SMP Fri Jan 1", "preempt=full", NULL),
			 KPREEMPT_NONE);
	ck_assert_int_eq(kpreempt_parse(NULL, NULL, NULL, NULL), KPREEMPT_UNKNOWN);
}
END_TEST

/* PREEMPT_DYNAMIC: the command line's choice, else the build's default. */
START_TEST(test_dynamic)
{
	ck_assert_int_eq(kpreempt_parse(NULL, DEBIAN_UNAME, "ro quiet preempt=full splash", NULL),
			 KPREEMPT_FULL);
	ck_assert_int_eq(kpreempt_parse(NULL, DEBIAN_UNAME, "preempt=none\n", NULL), KPREEMPT_NONE);
	/* nopreempt=full is another parameter */
	ck_assert_int_eq(
		kpreempt_parse(NULL, DEBIAN_UNAME, "nopreempt=full",
			       "# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_VOLUNTARY=y\n"),
		KPREEMPT_VOLUNTARY);
	ck_assert_int_eq(kpreempt_parse(NULL, DEBIAN_UNAME, "quiet",
					"CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_NONE=y\n"),
			 KPREEMPT_NONE);
	ck_assert_int_eq(kpreempt_parse(NULL, DEBIAN_UNAME, "quiet",
					"CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT=y\n"),
			 KPREEMPT_FULL);
	ck_assert_int_eq(kpreempt_parse(NULL, DEBIAN_UNAME, "quiet",
					"CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_LAZY=y"),
			 KPREEMPT_FULL);
	/* CONFIG_PREEMPT_COUNT=y is not CONFIG_PREEMPT=y; nothing known is unknown */
	ck_assert_int_eq(kpreempt_parse(NULL, DEBIAN_UNAME, "quiet", "CONFIG_PREEMPT_COUNT=y\n"),
			 KPREEMPT_UNKNOWN);
	ck_assert_int_eq(kpreempt_parse(NULL, DEBIAN_UNAME, "preempt=bogus", NULL),
			 KPREEMPT_UNKNOWN);
	ck_assert_int_eq(kpreempt_parse(NULL, DEBIAN_UNAME, NULL, NULL), KPREEMPT_UNKNOWN);
}
END_TEST

/* This machine's: whatever it is, reading it twice agrees. */
START_TEST(test_running)
{
	enum kpreempt m = kpreempt_running();

	ck_assert_int_eq(kpreempt_running(), m);
}
END_TEST

static Suite *kpreempt_suite(void)
{
	Suite *s = suite_create("kpreempt");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_debugfs_first);
	tcase_add_test(tc, test_uname_fixed_models);
	tcase_add_test(tc, test_dynamic);
	tcase_add_test(tc, test_running);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(kpreempt_suite)
