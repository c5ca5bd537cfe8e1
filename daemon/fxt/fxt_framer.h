/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where the whole records of an FXT byte stream end, as the bytes pass by:
 * a client whose daemon dies mid-capture keeps the file up to the last whole
 * record, which the reader then accepts. Only the record sizes are read
 * (§1.3: a header's size field, a large record's wider one); nothing is
 * decoded. Pure: no I/O.
 */
#ifndef FXS_DAEMON_FXT_FRAMER_H
#define FXS_DAEMON_FXT_FRAMER_H

#include <stddef.h>
#include <stdint.h>

struct fxt_framer {
	uint64_t pos;	/* bytes fed */
	uint64_t whole; /* bytes up to the end of the last whole record */
	uint64_t next;	/* where the record being fed ends (0: its header is not in yet) */
	uint8_t hdr[8]; /* a header split between two feeds */
	size_t hdr_len;
	int bad; /* a record of size 0: whole stays where it was */
};

/* Account len more bytes of the stream. A zeroed framer starts a stream. */
void fxt_framer_feed(struct fxt_framer *f, const void *data, size_t len);

#endif /* FXS_DAEMON_FXT_FRAMER_H */
