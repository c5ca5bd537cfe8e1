// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the FXT reader on untrusted bytes. Every record it
 * accepts is formatted as `fxsampler dump` would print it, into a buffer of
 * the normal size and into a tiny one (the truncation path). The reader must
 * end with 1/0/-EBADMSG, never run past the input, and keep its offsets in
 * bounds.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fxt/fxt_dump.h"
#include "fxt/fxt_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fxt_reader *r = fxt_reader__open_mem(size ? data : NULL, size);
	struct fxt_record rec;
	uint64_t last = 0;
	char line[4096], tiny[8];
	int n, len;

	if (!r)
		return 0;
	while ((n = fxt_reader_next(r, &rec)) > 0) {
		/* Records are whole words and follow each other. */
		assert(fxt_reader_offset(r) <= size);
		assert(fxt_reader_offset(r) > last);
		assert(rec.offset == last);
		last = fxt_reader_offset(r);
		assert(rec.nr_args <= FXT_READER_MAX_ARGS);
		len = fxt_record_format(&rec, line, sizeof(line));
		assert(len >= 0);
		assert(strlen(line) ==
		       ((size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1));
		/* The same line, cut short, must stay NUL-terminated. */
		assert(fxt_record_format(&rec, tiny, sizeof(tiny)) == len);
		assert(strlen(tiny) < sizeof(tiny));
		assert(fxt_record_format(&rec, NULL, 0) == len);
	}
	assert(n == 0 || n == -EBADMSG);
	if (n < 0)
		assert(fxt_reader_error(r) && fxt_reader_error(r)[0]);
	fxt_reader__free(r);
	return 0;
}
