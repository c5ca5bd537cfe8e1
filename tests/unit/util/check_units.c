// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * util/units: the one parser of counts, sizes and durations. The CLI's and the
 * config's spellings are the same set: `--buffer-size 2MB` and `buffer_size =
 * 2MB`, `-d 1d` and `max_file_age = 1d`.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "util/units.h"
#include "check_main.h"

struct ok_case {
	const char *s;
	uint64_t v;
};

struct bad_case {
	const char *s;
	int err;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

typedef int (*parse_fn)(const char *, uint64_t *);

static void expect(parse_fn fn, const struct ok_case *ok, size_t nok, const struct bad_case *bad,
		   size_t nbad)
{
	uint64_t v;
	int r;

	for (size_t i = 0; i < nok; i++) {
		v = 77;
		r = fn(ok[i].s, &v);
		ck_assert_msg(r == 0, "'%s' rejected: %d", ok[i].s, r);
		ck_assert_msg(v == ok[i].v, "'%s': %llu, want %llu", ok[i].s, (unsigned long long)v,
			      (unsigned long long)ok[i].v);
	}
	for (size_t i = 0; i < nbad; i++) {
		v = 77;
		r = fn(bad[i].s, &v);
		ck_assert_msg(r == bad[i].err, "'%s': %d, want %d", bad[i].s, r, bad[i].err);
		/* a refused value leaves the result alone */
		ck_assert_uint_eq(v, 77);
	}
	ck_assert_int_eq(fn(NULL, &v), -EINVAL);
}

START_TEST(test_u64)
{
	static const struct ok_case ok[] = {
		{"0", 0},
		{"007", 7},
		{"18446744073709551615", UINT64_MAX},
	};
	static const struct bad_case bad[] = {
		{"18446744073709551616", -ERANGE},
		{"99999999999999999999999", -ERANGE},
		{"", -EINVAL},
		{"-1", -EINVAL},
		{"-0", -EINVAL},
		{"+1", -EINVAL},
		{" 1", -EINVAL},
		{"1 ", -EINVAL},
		{"1\n", -EINVAL},
		{"0x10", -EINVAL},
		{"1.5", -EINVAL},
		{"1e3", -EINVAL},
		{"abc", -EINVAL},
		/* a count has no unit */
		{"19K", -EINVAL},
		{"5s", -EINVAL},
	};

	expect(units_parse_u64, ok, N(ok), bad, N(bad));
}
END_TEST

START_TEST(test_size)
{
	static const struct ok_case ok[] = {
		{"0", 0},
		{"4096", 4096},
		{"3000", 3000},
		{"1B", 1},
		{"64K", 65536},
		{"64KB", 65536},
		{"64KiB", 65536},
		{"2M", 2097152},
		/* what the config refused before */
		{"2MB", 2097152},
		{"2MiB", 2097152},
		{"1G", 1ULL << 30},
		{"1GB", 1ULL << 30},
		{"1GiB", 1ULL << 30},
		{"3GiB", 3ULL << 30},
		/* what the CLI refused before: the config's lower case */
		{"4k", 4096},
		{"4kb", 4096},
		{"2mib", 2097152},
		{"1b", 1},
		{"17179869183G", 17179869183ULL << 30},
		{"18446744073709551615", UINT64_MAX},
	};
	static const struct bad_case bad[] = {
		{"", -EINVAL},
		{"K", -EINVAL},
		{"-1", -EINVAL},
		{"-1K", -EINVAL},
		{"+4", -EINVAL},
		{" 4", -EINVAL},
		{"4 K", -EINVAL},
		{"1.5M", -EINVAL},
		{"1 M", -EINVAL},
		{"1T", -EINVAL},
		{"1Mi", -EINVAL},
		{"1MBs", -EINVAL},
		{"1KK", -EINVAL},
		{"0x1000", -EINVAL},
		{"12Q", -EINVAL},
		{"1s", -EINVAL},
		{"18446744073709551616", -ERANGE},
		{"17179869184G", -ERANGE},
		{"99999999999999999999G", -ERANGE},
		{"18014398509481984K", -ERANGE},
	};

	expect(units_parse_size, ok, N(ok), bad, N(bad));
}
END_TEST

START_TEST(test_duration_ns)
{
	static const struct ok_case ok[] = {
		{"0", 0},
		{"10", 10000000000ULL},
		{"10s", 10000000000ULL},
		{"250ms", 250000000ULL},
		{"100us", 100000ULL},
		{"5000ns", 5000ULL},
		{"2m", 120000000000ULL},
		{"2min", 120000000000ULL},
		{"1h", 3600000000000ULL},
		/* what the CLI refused before: the config's days and upper case */
		{"1d", 86400000000000ULL},
		{"10S", 10000000000ULL},
		{"1H", 3600000000000ULL},
		{"3MS", 3000000ULL},
		{"18446744073709551615ns", UINT64_MAX},
		{"18446744073s", 18446744073000000000ULL},
		{"5124095h", 5124095ULL * 3600000000000ULL},
		{"213503d", 213503ULL * 86400000000000ULL},
	};
	static const struct bad_case bad[] = {
		{"", -EINVAL},
		{"s", -EINVAL},
		{"ms", -EINVAL},
		{"-1s", -EINVAL},
		{"+1s", -EINVAL},
		{" 1s", -EINVAL},
		{"1.5s", -EINVAL},
		{"10 s", -EINVAL},
		{"10sec", -EINVAL},
		{"10mss", -EINVAL},
		{"5 weeks", -EINVAL},
		{"1w", -EINVAL},
		{"soon", -EINVAL},
		{"1K", -EINVAL},
		{"18446744073709551616ns", -ERANGE},
		{"18446744074s", -ERANGE},
		{"18446744074", -ERANGE},
		{"5124096h", -ERANGE},
		{"213504d", -ERANGE},
		{"307445734561825861m", -ERANGE},
	};

	expect(units_parse_duration_ns, ok, N(ok), bad, N(bad));
}
END_TEST

/* The config's settings in seconds: the same spellings, whole seconds only. */
START_TEST(test_duration_s)
{
	static const struct ok_case ok[] = {
		{"0", 0},
		{"90", 90},
		{"30s", 30},
		{"2m", 120},
		{"5min", 300},
		{"2h", 7200},
		{"1d", 86400},
		{"1D", 86400},
		{"2000ms", 2},
		{"3000000us", 3},
		{"4000000000ns", 4},
		/* a range of 64 bits of seconds, as before, not of nanoseconds */
		{"18446744073709551615", UINT64_MAX},
		{"213503982334601d", 213503982334601ULL * 86400},
	};
	static const struct bad_case bad[] = {
		{"", -EINVAL},
		{"-1", -EINVAL},
		{"1.5h", -EINVAL},
		{"soon", -EINVAL},
		{"1500ms", -EINVAL},
		{"1ns", -EINVAL},
		{"18446744073709551616", -ERANGE},
		{"213503982334602d", -ERANGE},
		{"307445734561825861m", -ERANGE},
	};

	expect(units_parse_duration_s, ok, N(ok), bad, N(bad));
}
END_TEST

static Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_u64);
	tcase_add_test(tc, test_size);
	tcase_add_test(tc, test_duration_ns);
	tcase_add_test(tc, test_duration_s);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(units_suite)
