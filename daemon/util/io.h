/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Whole buffers written to and read from a file descriptor, and whole files read. */
#ifndef FXS_DAEMON_IO_H
#define FXS_DAEMON_IO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Write all len bytes of buf to fd, across short writes and EINTR: 0, or
 * -errno of the write that failed (what came before it stays written).
 */
int write_all(int fd, const void *buf, size_t len);
/*
 * Read len bytes of fd at offset at into buf, across short reads and EINTR:
 * 0, -errno, or -EIO when the file ends before them.
 */
int pread_all(int fd, void *buf, size_t len, off_t at);

/*
 * The whole file at path into memory, gunzipped if it is gzip (zlib passes
 * any other file through), with a NUL after its len bytes: 0 with *ret (the
 * caller frees it) and *ret_len; -EFBIG past max bytes (0: no bound), or
 * -errno.
 */
int read_whole(const char *path, size_t max, char **ret, size_t *ret_len);

#endif /* FXS_DAEMON_IO_H */
