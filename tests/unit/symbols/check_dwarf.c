// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of dwarf_lines and of the source lines and inlined frames the
 * symbolizer and the report get from it.
 *
 * The fixtures are built here with gcc -g -O2 (always_inline functions, so
 * there are inline chains) as DWARF 4, DWARF 5, with compressed debug
 * sections, and stripped with the debug info in a build-id directory or
 * behind a .gnu_debuglink. The expected functions and lines come from
 * binutils' addr2line -f -i, not from libdw.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/dwarf_lines.h"
#include "symbols/elf_symbols.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "report/report.h"
#include "symbols/symbolizer.h"

#include "dwarf_fixture.h"

static char debug_dir[PATH_MAX + 16];

#define ID_LINK "7123456789abcdef0123456789abcdef01234567"

static void build_fixtures(void)
{
	const char *cc = getenv("FXS_TEST_CC") ?: "gcc";
	const char *f = "-O2 -fno-omit-frame-pointer";
	int err = 0;

	make_tmpdir("fxs_dwarf");
	snprintf(debug_dir, sizeof(debug_dir), "%s/debug", tmpdir);
	write_file(fx("inl.c"), inline_chain_src);
	err |= run("%s %s -gdwarf-4 -o %s %s", cc, f, fx("d4"), fx("inl.c"));
	err |= run("%s %s -gdwarf-5 -o %s %s", cc, f, fx("d5"), fx("inl.c"));
	err |= run("%s %s -g -gz=zlib -o %s %s", cc, f, fx("gz"), fx("inl.c"));
	/* Stripped, the debug file under <debug_dir>/.build-id/. */
	err |= build_stripped_by_build_id(cc, f, debug_dir);
	/* Stripped, the debug file next to it behind a .gnu_debuglink. */
	err |= run("%s %s -g -Wl,--build-id=0x%s -o %s %s", cc, f, ID_LINK, fx("lfull"),
		   fx("inl.c"));
	err |= run("cd %s && objcopy --only-keep-debug lfull linked.debug && strip -o linked lfull "
		   "&& objcopy --add-gnu-debuglink=linked.debug linked",
		   tmpdir);
	/* No debug info at all. */
	err |= run("%s %s -o %s %s", cc, f, fx("nodebug"), fx("inl.c"));
	if (err) {
		fprintf(stderr, "cannot build the fixtures\n");
		exit(EXIT_FAILURE);
	}
}

struct a2l_frame {
	char function[512];
	char file[PATH_MAX + 64];
	unsigned line;
};

/* addr2line -f -i's chain for addr, innermost first. */
static unsigned addr2line(const char *bin, uint64_t addr, struct a2l_frame *fr, unsigned max)
{
	char cmd[PATH_MAX + 128], fn[512], loc[PATH_MAX + 64];
	unsigned n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e %s 0x%" PRIx64, bin, addr);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (n < max && fgets(fn, sizeof(fn), p) && fgets(loc, sizeof(loc), p)) {
		char *colon, *sp;

		fn[strcspn(fn, "\n")] = '\0';
		loc[strcspn(loc, "\n")] = '\0';
		sp = strchr(loc, ' '); /* " (discriminator N)" */
		if (sp)
			*sp = '\0';
		colon = strrchr(loc, ':');
		ck_assert_ptr_nonnull(colon);
		*colon = '\0';
		snprintf(fr[n].function, sizeof(fr[n].function), "%s", fn);
		snprintf(fr[n].file, sizeof(fr[n].file), "%s", loc);
		fr[n].line = (unsigned)strtoul(colon + 1, NULL, 10);
		n++;
	}
	pclose(p);
	return n;
}

static unsigned compare_fn_with_addr2line(const char *bin, const char *ref, const char *ddir,
					  const char *fn);

/* Every instruction of fxs_outer, as libdw and addr2line see it; returns the deepest chain. */
static unsigned compare_with_addr2line(const char *bin, const char *ref, const char *ddir)
{
	return compare_fn_with_addr2line(bin, ref, ddir, "fxs_outer");
}

static unsigned compare_fn_with_addr2line(const char *bin, const char *ref, const char *ddir,
					  const char *fn)
{
	struct dwarf_lines_opts o = {.debug_dir = ddir};
	struct dwarf_frame fr[DWARF_MAX_FRAMES];
	struct a2l_frame want[DWARF_MAX_FRAMES];
	struct dwarf_lines *dl;
	uint64_t start, size, a;
	unsigned deepest = 0;

	start = nm_addr(ref, fn, &size);
	ck_assert_uint_gt(size, 0);
	dl = dwarf_lines__open(bin, NULL, 0, &o, NULL);
	ck_assert_msg(dl, "%s: no DWARF: %s", bin, strerror(errno));
	for (a = start; a < start + size; a++) {
		int n = dwarf_lines__lookup(dl, a, fr, DWARF_MAX_FRAMES);
		unsigned m = addr2line(ref, a, want, DWARF_MAX_FRAMES), i;

		ck_assert_int_eq(n, (int)m);
		for (i = 0; i < m; i++) {
			ck_assert_str_eq(fr[i].function, want[i].function);
			ck_assert_ptr_nonnull(fr[i].file);
			ck_assert_str_eq(fr[i].file, want[i].file);
			ck_assert_uint_eq(fr[i].line, want[i].line);
		}
		if (m > deepest)
			deepest = m;
	}
	dwarf_lines__free(dl);
	return deepest;
}

/* The loop of fxs_leaf, inlined twice: leaf <- mid <- outer. */
static void check_chain(const char *bin, const char *ddir)
{
	struct dwarf_lines_opts o = {.debug_dir = ddir};
	struct dwarf_frame fr[DWARF_MAX_FRAMES];
	struct dwarf_lines *dl;
	uint64_t start, size, a;
	bool seen = false;

	start = nm_addr(fx("d4"), "fxs_outer", &size);
	dl = dwarf_lines__open(bin, NULL, 0, &o, NULL);
	ck_assert_msg(dl, "%s: no DWARF: %s", bin, strerror(errno));
	for (a = start; a < start + size && !seen; a++) {
		int n = dwarf_lines__lookup(dl, a, fr, DWARF_MAX_FRAMES);

		if (n != 3 || fr[0].line != LINE_LEAF_LOOP)
			continue;
		seen = true;
		ck_assert_str_eq(fr[0].function, "fxs_leaf");
		ck_assert_str_eq(fr[1].function, "fxs_mid");
		ck_assert_uint_eq(fr[1].line, LINE_MID_CALL);
		ck_assert_str_eq(fr[2].function, "fxs_outer");
		ck_assert_uint_eq(fr[2].line, LINE_OUTER_CALL);
		ck_assert_uint_eq(fr[2].decl_line, DECL_OUTER);
		ck_assert_ptr_nonnull(strstr(fr[2].decl_file, "inl.c"));
		ck_assert_ptr_nonnull(strstr(fr[0].file, "inl.c"));
	}
	ck_assert_msg(seen, "%s: no pc of fxs_outer runs the inlined loop", bin);
	dwarf_lines__free(dl);
}

START_TEST(test_dwarf4_matches_addr2line)
{
	ck_assert_uint_eq(compare_with_addr2line(fx("d4"), fx("d4"), tmpdir), 3);
	check_chain(fx("d4"), tmpdir);
}
END_TEST

START_TEST(test_dwarf5_matches_addr2line)
{
	ck_assert_uint_eq(compare_with_addr2line(fx("d5"), fx("d5"), tmpdir), 3);
	check_chain(fx("d5"), tmpdir);
}
END_TEST

START_TEST(test_compressed_sections)
{
	/* -gz must really have compressed them, or this tests nothing new. */
	ck_assert_int_eq(run("readelf -S -W %s | grep -q '\\.debug_info.* C '", fx("gz")), 0);
	check_chain(fx("gz"), tmpdir);
	compare_with_addr2line(fx("gz"), fx("d4"), tmpdir);
}
END_TEST

START_TEST(test_build_id_debug_file)
{
	struct dwarf_lines *dl;

	/* Without the debug dir, the stripped file has no DWARF. */
	dl = dwarf_lines__open(fx("stripped"), NULL, 0,
			       &(struct dwarf_lines_opts){.debug_dir = tmpdir}, NULL);
	ck_assert_ptr_null(dl);
	ck_assert_int_eq(errno, ENODATA);
	check_chain(fx("stripped"), debug_dir);
	compare_with_addr2line(fx("stripped"), fx("full"), debug_dir);
	dl = dwarf_lines__open(fx("stripped"), NULL, 0,
			       &(struct dwarf_lines_opts){.debug_dir = debug_dir}, NULL);
	ck_assert_ptr_nonnull(dl);
	ck_assert_ptr_nonnull(strstr(dwarf_lines__path(dl), ".build-id/61/"));
	dwarf_lines__free(dl);
}
END_TEST

START_TEST(test_debuglink)
{
	struct dwarf_lines *dl;

	check_chain(fx("linked"), tmpdir);
	dl = dwarf_lines__open(fx("linked"), NULL, 0, NULL, NULL);
	ck_assert_ptr_nonnull(dl);
	ck_assert_str_eq(dwarf_lines__path(dl), fx("linked.debug"));
	dwarf_lines__free(dl);
}
END_TEST

/* C++: functions inside a namespace, a member function inlined, mangled names. */
static const char cxx_src[] =
	"#include <cstdlib>\n"
	"namespace fxs {\n"
	"static volatile unsigned long sink;\n"
	"struct Acc {\n"
	"\tstatic inline __attribute__((always_inline)) unsigned long leaf(unsigned long x)\n"
	"\t{\n"
	"\t\tunsigned long s = 0;\n"
	"\t\tfor (unsigned long i = 0; i < x; i++)\n"
	"\t\t\ts += i * i ^ (s >> 3);\n"
	"\t\treturn s;\n"
	"\t}\n"
	"};\n"
	"__attribute__((noinline)) unsigned long outer(unsigned long x) { return Acc::leaf(x) * 3; "
	"}\n"
	"} // namespace fxs\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tfxs::sink += fxs::outer(argc > 1 ? strtoul(argv[1], 0, 0) : 10);\n"
	"\treturn 0;\n"
	"}\n";

START_TEST(test_cxx_namespaces)
{
	FILE *f;

	if (run("command -v g++ >/dev/null")) {
		printf("SKIP: check_dwarf: g++ not found, C++ not checked; NOT RUN\n");
		return;
	}
	f = fopen(fx("ns.cc"), "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(cxx_src, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(run("g++ -O2 -g -o %s %s", fx("ns"), fx("ns.cc")), 0);
	ck_assert_uint_eq(compare_fn_with_addr2line(fx("ns"), fx("ns"), tmpdir, "_ZN3fxs5outerEm"),
			  2);
}
END_TEST

START_TEST(test_build_id_mismatch_and_no_debug)
{
	uint8_t other[20] = {0x99};
	struct dwarf_lines *dl;

	/* The recorded build differs: its DWARF would give wrong lines. */
	dl = dwarf_lines__open(fx("full"), other, sizeof(other),
			       &(struct dwarf_lines_opts){.debug_dir = tmpdir}, NULL);
	ck_assert_ptr_null(dl);
	dl = dwarf_lines__open(fx("nodebug"), NULL, 0, NULL, NULL);
	ck_assert_ptr_null(dl);
	ck_assert_int_eq(errno, ENODATA);
	dl = dwarf_lines__open(fx("missing"), NULL, 0, NULL, NULL);
	ck_assert_ptr_null(dl);
	/* A FIFO or a device named as a module: no hang, no endless read. */
	ck_assert_int_eq(mkfifo(fx("fifo"), 0600), 0);
	ck_assert_ptr_null(dwarf_lines__open(fx("fifo"), NULL, 0, NULL, NULL));
	ck_assert_int_eq(errno, ENODATA);
	ck_assert_ptr_null(dwarf_lines__open("/dev/zero", NULL, 0, NULL, NULL));
	ck_assert_int_eq(errno, ENODATA);
}
END_TEST

/* ---- symbolizer and report ---- */

#define PID  100
#define BASE 0x555555554000ULL

static void add_module(struct report *r, struct symbolizer *s, const char *path)
{
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_MODULE};

	rec.pid = PID;
	rec.module_id = 1;
	rec.name = path;
	if (r)
		ck_assert_int_eq(report_add(r, &rec), 0);
	else
		ck_assert_int_eq(symbolizer_add_record(s, &rec), 0);
	rec.subtype = FXT_PROF_MMAP;
	rec.mmap_flags = 5; /* r-x */
	rec.start = BASE;
	rec.size = 0x100000;
	rec.vaddr = 0;
	if (r)
		ck_assert_int_eq(report_add(r, &rec), 0);
	else
		ck_assert_int_eq(symbolizer_add_record(s, &rec), 0);
}

/* A pc of fxs_outer inside the inlined loop, found with addr2line. */
static uint64_t loop_pc(const char *bin)
{
	struct a2l_frame want[8];
	uint64_t start, size, a;

	start = nm_addr(bin, "fxs_outer", &size);
	for (a = start; a < start + size; a++)
		if (addr2line(bin, a, want, 8) == 3 && want[0].line == LINE_LEAF_LOOP)
			return a;
	ck_abort_msg("no loop pc");
	return 0;
}

START_TEST(test_symbolizer_inline_chain)
{
	struct symbolizer *s = symbolizer__new(&(struct symbolizer_opts){.debug_dir = tmpdir});
	uint64_t pc = loop_pc(fx("d4"));
	struct sym_frame f;

	add_module(NULL, s, fx("d4"));
	ck_assert_int_eq(symbolizer_resolve(s, PID, BASE + pc, false, 0, &f), 0);
	ck_assert(f.resolved);
	ck_assert_str_eq(f.function, "fxs_outer");
	ck_assert_uint_eq(f.line, LINE_OUTER_CALL);
	ck_assert_uint_eq(f.decl_line, DECL_OUTER);
	ck_assert_uint_eq(f.nr_inlined, 2);
	ck_assert_str_eq(f.inlined[0].function, "fxs_leaf");
	ck_assert_uint_eq(f.inlined[0].line, LINE_LEAF_LOOP);
	ck_assert_str_eq(f.inlined[1].function, "fxs_mid");
	ck_assert_uint_eq(f.inlined[1].line, LINE_MID_CALL);
	symbolizer__free(s);

	/* Without debug info: the ELF symbol as before, and no lines. */
	s = symbolizer__new(&(struct symbolizer_opts){.debug_dir = tmpdir});
	add_module(NULL, s, fx("nodebug"));
	ck_assert_int_eq(symbolizer_resolve(s, PID,
					    BASE + nm_addr(fx("nodebug"), "fxs_outer", NULL), false,
					    0, &f),
			 0);
	ck_assert(f.resolved);
	ck_assert_str_eq(f.function, "fxs_outer");
	ck_assert_ptr_null(f.file);
	ck_assert_uint_eq(f.nr_inlined, 0);
	symbolizer__free(s);
}
END_TEST

static void add_sample(struct report *r, uint64_t pc, unsigned count)
{
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_BACKTRACE};
	uint64_t frames[1] = {pc};
	unsigned i;

	rec.pid = PID;
	rec.tid = PID;
	rec.nr_frames = 1;
	rec.frames = frames;
	for (i = 0; i < count; i++) {
		rec.ts = 1000 + i;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
}

static char *report_text(struct report *r, int (*fn)(struct report *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fn(r, f), 0);
	fclose(f);
	return buf;
}

/* Whether the line of text ending with end also holds part. */
static bool row_has(const char *text, const char *end, const char *part)
{
	const char *e = strstr(text, end), *start;

	if (!e)
		return false;
	for (start = e; start > text && start[-1] != '\n'; start--)
		;
	return memmem(start, (size_t)(e - start) + 1, part, strlen(part)) != NULL;
}

static int write_top(struct report *r, FILE *f)
{
	return report_write_top(r, f, 10);
}

START_TEST(test_report_inlined_frames)
{
	struct report_opts o = {.debug_dir = tmpdir, .folded_no_thread = true};
	uint64_t pc = BASE + loop_pc(fx("d4"));
	struct report *r;
	char *text;

	r = report__new(&o);
	add_module(r, NULL, fx("d4"));
	add_sample(r, pc, 5);
	text = report_text(r, report_write_folded);
	ck_assert_msg(strstr(text, ";fxs_outer;fxs_mid [inlined];fxs_leaf [inlined] 5\n"), "%s",
		      text);
	free(text);
	/* The inlined leaf is the function the samples are in. */
	text = report_text(r, write_top);
	ck_assert_msg(strstr(text, "       5 100.00%        5 100.00%  fxs_leaf ["), "%s", text);
	ck_assert_msg(strstr(text, "       0   0.00%        5 100.00%  fxs_mid ["), "%s", text);
	free(text);
	text = report_text(r, report_write_svg);
	ck_assert_ptr_nonnull(strstr(text, "fxs_leaf [inlined]"));
	free(text);
	report__free(r);

	/* --lines: the rows carry file:line. */
	o.lines = true;
	r = report__new(&o);
	add_module(r, NULL, fx("d4"));
	add_sample(r, pc, 5);
	text = report_text(r, write_top);
	ck_assert_msg(row_has(text, "  fxs_leaf [d4]\n", "  5 100.00%  inl.c:7 "), "%s", text);
	ck_assert_msg(row_has(text, "  fxs_mid [d4]\n", "  5 100.00%  inl.c:12 "), "%s", text);
	ck_assert_msg(row_has(text, "  fxs_outer [d4]\n", "  5 100.00%  inl.c:16 "), "%s", text);
	free(text);
	report__free(r);
}
END_TEST

/* go tool pprof reads the lines and the inline chain without symbolizing again. */
START_TEST(test_pprof_lines)
{
	struct report_opts o = {.debug_dir = tmpdir};
	struct report *r;
	char cmd[PATH_MAX * 2 + 256];
	FILE *f;

	if (run("command -v go >/dev/null")) {
		printf("SKIP: check_dwarf: go not found, pprof -list not checked; NOT RUN\n");
		return;
	}
	r = report__new(&o);
	add_module(r, NULL, fx("d4"));
	add_sample(r, BASE + loop_pc(fx("d4")), 7);
	f = fopen(fx("p.pb.gz"), "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(report_write_pprof(r, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	report__free(r);
	/* -list shows the source with the samples on the call line of fxs_outer. */
	snprintf(cmd, sizeof(cmd),
		 "go tool pprof -sample_index=samples -list '^fxs_outer$' %s 2>&1 | tee %s | "
		 "grep -qE '^ +\\. +7 +16:.return fxs_mid\\(x\\) \\* 3;'",
		 fx("p.pb.gz"), fx("list.txt"));
	ck_assert_msg(!run("%s", cmd), "go tool pprof -list: see %s", fx("list.txt"));
	snprintf(cmd, sizeof(cmd),
		 "go tool pprof -sample_index=samples -top -lines %s 2>&1 | tee %s | "
		 "grep -qE ' 7 +100%% +fxs_leaf .*inl\\.c:7 \\(inline\\)$'",
		 fx("p.pb.gz"), fx("lines.txt"));
	ck_assert_msg(!run("%s", cmd), "go tool pprof -top -lines: see %s", fx("lines.txt"));
}
END_TEST

static Suite *dwarf_suite(void)
{
	Suite *s = suite_create("dwarf");
	TCase *tc = tcase_create("dwarf_lines");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_dwarf4_matches_addr2line);
	tcase_add_test(tc, test_dwarf5_matches_addr2line);
	tcase_add_test(tc, test_compressed_sections);
	tcase_add_test(tc, test_build_id_debug_file);
	tcase_add_test(tc, test_debuglink);
	tcase_add_test(tc, test_build_id_mismatch_and_no_debug);
	tcase_add_test(tc, test_cxx_namespaces);
	suite_add_tcase(s, tc);
	tc = tcase_create("report");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_symbolizer_inline_chain);
	tcase_add_test(tc, test_report_inlined_frames);
	tcase_add_test(tc, test_pprof_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (dwarf_fixture_start_or_skip("check_dwarf"))
		return EXIT_SUCCESS;
	build_fixtures();
	return check_run_fixtures(dwarf_suite(), false);
}
