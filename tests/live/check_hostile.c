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
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fxt/fxt_reader.h"
#include "live_daemon.h"
#include "check_main.h"

#define TEST_USER "fxs-hostile-user"
#define EXECS	  "5000"

static char fxs_bin[PATH_MAX], daemon_bin[PATH_MAX], progs_dir[PATH_MAX];
static char dir[64], sock[128];
static pid_t daemon_pid;
static uid_t user_uid;
static gid_t user_gid;
static bool user_created;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "check_hostile: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(EXIT_FAILURE);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* sh -c cmd in a child (its own process group, killed with the test); its pid. */
static pid_t spawn_sh(const char *cmd)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
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
		 fxs_bin);
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
 * The user records `prog args` through the daemon on socket s into out; status
 * is asked every 250 ms until the client exits (or max_s). Returns the client's
 * exit status; *ret_worst the slowest status, *ret_after how long after done
 * (a file the target creates as it ends) the client exited.
 */
static int record_hostile(const char *s, const char *out, const char *args, const char *done,
			  double max_s, double *ret_worst, double *ret_after, unsigned *ret_checks)
{
	char cmd[3 * PATH_MAX];
	double t0 = now_s(), done_at = 0, worst = 0;
	pid_t rec;
	int rc = -1;

	snprintf(cmd, sizeof(cmd),
		 "exec setpriv --reuid=%u --regid=%u --clear-groups %s record --socket %s -o %s "
		 "-- %s >%s.log 2>&1 </dev/null",
		 (unsigned)user_uid, (unsigned)user_gid, fxs_bin, s, out, args, out);
	rec = spawn_sh(cmd);
	*ret_checks = 0;
	while (now_s() - t0 < max_s) {
		double took = status_s(s);

		(*ret_checks)++;
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
	*ret_worst = worst;
	*ret_after = done_at ? now_s() - done_at : -1;
	return rc;
}

static void show_log(const char *out)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "cat %s.log >&2", out);
	live_run_cmd(cmd);
}

START_TEST(test_exec_loop_through_daemon)
{
	char out[192], done[192], args[PATH_MAX + 256];
	double worst, after;
	unsigned checks;
	long mmaps, counters;
	int rc;

	snprintf(out, sizeof(out), "%s/execloop.fxt", dir);
	snprintf(done, sizeof(done), "%s/execloop.done", dir);
	snprintf(args, sizeof(args), "%s/execloop " EXECS " %s", progs_dir, done);
	rc = record_hostile(sock, out, args, done, 100, &worst, &after, &checks);
	fprintf(stderr,
		"exec loop of " EXECS " through the daemon: %u status checks, the slowest %.3f s; "
		"the client done %.2f s after the target\n",
		checks, worst, after);
	show_log(out);
	ck_assert_msg(rc == 0, "record exited %d", rc);
	ck_assert_msg(after >= 0, "the target did not finish its " EXECS " execs");
	ck_assert_msg(worst < 1.0, "status took %.3f s", worst);
	ck_assert_msg(after <= 10.0, "the client ended %.2f s after the target", after);
	ck_assert_msg(fxt_whole(out, &mmaps, &counters), "%s is not whole", out);
	ck_assert_int_gt(counters, 0);
}
END_TEST

/* SIGTERM to a daemon whose session records an exec loop: it stops within 2 s. */
START_TEST(test_exec_loop_sigterm)
{
	char s2[160], log[192], out[192], cmd[3 * PATH_MAX];
	char *argv[] = {daemon_bin,	    (char *)"--socket",	 s2,
			(char *)"--config", (char *)"/dev/null", NULL};
	pid_t d2, rec;
	double t0;
	int st = 0, rc = -1;

	snprintf(s2, sizeof(s2), "%s/term.sock", dir);
	snprintf(log, sizeof(log), "%s/term.log", dir);
	snprintf(out, sizeof(out), "%s/term.fxt", dir);
	d2 = live_start_daemon(argv, s2, log);
	ck_assert_int_gt(d2, 0);
	snprintf(cmd, sizeof(cmd),
		 "exec setpriv --reuid=%u --regid=%u --clear-groups %s record --socket %s -o %s "
		 "-- %s/execloop " EXECS " >%s.log 2>&1 </dev/null",
		 (unsigned)user_uid, (unsigned)user_gid, fxs_bin, s2, out, progs_dir, out);
	rec = spawn_sh(cmd);
	live_msleep(2000);
	t0 = now_s();
	kill(d2, SIGTERM);
	while (now_s() - t0 < 20) {
		if (waitpid(d2, &st, WNOHANG) == d2) {
			rc = 0;
			break;
		}
		live_msleep(20);
	}
	t0 = now_s() - t0;
	if (rc)
		kill(d2, SIGKILL), waitpid(d2, NULL, 0);
	kill(-rec, SIGKILL);
	waitpid(rec, NULL, 0);
	fprintf(stderr, "SIGTERM stopped the daemon in %.3f s in an exec loop's session\n", t0);
	ck_assert_msg(rc == 0 && t0 <= 2.0, "the daemon took %.2f s to stop on SIGTERM", t0);
}
END_TEST

/* As root without the daemon: record ends within 5 s of the target's exit. */
START_TEST(test_exec_loop_root)
{
	char out[192], done[192], cmd[3 * PATH_MAX];
	double t0 = now_s(), done_at = 0, after;
	long mmaps, counters;
	pid_t rec;
	int rc = -1;

	snprintf(out, sizeof(out), "%s/root.fxt", dir);
	snprintf(done, sizeof(done), "%s/root.done", dir);
	snprintf(cmd, sizeof(cmd),
		 "exec %s record -o %s -- %s/execloop " EXECS " %s >%s.log 2>&1 </dev/null",
		 fxs_bin, out, progs_dir, done, out);
	rec = spawn_sh(cmd);
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
	char out[192], done[192], args[PATH_MAX + 256];
	double worst, after;
	unsigned checks;
	long mmaps, counters;
	int rc;

	snprintf(out, sizeof(out), "%s/manymaps.fxt", dir);
	snprintf(done, sizeof(done), "%s/manymaps.done", dir);
	snprintf(args, sizeof(args), "%s/manymaps 200000 30000 %s", progs_dir, done);
	rc = record_hostile(sock, out, args, done, 100, &worst, &after, &checks);
	fxt_whole(out, &mmaps, &counters);
	fprintf(stderr,
		"200,000 mappings through the daemon: %u status checks, the slowest %.3f s; "
		"the client done %.2f s after the target, %ld mmap records\n",
		checks, worst, after, mmaps);
	show_log(out);
	ck_assert_msg(rc == 0, "record exited %d", rc);
	ck_assert_msg(after >= 0, "the target did not finish");
	ck_assert_msg(worst < 1.0, "status took %.3f s", worst);
	ck_assert_msg(after <= 10.0, "the client ended %.2f s after the target", after);
	ck_assert_msg(fxt_whole(out, &mmaps, &counters), "%s is not whole", out);
	ck_assert_int_gt(counters, 0);
}
END_TEST

static void suite_setup(void)
{
	const char *b = getenv("FXS_BIN"), *p = getenv("FXS_PROGS");
	char tmp[PATH_MAX], log[192];
	char *argv[] = {daemon_bin,	    (char *)"--socket",	 sock,
			(char *)"--config", (char *)"/dev/null", NULL};
	struct passwd *pw;

	if (!b || !*b || !p || !*p)
		die("FXS_BIN and FXS_PROGS must name the binary and the test programs");
	snprintf(fxs_bin, sizeof(fxs_bin), "%s", b);
	snprintf(progs_dir, sizeof(progs_dir), "%s", p);
	snprintf(tmp, sizeof(tmp), "%s", b);
	snprintf(daemon_bin, sizeof(daemon_bin), "%s/fxsamplerd", dirname(tmp));
	if (access(daemon_bin, X_OK))
		die("no fxsamplerd beside FXS_BIN");
	if (!getpwnam(TEST_USER)) {
		if (live_run_cmd("useradd --system --no-create-home --shell "
				 "/usr/sbin/nologin " TEST_USER))
			die("useradd " TEST_USER " failed");
		user_created = true;
	}
	pw = getpwnam(TEST_USER);
	if (!pw)
		die("no user " TEST_USER);
	user_uid = pw->pw_uid;
	user_gid = pw->pw_gid;
	strcpy(dir, "/tmp/fxs-hostile.XXXXXX");
	if (!mkdtemp(dir))
		die("mkdtemp failed");
	/* the user writes its captures here */
	chmod(dir, 0777);
	snprintf(sock, sizeof(sock), "%s/control.sock", dir);
	snprintf(log, sizeof(log), "%s/daemon.log", dir);
	daemon_pid = live_start_daemon(argv, sock, log);
	if (daemon_pid <= 0)
		die("fxsamplerd did not start, see %s", log);
}

static void suite_teardown(void)
{
	char cmd[256];

	kill(daemon_pid, SIGTERM);
	/* a daemon stuck in a hostile load must not hold the host's sampler */
	for (int i = 0; i < 100 && waitpid(daemon_pid, NULL, WNOHANG) != daemon_pid; i++)
		live_msleep(50);
	kill(daemon_pid, SIGKILL);
	waitpid(daemon_pid, NULL, 0);
	if (user_created)
		live_run_cmd("userdel " TEST_USER);
	if (getenv("FXS_KEEP")) {
		fprintf(stderr, "kept %s\n", dir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	live_run_cmd(cmd);
}

int main(void)
{
	Suite *s;
	TCase *tc;
	int status;

	if (geteuid() != 0) {
		printf("SKIP: check_hostile needs root (BPF, fxsamplerd, useradd); NOT RUN\n");
		return EXIT_SUCCESS;
	}
	suite_setup();
	s = suite_create("hostile");
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
	tc = tcase_create("root");
	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, test_exec_loop_root);
	suite_add_tcase(s, tc);
	status = check_run(s);
	suite_teardown();
	return status;
}
