// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of report's model, accounting and text outputs: the exact top
 * and folded outputs of the fixture profile (report_fixture.h), filters,
 * recursion, empty reports and records that come late.
 */
#include <check.h>

#include "report_fixture.h"
#include "unwind/cfi_lost.h"
#include "unwind/cfi_status.h"

START_TEST(test_top)
{
	struct report *r = new_report(NULL);
	struct capture c;
	const char *text;
	const char *line;

	ck_assert_uint_eq(top_samples(r), 8);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	text = capture_text(&c);
	ck_assert_str_eq(text, expected_top);
	/* 80 columns. */
	for (line = text; *line; line = strchr(line, '\n') + 1)
		ck_assert_uint_le((size_t)(strchr(line, '\n') - line), 80);
	free(c.buf);

	/* Only the first rows. */
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 2), 0);
	text = capture_text(&c);
	ck_assert_ptr_nonnull(strstr(text, "fxs_alpha [prog]\n\n"));
	ck_assert_ptr_null(strstr(text, "[unknown]"));
	free(c.buf);
	report__free(r);
}
END_TEST

START_TEST(test_folded)
{
	struct report *r = new_report(&split);
	struct report_opts opts = {.folded_no_thread = true};
	struct capture c;

	/* The split options give fxsampler 0.1's frames, byte for byte. */
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), expected_folded);
	free(c.buf);
	report__free(r);

	r = new_report(&opts);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), "[pid 200];[unknown] 1\n"
					   "prog;[truncated];fxs_alpha;fxs_static_leaf 1\n"
					   "prog;fxs_nosize 1\n"
					   "prog;main;fxs_beta;fxs_alpha 2\n"
					   "prog;main;fxs_beta;fxs_alpha;fxs_static_leaf 3\n");
	free(c.buf);
	report__free(r);

	/* By default, threads that share a name share their frame. */
	r = new_report(NULL);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), expected_folded_merged);
	free(c.buf);
	report__free(r);

	/* No process and thread frames at all, as flamegraph.pl's default. */
	opts = (struct report_opts){.no_root_frames = true};
	r = new_report(&opts);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), "[truncated];fxs_alpha;fxs_static_leaf 1\n"
					   "[unknown] 1\n"
					   "fxs_nosize 1\n"
					   "main;fxs_beta;fxs_alpha 2\n"
					   "main;fxs_beta;fxs_alpha;fxs_static_leaf 3\n");
	free(c.buf);
	report__free(r);
}
END_TEST

/* A process record as captures write it: with its command line, or (older files) without. */
static int rec_process_cmdline(struct report *r, uint64_t pid, const char *name,
			       const char *cmdline)
{
	struct fxt_record rec = {.type = FXT_RT_KOBJ, .subtype = FXT_OBJ_PROCESS};

	rec.koid = rec.pid = pid;
	rec.name = name;
	if (cmdline) {
		rec.nr_args = 1;
		rec.args[0] = (struct fxt_rd_arg){
			.type = FXT_ARG_STRING, .name = "cmdline", .str = cmdline};
	}
	return report_add(r, &rec);
}

/*
 * By default processes and threads that share a name share their frames; the
 * split options give a frame per command line and per thread.
 */
START_TEST(test_folded_threads)
{
	const uint64_t st[] = {BASE + a_alpha + 1, BASE + a_beta + 4};
	struct report_opts by_pid = {.split_processes = true};
	struct report *r;
	struct capture c;
	unsigned i, k;

	for (k = 0; k < 3; k++) {
		r = report__new(k == 0 ? &split : k == 1 ? &by_pid : NULL);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(rec_process_cmdline(r, 100, "prog", "/bin/prog --n 2"), 0);
		/* A later record without one (a rename) keeps it. */
		ck_assert_int_eq(rec_process_cmdline(r, 100, "prog", NULL), 0);
		ck_assert_int_eq(rec_process_cmdline(r, 300, "other", NULL), 0);
		ck_assert_int_eq(rec_thread(r, 100, 101, "worker"), 0);
		ck_assert_int_eq(rec_thread(r, 100, 102, "worker"), 0);
		ck_assert_int_eq(rec_thread(r, 300, 300, "other"), 0);
		/* A second "prog", with other arguments: by default one process frame. */
		ck_assert_int_eq(rec_process_cmdline(r, 400, "prog", "/bin/prog --n 3"), 0);
		ck_assert_int_eq(rec_thread(r, 400, 401, "worker"), 0);
		ck_assert_int_eq(rec_module(r, 100, 0, prog), 0);
		ck_assert_int_eq(rec_mmap(r, 100, 0, PF_R | PF_X, BASE, 1 << 20, 0), 0);
		ck_assert_int_eq(rec_module(r, 400, 0, prog), 0);
		ck_assert_int_eq(rec_mmap(r, 400, 0, PF_R | PF_X, BASE, 1 << 20, 0), 0);
		for (i = 0; i < 3; i++)
			ck_assert_int_eq(rec_backtrace(r, i * MS, 100, 101 + i % 2, 0, st, 2), 0);
		ck_assert_int_eq(rec_backtrace(r, 9 * MS, 300, 300, 0, st, 1), 0);
		ck_assert_int_eq(rec_backtrace(r, 10 * MS, 400, 401, 0, st, 2), 0);
		ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
		ck_assert_str_eq(capture_text(&c),
				 k == 0	  ? "/bin/prog --n 2;worker-101;fxs_beta;fxs_alpha 2\n"
					    "/bin/prog --n 2;worker-102;fxs_beta;fxs_alpha 1\n"
					    "/bin/prog --n 3;worker-401;fxs_beta;fxs_alpha 1\n"
					    "other;other-300;[unknown] 1\n"
				 : k == 1 ? "/bin/prog --n 2;worker;fxs_beta;fxs_alpha 3\n"
					    "/bin/prog --n 3;worker;fxs_beta;fxs_alpha 1\n"
					    "other;other;[unknown] 1\n"
					  : "other;other;[unknown] 1\n"
					    "prog;worker;fxs_beta;fxs_alpha 4\n");
		free(c.buf);
		report__free(r);
	}
}
END_TEST

START_TEST(test_filters)
{
	struct report_opts by_pid = {.has_pid = true, .pid = 100};
	struct report_opts by_tid = {.has_tid = true, .tid = 101};
	struct report *r;
	struct capture c;
	const char *text;

	by_pid.split_threads = by_pid.split_processes = true;
	r = new_report(&by_pid);
	ck_assert_uint_eq(top_samples(r), 7);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), strchr(expected_folded, '\n') + 1);
	free(c.buf);
	report__free(r);

	r = new_report(&by_tid);
	ck_assert_uint_eq(top_samples(r), 3);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 3), 0);
	text = capture_text(&c);
	ck_assert_str_eq(text, "Samples: 3  Threads: 1  Processes: 1\n"
			       "Filter: tid 101\n"
			       "Truncated stacks: 1 (33.33%)\n"
			       "\n"
			       "    Self   Self%    Total  Total%  Function\n"
			       "       2  66.67%        3 100.00%  fxs_alpha [prog]\n"
			       "       1  33.33%        1  33.33%  fxs_static_leaf [prog]\n"
			       "       0   0.00%        2  66.67%  fxs_beta [prog]\n"
			       "\n"
			       " Samples   Share      PID      TID  Thread\n"
			       "       3 100.00%      100      101  worker (prog)\n");
	free(c.buf);
	report__free(r);
}
END_TEST

/* Modules without symbols are listed; names cannot break an 80-column terminal's layout. */
START_TEST(test_top_not_symbolized)
{
	static const char gone[] = "/nonexistent/a/very/long/directory/name/that/goes/on/and/on/"
				   "for/more/than/eighty/columns/libgone.so";
	struct report *r = report__new(&(struct report_opts){.width = 80});
	const uint64_t frames[] = {0x7000001010ULL};
	struct capture c;
	const char *text, *line;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rec_thread(r, 300, 300, "bad\nname"), 0);
	ck_assert_int_eq(rec_module(r, 300, 1, gone), 0);
	ck_assert_int_eq(rec_module(r, 300, 2, prog), 0);
	ck_assert_int_eq(rec_mmap(r, 300, 1, PF_R | PF_X, 0x7000000000ULL, 0x10000, 0), 0);
	ck_assert_int_eq(rec_backtrace(r, 0, 300, 300, 0, frames, 1), 0);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	text = capture_text(&c);
	ck_assert_str_eq(text, "Samples: 1  Threads: 1  Processes: 1\n"
			       "\n"
			       "    Self   Self%    Total  Total%  Function\n"
			       "       1 100.00%        1 100.00%  libgone.so+0x1010\n"
			       "\n"
			       " Samples   Share      PID      TID  Thread\n"
			       "       1 100.00%      300      300  bad?name\n"
			       "\n"
			       "Not symbolized:\n"
			       "  not found          ..at/goes/on/and/on/for/more/than/eighty/"
			       "columns/libgone.so\n");
	for (line = text; *line; line = strchr(line, '\n') + 1)
		ck_assert_uint_le((size_t)(strchr(line, '\n') - line), 80);
	free(c.buf);
	report__free(r);
}
END_TEST

/* An "fxsampler" counter record named name with up to four values (a NULL name ends them). */
static void add_counter(struct report *r, const char *name, const char *n1, uint64_t v1,
			const char *n2, uint64_t v2, const char *n3, uint64_t v3, const char *n4,
			uint64_t v4)
{
	struct fxt_record rec = {.type = FXT_RT_EVENT,
				 .subtype = FXT_EVENT_COUNTER,
				 .category = "fxsampler",
				 .name = name};
	const char *names[] = {n1, n2, n3, n4};
	const uint64_t values[] = {v1, v2, v3, v4};

	for (unsigned i = 0; i < 4 && names[i]; i++) {
		rec.args[i].type = FXT_ARG_UINT64;
		rec.args[i].name = names[i];
		rec.args[i].u = values[i];
		rec.nr_args = i + 1;
	}
	ck_assert_int_eq(report_add(r, &rec), 0);
}

/*
 * A stack the CFI walker went on by frame pointers is counted in the top
 * view's header, and groups with the same frames walked by tables (the
 * fixture has 2 of them).
 */
START_TEST(test_fp_fallback)
{
	struct report *r = new_report(NULL);
	const uint64_t rec[] = {BASE + a_alpha + 1, BASE + a_beta + 4, BASE + a_main + 4};
	struct capture c;

	ck_assert_int_eq(rec_backtrace(r, 13 * MS, 100, 101, FXT_BT_FLAG_FP_FALLBACK, rec, 3), 0);
	ck_assert_int_eq(rec_backtrace(r, 14 * MS, 100, 101, 0, rec, 3), 0);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	ck_assert_ptr_nonnull(
		strstr(capture_text(&c), "\nStacks by frame pointers: 1 (10.00%)\n\n"));
	free(c.buf);
	/* With the capture's counters, why the walker fell back: each reason it counted. */
	add_counter(r, "unwind", "fp_fallback", 5, "no_module", 2, "no_table", 1, "no_process", 1);
	add_counter(r, "cfi_tables", "evicted", 3, "failed", 0, "cap_bytes", 16 << 20, NULL, 0);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	ck_assert_ptr_nonnull(strstr(
		capture_text(&c), "\nStacks by frame pointers: 1 (10.00%)\n"
				  "  where the CFI walker had no table for\n"
				  "          1 a module (3 evicted at --cfi-memory 16M, 0 failed)\n"
				  "          2 a pc in no file (JIT, anonymous, or not read yet)\n"
				  "          1 the process (its first milliseconds)\n"
				  "          1 a pc in its module's CFI\n\n"));
	free(c.buf);
	/* Issue 35: which modules they lost their table in ("cfi_no_table"), most first */
	add_counter(r, "unwind", "fp_fallback", 12, "no_table", 8, NULL, 0, NULL, 0);
	add_counter(r, CFI_LOST_EVENT, "/usr/lib/libLLVM-14.so.1", 5, CFI_LOST_OTHERS, 1,
		    "/usr/lib/x86_64-linux-gnu/libc.so.6", 2, NULL, 0);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	ck_assert_ptr_nonnull(strstr(
		capture_text(&c), "          8 a module (3 evicted at --cfi-memory 16M, 0 failed)\n"
				  "                  5 libLLVM-14.so.1\n"
				  "                  2 libc.so.6\n"
				  "                  1 (others)\n"
				  "          2 a pc in no file"));
	free(c.buf);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_ptr_nonnull(
		strstr(capture_text(&c), "\nprog;worker;main;fxs_beta;fxs_alpha 4\n"));
	free(c.buf);
	report__free(r);
}
END_TEST

/*
 * Issue 37: the modules whose frames went without a CFI table (the file's
 * "cfi_module" counters) are named once in top's header, with what to do.
 */
START_TEST(test_cfi_modules_named)
{
	struct report *r = new_report(NULL);
	const uint64_t frames[] = {BASE + a_alpha + 1, BASE + a_main + 4};
	struct fxt_record rec = {
		.type = FXT_RT_EVENT,
		.subtype = FXT_EVENT_COUNTER,
		.category = "fxsampler",
		.name = CFI_MODULE_EVENT,
		.nr_args = 3,
	};
	struct capture c;

	rec.args[0].name = "/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14";
	rec.args[0].u = CFI_MOD_LEFT_OUT;
	rec.args[1].name = "bytes";
	rec.args[1].u = 8003984;
	rec.args[2].name = "errno";
	ck_assert_int_eq(rec_backtrace(r, 13 * MS, 100, 101, FXT_BT_FLAG_FP_FALLBACK, frames, 2),
			 0);
	/* twice (a capture's file and its salvage): named once */
	ck_assert_int_eq(report_add(r, &rec), 0);
	ck_assert_int_eq(report_add(r, &rec), 0);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	ck_assert_ptr_nonnull(strstr(
		capture_text(&c), "\nModules without unwind tables: 1\n  libclang-cpp.so.14: left "
				  "out, by frame pointers: its 7.6 MiB of rows did not fit beside "
				  "the tables in use (raise --cfi-memory)\n"));
	free(c.buf);
	report__free(r);
}
END_TEST

/* A function twice in one stack counts once in its total. */
START_TEST(test_recursion)
{
	struct report *r = new_report(NULL);
	const uint64_t rec[] = {BASE + a_alpha + 1, BASE + a_alpha + 5, BASE + a_alpha + 5,
				BASE + a_beta + 4, BASE + a_main + 4};
	struct capture c;
	const char *text;

	ck_assert_int_eq(rec_backtrace(r, 13 * MS, 100, 101, 0, rec, 5), 0);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	text = capture_text(&c);
	ck_assert_ptr_nonnull(
		strstr(text, "\n       3  33.33%        7  77.78%  fxs_alpha [prog]\n"));
	ck_assert_ptr_nonnull(
		strstr(text, "\n       0   0.00%        6  66.67%  fxs_beta [prog]\n"));
	free(c.buf);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_ptr_nonnull(strstr(
		capture_text(&c), "\nprog;worker;main;fxs_beta;fxs_alpha;fxs_alpha;fxs_alpha 1\n"));
	free(c.buf);
	report__free(r);
}
END_TEST

START_TEST(test_empty_and_late_records)
{
	struct report *r = report__new(NULL);
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_BACKTRACE};
	const uint64_t frames[] = {0x1234};
	struct capture c;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	ck_assert_str_eq(capture_text(&c), "Samples: 0  Threads: 0  Processes: 0\nNo samples.\n");
	free(c.buf);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), "");
	free(c.buf);

	/* A record after an output is in the next one. */
	rec.pid = 7;
	rec.tid = 8;
	rec.frames = frames;
	rec.nr_frames = 1;
	ck_assert_int_eq(report_add(r, &rec), 0);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), "[pid 7];[tid 8];[unknown] 1\n");
	free(c.buf);
	report__free(r);
	report__free(NULL);
}
END_TEST

/*
 * A pc in two mappings one after the other: each sample is named by the
 * one there at its time, in the folded stacks and the top view (one stack
 * of raw pcs, two of functions).
 */
START_TEST(test_pc_remapped)
{
	struct report *r = new_remapped_report(NULL);
	struct capture c;
	const char *text;

	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), "prog;prog;fxs_alpha 2\n"
					   "prog;prog;fxs_beta 3\n");
	free(c.buf);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	text = capture_text(&c);
	ck_assert_msg(strstr(text, "       3  60.00%        3  60.00%  fxs_beta [prog]\n"
				   "       2  40.00%        2  40.00%  fxs_alpha [prog]\n"),
		      "%s", text);
	free(c.buf);

	/* A sample after an output, in the first mapping's time, is named by it. */
	{
		const uint64_t pc[] = {BASE + a_alpha + 1};

		ck_assert_int_eq(rec_backtrace(r, 4 * MS, 100, 100, 0, pc, 1), 0);
	}
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), "prog;prog;fxs_alpha 3\n"
					   "prog;prog;fxs_beta 3\n");
	free(c.buf);
	report__free(r);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *text = tcase_create("text");

	tcase_add_test(text, test_top);
	tcase_add_test(text, test_folded);
	tcase_add_test(text, test_folded_threads);
	tcase_add_test(text, test_filters);
	tcase_add_test(text, test_recursion);
	tcase_add_test(text, test_fp_fallback);
	tcase_add_test(text, test_cfi_modules_named);
	tcase_add_test(text, test_top_not_symbolized);
	tcase_add_test(text, test_empty_and_late_records);
	tcase_add_test(text, test_pc_remapped);
	suite_add_tcase(s, text);
	return s;
}

int main(void)
{
	return report_fixture_main(report_suite);
}
