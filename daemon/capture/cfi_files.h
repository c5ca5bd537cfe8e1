/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The entries of the walker's cfi_files map (include/unwind_maps.h): how
 * bpf/vma.bpf.h finds a module's table from the file the kernel maps at a pc
 * that no range of its process holds yet (a new process's first
 * milliseconds, a library mapped since). One entry per module file that has
 * a table id, made when capture/modules first reads the file.
 *
 * Pure: reads the file's ELF program headers and fstat()s it; no libbpf.
 */
#ifndef FXS_DAEMON_CFI_FILES_H
#define FXS_DAEMON_CFI_FILES_H

#include <stdint.h>

#include "unwind_maps.h"

/*
 * The kernel's dev and inode from capture/modules' file key
 * ("major:minor:inode:path...", as /proc/PID/maps prints them): 0, or
 * -EINVAL when the key does not start so.
 */
int cfi_files_key(const char *key, struct fxs_cfi_file_key *ret);

/*
 * The p_vaddr - p_offset of the executable PT_LOAD segments of the 64-bit
 * ELF file behind fd (pread, so the fd's offset is kept), and the lowest
 * one's p_vaddr (where the kernel's mm->start_code points in a program): 0,
 * -ENOEXEC when it is not such a file or has none, -ERANGE when two give
 * different deltas (no one delta turns its pcs into vaddrs), -errno on a
 * read error.
 */
int cfi_files_delta(int fd, uint64_t *ret_delta, uint64_t *ret_text);

/*
 * The entry of table id's file, opened as fd, named by key: 0 with *ret_key
 * and *ret; -ENOENT for a file the kernel cannot name so (not a path: the
 * vdso), -ESTALE when fd is not the inode the key names, or as above. A key
 * without dev and inode (0:0:0:, a mapping event that gave the build id
 * instead) takes fd's.
 */
int cfi_files_entry(const char *key, int fd, uint32_t table, struct fxs_cfi_file_key *ret_key,
		    struct fxs_cfi_file *ret);

#endif /* FXS_DAEMON_CFI_FILES_H */
