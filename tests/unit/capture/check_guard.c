// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The guardrails: kernel release parsing, the lockup rule, the BTF check. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/guard.h"
#include "check_main.h"

static void expect_parse(const char *release, unsigned major, unsigned minor, unsigned patch)
{
	struct guard_kver v = {99, 99, 99};

	ck_assert_msg(guard_parse_release(release, &v) == 0, "'%s' rejected", release);
	ck_assert_msg(v.major == major && v.minor == minor && v.patch == patch,
		      "'%s' -> %u.%u.%u, want %u.%u.%u", release, v.major, v.minor, v.patch, major,
		      minor, patch);
}

START_TEST(test_parse_distribution_releases)
{
	expect_parse("6.1.0-18-amd64", 6, 1, 0);
	expect_parse("5.19.17", 5, 19, 17);
	expect_parse("6.18.44-fc-v782", 6, 18, 44);
	expect_parse("6.2-rc1", 6, 2, 0);
	expect_parse("6.2", 6, 2, 0);
	expect_parse("5.15.0+", 5, 15, 0);
	expect_parse("6.1.25-37.47.amzn2023.x86_64", 6, 1, 25);
	expect_parse("4.18.0-513.5.1.el8_9.x86_64", 4, 18, 0);
	expect_parse("2.6.32.1", 2, 6, 32);
	expect_parse("6.1.0_custom", 6, 1, 0);
}
END_TEST

START_TEST(test_parse_rejects)
{
	static const char *const bad[] = {
		"",
		"6",
		"6.",
		"6-1",
		".1.2",
		"x.y",
		"6.x",
		"6.1.",
		"6.1.x",
		" 6.1.0",
		"-6.1",
		"65536.1",
		"6.99999999999999999999",
		"6.1.4294967297",
	};
	struct guard_kver v = {7, 7, 7};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(guard_parse_release(bad[i], &v) == -EINVAL, "'%s' accepted", bad[i]);
		/* Untouched on failure. */
		ck_assert_uint_eq(v.major, 7);
		ck_assert_uint_eq(v.minor, 7);
		ck_assert_uint_eq(v.patch, 7);
	}
	ck_assert_int_eq(guard_parse_release(NULL, &v), -EINVAL);
	ck_assert_int_eq(guard_check_kernel(NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(guard_check_kernel("garbage", NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(test_lockup_range)
{
	static const struct {
		const char *release;
		int risk;
	} cases[] = {
		{"5.18.19", 0},
		{"5.18.0-rc7", 0},
		{"5.15.0-91-generic", 0},
		{"5.19", 1},
		{"5.19.0-rc1", 1},
		{"5.19.17", 1},
		{"6.0.0", 1},
		{"6.0.19", 1},
		{"6.1", 1},
		{"6.1.25-37.47.amzn2023.x86_64", 1},
		{"6.1.35", 1},
		{"6.1.36", 0},
		{"6.1.160", 0},
		{"6.2", 1},
		{"6.2.0-rc1", 1},
		{"6.2.16", 1},
		{"6.3.0", 1},
		{"6.3.9", 1},
		{"6.3.10", 0},
		{"6.3.13", 0},
		{"6.4", 0},
		{"6.4.0-rc1", 0},
		{"6.6.1", 0},
		{"6.18.44-fc-v782", 0},
		{"7.0.1", 0},
		{"4.19.300", 0},
		{"10.0", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(guard_check_kernel(cases[i].release, NULL, NULL) == cases[i].risk,
			      "%s: %d, want %d", cases[i].release,
			      guard_check_kernel(cases[i].release, NULL, NULL), cases[i].risk);
}
END_TEST

/*
 * Real kernels' `uname -r`, `uname -v` and /proc/version_signature (NULL:
 * absent): the stable version comes from the distribution's own field.
 */
START_TEST(test_distribution_kernels)
{
	static const struct {
		const char *release, *version, *signature;
		unsigned major, minor, patch;
		const char *from;
		int risk;
	} cases[] = {
		/* Debian 12 point releases: 6.1.0-N is any 6.1.y. */
		{"6.1.0-9-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.27-1 (2023-05-08)", NULL, 6, 1,
		 27, "uname -v", 1},
		{"6.1.0-10-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.38-1 (2023-07-14)", NULL, 6,
		 1, 38, "uname -v", 0},
		{"6.1.0-41-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2025-10-22)", NULL, 6,
		 1, 192, "uname -v", 0},
		{"6.1.0-18-arm64", "#1 SMP Debian 6.1.76-1 (2024-02-01)", NULL, 6, 1, 76,
		 "uname -v", 0},
		/* Debian 11, and its backports of 6.1 and later. */
		{"5.10.0-32-amd64", "#1 SMP Debian 5.10.223-1 (2024-08-10)", NULL, 5, 10, 223,
		 "uname -v", 0},
		{"6.1.0-0.deb11.7-amd64",
		 "#1 SMP PREEMPT_DYNAMIC Debian 6.1.20-2~bpo11+1 (2023-04-23)", NULL, 6, 1, 20,
		 "uname -v", 1},
		{"6.12.38+deb12-amd64",
		 "#1 SMP PREEMPT_DYNAMIC Debian 6.12.38-1~bpo12+1 (2025-07-20)", NULL, 6, 12, 38,
		 "uname -v", 0},
		{"6.3.0-0.deb12.1-amd64",
		 "#1 SMP PREEMPT_DYNAMIC Debian 6.3.7-1~bpo12+1 (2023-06-12)", NULL, 6, 3, 7,
		 "uname -v", 1},
		{"6.12.48+deb13-riscv64", "#1 SMP Debian 6.12.48-1 (2025-09-20)", NULL, 6, 12, 48,
		 "uname -v", 0},
		/* Debian testing/experimental names an rc. */
		{"6.2.0-rc3-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.2~rc3-1~exp1 (2023-01-10)",
		 NULL, 6, 2, 0, "uname -v", 1},
		/* Ubuntu: the last field of the signature. */
		{"5.19.0-46-generic",
		 "#47~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Fri Jun 16 13:30:11 UTC 2",
		 "Ubuntu 5.19.0-46.47~22.04.1-generic 5.19.17", 5, 19, 17,
		 "/proc/version_signature", 1},
		{"6.2.0-39-generic",
		 "#40~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Thu Nov 16 10:53:04 UTC 2",
		 "Ubuntu 6.2.0-39.40~22.04.1-generic 6.2.16", 6, 2, 16, "/proc/version_signature",
		 1},
		{"6.5.0-14-generic",
		 "#14~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov 20 18:15:30 UTC 2",
		 "Ubuntu 6.5.0-14.14~22.04.1-generic 6.5.3", 6, 5, 3, "/proc/version_signature", 0},
		{"5.15.0-91-generic", "#101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023",
		 "Ubuntu 5.15.0-91.101-generic 5.15.131", 5, 15, 131, "/proc/version_signature", 0},
		/* Neither: the release itself (Fedora, Amazon Linux, mainline builds). */
		{"6.3.8-200.fc38.x86_64", "#1 SMP PREEMPT_DYNAMIC Wed Jun 14 15:02:35 UTC 2023",
		 NULL, 6, 3, 8, "uname -r", 1},
		{"6.3.12-200.fc38.x86_64", "#1 SMP PREEMPT_DYNAMIC Thu Jul  6 04:05:18 UTC 2023",
		 NULL, 6, 3, 12, "uname -r", 0},
		{"6.1.25-37.47.amzn2023.x86_64",
		 "#1 SMP PREEMPT_DYNAMIC Tue May  2 17:21:33 UTC 2023", NULL, 6, 1, 25, "uname -r",
		 1},
		{"6.18.44-fc-v1045", "#1 SMP PREEMPT_DYNAMIC @0", NULL, 6, 18, 44, "uname -r", 0},
		/* A signature or Debian field that does not parse falls through. */
		{"6.2.9", "#1 SMP Debian x (2023)", "garbage", 6, 2, 9, "uname -r", 1},
		/* "Debian" inside another word is not the field. */
		{"6.4.1", "#1 SMP NotDebian 6.1.20", NULL, 6, 4, 1, "uname -r", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct guard_kver v = {99, 99, 99};
		const char *from = guard_stable_version(cases[i].release, cases[i].version,
							cases[i].signature, &v);

		ck_assert_msg(from && !strcmp(from, cases[i].from), "%s: from %s, want %s",
			      cases[i].release, from ? from : "(null)", cases[i].from);
		ck_assert_msg(v.major == cases[i].major && v.minor == cases[i].minor &&
				      v.patch == cases[i].patch,
			      "%s: %u.%u.%u, want %u.%u.%u", cases[i].release, v.major, v.minor,
			      v.patch, cases[i].major, cases[i].minor, cases[i].patch);
		ck_assert_msg(guard_check_kernel(cases[i].release, cases[i].version,
						 cases[i].signature) == cases[i].risk,
			      "%s (%u.%u.%u): risk %d, want %d", cases[i].release, v.major, v.minor,
			      v.patch, !cases[i].risk, cases[i].risk);
	}
	ck_assert_int_eq(guard_check_kernel("garbage", "#1 SMP", NULL), -EINVAL);
	ck_assert_ptr_null(guard_stable_version(NULL, NULL, NULL, &(struct guard_kver){0}));
}
END_TEST

START_TEST(test_lockup_rule_on_struct)
{
	struct guard_kver v = {5, 19, 0};

	ck_assert(guard_user_read_lockup_risk(&v));
	v = (struct guard_kver){6, 1, 35};
	ck_assert(guard_user_read_lockup_risk(&v));
	v = (struct guard_kver){6, 1, 36};
	ck_assert(!guard_user_read_lockup_risk(&v));
	v = (struct guard_kver){6, 2, 999};
	ck_assert(guard_user_read_lockup_risk(&v));
	v = (struct guard_kver){6, 3, 10};
	ck_assert(!guard_user_read_lockup_risk(&v));
	v = (struct guard_kver){5, 18, 999};
	ck_assert(!guard_user_read_lockup_risk(&v));
}
END_TEST

START_TEST(test_btf_paths)
{
	char dir[] = "/tmp/fxs-guard-XXXXXX", path[64];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing", dir);
	ck_assert_int_eq(guard_check_btf(path), -ENOENT);
	snprintf(path, sizeof(path), "%s/empty", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(guard_check_btf(path), -ENODATA);
	ck_assert_int_eq(guard_check_btf(dir), -EINVAL);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("\x9f\xeb\x01\x00", f);
	fclose(f);
	ck_assert_int_eq(guard_check_btf(path), 0);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A file the caller may not read: -EACCES, also when the tests run as root. */
START_TEST(test_btf_unreadable)
{
	char dir[] = "/tmp/fxs-guard-XXXXXX", path[64];
	int status;
	pid_t pid;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/btf", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("x", f);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0), 0);
	/* Root reads a mode-000 file: check as nobody, in a child of its own. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(2);
		_exit(guard_check_btf(path) == -EACCES ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(test_lock_dir)
{
	char dir[] = "/tmp/fxs-guard-XXXXXX", path[96];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fxsampler.lock", dir);
	ck_assert_int_eq(guard_check_dir_of(path), 0);
	snprintf(path, sizeof(path), "%s/run/fxsampler.lock", dir);
	ck_assert_int_eq(guard_check_dir_of(path), -ENOENT);
	snprintf(path, sizeof(path), "%s/file", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/file/fxsampler.lock", dir);
	ck_assert_int_eq(guard_check_dir_of(path), -ENOTDIR);
	ck_assert_int_eq(guard_check_dir_of("/fxsampler.lock"), 0);
	ck_assert_int_eq(guard_check_dir_of("fxsampler.lock"), -EINVAL);
	ck_assert_int_eq(guard_check_dir_of(NULL), -EINVAL);
	snprintf(path, sizeof(path), "%s/file", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *guard_suite(void)
{
	Suite *s = suite_create("guard");
	TCase *parse = tcase_create("parse");
	TCase *rule = tcase_create("rule");
	TCase *btf = tcase_create("btf");

	tcase_add_test(parse, test_parse_distribution_releases);
	tcase_add_test(parse, test_parse_rejects);
	suite_add_tcase(s, parse);
	tcase_add_test(rule, test_lockup_range);
	tcase_add_test(rule, test_distribution_kernels);
	tcase_add_test(rule, test_lockup_rule_on_struct);
	suite_add_tcase(s, rule);
	tcase_add_test(btf, test_btf_paths);
	tcase_add_test(btf, test_btf_unreadable);
	tcase_add_test(btf, test_lock_dir);
	suite_add_tcase(s, btf);
	return s;
}

CHECK_MAIN(guard_suite)
