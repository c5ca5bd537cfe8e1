// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxt_framer: where the whole records of a stream end, fed in pieces of any
 * size, agrees with the reader's record ends; a large record is framed by its
 * own size field; a record of size 0 stops the framing.
 */
#include <check.h>
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_framer.h"
#include "fxt/fxt_reader.h"
#include "check_main.h"
#include "fxt_check.h"

/* The end of every record of the stream, as the reader finds them. */
static unsigned record_ends(const struct mem_sink *m, uint64_t *ends, unsigned max)
{
	struct fxt_reader *r = fxt_reader__open_mem(m->data, m->len);
	struct fxt_record rec;
	unsigned n = 0;

	ck_assert_ptr_nonnull(r);
	while (fxt_reader_next(r, &rec) == 1 && n < max)
		ends[n++] = fxt_reader_offset(r);
	fxt_reader__free(r);
	return n;
}

START_TEST(test_pieces)
{
	static const size_t steps[] = {1, 3, 7, 8, 13, 64, 1000};
	struct mem_sink m = {0};
	uint64_t ends[4096];
	unsigned nr;

	write_every_kind(&m);
	nr = record_ends(&m, ends, 4096);
	ck_assert_uint_gt(nr, 5);
	ck_assert_uint_eq(ends[nr - 1], m.len);
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		struct fxt_framer f = {0};
		unsigned i = 0;

		for (size_t off = 0; off < m.len; off += steps[s]) {
			size_t n = m.len - off < steps[s] ? m.len - off : steps[s];

			fxt_framer_feed(&f, m.data + off, n);
			while (i < nr && ends[i] <= off + n)
				i++;
			/* Whole up to the last record that ends within what was fed. */
			ck_assert_uint_eq(f.whole, i ? ends[i - 1] : 0);
		}
		ck_assert_uint_eq(f.whole, m.len);
	}
	free(m.data);
}
END_TEST

START_TEST(test_large_and_bad)
{
	uint64_t words[6] = {0};
	struct fxt_framer f = {0};

	/* A large record of 3 words, then a record of size 0. */
	words[0] = htole64(FXT_RT_LARGE | (3ULL << 4));
	fxt_framer_feed(&f, words, 16);
	ck_assert_uint_eq(f.whole, 0);
	fxt_framer_feed(&f, words + 2, 8);
	ck_assert_uint_eq(f.whole, 24);
	fxt_framer_feed(&f, words + 3, 24);
	ck_assert_uint_eq(f.whole, 24);
	ck_assert(f.bad);
	ck_assert_uint_eq(f.pos, 48);
}
END_TEST

static Suite *framer_suite(void)
{
	Suite *s = suite_create("fxt_framer");
	TCase *tc = tcase_create("framer");

	tcase_add_test(tc, test_pieces);
	tcase_add_test(tc, test_large_and_bad);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(framer_suite)
