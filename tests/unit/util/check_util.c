// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The small helper modules: cpus, idset, hostlock, procinfo. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/cpus.h"
#include "capture/hostlock.h"
#include "util/idset.h"
#include "capture/procinfo.h"
#include "sampler.h"
#include "check_main.h"

/* --- cpus --- */

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

/* --- idset --- */

START_TEST(test_idset_basic)
{
	struct idset s = {0};

	ck_assert_int_eq(idset_has(&s, 1), 0);
	ck_assert_int_eq(idset_has(&s, 0), 0);
	ck_assert_int_eq(idset_add(&s, 0), -EINVAL);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_int_eq(idset_add(&s, 42), 1);
	ck_assert_int_eq(idset_add(&s, 42), 0);
	ck_assert_int_eq(idset_add(&s, 42), 0);
	ck_assert_uint_eq(s.len, 1);
	ck_assert_int_eq(idset_has(&s, 42), 1);
	ck_assert_int_eq(idset_has(&s, 43), 0);
	ck_assert_int_eq(idset_has(&s, 0), 0);
	ck_assert_int_eq(idset_add(&s, 0), -EINVAL);
	ck_assert_uint_eq(s.len, 1);
	ck_assert_int_eq(idset_add(&s, UINT64_MAX), 1);
	ck_assert_int_eq(idset_has(&s, UINT64_MAX), 1);
	ck_assert_uint_eq(s.len, 2);

	idset_free(&s);
	ck_assert_ptr_null(s.ids);
	ck_assert_uint_eq(s.idx.cap, 0);
	ck_assert_uint_eq(s.len, 0);
	ck_assert_int_eq(idset_has(&s, 42), 0);
	/* Free again, then reuse. */
	idset_free(&s);
	ck_assert_int_eq(idset_add(&s, 42), 1);
	ck_assert_int_eq(idset_has(&s, 42), 1);
	idset_free(&s);
}
END_TEST

START_TEST(test_idset_grow)
{
	const uint64_t n = 20000;
	struct idset s = {0};

	for (uint64_t id = 1; id <= n; id++) {
		ck_assert_int_eq(idset_add(&s, id), 1);
		/* The index: a power of two, at most half full. */
		ck_assert_uint_eq(s.idx.cap & (s.idx.cap - 1), 0);
		ck_assert_uint_le(s.len * 2, s.idx.cap);
	}
	ck_assert_uint_eq(s.len, n);
	for (uint64_t id = 1; id <= n; id++)
		ck_assert_int_eq(idset_add(&s, id), 0);
	ck_assert_uint_eq(s.len, n);
	for (uint64_t id = 1; id <= n; id++)
		ck_assert_int_eq(idset_has(&s, id), 1);
	for (uint64_t id = n + 1; id <= 2 * n; id++)
		ck_assert_int_eq(idset_has(&s, id), 0);
	idset_free(&s);
}
END_TEST

/* Ids that differ only in bits the hash may not spread, and pid/tid-like keys. */
START_TEST(test_idset_collisions)
{
	struct idset s = {0};
	unsigned added = 0;

	for (uint64_t i = 1; i <= 3000; i++) {
		ck_assert_int_eq(idset_add(&s, i << 40), 1);
		ck_assert_int_eq(idset_add(&s, i << 20), 1);
		ck_assert_int_eq(idset_add(&s, (i << 32) | i), 1);
		added += 3;
	}
	ck_assert_uint_eq(s.len, added);
	for (uint64_t i = 1; i <= 3000; i++) {
		ck_assert_int_eq(idset_has(&s, i << 40), 1);
		ck_assert_int_eq(idset_has(&s, i << 20), 1);
		ck_assert_int_eq(idset_has(&s, (i << 32) | i), 1);
		ck_assert_int_eq(idset_has(&s, (i << 40) | 1), 0);
	}
	idset_free(&s);
}
END_TEST

/* --- hostlock --- */

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

/* The lock file holds exactly "PID\n". */
static void expect_lock_file(pid_t pid)
{
	char want[32], got[64];
	ssize_t n;
	int fd;

	snprintf(want, sizeof(want), "%d\n", (int)pid);
	fd = open(lock_path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	got[n] = '\0';
	ck_assert_str_eq(got, want);
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

	ck_assert_int_eq(hostlock_holder(lock_path), 0);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, &holder), 0);
	ck_assert_int_ge(fd, 0);
	flags = fcntl(fd, F_GETFD);
	ck_assert_int_ne(flags & FD_CLOEXEC, 0);
	ck_assert_int_eq(hostlock_holder(lock_path), getpid());
	expect_lock_file(getpid());

	hostlock_release(fd);
	/* Nobody is named after release. */
	ck_assert_int_eq(hostlock_holder(lock_path), 0);
	/* And it can be taken again. */
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, NULL), 0);
	ck_assert_int_eq(hostlock_holder(lock_path), getpid());
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
	ck_assert_int_eq(hostlock_holder(lock_path), getpid());

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
	ck_assert_int_eq(hostlock_holder(lock_path), pid);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, &holder), -EBUSY);
	ck_assert_int_eq(holder, pid);

	/* The lock dies with its holder, released or not. */
	ck_assert_int_eq(write(go, "x", 1), 1);
	close(go);
	child_wait(pid);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, &holder), 0);
	ck_assert_int_eq(hostlock_holder(lock_path), getpid());
	hostlock_release(fd);
}
END_TEST

START_TEST(test_hostlock_errors)
{
	char missing[PATH_MAX + 32];
	int fd = -1;
	FILE *f;

	snprintf(missing, sizeof(missing), "%s/no/such/dir/lock", lock_dir);
	ck_assert_int_eq(hostlock_acquire(missing, &fd, NULL), -ENOENT);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(hostlock_holder(missing), 0);

	/* A lock file holding no pid names nobody. */
	f = fopen(lock_path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("garbage\n", f);
	fclose(f);
	ck_assert_int_eq(hostlock_holder(lock_path), 0);
	/* A longer stale content is replaced, not overwritten in part. */
	f = fopen(lock_path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("123456789012345678901234567890\n", f);
	fclose(f);
	ck_assert_int_eq(hostlock_acquire(lock_path, &fd, NULL), 0);
	ck_assert_int_eq(hostlock_holder(lock_path), getpid());
	expect_lock_file(getpid());
	hostlock_release(fd);
}
END_TEST

/* --- procinfo --- */

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

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc;

	tc = tcase_create("cpus");
	tcase_add_test(tc, test_cpus_parse);
	tcase_add_test(tc, test_cpus_parse_clears);
	tcase_add_test(tc, test_cpus_parse_malformed);
	tcase_add_test(tc, test_cpus_parse_range);
	tcase_add_test(tc, test_cpus_online);
	tcase_add_test(tc, test_cpu_is_online);
	suite_add_tcase(s, tc);

	tc = tcase_create("idset");
	tcase_add_test(tc, test_idset_basic);
	tcase_add_test(tc, test_idset_grow);
	tcase_add_test(tc, test_idset_collisions);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostlock");
	tcase_add_checked_fixture(tc, lock_setup, lock_teardown);
	tcase_add_test(tc, test_hostlock_acquire_release);
	tcase_add_test(tc, test_hostlock_probe);
	tcase_add_test(tc, test_hostlock_busy);
	tcase_add_test(tc, test_hostlock_child_holds);
	tcase_add_test(tc, test_hostlock_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("procinfo");
	tcase_add_test(tc, test_procinfo_tgid);
	tcase_add_test(tc, test_procinfo_kind);
	tcase_add_test(tc, test_procinfo_tgid_missing);
	tcase_add_test(tc, test_procinfo_comm);
	tcase_add_test(tc, test_procinfo_start);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(util_suite)
