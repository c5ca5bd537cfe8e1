// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live tests of the CFI walker (record --unwind): programs built without
 * frame pointers give their known chains whole, leaf included, to _start;
 * off-CPU stacks keep the function that called libc; code whose CFI lies
 * ends the stack with a counted reason, never a wrong frame; --unwind=fp is
 * the frame-pointer walker alone.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live.h"

static void setup(void)
{
	live_make_dir("/tmp/fxs-live-cfi-XXXXXX");
}

static void teardown(void)
{
	live_remove_dir();
}

static bool x86_64(void)
{
	struct utsname u;

	return !uname(&u) && !strcmp(u.machine, "x86_64");
}

static const char *const nofp_chain[] = {"nf_leaf", "nf_inner", "nf_middle", "nf_outer", "main"};

/* Whether the outermost frame of s is the program's entry. */
static bool reaches_entry(const struct capture_file *f, const struct sample *s)
{
	const char *last = s->n ? symbolize(f, s, s->n - 1) : NULL;

	return last && (!strcmp(last, "_start") || !strcmp(last, "start_thread") ||
			!strcmp(last, "__clone3") || !strcmp(last, "clone3"));
}

/* prog (argument arg) under --unwind=mode: its samples in nf_leaf carry the chain to _start. */
static void check_nofp(const char *name, const char *mode)
{
	const char *path = out_path("nofp.fxt");
	struct capture_file *f;
	size_t target = 0, whole = 0, entry = 0, marked = 0;
	struct run r;

	RUN(&r, "record", "-q", "--unwind", mode, "-o", path, "--", prog(name), "2");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_samples; i++) {
		const struct sample *s = &f->samples[i];

		marked += !!(s->flags & FXT_BT_FLAG_FP_FALLBACK);
		if (!leaf_is(f, s, "nf_leaf"))
			continue;
		target++;
		if (has_chain(f, s, nofp_chain, 5)) {
			whole++;
			entry += reaches_entry(f, s);
		}
	}
	ck_assert_msg(target > 500, "%s: only %zu samples in nf_leaf()", name, target);
	ck_assert_msg(whole * 100 >= target * 95,
		      "%s: %zu of %zu samples in nf_leaf carry the chain", name, whole, target);
	ck_assert_msg(entry * 100 >= target * 95, "%s: %zu of %zu samples in nf_leaf reach _start",
		      name, entry, target);
	/* Ended normally, counted so: the first samples may precede the tables. */
	ck_assert_uint_ge(counter_value(counter(f, "unwind"), "end") * 100,
			  total(f, "written") * 95);
	ck_assert_uint_ge(counter_value(counter(f, "cfi_tables"), "loaded"), 2);
	/* the vdso's too: its image is copied to a memfd for the generator */
	ck_assert_uint_eq(counter_value(counter(f, "cfi_tables"), "failed"), 0);
	/* Each stack walked on by frame pointers is marked in the file, and counted. */
	ck_assert_uint_eq(marked, counter_value(counter(f, "unwind"), "fp_fallback"));
	if (!strcmp(mode, "cfi"))
		ck_assert_uint_eq(marked, 0);
	check_accounting(f);
	unload(f);
}

START_TEST(test_omit_frame_pointer)
{
	check_nofp("nofp", "auto");
}
END_TEST

START_TEST(test_omit_frame_pointer_cfi_only)
{
	check_nofp("nofp", "cfi");
}
END_TEST

START_TEST(test_omit_leaf_frame_pointer)
{
	check_nofp("nofp_leaf", "auto");
}
END_TEST

/*
 * Where the recursion starts in s: the frame after bottom (within the first
 * few: libc's frames are under it off the CPU), or 0 when bottom is not there.
 */
static size_t after_bottom(const struct capture_file *f, const struct sample *s, const char *bottom)
{
	for (size_t k = 0; k < s->n && k < 8; k++)
		if (!strcmp(symbolize(f, s, k) ?: "", bottom))
			return k + 1;
	return 0;
}

/*
 * prog recursing depth deep under record's mode and --max-frames max (NULL:
 * the default): at least 95 % of the samples in spin carry every recurse
 * frame, main and the entry (under --unwind=fp, main: Debian's libc below it
 * keeps no frame pointers). off: the same of the off-CPU intervals in nap
 * (recurse's "sleep") that the CFI walker walked: the first waits come before
 * the process's tables are loaded and go by frame pointers, marked (issue
 * 37's "first milliseconds", not this check's).
 */
static void check_deep_as(const char *prog_name, const char *mode, const char *max, int depth,
			  bool off)
{
	const char *path = out_path("deep.fxt"), *bottom = off ? "nap" : "spin";
	const char *argv[16] = {"record", "-q", "--unwind", mode};
	char depth_arg[16];
	struct capture_file *f;
	size_t target = 0, whole = 0, argc = 4, nr;
	struct run r;

	snprintf(depth_arg, sizeof(depth_arg), "%d", depth);
	if (max) {
		argv[argc++] = "--max-frames";
		argv[argc++] = max;
	}
	if (off)
		argv[argc++] = "--off-cpu";
	argv[argc++] = "-o";
	argv[argc++] = path;
	argv[argc++] = "--";
	argv[argc++] = prog(prog_name);
	argv[argc++] = depth_arg;
	argv[argc++] = "2";
	if (off)
		argv[argc++] = "sleep";
	argv[argc] = NULL;
	run_as(&r, 0, argv);
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	nr = off ? f->nr_offcpu : f->nr_samples;
	for (size_t i = 0; i < nr; i++) {
		const struct sample *s = off ? &f->offcpu[i] : &f->samples[i];
		size_t k = after_bottom(f, s, bottom);
		int n = 0;

		if (!k || (!off && k != 1) || (off && (s->flags & FXT_BT_FLAG_FP_FALLBACK)))
			continue;
		target++;
		while (k < s->n && symbolize(f, s, k) && !strcmp(symbolize(f, s, k), "recurse")) {
			n++;
			k++;
		}
		if (n == depth && k < s->n && !strcmp(symbolize(f, s, k) ?: "", "main") &&
		    (!strcmp(mode, "fp") || reaches_entry(f, s)) &&
		    !(s->flags & FXT_BT_FLAG_TRUNCATED))
			whole++;
	}
	ck_assert_msg(target > (off ? 50 : 500), "only %zu %s in %s()", target,
		      off ? "intervals" : "samples", bottom);
	ck_assert_msg(whole * 100 >= target * 95,
		      "%s: %zu of %zu %s in %s carry %d recurse frames, main and _start", prog_name,
		      whole, target, off ? "intervals" : "samples", bottom, depth);
	check_accounting(f);
	unload(f);
}

static void check_deep(const char *prog_name, const char *mode, const char *max, int depth)
{
	check_deep_as(prog_name, mode, max, depth, false);
}

/*
 * A deep stack (recurse 150, --max-frames 255): the CFI walker reads it
 * through windows of the stack (bpf/walk_cfi.bpf.h cfi_read), some KiB
 * across several windows and pages: every frame, to _start.
 */
START_TEST(test_deep_stack_across_windows)
{
	check_deep("recurse", "cfi", "255", 150);
}
END_TEST

/*
 * Issue 37: the default --max-frames (255; it was 64, and 10 % of a clang++
 * compile's stacks hit it) reaches main through 100 frames without frame
 * pointers, under the default --unwind.
 */
START_TEST(test_default_depth_reaches_main)
{
	check_deep("recurse_nofp", "auto", NULL, 100);
}
END_TEST

/*
 * Issue 37: a program recursing 300 deep gives all 300 frames (and main, and
 * the entry) with --max-frames 512: past the 255 frames of one FXT backtrace
 * record (the rest in its fxsampler.frames blob), by each walker: the CFI
 * walker without frame pointers, the frame-pointer walker in parts
 * (bpf/walk.bpf.h) with them, and the off-CPU program's walk of where a
 * thread blocked.
 */
START_TEST(test_max_frames_512_cfi)
{
	check_deep("recurse_nofp", "cfi", "512", 300);
}
END_TEST

START_TEST(test_max_frames_512_fp)
{
	check_deep("recurse", "fp", "512", 300);
}
END_TEST

START_TEST(test_max_frames_512_offcpu)
{
	check_deep_as("recurse_nofp", "auto", "512", 300, true);
}
END_TEST

/*
 * A library closed and another opened at its address, both without frame
 * pointers and with frames of other sizes: the second is walked by its own
 * table (the mapping event replaces the range), never by the first's rules
 * or a per-CPU hint left from them. Until its record is read, its frames
 * have no module (a reason, or under auto the frame-pointer chain, marked):
 * before, the first library's rules made wrong stacks there, some of one
 * frame counted as ended normally.
 */
static void check_reopened(const char *mode)
{
	static const char *const chain[] = {"sb_inner", "sb_middle",   "sb_outer",
					    "sb_run",	"run_library", "main"};
	const char *path = out_path("reopen.fxt");
	size_t target = 0, whole = 0, first = 0, marked = 0, entry = 0;
	struct capture_file *f;
	struct run r;

	RUN(&r, "record", "-q", "--unwind", mode, "-o", path, "--", prog("reopen"), "1.5");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	printf("reopen %s: %s", mode, r.out);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_samples; i++) {
		const struct sample *s = &f->samples[i];
		bool fallback = s->flags & FXT_BT_FLAG_FP_FALLBACK;

		entry += !fallback && reaches_entry(f, s);
		first += leaf_is(f, s, "sa_inner");
		if (!leaf_is(f, s, "sb_inner"))
			continue;
		target++;
		if (has_chain(f, s, chain, 6) && reaches_entry(f, s))
			whole++;
		else
			marked += fallback;
	}
	printf("reopen %s: %zu samples in sa_inner; %zu of %zu in sb_inner whole to _start, %zu "
	       "others marked; %zu of %zu stacks ended normally reach the entry\n",
	       mode, first, whole, target, marked, entry,
	       (size_t)counter_value(counter(f, "unwind"), "end"));
	fflush(stdout);
	ck_assert_msg(first > 500 && target > 500, "only %zu and %zu samples in the leaves", first,
		      target);
	ck_assert_msg(whole * 100 >= target * 95, "%zu of %zu samples in sb_inner whole to _start",
		      whole, target);
	/* Never silently wrong: a stack counted as ended normally is whole. */
	ck_assert_uint_ge(entry, counter_value(counter(f, "unwind"), "end"));
	/* and under auto, a stack in sb_inner that is not whole was walked on by frame pointers */
	if (!strcmp(mode, "auto"))
		ck_assert_uint_eq(whole + marked, target);
	check_accounting(f);
	unload(f);
}

START_TEST(test_library_reopened_at_its_address)
{
	check_reopened("cfi");
}
END_TEST

START_TEST(test_library_reopened_at_its_address_auto)
{
	check_reopened("auto");
}
END_TEST

/*
 * --unwind=fp is the frame-pointer walker and nothing else: no walk ends
 * with a reason, no table is made, and code without frame pointers loses
 * its chain as it always did.
 */
START_TEST(test_fp_is_the_fp_walker)
{
	const char *path = out_path("fp.fxt");
	struct capture_file *f;
	size_t target = 0, whole = 0;
	struct run r;

	RUN(&r, "record", "-q", "--unwind", "fp", "-o", path, "--", prog("nofp"), "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	ck_assert_ptr_null(strstr(r.err, "unwind"));
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	ck_assert_ptr_null(counter(f, "unwind"));
	ck_assert_ptr_null(counter(f, "cfi_tables"));
	for (size_t i = 0; i < f->nr_samples; i++) {
		if (!leaf_is(f, &f->samples[i], "nf_leaf"))
			continue;
		target++;
		whole += has_chain(f, &f->samples[i], nofp_chain, 5);
	}
	ck_assert_uint_gt(target, 200);
	ck_assert_msg(whole * 100 < target * 50, "%zu of %zu whole by frame pointers alone?", whole,
		      target);
	check_accounting(f);
	unload(f);
}
END_TEST

/*
 * The samples of nofp's children (every pid but parent's): how many are in
 * nf_leaf, how many of those carry the chain to _start; how many children
 * were sampled, and how many reached _start from their first sample on.
 */
struct children {
	size_t leaf, whole, sampled, first_whole;
};

static void count_children(const struct capture_file *f, uint32_t parent, struct children *c)
{
	static const char *const chain[] = {"nf_leaf",	"nf_inner",   "nf_middle",
					    "nf_outer", "fork_child", "main"};
	uint32_t seen[256];
	size_t nr_seen = 0, k;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < f->nr_samples; i++) {
		const struct sample *s = &f->samples[i];
		const char *name = process_name(f, s->pid);

		if (s->pid == parent || !name || strcmp(name, "nofp"))
			continue;
		if (leaf_is(f, s, "nf_leaf")) {
			c->leaf++;
			c->whole += has_chain(f, s, chain, 6) && reaches_entry(f, s);
		}
		/* samples are in time order: a pid's first one is its first sample */
		for (k = 0; k < nr_seen && seen[k] != s->pid; k++)
			;
		if (k < nr_seen || nr_seen == 256)
			continue;
		seen[nr_seen++] = s->pid;
		c->sampled++;
		c->first_whole += reaches_entry(f, s);
	}
}

/*
 * Children forked without exec, of a program without frame pointers: a
 * child walks by its parent's tables from its first sample (the kernel
 * copies the parent's ranges at the fork), never by frame pointers first.
 */
START_TEST(test_forked_children_whole)
{
	const char *path = out_path("fork.fxt");
	struct capture_file *f;
	struct children c;
	struct run r;

	RUN(&r, "record", "-q", "-o", path, "--", prog("nofp"), "1", "0", "20");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	ck_assert_uint_gt(f->nr_samples, 0);
	/* the parent spins first: the first sample is its own */
	count_children(f, f->samples[0].pid, &c);
	printf("forked children: %zu of %zu samples in nf_leaf whole; %zu of %zu children whole "
	       "from the first sample\n",
	       c.whole, c.leaf, c.first_whole, c.sampled);
	ck_assert_msg(c.sampled >= 18, "only %zu of 20 children sampled", c.sampled);
	ck_assert_uint_gt(c.leaf, 500);
	ck_assert_msg(c.whole * 100 >= c.leaf * 95, "%zu of %zu child samples in nf_leaf whole",
		      c.whole, c.leaf);
	ck_assert_msg(c.first_whole * 100 >= c.sampled * 95,
		      "%zu of %zu children reach _start from their first sample", c.first_whole,
		      c.sampled);
	check_accounting(f);
	unload(f);
}
END_TEST

/*
 * Host-wide, children forked on the pids of children that exited (pid
 * reuse): each walks by its parent's tables, not by frame pointers as a
 * process the capture had written off.
 */
START_TEST(test_reused_pids_whole)
{
	const char *path = out_path("reuse.fxt");
	/* Stopped once nofp is done: under load its 2.2 s of CPU outlast a fixed -d 5. */
	char *rec_argv[] = {(char *)bin,  (char *)"record", (char *)"-q",
			    (char *)"-a", (char *)"-d",	    (char *)"50",
			    (char *)"-o", (char *)path,	    NULL};
	char *prog_argv[] = {prog("nofp"), (char *)"1",	    (char *)"0",
			     (char *)"12", (char *)"reuse", NULL};
	int err_fd = temp_fd(), out_fd = temp_fd(), status, reused = 0;
	char out[256] = "";
	struct capture_file *f;
	struct children c;
	pid_t rec, p;
	struct run r;

	rec = spawn_io(rec_argv, -1, err_fd);
	sleep(1);
	p = spawn_io(prog_argv, out_fd, -1);
	ck_assert_int_eq(waitpid(p, &status, 0), p);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "nofp failed");
	kill(rec, SIGINT);
	collect(rec, err_fd, &r);
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	read_fd(out_fd, out, sizeof(out));
	ck_assert_msg(sscanf(out, "reused %d", &reused) == 1, "nofp said '%s'", out);
	printf("reused pids: %d of 11 children\n", reused);
	ck_assert_msg(reused >= 6, "only %d children on a reused pid", reused);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	count_children(f, (uint32_t)p, &c);
	printf("reused pids: %zu of %zu samples in nf_leaf whole\n", c.whole, c.leaf);
	ck_assert_uint_gt(c.leaf, 300);
	ck_assert_msg(c.whole * 100 >= c.leaf * 95, "%zu of %zu child samples in nf_leaf whole",
		      c.whole, c.leaf);
	unload(f);
}
END_TEST

/* A leaf whose CFA rule is corrupt: its stacks end at it, with the reason counted. */
static void check_bad_rule(const char *which, const char *reason)
{
	const char *path = out_path("bad.fxt");
	char leaf[32];
	struct capture_file *f;
	size_t target = 0;
	struct run r;

	snprintf(leaf, sizeof(leaf), "bc_%s", which);
	RUN(&r, "record", "-q", "--unwind", "cfi", "-o", path, "--", prog("badcfi"), which, "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_samples; i++) {
		const struct sample *s = &f->samples[i];

		if (!leaf_is(f, s, leaf))
			continue;
		target++;
		/* never a frame made from the lie */
		ck_assert_msg(s->n == 1, "a stack of %u frames through %s", s->n, leaf);
	}
	ck_assert_msg(target > 200, "only %zu samples in %s", target, leaf);
	/* each for the reason, but those before the process's tables were loaded */
	ck_assert_uint_ge(counter_value(counter(f, "unwind"), reason) +
				  counter_value(counter(f, "unwind"), "no_process") +
				  counter_value(counter(f, "unwind"), "no_table"),
			  target);
	ck_assert_uint_ge(counter_value(counter(f, "unwind"), reason) * 100, target * 95);
	ck_assert_uint_eq(counter_value(counter(f, "unwind"), "fp_fallback"), 0);
	check_accounting(f);
	unload(f);
}

START_TEST(test_cfa_not_growing)
{
	if (!x86_64())
		return;
	check_bad_rule("sp0", "bad_frame");
}
END_TEST

START_TEST(test_cfa_past_the_stack)
{
	if (!x86_64())
		return;
	check_bad_rule("far", "fault");
}
END_TEST

START_TEST(test_cfa_expression)
{
	if (!x86_64())
		return;
	check_bad_rule("expr", "unsupported_rule");
}
END_TEST

/* Whether chain appears in s as consecutive frames, anywhere. */
static bool has_chain_anywhere(const struct capture_file *f, const struct sample *s,
			       const char *const *chain, unsigned len)
{
	for (unsigned at = 0; at + len <= s->n; at++) {
		unsigned k = 0;

		for (; k < len; k++) {
			const char *name = symbolize(f, s, at + k);

			if (!name || strcmp(name, chain[k]))
				break;
		}
		if (k == len)
			return true;
	}
	return false;
}

/*
 * A program built with frame pointers, blocked in libc (nanosleep, read,
 * pthread_mutex_lock), which keeps none: the function that called libc is
 * in the off-CPU stacks.
 */
START_TEST(test_offcpu_caller_of_libc)
{
	static const char *const chains[][3] = {{"a_leaf", "a_mid", "a_outer"},
						{"b_leaf", "b_mid", "b_outer"},
						{"c_leaf", "c_mid", "c_outer"}};
	static const char *const threads[] = {"sleeper", "piper", "locker"};
	const char *path = out_path("off.fxt");
	size_t all[3] = {0}, whole[3] = {0}, seen[3] = {0};
	struct capture_file *f;
	struct run r;

	RUN(&r, "record", "-q", "--off-cpu", "-o", path, "--", prog("offcpu"), "3");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_offcpu; i++) {
		const struct sample *s = &f->offcpu[i];
		const char *name = thread_name(f, s->tid);

		/* a wait in libc, not a preemption */
		if (FXT_BT_OFFCPU_STATE(s->flags) == FXS_OFF_RUNNABLE)
			continue;
		for (unsigned k = 0; name && k < 3; k++) {
			if (strcmp(name, threads[k]))
				continue;
			/*
			 * A thread's first wait begins as the process starts,
			 * before its tables can be loaded: by the documented
			 * rule it is walked by frame pointers (and marked).
			 */
			if (!seen[k]++)
				continue;
			all[k]++;
			whole[k] += has_chain_anywhere(f, s, chains[k], 3);
		}
	}
	for (unsigned k = 0; k < 3; k++) {
		ck_assert_msg(all[k] >= 5, "%s: only %zu intervals", threads[k], all[k]);
		ck_assert_msg(whole[k] * 100 >= all[k] * 95, "%s: %zu of %zu intervals hold %s",
			      threads[k], whole[k], all[k], chains[k][0]);
	}
	unload(f);
}
END_TEST

/*
 * New images through fxsamplerd: a shell runs nofp 8 times, 0.1 s of CPU
 * each, each a new process and a new image, recorded through the daemon
 * under --unwind=auto. An image is walked by its tables once the daemon has
 * read its exec and mapping records, by frame pointers (marked) before: the
 * exec wakes the daemon, which drains again within a few ms while a record
 * the walker waits for is held, so few of a child's samples go by frame
 * pointers (95-96 % of the samples in nf_leaf whole and unmarked here). A
 * daemon that drained every 100 ms alone gave nearly all of them to frame
 * pointers (2-8 % whole): a child's 0.1 s is over before its records are read.
 */
START_TEST(test_exec_through_daemon)
{
	const char *path = out_path("dexec.fxt");
	size_t target = 0, whole = 0, marked = 0, nr_pids = 0, k;
	struct run *r = calloc(1, sizeof(*r));
	struct capture_file *f;
	uint32_t pids[64];
	char sock[300], cmd[700];
	pid_t d;
	int st;

	ck_assert_ptr_nonnull(r);
	d = live_start_tmp_daemon(sock, sizeof(sock));
	ck_assert_int_gt(d, 0);
	snprintf(cmd, sizeof(cmd), "for i in 1 2 3 4 5 6 7 8; do %s 0.1; done", prog("nofp"));
	RUN(r, "record", "-q", "--daemon", "--socket", sock, "-o", path, "--", "/bin/sh", "-c",
	    cmd);
	kill(d, SIGTERM);
	waitpid(d, &st, 0);
	ck_assert_msg(exit_code(r) == 0, "record failed: %s", r->err);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	for (size_t i = 0; i < f->nr_samples; i++) {
		const struct sample *s = &f->samples[i];
		bool fallback = s->flags & FXT_BT_FLAG_FP_FALLBACK;

		if (!leaf_is(f, s, "nf_leaf"))
			continue;
		target++;
		marked += fallback;
		whole += !fallback && has_chain(f, s, nofp_chain, 5) && reaches_entry(f, s);
		for (k = 0; k < nr_pids && pids[k] != s->pid; k++)
			;
		if (k == nr_pids && nr_pids < 64)
			pids[nr_pids++] = s->pid;
	}
	printf("exec through the daemon: %zu of %zu samples in nf_leaf whole and unmarked, %zu "
	       "marked, in %zu processes\n",
	       whole, target, marked, nr_pids);
	ck_assert_msg(nr_pids >= 7, "only %zu of 8 children sampled in nf_leaf", nr_pids);
	ck_assert_uint_gt(target, 200);
	ck_assert_msg(whole * 100 >= target * 80,
		      "%zu of %zu samples in nf_leaf whole to _start and unmarked (%zu marked)",
		      whole, target, marked);
	check_accounting(f);
	unload(f);
	free(r);
}
END_TEST

START_TEST(test_bad_options)
{
	struct run r;

	RUN(&r, "record", "--unwind", "dwarf", "-o", out_path("x.fxt"), "--", "true");
	ck_assert_int_eq(exit_code(&r), 2);
	ck_assert_ptr_nonnull(strstr(r.err, "invalid --unwind 'dwarf': auto, fp or cfi"));
	RUN(&r, "record", "--cfi-memory", "1K", "-o", out_path("x.fxt"), "--", "true");
	ck_assert_int_eq(exit_code(&r), 2);
	ck_assert_ptr_nonnull(strstr(r.err, "invalid --cfi-memory '1K'"));
	RUN(&r, "record", "--max-frames", "513", "-o", out_path("x.fxt"), "--", "true");
	ck_assert_int_eq(exit_code(&r), 2);
	ck_assert_ptr_nonnull(strstr(r.err, "invalid --max-frames '513': 1 to 512"));
	ck_assert_int_eq(access(out_path("x.fxt"), F_OK), -1);
}
END_TEST

/*
 * Issue 35: report --top's header names the module the stacks went without
 * a table in. In 64K of tables nofp's own fits, libc's does not (left out):
 * its callers' frames, past main, go by frame pointers.
 */
START_TEST(test_no_table_named)
{
	const char *path = out_path("small.fxt");
	unsigned long module = 0, first = 0;
	const char *line;
	char name[64] = "";
	struct run r;

	RUN(&r, "record", "-q", "--cfi-memory", "64K", "-o", path, "--", prog("nofp"), "1");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	RUN(&r, "report", "--top", "1", path);
	ck_assert_msg(exit_code(&r) == 0, "report failed: %s", r.err);
	line = strstr(r.out, " a module (");
	ck_assert_msg(line, "no 'a module' reason in the header:\n%s", r.out);
	while (line > r.out && line[-1] != '\n')
		line--;
	ck_assert_int_eq(sscanf(line, "%lu a module", &module), 1);
	/* the next line: the module most of them lost their table in, and its count */
	line = strchr(line, '\n') + 1;
	ck_assert_msg(sscanf(line, "%lu %63s", &first, name) == 2, "no module line:\n%s", r.out);
	ck_assert_msg(!strcmp(name, "libc.so.6") && first * 2 >= module,
		      "the most counted module is %s (%lu of %lu), not libc.so.6:\n%s", name, first,
		      module, r.out);
}
END_TEST

static Suite *cfi_suite(void)
{
	Suite *s = suite_create("cfi");
	TCase *tc = tcase_create("walk");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_omit_frame_pointer);
	tcase_add_test(tc, test_omit_frame_pointer_cfi_only);
	tcase_add_test(tc, test_omit_leaf_frame_pointer);
	tcase_add_test(tc, test_fp_is_the_fp_walker);
	tcase_add_test(tc, test_deep_stack_across_windows);
	tcase_add_test(tc, test_default_depth_reaches_main);
	tcase_add_test(tc, test_max_frames_512_cfi);
	tcase_add_test(tc, test_max_frames_512_fp);
	tcase_add_test(tc, test_max_frames_512_offcpu);
	tcase_add_test(tc, test_library_reopened_at_its_address);
	tcase_add_test(tc, test_library_reopened_at_its_address_auto);
	tcase_add_test(tc, test_cfa_not_growing);
	tcase_add_test(tc, test_cfa_past_the_stack);
	tcase_add_test(tc, test_cfa_expression);
	tcase_add_test(tc, test_offcpu_caller_of_libc);
	tcase_add_test(tc, test_forked_children_whole);
	tcase_add_test(tc, test_reused_pids_whole);
	tcase_add_test(tc, test_bad_options);
	tcase_add_test(tc, test_no_table_named);
	suite_add_tcase(s, tc);

	/* through fxsamplerd: its drains decide when a new image's tables are used */
	tc = tcase_create("daemon");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exec_through_daemon);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return live_main(cfi_suite());
}
