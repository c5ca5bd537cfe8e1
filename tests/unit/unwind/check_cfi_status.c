// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwind/cfi_status: a module's state through the "cfi_module" event's
 * arguments and back, and the summary's line for each state.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "unwind/cfi_status.h"
#include "check_main.h"

START_TEST(test_round_trip)
{
	struct cfi_mod_info m = {"/usr/lib/libclang-cpp.so.14", CFI_MOD_LEFT_OUT, 0, 8003984}, back;
	const char *names[CFI_MODULE_ARGS];
	uint64_t values[CFI_MODULE_ARGS];

	cfi_mod_encode(&m, names, values);
	ck_assert_str_eq(names[0], m.name);
	ck_assert_int_eq(cfi_mod_decode(names, values, CFI_MODULE_ARGS, &back), 0);
	ck_assert_str_eq(back.name, m.name);
	ck_assert_int_eq(back.state, CFI_MOD_LEFT_OUT);
	ck_assert_uint_eq(back.bytes, 8003984);
	m = (struct cfi_mod_info){"/lib/x.so", CFI_MOD_FAILED, -EBADMSG, 0};
	cfi_mod_encode(&m, names, values);
	ck_assert_int_eq(cfi_mod_decode(names, values, CFI_MODULE_ARGS, &back), 0);
	ck_assert_int_eq(back.err, -EBADMSG);
	/* a state this build does not know, or no argument: not one */
	values[0] = CFI_MOD_NR;
	ck_assert_int_eq(cfi_mod_decode(names, values, CFI_MODULE_ARGS, &back), -EINVAL);
	ck_assert_int_eq(cfi_mod_decode(names, values, 0, &back), -EINVAL);
}
END_TEST

START_TEST(test_describe)
{
	struct cfi_mod_info m = {"/usr/lib/libclang-cpp.so.14", CFI_MOD_LEFT_OUT, 0, 8003984};
	char line[300];

	cfi_mod_describe(&m, line, sizeof(line));
	ck_assert_str_eq(line, "libclang-cpp.so.14: left out, by frame pointers: its 7.6 MiB of "
			       "rows did not fit beside the tables in use (raise --cfi-memory)");
	m.state = CFI_MOD_EVICTED;
	cfi_mod_describe(&m, line, sizeof(line));
	ck_assert_ptr_nonnull(strstr(line, "evicted"));
	m = (struct cfi_mod_info){"/x/libbad.so", CFI_MOD_FAILED, -EBADMSG, 0};
	cfi_mod_describe(&m, line, sizeof(line));
	ck_assert_str_eq(line, "libbad.so: no table: malformed call frame information");
	m.state = CFI_MOD_NO_CFI;
	cfi_mod_describe(&m, line, sizeof(line));
	ck_assert_str_eq(line, "libbad.so: no CFI (no .eh_frame): by frame pointers");
	ck_assert_str_eq(cfi_mod_state_name(CFI_MOD_NO_CODE), "no_code");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cfi_status");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_describe);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite)
