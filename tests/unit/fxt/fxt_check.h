/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the FXT test programs (check_fxt.c, check_fxt_reader.c,
 * check_fxt_dump.c) share: raw words into a buffer, a stream into memory, the
 * next record of a type, a whole trace read or as dump text. Each failure is a
 * Check assertion of the test that called it.
 */
#ifndef FXS_TESTS_FXT_CHECK_H
#define FXS_TESTS_FXT_CHECK_H

#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_dump.h"
#include "fxt/fxt_stream.h"
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

/* A stream's sink in memory; fail: what each write returns instead. */
struct mem_sink {
	uint8_t *data;
	size_t len, cap;
	unsigned calls;
	int fail;
};

static inline int mem_sink_write(void *ctx, const void *data, size_t len)
{
	struct mem_sink *m = ctx;
	uint8_t *tmp;

	m->calls++;
	if (m->fail)
		return m->fail;
	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		tmp = realloc(m->data, m->cap);
		ck_assert_ptr_nonnull(tmp);
		m->data = tmp;
	}
	memcpy(m->data + m->len, data, len);
	m->len += len;
	return 0;
}

static inline struct fxt_stream *new_stream(struct mem_sink *m)
{
	struct fxt_stream *s;

	memset(m, 0, sizeof(*m));
	s = fxt_stream__new(mem_sink_write, m, "fxsampler", GHZ);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* Flushes and frees the stream: the sink then holds the whole trace. */
static inline void end_stream(struct fxt_stream *s)
{
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
}

/*
 * Reads every record of a trace; returns what the last fxt_reader_next()
 * returned (0 at a clean end) and copies the error text into msg.
 */
static inline int read_all(const void *data, size_t len, unsigned *ret_records, char *msg,
			   size_t size)
{
	struct fxt_reader *r = fxt_reader__open_mem(data, len);
	struct fxt_record rec;
	unsigned n = 0;
	int err;

	ck_assert_ptr_nonnull(r);
	while ((err = fxt_reader_next(r, &rec)) == 1)
		n++;
	snprintf(msg, size, "%s", fxt_reader_error(r) ? fxt_reader_error(r) : "");
	if (err < 0)
		ck_assert_int_eq(fxt_reader_next(r, &rec), err); /* latched */
	fxt_reader__free(r);
	if (ret_records)
		*ret_records = n;
	return err;
}

static inline void assert_rejected(const struct fxt_buf *b, const char *exp_msg)
{
	char msg[256];

	ck_assert_int_eq(read_all(b->data, b->len, NULL, msg, sizeof(msg)), -EBADMSG);
	ck_assert_str_eq(msg, exp_msg);
}

static inline struct fxt_reader *open_sink(const struct mem_sink *m)
{
	struct fxt_reader *r = fxt_reader__open_mem(m->data, m->len);

	ck_assert_ptr_nonnull(r);
	return r;
}

/* A stream with one record of every kind the writer makes. */
static inline void write_every_kind(struct mem_sink *m)
{
	static const uint8_t bid[] = {0xab, 0xcd, 0xef, 0x01, 0x23};
	static const uint64_t frames[] = {0x401000, 0x401100, 0x401200};
	const char *names[] = {"written", "dropped"};
	const uint64_t values[] = {10, 0};
	struct fxt_stream *s = new_stream(m);

	ck_assert_int_eq(fxt_stream_process(s, 1234, "a.out"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 1234, 1235, "worker"), 0);
	ck_assert_int_eq(fxt_stream_module(s, 5, 1234, 0, "/usr/bin/x", bid, sizeof(bid)), 0);
	ck_assert_int_eq(fxt_stream_mmap(s, 5, 1234, 0, 5, 0x401000, 0x2000, 0x1000), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 123, 1234, 1235, 0, frames, 3), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 124, 1234, 1236,
					      FXT_BT_FLAG_TRUNCATED | FXT_BT_FLAG_PC_IS_RETURN,
					      frames + 1, 2),
			 0);
	ck_assert_int_eq(
		fxt_stream_counter(s, 200, 1234, 1235, "fxsampler", "drops", 0, names, values, 2),
		0);
	ck_assert_int_eq(fxt_stream_dropped(s), 0);
	end_stream(s);
}

#endif /* FXS_TESTS_FXT_CHECK_H */
