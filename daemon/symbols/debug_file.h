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

/*
 * Find and open the debug file of the ELF object elf, read from path (NULL
 * for an image in memory: by build id only). A candidate is used when it is
 * an ELF object with a .symtab that carries build_id, or, when build_id_len
 * is 0, whose CRC is the one .gnu_debuglink records. 0 with *ret open (close
 * it with elf_file_close()) and *ret_path malloc'd; -ENOENT, -ENOMEM.
 */
int debug_file_find(Elf *elf, const char *path, const uint8_t *build_id, size_t build_id_len,
		    const char *debug_dir, struct elf_file *ret, char **ret_path);

#endif /* FXS_DAEMON_DEBUG_FILE_H */
