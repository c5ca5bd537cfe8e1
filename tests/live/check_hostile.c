// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A user cannot stall the root daemon (issue 40): hostile targets recorded
 * through fxsamplerd, with `status` asked every 250 ms and timed.
 *  - an exec loop (progs/execloop: 5,000 execs of /proc/self/exe, one pid):
 *    every status answers within 1 s, the user's client has a complete file
 *    within 10 s of the target's exit; SIGTERM to a daemon in the middle of
 *    such a session stops it within 2 s; as root without the daemon, record
 *    ends within 5 s of the target's exit;
 *  - a mapper (progs/manymaps: 200,000 one-page executable file regions,
 *    half unmapped at once): every status answers within 1 s, and the
 *    session's stop comes with the file.
 * The bookkeeping these loads hit is util/rangemap's (O(log n) a mapping),
 * and an exec replaces a process's mappings (the side band's exec record).
 */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fxt/fxt_reader.h"
#include "service/memory.h"
#include "live.h"
#include "live_daemon.h"
#include "check_main.h"

#define TEST_USER "fxs-hostile-user"
#define EXECS	  "5000"

/* the user writes its captures in tmpdir */
static struct live_suite suite = {.name = "check_hostile",
				  .needs = "BPF, fxsamplerd, useradd",
				  .user = TEST_USER,
				  .dir = "/tmp/fxs-hostile.XXXXXX",
				  .dir_mode = 0777};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Its exit status if it has exited (reaped), else -1. */
static int exited(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, WNOHANG) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* How long a `status` on socket s took to answer (10 s: it did not). */
static double status_s(const char *s)
{
	char cmd[PATH_MAX + 256];
	double t0 = now_s();

	snprintf(cmd, sizeof(cmd), "FXSAMPLER_SOCKET=%s timeout 10 %s status >/dev/null 2>&1", s,
		 bin);
	if (live_run_cmd(cmd))
		return 10;
	return now_s() - t0;
}

/* The whole records of a .fxt and its mmap records; false when it is not whole. */
static bool fxt_whole(const char *path, long *ret_mmaps, long *ret_counters)
{
	struct fxt_reader *r = fxt_reader__open(path);
	struct fxt_record rec;
	int err;

	*ret_mmaps = *ret_counters = 0;
	if (!r)
		return false;
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_MMAP)
			(*ret_mmaps)++;
		if (rec.type == FXT_RT_EVENT && rec.subtype == FXT_EVENT_COUNTER)
			(*ret_counters)++;
	}
	if (err)
		fprintf(stderr, "%s: %s\n", path, fxt_reader_error(r));
	fxt_reader__free(r);
	return !err;
}

/*
 * The user records args (NULL-terminated) through the daemon on socket s
 * into out, its output in out.log; s NULL: root records without the daemon.
 */
static pid_t start_record(const char *s, const char *out, const char *const *args)
{
	const char *argv[16] = {"-o", out, "--"};
	char log[PATH_MAX];
	pid_t rec;
	int fd;

	for (size_t i = 0; args[i] && i < 12; i++)
		argv[3 + i] = args[i];
	snprintf(log, sizeof(log), "%s.log", out);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	rec = live_record_client(s, s ? suite.uid : 0, s ? suite.gid : 0, fd, fd, argv);
	close(fd);
	return rec;
}

/* What record_hostile() saw while the client ran. */
struct hostile_run {
	double worst;	  /* the slowest status */
	double after;	  /* how long after the target's end the client exited (-1: never) */
	unsigned checks;  /* status requests */
	unsigned max_fds; /* the most fds the suite's daemon had open at a check */
};

/*
 * The user records args through the daemon on socket s into out; status is
 * asked (and the daemon's fds counted) every 250 ms until the client exits
 * (or max_s). Returns the client's exit status; done is a file the target
 * creates as it ends.
 */
static int record_hostile(const char *s, const char *out, const char *const *args, const char *done,
			  double max_s, struct hostile_run *run)
{
	double t0 = now_s(), done_at = 0, worst = 0;
	pid_t rec = start_record(s, out, args);
	int rc = -1;

	*run = (struct hostile_run){0};
	while (now_s() - t0 < max_s) {
		double took = status_s(s);
		unsigned fds = live_open_fds(suite.daemon.pid);

		run->checks++;
		if (fds > run->max_fds)
			run->max_fds = fds;
		if (took > worst)
			worst = took;
		if (!done_at && !access(done, F_OK))
			done_at = now_s();
		rc = exited(rec);
		if (rc >= 0)
			break;
		live_msleep(250);
	}
	if (rc < 0) {
		kill(-rec, SIGKILL);
		waitpid(rec, NULL, 0);
	}
	if (!done_at && !access(done, F_OK))
		done_at = now_s();
	run->worst = worst;
	run->after = done_at ? now_s() - done_at : -1;
	return rc;
}

static void show_log(const char *out)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "cat %s.log >&2", out);
	live_run_cmd(cmd);
}

/*
 * The user records progs/prog with arg1 and arg2 (NULL: none), then the file
 * the target makes as it ends, through the daemon: every status answers
 * within 1 s, and the client has a whole file with counters within 10 s of
 * the target's end. what names the load.
 */
static void check_through_daemon(const char *what, const char *name, const char *const *args,
				 const char *done)
{
	char out[PATH_MAX];
	struct hostile_run run;
	long mmaps, counters;
	unsigned fd_ceiling = MEM_FD_CEILING((unsigned)sysconf(_SC_NPROCESSORS_CONF));
	int rc;

	snprintf(out, sizeof(out), "%s/%s.fxt", tmpdir, name);
	rc = record_hostile(suite.daemon.sock, out, args, done, 100, &run);
	fxt_whole(out, &mmaps, &counters);
	fprintf(stderr,
		"%s through the daemon: %u status checks, the slowest %.3f s; the client done "
		"%.2f s after the target, %ld mmap records; the daemon had at most %u fds open "
		"(its ceiling %u)\n",
		what, run.checks, run.worst, run.after, mmaps, run.max_fds, fd_ceiling);
	show_log(out);
	ck_assert_msg(rc == 0, "record exited %d", rc);
	ck_assert_msg(run.after >= 0, "the target (%s) did not finish", what);
	ck_assert_msg(run.worst < 1.0, "status took %.3f s", run.worst);
	ck_assert_msg(run.after <= 10.0, "the client ended %.2f s after the target", run.after);
	ck_assert_msg(run.max_fds <= fd_ceiling, "the daemon had %u fds open", run.max_fds);
	ck_assert_msg(fxt_whole(out, &mmaps, &counters), "%s is not whole", out);
	ck_assert_int_gt(counters, 0);
}

/* progs/name with arg1 and arg2 (NULL: none), then the file it makes as it ends. */
static void check_prog_through_daemon(const char *what, const char *name, const char *arg1,
				      const char *arg2)
{
	char done[PATH_MAX], prog[PATH_MAX];
	const char *args[] = {prog, arg1, arg2 ? arg2 : done, arg2 ? done : NULL, NULL};

	snprintf(done, sizeof(done), "%s/%s.done", tmpdir, name);
	snprintf(prog, sizeof(prog), "%s/%s", progs, name);
	check_through_daemon(what, name, args, done);
}

START_TEST(test_exec_loop_through_daemon)
{
	check_prog_through_daemon("exec loop of " EXECS, "execloop", EXECS, NULL);
}
END_TEST

/* SIGTERM to a daemon whose session records an exec loop: it stops within 2 s. */
START_TEST(test_exec_loop_sigterm)
{
	struct live_daemon d2 = {.name = "term"};
	char out[PATH_MAX], prog[PATH_MAX];
	const char *args[] = {prog, EXECS, NULL};
	pid_t rec;
	double t0;
	int rc;

	snprintf(out, sizeof(out), "%s/term.fxt", tmpdir);
	snprintf(prog, sizeof(prog), "%s/execloop", progs);
	ck_assert_int_gt(live_daemon_start(&d2), 0);
	rec = start_record(d2.sock, out, args);
	live_msleep(2000);
	t0 = now_s();
	rc = live_daemon_stop(d2.pid, 20000);
	t0 = now_s() - t0;
	kill(-rec, SIGKILL);
	waitpid(rec, NULL, 0);
	fprintf(stderr, "SIGTERM stopped the daemon in %.3f s in an exec loop's session\n", t0);
	ck_assert_msg(rc >= 0 && rc != 128 + SIGKILL && t0 <= 2.0,
		      "the daemon took %.2f s to stop on SIGTERM", t0);
}
END_TEST

/* As root without the daemon: record ends within 5 s of the target's exit. */
START_TEST(test_exec_loop_root)
{
	char out[PATH_MAX], done[PATH_MAX], prog[PATH_MAX];
	const char *args[] = {prog, EXECS, done, NULL};
	double t0 = now_s(), done_at = 0, after;
	long mmaps, counters;
	pid_t rec;
	int rc = -1;

	snprintf(out, sizeof(out), "%s/root.fxt", tmpdir);
	snprintf(done, sizeof(done), "%s/root.done", tmpdir);
	snprintf(prog, sizeof(prog), "%s/execloop", progs);
	rec = start_record(NULL, out, args);
	while (now_s() - t0 < 100 && (rc = exited(rec)) < 0) {
		if (!done_at && !access(done, F_OK))
			done_at = now_s();
		live_msleep(20);
	}
	if (rc < 0)
		kill(-rec, SIGKILL), waitpid(rec, NULL, 0);
	if (!done_at && !access(done, F_OK))
		done_at = now_s();
	after = done_at ? now_s() - done_at : -1;
	fprintf(stderr, "exec loop of " EXECS " as root: record done %.2f s after the target\n",
		after);
	show_log(out);
	ck_assert_msg(rc == 0, "record exited %d", rc);
	ck_assert_msg(after >= 0 && after <= 5.0, "record ended %.2f s after the target", after);
	ck_assert_msg(fxt_whole(out, &mmaps, &counters), "%s is not whole", out);
}
END_TEST

START_TEST(test_many_maps_through_daemon)
{
	check_prog_through_daemon("200,000 mappings", "manymaps", "200000", "30000");
}
END_TEST

/*
 * 2,500 distinct files mapped, each a module of its own: the daemon does not
 * hold an fd per module waiting for its table (CFI_TABLES_MAX_FDS), so its
 * fds stay under its ceiling (past the soft limit of 1,024, it would lose
 * its clients' connections), and the copies' frames are named.
 */
START_TEST(test_many_files_through_daemon)
{
	char dir[PATH_MAX], done[PATH_MAX], prog[PATH_MAX], src[PATH_MAX], cmd[3 * PATH_MAX];
	const char *args[] = {prog, src, dir, "2500", done, NULL};
	char out[PATH_MAX + 16];

	snprintf(dir, sizeof(dir), "%s/copies", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0777), 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	snprintf(done, sizeof(done), "%s/manyfiles.done", tmpdir);
	snprintf(prog, sizeof(prog), "%s/manyfiles", progs);
	snprintf(src, sizeof(src), "%s/libnoid.so", progs);
	check_through_daemon("2,500 distinct files", "manyfiles", args, done);
	snprintf(out, sizeof(out), "%s/manyfiles.fxt", tmpdir);
	snprintf(cmd, sizeof(cmd), "%s report --top 5 %s | grep -q 'work \\[manyfiles\\]'", bin,
		 out);
	ck_assert_msg(live_run_cmd(cmd) == 0, "manyfiles' own frames were not named");
	snprintf(cmd, sizeof(cmd), "grep -q 'unwind tables: [0-9][0-9][0-9][0-9] modules' %s.log",
		 out);
	ck_assert_msg(live_run_cmd(cmd) == 0, "fewer than 1,000 modules in the summary");
}
END_TEST

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc;

	/* one case each, so that one can be run alone (CK_RUN_CASE) */
	tc = tcase_create("exec");
	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, test_exec_loop_through_daemon);
	suite_add_tcase(s, tc);
	tc = tcase_create("sigterm");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exec_loop_sigterm);
	suite_add_tcase(s, tc);
	tc = tcase_create("maps");
	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, test_many_maps_through_daemon);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, test_many_files_through_daemon);
	suite_add_tcase(s, tc);
	tc = tcase_create("root");
	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, test_exec_loop_root);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return live_suite_main(&suite, hostile_suite);
}
