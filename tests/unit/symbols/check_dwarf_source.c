// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of dwarf_source: a batch of addresses resolved one module
 * file's DWARF at a time answers as dwarf_lines does, from kept answers
 * whose strings are interned, with each file's DWARF closed; an address not
 * in the batch opens it again; a DWARF open before a batch stays open. And
 * through the symbolizer: symbolizer_want_source() and
 * symbolizer_load_sources() change no answer of symbolizer_resolve().
 *
 * The fixtures are built here with gcc -O2 (always_inline functions: inline
 * chains) as DWARF 5, whose variables' locations are in .debug_loclists,
 * a section dwarf_lines hides from libdw, and without debug info.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/dwarf_lines.h"
#include "symbols/dwarf_source.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "symbols/symbolizer.h"
#include "util/strpool.h"

#include "dwarf_fixture.h"

/* The fixtures' paths, which a dwarf_source keeps (fx()'s last eight would not do). */
static char d4[PATH_MAX + 64], d5[PATH_MAX + 64], nodebug[PATH_MAX + 64], stripped[PATH_MAX + 64],
	debug_dir[PATH_MAX + 64];

static void build_fixtures(void)
{
	const char *cc = getenv("FXS_TEST_CC") ?: "gcc";
	int err = 0;

	make_tmpdir("fxs_dwsrc");
	write_file(fx("inl.c"), inline_chain_src);
	err |= run("%s -O2 -gdwarf-5 -o %s %s", cc, fx("d5"), fx("inl.c"));
	err |= run("%s -O2 -gdwarf-4 -o %s %s", cc, fx("d4"), fx("inl.c"));
	err |= run("%s -O2 -o %s %s", cc, fx("nodebug"), fx("inl.c"));
	/* Stripped, the debug file under <tmpdir>/debug/.build-id/. */
	snprintf(debug_dir, sizeof(debug_dir), "%s/debug", tmpdir);
	err |= build_stripped_by_build_id(cc, "-O2", debug_dir);
	if (err) {
		fprintf(stderr, "cannot build the fixtures\n");
		exit(EXIT_FAILURE);
	}
	snprintf(d4, sizeof(d4), "%s", fx("d4"));
	snprintf(d5, sizeof(d5), "%s", fx("d5"));
	snprintf(nodebug, sizeof(nodebug), "%s", fx("nodebug"));
	snprintf(stripped, sizeof(stripped), "%s", fx("stripped"));
}

static struct strpool pool;

static struct dwarf_sources sources(void)
{
	return (struct dwarf_sources){.pool = &pool, .unknown = "[unknown]"};
}

static struct dwarf_source source(const char *path)
{
	return (struct dwarf_source){.path = path};
}

static void frame_eq(const struct dwarf_frame *got, const struct dwarf_frame *want, bool inlined)
{
	if (want->function)
		ck_assert_str_eq(got->function, want->function);
	else if (inlined)
		ck_assert_str_eq(got->function, "[unknown]");
	else
		ck_assert_ptr_null(got->function);
	ck_assert_str_eq(got->file ?: "-", want->file ?: "-");
	ck_assert_uint_eq(got->line, want->line);
	ck_assert_str_eq(got->decl_file ?: "-", want->decl_file ?: "-");
	ck_assert_uint_eq(got->decl_line, want->decl_line);
}

/* src's answer at a is dwarf_lines's; returns the chain's length. */
static int check_answer(struct dwarf_sources *ss, struct dwarf_source *s, struct dwarf_lines *ref,
			uint64_t a, bool interned)
{
	struct dwarf_frame want[DWARF_MAX_FRAMES], outer;
	const struct dwarf_frame *inl;
	int n = dwarf_lines__lookup(ref, a, want, DWARF_MAX_FRAMES), i;

	ck_assert_int_eq(dwarf_source_lookup(ss, s, a, &outer, &inl), n);
	if (n <= 0)
		return n;
	frame_eq(&outer, &want[n - 1], false);
	if (interned && outer.file)
		ck_assert_ptr_eq(outer.file, strpool_str(&pool, outer.file));
	if (n == 1)
		ck_assert_ptr_null(inl);
	for (i = 0; i < n - 1; i++) {
		frame_eq(&inl[i], &want[i], true);
		if (interned && want[i].function)
			ck_assert_ptr_eq(inl[i].function, strpool_str(&pool, want[i].function));
	}
	return n;
}

START_TEST(test_batch_answers_and_closes)
{
	struct dwarf_sources ss = sources();
	struct dwarf_source s = source(d5);
	struct dwarf_lines *ref = dwarf_lines__open(d5, NULL, 0, NULL, NULL);
	uint64_t size, start = nm_addr(d5, "fxs_outer", &size), a;
	int deepest = 0, n;

	ck_assert_ptr_nonnull(ref);
	/* The variables' locations are in .debug_loclists: hidden from libdw, as no lookup reads
	 * them. */
	ck_assert_int_eq(run("readelf -S -W %s | grep -q '\\.debug_loclists'", d5), 0);
	/* each address twice: wanted once */
	for (a = start; a < start + size; a++) {
		ck_assert_int_eq(dwarf_sources_want(&ss, &s, a), 0);
		ck_assert_int_eq(dwarf_sources_want(&ss, &s, a), 0);
	}
	ck_assert_uint_eq(ss.nr_wants, size);
	ck_assert_ptr_null(s.dl);
	ck_assert(!s.tried);
	ck_assert_int_eq(dwarf_sources_resolve(&ss), 0);
	ck_assert_uint_eq(ss.nr_wants, 0);
	ck_assert(s.closed);
	ck_assert_ptr_null(s.dl);
	ck_assert_uint_eq(s.nr_kept, size);
	for (a = start; a < start + size; a++) {
		n = check_answer(&ss, &s, ref, a, true);
		if (n > deepest)
			deepest = n;
	}
	/* answered from what was kept: the DWARF stayed closed */
	ck_assert_ptr_null(s.dl);
	ck_assert_int_eq(deepest, 3);
	/* wanted again: kept already, nothing to batch */
	ck_assert_int_eq(dwarf_sources_want(&ss, &s, start), 0);
	ck_assert_uint_eq(ss.nr_wants, 0);
	dwarf_lines__free(ref);
	dwarf_source_free(&s);
	dwarf_sources_free(&ss);
	strpool_free(&pool);
}
END_TEST

START_TEST(test_unbatched_address_reopens)
{
	struct dwarf_sources ss = sources();
	struct dwarf_source s = source(d5);
	struct dwarf_lines *ref = dwarf_lines__open(d5, NULL, 0, NULL, NULL);
	uint64_t start = nm_addr(d5, "fxs_outer", NULL), other = nm_addr(d5, "main", NULL);

	ck_assert_ptr_nonnull(ref);
	ck_assert_int_eq(dwarf_sources_want(&ss, &s, start), 0);
	ck_assert_int_eq(dwarf_sources_resolve(&ss), 0);
	ck_assert(s.closed);
	/* not in the batch: the DWARF again, and open from then on */
	ck_assert_int_gt(check_answer(&ss, &s, ref, other, false), 0);
	ck_assert_ptr_nonnull(s.dl);
	ck_assert(!s.closed);
	/* a DWARF a batch did not open is not closed by one: its strings are handed out */
	ck_assert_int_eq(dwarf_sources_want(&ss, &s, other + 1), 0);
	ck_assert_uint_eq(ss.nr_wants, 0);
	ck_assert_int_eq(dwarf_sources_resolve(&ss), 0);
	ck_assert_ptr_nonnull(s.dl);
	check_answer(&ss, &s, ref, start, false);
	dwarf_lines__free(ref);
	dwarf_source_free(&s);
	dwarf_sources_free(&ss);
	strpool_free(&pool);
}
END_TEST

START_TEST(test_open_before_batch_stays)
{
	struct dwarf_sources ss = sources();
	struct dwarf_source s = source(d4);
	struct dwarf_lines *ref = dwarf_lines__open(d4, NULL, 0, NULL, NULL);
	uint64_t start = nm_addr(d4, "fxs_outer", NULL);

	ck_assert_ptr_nonnull(ref);
	check_answer(&ss, &s, ref, start, false);
	ck_assert_ptr_nonnull(s.dl);
	ck_assert_int_eq(dwarf_sources_want(&ss, &s, start + 4), 0);
	ck_assert_uint_eq(ss.nr_wants, 0);
	ck_assert_int_eq(dwarf_sources_resolve(&ss), 0);
	ck_assert_ptr_nonnull(s.dl);
	ck_assert(!s.closed);
	dwarf_lines__free(ref);
	dwarf_source_free(&s);
	dwarf_sources_free(&ss);
	strpool_free(&pool);
}
END_TEST

START_TEST(test_two_files_and_none)
{
	struct dwarf_sources ss = sources();
	struct dwarf_source s4 = source(d4), s5 = source(d5), none = source(nodebug),
			    vdso = {.path = "[vdso]", .no_dwarf = true};
	struct dwarf_lines *r4 = dwarf_lines__open(d4, NULL, 0, NULL, NULL),
			   *r5 = dwarf_lines__open(d5, NULL, 0, NULL, NULL);
	uint64_t a4 = nm_addr(d4, "fxs_outer", NULL), a5 = nm_addr(d5, "main", NULL),
		 an = nm_addr(nodebug, "fxs_outer", NULL);
	struct dwarf_frame outer;
	const struct dwarf_frame *inl;

	ck_assert_ptr_nonnull(r4);
	ck_assert_ptr_nonnull(r5);
	ck_assert_int_eq(dwarf_sources_want(&ss, &s5, a5), 0);
	ck_assert_int_eq(dwarf_sources_want(&ss, &none, an), 0);
	ck_assert_int_eq(dwarf_sources_want(&ss, &s4, a4), 0);
	ck_assert_int_eq(dwarf_sources_want(&ss, &vdso, 0x1000), 0);
	/* in the order first wanted; the file without DWARF probed out at its first want */
	ck_assert_uint_eq(ss.nr_wants, 2);
	ck_assert_uint_eq(s5.batch_seq, 1);
	ck_assert_uint_eq(s4.batch_seq, 2);
	ck_assert(none.tried && !none.probed);
	ck_assert_uint_eq(none.batch_seq, 0);
	ck_assert_int_eq(dwarf_sources_resolve(&ss), 0);
	ck_assert(s4.closed && s5.closed);
	ck_assert_ptr_null(s4.dl);
	ck_assert_ptr_null(s5.dl);
	ck_assert_uint_eq(s4.batch_seq + s5.batch_seq + none.batch_seq, 0);
	check_answer(&ss, &s4, r4, a4, true);
	check_answer(&ss, &s5, r5, a5, true);
	/* no DWARF: nothing kept, nothing to answer, never wanted again */
	ck_assert(none.tried && !none.closed);
	ck_assert_ptr_null(none.dl);
	ck_assert_int_eq(dwarf_source_lookup(&ss, &none, an, &outer, &inl), 0);
	ck_assert_int_eq(dwarf_sources_want(&ss, &none, an + 1), 0);
	ck_assert_int_eq(dwarf_source_lookup(&ss, &vdso, 0x1000, &outer, &inl), 0);
	ck_assert_uint_eq(ss.nr_wants, 0);
	dwarf_lines__free(r4);
	dwarf_lines__free(r5);
	dwarf_source_free(&s4);
	dwarf_source_free(&s5);
	dwarf_source_free(&none);
	dwarf_sources_free(&ss);
	strpool_free(&pool);
}
END_TEST

/*
 * The probe says where an open may find DWARF: the file's own, a debug file
 * by build id, debuginfod when a fetch may be tried; nowhere else.
 */
START_TEST(test_probe)
{
	struct dwarf_lines_opts o = {.debug_dir = debug_dir};
	char other_dir[PATH_MAX + 64];
	char fetcher; /* never used: the probe asks only whether there is one */
	static const uint8_t id[] = {1, 2, 3, 4};

	ck_assert_int_eq(dwarf_lines__probe(d5, NULL, 0, NULL), 1);
	ck_assert_int_eq(dwarf_lines__probe(nodebug, NULL, 0, NULL), 0);
	ck_assert_int_eq(dwarf_lines__probe(stripped, NULL, 0, &o), 1);
	ck_assert_ptr_null(dwarf_lines__open(
		stripped, NULL, 0, &(struct dwarf_lines_opts){.debug_dir = tmpdir}, NULL));
	snprintf(other_dir, sizeof(other_dir), "%s/none", tmpdir);
	ck_assert_int_eq(dwarf_lines__probe(stripped, NULL, 0,
					    &(struct dwarf_lines_opts){.debug_dir = other_dir}),
			 0);
	/* gone from disk: by build id, if debuginfod may fetch it */
	ck_assert_int_eq(dwarf_lines__probe("/nonexistent/lib.so", id, sizeof(id), NULL), 0);
	o.debuginfod = (struct debuginfod_fetcher *)&fetcher;
	ck_assert_int_eq(dwarf_lines__probe("/nonexistent/lib.so", id, sizeof(id), &o), 1);
	ck_assert_int_eq(dwarf_lines__probe("/nonexistent/lib.so", NULL, 0, &o), 0);
	/* a file of another build than recorded: not its own DWARF */
	o.debuginfod = NULL;
	ck_assert_int_eq(dwarf_lines__probe(d5, id, sizeof(id), &o), 0);
}
END_TEST

#define PID  100
#define BASE 0x555555554000ULL

static void add_module(struct symbolizer *s, uint16_t id, const char *path, uint64_t start)
{
	ck_assert_int_eq(symbolizer_add_module(s, PID, id, path, NULL, 0), 0);
	ck_assert_int_eq(symbolizer_add_mmap(s, PID, id, 5, start, 0x100000, 0, 0), 0);
}

static void sym_frame_eq(const struct sym_frame *a, const struct sym_frame *b)
{
	unsigned i;

	ck_assert_str_eq(a->function, b->function);
	ck_assert_str_eq(a->module ?: "-", b->module ?: "-");
	ck_assert_uint_eq(a->module_offset, b->module_offset);
	ck_assert_uint_eq(a->function_offset, b->function_offset);
	ck_assert_int_eq(a->resolved, b->resolved);
	ck_assert_str_eq(a->file ?: "-", b->file ?: "-");
	ck_assert_uint_eq(a->line, b->line);
	ck_assert_str_eq(a->decl_file ?: "-", b->decl_file ?: "-");
	ck_assert_uint_eq(a->decl_line, b->decl_line);
	ck_assert_uint_eq(a->nr_inlined, b->nr_inlined);
	for (i = 0; i < a->nr_inlined; i++) {
		ck_assert_str_eq(a->inlined[i].function, b->inlined[i].function);
		ck_assert_str_eq(a->inlined[i].file ?: "-", b->inlined[i].file ?: "-");
		ck_assert_uint_eq(a->inlined[i].line, b->inlined[i].line);
	}
}

START_TEST(test_symbolizer_batch_same_frames)
{
	struct symbolizer *plain = symbolizer__new(NULL), *batched = symbolizer__new(NULL);
	uint64_t size, start = nm_addr(d5, "fxs_outer", &size), a;
	const uint64_t base2 = BASE + 0x1000000;
	unsigned inlined = 0;
	int ret;

	ck_assert_ptr_nonnull(plain);
	ck_assert_ptr_nonnull(batched);
	add_module(plain, 1, d5, BASE);
	add_module(plain, 2, nodebug, base2);
	add_module(batched, 1, d5, BASE);
	add_module(batched, 2, nodebug, base2);
	for (a = start; a < start + size; a++) {
		ck_assert_int_eq(symbolizer_want_source(batched, PID, BASE + a, a & 1, 0), 0);
		ck_assert_int_eq(symbolizer_want_source(batched, PID, base2 + a, false, 0), 0);
	}
	/* a pc in no mapping is no want */
	ck_assert_int_eq(symbolizer_want_source(batched, PID, 0x1000, false, 0), 0);
	ck_assert_int_eq(symbolizer_load_sources(batched), 0);
	for (a = start; a < start + size; a++) {
		struct sym_frame p, b;

		ret = symbolizer_resolve(plain, PID, BASE + a, a & 1, 0, &p);
		ck_assert_int_eq(ret, 0);
		ck_assert_int_eq(symbolizer_resolve(batched, PID, BASE + a, a & 1, 0, &b), 0);
		sym_frame_eq(&b, &p);
		inlined += b.nr_inlined;
		ck_assert_int_eq(symbolizer_resolve(plain, PID, base2 + a, false, 0, &p), 0);
		ck_assert_int_eq(symbolizer_resolve(batched, PID, base2 + a, false, 0, &b), 0);
		sym_frame_eq(&b, &p);
	}
	ck_assert_uint_gt(inlined, 0);
	symbolizer__free(plain);
	symbolizer__free(batched);
}
END_TEST

static Suite *dwarf_source_suite(void)
{
	Suite *s = suite_create("dwarf_source");
	TCase *tc = tcase_create("batch");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_batch_answers_and_closes);
	tcase_add_test(tc, test_unbatched_address_reopens);
	tcase_add_test(tc, test_open_before_batch_stays);
	tcase_add_test(tc, test_two_files_and_none);
	tcase_add_test(tc, test_probe);
	tcase_add_test(tc, test_symbolizer_batch_same_frames);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (dwarf_fixture_start_or_skip("check_dwarf_source"))
		return EXIT_SUCCESS;
	build_fixtures();
	return check_run_fixtures(dwarf_source_suite(), false);
}
