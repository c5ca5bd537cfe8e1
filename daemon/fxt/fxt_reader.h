/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Fuchsia Trace Format reader: frames records, checks every size and field it
 * decodes, resolves string and thread refs through the provider's tables, and
 * reports the byte offset and the reason of the first malformed record.
 * Pure apart from reading the file (gzip-compressed files are read
 * transparently through zlib). No libbpf. A record as text: fxt_dump.h.
 */
#ifndef FXS_DAEMON_FXT_READER_H
#define FXS_DAEMON_FXT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt/fxt.h"

#define FXT_READER_MAX_ARGS 15

struct fxt_rd_arg {
	unsigned type;	  /* FXT_ARG_* (or another type, skipped by size) */
	const char *name; /* NUL-terminated, valid until the next fxt_reader_next() */
	uint64_t u;	  /* integer/koid/pointer/bool value, two's complement */
	double d;
	const char *str; /* FXT_ARG_STRING */
};

/*
 * One decoded record. Strings are NUL-terminated copies owned by the reader,
 * valid until the next call to fxt_reader_next(); frames likewise.
 */
struct fxt_record {
	uint64_t offset;  /* byte offset of the header word in the (uncompressed) stream */
	unsigned type;	  /* FXT_RT_* */
	unsigned subtype; /* metadata type, event type, kernel object type, profiler subtype */
	unsigned words;	  /* size including the header */
	uint64_t header;

	uint64_t ts;	      /* events, profiler records */
	uint64_t pid, tid;    /* resolved thread ref; kobj: koid in pid (process) or tid (thread) */
	uint64_t koid;	      /* kernel objects */
	const char *name;     /* kobj / event / provider / module name; string record text */
	const char *category; /* events */
	uint32_t provider_id; /* provider info/section/event */
	unsigned provider_event;
	uint64_t ticks_per_second; /* init */
	unsigned index;		   /* string / thread record index */

	unsigned nr_args;
	struct fxt_rd_arg args[FXT_READER_MAX_ARGS];
	uint64_t counter_id; /* counter events */

	uint16_t module_id; /* module, mmap */
	const uint8_t *build_id;
	size_t build_id_len;
	unsigned mmap_flags;
	uint64_t start, size, vaddr;

	unsigned bt_flags; /* FXT_BT_FLAG_* */
	unsigned nr_frames;
	const uint64_t *frames;

	/* blob: name in name; the payload's bytes, valid until the next record */
	unsigned blob_type;
	const uint8_t *blob;
	size_t blob_len;

	/* scheduling: context switch (subtype 1) and wakeup (subtype 2, in_tid wakes) */
	unsigned cpu;
	unsigned out_state; /* FXT_THREAD_* */
	uint64_t out_tid, in_tid;
};

struct fxt_reader;

/* NULL with errno set (ENOENT, ENOMEM, ...) when the file cannot be opened. */
struct fxt_reader *fxt_reader__open(const char *path);
/*
 * Reads from memory; the bytes must outlive the reader. Part of the contract
 * for decoding what is already in memory: the fuzz target, and tests that
 * decode a stream they just wrote.
 */
struct fxt_reader *fxt_reader__open_mem(const void *data, size_t len);
/*
 * A stream that arrives in chunks of whole records (what fxt_stream hands its
 * sink): fxt_reader_feed() a chunk, then fxt_reader_next() until it returns 0,
 * then the next chunk. The tables carry over; the chunk must outlive those
 * reads. feed: 0, -EBUSY when the last chunk is not read to its end, -EINVAL
 * for a reader of a file. A record cut at a chunk's end is malformed.
 */
struct fxt_reader *fxt_reader__open_stream(void);
int fxt_reader_feed(struct fxt_reader *r, const void *data, size_t len);
void fxt_reader__free(struct fxt_reader *r);

/*
 * 1: *ret is the next record; 0: clean end of file; -EBADMSG: malformed
 * (fxt_reader_error() says where and why, e.g. "offset 4096: record size 0"),
 * other negative errno: I/O failure. The first record must be the magic.
 */
int fxt_reader_next(struct fxt_reader *r, struct fxt_record *ret);
/* NULL as long as fxt_reader_next() has returned no error. */
const char *fxt_reader_error(const struct fxt_reader *r);
/* Offset of the end of the last whole record read: how far a failed read got. */
uint64_t fxt_reader_offset(const struct fxt_reader *r);
/*
 * Whether the error is a file cut short (a full disk, a crash, a copy
 * interrupted): the stream ends inside a record, and every record before it
 * was whole and has been returned.
 */
bool fxt_reader_truncated(const struct fxt_reader *r);

#endif /* FXS_DAEMON_FXT_READER_H */
