/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CFI tables kept on disk between captures (issue 37's first milliseconds):
 * a module's rows (daemon/unwind/cfi_table) took 40 to 80 ms each for
 * clang++'s libLLVM and libclang-cpp, and a new program's stacks waited for
 * them (160 of a compile's first samples went by frame pointers). Read back,
 * libLLVM's 8 MB take about 35 ms (into new memory, then the CRC).
 *
 * One file per module file, named by where the file is and when it was
 * written as fstat() gives them: device, inode, size and mtime (a package
 * upgrade makes a new inode). It holds that again, the module's build id,
 * the row format's version, the rows and their CRC-32: anything else, and
 * it is not used (a miss). The build id tells a file written again in place
 * with its mtime set back. A module without one is told by its ctime
 * instead, which no one can set back, but which a new hard link, a chmod or
 * an xattr moves too: perf record links each module it samples into
 * ~/.debug, and the rows made before it ran were made again.
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
#define CFI_CACHE_VERSION 3
/* SHA-256 sized; GNU ld's default (SHA-1) is 20 bytes. */
#define CFI_CACHE_BUILD_ID_MAX 32
/* Modules with fewer rows are made again: a file each would cost more than they do. */
#define CFI_CACHE_MIN_ROWS 4096
/* What the directory may hold by default. */
#define CFI_CACHE_CAP (256ULL << 20)

/* A module file as the cache knows it. */
struct cfi_cache_key {
	struct stat st; /* its fstat() */
	/* its GNU build id; build_id_len 0 when it has none, or a longer one */
	uint8_t build_id_len;
	uint8_t build_id[CFI_CACHE_BUILD_ID_MAX];
};

/*
 * The directory dir (made, mode 0700, when missing; its parent too): an fd
 * on it, or -errno: -EPERM when it is not the caller's alone (owned by
 * another user, a symbolic link, writable by group or others).
 */
int cfi_cache_open(const char *dir);
/*
 * The rows kept for the module file key: 0 and *ret_rows (malloc'ed) and
 * *ret_n; -ENOENT when none are, or what is there is not theirs (another
 * file, build id or ctime, version, size, CRC).
 */
int cfi_cache_get(int dirfd, const struct cfi_cache_key *key, struct fxs_cfi_row **ret_rows,
		  uint32_t *ret_n);
/*
 * Keep n rows for the module file key (in place of what its file held),
 * then remove the least recently used files past cap bytes. 0 or -errno
 * (nothing kept).
 */
int cfi_cache_put(int dirfd, const struct cfi_cache_key *key, const struct fxs_cfi_row *rows,
		  uint32_t n, uint64_t cap);

#endif /* FXS_DAEMON_UNWIND_CFI_CACHE_H */
