// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live tests of CPython 3.13 (issue 36's python3.13, issue 35's -X perf) on
 * Debian 13's own python3.13, run with chroot in a minimal trixie root
 * (tests/python/root313.sh, made once per machine by make check-live as
 * $(FXS_CACHE)/py313-root, FXS_PY313_ROOT): the host's kernel runs it, so
 * the host's sampler profiles it for real, and fxsampler reads its files
 * through /proc/PID/map_files and its perf map through /proc/PID/root.
 *  - split: check_python's 50/30/20 script: each function's share of the main
 *    thread's samples within 2 points of the design and of the thread's own
 *    CPU time in it, Python frames in >= 99 % of them, Py_RunMain below in
 *    >= 95 %, the chain <module> -> work -> alpha|beta|gamma -> spin right
 *    inside the eval frame in >= 90 %, and report --top --lines puts spin's
 *    loop line first;
 *  - perf: the same script under python3.13 -X perf with --python=off (the
 *    perf map alone, as perf report has it): spin's trampoline named
 *    py::spin:/tmp/.../split.py from the root's /tmp in >= 95 % of the
 *    samples, anon+ frames <= 2 %. The callers' trampolines are not reached:
 *    the native walk ends at the innermost trampoline (Debian's python3.13
 *    has no frame pointers), so no per-function share is checked here.
 * The report names the root's native frames through a build-id tree of its
 * python3.13 and libc (--debug-dir): it reads files by path otherwise.
 * Stacks are read as report --folded prints them (outermost first).
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live.h"
#include "live_python.h"

static char root[200];
static const char *inroot; /* tmpdir as python3.13 in the root sees it */

static void setup(void)
{
	char t[300];

	snprintf(t, sizeof(t), "%s/tmp/fxs-live-py313-XXXXXX", root);
	live_make_dir(t);
	inroot = tmpdir + strlen(root);
}

static void teardown(void)
{
	live_remove_dir();
}

/* record [extra] -o out -- chroot ROOT python3.13 [xopt] script arg */
static void record_313(const char *out, const char *extra, const char *xopt, const char *script,
		       const char *arg)
{
	struct run *r = calloc(1, sizeof(*r));
	char in[300];

	ck_assert_ptr_nonnull(r);
	snprintf(in, sizeof(in), "%s/%s", inroot, script);
	if (xopt)
		RUN(r, "record", extra, "-o", out, "--", "chroot", root, "/usr/bin/python3.13",
		    "-X", xopt, in, arg);
	else
		RUN(r, "record", extra, "-o", out, "--", "chroot", root, "/usr/bin/python3.13", in,
		    arg);
	ck_assert_msg(exit_code(r) == 0, "record: %s", r->err);
	free(r);
}

/*
 * The report reads ELF files by path or, in --debug-dir, by build id: the
 * root's python3.13 and libc are not at their paths on this machine, so a
 * build-id tree of them in tmpdir/dbg names their native frames.
 */
static void make_debug_dir(void)
{
	char cmd[1200];

	snprintf(
		cmd, sizeof(cmd),
		"set -e; for f in '%s/usr/bin/python3.13' '%s/usr/lib/x86_64-linux-gnu/libc.so.6'; "
		"do id=$(readelf -n \"$f\" | awk '/Build ID/ { print $3 }'); "
		"d='%s/dbg/.build-id/'$(echo $id | cut -c1-2); mkdir -p \"$d\"; "
		"ln -sf \"$f\" \"$d/$(echo $id | cut -c3-).debug\"; done",
		root, root, tmpdir);
	ck_assert_msg(system(cmd) == 0, "could not make the build-id tree: %s", cmd);
}

/* report FILE --folded --no-thread-frames --tid T --debug-dir tmpdir/dbg into tmpdir/name */
static char *folded313(const char *fxt, const char *tid, const char *name)
{
	char *path = out_path(name), *dbg = out_path("dbg");
	const char *argv[] = {bin,     "report", fxt,		"--folded", "--no-thread-frames",
			      "--tid", tid,	 "--debug-dir", dbg,	    "--no-debuginfod",
			      NULL};
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), st;
	pid_t p;

	ck_assert_int_ge(fd, 0);
	p = spawn_io((char **)argv, fd, -1);
	close(fd);
	ck_assert_int_gt(p, 0);
	waitpid(p, &st, 0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "report --folded failed");
	return slurp(path);
}

struct truth {
	unsigned pid;
	double share[3]; /* of the main thread's CPU time, by its own clock */
	double n;	 /* that CPU time, ns */
};

static void read_truth(struct truth *t)
{
	unsigned long c[4];
	FILE *f = fopen(out_path("truth"), "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%u %lu %lu %lu %lu", &t->pid, &c[0], &c[1], &c[2], &c[3]), 5);
	fclose(f);
	t->n = (double)(c[0] + c[1] + c[2] + c[3]);
	for (int i = 0; i < 3; i++)
		t->share[i] = 100.0 * c[i] / t->n;
}

static const char *const fns[3] = {"alpha", "beta", "gamma"};
static const double want[3] = {50, 30, 20};

START_TEST(test_split)
{
	char *fxt = out_path("split.fxt"), *text, *line, *save, tid[16], chain_want[3][80];
	unsigned long all = 0, py = 0, below = 0, chain = 0, fn[3] = {0}, n;
	struct run *r = calloc(1, sizeof(*r));
	char *row = NULL;
	double got[3];
	struct truth t;

	ck_assert_ptr_nonnull(r);
	write_file(out_path("split.py"), split_py);
	record_313(fxt, "--python=on", NULL, "split.py", "6");
	read_truth(&t);
	snprintf(tid, sizeof(tid), "%u", t.pid);
	for (int i = 0; i < 3; i++)
		snprintf(chain_want[i], sizeof(chain_want[i]),
			 "_PyEval_EvalFrameDefault;<module>;work;%s;spin", fns[i]);
	make_debug_dir();
	text = folded313(fxt, tid, "split.folded");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = line_count(line);
		all += n;
		py += n * has_frame(line, "<module>");
		below += n * has_frame(line, "Py_RunMain");
		for (int i = 0; i < 3; i++) {
			fn[i] += n * has_frame(line, fns[i]);
			chain += n * (strstr(line, chain_want[i]) != NULL);
		}
	}
	free(text);
	ck_assert_msg(all > 0, "no samples of the main thread");
	for (int i = 0; i < 3; i++)
		got[i] = 100.0 * fn[i] / all;
	printf("python3.13 split: %lu samples of the main thread: alpha %.1f%% beta %.1f%% gamma "
	       "%.1f%% (its CPU clock, %.2f s: %.1f%% %.1f%% %.1f%%); Python frames "
	       "%.2f%%, Py_RunMain below %.2f%%, whole chain %.2f%%\n",
	       all, got[0], got[1], got[2], t.n / 1e9, t.share[0], t.share[1], t.share[2],
	       100.0 * py / all, 100.0 * below / all, 100.0 * chain / all);
	fflush(stdout);
	ck_assert_msg(all >= 3000, "%lu samples of the main thread", all);
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(got[i] > want[i] - 2 && got[i] < want[i] + 2,
			      "%s: %.1f%% against the design's %.0f%%", fns[i], got[i], want[i]);
		ck_assert_msg(got[i] > t.share[i] - 2 && got[i] < t.share[i] + 2,
			      "%s: %.1f%% against its CPU clock's %.1f%%", fns[i], got[i],
			      t.share[i]);
	}
	ck_assert_msg(py * 100 >= all * 99, "%lu of %lu with Python frames", py, all);
	/*
	 * issue 36: 53-54 % in 2 of 5 runs when the vdso's image was read from
	 * chroot as it exec'd python3.13: no vdso table, every stack through
	 * clock_gettime's vdso code cut in its caller (mapped_file.c).
	 */
	ck_assert_msg(below * 100 >= all * 95, "%lu of %lu with Py_RunMain below", below, all);
	ck_assert_msg(chain * 100 >= all * 90, "%lu of %lu with the whole chain", chain, all);
	/* the hot line: spin's loop (split.py:4) first of the Python rows */
	RUN(r, "report", fxt, "--tid", tid, "--top", "10", "--lines", "--debug-dir",
	    out_path("dbg"), "--no-debuginfod");
	ck_assert_msg(exit_code(r) == 0, "report --lines: %s", r->err);
	for (line = strtok_r(r->out, "\n", &save); line && !row; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, ".py:"))
			row = line;
	printf("python3.13 lines: the first Python row: %s\n", row ? row : "(none)");
	fflush(stdout);
	ck_assert_msg(row && strstr(row, "split.py:4 ") && strstr(row, " spin "),
		      "the first Python row is not spin's loop line: %s", row ? row : "(none)");
	free(r);
}
END_TEST

START_TEST(test_perf_map)
{
	char *fxt = out_path("perf.fxt"), *text, *line, *save, tid[16], name[300], map[300];
	unsigned long all = 0, leaf = 0, py = 0, anon = 0, n;
	struct truth t;

	write_file(out_path("split.py"), split_py);
	record_313(fxt, "--python=off", "perf", "split.py", "4");
	read_truth(&t);
	/* the capture has read the map: the root's /tmp keeps no stale one */
	snprintf(map, sizeof(map), "%s/tmp/perf-%u.map", root, t.pid);
	unlink(map);
	snprintf(tid, sizeof(tid), "%u", t.pid);
	/* perf's name of spin's trampoline: py::FUNCTION:FILE, the file as the process named it */
	snprintf(name, sizeof(name), "py::spin:%s/split.py", inroot);
	make_debug_dir();
	text = folded313(fxt, tid, "perf.folded");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = line_count(line);
		all += n;
		py += n * (strstr(line, "py::") != NULL);
		anon += n * (strstr(line, "anon+") != NULL);
		leaf += n * (strstr(line, name) != NULL);
	}
	free(text);
	printf("python3.13 -X perf: %lu samples of the main thread: %s in %.2f%%, a py:: frame in "
	       "%.2f%%, anon+ in %.2f%%\n",
	       all, name, all ? 100.0 * leaf / all : 0, all ? 100.0 * py / all : 0,
	       all ? 100.0 * anon / all : 0);
	fflush(stdout);
	ck_assert_msg(all >= 1500, "%lu samples of the main thread", all);
	/* spin runs ~all of the time: its trampoline is on the stack that long */
	ck_assert_msg(leaf * 100 >= all * 95, "%lu of %lu name %s", leaf, all, name);
	ck_assert_msg(anon * 100 <= all * 2, "%lu of %lu samples with an anon+ frame", anon, all);
}
END_TEST

static Suite *py313_suite(void)
{
	Suite *s = suite_create("python313-live");
	TCase *tc;

	tc = tcase_create("split");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_split);
	suite_add_tcase(s, tc);
	tc = tcase_create("perf");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_perf_map);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *r = getenv("FXS_PY313_ROOT");
	char py[300];

	if (!live_python_can_run("check_python313"))
		return EXIT_SUCCESS;
	snprintf(root, sizeof(root), "%s", r && *r ? r : "/var/cache/fxsampler/py313-root");
	snprintf(py, sizeof(py), "%s/usr/bin/python3.13", root);
	if (access(py, X_OK)) {
		printf("SKIP: check_python313 needs Debian 13's python3.13 in %s "
		       "(tests/python/root313.sh; make check-live makes it); NOT RUN\n",
		       root);
		return EXIT_SUCCESS;
	}
	return live_main(py313_suite());
}
