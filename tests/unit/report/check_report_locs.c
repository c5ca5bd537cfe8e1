// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The keys of report's locations (report_symbolize.c): code of a module file
 * is resolved once per (file, vaddr, return-or-not), shared by every process
 * that runs it at its own address, while each frame keeps its own pc and
 * mapping; other code (no mapping, JIT code a perf map names, kernel frames)
 * stays keyed by pid.
 */
#include <check.h>

#include "fxt/fxt_kstack.h"
#include "report/report_internal.h"
#include "symbols/symbolizer.h"
#include "report_fixture.h"

#define BASE2 0x7f0000000000ULL

/* prog's segments as module 0 of pid at base. */
static void map_prog_base(struct report *r, uint64_t pid, uint64_t base)
{
	struct elf_symbols *es = elf_symbols__open(prog, NULL);
	const struct elf_segment *segs;
	size_t i, n;

	ck_assert_ptr_nonnull(es);
	ck_assert_int_eq(rec_module(r, pid, 0, prog), 0);
	n = elf_symbols__segments(es, &segs);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(rec_mmap(r, pid, 0, segs[i].flags, base + segs[i].vaddr,
					  segs[i].memsz, segs[i].vaddr),
				 0);
	elf_symbols__free(es);
}

/*
 * The same call chain of prog in process 100 (at BASE) and 300 (at BASE2);
 * drop: its frames freed as report_prepare() makes their locations.
 */
static struct report *new_two_process_report_drop(bool drop)
{
	const uint64_t off[] = {a_leaf + 2, a_alpha + 5, a_beta + 4, a_main + 4};
	uint64_t s1[4], s3[4];
	struct report *r = report__new(NULL);

	ck_assert_ptr_nonnull(r);
	for (unsigned i = 0; i < 4; i++) {
		s1[i] = BASE + off[i];
		s3[i] = BASE2 + off[i];
	}
	ck_assert_int_eq(rec_process(r, 100, "prog"), 0);
	ck_assert_int_eq(rec_process(r, 300, "prog"), 0);
	ck_assert_int_eq(rec_backtrace(r, 1 * MS, 100, 100, 0, s1, 4), 0);
	ck_assert_int_eq(rec_backtrace(r, 2 * MS, 300, 300, 0, s3, 4), 0);
	map_prog_base(r, 100, BASE);
	map_prog_base(r, 300, BASE2);
	r->drop_frames = drop;
	ck_assert_int_eq(report_prepare(r), 0);
	return r;
}

static struct report *new_two_process_report(void)
{
	return new_two_process_report_drop(false);
}

/* report's folded stacks, as text (malloc'ed). */
static char *folded_text(struct report *r)
{
	struct capture c;

	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	return (char *)capture_text(&c);
}

/*
 * Without an output of pcs (report_run()'s drop_frames), the frames go once
 * their locations are made: the same locations and folded stacks, and the
 * report cannot be prepared again.
 */
START_TEST(test_frames_dropped)
{
	struct report *keep = new_two_process_report_drop(false);
	struct report *drop = new_two_process_report_drop(true);
	const struct stack *sk = T(keep->stacks, struct stack), *sd = T(drop->stacks, struct stack);
	char *a, *b;

	ck_assert_uint_eq(drop->stacks.n, 2);
	ck_assert_uint_eq(drop->stacks.idx.cap, 0); /* the index by frames is gone too */
	ck_assert_uint_ne(keep->stacks.idx.cap, 0);
	ck_assert_uint_eq(drop->locs.n, keep->locs.n);
	for (unsigned i = 0; i < 2; i++) {
		ck_assert_ptr_nonnull(sk[i].frames);
		ck_assert_ptr_null(sd[i].frames);
		ck_assert_uint_eq(sd[i].nr_locs, sk[i].nr_locs);
		for (unsigned j = 0; j < sd[i].nr_locs; j++)
			ck_assert_uint_eq(sd[i].locs[j], sk[i].locs[j]);
	}
	a = folded_text(keep);
	b = folded_text(drop);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strstr(b, "fxs_static_leaf"));
	free(a);
	free(b);
	ck_assert_int_eq(report_prepare(drop), 0); /* still prepared */
	drop->prepared = false;
	ck_assert_int_eq(report_prepare(drop), -EINVAL);
	report__free(keep);
	report__free(drop);
}
END_TEST

/*
 * The locations' and functions' indexes by key go once they are made; a
 * report added to after it is prepared makes them anew. Sealed (report_run()
 * reads every record first), its stacks' index by frames goes too, frames kept.
 */
START_TEST(test_indexes_freed)
{
	const uint64_t off[] = {a_leaf + 2, a_alpha + 5, a_beta + 4, a_main + 4};
	struct report *r = new_two_process_report(), *sealed = report__new(NULL);
	uint64_t s1[4];
	size_t nr_locs = r->locs.n;
	char *before, *after;

	ck_assert_uint_eq(r->locs.idx.cap, 0);
	ck_assert_uint_eq(r->funcs.idx.cap, 0);
	ck_assert_uint_ne(r->stacks.idx.cap, 0);
	before = folded_text(r);
	/* the same stack once more, then a shorter one: found, and added */
	for (unsigned i = 0; i < 4; i++)
		s1[i] = BASE + off[i];
	ck_assert_int_eq(rec_backtrace(r, 3 * MS, 100, 100, 0, s1, 4), 0);
	ck_assert_int_eq(rec_backtrace(r, 4 * MS, 100, 100, 0, s1 + 1, 3), 0);
	ck_assert_uint_eq(r->stacks.n, 3);
	ck_assert_int_eq(report_prepare(r), 0);
	/* alpha's pc as the shorter stack's leaf: not a return address, a location of its own */
	ck_assert_uint_eq(r->locs.n, nr_locs + 1);
	after = folded_text(r);
	ck_assert_str_ne(before, after);
	ck_assert_str_eq(after, "prog;[tid 100];main;fxs_beta;fxs_alpha 1\n"
				"prog;[tid 100];main;fxs_beta;fxs_alpha;fxs_static_leaf 2\n"
				"prog;[tid 300];main;fxs_beta;fxs_alpha;fxs_static_leaf 1\n");
	free(before);
	free(after);
	report__free(r);

	ck_assert_ptr_nonnull(sealed);
	ck_assert_int_eq(rec_backtrace(sealed, 1 * MS, 100, 100, 0, s1, 4), 0);
	map_prog_base(sealed, 100, BASE);
	sealed->sealed = true;
	ck_assert_int_eq(report_prepare(sealed), 0);
	ck_assert_uint_eq(sealed->stacks.idx.cap, 0);
	ck_assert_ptr_nonnull(T(sealed->stacks, struct stack)[0].frames);
	report__free(sealed);
}
END_TEST

START_TEST(test_shared_by_file)
{
	struct report *r = new_two_process_report();
	const struct stack *st = T(r->stacks, struct stack);
	const struct loc *locs = T(r->locs, struct loc);
	const struct symbolizer_mapping *m0, *m1;
	unsigned j, f0, f1;

	ck_assert_uint_eq(r->stacks.n, 2);
	/* Four frames of one file: four locations, not eight. */
	ck_assert_uint_eq(r->locs.n, 4);
	for (j = 0; j < 4; j++) {
		const struct loc *l = &locs[st[0].locs[j]];

		ck_assert_uint_eq(st[0].locs[j], st[1].locs[j]);
		ck_assert_ptr_nonnull(l->code);
		ck_assert_uint_eq(l->pid, 0);
		ck_assert_uint_eq(l->is_return, j > 0);
		/* Each frame keeps its own process's pc and mapping. */
		ck_assert_uint_eq(report_frame_pc(r, &st[0], j, &f0), st[0].frames[j]);
		ck_assert_uint_eq(report_frame_pc(r, &st[1], j, &f1), st[1].frames[j]);
		ck_assert_uint_eq(f0, j);
		ck_assert_uint_ne(st[0].frames[j], st[1].frames[j]);
		ck_assert_int_eq(report_frame_mapping(r, &st[0], j, &m0), 0);
		ck_assert_int_eq(report_frame_mapping(r, &st[1], j, &m1), 0);
		ck_assert_ptr_nonnull(m0);
		ck_assert_ptr_nonnull(m1);
		ck_assert_uint_eq(m0->pid, 100);
		ck_assert_uint_eq(m1->pid, 300);
		ck_assert_str_eq(m0->path, prog);
		ck_assert_str_eq(m1->path, prog);
	}
	ck_assert_str_eq(T(r->funcs, struct func)[locs[st[0].locs[0]].func].name,
			 "fxs_static_leaf");
	ck_assert_str_eq(T(r->funcs, struct func)[locs[st[0].locs[3]].func].name, "main");
	report__free(r);
}
END_TEST

/* A leaf pc and the return address equal to it are two locations: they name other bytes. */
START_TEST(test_return_apart)
{
	const uint64_t a[] = {BASE + a_alpha + 1}, b[] = {BASE + a_beta + 4, BASE + a_alpha + 1};
	struct report *r = report__new(NULL);

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rec_backtrace(r, 1 * MS, 100, 100, 0, a, 1), 0);
	ck_assert_int_eq(rec_backtrace(r, 2 * MS, 100, 100, 0, b, 2), 0);
	map_prog_base(r, 100, BASE);
	ck_assert_int_eq(report_prepare(r), 0);
	ck_assert_uint_eq(r->locs.n, 3);
	ck_assert_uint_ne(T(r->stacks, struct stack)[0].locs[0],
			  T(r->stacks, struct stack)[1].locs[1]);
	report__free(r);
}
END_TEST

/* A pc no mapping covers is each process's own: keyed by pid, named alike. */
START_TEST(test_unmapped_by_pid)
{
	const uint64_t pc[] = {0xdead};
	struct report *r = report__new(NULL);
	const struct loc *locs;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rec_backtrace(r, 1 * MS, 100, 100, 0, pc, 1), 0);
	ck_assert_int_eq(rec_backtrace(r, 2 * MS, 300, 300, 0, pc, 1), 0);
	ck_assert_int_eq(report_prepare(r), 0);
	ck_assert_uint_eq(r->locs.n, 2);
	locs = T(r->locs, struct loc);
	ck_assert_ptr_null(locs[0].code);
	ck_assert_uint_eq(locs[0].pid, 100);
	ck_assert_uint_eq(locs[1].pid, 300);
	ck_assert_uint_eq(locs[0].func, locs[1].func);
	report__free(r);
}
END_TEST

/*
 * A pc of a file that a perf map of its process covers is that process's
 * own (JIT code written over a file's mapping): keyed by pid, while the
 * other process shares nothing with it.
 */
START_TEST(test_jit_by_pid)
{
	struct report *r = new_two_process_report();
	const struct stack *st;
	const struct loc *locs;

	ck_assert_int_eq(report_jit_add(r, 300, BASE2 + a_leaf, 16, "jitted", 6), 0);
	report_unprepare(r);
	ck_assert_int_eq(report_prepare(r), 0);
	st = T(r->stacks, struct stack);
	locs = T(r->locs, struct loc);
	ck_assert_uint_eq(r->locs.n, 5);
	ck_assert_uint_ne(st[0].locs[0], st[1].locs[0]);
	ck_assert_ptr_nonnull(locs[st[0].locs[0]].code);
	ck_assert_ptr_null(locs[st[1].locs[0]].code);
	ck_assert_uint_eq(locs[st[1].locs[0]].pid, 300);
	ck_assert_uint_eq(locs[st[1].locs[0]].pc, st[1].frames[0]);
	/* prog's symbol names it still: a perf map names only what no symbol does. */
	ck_assert_str_eq(T(r->funcs, struct func)[locs[st[1].locs[0]].func].name,
			 "fxs_static_leaf");
	for (unsigned j = 1; j < 4; j++)
		ck_assert_uint_eq(st[0].locs[j], st[1].locs[j]);
	report__free(r);
}
END_TEST

/* Kernel frames ids (outermost last) for the backtrace of thread tid at ts that follows. */
static int rec_kstack(struct report *r, uint64_t ts, uint64_t tid, const uint32_t *ids, unsigned nr)
{
	uint8_t buf[FXT_KSTACK_HDR + 4 * 8];
	struct fxt_record rec = {.type = FXT_RT_BLOB, .name = FXT_KSTACK_BLOB, .blob = buf};

	rec.blob_len = fxt_kstack_encode(buf, ts, tid, ids, nr);
	return report_add(r, &rec);
}

/*
 * A tagged frame met again as a return address is found again (its key's
 * return bit is kept): one location, however many stacks have it.
 */
START_TEST(test_tagged_found_again)
{
	const uint32_t ka[] = {5, 7}, kb[] = {6, 7};
	const uint64_t a[] = {0xdead}, b[] = {0xbeef};
	struct report *r = report__new(NULL);
	const struct stack *st;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(rec_kstack(r, 1 * MS, 100, ka, 2), 0);
	ck_assert_int_eq(rec_backtrace(r, 1 * MS, 100, 100, 0, a, 1), 0);
	ck_assert_int_eq(rec_kstack(r, 2 * MS, 100, kb, 2), 0);
	ck_assert_int_eq(rec_backtrace(r, 2 * MS, 100, 100, 0, b, 1), 0);
	ck_assert_int_eq(report_prepare(r), 0);
	st = T(r->stacks, struct stack);
	ck_assert_uint_eq(r->locs.n, 5);
	ck_assert_uint_eq(st[0].locs[1], st[1].locs[1]);
	report__free(r);
}
END_TEST

/* Another file mapped over the pc later: the same pc is two locations, by time. */
START_TEST(test_remapped_apart)
{
	struct report *r = new_remapped_report(NULL);
	const struct stack *st;
	const struct loc *locs;

	ck_assert_int_eq(report_prepare(r), 0);
	st = T(r->stacks, struct stack);
	locs = T(r->locs, struct loc);
	ck_assert_uint_eq(r->stacks.n, 2);
	ck_assert_uint_eq(r->locs.n, 2);
	ck_assert_str_eq(T(r->funcs, struct func)[locs[st[0].locs[0]].func].name, "fxs_alpha");
	ck_assert_str_eq(T(r->funcs, struct func)[locs[st[1].locs[0]].func].name, "fxs_beta");
	report__free(r);
}
END_TEST

static Suite *report_locs_suite(void)
{
	Suite *s = suite_create("report-locs");
	TCase *tc = tcase_create("locs");

	tcase_add_test(tc, test_shared_by_file);
	tcase_add_test(tc, test_frames_dropped);
	tcase_add_test(tc, test_indexes_freed);
	tcase_add_test(tc, test_return_apart);
	tcase_add_test(tc, test_unmapped_by_pid);
	tcase_add_test(tc, test_jit_by_pid);
	tcase_add_test(tc, test_tagged_found_again);
	tcase_add_test(tc, test_remapped_apart);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return report_fixture_main(report_locs_suite);
}
