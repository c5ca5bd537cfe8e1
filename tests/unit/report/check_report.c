// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of report: one synthetic profile of a real binary (built here
 * with gcc, so the names are real symbols), fed record by record and through
 * an .fxt file, with the exact top and folded outputs spelled out by hand, a
 * protobuf walk of the pprof output and a look at the SVG.
 */
#include <check.h>
#include <elf.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/elf_symbols.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "report/report.h"
#include "check_main.h"

static const char prog_src[] =
	"static volatile int counter;\n"
	"__attribute__((noinline)) static int fxs_static_leaf(int x)\n"
	"{ counter += x; return counter * 3; }\n"
	"__attribute__((noinline)) int fxs_alpha(int x) { return fxs_static_leaf(x) + 1; }\n"
	"__attribute__((noinline)) int fxs_beta(int x) { return fxs_alpha(x) * 2; }\n"
	"__asm__(\".text\\n\"\n"
	"\".globl fxs_nosize\\n.type fxs_nosize, %function\\nfxs_nosize:\\n\"\n"
	"\"\\tnop\\n\\tnop\\n\\tnop\\n\\tnop\\n\\tret\\n\"\n"
	"\".globl fxs_outer\\n.type fxs_outer, %function\\nfxs_outer:\\n\\tnop\\n\\tret\\n\"\n"
	"\".size fxs_outer, . - fxs_outer\\n\");\n"
	"int main(int argc, char **argv) { return fxs_beta(argc) > 100; }\n";

#define BUILD_ID "00112233445566778899aabbccddeeff00112233"
#define BASE	 0x560000000000ULL
#define MS	 1000000ULL

static char tmpdir[PATH_MAX];
static char prog[PATH_MAX + 16];
static uint8_t build_id[20];

/* Function addresses in prog, from nm. */
static uint64_t a_leaf, a_alpha, a_beta, a_main, a_outer;

static uint64_t nm_addr(const char *name)
{
	char cmd[PATH_MAX + 64], line[512], f1[64], f2[64], f3[256];
	uint64_t addr = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", prog);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%63s %63s %255s", f1, f2, f3) == 3 && !strcmp(f3, name))
			addr = strtoull(f1, NULL, 16);
	pclose(p);
	return addr;
}

static void build_fixture(void)
{
	char cmd[PATH_MAX * 4];
	FILE *f;
	unsigned i;

	snprintf(tmpdir, sizeof(tmpdir), "%s/fxs_report.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(EXIT_FAILURE);
	}
	snprintf(prog, sizeof(prog), "%s/prog", tmpdir);
	snprintf(cmd, sizeof(cmd), "%s/prog.c", tmpdir);
	f = fopen(cmd, "we");
	if (!f || fputs(prog_src, f) < 0 || fclose(f)) {
		perror(cmd);
		exit(EXIT_FAILURE);
	}
	snprintf(cmd, sizeof(cmd),
		 "%s -O1 -g -fno-inline -fPIE -pie -Wl,--build-id=0x%s '%s/prog.c' -o '%s'",
		 getenv("FXS_TEST_CC") ?: "gcc", BUILD_ID, tmpdir, prog);
	if (system(cmd)) {
		fprintf(stderr, "cannot build the fixture: %s\n", cmd);
		exit(EXIT_FAILURE);
	}
	for (i = 0; i < sizeof(build_id); i++)
		sscanf(&BUILD_ID[2 * i], "%2hhx", &build_id[i]);
	a_leaf = nm_addr("fxs_static_leaf");
	a_alpha = nm_addr("fxs_alpha");
	a_beta = nm_addr("fxs_beta");
	a_main = nm_addr("main");
	a_outer = nm_addr("fxs_outer");
	if (!a_leaf || !a_alpha || !a_beta || !a_main || !a_outer) {
		fprintf(stderr, "nm found no fixture symbols in %s\n", prog);
		exit(EXIT_FAILURE);
	}
}

static void remove_fixture(void)
{
	char cmd[PATH_MAX + 16];

	if (tmpdir[0] && !getenv("FXS_KEEP_FIXTURES")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
}

/*
 * The profile, as records: it goes to report_add() directly and, through
 * fxt_stream, into a file for report_run(). Process 100 "prog" has threads
 * 100 "prog" and 101 "worker"; process 200 has no record, its thread 201 a
 * name that needs escaping. The module records come after the samples, as
 * Fuchsia writes them.
 */
struct feeder {
	int (*process)(void *ctx, uint64_t pid, const char *name);
	int (*thread)(void *ctx, uint64_t pid, uint64_t tid, const char *name);
	int (*module)(void *ctx, uint64_t pid, uint16_t id, const char *path);
	int (*mmap)(void *ctx, uint64_t pid, uint16_t id, unsigned flags, uint64_t start,
		    uint64_t size, uint64_t vaddr);
	int (*backtrace)(void *ctx, uint64_t ts, uint64_t pid, uint64_t tid, unsigned flags,
			 const uint64_t *frames, unsigned nr);
	void *ctx;
};

static void feed_profile(const struct feeder *f)
{
	/* Return addresses (every frame but the first) point inside their caller. */
	const uint64_t s1[] = {BASE + a_leaf + 2, BASE + a_alpha + 5, BASE + a_beta + 4,
			       BASE + a_main + 4};
	const uint64_t s2[] = {BASE + a_leaf + 3, BASE + a_alpha + 5, BASE + a_beta + 4,
			       BASE + a_main + 4};
	const uint64_t s3[] = {BASE + a_alpha + 1, BASE + a_beta + 4, BASE + a_main + 4};
	const uint64_t s4[] = {BASE + a_leaf + 1, BASE + a_alpha + 5};
	const uint64_t s5[] = {0xdead};
	/* A return address at fxs_outer belongs to the call ending fxs_nosize. */
	const uint64_t s6[] = {BASE + a_outer};
	struct elf_symbols *es = elf_symbols__open(prog, NULL);
	const struct elf_segment *segs;
	size_t i, n;

	ck_assert_ptr_nonnull(es);
	ck_assert_int_eq(f->process(f->ctx, 100, "prog"), 0);
	ck_assert_int_eq(f->thread(f->ctx, 100, 100, "prog"), 0);
	ck_assert_int_eq(f->thread(f->ctx, 100, 101, "worker"), 0);
	ck_assert_int_eq(f->thread(f->ctx, 200, 201, "a;b<&>"), 0);

	ck_assert_int_eq(f->backtrace(f->ctx, 0 * MS, 100, 100, 0, s1, 4), 0);
	ck_assert_int_eq(f->backtrace(f->ctx, 1 * MS, 100, 100, 0, s1, 4), 0);
	ck_assert_int_eq(f->backtrace(f->ctx, 2 * MS, 100, 100, 0, s2, 4), 0);
	ck_assert_int_eq(f->backtrace(f->ctx, 3 * MS, 100, 100, FXT_BT_FLAG_PC_IS_RETURN, s6, 1),
			 0);
	ck_assert_int_eq(f->backtrace(f->ctx, 10 * MS, 100, 101, 0, s3, 3), 0);
	ck_assert_int_eq(f->backtrace(f->ctx, 11 * MS, 100, 101, 0, s3, 3), 0);
	ck_assert_int_eq(f->backtrace(f->ctx, 12 * MS, 100, 101, FXT_BT_FLAG_TRUNCATED, s4, 2), 0);
	ck_assert_int_eq(f->backtrace(f->ctx, 50 * MS, 200, 201, 0, s5, 1), 0);

	ck_assert_int_eq(f->module(f->ctx, 100, 0, prog), 0);
	n = elf_symbols__segments(es, &segs);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(f->mmap(f->ctx, 100, 0, segs[i].flags, BASE + segs[i].vaddr,
					 segs[i].memsz, segs[i].vaddr),
				 0);
	elf_symbols__free(es);
}

/* Feeding report_add() with hand-made records. */

static int rec_process(void *ctx, uint64_t pid, const char *name)
{
	struct fxt_record rec = {.type = FXT_RT_KOBJ, .subtype = FXT_OBJ_PROCESS};

	rec.koid = rec.pid = pid;
	rec.name = name;
	return report_add(ctx, &rec);
}

static int rec_thread(void *ctx, uint64_t pid, uint64_t tid, const char *name)
{
	struct fxt_record rec = {.type = FXT_RT_KOBJ, .subtype = FXT_OBJ_THREAD};

	rec.koid = rec.tid = tid;
	rec.pid = pid;
	rec.name = name;
	return report_add(ctx, &rec);
}

static int rec_module(void *ctx, uint64_t pid, uint16_t id, const char *path)
{
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_MODULE};

	rec.pid = pid;
	rec.module_id = id;
	rec.name = path;
	rec.build_id = build_id;
	rec.build_id_len = sizeof(build_id);
	return report_add(ctx, &rec);
}

static int rec_mmap(void *ctx, uint64_t pid, uint16_t id, unsigned flags, uint64_t start,
		    uint64_t size, uint64_t vaddr)
{
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_MMAP};

	rec.pid = pid;
	rec.module_id = id;
	rec.mmap_flags = flags;
	rec.start = start;
	rec.size = size;
	rec.vaddr = vaddr;
	return report_add(ctx, &rec);
}

static int rec_backtrace(void *ctx, uint64_t ts, uint64_t pid, uint64_t tid, unsigned flags,
			 const uint64_t *frames, unsigned nr)
{
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_BACKTRACE};

	rec.ts = ts;
	rec.pid = pid;
	rec.tid = tid;
	rec.bt_flags = flags;
	rec.frames = frames;
	rec.nr_frames = nr;
	return report_add(ctx, &rec);
}

static struct report *new_report(const struct report_opts *opts)
{
	struct feeder f = {rec_process, rec_thread, rec_module, rec_mmap, rec_backtrace};
	struct report *r = report__new(opts);

	ck_assert_ptr_nonnull(r);
	f.ctx = r;
	feed_profile(&f);
	return r;
}

/* Everything written to a stream, NUL-terminated. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *capture_open(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	ck_assert_ptr_nonnull(c->f);
	return c->f;
}

static const char *capture_text(struct capture *c)
{
	ck_assert_int_eq(fclose(c->f), 0);
	c->f = NULL;
	return c->buf;
}

/* The samples a report accounted, as its top view's first line says them. */
static unsigned long long top_samples(struct report *r)
{
	unsigned long long n = 0;
	struct capture c;

	ck_assert_int_eq(report_write_top(r, capture_open(&c), 1), 0);
	ck_assert_int_eq(sscanf(capture_text(&c), "Samples: %llu ", &n), 1);
	free(c.buf);
	return n;
}

static const char expected_folded[] = "[pid 200];a:b<&>-201;[unknown] 1\n"
				      "prog;prog-100;fxs_nosize 1\n"
				      "prog;prog-100;main;fxs_beta;fxs_alpha;fxs_static_leaf 3\n"
				      "prog;worker-101;[truncated];fxs_alpha;fxs_static_leaf 1\n"
				      "prog;worker-101;main;fxs_beta;fxs_alpha 2\n";

/* --merge-threads: one frame per thread name. */
static const char expected_folded_merged[] = "[pid 200];a:b<&>;[unknown] 1\n"
					     "prog;prog;fxs_nosize 1\n"
					     "prog;prog;main;fxs_beta;fxs_alpha;fxs_static_leaf 3\n"
					     "prog;worker;[truncated];fxs_alpha;fxs_static_leaf 1\n"
					     "prog;worker;main;fxs_beta;fxs_alpha 2\n";

static const char expected_top[] = "Samples: 8  Threads: 3  Processes: 2\n"
				   "Truncated stacks: 1 (12.50%)\n"
				   "\n"
				   "    Self   Self%    Total  Total%  Function\n"
				   "       4  50.00%        4  50.00%  fxs_static_leaf [prog]\n"
				   "       2  25.00%        6  75.00%  fxs_alpha [prog]\n"
				   "       1  12.50%        1  12.50%  [unknown]\n"
				   "       1  12.50%        1  12.50%  fxs_nosize [prog]\n"
				   "       0   0.00%        5  62.50%  fxs_beta [prog]\n"
				   "       0   0.00%        5  62.50%  main [prog]\n"
				   "\n"
				   " Samples   Share      PID      TID  Thread\n"
				   "       4  50.00%      100      100  prog\n"
				   "       3  37.50%      100      101  worker (prog)\n"
				   "       1  12.50%      200      201  a;b<&>\n";

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
	struct report *r = new_report(NULL);
	struct report_opts opts = {.folded_no_thread = true};
	struct capture c;

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

	opts = (struct report_opts){.merge_threads = true};
	r = new_report(&opts);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), expected_folded_merged);
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

/* Threads that share a name stay apart; the process frame is its command line. */
START_TEST(test_folded_threads)
{
	const uint64_t st[] = {BASE + a_alpha + 1, BASE + a_beta + 4};
	struct report_opts merged = {.merge_threads = true};
	struct report *r;
	struct capture c;
	unsigned i, k;

	for (k = 0; k < 2; k++) {
		r = report__new(k ? &merged : NULL);
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(rec_process_cmdline(r, 100, "prog", "/bin/prog --n 2"), 0);
		/* A later record without one (a rename) keeps it. */
		ck_assert_int_eq(rec_process_cmdline(r, 100, "prog", NULL), 0);
		ck_assert_int_eq(rec_process_cmdline(r, 300, "other", NULL), 0);
		ck_assert_int_eq(rec_thread(r, 100, 101, "worker"), 0);
		ck_assert_int_eq(rec_thread(r, 100, 102, "worker"), 0);
		ck_assert_int_eq(rec_thread(r, 300, 300, "other"), 0);
		ck_assert_int_eq(rec_module(r, 100, 0, prog), 0);
		ck_assert_int_eq(rec_mmap(r, 100, 0, PF_R | PF_X, BASE, 1 << 20, 0), 0);
		for (i = 0; i < 3; i++)
			ck_assert_int_eq(rec_backtrace(r, i * MS, 100, 101 + i % 2, 0, st, 2), 0);
		ck_assert_int_eq(rec_backtrace(r, 9 * MS, 300, 300, 0, st, 1), 0);
		ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
		ck_assert_str_eq(capture_text(&c),
				 k ? "/bin/prog --n 2;worker;fxs_beta;fxs_alpha 3\n"
				     "other;other;[unknown] 1\n"
				   : "/bin/prog --n 2;worker-101;fxs_beta;fxs_alpha 2\n"
				     "/bin/prog --n 2;worker-102;fxs_beta;fxs_alpha 1\n"
				     "other;other-300;[unknown] 1\n");
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
	ck_assert_ptr_nonnull(
		strstr(capture_text(&c),
		       "\nprog;worker-101;main;fxs_beta;fxs_alpha;fxs_alpha;fxs_alpha 1\n"));
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

/* ---- a minimal protobuf reader, to check the pprof output ---- */

struct pb {
	const uint8_t *p, *end;
};

static bool pb_varint(struct pb *b, uint64_t *ret)
{
	uint64_t v = 0;
	unsigned shift;

	for (shift = 0; shift < 64 && b->p < b->end; shift += 7) {
		uint8_t c = *b->p++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*ret = v;
			return true;
		}
	}
	return false;
}

/* The next field: its number, wire type, and value or bytes. */
static bool pb_next(struct pb *b, unsigned *field, unsigned *wire, uint64_t *v, struct pb *sub)
{
	uint64_t key, len;

	if (b->p >= b->end || !pb_varint(b, &key))
		return false;
	*field = (unsigned)(key >> 3);
	*wire = key & 7;
	switch (*wire) {
	case 0:
		return pb_varint(b, v);
	case 2:
		if (!pb_varint(b, &len) || len > (uint64_t)(b->end - b->p))
			return false;
		sub->p = b->p;
		sub->end = b->p + len;
		b->p += len;
		return true;
	default:
		/* The encoder writes no fixed32/fixed64 fields. */
		return false;
	}
}

struct label {
	uint64_t key, str, num;
};

struct profile {
	char *strings[256];
	unsigned nr_strings;
	unsigned nr_samples, nr_locations, nr_functions, nr_mappings, nr_sample_types;
	uint64_t value_sum, cpu_sum; /* the two sample values */
	unsigned max_location_ids;
	uint64_t function_names[64];
	uint64_t location_ids[64], location_used[64];
	uint64_t function_ids[64], function_used[64];
	uint64_t sample_types[2][2];
	uint64_t period, duration, time_nanos, period_type[2];
	uint64_t mapping_file, mapping_build_id, mapping_start;
	/* The labels of every sample, in order. */
	struct label labels[64][4];
	unsigned nr_labels[64];
};

/* The repeated varints of a field into v[*n..]. */
static void pb_collect(unsigned wire, uint64_t x, struct pb *sub, uint64_t *v, unsigned *n,
		       unsigned max)
{
	if (wire == 0) {
		ck_assert_uint_lt(*n, max);
		v[(*n)++] = x;
		return;
	}
	while (sub->p < sub->end) {
		ck_assert(pb_varint(sub, &x));
		ck_assert_uint_lt(*n, max);
		v[(*n)++] = x;
	}
}

static void pb_pair(struct pb *sub, uint64_t *a, uint64_t *b)
{
	unsigned f, w;
	uint64_t v;
	struct pb inner;

	*a = *b = 0;
	while (sub->p < sub->end) {
		ck_assert(pb_next(sub, &f, &w, &v, &inner));
		if (f == 1)
			*a = v;
		if (f == 2)
			*b = v;
	}
}

static void parse_profile(const uint8_t *data, size_t len, struct profile *pr)
{
	struct pb b = {data, data + len}, sub, inner;
	unsigned field, wire, f2, w2;
	uint64_t v, v2;

	memset(pr, 0, sizeof(*pr));
	while (b.p < b.end) {
		ck_assert(pb_next(&b, &field, &wire, &v, &sub));
		switch (field) {
		case 1:
			ck_assert_uint_lt(pr->nr_sample_types, 2);
			pb_pair(&sub, &pr->sample_types[pr->nr_sample_types][0],
				&pr->sample_types[pr->nr_sample_types][1]);
			pr->nr_sample_types++;
			break;
		case 2: {
			uint64_t ids[256], values[4];
			unsigned nr_ids = 0, nr_values = 0, i, k = pr->nr_samples;

			ck_assert_uint_eq(wire, 2);
			ck_assert_uint_lt(k, 64);
			pr->nr_samples++;
			while (sub.p < sub.end) {
				ck_assert(pb_next(&sub, &f2, &w2, &v2, &inner));
				if (f2 == 1)
					pb_collect(w2, v2, &inner, ids, &nr_ids, 256);
				else if (f2 == 2)
					pb_collect(w2, v2, &inner, values, &nr_values, 4);
				else if (f2 == 3) {
					struct label *l = &pr->labels[k][pr->nr_labels[k]];
					unsigned f3, w3;
					uint64_t v3;
					struct pb in3;

					ck_assert_uint_lt(pr->nr_labels[k], 4);
					pr->nr_labels[k]++;
					while (inner.p < inner.end) {
						ck_assert(pb_next(&inner, &f3, &w3, &v3, &in3));
						if (f3 == 1)
							l->key = v3;
						if (f3 == 2)
							l->str = v3;
						if (f3 == 3)
							l->num = v3;
					}
				}
			}
			/* One value per sample type: samples, then cpu nanoseconds. */
			ck_assert_uint_eq(nr_values, 2);
			pr->value_sum += values[0];
			pr->cpu_sum += values[1];
			for (i = 0; i < nr_ids; i++) {
				ck_assert_uint_gt(ids[i], 0);
				ck_assert_uint_le(ids[i], 64);
				pr->location_used[ids[i] - 1] = 1;
			}
			if (nr_ids > pr->max_location_ids)
				pr->max_location_ids = nr_ids;
			break;
		}
		case 3:
			pr->nr_mappings++;
			while (sub.p < sub.end) {
				ck_assert(pb_next(&sub, &f2, &w2, &v2, &inner));
				if (f2 == 2)
					pr->mapping_start = v2;
				if (f2 == 5)
					pr->mapping_file = v2;
				if (f2 == 6)
					pr->mapping_build_id = v2;
			}
			break;
		case 4:
			ck_assert_uint_lt(pr->nr_locations, 64);
			while (sub.p < sub.end) {
				ck_assert(pb_next(&sub, &f2, &w2, &v2, &inner));
				if (f2 == 1)
					pr->location_ids[pr->nr_locations] = v2;
				if (f2 == 4) {
					uint64_t fid, line;

					pb_pair(&inner, &fid, &line);
					ck_assert_uint_gt(fid, 0);
					ck_assert_uint_le(fid, 64);
					pr->function_used[fid - 1] = 1;
				}
			}
			pr->nr_locations++;
			break;
		case 5:
			ck_assert_uint_lt(pr->nr_functions, 64);
			while (sub.p < sub.end) {
				ck_assert(pb_next(&sub, &f2, &w2, &v2, &inner));
				if (f2 == 1)
					pr->function_ids[pr->nr_functions] = v2;
				if (f2 == 2)
					pr->function_names[pr->nr_functions] = v2;
			}
			pr->nr_functions++;
			break;
		case 6:
			ck_assert_uint_eq(wire, 2);
			ck_assert_uint_lt(pr->nr_strings, 256);
			pr->strings[pr->nr_strings] =
				strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
			ck_assert_ptr_nonnull(pr->strings[pr->nr_strings]);
			pr->nr_strings++;
			break;
		case 9:
			pr->time_nanos = v;
			break;
		case 10:
			pr->duration = v;
			break;
		case 11:
			pb_pair(&sub, &pr->period_type[0], &pr->period_type[1]);
			break;
		case 12:
			pr->period = v;
			break;
		default:
			break;
		}
	}
}

static void free_profile(struct profile *pr)
{
	unsigned i;

	for (i = 0; i < pr->nr_strings; i++)
		free(pr->strings[i]);
}

static bool has_string(const struct profile *pr, const char *s)
{
	unsigned i;

	for (i = 0; i < pr->nr_strings; i++)
		if (!strcmp(pr->strings[i], s))
			return true;
	return false;
}

static uint8_t *gunzip(const void *data, size_t len, size_t *ret_len)
{
	z_stream zs = {};
	size_t cap = 1 << 16, out_len = 0;
	uint8_t *out = malloc(cap);
	int zerr;

	ck_assert_ptr_nonnull(out);
	/* 15 + 16: gzip only, so a raw zlib stream would fail here. */
	ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)len;
	do {
		if (out_len == cap) {
			cap *= 2;
			out = realloc(out, cap);
			ck_assert_ptr_nonnull(out);
		}
		zs.next_out = out + out_len;
		zs.avail_out = (uInt)(cap - out_len);
		zerr = inflate(&zs, Z_NO_FLUSH);
		ck_assert_msg(zerr == Z_OK || zerr == Z_STREAM_END, "inflate: %d", zerr);
		out_len = cap - zs.avail_out;
	} while (zerr != Z_STREAM_END);
	ck_assert_uint_eq(zs.avail_in, 0);
	inflateEnd(&zs);
	*ret_len = out_len;
	return out;
}

static const char *label_str(const struct profile *pr, unsigned sample, const char *key, bool num,
			     uint64_t *ret_num)
{
	unsigned i;

	for (i = 0; i < pr->nr_labels[sample]; i++) {
		const struct label *l = &pr->labels[sample][i];

		if (strcmp(pr->strings[l->key], key))
			continue;
		if (num) {
			*ret_num = l->num;
			return "";
		}
		return pr->strings[l->str];
	}
	return NULL;
}

/* Tables numbered 1..n, every entry used: no unused location or function. */
static void check_tables(const struct profile *pr)
{
	unsigned i;

	for (i = 0; i < pr->nr_locations; i++) {
		ck_assert_uint_eq(pr->location_ids[i], i + 1);
		ck_assert_msg(pr->location_used[i], "location %u unused", i + 1);
	}
	for (i = 0; i < pr->nr_functions; i++) {
		ck_assert_uint_eq(pr->function_ids[i], i + 1);
		ck_assert_msg(pr->function_used[i], "function %u unused", i + 1);
		ck_assert_uint_lt(pr->function_names[i], pr->nr_strings);
	}
}

static void pprof_of(struct report *r, struct profile *pr)
{
	struct capture c;
	uint8_t *raw;
	size_t raw_len;

	ck_assert_int_eq(report_write_pprof(r, capture_open(&c)), 0);
	capture_text(&c);
	ck_assert_uint_gt(c.len, 20);
	raw = gunzip(c.buf, c.len, &raw_len);
	parse_profile(raw, raw_len, pr);
	free(raw);
	free(c.buf);
}

START_TEST(test_pprof)
{
	struct report *r = new_report(NULL);
	struct profile pr;
	static const char *const want[] = {
		"samples",    "count",		 "cpu",		"nanoseconds", "pid",
		"tid",	      "fxs_static_leaf", "fxs_alpha",	"fxs_beta",    "main",
		"fxs_nosize", "[unknown]",	 "[truncated]", "thread",      "process"};
	bool worker = false, prog_main = false, unnamed = false;
	char hex[64];
	unsigned i, locations;
	uint64_t n;

	pprof_of(r, &pr);
	ck_assert_uint_ge(pr.nr_strings, 1);
	ck_assert_str_eq(pr.strings[0], "");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(has_string(&pr, want[i]), "no string %s", want[i]);
	ck_assert(has_string(&pr, prog));
	ck_assert(has_string(&pr, elf_build_id_hex(build_id, sizeof(build_id), hex, sizeof(hex))));

	/* As Go's CPU profiles: samples/count, cpu/nanoseconds, period cpu/nanoseconds. */
	ck_assert_uint_eq(pr.nr_sample_types, 2);
	ck_assert_str_eq(pr.strings[pr.sample_types[0][0]], "samples");
	ck_assert_str_eq(pr.strings[pr.sample_types[0][1]], "count");
	ck_assert_str_eq(pr.strings[pr.sample_types[1][0]], "cpu");
	ck_assert_str_eq(pr.strings[pr.sample_types[1][1]], "nanoseconds");
	ck_assert_str_eq(pr.strings[pr.period_type[0]], "cpu");
	ck_assert_str_eq(pr.strings[pr.period_type[1]], "nanoseconds");

	/* One sample per distinct stack, their values add up to the samples. */
	ck_assert_uint_eq(pr.nr_samples, 6);
	ck_assert_uint_eq(pr.value_sum, 8);
	/* Per-thread gaps are all 1 ms: value 2 is samples x period. */
	ck_assert_uint_eq(pr.period, MS);
	ck_assert_uint_eq(pr.cpu_sum, 8 * MS);
	ck_assert_uint_eq(pr.max_location_ids, 4);
	/*
	 * Distinct (mapping, address, function): 4 in s1, the leaf of s2, the
	 * exact alpha pc of s3, the leaf of s4, s5 and s6, plus the marker.
	 */
	ck_assert_uint_eq(pr.nr_locations, 10);
	ck_assert_uint_eq(pr.nr_functions, 7);
	check_tables(&pr);
	ck_assert_uint_eq(pr.nr_mappings, 1);
	ck_assert_uint_lt(pr.mapping_file, pr.nr_strings);
	ck_assert_str_eq(pr.strings[pr.mapping_file], prog);
	ck_assert_str_eq(pr.strings[pr.mapping_build_id], hex);
	ck_assert_uint_ge(pr.mapping_start, BASE);
	/* No clock record: the samples span 50 ms, no wall-clock time. */
	ck_assert_uint_eq(pr.duration, 50 * MS);
	ck_assert_uint_eq(pr.time_nanos, 0);

	/* Labels: thread and process names as strings, pid and tid as numbers. */
	for (i = 0; i < pr.nr_samples; i++) {
		const char *t = label_str(&pr, i, "thread", false, NULL);
		const char *p = label_str(&pr, i, "process", false, NULL);
		uint64_t pid = 0, tid = 0;

		ck_assert_ptr_nonnull(label_str(&pr, i, "pid", true, &pid));
		ck_assert_ptr_nonnull(label_str(&pr, i, "tid", true, &tid));
		if (tid == 101) {
			ck_assert_str_eq(t, "worker");
			ck_assert_str_eq(p, "prog");
			worker = true;
		} else if (tid == 100) {
			ck_assert_str_eq(t, "prog");
			ck_assert_str_eq(p, "prog");
			ck_assert_uint_eq(pid, 100);
			prog_main = true;
		} else {
			/* Process 200 has no record: its thread's name stands in. */
			ck_assert_uint_eq(tid, 201);
			ck_assert_str_eq(t, "a;b<&>");
			unnamed = true;
		}
	}
	ck_assert(worker && prog_main && unnamed);
	locations = pr.nr_locations;
	free_profile(&pr);

	/*
	 * A forked child (pid 300) with the same mapping and stack adds a
	 * sample but no mapping, location or function.
	 */
	ck_assert_int_eq(rec_module(r, 300, 0, prog), 0);
	{
		struct elf_symbols *es = elf_symbols__open(prog, NULL);
		const struct elf_segment *segs;
		const uint64_t s3[] = {BASE + a_alpha + 1, BASE + a_beta + 4, BASE + a_main + 4};
		size_t k, nseg;

		ck_assert_ptr_nonnull(es);
		nseg = elf_symbols__segments(es, &segs);
		for (k = 0; k < nseg; k++)
			ck_assert_int_eq(rec_mmap(r, 300, 0, segs[k].flags, BASE + segs[k].vaddr,
						  segs[k].memsz, segs[k].vaddr),
					 0);
		elf_symbols__free(es);
		ck_assert_int_eq(rec_backtrace(r, 51 * MS, 300, 300, 0, s3, 3), 0);
	}
	pprof_of(r, &pr);
	ck_assert_uint_eq(pr.nr_samples, 7);
	ck_assert_uint_eq(pr.nr_mappings, 1);
	ck_assert_uint_eq(pr.nr_locations, locations);
	ck_assert_uint_eq(pr.nr_functions, 7);
	check_tables(&pr);
	free_profile(&pr);
	report__free(r);

	/* No truncated stack: no "[truncated]" location, function or string. */
	r = new_report(&(struct report_opts){.has_tid = true, .tid = 100});
	pprof_of(r, &pr);
	ck_assert(!has_string(&pr, "[truncated]"));
	ck_assert_uint_eq(pr.nr_samples, 3);
	check_tables(&pr);
	n = pr.nr_functions;
	/* main, beta, alpha, leaf, nosize */
	ck_assert_uint_eq(n, 5);
	free_profile(&pr);
	report__free(r);
}
END_TEST

/*
 * A binary with no GNU build id but a Go one (the .note.go.buildid note the
 * Go linker writes): its mapping carries the Go build id.
 */
START_TEST(test_pprof_go_build_id)
{
	static const char go_id[] = "abcdEFGH1234/ijkl-5678_mn/op9Q/rstu"; /* 36 bytes */
	char bin[PATH_MAX + 16], note[PATH_MAX + 16], cmd[PATH_MAX * 6];
	uint32_t hdr[3] = {4, sizeof(go_id) - 1, 4};
	const uint64_t pc = BASE + 0x1000;
	struct report *r = report__new(NULL);
	struct profile pr;
	FILE *f;

	ck_assert_ptr_nonnull(r);
	snprintf(bin, sizeof(bin), "%s/goish", tmpdir);
	snprintf(note, sizeof(note), "%s/go.note", tmpdir);
	f = fopen(note, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(hdr, sizeof(hdr), 1, f), 1);
	ck_assert_uint_eq(fwrite("Go\0\0", 4, 1, f), 1);
	ck_assert_uint_eq(fwrite(go_id, 36, 1, f), 1);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s -O1 -Wl,--build-id=none '%s/prog.c' -o '%s' && "
		 "objcopy --add-section .note.go.buildid='%s' "
		 "--set-section-flags .note.go.buildid=alloc,readonly '%s' 2>/dev/null",
		 getenv("FXS_TEST_CC") ?: "gcc", tmpdir, bin, note, bin);
	ck_assert_int_eq(system(cmd), 0);

	ck_assert_int_eq(rec_thread(r, 400, 400, "goish"), 0);
	{
		struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_MODULE};

		rec.pid = 400;
		rec.name = bin;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
	ck_assert_int_eq(rec_mmap(r, 400, 0, PF_R | PF_X, BASE, 1 << 20, 0), 0);
	ck_assert_int_eq(rec_backtrace(r, 0, 400, 400, 0, &pc, 1), 0);
	pprof_of(r, &pr);
	ck_assert_uint_eq(pr.nr_mappings, 1);
	ck_assert_str_eq(pr.strings[pr.mapping_build_id], go_id);
	free_profile(&pr);
	report__free(r);
}
END_TEST

/* The capture's clock event gives time_nanos and duration_nanos. */
START_TEST(test_pprof_clock)
{
	static const char *const names[] = {"start_boottime_ns", "start_realtime_ns",
					    "stop_boottime_ns"};
	struct fxt_record rec = {.type = FXT_RT_EVENT, .subtype = FXT_EVENT_INSTANT};
	struct report *r = new_report(NULL);
	const uint64_t v[3] = {5 * MS, 1700000000000000000ULL, 2005 * MS};
	struct profile pr;
	unsigned i;

	rec.category = "fxsampler";
	rec.name = "clock";
	rec.nr_args = 3;
	for (i = 0; i < 3; i++)
		rec.args[i] =
			(struct fxt_rd_arg){.type = FXT_ARG_UINT64, .name = names[i], .u = v[i]};
	ck_assert_int_eq(report_add(r, &rec), 0);
	pprof_of(r, &pr);
	ck_assert_uint_eq(pr.time_nanos, 1700000000000000000ULL);
	ck_assert_uint_eq(pr.duration, 2000 * MS);
	free_profile(&pr);
	report__free(r);
}
END_TEST

/* The output of a shell command; its exit status must be 0. */
static char *run_output(const char *cmd)
{
	size_t len = 0, cap = 4096, n;
	char *buf = malloc(cap);
	FILE *p = popen(cmd, "r");

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(p);
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
	}
	buf[len] = '\0';
	ck_assert_msg(pclose(p) == 0, "%s failed:\n%s", cmd, buf);
	return buf;
}

/* `go tool pprof` itself, when Go is installed. */
START_TEST(test_pprof_go_tool)
{
	struct report *r;
	char path[PATH_MAX + 32], cmd[PATH_MAX * 4];
	bool leaf = false, alpha = false;
	char *out, *line;

	if (system("command -v go >/dev/null 2>&1")) {
		fprintf(stderr, "SKIP: test_pprof_go_tool: no go (apt-get install golang-go)\n");
		return;
	}
	r = new_report(NULL);
	snprintf(path, sizeof(path), "%s/profile.pb.gz", tmpdir);
	{
		FILE *f = fopen(path, "we");

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(report_write_pprof(r, f), 0);
		ck_assert_int_eq(fclose(f), 0);
	}
	report__free(r);

#define GO_PPROF "HOME='%s' PPROF_BINARY_PATH=/nonexistent go tool pprof "
	snprintf(cmd, sizeof(cmd), GO_PPROF "-sample_index=samples -top '%s' 2>&1", tmpdir, path);
	out = run_output(cmd);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		/* "flat flat% sum% cum cum%" then the name */
		unsigned long flat, cum;
		char name[256];

		if (sscanf(line, " %lu %*s %*s %lu %*s %255s", &flat, &cum, name) != 3)
			continue;
		if (!strcmp(name, "fxs_static_leaf"))
			leaf = flat == 4 && cum == 4;
		if (!strcmp(name, "fxs_alpha"))
			alpha = flat == 2 && cum == 6;
	}
	free(out);
	ck_assert(leaf);
	ck_assert(alpha);

	/* cpu/nanoseconds: samples x the 1 ms period, a CPU profile as Go's are. */
	snprintf(cmd, sizeof(cmd), GO_PPROF "-sample_index=cpu -top '%s' 2>&1", tmpdir, path);
	out = run_output(cmd);
	ck_assert_msg(strstr(out, "Type: cpu\n"), "%s", out);
	ck_assert_msg(strstr(out, "Total samples = 8ms"), "%s", out);
	ck_assert_msg(strstr(out, "       4ms 50.00% 50.00%        4ms 50.00%  fxs_static_leaf\n"),
		      "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), GO_PPROF "-traces '%s' 2>&1", tmpdir, path);
	out = run_output(cmd);
	ck_assert_msg(strstr(out,
			     "    thread:  worker\n   process:  prog\n       pid:  100\n"
			     "       tid:  101\n       2ms   fxs_alpha\n             fxs_beta\n"
			     "             main\n"),
		      "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), GO_PPROF "-tags '%s' 2>&1", tmpdir, path);
	out = run_output(cmd);
	ck_assert_msg(strstr(out, " thread: Total 8.0ms\n"), "%s", out);
	ck_assert_msg(strstr(out, "3.0ms (37.50%): worker\n"), "%s", out);
	ck_assert_msg(strstr(out, " tid: Total 8.0ms\n"), "%s", out);
	free(out);
#undef GO_PPROF
}
END_TEST

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

START_TEST(test_svg)
{
	struct report *r = new_report(NULL);
	struct capture c;
	const char *svg;

	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);
	ck_assert_ptr_eq(strstr(svg, "<?xml "), svg);
	ck_assert_ptr_nonnull(strstr(svg, "<svg "));
	ck_assert_str_eq(svg + strlen(svg) - 7, "</svg>\n");
	/* No external resource of any kind. */
	ck_assert_ptr_null(strstr(svg, "href"));
	ck_assert_ptr_null(strstr(svg, "@import"));

	ck_assert_ptr_nonnull(strstr(svg, "<title>all (8 samples, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>fxs_static_leaf (3 samples, 37.50%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>fxs_static_leaf (1 sample, 12.50%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>main (2 samples, 25.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>[truncated] (1 sample, 12.50%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>prog (7 samples, 87.50%)</title>"));
	/* Escaped, and the ';' a folded line cannot hold is gone here too. */
	ck_assert_ptr_nonnull(
		strstr(svg, "<title>a:b&lt;&amp;&gt;-201 (1 sample, 12.50%)</title>"));
	ck_assert_ptr_null(strstr(svg, "<&>"));
	/* 18 frames, each a <g> with a title, a rect and its text. */
	ck_assert_uint_eq(count_of(svg, "<g><title>"), 18);
	ck_assert_uint_eq(count_of(svg, "</title><rect "), 18);
	ck_assert_uint_eq(count_of(svg, "<rect "), 19);
	ck_assert_uint_eq(count_of(svg, "<text x="), 18 + 1);
	free(c.buf);
	report__free(r);
}
END_TEST

/* The width of a frame follows its samples; its text is cut to fit. */
START_TEST(test_svg_geometry)
{
	struct report *r = report__new(NULL);
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_BACKTRACE};
	const uint64_t wide[] = {0x10}, narrow[] = {0x20};
	struct fxt_record name = {.type = FXT_RT_KOBJ, .subtype = FXT_OBJ_THREAD};
	struct capture c;
	const char *svg, *p;
	double w_all = 0, w_thread = 0;
	unsigned i;

	ck_assert_ptr_nonnull(r);
	name.koid = 1;
	name.pid = 1;
	name.name = "a-thread-name-much-too-long-for-a-frame-of-one-sample-in-a-thousand";
	ck_assert_int_eq(report_add(r, &name), 0);
	rec.pid = 1;
	rec.tid = 1;
	rec.nr_frames = 1;
	for (i = 0; i < 1000; i++) {
		rec.frames = i ? wide : narrow;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);
	p = strstr(svg, "<title>all (1000 samples");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(strstr(p, "width=\""), "width=\"%lf\"", &w_all), 1);
	ck_assert_double_eq_tol(w_all, 1180, 0.01);
	p = strstr(svg,
		   "<title>a-thread-name-much-too-long-for-a-frame-of-one-sample-in-a-thousand "
		   "(1000 samples");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(strstr(p, "width=\""), "width=\"%lf\"", &w_thread), 1);
	ck_assert_double_eq_tol(w_thread, 1180, 0.01);
	/* The one-sample "[unknown]" frames of 0x10 and 0x20 merge: one frame of 1000. */
	ck_assert_ptr_nonnull(strstr(svg, "<title>[unknown] (1000 samples, 100.00%)</title>"));
	free(c.buf);
	report__free(r);
}
END_TEST

/* 100k distinct stacks: siblings under a pixel merge, the file stays small. */
START_TEST(test_svg_many_stacks)
{
	struct report *r = report__new(NULL);
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_BACKTRACE};
	struct fxt_record mod = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_MODULE};
	uint64_t frames[3];
	struct capture c;
	const char *svg, *p;
	uint64_t merged = 0, n;
	unsigned i;

	ck_assert_ptr_nonnull(r);
	/* A module that is not on disk: every pc is its own "libgone.so+0x..." frame. */
	mod.pid = 1;
	mod.module_id = 1;
	mod.name = "/nonexistent/libgone.so";
	ck_assert_int_eq(report_add(r, &mod), 0);
	mod.subtype = FXT_PROF_MMAP;
	mod.mmap_flags = PF_R | PF_X;
	mod.start = 0x100000;
	mod.size = 0x10000000;
	ck_assert_int_eq(report_add(r, &mod), 0);
	rec.pid = rec.tid = 1;
	rec.frames = frames;
	rec.nr_frames = 3;
	for (i = 0; i < 100000; i++) {
		frames[0] = 0x200000 + (uint64_t)i * 16; /* 100000 leaves */
		frames[1] = 0x110000 + (uint64_t)(i % 100) * 16;
		frames[2] = 0x100010;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);
	ck_assert_uint_lt(strlen(svg), 2 * 1024 * 1024);
	/* Each of the 100 middle frames holds its 1000 leaves as one merged frame. */
	for (p = svg; (p = strstr(p, "<title>[1000 frames, each under a pixel] (")); p++) {
		ck_assert_int_eq(
			sscanf(p, "<title>[1000 frames, each under a pixel] (%" SCNu64, &n), 1);
		merged += n;
	}
	ck_assert_uint_eq(merged, 100000);
	ck_assert_uint_eq(count_of(svg, "<title>libgone.so+0x10 (100000 samples, 100.00%)"), 1);
	free(c.buf);
	report__free(r);
}
END_TEST

START_TEST(test_svg_cut_labels)
{
	struct report *r = report__new(NULL);
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_BACKTRACE};
	struct fxt_record name = {.type = FXT_RT_KOBJ, .subtype = FXT_OBJ_PROCESS};
	static const char *const names[] = {"long-process-name", "other-process-with-a-long-name",
					    "tiny-process"};
	const uint64_t frames[] = {0x10};
	struct capture c;
	const char *svg, *p;
	double w;
	char text[512];
	unsigned i;

	ck_assert_ptr_nonnull(r);
	for (i = 0; i < 3; i++) {
		name.koid = i + 1;
		name.name = names[i];
		ck_assert_int_eq(report_add(r, &name), 0);
	}
	/* Of 1000 samples over 1180 px: 100 for pid 1, 895 for pid 2, 5 for pid 3. */
	rec.frames = frames;
	rec.nr_frames = 1;
	for (i = 0; i < 1000; i++) {
		rec.pid = rec.tid = i < 100 ? 1 : i < 995 ? 2 : 3;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);

	/* 118 px, 112 for the text: 15 glyphs of 7.2 px, so 13 and "..". */
	p = strstr(svg, "<title>long-process-name (100 samples, 10.00%)</title>");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(strstr(p, "width=\""), "width=\"%lf\"", &w), 1);
	ck_assert_double_eq_tol(w, 118, 0.01);
	ck_assert_int_eq(
		sscanf(strstr(p, "<text"), "<text x=\"%*[^\"]\" y=\"%*[^\"]\">%511[^<]", text), 1);
	ck_assert_str_eq(text, "long-process-..");

	p = strstr(svg, "<title>other-process-with-a-long-name (895 samples, 89.50%)</title>");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(
		sscanf(strstr(p, "<text"), "<text x=\"%*[^\"]\" y=\"%*[^\"]\">%511[^<]", text), 1);
	ck_assert_str_eq(text, "other-process-with-a-long-name");

	/* 5.9 px: too narrow for 3 glyphs, so no text in that frame. */
	p = strstr(svg, "<title>tiny-process (5 samples, 0.50%)</title>");
	ck_assert_ptr_nonnull(p);
	ck_assert((uintptr_t)strstr(p, "</g>") < (uintptr_t)(strstr(p, "<text") ?: p + strlen(p)));
	free(c.buf);
	report__free(r);
}
END_TEST

/*
 * perf script text: every sample in time order (not file order), innermost
 * frame first, the cut-off marker last, names that cannot break a line.
 */
START_TEST(test_perf_script)
{
	/* What report_run does for --perf-script: the path keeps the samples. */
	const struct report_opts perf = {.perf_script_path = "unused"};
	struct report *r = report__new(NULL);
	const uint64_t s1[] = {BASE + a_leaf + 2, BASE + a_alpha + 5};
	const uint64_t s2[] = {0xdead};
	char line[3 * PATH_MAX], mod[PATH_MAX + 64];
	struct capture c;
	const char *text;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(report_write_perf_script(r, capture_open(&c)), -EINVAL);
	capture_text(&c);
	free(c.buf);
	report__free(r);
	r = report__new(&perf);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rec_process(r, 100, "prog"), 0);
	ck_assert_int_eq(rec_thread(r, 100, 100, "prog"), 0);
	ck_assert_int_eq(rec_thread(r, 100, 101, " bad\nname"), 0);
	ck_assert_int_eq(rec_module(r, 100, 0, prog), 0);
	ck_assert_int_eq(rec_mmap(r, 100, 0, PF_R | PF_X, BASE, 1 << 20, 0), 0);
	ck_assert_int_eq(rec_backtrace(r, 2 * MS + 5, 100, 101, FXT_BT_FLAG_TRUNCATED, s2, 1), 0);
	ck_assert_int_eq(rec_backtrace(r, 1 * MS, 100, 100, 0, s1, 2), 0);
	ck_assert_int_eq(rec_backtrace(r, 3 * MS, 100, 100, 0, s1, 2), 0);
	ck_assert_int_eq(report_write_perf_script(r, capture_open(&c)), 0);
	text = capture_text(&c);
	snprintf(mod, sizeof(mod), "(%s)", prog);
	/* Per-thread gaps: 2 ms on thread 100 is the period. */
	snprintf(line, sizeof(line),
		 "prog 100/100 0.001000000: 2000000 cpu-clock:\n"
		 "\t%16" PRIx64 " fxs_static_leaf %s\n"
		 "\t%16" PRIx64 " fxs_alpha %s\n\n"
		 "?bad?name 100/101 0.002000005: 2000000 cpu-clock:\n"
		 "\t%16x [unknown] ([unknown])\n"
		 "\t%16x [truncated] ([unknown])\n\n"
		 "prog 100/100 0.003000000: 2000000 cpu-clock:\n",
		 s1[0], mod, s1[1], mod, 0xdead, 0);
	ck_assert_msg(!strncmp(text, line, strlen(line)), "got:\n%s\nwant:\n%s", text, line);
	ck_assert_uint_eq(count_of(text, " cpu-clock:\n"), 3);
	free(c.buf);
	report__free(r);
}
END_TEST

/* ---- report_run on files ---- */

static int file_sink(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, ctx) == len ? 0 : -EIO;
}

static int st_process(void *ctx, uint64_t pid, const char *name)
{
	return fxt_stream_process(ctx, pid, name);
}

static int st_thread(void *ctx, uint64_t pid, uint64_t tid, const char *name)
{
	return fxt_stream_thread(ctx, pid, tid, name);
}

static int st_module(void *ctx, uint64_t pid, uint16_t id, const char *path)
{
	return fxt_stream_module(ctx, 99 * MS, pid, id, path, build_id, sizeof(build_id));
}

static int st_mmap(void *ctx, uint64_t pid, uint16_t id, unsigned flags, uint64_t start,
		   uint64_t size, uint64_t vaddr)
{
	return fxt_stream_mmap(ctx, 99 * MS, pid, id, flags, start, size, vaddr);
}

static int st_backtrace(void *ctx, uint64_t ts, uint64_t pid, uint64_t tid, unsigned flags,
			const uint64_t *frames, unsigned nr)
{
	return fxt_stream_backtrace(ctx, ts, pid, tid, flags, frames, nr);
}

/* Write the profile as an .fxt file, with the capture's counters and drop event. */
static void write_fxt(const char *path, bool counters)
{
	struct feeder fd = {st_process, st_thread, st_module, st_mmap, st_backtrace};
	const char *const names[] = {"fired", "written", "dropped_ring_full", "dropped_no_regs"};
	const uint64_t values[] = {12, 8, 3, 1};
	struct fxt_stream *s;
	FILE *f = fopen(path, "we");

	ck_assert_ptr_nonnull(f);
	s = fxt_stream__new(file_sink, f, "fxsampler", 1000000000ULL);
	ck_assert_ptr_nonnull(s);
	fd.ctx = s;
	feed_profile(&fd);
	if (counters) {
		ck_assert_int_eq(fxt_stream_counter(s, 99 * MS, 0, 0, "fxsampler", "samples", 0,
						    names, values, 4),
				 0);
		ck_assert_int_eq(fxt_stream_dropped(s), 0);
	}
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
	ck_assert_int_eq(fclose(f), 0);
}

static char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long len;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	ck_assert_int_ge(len, 0);
	rewind(f);
	buf = malloc((size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	*ret_len = (size_t)len;
	return buf;
}

START_TEST(test_run_file)
{
	char fxt[PATH_MAX + 32], pprof[PATH_MAX + 32], svg[PATH_MAX + 32], err[256] = "x";
	struct report_opts opts = {.folded = true, .errbuf = err, .errbuf_size = sizeof(err)};
	struct capture c;
	struct profile pr;
	uint8_t *raw;
	char *data;
	size_t len, raw_len;

	snprintf(fxt, sizeof(fxt), "%s/run.fxt", tmpdir);
	snprintf(pprof, sizeof(pprof), "%s/run.pb.gz", tmpdir);
	snprintf(svg, sizeof(svg), "%s/run.svg", tmpdir);
	write_fxt(fxt, false);

	ck_assert_int_eq(report_run(fxt, &opts, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), expected_folded);
	ck_assert_str_eq(err, "");
	free(c.buf);

	opts.folded = false;
	opts.pprof_path = pprof;
	opts.svg_path = svg;
	ck_assert_int_eq(report_run(fxt, &opts, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), expected_top);
	free(c.buf);

	data = slurp(pprof, &len);
	raw = gunzip(data, len, &raw_len);
	parse_profile(raw, raw_len, &pr);
	ck_assert_uint_eq(pr.value_sum, 8);
	ck_assert(has_string(&pr, "fxs_static_leaf"));
	free_profile(&pr);
	free(raw);
	free(data);

	data = slurp(svg, &len);
	ck_assert_ptr_nonnull(strstr(data, "<title>fxs_alpha (2 samples, 25.00%)</title>"));
	free(data);

	/* No text output at all. */
	ck_assert_int_eq(report_run(fxt, &opts, NULL), 0);
}
END_TEST

/*
 * Files written before module and mmap records used an indexed thread ref
 * carry it inline: two words pid, tid (the spec's form, fxsampler's until
 * then) or one word pid (another writer's). The stream's records are flushed
 * to the file and the inline ones written between them.
 */
static FILE *legacy_file;
static unsigned legacy_words;

static void legacy_put(struct fxt_stream *s, struct fxt_buf *b)
{
	unsigned size;

	ck_assert_int_eq(b->err, 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	if (legacy_words == 1) {
		/* Drop the tid word (the third) and one word of the size, bits 4..15. */
		size = (unsigned)b->data[0] | (unsigned)b->data[1] << 8;
		size -= 1 << 4;
		b->data[0] = (uint8_t)size;
		b->data[1] = (uint8_t)(size >> 8);
		memmove(b->data + 24, b->data + 32, b->len - 32);
		b->len -= 8;
	}
	ck_assert_uint_eq(fwrite(b->data, 1, b->len, legacy_file), b->len);
	fxt_buf_free(b);
}

static int legacy_module(void *ctx, uint64_t pid, uint16_t id, const char *path)
{
	struct fxt_tref inl = {.pid = pid};
	struct fxt_buf b = {0};

	ck_assert_int_eq(fxt_put_module(&b, 99 * MS, inl, id, path, strlen(path), build_id,
					sizeof(build_id)),
			 0);
	legacy_put(ctx, &b);
	return 0;
}

static int legacy_mmap(void *ctx, uint64_t pid, uint16_t id, unsigned flags, uint64_t start,
		       uint64_t size, uint64_t vaddr)
{
	struct fxt_tref inl = {.pid = pid};
	struct fxt_buf b = {0};

	ck_assert_int_eq(fxt_put_mmap(&b, 99 * MS, inl, id, flags, start, size, vaddr), 0);
	legacy_put(ctx, &b);
	return 0;
}

static void write_legacy_fxt(const char *path, unsigned words)
{
	struct feeder fd = {st_process, st_thread, legacy_module, legacy_mmap, st_backtrace};
	struct fxt_stream *s;
	FILE *f = fopen(path, "we");

	ck_assert_ptr_nonnull(f);
	legacy_file = f;
	legacy_words = words;
	s = fxt_stream__new(file_sink, f, "fxsampler", 1000000000ULL);
	ck_assert_ptr_nonnull(s);
	fd.ctx = s;
	feed_profile(&fd);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
	ck_assert_int_eq(fclose(f), 0);
}

/* Old captures (inline thread words in module/mmap) report exactly as new ones. */
START_TEST(test_run_legacy_inline_refs)
{
	char fxt[PATH_MAX + 32];
	struct fxt_reader *r;
	struct fxt_record rec;
	unsigned words, inl;
	struct capture c;
	int n;

	for (words = 1; words <= 2; words++) {
		snprintf(fxt, sizeof(fxt), "%s/legacy%u.fxt", tmpdir, words);
		write_legacy_fxt(fxt, words);
		/* The file does hold inline module and mmap records of that size. */
		r = fxt_reader__open(fxt);
		ck_assert_ptr_nonnull(r);
		inl = 0;
		while ((n = fxt_reader_next(r, &rec)) == 1)
			if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_MMAP) {
				ck_assert_uint_eq((rec.header >> 20) & 0xff, 0);
				ck_assert_uint_eq(rec.words, 5 + words);
				inl++;
			}
		ck_assert_msg(n == 0, "%s", fxt_reader_error(r));
		ck_assert_uint_gt(inl, 0);
		fxt_reader__free(r);

		ck_assert_int_eq(
			report_run(fxt, &(struct report_opts){.folded = true}, capture_open(&c)),
			0);
		ck_assert_str_eq(capture_text(&c), expected_folded);
		free(c.buf);
		ck_assert_int_eq(report_run(fxt, NULL, capture_open(&c)), 0);
		ck_assert_str_eq(capture_text(&c), expected_top);
		free(c.buf);
	}
}
END_TEST

START_TEST(test_run_counters)
{
	char fxt[PATH_MAX + 32];
	struct capture c;
	const char *text;

	snprintf(fxt, sizeof(fxt), "%s/counters.fxt", tmpdir);
	write_fxt(fxt, true);
	ck_assert_int_eq(report_run(fxt, NULL, capture_open(&c)), 0);
	text = capture_text(&c);
	ck_assert_ptr_eq(strstr(text, "Samples: 8  Threads: 3  Processes: 2\n"
				      "Truncated stacks: 1 (12.50%)\n"
				      "Dropped samples: 4\n"
				      "  ring_full: 3\n"
				      "  no_regs: 1\n"
				      "Warning: the capture lost records (its buffers overflowed)\n"
				      "\n"),
			 text);
	free(c.buf);
}
END_TEST

START_TEST(test_run_errors)
{
	char path[PATH_MAX + 32], out[PATH_MAX + 32], err[256];
	struct report_opts opts = {.errbuf = err, .errbuf_size = sizeof(err)};
	size_t len;
	char *data;
	FILE *f;

	err[0] = '\0';
	snprintf(path, sizeof(path), "%s/missing.fxt", tmpdir);
	ck_assert_int_eq(report_run(path, &opts, stdout), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "missing.fxt"));

	/* Not an FXT file. */
	snprintf(path, sizeof(path), "%s/garbage.fxt", tmpdir);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("this is not a trace, not even close\n", f);
	fclose(f);
	err[0] = '\0';
	ck_assert_int_eq(report_run(path, &opts, stdout), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "garbage.fxt"));
	ck_assert_uint_gt(strlen(err), strlen(path) + 4);

	/* A good file cut in the middle of a record. */
	snprintf(path, sizeof(path), "%s/cut.fxt", tmpdir);
	write_fxt(path, false);
	data = slurp(path, &len);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len - 12, f), len - 12);
	fclose(f);
	free(data);
	err[0] = '\0';
	ck_assert_int_eq(report_run(path, &opts, stdout), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "offset"));

	/* An output that cannot be created. */
	snprintf(path, sizeof(path), "%s/ok.fxt", tmpdir);
	write_fxt(path, false);
	snprintf(out, sizeof(out), "%s/no/such/dir/x.svg", tmpdir);
	opts.svg_path = out;
	err[0] = '\0';
	ck_assert_int_eq(report_run(path, &opts, NULL), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "x.svg"));
}
END_TEST

static bool has_entry_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			found = true;
	closedir(d);
	return found;
}

/* Output paths are checked before any work; what was written is said, where. */
START_TEST(test_run_outputs_first)
{
	char path[PATH_MAX + 32], out[PATH_MAX + 32], bad[PATH_MAX + 32], err[256];
	char want[PATH_MAX + 128];
	struct report_opts opts = {.errbuf = err, .errbuf_size = sizeof(err)};
	struct capture c, info;
	size_t len;
	char *data;
	FILE *f;

	snprintf(path, sizeof(path), "%s/first.fxt", tmpdir);
	write_fxt(path, false);
	/* A pprof that cannot be created: the top view is not printed at all. */
	snprintf(out, sizeof(out), "%s/no/such/dir/x.pb.gz", tmpdir);
	opts.pprof_path = out;
	err[0] = '\0';
	ck_assert_int_eq(report_run(path, &opts, capture_open(&c)), -ENOENT);
	ck_assert_str_eq(capture_text(&c), "");
	free(c.buf);
	ck_assert_ptr_nonnull(strstr(err, "cannot create"));
	ck_assert_ptr_nonnull(strstr(err, "x.pb.gz"));
	/* Nor when the second of two outputs is the bad one; the first is not made. */
	snprintf(bad, sizeof(bad), "%s/first.pb.gz", tmpdir);
	opts.pprof_path = bad;
	opts.svg_path = tmpdir; /* a directory */
	ck_assert_int_eq(report_run(path, &opts, capture_open(&c)), -EISDIR);
	ck_assert_str_eq(capture_text(&c), "");
	free(c.buf);
	ck_assert_int_eq(access(bad, F_OK), -1);

	/* A bad input leaves an older output as it was, and no temporary file. */
	snprintf(out, sizeof(out), "%s/keep.svg", tmpdir);
	f = fopen(out, "we");
	ck_assert_ptr_nonnull(f);
	fputs("old", f);
	fclose(f);
	snprintf(bad, sizeof(bad), "%s/garbage2.fxt", tmpdir);
	f = fopen(bad, "we");
	ck_assert_ptr_nonnull(f);
	fputs("not a trace at all, no\n", f);
	fclose(f);
	opts.pprof_path = NULL;
	opts.svg_path = out;
	ck_assert_int_eq(report_run(bad, &opts, NULL), -EBADMSG);
	data = slurp(out, &len);
	ck_assert_str_eq(data, "old");
	free(data);
	ck_assert(!has_entry_prefix(tmpdir, ".keep.svg."));

	/* Success: the file is replaced and info says what went where. */
	opts.info = capture_open(&info);
	ck_assert_int_eq(report_run(path, &opts, NULL), 0);
	fflush(opts.info);
	data = slurp(out, &len);
	ck_assert_ptr_nonnull(strstr(data, "<svg "));
	free(data);
	snprintf(want, sizeof(want), "fxsampler: wrote %s: flame graph, %zu bytes\n", out, len);
	ck_assert_str_eq(capture_text(&info), want);
	free(info.buf);
}
END_TEST

/* Damaged files: every output is written or the damage reported, never a crash. */
START_TEST(test_run_mutated)
{
	char good[PATH_MAX + 32], bad[PATH_MAX + 32], pprof[PATH_MAX + 32], svg[PATH_MAX + 32];
	char err[256];
	struct report_opts opts = {
		.pprof_path = pprof, .svg_path = svg, .errbuf = err, .errbuf_size = sizeof(err)};
	uint64_t rng = 0x853c49e6748fea9bULL;
	unsigned i, k, ok = 0, rejected = 0;
	size_t len;
	char *data;

	snprintf(good, sizeof(good), "%s/mut_good.fxt", tmpdir);
	snprintf(bad, sizeof(bad), "%s/mut_bad.fxt", tmpdir);
	snprintf(pprof, sizeof(pprof), "%s/mut.pb.gz", tmpdir);
	snprintf(svg, sizeof(svg), "%s/mut.svg", tmpdir);
	write_fxt(good, true);
	data = slurp(good, &len);
	for (i = 0; i < 150; i++) {
		char *copy = malloc(len);
		struct capture c;
		FILE *f;
		int ret;

		ck_assert_ptr_nonnull(copy);
		memcpy(copy, data, len);
		for (k = 0; k < 1 + i % 4; k++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			copy[rng % len] ^= (char)(1u << ((rng >> 32) % 8));
		}
		f = fopen(bad, "we");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(copy, 1, len, f), len);
		ck_assert_int_eq(fclose(f), 0);
		free(copy);
		opts.folded = i % 2;
		ret = report_run(bad, &opts, capture_open(&c));
		capture_text(&c);
		free(c.buf);
		ck_assert_msg(ret == 0 || ret == -EBADMSG, "run %u: %d (%s)", i, ret, err);
		if (ret)
			rejected++;
		else
			ok++;
	}
	ck_assert_uint_gt(ok, 0);
	ck_assert_uint_gt(rejected, 0);
	free(data);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *text = tcase_create("text");
	TCase *formats = tcase_create("formats");
	TCase *run = tcase_create("run");

	tcase_add_test(text, test_top);
	tcase_add_test(text, test_folded);
	tcase_add_test(text, test_folded_threads);
	tcase_add_test(text, test_filters);
	tcase_add_test(text, test_recursion);
	tcase_add_test(text, test_top_not_symbolized);
	tcase_add_test(text, test_empty_and_late_records);
	tcase_add_test(formats, test_pprof);
	tcase_add_test(formats, test_pprof_clock);
	tcase_add_test(formats, test_pprof_go_build_id);
	tcase_add_test(formats, test_pprof_go_tool);
	tcase_add_test(formats, test_svg);
	tcase_add_test(formats, test_perf_script);
	tcase_add_test(formats, test_svg_geometry);
	tcase_add_test(formats, test_svg_cut_labels);
	tcase_add_test(formats, test_svg_many_stacks);
	tcase_add_test(run, test_run_file);
	tcase_add_test(run, test_run_counters);
	tcase_add_test(run, test_run_errors);
	tcase_add_test(run, test_run_outputs_first);
	tcase_add_test(run, test_run_mutated);
	tcase_add_test(run, test_run_legacy_inline_refs);
	/* go tool pprof starts slowly the first time; valgrind slows everything. */
	tcase_set_timeout(formats, 120);
	tcase_set_timeout(run, 120);
	suite_add_tcase(s, text);
	suite_add_tcase(s, formats);
	suite_add_tcase(s, run);
	return s;
}

int main(void)
{
	int status;

	build_fixture();
	status = check_run(report_suite());
	remove_fixture();
	return status;
}
