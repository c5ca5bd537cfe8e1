// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/authz.h"
#include "check_main.h"

#ifndef FXS_TEST_DATA
#define FXS_TEST_DATA "tests/data"
#endif
#define PROC FXS_TEST_DATA "/proc"

static const gid_t user_groups[] = {24, 27, 1000};
static const struct authz_creds root = {.pid = 10, .uid = 0, .gid = 0};
static const struct authz_creds user = {
	.pid = 11, .uid = 1000, .gid = 1000, .groups = user_groups, .nr_groups = 3};
static const struct authz_creds member = {
	.pid = 12, .uid = 1001, .gid = 1001, .groups = user_groups, .nr_groups = 2};
static const struct authz_policy with_group = {.have_group = true, .group_gid = 27};
static const struct authz_policy no_group = {.have_group = false};

START_TEST(test_proc_owner)
{
	struct authz_owner o = {7, 7, 7};

	ck_assert_int_eq(authz_proc_owner(PROC, 4242, &o), 0);
	ck_assert_uint_eq(o.ruid, 1000);
	ck_assert_uint_eq(o.euid, 1000);
	ck_assert_uint_eq(o.suid, 1000);
	ck_assert_int_eq(authz_proc_owner(PROC, 1, &o), 0);
	ck_assert_uint_eq(o.ruid, 0);
	ck_assert_int_eq(authz_proc_owner(PROC, 4243, &o), 0);
	ck_assert_uint_eq(o.ruid, 1000);
	ck_assert_uint_eq(o.euid, 0);
	ck_assert_uint_eq(o.suid, 0);
}
END_TEST

START_TEST(test_proc_owner_errors)
{
	struct authz_owner o = {7, 7, 7};

	ck_assert_int_eq(authz_proc_owner(PROC, 99999, &o), -ESRCH);
	ck_assert_int_eq(authz_proc_owner(PROC, 4244, &o), -EBADMSG);
	ck_assert_int_eq(authz_proc_owner(PROC, 4245, &o), -EBADMSG);
	ck_assert_int_eq(authz_proc_owner(PROC, 0, &o), -EINVAL);
	ck_assert_int_eq(authz_proc_owner(PROC, -5, &o), -EINVAL);
	/* untouched on failure */
	ck_assert_uint_eq(o.ruid, 7);
}
END_TEST

/* The real /proc: this test process runs as whoever runs the tests. */
START_TEST(test_proc_owner_live)
{
	struct authz_owner o;

	ck_assert_int_eq(authz_proc_owner("/proc", getpid(), &o), 0);
	ck_assert_uint_eq(o.ruid, getuid());
	ck_assert_uint_eq(o.euid, geteuid());
	ck_assert(o.has_caps);
	/* root has capabilities, anyone else normally none */
	ck_assert(geteuid() == 0 ? o.cap_prm != 0 : o.cap_prm == 0);
}
END_TEST

START_TEST(test_proc_caps)
{
	struct authz_owner o;

	ck_assert_int_eq(authz_proc_owner(PROC, 4248, &o), 0);
	ck_assert(o.has_caps);
	ck_assert_uint_eq(o.cap_prm, 1ULL << 13); /* CAP_NET_RAW */
	ck_assert_int_eq(authz_proc_owner(PROC, 4249, &o), 0);
	ck_assert(o.has_caps);
	ck_assert_uint_eq(o.cap_prm, 0);
	/* no CapPrm: line at all */
	ck_assert_int_eq(authz_proc_owner(PROC, 4242, &o), 0);
	ck_assert(!o.has_caps);
}
END_TEST

/* What the daemon asks again before each read of a non-root session's target. */
START_TEST(test_target_left)
{
	struct authz_owner o;

	ck_assert_int_eq(authz_proc_owner(PROC, 4249, &o), 0);
	ck_assert_int_eq(authz_target_left(1000, 0, &o, false, 0), 0);
	ck_assert_int_eq(authz_target_left(1001, 0, &o, false, 0), AUTHZ_LEFT_UID);
	/* file capabilities: the uids are the user's, the capabilities are not */
	ck_assert_int_eq(authz_proc_owner(PROC, 4248, &o), 0);
	ck_assert_int_eq(authz_target_left(1000, 0, &o, false, 0), AUTHZ_LEFT_CAPS);
	ck_assert_int_eq(authz_target_left(1000, 1ULL << 13, &o, false, 0), 0);
	ck_assert_int_eq(authz_target_left(1000, ~0ULL, &o, false, 0), 0);
	/* in a user namespace of the user's own, capabilities count only there */
	ck_assert_int_eq(authz_target_left(1000, 0, &o, true, 1000), 0);
	ck_assert_int_eq(authz_target_left(1000, 0, &o, true, 0), AUTHZ_LEFT_CAPS);
	/* set-user-ID: effective, saved */
	ck_assert_int_eq(authz_proc_owner(PROC, 4243, &o), 0);
	o.has_caps = true;
	o.cap_prm = 0;
	ck_assert_int_eq(authz_target_left(1000, 0, &o, false, 0), AUTHZ_LEFT_UID);
	ck_assert_int_eq(authz_target_left(1000, 0, &o, true, 1000), AUTHZ_LEFT_UID);
	ck_assert_int_eq(authz_proc_owner(PROC, 4247, &o), 0);
	o.has_caps = true;
	ck_assert_int_eq(authz_target_left(1000, 0, &o, false, 0), AUTHZ_LEFT_UID);
	/* unknown capabilities are not none */
	o.suid = 1000;
	ck_assert_int_eq(authz_target_left(1000, 0, &o, false, 0), 0);
	o.has_caps = false;
	ck_assert_int_eq(authz_target_left(1000, 0, &o, false, 0), AUTHZ_LEFT_CAPS);
	ck_assert_str_eq(authz_left_text(AUTHZ_LEFT_UID), "exec of a set-user-ID program");
	ck_assert_str_eq(authz_left_text(AUTHZ_LEFT_CAPS),
			 "exec of a program with file capabilities");
}
END_TEST

START_TEST(test_user_own_process)
{
	pid_t pid = 4242;
	char reason[256] = "";

	ck_assert_int_eq(
		authz_check_request(&with_group, &user, PROC, &pid, 1, reason, sizeof(reason)), 0);
	ck_assert_str_eq(reason, "");
}
END_TEST

START_TEST(test_user_refused_root_process)
{
	pid_t pids[] = {4242, 1};
	char reason[256] = "";

	ck_assert_int_eq(
		authz_check_request(&with_group, &user, PROC, pids, 2, reason, sizeof(reason)),
		-EACCES);
	ck_assert_str_eq(reason, "pid 1 belongs to uid 0, not to uid 1000");
}
END_TEST

START_TEST(test_user_refused_other_user)
{
	pid_t pid = 4246;
	char reason[256] = "";

	/* being in the fxsampler group gives host-wide, not other users' processes */
	ck_assert_int_eq(
		authz_check_request(&with_group, &member, PROC, &pid, 1, reason, sizeof(reason)),
		0);
	ck_assert_int_eq(
		authz_check_request(&with_group, &user, PROC, &pid, 1, reason, sizeof(reason)),
		-EACCES);
	ck_assert_str_eq(reason, "pid 4246 belongs to uid 1001, not to uid 1000");
}
END_TEST

START_TEST(test_user_refused_setuid)
{
	pid_t pid = 4243;
	char reason[256] = "";

	ck_assert_int_eq(
		authz_check_request(&with_group, &user, PROC, &pid, 1, reason, sizeof(reason)),
		-EACCES);
	ck_assert_str_eq(
		reason,
		"pid 4243 runs as uid 0 (set-user-ID or changed credentials), not as uid 1000");
	pid = 4247; /* only the saved uid differs */
	ck_assert_int_eq(
		authz_check_request(&with_group, &user, PROC, &pid, 1, reason, sizeof(reason)),
		-EACCES);
	ck_assert_ptr_nonnull(strstr(reason, "pid 4247 runs as uid 0"));
}
END_TEST

START_TEST(test_root_anything)
{
	pid_t pids[] = {1, 4242, 4243, 4246};
	char reason[256] = "";

	ck_assert_int_eq(
		authz_check_request(&no_group, &root, PROC, pids, 4, reason, sizeof(reason)), 0);
	ck_assert_int_eq(
		authz_check_request(&no_group, &root, PROC, NULL, 0, reason, sizeof(reason)), 0);
}
END_TEST

START_TEST(test_host_wide)
{
	char reason[256] = "";

	ck_assert_int_eq(
		authz_check_request(&with_group, &user, PROC, NULL, 0, reason, sizeof(reason)),
		0); /* 27 is among its supplementary groups */
	ck_assert_int_eq(
		authz_check_request(&with_group, &member, PROC, NULL, 0, reason, sizeof(reason)),
		0);
	ck_assert_int_eq(
		authz_check_request(&no_group, &user, PROC, NULL, 0, reason, sizeof(reason)),
		-EACCES);
	ck_assert_str_eq(reason, "host-wide sampling needs root or the group 'fxsampler', which "
				 "does not exist on this host");
}
END_TEST

START_TEST(test_host_wide_not_member)
{
	struct authz_policy pol = {.have_group = true, .group_gid = 1234};
	struct authz_creds primary = user;
	char reason[256] = "";

	ck_assert_int_eq(authz_check_host(&pol, &user, reason, sizeof(reason)), -EACCES);
	ck_assert_str_eq(reason, "host-wide sampling needs root or the group 'fxsampler', which "
				 "uid 1000 is not in");
	/* the primary group counts too */
	primary.gid = 1234;
	primary.nr_groups = 0;
	primary.groups = NULL;
	ck_assert_int_eq(authz_check_host(&pol, &primary, reason, sizeof(reason)), 0);
}
END_TEST

START_TEST(test_request_errors)
{
	pid_t pid = 99999, bad = 0;
	char reason[256] = "";

	ck_assert_int_eq(
		authz_check_request(&with_group, &user, PROC, &pid, 1, reason, sizeof(reason)),
		-ESRCH);
	ck_assert_str_eq(reason, "pid 99999: no such process");
	ck_assert_int_eq(
		authz_check_request(&with_group, &root, PROC, &bad, 1, reason, sizeof(reason)),
		-EINVAL);
	pid = 4244;
	ck_assert_int_eq(
		authz_check_request(&with_group, &user, PROC, &pid, 1, reason, sizeof(reason)),
		-EBADMSG);
	ck_assert_ptr_nonnull(strstr(reason, "pid 4244: cannot read its owner"));
}
END_TEST

/* A short reason buffer is truncated, never overrun. */
START_TEST(test_reason_truncated)
{
	pid_t pid = 1;
	char reason[12];

	memset(reason, 'z', sizeof(reason));
	ck_assert_int_eq(authz_check_request(&with_group, &user, PROC, &pid, 1, reason, 8),
			 -EACCES);
	ck_assert_str_eq(reason, "pid 1 b");
	ck_assert_int_eq(reason[8], 'z');
}
END_TEST

/* Kernel stacks: root, a host-wide session, or perf_event_paranoid <= 1, as perf decides. */
START_TEST(test_kernel_allowed)
{
	char path[] = "/tmp/fxs-paranoid-XXXXXX";
	int fd = mkstemp(path);

	ck_assert(authz_kernel_allowed(0, 1, 2));
	ck_assert(authz_kernel_allowed(1000, 0, 2));
	ck_assert(!authz_kernel_allowed(1000, 1, 2));
	ck_assert(!authz_kernel_allowed(1000, 1, 3));
	ck_assert(authz_kernel_allowed(1000, 1, 1));
	ck_assert(authz_kernel_allowed(1000, 1, -1));

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "1\n", 2), 2);
	close(fd);
	ck_assert_int_eq(authz_perf_paranoid(path), 1);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "-1\n", 3), 3);
	close(fd);
	ck_assert_int_eq(authz_perf_paranoid(path), -1);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "x\n", 2), 2);
	close(fd);
	/* unreadable or garbage: the strict default */
	ck_assert_int_eq(authz_perf_paranoid(path), 2);
	unlink(path);
	ck_assert_int_eq(authz_perf_paranoid(path), 2);
}
END_TEST

static Suite *authz_suite(void)
{
	Suite *s = suite_create("authz");
	TCase *tc;

	tc = tcase_create("proc");
	tcase_add_test(tc, test_proc_owner);
	tcase_add_test(tc, test_proc_owner_errors);
	tcase_add_test(tc, test_proc_owner_live);
	tcase_add_test(tc, test_proc_caps);
	tcase_add_test(tc, test_target_left);
	suite_add_tcase(s, tc);

	tc = tcase_create("policy");
	tcase_add_test(tc, test_user_own_process);
	tcase_add_test(tc, test_user_refused_root_process);
	tcase_add_test(tc, test_user_refused_other_user);
	tcase_add_test(tc, test_user_refused_setuid);
	tcase_add_test(tc, test_root_anything);
	tcase_add_test(tc, test_host_wide);
	tcase_add_test(tc, test_host_wide_not_member);
	tcase_add_test(tc, test_kernel_allowed);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_request_errors);
	tcase_add_test(tc, test_reason_truncated);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(authz_suite)
