/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where record writes its capture (-o), on top of util/outfile.h: a regular
 * file is replaced atomically with its mode and owner kept, a device or a FIFO
 * is written through. "-" is stdout, unless a terminal; -z compresses on the
 * way.
 */
#ifndef FXS_CLI_RECORD_OUTPUT_H
#define FXS_CLI_RECORD_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "util/outfile.h"

struct out_file {
	struct outfile f;
	gzFile gz;
	uint64_t bytes;
	int err; /* the first write error: setup errors name the output */
};

/*
 * Open path (compressed with -z): 0, or -1 with one line naming the output
 * and the reason in msg.
 */
int out_open(struct out_file *o, const char *path, bool compress, char *msg, size_t len);

/* The capture's sink (ctx: the out_file): 0 or -errno, kept in o->err. */
int out_sink(void *ctx, const void *data, size_t len);

/* Complete the file (flush the gzip stream, fsync, rename): 0 or -errno. */
int out_commit(struct out_file *o);

/* Leave nothing behind: the temporary file is removed. */
void out_discard(struct out_file *o);

/* How the summary names the output. */
const char *out_name(const struct out_file *o);

#endif /* FXS_CLI_RECORD_OUTPUT_H */
