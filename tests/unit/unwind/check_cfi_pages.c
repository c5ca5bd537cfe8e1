// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwind/cfi_pages: 4-byte rows in 64 KiB pages with the rules in one shared
 * array. Every lookup is checked against the plain search of the 8-byte rows
 * (the last row at or below the pc): at page boundaries, before a page's
 * first row, across empty pages, over a 4 GiB span; then the rules' dedup
 * and what happens when they are full, and Debian's libc whole.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi_pages.h"
#include "unwind/cfi_table.h"
#include "check_main.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

/* The reference: the index of the last row at or below pc, or -1 (all the rows searched). */
static int64_t plain(const struct fxs_cfi_row *rows, uint32_t n, uint32_t pc)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

static uint32_t rules_store[FXS_CFI_RULES_MAX];

struct encoded {
	uint32_t *words;
	uint64_t len;
	struct cfi_pages g;
};

static void encode(const struct fxs_cfi_row *rows, uint32_t n, struct cfi_rules *r,
		   struct encoded *e)
{
	e->len = cfi_pages_words(rows, n, NULL);
	e->words = calloc(e->len + 1, sizeof(uint32_t));
	ck_assert_ptr_nonnull(e->words);
	ck_assert_int_eq(cfi_pages_encode(rows, n, r, e->words, e->len, &e->g), 0);
	ck_assert_uint_eq(e->g.nr_rows, n);
}

/* Every pc of interest (each row's, one either side, each page's edges) as the plain search. */
static void check_same(const struct fxs_cfi_row *rows, uint32_t n, const struct cfi_rules *r,
		       const struct encoded *e)
{
	for (uint32_t i = 0; i < n; i++) {
		struct fxs_cfi_row back = cfi_pages_row(e->words, &e->g, r, i);
		uint32_t pcs[] = {rows[i].pc,
				  rows[i].pc - 1,
				  rows[i].pc + 1,
				  rows[i].pc & ~0xffffu,
				  (rows[i].pc & ~0xffffu) - 1,
				  rows[i].pc | 0xffff};

		ck_assert_uint_eq(back.pc, rows[i].pc);
		ck_assert_uint_eq(back.rule, rows[i].rule);
		for (size_t k = 0; k < sizeof(pcs) / sizeof(pcs[0]); k++)
			ck_assert_int_eq(cfi_pages_lookup(e->words, &e->g, pcs[k]),
					 plain(rows, n, pcs[k]));
	}
}

START_TEST(test_page_boundaries)
{
	/* page 1's last bytes, page 2 from its first byte to its last, page 3 empty, page 4 */
	static const struct fxs_cfi_row rows[] = {
		{0x1fff0, FXS_CFI_SP | 1 << FXS_CFI_CFA_SHIFT},
		{0x1ffff, FXS_CFI_SP | 2 << FXS_CFI_CFA_SHIFT},
		{0x20000, FXS_CFI_SP | 1 << FXS_CFI_CFA_SHIFT},
		{0x2fffe, FXS_CFI_FP | 2 << FXS_CFI_CFA_SHIFT},
		{0x40010, FXS_CFI_END},
		{0x40100, FXS_CFI_NONE},
	};
	uint32_t n = sizeof(rows) / sizeof(rows[0]);
	struct cfi_rules r;
	struct encoded e;

	ck_assert_int_eq(cfi_rules_init(&r, rules_store, FXS_CFI_RULES_MAX), 0);
	encode(rows, n, &r, &e);
	ck_assert_uint_eq(e.g.first_page, 1);
	ck_assert_uint_eq(e.g.nr_pages, 4);
	/* 5 index words, 6 rows: 44 bytes where the 8-byte rows took 48 */
	ck_assert_uint_eq(e.len, 5 + 6);
	ck_assert_uint_eq(e.words[0], 0);
	ck_assert_uint_eq(e.words[1], 2);
	ck_assert_uint_eq(e.words[2], 4); /* page 3: no row */
	ck_assert_uint_eq(e.words[3], 4);
	ck_assert_uint_eq(e.words[4], 6);
	/* 5 distinct rules: sp + 8 once, though two rows have it */
	ck_assert_uint_eq(r.n, 5);
	check_same(rows, n, &r, &e);
	/* below the first row: none; a pc before its page's first row: the row before */
	ck_assert_int_eq(cfi_pages_lookup(e.words, &e.g, 0x1ffef), -1);
	ck_assert_int_eq(cfi_pages_lookup(e.words, &e.g, 0), -1);
	ck_assert_int_eq(cfi_pages_lookup(e.words, &e.g, 0x30000), 3); /* an empty page */
	ck_assert_int_eq(cfi_pages_lookup(e.words, &e.g, 0x4000f), 3); /* page 4, before 0x40010 */
	ck_assert_int_eq(cfi_pages_lookup(e.words, &e.g, 0x40010), 4);
	/* past the last row's page: the last row (NONE) */
	ck_assert_int_eq(cfi_pages_lookup(e.words, &e.g, 0x50000), 5);
	ck_assert_int_eq(cfi_pages_lookup(e.words, &e.g, 0xffffffff), 5);
	free(e.words);
	cfi_rules_free(&r);
}
END_TEST

/* Random tables, dense and sparse, against the plain search at every pc of interest. */
START_TEST(test_random_tables)
{
	struct cfi_rules r;

	srandom(37 + (unsigned)_i);
	ck_assert_int_eq(cfi_rules_init(&r, rules_store, FXS_CFI_RULES_MAX), 0);
	for (int round = 0; round < 50; round++) {
		uint32_t n = 1 + (uint32_t)(random() % 3000), pc = (uint32_t)(random() % 0x100000);
		uint32_t gap = round % 2 ? 200000 : 64; /* sparse: pages with none between */
		struct fxs_cfi_row *rows = malloc(n * sizeof(*rows));
		struct encoded e;

		ck_assert_ptr_nonnull(rows);
		for (uint32_t i = 0; i < n; i++) {
			rows[i].pc = pc;
			rows[i].rule = FXS_CFI_SP | (uint32_t)(random() % 40) << FXS_CFI_CFA_SHIFT;
			pc += 1 + (uint32_t)(random() % gap);
		}
		rows[n - 1].rule = FXS_CFI_NONE;
		encode(rows, n, &r, &e);
		check_same(rows, n, &r, &e);
		free(e.words);
		free(rows);
	}
	/* 40 CFA offsets and NONE: every module shares them */
	ck_assert_uint_le(r.n, 41);
	cfi_rules_free(&r);
}
END_TEST

/* Code from 0 to the top of 4 GiB: 65,536 pages, the most a 32-bit pc has. */
START_TEST(test_whole_4gib)
{
	static const struct fxs_cfi_row rows[] = {{0, FXS_CFI_SP},
						  {0x8000, FXS_CFI_FP},
						  {0xfffffff0, FXS_CFI_SP},
						  {0xffffffff, FXS_CFI_NONE}};
	struct cfi_rules r;
	struct encoded e;

	ck_assert_int_eq(cfi_rules_init(&r, rules_store, FXS_CFI_RULES_MAX), 0);
	encode(rows, 4, &r, &e);
	ck_assert_uint_eq(e.g.first_page, 0);
	ck_assert_uint_eq(e.g.nr_pages, 65536);
	ck_assert_uint_eq(e.len, 65537 + 4);
	check_same(rows, 4, &r, &e);
	ck_assert_int_eq(cfi_pages_lookup(e.words, &e.g, 0x7fffffff), 1);
	free(e.words);
	cfi_rules_free(&r);
	/* code at or above 4 GiB never gets this far: cfi_table refuses it (-ERANGE) */
	ck_assert_str_ne(cfi_table_strerror(-ERANGE), "");
}
END_TEST

START_TEST(test_rules_dedup_and_full)
{
	static const struct fxs_cfi_row a[] = {
		{0x1000, 11}, {0x1010, 12}, {0x1020, 11}, {0x1030, 13}, {0x1040, FXS_CFI_NONE}};
	static const struct fxs_cfi_row b[] = {{0x5000, 13}, {0x5010, 11}, {0x5020, FXS_CFI_NONE}};
	static const struct fxs_cfi_row c[] = {
		{0x9000, 14}, {0x9010, 15}, {0x9020, 11}, {0x9030, FXS_CFI_NONE}};
	static const struct fxs_cfi_row d[] = {{0x9000, 14}, {0x9010, 12}, {0x9030, FXS_CFI_NONE}};
	static const struct fxs_cfi_row unsorted[] = {{0x2000, 11}, {0x2000, 12}};
	uint32_t small[5], out[16];
	struct cfi_rules r;
	struct encoded ea, eb, ed;

	ck_assert_int_eq(cfi_rules_init(&r, small, 6 + FXS_CFI_RULES_MAX), -EINVAL);
	ck_assert_int_eq(cfi_rules_init(&r, small, 5), 0);
	encode(a, 5, &r, &ea);
	ck_assert_uint_eq(r.n, 4); /* 11, 12, 13, NONE: each once */
	encode(b, 3, &r, &eb);
	ck_assert_uint_eq(r.n, 4); /* nothing new */
	/* the same rule, the same index, whichever module */
	ck_assert_uint_eq(FXS_CFI_WORD_RULE(ea.words[ea.g.nr_pages + 1 + 3]),
			  FXS_CFI_WORD_RULE(eb.words[eb.g.nr_pages + 1 + 0]));
	/* c brings 14 and 15: one room left, so c gets no table and the rules stay */
	ck_assert_int_eq(cfi_pages_encode(c, 4, &r, out, cfi_pages_words(c, 4, NULL), NULL),
			 -ENOSPC);
	ck_assert_uint_eq(r.n, 4);
	/* the rules found as before, and one new one still fits */
	encode(d, 3, &r, &ed);
	ck_assert_uint_eq(r.n, 5);
	check_same(a, 5, &r, &ea);
	check_same(b, 3, &r, &eb);
	check_same(d, 3, &r, &ed);
	/* bad input */
	ck_assert_int_eq(
		cfi_pages_encode(unsorted, 2, &r, out, cfi_pages_words(unsorted, 2, NULL), NULL),
		-EINVAL);
	ck_assert_uint_eq(r.n, 5);
	ck_assert_int_eq(cfi_pages_encode(a, 5, &r, out, 3, NULL), -EINVAL);
	ck_assert_uint_eq(cfi_pages_words(a, 0, NULL), 0);
	ck_assert_int_eq(cfi_pages_encode(a, 0, &r, out, 0, NULL), 0);
	free(ea.words);
	free(eb.words);
	free(ed.words);
	cfi_rules_free(&r);
}
END_TEST

/* Debian's libc: every row and the bytes around it as cfi_table_lookup() finds them. */
START_TEST(test_libc)
{
	struct cfi_table *t = NULL;
	struct cfi_rules r;
	struct encoded e;

	if (cfi_table_from_path(LIBC, NULL, &t)) {
		fprintf(stderr, "SKIP test_libc: no %s\n", LIBC);
		return;
	}
	ck_assert_int_eq(cfi_rules_init(&r, rules_store, FXS_CFI_RULES_MAX), 0);
	encode(t->rows, t->nrows, &r, &e);
	check_same(t->rows, t->nrows, &r, &e);
	for (uint32_t i = 0; i < t->nrows; i++) {
		int64_t k = cfi_pages_lookup(e.words, &e.g, t->rows[i].pc + 3);
		const struct fxs_cfi_row *want = cfi_table_lookup(t, t->rows[i].pc + 3);

		ck_assert_int_ge(k, 0);
		ck_assert_uint_eq(cfi_pages_row(e.words, &e.g, &r, (uint32_t)k).rule, want->rule);
	}
	/* at most 4 bytes a row and a few KiB of page index: under 52 % of 8-byte rows */
	ck_assert_uint_lt(e.len * 4, (uint64_t)t->nrows * 8 * 52 / 100);
	ck_assert_uint_lt(r.n, 4096);
	free(e.words);
	cfi_rules_free(&r);
	cfi_table_free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cfi_pages");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_page_boundaries);
	tcase_add_loop_test(tc, test_random_tables, 0, 4);
	tcase_add_test(tc, test_whole_4gib);
	tcase_add_test(tc, test_rules_dedup_and_full);
	tcase_add_test(tc, test_libc);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite)
