// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* procinfo: what /proc says of a process or thread. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/procinfo.h"
#include "sampler.h"
#include "check_main.h"

struct worker {
	pthread_t thread;
	pthread_barrier_t ready, done;
	pid_t tid;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "fxs-worker");
	pthread_barrier_wait(&w->ready);
	pthread_barrier_wait(&w->done);
	return NULL;
}

/* Zombies and kernel threads have no user stack to sample: told apart from /proc. */
START_TEST(test_procinfo_kind)
{
	pid_t child;
	int i, kind = -1;

	ck_assert_int_eq(procinfo_kind_from_stat("42 (a) b) S 1 42 42 0 -1 4194560 0 0"),
			 PROCINFO_USER);
	ck_assert_int_eq(procinfo_kind_from_stat("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0"),
			 PROCINFO_KTHREAD);
	ck_assert_int_eq(procinfo_kind_from_stat("77 (sh) Z 1 77 77 0 -1 4227084 0 0"),
			 PROCINFO_ZOMBIE);
	ck_assert_int_eq(procinfo_kind_from_stat("77 (sh) X 1 77 77 0 -1 4227084"),
			 PROCINFO_ZOMBIE);
	ck_assert_int_eq(procinfo_kind_from_stat("77 (sh"), -EINVAL);
	ck_assert_int_eq(procinfo_kind_from_stat("77 (sh) S 1"), -EINVAL);
	ck_assert_int_eq(procinfo_kind(getpid()), PROCINFO_USER);
	ck_assert_int_eq(procinfo_kind(0x3ffffff0), -ESRCH);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child)
		_exit(0);
	/* not reaped yet: a zombie */
	for (i = 0; i < 200 && (kind = procinfo_kind(child)) != PROCINFO_ZOMBIE; i++)
		usleep(10000);
	ck_assert_int_eq(kind, PROCINFO_ZOMBIE);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	ck_assert_int_eq(procinfo_kind(child), -ESRCH);
}
END_TEST

START_TEST(test_procinfo_tgid)
{
	struct worker w;

	ck_assert_int_eq(procinfo_tgid(getpid()), getpid());
	ck_assert_int_eq(procinfo_tgid(getppid()), getppid());

	ck_assert_int_eq(pthread_barrier_init(&w.ready, NULL, 2), 0);
	ck_assert_int_eq(pthread_barrier_init(&w.done, NULL, 2), 0);
	ck_assert_int_eq(pthread_create(&w.thread, NULL, worker_main, &w), 0);
	pthread_barrier_wait(&w.ready);
	ck_assert_int_ne(w.tid, getpid());
	/* A thread's tid maps to its process. */
	ck_assert_int_eq(procinfo_tgid(w.tid), getpid());
	pthread_barrier_wait(&w.done);
	ck_assert_int_eq(pthread_join(w.thread, NULL), 0);
	pthread_barrier_destroy(&w.ready);
	pthread_barrier_destroy(&w.done);
}
END_TEST

START_TEST(test_procinfo_tgid_missing)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	/* Reaped: gone (pids are not reused this fast). */
	ck_assert_int_eq(procinfo_tgid(pid), -ESRCH);
	/* Above PID_MAX_LIMIT (4M): never a pid. */
	ck_assert_int_eq(procinfo_tgid(0x3ffffff0), -ESRCH);
	ck_assert_int_eq(procinfo_tgid(INT_MAX), -ESRCH);
	ck_assert_int_eq(procinfo_tgid(0), -ESRCH);
	ck_assert_int_eq(procinfo_tgid(-1), -ESRCH);
	ck_assert_int_eq(procinfo_tgid(INT_MIN), -ESRCH);
}
END_TEST

START_TEST(test_procinfo_comm)
{
	char buf[64];
	struct worker w;

	ck_assert_int_eq(prctl(PR_SET_NAME, "fxs-selftest"), 0);
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(procinfo_comm(getpid(), getpid(), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "fxs-selftest");

	/* The longest comm, 15 bytes, without the kernel's newline. */
	ck_assert_int_eq(prctl(PR_SET_NAME, "abcdefghijklmno"), 0);
	ck_assert_int_eq(procinfo_comm(getpid(), getpid(), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "abcdefghijklmno");
	ck_assert_int_eq(procinfo_comm(getpid(), getpid(), buf, FXS_COMM_LEN), 0);
	ck_assert_str_eq(buf, "abcdefghijklmno");
	/* A small buffer: cut and terminated. */
	ck_assert_int_eq(procinfo_comm(getpid(), getpid(), buf, 4), 0);
	ck_assert_str_eq(buf, "abc");
	ck_assert_int_eq(procinfo_comm(getpid(), getpid(), buf, 1), 0);
	ck_assert_str_eq(buf, "");

	/* Another thread of this process. */
	ck_assert_int_eq(pthread_barrier_init(&w.ready, NULL, 2), 0);
	ck_assert_int_eq(pthread_barrier_init(&w.done, NULL, 2), 0);
	ck_assert_int_eq(pthread_create(&w.thread, NULL, worker_main, &w), 0);
	pthread_barrier_wait(&w.ready);
	ck_assert_int_eq(procinfo_comm(getpid(), w.tid, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "fxs-worker");
	pthread_barrier_wait(&w.done);
	ck_assert_int_eq(pthread_join(w.thread, NULL), 0);
	pthread_barrier_destroy(&w.ready);
	pthread_barrier_destroy(&w.done);

	/* Gone: an error and an empty name. */
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_lt(procinfo_comm(0x3ffffff0, 0x3ffffff0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_lt(procinfo_comm(getpid(), 0x3ffffff0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* The start time that tells a process from a later one on the same pid. */
START_TEST(test_procinfo_start)
{
	const char *stat = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 1 0 0 20 0 1 0 "
			   "123456 1000 200 18446744073709551615";
	struct timespec now;
	uint64_t ticks = 7, ns;

	ck_assert_int_eq(procinfo_parse_start(stat, &ticks), 0);
	ck_assert_uint_eq(ticks, 123456);
	ck_assert_int_eq(procinfo_parse_start("4242 (x) S 1 2 3", &ticks), -EBADMSG);
	ck_assert_int_eq(procinfo_parse_start("4242 x S 1", &ticks), -EBADMSG);
	ck_assert_int_eq(
		procinfo_parse_start("1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12z", &ticks),
		-EBADMSG);
	ck_assert_uint_eq(ticks, 123456);

	/* This process started before now, on the clock of the BPF timestamps. */
	ck_assert_int_eq(procinfo_start_ns("/proc/self", &ns), 0);
	clock_gettime(CLOCK_BOOTTIME, &now);
	ck_assert_uint_le(ns, (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec);
	ck_assert_uint_gt(ns, 0);
	ck_assert_int_eq(procinfo_start_ns("/proc/0x3ffffff0", &ns), -ESRCH);
}
END_TEST

/* A directory of ours with a status file naming ruid, as /proc/PID has them. */
static int fake_not_dumpable(const char *dir, unsigned long ruid, const char *extra)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "Name:\tx\n%sUid:\t%lu\t0\t0\t0\nGid:\t0\t0\t0\t0\n", extra, ruid);
	fclose(f);
	return procinfo_not_dumpable(dir);
}

/* A process whose /proc directory is not its real uid's is not dumpable (a secure exec). */
START_TEST(test_procinfo_not_dumpable)
{
	char dir[] = "/tmp/fxs-procinfo.XXXXXX", path[256];
	unsigned long me = (unsigned long)getuid();

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(fake_not_dumpable(dir, me, ""), 0);
	ck_assert_int_eq(fake_not_dumpable(dir, me + 1, "State:\tR\n"), 1);
	snprintf(path, sizeof(path), "%s/status", dir);
	{
		FILE *f = fopen(path, "w");

		ck_assert_ptr_nonnull(f);
		fputs("Name:\tx\n", f);
		fclose(f);
	}
	ck_assert_int_eq(procinfo_not_dumpable(dir), -EBADMSG);
	unlink(path);
	rmdir(dir);
	/* this test is dumpable; a pid that is gone has no answer */
	ck_assert_int_eq(procinfo_not_dumpable("/proc/self"), 0);
	ck_assert_int_eq(procinfo_not_dumpable("/proc/0x3ffffff0"), -ESRCH);
}
END_TEST

static Suite *procinfo_suite(void)
{
	Suite *s = suite_create("procinfo");
	TCase *tc = tcase_create("procinfo");

	tcase_add_test(tc, test_procinfo_tgid);
	tcase_add_test(tc, test_procinfo_kind);
	tcase_add_test(tc, test_procinfo_tgid_missing);
	tcase_add_test(tc, test_procinfo_comm);
	tcase_add_test(tc, test_procinfo_start);
	tcase_add_test(tc, test_procinfo_not_dumpable);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(procinfo_suite)
