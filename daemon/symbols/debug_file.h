/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The separate debug file of an ELF object, found the way gdb finds it: by
 * build id under the debug root (<debug_dir>/.build-id/xx/yyyy.debug), then
 * by the name its .gnu_debuglink gives, beside the file's real path (symlinks
 * resolved), in that directory's .debug/, and under <debug_dir>/<directory>/.
 * Pure: no libbpf, no logging.
 */
#ifndef FXS_DAEMON_DEBUG_FILE_H
#define FXS_DAEMON_DEBUG_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/elf_file.h"

/* What the debug file is looked for from. */
struct debug_file_query {
	/* The ELF file's path; NULL for an image in memory: by build id only. */
	const char *path;
	/* The file opened, for its .gnu_debuglink; NULL: by build id only. */
	Elf *elf;
	/* The build the debug file must be of (the file's, or one recorded); NULL when none. */
	const uint8_t *build_id;
	size_t build_id_len;
	/* Root of the separate debug files; NULL: ELF_DEBUG_DIR. */
	const char *debug_dir;
};

/*
 * Whether a candidate that is the debug file (its build id or its CRC
 * matches) has what the caller reads: 0 takes it, a negative errno goes on to
 * the next candidate. f is open; it stays the finder's.
 */
typedef int (*debug_file_take_fn)(void *ctx, struct elf_file *f);

/*
 * Find the debug file: a candidate is the debug file when it is an ELF object
 * that carries q->build_id or, when there is none, whose CRC is the one
 * .gnu_debuglink records; the first one that take() takes is the answer.
 * 0 with *ret_path malloc'd and, when ret is not NULL, *ret open (close it
 * with elf_file_close()); -ENOENT when none, -ENOMEM.
 */
int debug_file_find(const struct debug_file_query *q, debug_file_take_fn take, void *ctx,
		    struct elf_file *ret, char **ret_path);

#endif /* FXS_DAEMON_DEBUG_FILE_H */
