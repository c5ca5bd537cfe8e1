// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* cpus: the kernel's CPU lists and which CPUs are online. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "capture/cpus.h"
#include "sampler.h"
#include "check_main.h"

#define NCPU 16

static void expect_mask(const bool *mask, size_t n, const char *want)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(mask[i] == (want[i] == '1'), "cpu %zu: %d, want %c", i, mask[i],
			      want[i]);
}

START_TEST(test_cpus_parse)
{
	bool mask[NCPU];

	ck_assert_int_eq(cpus_parse_list("0", mask, NCPU), 0);
	expect_mask(mask, NCPU, "1000000000000000");
	ck_assert_int_eq(cpus_parse_list("0-3", mask, NCPU), 0);
	expect_mask(mask, NCPU, "1111000000000000");
	ck_assert_int_eq(cpus_parse_list("0-3,5,7-8\n", mask, NCPU), 0);
	expect_mask(mask, NCPU, "1111010110000000");
	ck_assert_int_eq(cpus_parse_list("15", mask, NCPU), 0);
	expect_mask(mask, NCPU, "0000000000000001");
	ck_assert_int_eq(cpus_parse_list("2-2,0-15", mask, NCPU), 0);
	expect_mask(mask, NCPU, "1111111111111111");
	ck_assert_int_eq(cpus_parse_list("3,1", mask, NCPU), 0);
	expect_mask(mask, NCPU, "0101000000000000");
	ck_assert_int_eq(cpus_parse_list("0\nignored", mask, NCPU), 0);
	expect_mask(mask, NCPU, "1000000000000000");
}
END_TEST

/* Each parse starts from an empty mask; an empty list (e.g. "offline") is no CPU. */
START_TEST(test_cpus_parse_clears)
{
	bool mask[NCPU];

	memset(mask, 1, sizeof(mask));
	ck_assert_int_eq(cpus_parse_list("4", mask, NCPU), 0);
	expect_mask(mask, NCPU, "0000100000000000");
	memset(mask, 1, sizeof(mask));
	ck_assert_int_eq(cpus_parse_list("", mask, NCPU), 0);
	expect_mask(mask, NCPU, "0000000000000000");
	memset(mask, 1, sizeof(mask));
	ck_assert_int_eq(cpus_parse_list("\n", mask, NCPU), 0);
	expect_mask(mask, NCPU, "0000000000000000");
}
END_TEST

START_TEST(test_cpus_parse_malformed)
{
	static const char *const bad[] = {
		"a",  "3-1", "1-",    "1-\n", "-1",  "-",   ",",   ",1",  "1,,2", "1 2",
		" 1", "1x",  "0-3-5", "1-a",  "0x1", "1.5", "1;2", "--1", "1--2",
	};
	bool mask[NCPU];

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cpus_parse_list(bad[i], mask, NCPU) == -EINVAL, "'%s' accepted",
			      bad[i]);
}
END_TEST

START_TEST(test_cpus_parse_range)
{
	bool mask[4];

	ck_assert_int_eq(cpus_parse_list("3", mask, 4), 0);
	ck_assert_int_eq(cpus_parse_list("0-3", mask, 4), 0);
	ck_assert_int_eq(cpus_parse_list("4", mask, 4), -EINVAL);
	ck_assert_int_eq(cpus_parse_list("0-4", mask, 4), -EINVAL);
	ck_assert_int_eq(cpus_parse_list("1,4", mask, 4), -EINVAL);
	ck_assert_int_eq(cpus_parse_list("4-2", mask, 4), -EINVAL);
	ck_assert_int_eq(cpus_parse_list("99999999999999999999999", mask, 4), -EINVAL);
	ck_assert_int_eq(cpus_parse_list("0-99999999999999999999999", mask, 4), -EINVAL);
	ck_assert_int_eq(cpus_parse_list("0-4294967296", mask, 4), -EINVAL);
	ck_assert_int_eq(cpus_parse_list("0", mask, 0), -EINVAL);
}
END_TEST

START_TEST(test_cpus_online)
{
	bool mask[FXS_MAX_CPUS];
	long online = 0;
	int cpu = sched_getcpu();

	ck_assert_int_ge(cpu, 0);
	memset(mask, 0, sizeof(mask));
	ck_assert_int_eq(cpus_online(mask, FXS_MAX_CPUS), 0);
	ck_assert(mask[cpu]);
	for (int i = 0; i < FXS_MAX_CPUS; i++)
		online += mask[i];
	ck_assert_int_eq(online, sysconf(_SC_NPROCESSORS_ONLN));
	/* A mask too small for the online CPUs. */
	ck_assert_int_eq(cpus_online(mask, 0), -EINVAL);
}
END_TEST

START_TEST(test_cpu_is_online)
{
	int cpu = sched_getcpu();

	ck_assert_int_ge(cpu, 0);
	/* The CPU this runs on is online. */
	ck_assert(cpu_is_online(cpu));
	ck_assert(!cpu_is_online(-1));
	ck_assert(!cpu_is_online(FXS_MAX_CPUS));
	ck_assert(!cpu_is_online(INT_MAX));
}
END_TEST

static Suite *cpus_suite(void)
{
	Suite *s = suite_create("cpus");
	TCase *tc = tcase_create("cpus");

	tcase_add_test(tc, test_cpus_parse);
	tcase_add_test(tc, test_cpus_parse_clears);
	tcase_add_test(tc, test_cpus_parse_malformed);
	tcase_add_test(tc, test_cpus_parse_range);
	tcase_add_test(tc, test_cpus_online);
	tcase_add_test(tc, test_cpu_is_online);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(cpus_suite)
