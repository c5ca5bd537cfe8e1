/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One ELF object opened through libelf, and what every reader of one needs:
 * its sections (decompressed when SHF_COMPRESSED) and the build ids its notes
 * carry. A file named by data from elsewhere (a module path in a .fxt, a
 * debug file derived from it) is opened as a regular file only and mapped,
 * never read whole. Pure: no libbpf, no logging.
 */
#ifndef FXS_DAEMON_ELF_FILE_H
#define FXS_DAEMON_ELF_FILE_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FXT stores the build id length in 8 bits. */
#define ELF_BUILD_ID_MAX 255
#define ELF_DEBUG_DIR	 "/usr/lib/debug"

/*
 * One opened ELF: the handle, its fd (or -1), the memory it reads: a private
 * copy (image) or a mapping of the file (map, map_len), else NULL.
 */
struct elf_file {
	Elf *elf;
	int fd;
	char *image;
	void *map;
	size_t map_len;
	/*
	 * The file is far larger than everything its headers describe (a huge,
	 * sparse file behind a valid ELF header): only the described part is
	 * mapped, and nothing may read the file whole.
	 */
	bool oversized;
};

/*
 * Open an ELF executable or shared object (ET_EXEC or ET_DYN) at path:
 * only a regular file (safe_open_regular()), mapped. 0, or -errno from
 * open(), -ENOEXEC for a file that is not such an object, -EBADMSG for a
 * corrupt one, -EFBIG, -ENOMEM. On failure f is closed.
 */
int elf_file_open(const char *path, struct elf_file *f, GElf_Ehdr *ret_ehdr);
/* The same for an image in memory, which is copied (libelf may write to it). */
int elf_file_open_mem(const void *data, size_t size, struct elf_file *f, GElf_Ehdr *ret_ehdr);
/* Close what f holds; again is harmless. */
void elf_file_close(struct elf_file *f);

/* A section's data, decompressed first when it is SHF_COMPRESSED; NULL when none. */
Elf_Data *elf_section_data(Elf_Scn *scn, GElf_Shdr *shdr);
/* The section named name, its header in *ret_shdr; NULL when none. */
Elf_Scn *elf_find_section(Elf *elf, const char *name, GElf_Shdr *ret_shdr);
bool elf_has_section_type(Elf *elf, Elf64_Word type);

/*
 * The GNU build id (at most ELF_BUILD_ID_MAX bytes) into buf: 1 when found,
 * else 0. From the note sections, else the PT_NOTE segments: sections first
 * because a separate debug file keeps the program headers of its stripped
 * twin but not the bytes they point at.
 */
int elf_find_build_id(Elf *elf, uint8_t *buf, size_t *ret_len);
/*
 * The Go build id (the text of the .note.go.buildid note, "Go" type 4) that a
 * Go binary carries instead of a GNU one, malloc'd; NULL when none.
 */
char *elf_find_go_build_id(Elf *elf);

/*
 * "<debug_dir>/.build-id/xx/yyyy.debug" for a build id (debug_dir NULL:
 * ELF_DEBUG_DIR). Returns 0, -EINVAL for an empty id, -ENAMETOOLONG when buf
 * is too small.
 */
int elf_build_id_debug_path(const char *debug_dir, const uint8_t *id, size_t len, char *buf,
			    size_t size);

/* Lowercase hex of a build id into buf (2 * len + 1 bytes); returns buf. */
char *elf_build_id_hex(const uint8_t *id, size_t len, char *buf, size_t size);

#endif /* FXS_DAEMON_ELF_FILE_H */
