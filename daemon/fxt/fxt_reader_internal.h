/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the FXT reader's two halves share: fxt_reader.c reads and frames the
 * records (files, gzip, memory, large records, the providers' tables),
 * fxt_decode.c decodes one framed record's fields into struct fxt_record.
 * Private to daemon/fxt/.
 */
#ifndef FXS_DAEMON_FXT_READER_INTERNAL_H
#define FXS_DAEMON_FXT_READER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "fxt/fxt_reader.h"

/* A record refers to at most 2 + 2 * 15 strings; each copy gets a NUL. */
#define FXT_READER_MAX_STRINGS 32

struct fxt_rd_string {
	char *s; /* NUL-terminated; NULL: undefined */
	size_t len;
};

struct fxt_rd_thread {
	uint64_t pid, tid;
	bool defined;
};

/* What the spec keeps per provider: the tables and the tick rate. */
struct fxt_provider {
	uint32_t id;
	char *name;
	uint64_t ticks_per_second;
	struct fxt_rd_string *strings; /* [FXT_MAX_STRING_INDEX + 1], on first use */
	struct fxt_rd_thread threads[FXT_MAX_THREAD_INDEX + 1];
};

struct fxt_reader {
	gzFile gz; /* NULL when reading from memory */
	const uint8_t *mem;
	size_t mem_len;
	uint64_t mem_base; /* stream offset of mem[0]: fxt_reader_feed()'s chunks follow on */
	uint64_t pos;	   /* bytes consumed from the uncompressed stream */
	uint64_t offset;   /* end of the last whole record */
	int err;	   /* latched */
	bool truncated;	   /* err: the stream ends inside a record */
	char msg[256];

	/* The current record, as stored (little-endian words). */
	uint64_t *words;
	size_t words_cap;
	/* NUL-terminated copies of the current record's inline strings. */
	char *arena;
	size_t arena_len, arena_cap;

	/*
	 * The last FXT_FRAMES_BLOB's outer frames (have_more), for the
	 * backtrace it belongs to; joined with that one's in joined.
	 */
	bool have_more;
	uint64_t more_ts, more_tid;
	unsigned nr_more;
	uint64_t more[FXT_MAX_FRAMES - FXT_BT_MAX_FRAMES];
	uint64_t joined[FXT_MAX_FRAMES];

	struct fxt_provider **providers;
	size_t nr_providers;
	struct fxt_provider *cur;
};

/* Latch a malformed-input error at offset: r->err = -EBADMSG, returned. */
__attribute__((format(printf, 3, 4))) int fxt_reader_fail(struct fxt_reader *r, uint64_t offset,
							  const char *fmt, ...);
/* Latch a system error (-errno) of what: returned. */
int fxt_reader_fail_errno(struct fxt_reader *r, int err, const char *what);
/* Provider id's tables; created when asked and missing (NULL: no memory). */
struct fxt_provider *fxt_reader_provider(struct fxt_reader *r, uint32_t id, bool create);
/* Forget a provider's strings, threads and tick rate (a new provider section). */
void fxt_provider_reset(struct fxt_provider *p);

/*
 * Decode the record in r->words (rec->words words, header first) into rec,
 * checking every field; 0 or the latched error.
 */
int fxt_decode(struct fxt_reader *r, struct fxt_record *rec);

#endif /* FXS_DAEMON_FXT_READER_INTERNAL_H */
