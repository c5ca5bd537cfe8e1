/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kind of ELF object a symbols test covers (ET_EXEC, ET_DYN), read from
 * its header's bytes: the tests say which kinds elf_symbols__open() took,
 * which the library itself does not report.
 */
#ifndef FXS_TESTS_ELF_TYPE_H
#define FXS_TESTS_ELF_TYPE_H

#include <check.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* e_type of an ELF header: at the same offset in both classes. */
static inline unsigned elf_header_type(const unsigned char *h)
{
	return h[EI_DATA] == ELFDATA2MSB ? (unsigned)h[16] << 8 | h[17]
					 : (unsigned)h[17] << 8 | h[16];
}

static inline unsigned elf_file_type(const char *path)
{
	unsigned char h[18];
	FILE *f = fopen(path, "re");

	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fread(h, 1, sizeof(h), f), sizeof(h));
	fclose(f);
	return elf_header_type(h);
}

#endif /* FXS_TESTS_ELF_TYPE_H */
