// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of daemon/static/group.c, the NSS-free getgrnam of the static
 * fxsamplerd (make cross), on the fixture tests/data/group.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

/*
 * The module compiled in: this test's getgrnam is that one, as in the static
 * daemon, and it reads the fixture.
 */
#include "static/group.c"

#include "fixture.h"
#include "check_main.h"

#include <limits.h>
#include <stdio.h>

static void use_fixture(void)
{
	group_file = test_data("group");
}

START_TEST(test_getgrnam)
{
	struct group *g;

	use_fixture();
	g = getgrnam("fxsampler");

	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->gr_name, "fxsampler");
	ck_assert_uint_eq(g->gr_gid, 990);
	ck_assert_ptr_nonnull(g->gr_mem[0]);
	ck_assert_str_eq(g->gr_mem[0], "alice");
	ck_assert_str_eq(g->gr_mem[1], "bob");
	ck_assert_ptr_null(g->gr_mem[2]);
	g = getgrnam("root");
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->gr_gid, 0);
	g = getgrnam("users");
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->gr_gid, 100);
	ck_assert_ptr_null(getgrnam("nosuchgroup"));
	/* A prefix of a name is not the name. */
	ck_assert_ptr_null(getgrnam("fxsamp"));
	ck_assert_ptr_null(getgrnam(""));
	/* No group file: no group, no crash. */
	group_file = "/nonexistent/group";
	ck_assert_ptr_null(getgrnam("root"));
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("static_group");
	TCase *tc = tcase_create("getgrnam");

	tcase_add_test(tc, test_getgrnam);
	suite_add_tcase(suite, tc);
	return check_run(suite);
}
