/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the FXT test programs (check_fxt.c, check_fxt_dump.c) share: raw words
 * into a buffer, the next record of a type, a whole trace as dump text. Each
 * failure is a Check assertion of the test that called it.
 */
#ifndef FXS_TESTS_FXT_CHECK_H
#define FXS_TESTS_FXT_CHECK_H

#include <check.h>
#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_dump.h"
#include "fxt/fxt_reader.h"

#define GHZ 1000000000ULL

/* The next record, which must be of type. */
static inline void next_record(struct fxt_reader *r, struct fxt_record *rec, unsigned type)
{
	int err = fxt_reader_next(r, rec);

	ck_assert_msg(err == 1, "next: %d %s", err, fxt_reader_error(r));
	ck_assert_uint_eq(rec->type, type);
}

/* One raw little-endian word, for records the writer does not make. */
static inline void put_raw(struct fxt_buf *b, uint64_t w)
{
	uint8_t *tmp;

	if (b->len + 8 > b->cap) {
		b->cap = (b->len + 8) * 2;
		tmp = realloc(b->data, b->cap);
		ck_assert_ptr_nonnull(tmp);
		b->data = tmp;
	}
	w = htole64(w);
	memcpy(b->data + b->len, &w, 8);
	b->len += 8;
}

/* Every record of a trace as dump text, one line each. */
static inline char *dump(struct fxt_reader *r)
{
	struct fxt_record rec;
	char line[4096], *out = NULL;
	size_t len = 0, n;
	int err;

	while ((err = fxt_reader_next(r, &rec)) == 1) {
		ck_assert_int_lt(fxt_record_format(&rec, line, sizeof(line)), sizeof(line));
		n = strlen(line);
		out = realloc(out, len + n + 2);
		ck_assert_ptr_nonnull(out);
		memcpy(out + len, line, n);
		out[len + n] = '\n';
		len += n + 1;
		out[len] = '\0';
	}
	ck_assert_msg(err == 0, "%s", fxt_reader_error(r));
	return out;
}

#endif /* FXS_TESTS_FXT_CHECK_H */
