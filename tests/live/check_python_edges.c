// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live tests of Python frames at their edges (issue 36's "must show", beside
 * check_python.c), on Debian 12's /usr/bin/python3.11:
 *  - through fxsamplerd as an unprivileged user (nobody): the 50/30/20
 *    split's functions named as in root's own record, each share within 2
 *    points of root's, every code object read;
 *  - json.loads with an object_hook (a C extension calling back into
 *    Python): the hook inside _json's native frames, inside the Python
 *    caller's, in >= 95 % of its samples, the rest marked, none in another order;
 *  - short-lived: 100 runs of python3.11 -c with a 50 ms hot function under
 *    record -a: of the samples of the -c code's run, >= 90 % name it (its
 *    code objects are read as the samples arrive, while each process lives);
 *  - a program that only looks like Python (tests/progs/fakepy: a
 *    _PyRuntime of garbage, a frame chain that loops, one rewritten under
 *    the walk): bounded, no frame named after what it points at, each
 *    sample's end counted.
 */
#include <check.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live.h"
#include "live_python.h"

#define NOBODY 65534

static void setup(void)
{
	live_make_dir("/tmp/fxs-live-pyedges-XXXXXX");
}

static void teardown(void)
{
	live_remove_dir();
}

/* ---- through the daemon, as nobody ---- */

struct split {
	unsigned long all, fn[3], chain;
	double share[3];
};

/* The 50/30/20 split's shares among the samples of thread tid of fxt. */
static void split_of(const char *fxt, const char *tid, const char *name, struct split *s)
{
	static const char *const fns[3] = {"alpha", "beta", "gamma"};
	char *text = folded(fxt, tid, name), *line, *save, want[80];
	unsigned long n;

	memset(s, 0, sizeof(*s));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = line_count(line);
		s->all += n;
		for (int i = 0; i < 3; i++) {
			snprintf(want, sizeof(want),
				 "_PyEval_EvalFrameDefault;<module>;work;%s;spin", fns[i]);
			s->fn[i] += n * has_frame(line, fns[i]);
			s->chain += n * (strstr(line, want) != NULL);
		}
	}
	free(text);
	for (int i = 0; i < 3; i++)
		s->share[i] = s->all ? 100.0 * s->fn[i] / s->all : 0;
}

static unsigned truth_pid(void)
{
	FILE *f = fopen(out_path("truth"), "r");
	unsigned pid = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%u", &pid), 1);
	fclose(f);
	return pid;
}

/* record --daemon --socket sock [opt] -o out -- python3.11 script arg, as nobody. */
static void record_as_nobody(struct run *r, const char *sock, const char *opt, const char *out,
			     const char *script, const char *arg)
{
	int efd = temp_fd();
	pid_t p = fork();

	ck_assert_int_ge(p, 0);
	if (!p) {
		dup2(efd, 2);
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(126);
		live_die_with_parent();
		execl(bin, bin, "record", "--daemon", "--socket", sock, opt, "-o", out, "--",
		      PYTHON, script, arg, (char *)NULL);
		_exit(127);
	}
	collect(p, efd, r);
}

START_TEST(test_daemon_user)
{
	/* out_path()'s buffers rotate: the paths kept over the whole test are copies */
	char script[300], root_fxt[300], user_fxt[300], off_fxt[300], sock[300], tid[16], *text;
	struct split root, user;
	struct capture_file *f;
	const struct counter *c;
	struct run *r = calloc(1, sizeof(*r)), *off = calloc(1, sizeof(*off));
	pid_t d;
	int st;

	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(off);
	snprintf(script, sizeof(script), "%s", out_path("split.py"));
	snprintf(root_fxt, sizeof(root_fxt), "%s", out_path("root.fxt"));
	snprintf(user_fxt, sizeof(user_fxt), "%s", out_path("user.fxt"));
	snprintf(off_fxt, sizeof(off_fxt), "%s", out_path("off.fxt"));
	write_file(script, split_py);
	record_python(root_fxt, NULL, script, "3");
	snprintf(tid, sizeof(tid), "%u", truth_pid());
	split_of(root_fxt, tid, "root.folded", &root);
	/* root's truth file: nobody writes its own */
	unlink(out_path("truth"));

	d = live_start_tmp_daemon(sock, sizeof(sock));
	ck_assert_int_gt(d, 0);
	record_as_nobody(r, sock, "--python=on", user_fxt, script, "3");
	ck_assert_msg(exit_code(r) == 0, "record as nobody through the daemon: %s", r->err);
	snprintf(tid, sizeof(tid), "%u", truth_pid());
	/* --python=off crosses the socket too */
	unlink(out_path("truth"));
	record_as_nobody(off, sock, "--python=off", off_fxt, script, "0.5");
	kill(d, SIGTERM);
	waitpid(d, &st, 0);
	ck_assert_msg(exit_code(off) == 0, "record --python=off as nobody: %s", off->err);
	text = folded(off_fxt, NULL, "off.folded");
	ck_assert_msg(!strstr(text, "<module>") && strstr(text, "_PyEval_EvalFrameDefault"),
		      "--python=off through the daemon: %.300s", text);
	free(text);
	split_of(user_fxt, tid, "user.folded", &user);
	f = load(user_fxt);
	c = counter(f, "python");
	ck_assert_msg(c != NULL, "no python counters in the user's file");
	printf("python through the daemon as nobody: %lu samples: alpha %.1f%% beta %.1f%% gamma "
	       "%.1f%%, whole chain %.1f%%; root's record: %lu samples: %.1f%% %.1f%% %.1f%%, "
	       "chain %.1f%%; code objects %lu named, %lu unreadable\n",
	       user.all, user.share[0], user.share[1], user.share[2], 100.0 * user.chain / user.all,
	       root.all, root.share[0], root.share[1], root.share[2], 100.0 * root.chain / root.all,
	       (unsigned long)counter_value(c, "codes"),
	       (unsigned long)counter_value(c, "codes_failed"));
	fflush(stdout);
	text = strstr(r->err, "python: ");
	ck_assert_msg(text && strstr(text, "processes walked"), "no python summary: %s", r->err);
	ck_assert_msg(root.all > 1000 && user.all > 1000, "%lu and %lu samples", root.all,
		      user.all);
	ck_assert_msg(user.chain * 100 >= user.all * 90, "%lu of %lu with the whole chain",
		      user.chain, user.all);
	for (int i = 0; i < 3; i++)
		ck_assert_msg(user.share[i] > root.share[i] - 2 &&
				      user.share[i] < root.share[i] + 2,
			      "function %d: %.1f%% as nobody, %.1f%% as root", i, user.share[i],
			      root.share[i]);
	ck_assert_uint_gt(counter_value(c, "codes"), 5);
	/* 53 named, 4 not on the first run: a code object read after a change under it */
	ck_assert_msg(counter_value(c, "codes_failed") * 5 <= counter_value(c, "codes"),
		      "%lu code objects unreadable",
		      (unsigned long)counter_value(c, "codes_failed"));
	unload(f);
	free(r);
	free(off);
}
END_TEST

/* ---- json.loads(object_hook=...) ---- */

static const char json_py[] = "import json, sys, time\n"
			      "def hook(d):\n"
			      "    x = 0\n"
			      "    for i in range(40):\n"
			      "        x += i\n"
			      "    return d\n"
			      "def caller(text):\n"
			      "    return json.loads(text, object_hook=hook)\n"
			      "text = json.dumps([{'a': i, 'b': [i, i]} for i in range(2000)])\n"
			      "end = time.perf_counter() + float(sys.argv[1])\n"
			      "while time.perf_counter() < end:\n"
			      "    caller(text)\n";

START_TEST(test_json_hook)
{
	/* not json.py: the script's own directory comes first, and import json would be itself */
	char *script = out_path("hook.py"), *fxt = out_path("hook.fxt"), *text, *line, *save;
	unsigned long in_hook = 0, ordered = 0, marked = 0, all = 0, n;
	char example[512] = "";

	write_file(script, json_py);
	record_python(fxt, NULL, script, "2");
	text = folded(fxt, NULL, "hook.folded");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *c, *j, *h;

		n = line_count(line);
		all += n;
		if (!has_frame(line, "hook"))
			continue;
		in_hook += n;
		/*
		 * caller, json's Python frames down to raw_decode, then the _json
		 * module's native frames, then an eval loop running hook.
		 */
		c = strstr(line, ";_PyEval_EvalFrameDefault;<module>;caller;loads;"
				 "JSONDecoder.decode;JSONDecoder.raw_decode;");
		j = c ? strstr(c, "_json.cpython-311") : NULL;
		h = j ? strstr(j, ";_PyEval_EvalFrameDefault;hook") : NULL;
		ordered += n * (h != NULL);
		/* where the merge could not pair the frames it says so */
		marked += n * (!h && strstr(line, "[python: ") != NULL);
		if (!h && !strstr(line, "[python: ") && !*example)
			snprintf(example, sizeof(example), "%s", line);
	}
	free(text);
	printf("python json object_hook: %lu of %lu samples in hook in order (caller, "
	       "raw_decode, _json's native frames, hook), %lu marked, of %lu; one in neither: "
	       "%.300s\n",
	       ordered, in_hook, marked, all, example);
	fflush(stdout);
	ck_assert_msg(in_hook > 100, "%lu samples in hook", in_hook);
	ck_assert_msg(ordered * 100 >= in_hook * 95, "%lu of %lu in order", ordered, in_hook);
	ck_assert_msg(ordered + marked == in_hook, "%lu of %lu in another order, unmarked: %s",
		      in_hook - ordered - marked, in_hook, example);
}
END_TEST

/* ---- short-lived processes ---- */

START_TEST(test_short_lived)
{
	char *fxt = out_path("short.fxt"), *text, *line, *save, *eval, cmd[600];
	unsigned long run = 0, named = 0, unknown = 0, n;
	struct run *r = calloc(1, sizeof(*r));
	int efd = temp_fd(), st;
	pid_t rec, sh;

	ck_assert_ptr_nonnull(r);
	snprintf(cmd, sizeof(cmd),
		 "i=0; while [ $i -lt 100 ]; do %s -c 'import time\n"
		 "def hot(end):\n"
		 "    pc = time.perf_counter\n"
		 "    while pc() < end:\n"
		 "        pass\n"
		 "hot(time.perf_counter() + 0.05)'; i=$((i+1)); done",
		 PYTHON);
	/* the whole host (-a), as one who profiles what runs would, then the runs */
	rec = START(efd, "record", "-a", "-o", fxt);
	ck_assert_int_gt(rec, 0);
	usleep(1500 * 1000);
	sh = fork();
	ck_assert_int_ge(sh, 0);
	if (!sh) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(sh, &st, 0), sh);
	kill(rec, SIGTERM);
	collect(rec, efd, r);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the runs failed: %d", st);
	ck_assert_msg(exit_code(r) == 0, "record -a: %s", r->err);
	text = folded(fxt, NULL, "short.folded");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = line_count(line);
		/*
		 * The -c code's run: its eval loop under Py_RunMain's
		 * PyRun_SimpleStringFlags (the interpreter's start and end are not,
		 * nor site's exec() of .pth lines; the module's own few lines around
		 * the call are, and count against the share).
		 */
		if (!strstr(line, "Py_RunMain;PyRun_SimpleStringFlags;") ||
		    !(eval = strstr(line, "PyEval_EvalCode;_PyEval_EvalFrameDefault")))
			continue;
		run += n;
		named += n * has_frame(eval, "hot");
		unknown += n * (strstr(eval, "[python: unknown code]") != NULL);
	}
	free(text);
	printf("python short-lived: 100 runs of python3.11 -c under record -a: %lu samples in "
	       "the -c code's run, %lu (%.1f%%) name hot, %lu an unknown code object\n",
	       run, named, run ? 100.0 * named / run : 0.0, unknown);
	printf("%s", strstr(r->err, "python: ") ?: "");
	fflush(stdout);
	/* 5,000 on an idle host; a loaded one runs the 50 ms deadlines on less CPU */
	ck_assert_msg(run > 500, "%lu samples in the -c code's run", run);
	ck_assert_msg(named * 100 >= run * 90, "%lu of %lu name hot", named, run);
	free(r);
}
END_TEST

/* ---- a fake _PyRuntime ---- */

START_TEST(test_fake_runtime)
{
	static const char *const modes[3] = {"garbage", "loop", "race"};

	for (int m = 0; m < 3; m++) {
		char *fxt = out_path("fake.fxt"), *text, *line, *save;
		unsigned long all = 0, spin = 0, unknown = 0, cut = 0, n;
		struct run *r = calloc(1, sizeof(*r));
		struct capture_file *f;
		const struct counter *c;
		uint64_t ends;

		ck_assert_ptr_nonnull(r);
		RUN(r, "record", "-o", fxt, "--", prog("fakepy"), modes[m], "1");
		ck_assert_msg(exit_code(r) == 0, "record fakepy %s: %s", modes[m], r->err);
		text = folded(fxt, NULL, "fake.folded");
		ck_assert_msg(!strstr(text, "wrong_name") && !strstr(text, "wrong_file"),
			      "%s: a frame named after the fake code object", modes[m]);
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			n = line_count(line);
			all += n;
			/* race's second thread spins too, in racer */
			spin += n * (has_frame(line, "fake_spin") || has_frame(line, "racer"));
			unknown += n * (strstr(line, "[python: unknown code]") != NULL);
			cut += n * (strstr(line, "[python: deeper frames cut]") != NULL);
		}
		free(text);
		f = load(fxt);
		c = counter(f, "python");
		ck_assert_msg(c != NULL, "%s: no python counters", modes[m]);
		ends = counter_value(c, "end_ok") + counter_value(c, "end_truncated") +
		       counter_value(c, "end_no_tstate") + counter_value(c, "end_fault");
		printf("python fake _PyRuntime (%s): %lu samples, %lu in fake_spin, %lu with an "
		       "unknown code, %lu cut; walks: %lu whole, %lu cut, %lu no thread state, "
		       "%lu faults; codes %lu named, %lu refused\n",
		       modes[m], all, spin, unknown, cut, (unsigned long)counter_value(c, "end_ok"),
		       (unsigned long)counter_value(c, "end_truncated"),
		       (unsigned long)counter_value(c, "end_no_tstate"),
		       (unsigned long)counter_value(c, "end_fault"),
		       (unsigned long)counter_value(c, "codes"),
		       (unsigned long)counter_value(c, "codes_failed"));
		fflush(stdout);
		/* its own native frames stay, whatever the walk met */
		ck_assert_msg(all > 300 && spin * 100 >= all * 90, "%s: %lu of %lu in its own code",
			      modes[m], spin, all);
		ck_assert_uint_ge(counter_value(c, "procs_walked"), 1);
		ck_assert_uint_eq(ends, counter_value(c, "samples"));
		ck_assert_uint_eq(counter_value(c, "codes"), 0);
		if (m == 0) {
			ck_assert_uint_eq(counter_value(c, "end_no_tstate"), ends);
			ck_assert_uint_eq(unknown + cut, 0);
		} else if (m == 1) {
			/*
			 * one frame pointing at itself: cut at the bound, every sample of it
			 * walked (the first few milliseconds, before user space has read the
			 * new process's ELF file and offered it the walk, are not: samples
			 * less the walks counted)
			 */
			unsigned long unwalked = all - counter_value(c, "samples");

			ck_assert_uint_le(unwalked, 50);
			ck_assert_uint_ge(counter_value(c, "end_truncated") + unwalked, spin);
			ck_assert_uint_gt(counter_value(c, "codes_failed"), 0);
			ck_assert_msg(unknown + unwalked >= spin && cut + unwalked >= spin,
				      "loop: %lu unknown, %lu cut, %lu not walked", unknown, cut,
				      unwalked);
		}
		unload(f);
		free(r);
	}
}
END_TEST

static Suite *edges_suite(void)
{
	const struct {
		const char *name;
		const TTest *test;
	} cases[] = {
		{"daemon", test_daemon_user},
		{"fake", test_fake_runtime},
		{"json", test_json_hook},
		{"short", test_short_lived},
	};
	Suite *s = suite_create("python-edges");
	/* a case each, for CK_RUN_CASE */
	size_t nr = sizeof(cases) / sizeof(cases[0]);

	for (size_t i = 0; i < nr; i++) {
		TCase *tc = tcase_create(cases[i].name);

		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 120);
		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	if (!live_python_can_run("check_python_edges"))
		return EXIT_SUCCESS;
	return live_main(edges_suite());
}
