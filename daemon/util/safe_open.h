/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Opening a file named by data from elsewhere (a module path in a .fxt, a
 * debug file derived from it): the name may be a FIFO whose open() blocks
 * forever, a device whose open() has side effects, a socket, a directory.
 * Every such open goes through safe_open_regular(). Pure: no logging.
 */
#ifndef FXS_DAEMON_SAFE_OPEN_H
#define FXS_DAEMON_SAFE_OPEN_H

#include <errno.h>
#include <sys/stat.h>

/*
 * safe_open_regular() fails with -SAFE_OPEN_ENOTREG for a path that exists
 * but is not a regular file. Linux has no EFTYPE; EMEDIUMTYPE is never what
 * open() or fstat() of a path returns, so the caller can tell it apart.
 */
#define SAFE_OPEN_ENOTREG EMEDIUMTYPE

/*
 * Open path read-only with O_NONBLOCK (a FIFO does not wait for a writer),
 * O_NOCTTY (a terminal does not become ours) and O_CLOEXEC, and keep it only
 * if fstat() says it is a regular file; O_NONBLOCK is then cleared. Returns
 * the fd, or -errno: -SAFE_OPEN_ENOTREG for anything but a regular file
 * (sockets, which open() refuses with ENXIO, included). ret_st (may be NULL)
 * gets the file's status whenever it could be read, the failures included.
 */
int safe_open_regular(const char *path, struct stat *ret_st);

/* "fifo", "character device", "socket", ... for a st_mode. */
const char *safe_open_type_name(mode_t mode);

/*
 * What kind of file path is now, for a message about a path that
 * safe_open_regular() refused (stat() only: it neither opens nor blocks);
 * NULL when it is a regular file or cannot be examined.
 */
const char *safe_open_describe(const char *path);

#endif /* FXS_DAEMON_SAFE_OPEN_H */
