/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CFI tables kept on disk between captures (issue 37's first milliseconds):
 * a module's rows (daemon/unwind/cfi_table) took 40 to 80 ms each for
 * clang++'s libLLVM and libclang-cpp, and a new program's stacks waited for
 * them (160 of a compile's first samples went by frame pointers). Read back,
 * the same rows take a few milliseconds.
 *
 * One file per module file, named by the module file's identity as fstat()
 * gives it: device, inode, size, mtime and ctime (a file written in place
 * changes its ctime, which no one can set back; a package upgrade makes a
 * new inode). It holds that identity again, the row format's version, the
 * rows and their CRC-32: anything else, and it is not used (a miss).
 *
 * The directory is the caller's to trust: it must be its owner's alone
 * (not a link, no write access for group or others), checked at open. Files
 * are written under a temporary name and renamed, so a reader never sees one
 * half written. Past the cap, the least recently used files go (a hit
 * touches its file's mtime).
 *
 * Pure: no libbpf; zlib's crc32.
 */
#ifndef FXS_DAEMON_UNWIND_CFI_CACHE_H
#define FXS_DAEMON_UNWIND_CFI_CACHE_H

#include <stdint.h>
#include <sys/stat.h>

#include "unwind.h"

/* Change when struct fxs_cfi_row or the rules' encoding (include/unwind.h) changes. */
#define CFI_CACHE_VERSION 2
/* Modules with fewer rows are made again: a file each would cost more than they do. */
#define CFI_CACHE_MIN_ROWS 4096
/* What the directory may hold by default. */
#define CFI_CACHE_CAP (256ULL << 20)

/*
 * The directory dir (made, mode 0700, when missing; its parent too): an fd
 * on it, or -errno: -EPERM when it is not the caller's alone (owned by
 * another user, a symbolic link, writable by group or others).
 */
int cfi_cache_open(const char *dir);
/*
 * The rows kept for the module file whose fstat() is st: 0 and *ret_rows
 * (malloc'ed) and *ret_n; -ENOENT when none are, or what is there is not
 * theirs (another identity, version, size, CRC).
 */
int cfi_cache_get(int dirfd, const struct stat *st, struct fxs_cfi_row **ret_rows, uint32_t *ret_n);
/*
 * Keep n rows for the module file whose fstat() is st, then remove the
 * least recently used files past cap bytes. 0 or -errno (nothing kept).
 */
int cfi_cache_put(int dirfd, const struct stat *st, const struct fxs_cfi_row *rows, uint32_t n,
		  uint64_t cap);

#endif /* FXS_DAEMON_UNWIND_CFI_CACHE_H */
