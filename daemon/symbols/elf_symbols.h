/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ELF function symbols, build ids and load segments, through libelf. Pure:
 * no libbpf, no logging. An opened object copies what it needs (segments,
 * symbol names) and keeps no file descriptor, so a profile with hundreds of
 * modules does not hold hundreds of files open.
 *
 * Addresses are ELF virtual addresses ("file vaddr", what st_value and
 * p_vaddr hold), not process addresses: elf_pc_to_vaddr() converts.
 */
#ifndef FXS_DAEMON_ELF_SYMBOLS_H
#define FXS_DAEMON_ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/elf_file.h" /* ELF_BUILD_ID_MAX, ELF_DEBUG_DIR, the build id paths */

struct elf_symbols_opts {
	/*
	 * Root of the separate debug files, searched as
	 * <debug_dir>/.build-id/xx/yyyy.debug and <debug_dir>/<dir>/<debuglink>.
	 * NULL means ELF_DEBUG_DIR.
	 */
	const char *debug_dir;
	/* Do not look for a separate debug file at all. */
	bool no_debug_file;
	/*
	 * No function symbols: the build id and load segments alone, what a
	 * capture needs of every module it learns of (libLLVM-14's 100 k
	 * symbols took 20 ms of the drain, and a new program's tables waited).
	 */
	bool no_symbols;
};

struct elf_segment {
	uint64_t vaddr;	 /* p_vaddr */
	uint64_t offset; /* p_offset */
	uint64_t filesz;
	uint64_t memsz;
	uint64_t align;
	uint32_t flags; /* p_flags: PF_R | PF_W | PF_X */
};

struct elf_symbols;

/*
 * Open an ELF executable or shared object (ET_EXEC or ET_DYN) and load its
 * function symbols from .symtab and .dynsym. When the file has no .symtab,
 * its separate debug file is used if one is found whose build id (or, without
 * a build id, whose .gnu_debuglink CRC) matches; a mismatching one is ignored.
 * SHF_COMPRESSED sections are decompressed. opts may be NULL.
 * Returns NULL with errno set: ENOENT/EACCES/... from open(), ENOEXEC for a
 * file that is not such an ELF object, EBADMSG for a corrupt one, ENOMEM.
 */
struct elf_symbols *elf_symbols__open(const char *path, const struct elf_symbols_opts *opts);
/*
 * The same for an image in memory (e.g. the [vdso] copied out of a process).
 * The bytes are copied; name (may be NULL) is what elf_symbols__path() returns.
 * Separate debug files are looked up by build id only.
 */
struct elf_symbols *elf_symbols__open_mem(const void *data, size_t size, const char *name,
					  const struct elf_symbols_opts *opts);
/* NULL-safe. */
void elf_symbols__free(struct elf_symbols *es);

/*
 * The function containing file_vaddr, or NULL. A symbol covers
 * [st_value, st_value + st_size); one of size 0 covers up to the next symbol
 * (or the end of its section). *ret_offset (may be NULL) gets
 * file_vaddr - st_value. The string lives as long as es.
 */
const char *elf_symbols__lookup(const struct elf_symbols *es, uint64_t file_vaddr,
				uint64_t *ret_offset);
/* Start and covered size of the function elf_symbols__lookup() returns; -ENOENT: none. */
int elf_symbols__lookup_addr(const struct elf_symbols *es, uint64_t file_vaddr, uint64_t *ret_start,
			     uint64_t *ret_size);

/* The GNU build id (NULL when the file has none); owned by es. */
const uint8_t *elf_symbols__build_id(const struct elf_symbols *es, size_t *ret_len);
/*
 * The Go build id (the text of the .note.go.buildid note, "Go" type 4) that
 * a Go binary carries instead of a GNU one; NULL when none. Owned by es.
 */
const char *elf_symbols__go_build_id(const struct elf_symbols *es);
/* The PT_LOAD segments in file order; owned by es. */
size_t elf_symbols__segments(const struct elf_symbols *es, const struct elf_segment **ret);
/* Number of distinct function symbols loaded. */
size_t elf_symbols__count(const struct elf_symbols *es);
/* The path (or name) given at open; owned by es, NULL for a nameless image. */
const char *elf_symbols__path(const struct elf_symbols *es);
/* The separate debug file whose symbols were used, or NULL; owned by es. */
const char *elf_symbols__debug_path(const struct elf_symbols *es);

/*
 * The ELF vaddr that a mapping of the file at file_offset starts at, i.e.
 * what an FXT mmap record's vaddr is for a /proc/PID/maps line (whose offset
 * is page aligned, while p_offset need not be). Segments may share a file
 * page: flags (the line's perms as PF_*, 0 for any) picks the one with the
 * same flags, else the same PF_X, else the first. A RELRO page (mapped r--
 * from an RW segment) stays ambiguous, so derive a load bias from the
 * lowest-offset mapping of a file. -ENOENT when no PT_LOAD holds the offset.
 */
int elf_symbols__offset_to_vaddr(const struct elf_symbols *es, uint64_t file_offset, unsigned flags,
				 uint64_t *ret_vaddr);

/*
 * Where pc falls in the ELF file mapped by a segment loaded at map_start whose
 * p_vaddr is map_vaddr (an FXT mmap record's start and vaddr).
 */
static inline uint64_t elf_pc_to_vaddr(uint64_t pc, uint64_t map_start, uint64_t map_vaddr)
{
	return pc - map_start + map_vaddr;
}

/*
 * The address to look up for a frame: a return address points after its
 * call, which may be the first byte of the next function, so look up the
 * byte before it.
 */
static inline uint64_t elf_lookup_pc(uint64_t pc, bool is_return)
{
	return is_return && pc ? pc - 1 : pc;
}

#endif /* FXS_DAEMON_ELF_SYMBOLS_H */
