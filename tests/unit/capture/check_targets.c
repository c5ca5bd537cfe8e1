// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A session's processes held by pidfds (daemon/capture/targets.c), on real processes:
 * this one and children it forks. Runs as any user.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/authz.h"
#include "capture/targets.h"
#include "check_main.h"

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t my_caps(void)
{
	struct authz_owner o;

	ck_assert_int_eq(authz_proc_owner("/proc", getpid(), &o), 0);
	ck_assert(o.has_caps);
	return o.cap_prm;
}

static pid_t child(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		pause();
		_exit(0);
	}
	return pid;
}

START_TEST(test_own_process)
{
	struct targets *t = targets__new(true, getuid(), my_caps());
	char dir[64], path[96];
	int why = 7;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(targets_enter(t, getpid(), boot_ns(), dir, sizeof(dir), &why), 0);
	ck_assert_int_eq(why, 0);
	/* the directory is this process's */
	ck_assert(!strncmp(dir, "/proc/self/fd/", 14));
	snprintf(path, sizeof(path), "%s/status", dir);
	ck_assert_int_eq(access(path, R_OK), 0);
	targets_leave(t);
	ck_assert(!targets_denied(t, getpid()));
	targets__free(t);
}
END_TEST

/* Not the client's: the reason once, then only the refusal. */
START_TEST(test_not_theirs)
{
	uid_t other = getuid() ? 0 : 4242;
	struct targets *t = targets__new(true, other, 0);
	char dir[64];
	int why;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(targets_enter(t, getpid(), 0, dir, sizeof(dir), &why), -EACCES);
	ck_assert_int_eq(why, AUTHZ_LEFT_UID);
	ck_assert_int_eq(targets_enter(t, getpid(), 0, dir, sizeof(dir), &why), -EACCES);
	ck_assert_int_eq(why, 0);
	ck_assert(targets_denied(t, getpid()));
	/* told by the kernel after: already said */
	ck_assert(!targets_deny(t, getpid()));
	targets__free(t);

	/* capabilities beyond the client's (root has them, a user none: skip then) */
	if (my_caps()) {
		t = targets__new(true, getuid(), 0);
		ck_assert_int_eq(targets_enter(t, getpid(), 0, dir, sizeof(dir), &why), -EACCES);
		ck_assert_int_eq(why, AUTHZ_LEFT_CAPS);
		targets__free(t);
	}
	/* a root session only keeps the identity */
	t = targets__new(false, other, 0);
	ck_assert_int_eq(targets_enter(t, getpid(), 0, dir, sizeof(dir), &why), 0);
	targets__free(t);
}
END_TEST

START_TEST(test_deny_once)
{
	struct targets *t = targets__new(true, getuid(), my_caps());
	pid_t pid = child();
	char dir[64];
	int why;

	ck_assert(targets_deny(t, pid));
	ck_assert(!targets_deny(t, pid));
	ck_assert(targets_denied(t, pid));
	ck_assert_int_eq(targets_enter(t, pid, 0, dir, sizeof(dir), &why), -EACCES);
	ck_assert_int_eq(why, 0);
	/* a pid never seen and gone: still said */
	ck_assert(targets_deny(t, 0x3ffffff0));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	targets__free(t);
}
END_TEST

/* An exit is seen through the pidfd; the pid is forgotten. */
START_TEST(test_reap)
{
	struct targets *t = targets__new(true, getuid(), my_caps());
	pid_t pid = child(), gone[4] = {0};
	char dir[64];
	int why;

	ck_assert_int_eq(targets_enter(t, pid, boot_ns(), dir, sizeof(dir), &why), 0);
	targets_leave(t);
	ck_assert_uint_eq(targets_reap(t, gone, 4), 0);
	kill(pid, SIGKILL);
	/* a zombie has exited: the pidfd says so before the reap */
	for (int i = 0; i < 200 && !targets_reap(t, gone, 4); i++)
		usleep(5000);
	ck_assert_int_eq(gone[0], pid);
	ck_assert_uint_eq(targets_reap(t, gone, 4), 0);
	/* the zombie's directory is no process to read */
	ck_assert_int_eq(targets_enter(t, pid, boot_ns(), dir, sizeof(dir), &why), -ESRCH);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(targets_enter(t, pid, boot_ns(), dir, sizeof(dir), &why), -ESRCH);
	targets__free(t);
}
END_TEST

/* A process that started after the sample is not the sample's, whatever its pid. */
START_TEST(test_started_after_sample)
{
	struct targets *t = targets__new(true, getuid(), my_caps());
	uint64_t before = boot_ns();
	pid_t pid;
	char dir[64];
	int why;

	/* the start is in ticks: be a few ticks later */
	usleep(50000);
	pid = child();
	ck_assert_int_eq(targets_enter(t, pid, before, dir, sizeof(dir), &why), -ESRCH);
	ck_assert_int_eq(targets_enter(t, pid, boot_ns(), dir, sizeof(dir), &why), 0);
	targets_leave(t);
	/* held now: later samples are its own */
	ck_assert_int_eq(targets_enter(t, pid, before, dir, sizeof(dir), &why), 0);
	targets_leave(t);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	targets__free(t);
}
END_TEST

int main(void)
{
	TCase *tc;
	Suite *s;
	int fd;

	/* valgrind before 3.21 does not know pidfd_open: nothing here could run */
	fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fd < 0 && errno == ENOSYS) {
		printf("SKIP: check_targets: no pidfd_open here (valgrind?); NOT RUN\n");
		return EXIT_SUCCESS;
	}
	close(fd);
	s = suite_create("targets");
	tc = tcase_create("pidfds");
	tcase_add_test(tc, test_own_process);
	tcase_add_test(tc, test_not_theirs);
	tcase_add_test(tc, test_deny_once);
	tcase_add_test(tc, test_reap);
	tcase_add_test(tc, test_started_after_sample);
	suite_add_tcase(s, tc);
	return check_run(s);
}
