// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live tests of Python frames (record --python, issue 36) on Debian 12's own
 * /usr/bin/python3.11, each script written here and run under record:
 *  - three functions spinning in a designed 50/30/20 split: each function's
 *    share of the main thread's samples within 2 points of the design and of
 *    the thread's own CPU time in it (CLOCK_THREAD_CPUTIME_ID),
 *    Python frames in >= 99 % of them, Py_RunMain below in >= 95 %, the chain
 *    <module> -> work -> alpha|beta|gamma -> spin right inside the eval frame;
 *  - three threading.Threads, each in its own function: each function in its
 *    own thread's stacks only;
 *  - sorted(key=lambda ...): the callback's frames inside sorted's native ones,
 *    inside its caller's;
 *  - a recursion 1,000 frames deep: cut at the walk's bound, marked, counted;
 *  - off-CPU: a thread in time.sleep inside waiter_fn, one reading a socket in
 *    reader_fn: each function in its own thread's off-CPU stacks;
 *  - --python=off: no Python frame.
 * Stacks are read as report --folded prints them (outermost first).
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live.h"
#include "live_python.h"

static void setup(void)
{
	live_make_dir("/tmp/fxs-live-python-XXXXXX");
}

static void teardown(void)
{
	live_remove_dir();
}

/* ---- 50/30/20 ---- */

/*
 * Lines: report --top --lines puts spin's loop line (4) first of the Python
 * rows, and go tool pprof -list spin lands on it.
 */
static void check_lines(const char *fxt, const char *tid)
{
	char cmd[1200], buf[512], *row = NULL, *save;
	struct run *r = calloc(1, sizeof(*r));
	bool listed = false;
	FILE *p;

	ck_assert_ptr_nonnull(r);
	RUN(r, "report", fxt, "--tid", tid, "--top", "10", "--lines", "--pprof",
	    out_path("split.pb.gz"));
	ck_assert_msg(exit_code(r) == 0, "report --lines: %s", r->err);
	for (char *l = strtok_r(r->out, "\n", &save); l && !row; l = strtok_r(NULL, "\n", &save))
		if (strstr(l, ".py:"))
			row = l;
	printf("python lines: the first Python row: %s\n", row ? row : "(none)");
	fflush(stdout);
	ck_assert_msg(row && strstr(row, "split.py:4 ") && strstr(row, " spin "),
		      "the first Python row is not spin's loop line: %s", row ? row : "(none)");
	free(r);
	if (system("command -v go >/dev/null 2>&1"))
		ck_abort_msg("go is not installed: run 'make deps' (golang-go)");
	snprintf(cmd, sizeof(cmd), "HOME=%s GOCACHE=%s/go go tool pprof -list '^spin$' '%s' 2>&1",
		 tmpdir, tmpdir, out_path("split.pb.gz"));
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	/* "     1.12s      5.73s      4:    while pc() < deadline:" */
	while (fgets(buf, sizeof(buf), p))
		if (strstr(buf, " 4:    while pc() < deadline:") && !strstr(buf, "  .      "))
			listed = true;
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(listed, "go tool pprof -list spin does not land on line 4");
}

START_TEST(test_split)
{
	char *script = out_path("split.py"), *fxt = out_path("split.fxt"), *text, *line, *save;
	unsigned long alpha = 0, beta = 0, gamma = 0, all = 0, py = 0, below = 0, chain = 0, t[4],
		      n;
	const double want[3] = {50, 30, 20};
	double s, in[3], got[3];
	char tid[16];
	unsigned pid;
	FILE *f;

	write_file(script, split_py);
	record_python(fxt, NULL, script, "6");
	f = fopen(out_path("truth"), "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%u %lu %lu %lu %lu", &pid, &t[0], &t[1], &t[2], &t[3]), 5);
	fclose(f);
	snprintf(tid, sizeof(tid), "%u", pid);
	text = folded(fxt, tid, "split.folded");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = line_count(line);
		all += n;
		py += n * has_frame(line, "<module>");
		below += n * has_frame(line, "Py_RunMain");
		alpha += n * has_frame(line, "alpha");
		beta += n * has_frame(line, "beta");
		gamma += n * has_frame(line, "gamma");
		chain += n * (strstr(line, "_PyEval_EvalFrameDefault;<module>;work;alpha;spin") ||
			      strstr(line, "_PyEval_EvalFrameDefault;<module>;work;beta;spin") ||
			      strstr(line, "_PyEval_EvalFrameDefault;<module>;work;gamma;spin"));
	}
	free(text);
	s = (double)(t[0] + t[1] + t[2] + t[3]);
	for (int i = 0; i < 3; i++)
		in[i] = 100.0 * t[i] / s;
	got[0] = 100.0 * alpha / all;
	got[1] = 100.0 * beta / all;
	got[2] = 100.0 * gamma / all;

	printf("python split: %lu samples of the main thread: alpha %.1f%% beta %.1f%% gamma "
	       "%.1f%% (its CPU clock, %.2f s: %.1f%% %.1f%% %.1f%%); Python frames "
	       "%.2f%%, Py_RunMain below %.2f%%, whole chain %.2f%%\n",
	       all, got[0], got[1], got[2], s / 1e9, in[0], in[1], in[2], 100.0 * py / all,
	       100.0 * below / all, 100.0 * chain / all);
	fflush(stdout);
	ck_assert_msg(all >= 3000, "%lu samples of the main thread", all);
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(got[i] > want[i] - 2 && got[i] < want[i] + 2,
			      "function %d: %.1f%% against the design's %.0f%%", i, got[i],
			      want[i]);
		ck_assert_msg(got[i] > in[i] - 2 && got[i] < in[i] + 2,
			      "function %d: %.1f%% against its CPU clock's %.1f%%", i, got[i],
			      in[i]);
	}
	ck_assert_msg(py * 100 >= all * 99, "%lu of %lu with Python frames", py, all);
	ck_assert_msg(below * 100 >= all * 95, "%lu of %lu with Py_RunMain below", below, all);
	ck_assert_msg(chain * 100 >= all * 90, "%lu of %lu with the whole chain", chain, all);
	check_lines(fxt, tid);
}
END_TEST

/* ---- threads ---- */

static const char threads_py[] =
	"import os, sys, threading, time\n"
	"def spin(seconds):\n"
	"    end = time.perf_counter() + seconds\n"
	"    while time.perf_counter() < end:\n"
	"        pass\n"
	"ids = {}\n"
	"def t_one():\n"
	"    ids['t_one'] = threading.get_native_id()\n"
	"    spin(2)\n"
	"def t_two():\n"
	"    ids['t_two'] = threading.get_native_id()\n"
	"    spin(2)\n"
	"def t_three():\n"
	"    ids['t_three'] = threading.get_native_id()\n"
	"    spin(2)\n"
	"ts = [threading.Thread(target=f) for f in (t_one, t_two, t_three)]\n"
	"for t in ts: t.start()\n"
	"for t in ts: t.join()\n"
	"with open(os.path.join(os.path.dirname(sys.argv[0]), 'tids'), 'w') as out:\n"
	"    for k in ('t_one', 't_two', 't_three'):\n"
	"        out.write('%s %d\\n' % (k, ids[k]))\n";

START_TEST(test_threads)
{
	static const char *const fns[3] = {"t_one", "t_two", "t_three"};
	char *script = out_path("threads.py"), *fxt = out_path("threads.fxt");
	char name[16], tid[3][16];
	FILE *f;

	write_file(script, threads_py);
	record_python(fxt, NULL, script, "x");
	f = fopen(out_path("tids"), "r");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(fscanf(f, "%15s %15s", name, tid[i]), 2);
		ck_assert_str_eq(name, fns[i]);
	}
	fclose(f);
	for (int i = 0; i < 3; i++) {
		char *text = folded(fxt, tid[i], "threads.folded"), *line, *save;
		unsigned long own = 0, other = 0, all = 0, n;

		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			n = line_count(line);
			all += n;
			for (int k = 0; k < 3; k++) {
				if (has_frame(line, fns[k]))
					*(k == i ? &own : &other) += n;
			}
		}
		free(text);
		printf("python threads: %s (tid %s): %lu of %lu samples in it, %lu in another's\n",
		       fns[i], tid[i], own, all, other);
		fflush(stdout);
		ck_assert_msg(all > 100 && own * 100 >= all * 95, "%s: %lu of %lu", fns[i], own,
			      all);
		ck_assert_msg(other == 0, "%s: %lu samples name another thread's function", fns[i],
			      other);
	}
}
END_TEST

/* ---- C calling back into Python ---- */

static const char callback_py[] = "import os, sys, time\n"
				  "def delta(v):\n"
				  "    x = 0\n"
				  "    for i in range(20):\n"
				  "        x += i * v\n"
				  "    return x\n"
				  "def outer():\n"
				  "    return sorted(range(2000), key=lambda v: delta(v))\n"
				  "end = time.perf_counter() + float(sys.argv[1])\n"
				  "while time.perf_counter() < end:\n"
				  "    outer()\n";

START_TEST(test_callback)
{
	char *script = out_path("callback.py"), *fxt = out_path("callback.fxt"), *text, *line,
	     *save;
	unsigned long in_delta = 0, ordered = 0, unpaired = 0, all = 0, n;

	write_file(script, callback_py);
	record_python(fxt, NULL, script, "2");
	text = folded(fxt, NULL, "callback.folded");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *o, *s, *l, *d;

		n = line_count(line);
		all += n;
		if (!has_frame(line, "delta"))
			continue;
		in_delta += n;
		/* outer, then sorted's native frames, then the eval loop, the lambda, delta */
		o = strstr(line, ";_PyEval_EvalFrameDefault;<module>;outer;");
		s = o ? strstr(o, ";PyObject_CallOneArg;") : NULL;
		l = s ? strstr(s, ";_PyEval_EvalFrameDefault;outer.<locals>.<lambda>;delta") : NULL;
		d = strstr(line, ";delta");
		ordered += n * (o && s && l && d > l);
		unpaired += n * (strstr(line, "[python: frames below not paired]") != NULL);
	}
	free(text);
	printf("python callback: %lu of %lu samples in delta in order (outer, sorted's native "
	       "frames, lambda, delta); %lu of %lu samples marked unpaired\n",
	       ordered, in_delta, unpaired, all);
	fflush(stdout);
	/* a call caught between its frame and its eval loop is marked, and rare */
	ck_assert_msg(unpaired * 100 <= all, "%lu of %lu unpaired", unpaired, all);
	ck_assert_msg(in_delta > 200, "%lu samples in delta", in_delta);
	ck_assert_msg(ordered * 100 >= in_delta * 95, "%lu of %lu in order", ordered, in_delta);
}
END_TEST

/* ---- a deep recursion ---- */

static const char deep_py[] = "import sys, time\n"
			      "sys.setrecursionlimit(5000)\n"
			      "def down(n, end):\n"
			      "    if n:\n"
			      "        return down(n - 1, end)\n"
			      "    while time.perf_counter() < end:\n"
			      "        pass\n"
			      "down(1000, time.perf_counter() + float(sys.argv[1]))\n";

START_TEST(test_deep)
{
	char *script = out_path("deep.py"), *fxt = out_path("deep.fxt"), *text, *line, *save;
	unsigned long cut = 0, deep = 0, n;
	struct capture_file *f;
	const struct counter *c;

	write_file(script, deep_py);
	record_python(fxt, NULL, script, "1.5");
	text = folded(fxt, NULL, "deep.folded");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = line_count(line);
		if (!strstr(line, ";down;down;down"))
			continue;
		deep += n;
		/* the cut is marked where the missing frames would be, outside the kept ones */
		cut += n * (strstr(line, "[python: deeper frames cut];down;down") != NULL);
	}
	free(text);
	f = load(fxt);
	c = counter(f, "python");
	ck_assert_msg(c != NULL, "no python counters in the file");
	printf("python deep: %lu samples in the recursion, %lu marked cut; counters: %lu "
	       "truncated, %lu frames\n",
	       deep, cut, (unsigned long)counter_value(c, "end_truncated"),
	       (unsigned long)counter_value(c, "frames"));
	fflush(stdout);
	ck_assert_msg(deep > 500 && cut * 100 >= deep * 99, "%lu of %lu marked", cut, deep);
	ck_assert_uint_ge(counter_value(c, "end_truncated"), deep);
	unload(f);
}
END_TEST

START_TEST(test_off)
{
	char *script = out_path("split.py"), *fxt = out_path("off.fxt"), *text;
	struct capture_file *f;

	write_file(script, split_py);
	record_python(fxt, "--python=off", script, "1");
	text = folded(fxt, NULL, "off.folded");
	ck_assert_msg(!strstr(text, ";spin") && !strstr(text, "<module>"), "Python frames: %.300s",
		      strstr(text, "spin") ?: text);
	ck_assert_msg(strstr(text, "_PyEval_EvalFrameDefault") != NULL, "no eval frames at all");
	free(text);
	f = load(fxt);
	ck_assert_ptr_null(counter(f, "python"));
	unload(f);
}
END_TEST

/* ---- off-CPU ---- */

static const char offcpu_py[] =
	"import socket, threading, time\n"
	"def waiter_fn():\n"
	"    end = time.monotonic() + 1.5\n"
	"    while time.monotonic() < end:\n"
	"        time.sleep(0.05)\n"
	"def reader_fn(sock):\n"
	"    while sock.recv(16):\n"
	"        pass\n"
	"a, b = socket.socketpair()\n"
	"ts = [threading.Thread(target=waiter_fn), threading.Thread(target=reader_fn, args=(b,))]\n"
	"for t in ts: t.start()\n"
	"for i in range(30):\n"
	"    time.sleep(0.05)\n"
	"    a.send(b'x')\n"
	"a.close()\n"
	"for t in ts: t.join()\n";

/* The waiting threads' Python functions in report --off-cpu's stacks, each in its own. */
START_TEST(test_offcpu)
{
	char *script = out_path("offcpu.py"), *fxt = out_path("offcpu.fxt"), *text, *line, *save;
	char *path = out_path("offcpu.folded"), *argv[8];
	unsigned long long waiter = 0, reader = 0, both = 0, n;
	int fd, st;
	pid_t p;

	write_file(script, offcpu_py);
	record_python(fxt, "--off-cpu", script, "x");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	argv[0] = (char *)bin;
	argv[1] = (char *)"report";
	argv[2] = fxt;
	argv[3] = (char *)"--off-cpu";
	argv[4] = (char *)"--folded";
	argv[5] = (char *)"--no-thread-frames";
	argv[6] = NULL;
	p = spawn_io(argv, fd, -1);
	close(fd);
	waitpid(p, &st, 0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "report --off-cpu failed");
	text = slurp(path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = line_count(line);
		waiter += n * has_frame(line, "waiter_fn");
		reader += n * has_frame(line, "reader_fn");
		both += n * (has_frame(line, "waiter_fn") && has_frame(line, "reader_fn"));
	}
	free(text);
	printf("python off-CPU: waiter_fn %.2f s, reader_fn %.2f s off the CPU\n", waiter / 1e9,
	       reader / 1e9);
	fflush(stdout);
	ck_assert_msg(waiter > 1000000000ULL, "waiter_fn: %llu ns", waiter);
	ck_assert_msg(reader > 1000000000ULL, "reader_fn: %llu ns", reader);
	ck_assert_uint_eq(both, 0);
}
END_TEST

static Suite *python_suite(void)
{
	Suite *s = suite_create("python-live");
	TCase *tc = tcase_create("python");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_callback);
	tcase_add_test(tc, test_deep);
	tcase_add_test(tc, test_offcpu);
	tcase_add_test(tc, test_off);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!live_python_can_run("check_python"))
		return EXIT_SUCCESS;
	return live_main(python_suite());
}
