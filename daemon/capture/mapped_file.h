/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Opening what a process maps, safely as root: the file a mapping names
 * (through map_files, or by its path only if it is still the very inode
 * mapped), and the vdso's image, which has no file.
 */
#ifndef FXS_DAEMON_MAPPED_FILE_H
#define FXS_DAEMON_MAPPED_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_symbols;
struct proc_map;

/*
 * The vdso of the process whose /proc directory is dir, read out of it, or
 * (dir NULL, as a mapping event has it, or that read failed) ours when it is
 * as long: the kernel's one 64-bit vdso. With ret_fd, also a memfd holding
 * the image. NULL when neither can be had.
 */
struct elf_symbols *mapped_vdso_open(const char *dir, const struct proc_map *map, int *ret_fd);
/*
 * An fd open for reading on the file map names (dir: the process's /proc
 * directory, or NULL), or -1. by_build_id: the mapping carries a build id,
 * not an inode, so only a file anyone may read is opened by its path.
 */
int mapped_file_open(const char *dir, const struct proc_map *map, bool by_build_id);
/*
 * The file map names, opened again later by its path (no process to go
 * through): only if it is still the inode mapped, or, for a mapping that
 * carries a build id and no inode, a file anyone may read with that build
 * id. An fd open for reading on it, or -1.
 */
int mapped_file_reopen(const struct proc_map *map, const uint8_t *build_id, size_t build_id_len);

#endif /* FXS_DAEMON_MAPPED_FILE_H */
