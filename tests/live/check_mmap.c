// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Short-lived processes (issue 29): their mappings come from the kernel as
 * they are made, so their samples resolve however briefly they lived.
 *
 *  - The three workloads (a shell loop of ~30 ms processes, of
 *    /bin/true, of ~4 ms processes), 3 s each, as root and through
 *    fxsamplerd as a user: at most 1 % of the samples' leaf frames in no
 *    mapping ([unknown]); every process sampled in its own program's code
 *    (which runs only once ld.so has mapped libc) has a libc module and mmap
 *    record; the counters add up, mapping events included. `perf record -g`
 *    runs on the same workload as the reference, and both figures are printed.
 *  - Filtered in the kernel: a session with targets (-p, -- CMD, a user's
 *    through fxsamplerd) is sent mapping records of its targets only, so a
 *    busy exec loop beside them adds nothing to the `filtered` count. A
 *    thread that existed before `record -p` began maps a library: it is
 *    followed too, and the library's samples resolve. The kernel ends a
 *    task's events at an exec that changes its credentials: a root session's
 *    target that runs a set-user-ID program has its mappings read from /proc
 *    then, and its samples resolve.
 *  - A library mapped, sampled, then deleted and replaced by another file
 *    at its path: its module record keeps the mapped file's build id, and
 *    report symbolizes it through a debug file found by that build id.
 *
 * FXS_BIN: the fxsampler binary (fxsamplerd beside it); FXS_PROGS: the test
 * programs (dlopener and libspin.so).
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/client.h"
#include "live.h"
#include "live_daemon.h"
#include "service/protocol.h"
#include "check_main.h"

#define TEST_USER "fxs-mmap-user"

static void need_perf(void)
{
	if (access("/usr/bin/perf", X_OK)) {
		fprintf(stderr, "check_mmap: perf (linux-perf) is needed as the reference\n");
		exit(EXIT_FAILURE);
	}
}

/* the user writes its captures in tmpdir too */
static struct live_suite suite = {.name = "check_mmap",
				  .needs = "BPF, fxsamplerd",
				  .user = TEST_USER,
				  .dir = "/tmp/fxs-mmap.XXXXXX",
				  .dir_mode = 0777,
				  .check = need_perf};

/* The workloads, each bounded to 3 s by timeout(1). */
static const char *const workloads[] = {
	/* ~30 ms processes */
	"timeout 3 sh -c 'while :; do sh -c \"i=0; while [ \\$i -lt 30000 ]; do "
	"i=\\$((i+1)); done\"; done'",
	"timeout 3 sh -c 'while :; do /bin/true; done'",
	/* ~4 ms processes */
	"timeout 3 sh -c 'while :; do sh -c \"i=0; while [ \\$i -lt 3000 ]; do "
	"i=\\$((i+1)); done\"; done'",
};

/* `fxsampler record -q -o out -- sh -c script`, as the user through the daemon or as root. */
static int record(bool as_user, const char *out, const char *script)
{
	pid_t pid = LIVE_RECORD(as_user ? suite.daemon.sock : NULL, as_user ? suite.uid : 0,
				as_user ? suite.gid : 0, -2, -2, "-q", "-o", out, "--", "/bin/sh",
				"-c", script);
	int st = 0, i;

	for (i = 0; i < 600 && waitpid(pid, &st, WNOHANG) != pid; i++)
		live_msleep(100);
	if (i == 600) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		ck_abort_msg("record did not end in 60 s");
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run a shell command, its output into buf. */
static void run_out(const char *cmd, char *buf, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n;

	ck_assert_msg(p != NULL, "popen %s", cmd);
	n = fread(buf, 1, size - 1, p);
	buf[n] = '\0';
	pclose(p);
}

/* Leaf frames in no mapping, over all samples, from report --perf-script. */
static void unknown_leaves(const char *fxt, unsigned *ret_unknown, unsigned *ret_samples)
{
	char cmd[8 * PATH_MAX], out[128];

	snprintf(cmd, sizeof(cmd),
		 "%s report --perf-script %s.ps %s >/dev/null 2>&1 && awk '/^[^\\t]/ && NF "
		 "{n++; f=1; next} /^\\t/ {if (f && $0 ~ /\\(\\[unknown\\]\\)$/) u++; f=0} "
		 "END {print u+0, n+0}' %s.ps",
		 bin, fxt, fxt, fxt);
	run_out(cmd, out, sizeof(out));
	ck_assert_int_eq(sscanf(out, "%u %u", ret_unknown, ret_samples), 2);
}

/*
 * Processes sampled in their own program (not ld.so, libc or the vdso) and,
 * of those, the ones without a libc module and mmap record in the file.
 */
static void libc_check(const char *fxt, unsigned *ret_sampled, unsigned *ret_missing)
{
	char cmd[8 * PATH_MAX], out[128];

	/* perf-script lines give each sample's pid and its frames' modules; dump the records */
	snprintf(cmd, sizeof(cmd),
		 "{ awk '/^[^\\t]/ && NF {split($2, a, \"/\"); pid=a[1]; next} "
		 "/^\\t/ && $NF !~ /(ld-linux|libc\\.so|vdso|unknown)/ {print \"S\", pid}' %s.ps; "
		 "%s dump %s | awk '/ module / && /libc\\.so\\.6/ {for (i=1;i<=NF;i++) if ($i ~ "
		 "/^pid=/) print \"M\", substr($i,5)}'; } | "
		 "awk '$1==\"S\" {s[$2]=1} $1==\"M\" {m[$2]=1} "
		 "END {for (p in s) {n++; if (!(p in m)) miss++} print n+0, miss+0}'",
		 fxt, bin, fxt);
	run_out(cmd, out, sizeof(out));
	ck_assert_int_eq(sscanf(out, "%u %u", ret_sampled, ret_missing), 2);
}

/* `perf record -g` on the same workload (a script file): its share of leaf frames in no module. */
static double perf_unknown(const char *script_path, const char *data)
{
	char cmd[8 * PATH_MAX], out[128];
	unsigned u = 0, n = 0;

	snprintf(cmd, sizeof(cmd),
		 "perf record -q -g -o %s -- /bin/sh %s >/dev/null 2>&1; perf script -G -F ip,dso "
		 "-i %s 2>/dev/null | awk 'NF {n++; if ($0 ~ /\\[unknown\\]/) u++} END "
		 "{print u+0, n+0}'",
		 data, script_path, data);
	run_out(cmd, out, sizeof(out));
	if (sscanf(out, "%u %u", &u, &n) != 2 || !n)
		return -1;
	return 100.0 * u / n;
}

static void check_workload(unsigned w, bool as_user)
{
	char out[PATH_MAX], data[PATH_MAX], script[PATH_MAX], cmd[3 * PATH_MAX], count[64];
	const char *who = as_user ? "user" : "root";
	unsigned unknown, samples, sampled, missing;
	struct capture_file *f;
	const struct counter *m;
	double perf = -1;
	char perf_text[64];

	snprintf(out, sizeof(out), "%s/w%u-%s.fxt", tmpdir, w, who);
	ck_assert_int_eq(record(as_user, out, workloads[w]), 0);
	f = load(out);
	ck_assert_msg(f->read_result == 0, "%s: %s", out, f->error);
	check_accounting(f);
	/* check_accounting adds the mapping events up; none may be lost here */
	m = counter(f, "mmap");
	ck_assert_msg(m != NULL, "no mmap counter in %s", out);
	ck_assert_uint_eq(counter_value(m, "dropped_ring_full"), 0);
	/* the loader keeps at most MAX_ITEMS mappings: count them all */
	snprintf(cmd, sizeof(cmd), "%s dump %s | grep -c ' mmap '", bin, out);
	run_out(cmd, count, sizeof(count));
	ck_assert_uint_eq(strtoull(count, NULL, 10), counter_value(m, "records_from_events") +
							     counter_value(m, "records_from_proc") +
							     counter_value(m, "records_inherited"));
	unload(f);

	unknown_leaves(out, &unknown, &samples);
	libc_check(out, &sampled, &missing);
	if (!as_user) {
		/* perf runs the same command, from a script file */
		FILE *sh;

		snprintf(script, sizeof(script), "%s/w%u.sh", tmpdir, w);
		sh = fopen(script, "we");
		ck_assert_ptr_nonnull(sh);
		fprintf(sh, "%s\n", workloads[w]);
		fclose(sh);
		snprintf(data, sizeof(data), "%s/w%u.perf.data", tmpdir, w);
		perf = perf_unknown(script, data);
	}
	if (perf >= 0)
		snprintf(perf_text, sizeof(perf_text), "%.2f %% [unknown]", perf);
	else
		snprintf(perf_text, sizeof(perf_text), as_user ? "(run as root)" : "no samples");
	printf("workload %u as %s: %u of %u samples [unknown] (%.2f %%), perf record -g: %s; "
	       "%u processes sampled in their program, %u without libc\n",
	       w, who, unknown, samples, samples ? 100.0 * unknown / samples : 0.0, perf_text,
	       sampled, missing);
	fflush(stdout);
	ck_assert_msg(samples > 100, "%u samples", samples);
	ck_assert_msg(unknown * 100 <= samples, "%u of %u samples [unknown]", unknown, samples);
	ck_assert_msg(sampled > 0, "no process sampled in its own program");
	ck_assert_msg(missing == 0, "%u of %u processes without a libc module", missing, sampled);
}

START_TEST(test_workload_root)
{
	check_workload((unsigned)_i, false);
}
END_TEST

START_TEST(test_workload_user)
{
	check_workload((unsigned)_i, true);
}
END_TEST

/*
 * dlopener maps libspin.so and spins in it; the library is then deleted and
 * another file put at its path. Its module record names the build id of the
 * file that was mapped, and report finds that file's debug file by it.
 */
START_TEST(test_deleted_library)
{
	char dir[512], dbg[512], cmd[8 * PATH_MAX], id[128], out[PATH_MAX], buf[65536];
	char script[8 * PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/del", tmpdir);
	snprintf(dbg, sizeof(dbg), "%s/debug", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s && cp %s/dlopener %s/libspin.so %s/ && readelf -n %s/libspin.so | "
		 "awk '/Build ID/ {print $3}'",
		 dir, progs, progs, dir, dir);
	run_out(cmd, id, sizeof(id));
	id[strcspn(id, "\n")] = '\0';
	ck_assert_msg(strlen(id) == 40, "no build id in libspin.so: '%s'", id);
	/* the debug file by build id; the library itself is gone when report runs */
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/.build-id/%.2s && objcopy --only-keep-debug %s/libspin.so "
		 "%s/.build-id/%.2s/%s.debug && echo ok",
		 dbg, id, dir, dbg, id, id + 2);
	run_out(cmd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "ok\n");
	snprintf(out, sizeof(out), "%s/deleted.fxt", tmpdir);
	snprintf(script, sizeof(script),
		 "%s/dlopener 1.5 & sleep 0.6; rm %s/libspin.so; cp /bin/true %s/libspin.so; wait",
		 dir, dir, dir);
	ck_assert_int_eq(record(false, out, script), 0);
	/* the module record of the deleted path carries the mapped file's build id */
	snprintf(cmd, sizeof(cmd), "%s dump %s | grep ' module ' | grep '%s/libspin.so'", bin, out,
		 dir);
	run_out(cmd, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, id), "module records of the library without build id %s:\n%s", id,
		      buf);
	snprintf(cmd, sizeof(cmd), "%s report --no-debuginfod --debug-dir %s --top 20 %s 2>&1", bin,
		 dbg, out);
	run_out(cmd, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "lib_spin "), "report did not symbolize the deleted library:\n%s",
		      buf);
}
END_TEST

/*
 * A shell loop of /bin/true that is no target: it maps about 4 files a
 * process. In a process group of its own, which stop() ends with its
 * /bin/true; the parent-death signal ends it with a test that fails first.
 */
static pid_t start_exec_loop(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", "while :; do /bin/true; done", (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

static void stop(pid_t loop)
{
	kill(-loop, SIGKILL);
	waitpid(loop, NULL, 0);
}

/*
 * The mmap counter of out: the targets' mappings came from the kernel, and
 * next to none of the busy non-target's reached the reader (the kernel's own
 * filter: the targets' events, not every process's).
 */
static void check_kernel_filtered(const char *out, const char *who, uint64_t min_events)
{
	struct capture_file *f = load(out);
	const struct counter *m;
	uint64_t seen, filtered;

	ck_assert_msg(f->read_result == 0, "%s: %s", out, f->error);
	check_accounting(f);
	m = counter(f, "mmap");
	ck_assert_msg(m != NULL, "no mmap counter in %s", out);
	seen = counter_value(m, "seen");
	filtered = counter_value(m, "filtered");
	printf("kernel filter (%s): %llu mapping records read, %llu of other processes, %llu "
	       "written from events\n",
	       who, (unsigned long long)seen, (unsigned long long)filtered,
	       (unsigned long long)counter_value(m, "records_from_events"));
	fflush(stdout);
	ck_assert_msg(counter_value(m, "records_from_events") >= min_events,
		      "%llu records from events",
		      (unsigned long long)counter_value(m, "records_from_events"));
	ck_assert_msg(filtered * 100 <= seen,
		      "%llu of %llu mapping records were of other processes",
		      (unsigned long long)filtered, (unsigned long long)seen);
	unload(f);
}

/* record -p of an exec loop, another exec loop beside it. */
START_TEST(test_kernel_filter_pid)
{
	char out[PATH_MAX], pid_text[32];
	pid_t other = start_exec_loop(), target = start_exec_loop(), rec;
	int st = 0;

	snprintf(out, sizeof(out), "%s/filter-p.fxt", tmpdir);
	snprintf(pid_text, sizeof(pid_text), "%d", (int)target);
	rec = LIVE_RECORD(NULL, 0, 0, -2, -2, "-q", "-d", "2s", "-p", pid_text, "-o", out);
	ck_assert_int_eq(waitpid(rec, &st, 0), rec);
	stop(target);
	stop(other);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "record -p: status %d", st);
	check_kernel_filtered(out, "record -p", 100);
}
END_TEST

/* A user's session through fxsamplerd (a -- CMD target), root's exec loop beside it. */
START_TEST(test_kernel_filter_user)
{
	char out[PATH_MAX];
	pid_t other = start_exec_loop();
	int rc;

	snprintf(out, sizeof(out), "%s/filter-user.fxt", tmpdir);
	rc = record(true, out, workloads[1]);
	stop(other);
	ck_assert_int_eq(rc, 0);
	check_kernel_filtered(out, "a user through fxsamplerd", 100);
}
END_TEST

/* The first non-empty file in dir (record's output under its temporary name): it is set up. */
static bool wait_output(const char *dir, pid_t rec)
{
	char cmd[PATH_MAX + 64], out[64];

	snprintf(cmd, sizeof(cmd), "find %s -type f -size +0 | head -1", dir);
	for (int i = 0; i < 600; i++) {
		if (waitpid(rec, NULL, WNOHANG) == rec)
			return false;
		run_out(cmd, out, sizeof(out));
		if (out[0])
			return true;
		live_msleep(50);
	}
	return false;
}

/*
 * record -p target into out (its stderr under dir) until target exits:
 * once record samples, the file go is made, which target waits for.
 */
static void record_pid_then_go(pid_t target, const char *what, const char *dir, const char *out,
			       const char *go)
{
	char pid_text[32], cmd[PATH_MAX + 16];
	int st = 0;
	pid_t rec;

	snprintf(pid_text, sizeof(pid_text), "%d", (int)target);
	rec = LIVE_RECORD(NULL, 0, 0, -2, -2, "-q", "-p", pid_text, "-o", out);
	ck_assert_msg(wait_output(dir, rec), "record -p did not start");
	live_msleep(300);
	snprintf(cmd, sizeof(cmd), "touch %s", go);
	ck_assert_int_eq(live_run_cmd(cmd), 0);
	ck_assert_int_eq(waitpid(target, &st, 0), target);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", what, st);
	ck_assert_int_eq(waitpid(rec, &st, 0), rec);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "record -p: status %d", st);
}

/*
 * dlopener's second thread, made before record -p began, maps libspin.so
 * once the session runs and spins in it: the events follow each thread of a
 * target, not only the one its pid names.
 */
START_TEST(test_kernel_filter_thread)
{
	char dir[PATH_MAX], out[PATH_MAX + 16], go[PATH_MAX], prog[PATH_MAX + 16];
	char cmd[4 * PATH_MAX], buf[4096];
	pid_t target;

	snprintf(dir, sizeof(dir), "%s/thread", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(out, sizeof(out), "%s/thread.fxt", dir);
	snprintf(go, sizeof(go), "%s/go", tmpdir);
	snprintf(prog, sizeof(prog), "%s/dlopener", progs);
	target = fork();
	ck_assert_int_ge(target, 0);
	if (!target) {
		execl(prog, prog, "1", "thread", go, (char *)NULL);
		_exit(127);
	}
	live_msleep(100);
	record_pid_then_go(target, "dlopener", dir, out, go);
	/* the library's mapping came from an event: the process was read from /proc before */
	snprintf(cmd, sizeof(cmd), "%s dump %s | grep -c ' module .*libspin\\.so'", bin, out);
	run_out(cmd, buf, sizeof(buf));
	ck_assert_msg(strtoul(buf, NULL, 10) > 0, "no module record of libspin.so");
	snprintf(cmd, sizeof(cmd), "%s report --top 20 %s 2>&1", bin, out);
	run_out(cmd, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "lib_spin "), "report did not resolve the thread's library:\n%s",
		      buf);
	/* libspin.so's mappings, which only the thread's event saw */
	check_kernel_filtered(out, "record -p, a thread's dlopen", 1);
}
END_TEST

/*
 * Root's record -p of a user's shell, which forks a child that execs a
 * set-user-ID root copy of suidspin once the session runs: the kernel ends
 * the child's events at that exec (its image's mappings never come), so they
 * are read from /proc, and its samples resolve. So do those of what it maps
 * later: ld.so's libraries (a read at the exec record may come before them:
 * 79 of 745 samples [unknown] in a CI run) and libspin.so, which it dlopens
 * half-way, both read again when a pc is outside what /proc told.
 */
START_TEST(test_secure_exec_root_session)
{
	char dir[PATH_MAX], out[PATH_MAX + 16], go[PATH_MAX], prog[PATH_MAX + 16];
	char cmd[4 * PATH_MAX], buf[8192], script[4 * PATH_MAX];
	unsigned unknown, samples;
	pid_t target;

	snprintf(dir, sizeof(dir), "%s/secure", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(out, sizeof(out), "%s/secure.fxt", dir);
	snprintf(go, sizeof(go), "%s/secure-go", tmpdir);
	snprintf(prog, sizeof(prog), "%s/suidspin-root", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp %s/suidspin %s && chown root:root %s && chmod 4755 %s",
		 progs, prog, prog, prog);
	ck_assert_int_eq(live_run_cmd(cmd), 0);
	snprintf(script, sizeof(script),
		 "while [ ! -e %s ]; do sleep 0.05; done; sh -c 'exec %s 1 %s/libspin.so'; exit 0",
		 go, prog, progs);
	target = fork();
	ck_assert_int_ge(target, 0);
	if (!target) {
		live_become(suite.uid, suite.gid);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	record_pid_then_go(target, "the user's shell", dir, out, go);
	snprintf(cmd, sizeof(cmd), "%s report --top 5 %s 2>&1", bin, out);
	run_out(cmd, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "secret_root_work [suidspin-root]"),
		      "the set-user-ID program's samples did not resolve:\n%s", buf);
	ck_assert_msg(strstr(buf, "lib_spin [libspin.so]"),
		      "the library it dlopened did not resolve:\n%s", buf);
	unknown_leaves(out, &unknown, &samples);
	printf("secure exec in a root session: %u of %u samples [unknown]\n", unknown, samples);
	fflush(stdout);
	ck_assert_msg(samples > 100, "%u samples", samples);
	ck_assert_msg(unknown * 20 <= samples, "%u of %u samples [unknown]", unknown, samples);
}
END_TEST

static Suite *mmap_suite(void)
{
	Suite *s = suite_create("mmap");
	TCase *tc = tcase_create("short-lived");

	tcase_set_timeout(tc, 90);
	tcase_add_loop_test(tc, test_workload_root, 0, 3);
	tcase_add_loop_test(tc, test_workload_user, 0, 3);
	tcase_add_test(tc, test_deleted_library);
	tcase_add_test(tc, test_kernel_filter_pid);
	tcase_add_test(tc, test_kernel_filter_user);
	tcase_add_test(tc, test_kernel_filter_thread);
	tcase_add_test(tc, test_secure_exec_root_session);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return live_suite_main(&suite, mmap_suite);
}
