// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hostlock: one sampler per host, and who holds it. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/hostlock.h"
#include "check_main.h"

static char lock_dir[PATH_MAX];
static char lock_path[PATH_MAX + 16];

static void lock_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(lock_dir, sizeof(lock_dir), "%s/fxs-hostlock-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(lock_dir));
	snprintf(lock_path, sizeof(lock_path), "%s/lock", lock_dir);
}

static void lock_teardown(void)
{
	unlink(lock_path);
	rmdir(lock_dir);
}

/* The lock file holds exactly "PID\n"; nothing for pid 0. */
static void expect_lock_file(pid_t pid)
{
	char want[32] = "", got[64];
	ssize_t n;
	int fd;

	if (pid)
		snprintf(want, sizeof(want), "%d\n", (int)pid);
	fd = open(lock_path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	got[n] = '\0';
	ck_assert_str_eq(got, want);
}

/*
 * Who holds the lock at path, as a user's `status` learns it
 * (hostlock_probe()): 0 when it is free, else the pid its file names (0 when
 * it names none).
 */
static pid_t probed_holder(const char *path)
{
	pid_t holder = -1;
	int err = hostlock_probe(path, &holder);

	ck_assert_msg(err == 0 || err == -EBUSY, "hostlock_probe: %d", err);
	if (!err)
		ck_assert_int_eq(holder, 0);
	return holder;
}

struct lock_report {
	int rc;
	pid_t holder;
	pid_t self;
};

/*
 * Try the lock in a child and report through a pipe. With hold, keep it until
 * the parent writes to *ret_go (then exit without releasing).
 */
static pid_t child_try(struct lock_report *ret, bool hold, int *ret_go)
{
	int rep[2], go[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(rep, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(go, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct lock_report r = {.holder = -1, .self = getpid()};
		int fd = -1;
		char c;

		r.rc = hostlock_acquire(lock_path, &fd, &r.holder);
		if (write(rep[1], &r, sizeof(r)) != sizeof(r))
			_exit(3);
		if (hold && read(go[0], &c, 1) < 0)
			_exit(4);
		_exit(0);
	}
	close(rep[1]);
	close(go[0]);
	ck_assert_int_eq(read(rep[0], ret, sizeof(*ret)), sizeof(*ret));
	close(rep[0]);
	if (hold)
		*ret_go = go[1];
	else
		close(go[1]);
	return pid;
}

static void child_wait(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}

START_TEST(test_hostlock_acquire_release)
{
	int fd = -1, flags;
	pid_t holder = -1;

	ck_assert_int_eq(probed_holder(lock_path), 0);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, &holder), 0);
	ck_assert_int_ge(fd, 0);
	flags = fcntl(fd, F_GETFD);
	ck_assert_int_ne(flags & FD_CLOEXEC, 0);
	ck_assert_int_eq(probed_holder(lock_path), getpid());
	expect_lock_file(getpid());

	hostlock_release(fd);
	/* Nobody is named after release. */
	expect_lock_file(0);
	ck_assert_int_eq(probed_holder(lock_path), 0);
	/* And it can be taken again. */
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, NULL), 0);
	ck_assert_int_eq(probed_holder(lock_path), getpid());
	hostlock_release(fd);
	hostlock_release(-1);
}
END_TEST

/* status probes without taking the lock, and never names a holder it did not read. */
START_TEST(test_hostlock_probe)
{
	struct lock_report r;
	pid_t holder = -1, pid;
	int go;

	ck_assert_int_eq(hostlock_probe(lock_path, &holder), 0);
	ck_assert_int_eq(holder, 0);
	pid = child_try(&r, true, &go);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(hostlock_probe(lock_path, &holder), -EBUSY);
	ck_assert_int_eq(holder, r.self);
	/* probing took nothing: the holder keeps it */
	ck_assert_int_eq(hostlock_probe(lock_path, &holder), -EBUSY);
	ck_assert_int_eq(write(go, "x", 1), 1);
	close(go);
	child_wait(pid);
	ck_assert_int_eq(hostlock_probe(lock_path, &holder), 0);
	ck_assert_int_eq(holder, 0);
	/* a lock file we may not read: unknown, not busy */
	chmod(lock_path, 0);
	if (geteuid()) {
		ck_assert_int_eq(hostlock_probe(lock_path, &holder), -EACCES);
		ck_assert_int_eq(holder, 0);
	}
	chmod(lock_path, 0644);
}
END_TEST

START_TEST(test_hostlock_busy)
{
	struct lock_report r;
	int fd = -1, fd2 = -1;
	pid_t pid, holder = -1;

	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, NULL), 0);

	/* Another process: busy, and told who holds it. */
	pid = child_try(&r, false, NULL);
	child_wait(pid);
	ck_assert_int_eq(r.rc, -EBUSY);
	ck_assert_int_eq(r.holder, getpid());
	/* The failed attempt did not overwrite the holder. */
	ck_assert_int_eq(probed_holder(lock_path), getpid());
	expect_lock_file(getpid());

	/* Another open file in this process is a second sampler too. */
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd2, &holder), -EBUSY);
	ck_assert_int_eq(holder, getpid());
	ck_assert_int_eq(fd2, -1);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd2, NULL), -EBUSY);

	/* After release the child gets it. */
	hostlock_release(fd);
	pid = child_try(&r, false, NULL);
	child_wait(pid);
	ck_assert_int_eq(r.rc, 0);
}
END_TEST

START_TEST(test_hostlock_child_holds)
{
	struct lock_report r;
	int fd = -1, go = -1;
	pid_t pid, holder = -1;

	pid = child_try(&r, true, &go);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.self, pid);
	ck_assert_int_eq(probed_holder(lock_path), pid);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, &holder), -EBUSY);
	ck_assert_int_eq(holder, pid);

	/* The lock dies with its holder, released or not. */
	ck_assert_int_eq(write(go, "x", 1), 1);
	close(go);
	child_wait(pid);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, &holder), 0);
	ck_assert_int_eq(probed_holder(lock_path), getpid());
	hostlock_release(fd);
}
END_TEST

START_TEST(test_hostlock_errors)
{
	char missing[PATH_MAX + 32];
	struct lock_report r;
	pid_t pid, holder = -1;
	int fd = -1, go = -1;
	FILE *f;

	snprintf(missing, sizeof(missing), "%s/no/such/dir/lock", lock_dir);
	ck_assert_int_eq(hostlock_acquire(missing, &fd, NULL), -ENOENT);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(probed_holder(missing), 0);

	/* A lock file holding no pid names nobody, also while the lock is held. */
	pid = child_try(&r, true, &go);
	ck_assert_int_eq(r.rc, 0);
	f = fopen(lock_path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("garbage\n", f);
	fclose(f);
	ck_assert_int_eq(probed_holder(lock_path), 0);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, &holder), -EBUSY);
	ck_assert_int_eq(holder, 0);
	ck_assert_int_eq(write(go, "x", 1), 1);
	close(go);
	child_wait(pid);
	/* A longer stale content is replaced, not overwritten in part. */
	f = fopen(lock_path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("123456789012345678901234567890\n", f);
	fclose(f);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, NULL), 0);
	ck_assert_int_eq(probed_holder(lock_path), getpid());
	expect_lock_file(getpid());
	hostlock_release(fd);
}
END_TEST

static Suite *hostlock_suite(void)
{
	Suite *s = suite_create("hostlock");
	TCase *tc = tcase_create("hostlock");

	tcase_add_checked_fixture(tc, lock_setup, lock_teardown);
	tcase_add_test(tc, test_hostlock_acquire_release);
	tcase_add_test(tc, test_hostlock_probe);
	tcase_add_test(tc, test_hostlock_busy);
	tcase_add_test(tc, test_hostlock_child_holds);
	tcase_add_test(tc, test_hostlock_errors);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(hostlock_suite)
