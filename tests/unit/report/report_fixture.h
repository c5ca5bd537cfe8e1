/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the report tests share (check_report*.c): one synthetic profile of a
 * real binary (built here with gcc, so the names are real symbols), fed
 * record by record (new_report()) or through an .fxt file (write_fxt()), the
 * exact top and folded outputs spelled out by hand (pprof_reader.h reads
 * the pprof output). Each program builds the fixture once
 * (report_fixture_main()).
 */
#ifndef FXS_TESTS_REPORT_FIXTURE_H
#define FXS_TESTS_REPORT_FIXTURE_H

/* Each program uses some of these. */
#define FIXTURE_FN __attribute__((unused))

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
#include "fxt/fxt_stream.h"
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
	/* C functions under a C++ and a Rust legacy symbol, for the demangling tests */
	"int fxs_cxx(int x) __asm__(\"_ZN3fxs5alphaEi\");\n"
	"__attribute__((noinline)) int fxs_cxx(int x) { return x + 7; }\n"
	"int fxs_rust(int x) __asm__(\"_ZN3fxs4beta17h0123456789abcdefE\");\n"
	"__attribute__((noinline)) int fxs_rust(int x) { return fxs_cxx(x) * 5; }\n"
	"int main(int argc, char **argv) { return fxs_beta(argc) > 100 || fxs_rust(argc) > 100; "
	"}\n";

#define BUILD_ID "00112233445566778899aabbccddeeff00112233"
#define BASE	 0x560000000000ULL
#define MS	 1000000ULL

static char tmpdir[PATH_MAX];
static char prog[PATH_MAX + 16];
static uint8_t build_id[20];

/* Function addresses in prog, from nm. */
static uint64_t a_leaf, a_alpha, a_beta, a_main, a_outer;

static FIXTURE_FN uint64_t nm_addr(const char *name)
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

static FIXTURE_FN void build_fixture(void)
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

static FIXTURE_FN void remove_fixture(void)
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

/* prog's segments mapped at BASE as module 0 of process pid, through mmap(ctx, ...). */
static FIXTURE_FN void map_prog(int (*mmap_fn)(void *ctx, uint64_t pid, uint16_t id, unsigned flags,
					       uint64_t start, uint64_t size, uint64_t vaddr),
				void *ctx, uint64_t pid)
{
	struct elf_symbols *es = elf_symbols__open(prog, NULL);
	const struct elf_segment *segs;
	size_t i, n;

	ck_assert_ptr_nonnull(es);
	n = elf_symbols__segments(es, &segs);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(mmap_fn(ctx, pid, 0, segs[i].flags, BASE + segs[i].vaddr,
					 segs[i].memsz, segs[i].vaddr),
				 0);
	elf_symbols__free(es);
}

static FIXTURE_FN void feed_profile(const struct feeder *f)
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
	map_prog(f->mmap, f->ctx, 100);
}

/* Feeding report_add() with hand-made records. */

static FIXTURE_FN int rec_process(void *ctx, uint64_t pid, const char *name)
{
	struct fxt_record rec = {.type = FXT_RT_KOBJ, .subtype = FXT_OBJ_PROCESS};

	rec.koid = rec.pid = pid;
	rec.name = name;
	return report_add(ctx, &rec);
}

static FIXTURE_FN int rec_thread(void *ctx, uint64_t pid, uint64_t tid, const char *name)
{
	struct fxt_record rec = {.type = FXT_RT_KOBJ, .subtype = FXT_OBJ_THREAD};

	rec.koid = rec.tid = tid;
	rec.pid = pid;
	rec.name = name;
	return report_add(ctx, &rec);
}

static FIXTURE_FN int rec_module(void *ctx, uint64_t pid, uint16_t id, const char *path)
{
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_MODULE};

	rec.pid = pid;
	rec.module_id = id;
	rec.name = path;
	rec.build_id = build_id;
	rec.build_id_len = sizeof(build_id);
	return report_add(ctx, &rec);
}

static FIXTURE_FN int rec_mmap(void *ctx, uint64_t pid, uint16_t id, unsigned flags, uint64_t start,
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

static FIXTURE_FN int rec_backtrace(void *ctx, uint64_t ts, uint64_t pid, uint64_t tid,
				    unsigned flags, const uint64_t *frames, unsigned nr)
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

/*
 * prog's segments as module id of process 100 at BASE, begun at time ts;
 * with shift added to their module addresses, so that a pc there is named
 * by the function shift bytes further (another library at the address).
 */
static FIXTURE_FN void map_prog_at(struct report *r, uint16_t id, uint64_t shift, uint64_t ts)
{
	struct elf_symbols *es = elf_symbols__open(prog, NULL);
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_MMAP};
	const struct elf_segment *segs;
	size_t i, n;

	ck_assert_ptr_nonnull(es);
	ck_assert_int_eq(rec_module(r, 100, id, prog), 0);
	n = elf_symbols__segments(es, &segs);
	for (i = 0; i < n; i++) {
		rec.ts = ts;
		rec.pid = 100;
		rec.module_id = id;
		rec.mmap_flags = segs[i].flags;
		rec.start = BASE + segs[i].vaddr;
		rec.size = segs[i].memsz;
		rec.vaddr = segs[i].vaddr + shift;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
	elf_symbols__free(es);
}

/*
 * One pc of thread 100 sampled at 2 and 3 ms in prog's fxs_alpha (mapped at
 * 1 ms), then at 10, 11 and 12 ms in another mapping there since 10 ms (a
 * dlclose and a dlopen at the same address), where it is in fxs_beta. The
 * mappings come before the samples taken in them, as fxsampler writes them.
 */
static FIXTURE_FN struct report *new_remapped_report(const struct report_opts *opts)
{
	const uint64_t pc[] = {BASE + a_alpha + 1};
	struct report *r = report__new(opts);

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rec_process(r, 100, "prog"), 0);
	ck_assert_int_eq(rec_thread(r, 100, 100, "prog"), 0);
	map_prog_at(r, 0, 0, 1 * MS);
	ck_assert_int_eq(rec_backtrace(r, 2 * MS, 100, 100, 0, pc, 1), 0);
	ck_assert_int_eq(rec_backtrace(r, 3 * MS, 100, 100, 0, pc, 1), 0);
	map_prog_at(r, 1, a_beta - a_alpha, 10 * MS);
	for (uint64_t ms = 10; ms <= 12; ms++)
		ck_assert_int_eq(rec_backtrace(r, ms * MS, 100, 100, 0, pc, 1), 0);
	return r;
}

/* The per-process, per-thread root frames of fxsampler 0.1 (expected_folded). */
static const struct report_opts split
	__attribute__((unused)) = {.split_processes = true, .split_threads = true};

static FIXTURE_FN struct report *new_report(const struct report_opts *opts)
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

static FIXTURE_FN FILE *capture_open(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	ck_assert_ptr_nonnull(c->f);
	return c->f;
}

static FIXTURE_FN const char *capture_text(struct capture *c)
{
	ck_assert_int_eq(fclose(c->f), 0);
	c->f = NULL;
	return c->buf;
}

/* The samples a report accounted, as its top view's first line says them. */
static FIXTURE_FN unsigned long long top_samples(struct report *r)
{
	unsigned long long n = 0;
	struct capture c;

	ck_assert_int_eq(report_write_top(r, capture_open(&c), 1), 0);
	ck_assert_int_eq(sscanf(capture_text(&c), "Samples: %llu ", &n), 1);
	free(c.buf);
	return n;
}

static const char expected_folded[] __attribute__((unused)) =
	"[pid 200];a:b<&>-201;[unknown] 1\n"
	"prog;prog-100;fxs_nosize 1\n"
	"prog;prog-100;main;fxs_beta;fxs_alpha;fxs_static_leaf 3\n"
	"prog;worker-101;[truncated];fxs_alpha;fxs_static_leaf 1\n"
	"prog;worker-101;main;fxs_beta;fxs_alpha 2\n";

/* The default: one frame per process name and per thread name. */
static const char expected_folded_merged[] __attribute__((unused)) =
	"[pid 200];a:b<&>;[unknown] 1\n"
	"prog;prog;fxs_nosize 1\n"
	"prog;prog;main;fxs_beta;fxs_alpha;fxs_static_leaf 3\n"
	"prog;worker;[truncated];fxs_alpha;fxs_static_leaf 1\n"
	"prog;worker;main;fxs_beta;fxs_alpha 2\n";

static const char expected_top[] __attribute__((unused)) =
	"Samples: 8  Threads: 3  Processes: 2\n"
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

/* ---- counting and files ---- */

static FIXTURE_FN size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

static FIXTURE_FN int file_sink(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, ctx) == len ? 0 : -EIO;
}

static FIXTURE_FN int st_process(void *ctx, uint64_t pid, const char *name)
{
	return fxt_stream_process(ctx, pid, name);
}

static FIXTURE_FN int st_thread(void *ctx, uint64_t pid, uint64_t tid, const char *name)
{
	return fxt_stream_thread(ctx, pid, tid, name);
}

static FIXTURE_FN int st_module(void *ctx, uint64_t pid, uint16_t id, const char *path)
{
	return fxt_stream_module(ctx, 99 * MS, pid, id, path, build_id, sizeof(build_id));
}

static FIXTURE_FN int st_mmap(void *ctx, uint64_t pid, uint16_t id, unsigned flags, uint64_t start,
			      uint64_t size, uint64_t vaddr)
{
	return fxt_stream_mmap(ctx, 99 * MS, pid, id, flags, start, size, vaddr);
}

static FIXTURE_FN int st_backtrace(void *ctx, uint64_t ts, uint64_t pid, uint64_t tid,
				   unsigned flags, const uint64_t *frames, unsigned nr)
{
	return fxt_stream_backtrace(ctx, ts, pid, tid, flags, frames, nr);
}

/* An .fxt file at path: its stream, written to *ret_f until fxt_file_close(). */
static FIXTURE_FN struct fxt_stream *fxt_file_open(const char *path, FILE **ret_f)
{
	struct fxt_stream *s;

	*ret_f = fopen(path, "we");
	ck_assert_ptr_nonnull(*ret_f);
	s = fxt_stream__new(file_sink, *ret_f, "fxsampler", 1000000000ULL);
	ck_assert_ptr_nonnull(s);
	return s;
}

static FIXTURE_FN void fxt_file_close(struct fxt_stream *s, FILE *f)
{
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
	ck_assert_int_eq(fclose(f), 0);
}

static FIXTURE_FN int st_mmap_at0(void *ctx, uint64_t pid, uint16_t id, unsigned flags,
				  uint64_t start, uint64_t size, uint64_t vaddr)
{
	return fxt_stream_mmap(ctx, 0, pid, id, flags, start, size, vaddr);
}

/* prog's module and mmap records of process pid at time 0 (map_prog()). */
static FIXTURE_FN void stream_prog(struct fxt_stream *s, uint64_t pid)
{
	ck_assert_int_eq(fxt_stream_module(s, 0, pid, 0, prog, build_id, sizeof(build_id)), 0);
	map_prog(st_mmap_at0, s, pid);
}

/* Write the profile as an .fxt file, with the capture's counters and drop event. */
static FIXTURE_FN void write_fxt(const char *path, bool counters)
{
	struct feeder fd = {st_process, st_thread, st_module, st_mmap, st_backtrace};
	const char *const names[] = {"fired", "written", "dropped_ring_full", "dropped_no_regs"};
	const uint64_t values[] = {12, 8, 3, 1};
	FILE *f;
	struct fxt_stream *s = fxt_file_open(path, &f);

	fd.ctx = s;
	feed_profile(&fd);
	if (counters) {
		ck_assert_int_eq(fxt_stream_counter(s, 99 * MS, 0, 0, "fxsampler", "samples", 0,
						    names, values, 4),
				 0);
		ck_assert_int_eq(fxt_stream_dropped(s), 0);
	}
	fxt_file_close(s, f);
}

/* What report_run() writes of the file at path with o: a string to free. */
static FIXTURE_FN char *report_text(const char *path, const struct report_opts *o)
{
	struct capture c;

	ck_assert_int_eq(report_run(path, o, capture_open(&c)), 0);
	capture_text(&c);
	return c.buf;
}

static FIXTURE_FN char *slurp(const char *path, size_t *ret_len)
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

/* main() of a report test program: the fixture around the suite suite_fn() builds. */
static inline int report_fixture_main(Suite *(*suite_fn)(void))
{
	int status;

	build_fixture();
	status = check_run(suite_fn());
	remove_fixture();
	return status;
}

#endif /* FXS_TESTS_REPORT_FIXTURE_H */
