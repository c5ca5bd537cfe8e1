/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one loop that writes a whole buffer to a file descriptor. */
#ifndef FXS_DAEMON_IO_H
#define FXS_DAEMON_IO_H

#include <stddef.h>

/*
 * Write all len bytes of buf to fd, across short writes and EINTR: 0, or
 * -errno of the write that failed (what came before it stays written).
 */
int write_all(int fd, const void *buf, size_t len);

#endif /* FXS_DAEMON_IO_H */
