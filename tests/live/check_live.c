// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live tests (root): the real fxsampler binary loads the real BPF program and
 * profiles programs from tests/progs whose call chains are known; the .fxt is
 * read back with the FXT reader and its PCs resolved against the programs'
 * own symbols through the mmap records the capture wrote.
 *
 * FXS_BIN: the fxsampler binary; FXS_PROGS: the built test programs.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/hostlock.h"
#include "live.h"

/* --- fixtures --- */

static void setup(void)
{
	live_make_dir("/tmp/fxs-live-XXXXXX");
}

static void teardown(void)
{
	live_remove_dir();
}

/* --- the tests --- */

static const char *const demo_chain[] = {"inner", "middle", "outer", "main"};

START_TEST(test_known_chain)
{
	struct capture_file *f;
	struct run r;
	size_t target = 0, whole = 0;
	uint32_t pid = 0;

	RUN(&r, "record", "-q", "-F", "999", "-o", out_path("chain.fxt"), "--", prog("demo"), "2");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(out_path("chain.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_processes; i++)
		if (!strcmp(f->processes[i].name, "demo"))
			pid = f->processes[i].koid;
	ck_assert_msg(pid, "no process named demo in the capture");
	for (size_t i = 0; i < f->nr_samples; i++) {
		const struct sample *s = &f->samples[i];
		const char *leaf;

		ck_assert_uint_eq(s->pid, pid);
		leaf = symbolize(f, s, 0);
		/* The spin loop's own samples; the rest are clock_gettime and exec. */
		if (!leaf || strcmp(leaf, "inner"))
			continue;
		target++;
		whole += has_chain(f, s, demo_chain, 4);
	}
	ck_assert_msg(target > 500, "only %zu samples in inner()", target);
	ck_assert_msg(whole * 100 >= target * 95, "%zu of %zu samples in inner() carry the chain",
		      whole, target);
	check_accounting(f);
	unload(f);
}
END_TEST

START_TEST(test_pid_filter)
{
	pid_t target = start_prog("demo", "4", "1"), other = start_prog("demo", "4", "1");
	struct capture_file *f;
	char pidarg[32];
	struct run r;
	size_t in_inner = 0;

	snprintf(pidarg, sizeof(pidarg), "%d", (int)target);
	/* Let both reach their spin loop. */
	usleep(200000);
	RUN(&r, "record", "-q", "-p", pidarg, "-d", "1500ms", "-o", out_path("pid.fxt"));
	kill(target, SIGKILL);
	kill(other, SIGKILL);
	waitpid(target, NULL, 0);
	waitpid(other, NULL, 0);
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(out_path("pid.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	ck_assert_msg(f->nr_samples > 300, "only %zu samples", f->nr_samples);
	for (size_t i = 0; i < f->nr_samples; i++) {
		const char *leaf;

		ck_assert_msg(f->samples[i].pid == (uint32_t)target,
			      "sample of pid %u in a capture of pid %d", f->samples[i].pid,
			      (int)target);
		leaf = symbolize(f, &f->samples[i], 0);
		in_inner += leaf && !strcmp(leaf, "inner");
	}
	ck_assert_msg(in_inner * 100 >= f->nr_samples * 80, "%zu of %zu samples in inner()",
		      in_inner, f->nr_samples);
	/* The other demo was filtered in the kernel, and counted. */
	ck_assert_uint_gt(counter_value(counter(f, "samples"), "filtered"), 100);
	check_accounting(f);
	unload(f);
}
END_TEST

START_TEST(test_threads_named)
{
	struct capture_file *f;
	struct run r;
	uint32_t tids[8] = {0};
	unsigned nr_tids = 0;

	RUN(&r, "record", "-q", "-o", out_path("threads.fxt"), "--", prog("demo"), "1", "4");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(out_path("threads.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_samples; i++) {
		unsigned k;

		for (k = 0; k < nr_tids && tids[k] != f->samples[i].tid; k++)
			;
		if (k == nr_tids && nr_tids < 8)
			tids[nr_tids++] = f->samples[i].tid;
	}
	ck_assert_uint_eq(nr_tids, 4);
	for (unsigned k = 0; k < nr_tids; k++) {
		const char *name = thread_name(f, tids[k]);
		bool main_thread = tids[k] == f->samples[0].pid;
		char want[32];

		ck_assert_msg(name, "thread %u has no kernel object record", tids[k]);
		if (main_thread) {
			ck_assert_str_eq(name, "demo");
			continue;
		}
		ck_assert_msg(!strncmp(name, "demo-worker-", 12), "thread %u is named '%s'",
			      tids[k], name);
		snprintf(want, sizeof(want), "%s", name);
		for (size_t i = 0; i < f->nr_threads; i++)
			if (f->threads[i].koid == tids[k])
				ck_assert_uint_eq(f->threads[i].process, f->samples[0].pid);
	}
	check_accounting(f);
	unload(f);
}
END_TEST

/* Both CPUs busy at 10 kHz: every sample fired is accounted for, and stop drains. */
START_TEST(test_accounting_under_load)
{
	struct capture_file *f;
	struct run r;

	RUN(&r, "record", "-q", "-F", "10000", "-o", out_path("load.fxt"), "--", prog("demo"), "2",
	    "2");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(out_path("load.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	ck_assert_msg(f->nr_samples > 10000, "only %zu samples at 10 kHz", f->nr_samples);
	check_accounting(f);
	unload(f);
}
END_TEST

/* A tiny ring at 10 kHz on both CPUs: drops happen and are accounted exactly. */
START_TEST(test_drops_accounted)
{
	const struct counter *total;
	struct capture_file *f;
	struct run r;

	RUN(&r, "record", "-q", "-F", "10000", "--buffer-size", "4096", "--max-frames", "255", "-o",
	    out_path("drops.fxt"), "--", prog("recurse"), "200", "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(out_path("drops.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	total = counter(f, "samples");
	ck_assert_ptr_nonnull(total);
	check_accounting(f);
	if (counter_value(total, "dropped_ring_full")) {
		ck_assert_msg(f->dropped_event, "drops but no 'records dropped' event");
		ck_assert_msg(strstr(r.err, "ring full"), "summary: %s", r.err);
	}
	unload(f);
}
END_TEST

START_TEST(test_truncated)
{
	const struct counter *total;
	struct capture_file *f;
	size_t truncated = 0;
	struct run r;

	RUN(&r, "record", "-q", "--max-frames", "16", "-o", out_path("deep.fxt"), "--",
	    prog("recurse"), "100", "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(out_path("deep.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_samples; i++) {
		const struct sample *s = &f->samples[i];
		const char *leaf = symbolize(f, s, 0);

		ck_assert_uint_le(s->n, 16);
		if (!leaf || strcmp(leaf, "spin"))
			continue;
		ck_assert_uint_eq(s->n, 16);
		ck_assert_msg(s->flags & FXT_BT_FLAG_TRUNCATED, "a cut stack is not marked");
		ck_assert_str_eq(symbolize(f, s, 1), "recurse");
		ck_assert_str_eq(symbolize(f, s, 15), "recurse");
		truncated++;
	}
	ck_assert_uint_gt(truncated, 300);
	total = counter(f, "samples");
	ck_assert_uint_ge(counter_value(total, "stop_truncated"), truncated);
	unload(f);
}
END_TEST

/* SIGINT or SIGTERM mid-capture: a complete, valid file. */
static void interrupt_test(int sig)
{
	char *argv[] = {(char *)bin,  (char *)"record", (char *)"-o", out_path("int.fxt"),
			(char *)"--", prog("demo"),	(char *)"20", NULL};
	struct capture_file *f;
	struct run r;
	int fd = temp_fd();
	pid_t pid;

	pid = spawn_io(argv, -1, fd);
	sleep(1);
	kill(pid, sig);
	collect(pid, fd, &r);
	ck_assert_msg(exit_code(&r) == 0, "record after signal %d: %s", sig, r.err);
	f = load(out_path("int.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	/* A second of wall time on a shared machine: some samples, whatever the load. */
	ck_assert_uint_gt(f->nr_samples, 20);
	check_accounting(f);
	/* The command ended with the capture, and was reaped. */
	ck_assert_msg(kill(f->samples[0].pid, 0) && errno == ESRCH, "pid %u outlived record",
		      f->samples[0].pid);
	unload(f);
}

START_TEST(test_sigint_valid_file)
{
	interrupt_test(SIGINT);
}
END_TEST

START_TEST(test_sigterm_valid_file)
{
	interrupt_test(SIGTERM);
}
END_TEST

START_TEST(test_compressed_round_trip)
{
	struct capture_file *f;
	unsigned char magic[2];
	struct run r;
	FILE *in;

	RUN(&r, "record", "-q", "-z", "-o", out_path("z.fxt"), "--", prog("demo"), "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	in = fopen(out_path("z.fxt"), "rb");
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(fread(magic, 1, 2, in), 2);
	fclose(in);
	ck_assert_msg(magic[0] == 0x1f && magic[1] == 0x8b, "not gzip");
	f = load(out_path("z.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	ck_assert_uint_gt(f->nr_samples, 300);
	check_accounting(f);
	unload(f);
}
END_TEST

START_TEST(test_host_wide)
{
	pid_t busy = start_prog("demo", "3", "1");
	const struct counter *total;
	struct capture_file *f;
	struct run r;
	bool saw_busy = false;

	RUN(&r, "record", "-q", "-a", "-d", "1", "-o", out_path("all.fxt"));
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(out_path("all.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_samples; i++)
		saw_busy |= f->samples[i].pid == (uint32_t)busy;
	ck_assert_msg(saw_busy, "the busy program was not sampled host-wide");
	total = counter(f, "samples");
	ck_assert_uint_eq(counter_value(total, "filtered"), 0);
	check_accounting(f);
	unload(f);
}
END_TEST

/*
 * Each bad input: one line naming the cause, no file left behind; exit 2 for
 * a usage error, 1 for what the host holds (a pid that is gone, a command
 * that cannot run).
 */
START_TEST(test_bad_input)
{
	static const struct {
		const char *args[6];
		const char *cause;
		int code;
	} cases[] = {
		{{"-F", "0"}, "frequency", 2},
		{{"--period", "0"}, "period", 2},
		{{"-F", "abc"}, "abc", 2},
		{{"-F", "-5"}, "-5", 2},
		{{"-F", "100000"}, "maximum of 50000", 2},
		{{"-d", "-1"}, "duration", 2},
		{{"--buffer-size", "5000"}, "buffer size", 2},
		{{"--buffer-size", "1024"}, "buffer size", 2},
		{{"--max-frames", "0"}, "max-frames", 2},
		{{"--max-frames", "513"}, "max-frames", 2},
		{{"-p", "999999999"}, "no such process", 1},
		{{"--bogus"}, "--bogus", 2},
		{{"-p", "1", "--", "/bin/true"}, "exclude", 2},
		{{"--exit-status", "-p", "1"}, "--exit-status", 2},
		{{"--", "/nonexistent/cmd"}, "cannot execute", 1},
		{{"--", "no-such-command-fxs"}, "cannot execute", 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[16] = {"record", "-o", out_path("bad.fxt")};
		struct run r;
		int n = 3;

		for (int k = 0; k < 6 && cases[i].args[k]; k++)
			args[n++] = cases[i].args[k];
		args[n] = NULL;
		run_as(&r, 0, args);
		ck_assert_msg(exit_code(&r) == cases[i].code, "case %zu (%s): exit %d: %s", i,
			      cases[i].cause, exit_code(&r), r.err);
		ck_assert_msg(strstr(r.err, cases[i].cause), "case %zu: '%s' not in: %s", i,
			      cases[i].cause, r.err);
		ck_assert_msg(!strncmp(r.err, "fxsampler: ", 11), "case %zu: %s", i, r.err);
		assert_no_output(tmpdir);
	}
}
END_TEST

START_TEST(test_bad_output_dir)
{
	struct run r;

	/* a runtime failure, not a usage error */
	RUN(&r, "record", "-d", "1", "-o", "/nonexistent-dir/x.fxt");
	ck_assert_int_eq(exit_code(&r), 1);
	ck_assert_msg(strstr(r.err, "/nonexistent-dir/x.fxt"), "%s", r.err);
	mkdir(out_path("ro"), 0555);
	/* Root writes anywhere: make the directory unwritable for a non-root user instead. */
	run_as(&r, 65534,
	       (const char *const[]){"record", "-d", "1", "-o", out_path("ro/x.fxt"), NULL});
	ck_assert_int_eq(exit_code(&r), 1);
	ck_assert_msg(strstr(r.err, "cannot write"), "%s", r.err);
	assert_no_output(out_path("ro"));
}
END_TEST

START_TEST(test_not_root)
{
	struct run r;

	run_as(&r, 65534,
	       (const char *const[]){"record", "-d", "1", "-o", out_path("nr.fxt"), NULL});
	ck_assert_int_eq(exit_code(&r), 1);
	ck_assert_msg(strstr(r.err, "CAP_BPF"), "%s", r.err);
	assert_no_output(tmpdir);
}
END_TEST

START_TEST(test_busy)
{
	pid_t holder = 0;
	struct run r;
	char want[64];
	int fd;

	ck_assert_int_eq(hostlock_acquire(HOSTLOCK_PATH, &fd, &holder), 0);
	RUN(&r, "record", "-d", "1", "-o", out_path("busy.fxt"), "--", prog("demo"), "1");
	hostlock_release(fd);
	ck_assert_int_eq(exit_code(&r), 1);
	snprintf(want, sizeof(want), "busy: the host's sampler is held by pid %d", (int)getpid());
	ck_assert_msg(strstr(r.err, want), "%s", r.err);
	assert_no_output(tmpdir);
}
END_TEST

START_TEST(test_dump_rejects_malformed)
{
	struct run r;
	char cmd[1200];
	FILE *out;

	RUN(&r, "record", "-q", "-o", out_path("good.fxt"), "--", prog("demo"), "0.2");
	ck_assert_msg(exit_code(&r) == 0, "%s", r.err);
	RUN(&r, "dump", out_path("good.fxt"));
	ck_assert_int_eq(exit_code(&r), 0);
	/* Cut the file in the middle of a record. */
	snprintf(cmd, sizeof(cmd), "head -c 1001 '%s' > '%s'", out_path("good.fxt"),
		 out_path("cut.fxt"));
	ck_assert_int_eq(system(cmd), 0);
	RUN(&r, "dump", out_path("cut.fxt"));
	ck_assert_int_eq(exit_code(&r), 1);
	ck_assert_msg(strstr(r.err, "offset"), "%s", r.err);
	/* A file cut short (issue 30): dump prints its whole records, then says so. */
	ck_assert_msg(strstr(r.err, "is cut short"), "%s", r.err);
	ck_assert_msg(strstr(r.out, " magic"), "no records printed before the warning:\n%s", r.out);
	/* report reports them, with one warning, and exits 0. */
	snprintf(cmd, sizeof(cmd), "head -c $(( $(stat -c %%s '%s') * 2 / 3 + 1 )) '%s' > '%s'",
		 out_path("good.fxt"), out_path("good.fxt"), out_path("cut2.fxt"));
	ck_assert_int_eq(system(cmd), 0);
	RUN(&r, "report", "--top", "3", out_path("cut2.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report of a cut file: exit %d: %s", exit_code(&r),
		      r.err);
	ck_assert_msg(strstr(r.out, "Samples: ") && !strstr(r.out, "Samples: 0 "), "%s", r.out);
	ck_assert_msg(strstr(r.err, "is cut short"), "%s", r.err);
	out = fopen(out_path("junk.fxt"), "w");
	fputs("not a trace at all", out);
	fclose(out);
	RUN(&r, "dump", out_path("junk.fxt"));
	ck_assert_int_eq(exit_code(&r), 1);
	ck_assert_msg(strstr(r.err, "offset 0"), "%s", r.err);
}
END_TEST

/* --- reports of real captures (issue 3) --- */

/* The count of the folded line that ends with suffix, summed over lines. */
static unsigned long folded_count(const char *folded, const char *suffix)
{
	unsigned long total = 0;
	const char *line = folded;
	size_t len = strlen(suffix);

	while (*line) {
		const char *end = strchr(line, '\n'), *space;

		if (!end)
			end = line + strlen(line);
		space = end;
		while (space > line && space[-1] != ' ')
			space--;
		if (space > line && (size_t)(space - 1 - line) >= len &&
		    !strncmp(space - 1 - len, suffix, len))
			total += strtoul(space, NULL, 10);
		line = *end ? end + 1 : end;
	}
	return total;
}

/* The first function row of the top view. */
static void top_function(const char *top, char *ret, size_t size)
{
	const char *row = strstr(top, "Function\n");
	char self[32], selfp[32], total[32], totalp[32];

	ck_assert_msg(row, "no function table in:\n%s", top);
	ck_assert_int_eq(
		sscanf(row + 9, "%31s %31s %31s %31s %255s", self, selfp, total, totalp, ret), 5);
	(void)size;
}

START_TEST(test_report_top_and_folded)
{
	struct capture_file *f;
	char leaf[256];
	struct run r;
	unsigned long chain;

	RUN(&r, "record", "-q", "-o", out_path("rep.fxt"), "--", prog("demo"), "2");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	RUN(&r, "report", out_path("rep.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report failed: %s", r.err);
	top_function(r.out, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "inner");
	RUN(&r, "report", "--folded", out_path("rep.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report --folded failed: %s", r.err);
	f = load(out_path("rep.fxt"));
	/* The whole chain, libc's start included, resolved from the file's own mappings. */
	chain = folded_count(r.out, "__libc_start_call_main;main;outer;middle;inner");
	ck_assert_msg(chain * 100 >= f->nr_samples * 85, "%lu of %zu samples carry the chain:\n%s",
		      chain, f->nr_samples, r.out);
	/* By default the process frame is its name, the thread frame the thread's. */
	ck_assert_msg(strstr(r.out, "demo;demo;__libc_start_call_main;main;outer;middle;inner "),
		      "no demo;demo; line in:\n%s", r.out);
	/* Split: the process frame is the command line, the thread frame name-TID. */
	RUN(&r, "report", "--folded", "--split-processes", "--split-threads", out_path("rep.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report --folded --split-*: %s", r.err);
	snprintf(leaf, sizeof(leaf), "\n%s 2;demo-", prog("demo"));
	ck_assert_msg(strstr(r.out, leaf + 1) == r.out || strstr(r.out, leaf), "no '%s' in:\n%s",
		      leaf + 1, r.out);
	RUN(&r, "report", "--folded", "--split-processes", "--merge-threads", out_path("rep.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report --folded --merge-threads failed: %s", r.err);
	snprintf(leaf, sizeof(leaf), "%s 2;demo;__libc_start_call_main;main;outer;middle;inner ",
		 prog("demo"));
	ck_assert_msg(strstr(r.out, leaf), "no '%s' in:\n%s", leaf, r.out);
	/* The capture's clock: when it started (pprof's time_nanos) and stopped. */
	{
		uint64_t real = 0, start = 0, stop = 0;
		struct fxt_reader *rd = fxt_reader__open(out_path("rep.fxt"));
		struct fxt_record rec;
		bool seen = false;

		ck_assert_ptr_nonnull(rd);
		while (fxt_reader_next(rd, &rec) == 1) {
			if (rec.type != FXT_RT_EVENT || rec.subtype != FXT_EVENT_INSTANT ||
			    strcmp(rec.name, FXT_CLOCK_EVENT))
				continue;
			seen = true;
			for (unsigned i = 0; i < rec.nr_args; i++) {
				if (!strcmp(rec.args[i].name, "start_realtime_ns"))
					real = rec.args[i].u;
				if (!strcmp(rec.args[i].name, "start_boottime_ns"))
					start = rec.args[i].u;
				if (!strcmp(rec.args[i].name, "stop_boottime_ns"))
					stop = rec.args[i].u;
			}
		}
		fxt_reader__free(rd);
		ck_assert_msg(seen, "no clock event in the capture");
		ck_assert_uint_le(real / 1000000000ULL, (uint64_t)time(NULL));
		ck_assert_uint_ge(real / 1000000000ULL + 600, (uint64_t)time(NULL));
		/* demo 2 spins for 2 s. */
		ck_assert_uint_ge(stop - start, 1900000000ULL);
		ck_assert_uint_le(stop - start, 60000000000ULL);
	}
	unload(f);
}
END_TEST

START_TEST(test_report_pprof_reads_in_go)
{
	char cmd[1200], line[512];
	bool found = false;
	struct run r;
	FILE *p;

	if (system("command -v go >/dev/null 2>&1")) {
		/* make deps installs golang-go; without it this check cannot be made. */
		ck_abort_msg("go is not installed: run 'make deps' (golang-go)");
	}
	RUN(&r, "record", "-q", "-o", out_path("pp.fxt"), "--", prog("demo"), "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	RUN(&r, "report", "--pprof", out_path("pp.pb.gz"), out_path("pp.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report --pprof failed: %s", r.err);
	snprintf(cmd, sizeof(cmd), "HOME=%s GOCACHE=%s/go go tool pprof -top '%s' 2>&1", tmpdir,
		 tmpdir, out_path("pp.pb.gz"));
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	/* The first row after the header names the top function. */
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "flat%")) {
			ck_assert_ptr_nonnull(fgets(line, sizeof(line), p));
			found = strstr(line, " inner") != NULL;
			break;
		}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(found, "go tool pprof's top row: %s", line);
}
END_TEST

START_TEST(test_report_four_named_threads)
{
	struct run r;

	RUN(&r, "record", "-q", "-o", out_path("t4.fxt"), "--", prog("demo"), "1", "4");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	RUN(&r, "report", out_path("t4.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report failed: %s", r.err);
	ck_assert_msg(strstr(r.out, "Threads: 4"), "%s", r.out);
	for (int i = 1; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "demo-worker-%d (demo)", i);
		ck_assert_msg(strstr(r.out, name), "no thread %s in:\n%s", name, r.out);
	}
}
END_TEST

START_TEST(test_report_forked_child)
{
	struct run r;

	RUN(&r, "record", "-q", "-o", out_path("fork.fxt"), "--", prog("forker"), "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	RUN(&r, "report", "--folded", out_path("fork.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report failed: %s", r.err);
	ck_assert_msg(folded_count(r.out, "child_main;child_work;child_leaf") > 500,
		      "the child was not sampled or symbolized:\n%s", r.out);
	/* --no-inherit: only the parent, which waits. */
	RUN(&r, "record", "-q", "--no-inherit", "-o", out_path("nofork.fxt"), "--", prog("forker"),
	    "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	RUN(&r, "report", "--folded", out_path("nofork.fxt"));
	ck_assert_uint_eq(folded_count(r.out, "child_leaf"), 0);
}
END_TEST

/* A process that exits long before the capture ends is still symbolized. */
START_TEST(test_report_exited_process)
{
	char pidarg[32], leaf[256];
	pid_t rec, demo;
	struct run r;
	int fd = temp_fd(), status;
	char *argv[] = {(char *)bin,  (char *)"record",	    (char *)"-q",
			(char *)"-a", (char *)"-d",	    (char *)"3",
			(char *)"-o", out_path("gone.fxt"), NULL};

	rec = spawn_io(argv, -1, fd);
	sleep(1);
	demo = start_prog("demo", "0.5", "1");
	ck_assert_int_eq(waitpid(demo, &status, 0), demo);
	collect(rec, fd, &r);
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)demo);
	RUN(&r, "report", "--pid", pidarg, out_path("gone.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report failed: %s", r.err);
	top_function(r.out, leaf, sizeof(leaf));
	ck_assert_str_eq(leaf, "inner");
}
END_TEST

/* A library dlopened after the process was first seen is symbolized. */
START_TEST(test_report_dlopen)
{
	struct run r;

	RUN(&r, "record", "-q", "-o", out_path("dl.fxt"), "--", prog("dlopener"), "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	RUN(&r, "report", "--folded", out_path("dl.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report failed: %s", r.err);
	ck_assert_msg(folded_count(r.out, "main;lib_outer;lib_spin") > 500,
		      "the dlopened library was not symbolized:\n%s", r.out);
}
END_TEST

/*
 * A library closed and another opened at its address (issue 22): the report
 * names each sample by the library mapped there at its time. reopen runs
 * libshape_a.so's sa_inner, dlcloses it, and runs libshape_b.so's sb_inner
 * at the same address: a report that picked the newest mapping for every
 * sample named sa_inner's samples with libshape_b.so's symbols. The leaf
 * pcs are exact whatever the walker, so the frame-pointer walker (these
 * libraries have no frame pointers) is enough and stays clear of the CFI
 * walker's own reuse defect.
 */
START_TEST(test_report_library_reopened)
{
	const char *path = out_path("reopen.fxt");
	size_t first = 0, second = 0;
	unsigned long sa, sb;
	struct capture_file *f;
	void *a = NULL, *b = NULL;
	const char *ab;
	struct run r;

	RUN(&r, "record", "-q", "--unwind", "fp", "-o", path, "--", prog("reopen"), "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	ab = strstr(r.out, "a=");
	ck_assert_msg(ab && sscanf(ab, "a=%p b=%p", &a, &b) == 2, "reopen printed: %s", r.out);
	ck_assert_msg(a == b, "the loader put libshape_b.so elsewhere (%s): nothing to test", ab);
	/* What each sample's leaf is, by the file's mappings in the order they came. */
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_samples; i++) {
		first += leaf_is(f, &f->samples[i], "sa_inner");
		second += leaf_is(f, &f->samples[i], "sb_inner");
	}
	unload(f);
	ck_assert_msg(first > 300 && second > 300, "only %zu and %zu samples in the leaves", first,
		      second);
	RUN(&r, "report", "--folded", path);
	ck_assert_msg(exit_code(&r) == 0, "report --folded failed: %s", r.err);
	sa = folded_count(r.out, ";sa_inner");
	sb = folded_count(r.out, ";sb_inner");
	printf("reopen at %p: %zu and %zu samples in sa_inner and sb_inner; the report names "
	       "%lu and %lu\n",
	       a, first, second, sa, sb);
	fflush(stdout);
	/* Each library's samples by its own names: none lost to the other's. */
	ck_assert_msg(sa * 100 >= first * 98 && sa * 100 <= first * 102,
		      "report: %lu samples in sa_inner, the file %zu:\n%s", sa, first, r.out);
	ck_assert_msg(sb * 100 >= second * 98 && sb * 100 <= second * 102,
		      "report: %lu samples in sb_inner, the file %zu:\n%s", sb, second, r.out);
	RUN(&r, "report", "--top", "4", path);
	ck_assert_msg(exit_code(&r) == 0, "report --top failed: %s", r.err);
	ck_assert_msg(strstr(r.out, "  sa_inner [libshape_a.so]\n") &&
			      strstr(r.out, "  sb_inner [libshape_b.so]\n"),
		      "%s", r.out);
}
END_TEST

/* Threads that live 5 ms each keep the names they gave themselves. */
START_TEST(test_short_lived_threads_named)
{
	struct capture_file *f;
	unsigned named = 0, sampled = 0;
	struct run r;

	RUN(&r, "record", "-q", "-o", out_path("short.fxt"), "--", prog("shortthreads"), "40");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(out_path("short.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_threads; i++) {
		const struct named *t = &f->threads[i];
		const char *last = thread_name(f, t->koid);

		if (t->koid == t->process || last != t->name)
			continue;
		sampled++;
		named += !strncmp(last, "short-", 6);
	}
	ck_assert_msg(sampled >= 30, "only %u of 40 short threads sampled", sampled);
	ck_assert_uint_eq(named, sampled);
	unload(f);
}
END_TEST

/* In a pid namespace, pids are the namespace's and the chain still resolves. */
START_TEST(test_pid_namespace)
{
	char cmd[1200];
	struct capture_file *f;
	size_t whole = 0;

	snprintf(cmd, sizeof(cmd), "unshare -p -f --mount-proc '%s' record -q -o '%s' -- '%s' 1",
		 bin, out_path("ns.fxt"), prog("demo"));
	ck_assert_int_eq(system(cmd), 0);
	f = load(out_path("ns.fxt"));
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_samples; i++) {
		/* fxsampler is pid 1 of the namespace; its command comes next. */
		ck_assert_uint_lt(f->samples[i].pid, 100);
		whole += has_chain(f, &f->samples[i], demo_chain, 4);
	}
	ck_assert_msg(whole * 100 >= f->nr_samples * 80, "%zu of %zu samples carry the chain",
		      whole, f->nr_samples);
	unload(f);
}
END_TEST

static Suite *live_suite(void)
{
	Suite *s = suite_create("live");
	TCase *capture = tcase_create("capture");
	TCase *errors = tcase_create("errors");
	TCase *report = tcase_create("report");

	tcase_add_checked_fixture(capture, setup, teardown);
	tcase_set_timeout(capture, 120);
	tcase_add_test(capture, test_known_chain);
	tcase_add_test(capture, test_pid_filter);
	tcase_add_test(capture, test_threads_named);
	tcase_add_test(capture, test_accounting_under_load);
	tcase_add_test(capture, test_drops_accounted);
	tcase_add_test(capture, test_truncated);
	tcase_add_test(capture, test_sigint_valid_file);
	tcase_add_test(capture, test_sigterm_valid_file);
	tcase_add_test(capture, test_compressed_round_trip);
	tcase_add_test(capture, test_host_wide);
	suite_add_tcase(s, capture);

	tcase_add_checked_fixture(report, setup, teardown);
	tcase_set_timeout(report, 120);
	tcase_add_test(report, test_report_top_and_folded);
	tcase_add_test(report, test_report_pprof_reads_in_go);
	tcase_add_test(report, test_report_four_named_threads);
	tcase_add_test(report, test_report_forked_child);
	tcase_add_test(report, test_report_exited_process);
	tcase_add_test(report, test_pid_namespace);
	tcase_add_test(report, test_report_dlopen);
	tcase_add_test(report, test_report_library_reopened);
	tcase_add_test(report, test_short_lived_threads_named);
	suite_add_tcase(s, report);

	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_set_timeout(errors, 120);
	tcase_add_test(errors, test_bad_input);
	tcase_add_test(errors, test_bad_output_dir);
	tcase_add_test(errors, test_not_root);
	tcase_add_test(errors, test_busy);
	tcase_add_test(errors, test_dump_rejects_malformed);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	return live_main(live_suite());
}
