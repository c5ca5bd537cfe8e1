// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * capture/cfi_files: the walker's cfi_files entries: the kernel's dev and
 * inode from modules' key, the executable segment's p_vaddr - p_offset from
 * the ELF program headers (one value, or none), and an entry only for the
 * very inode the key names, with its mtime and size.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture/cfi_files.h"
#include "check_main.h"

START_TEST(test_key)
{
	struct fxs_cfi_file_key k;

	ck_assert_int_eq(cfi_files_key("8:1:1234:/usr/lib/libc.so.6", &k), 0);
	ck_assert_uint_eq(k.dev, 8U << 20 | 1);
	ck_assert_uint_eq(k.ino, 1234);
	ck_assert_int_eq(cfi_files_key("259:65536:99:/x:0badc0de", &k), 0);
	ck_assert_uint_eq(k.dev, 259U << 20 | 65536);
	ck_assert_uint_eq(k.ino, 99);
	ck_assert_int_eq(cfi_files_key("[vdso]", &k), -EINVAL);
	ck_assert_int_eq(cfi_files_key("8:1:1234", &k), -EINVAL);
	ck_assert_int_eq(cfi_files_key("x:1:2:/p", &k), -EINVAL);
	/* past the kernel's dev_t: 12 bits of major, 20 of minor */
	ck_assert_int_eq(cfi_files_key("4096:0:2:/p", &k), -EINVAL);
	ck_assert_int_eq(cfi_files_key("1:1048576:2:/p", &k), -EINVAL);
	ck_assert_int_eq(cfi_files_key(NULL, &k), -EINVAL);
}
END_TEST

/* A 64-bit ELF file of nr program headers (class: ELFCLASS64 unless told). */
static int elf_file(const Elf64_Phdr *ph, unsigned nr, unsigned char class)
{
	char path[] = "/tmp/fxs-cfi-files.XXXXXX";
	Elf64_Ehdr eh = {0};
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = class;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (Elf64_Half)nr;
	ck_assert_int_eq(write(fd, &eh, sizeof(eh)), sizeof(eh));
	if (nr)
		ck_assert_int_eq(write(fd, ph, nr * sizeof(*ph)), nr * sizeof(*ph));
	return fd;
}

START_TEST(test_delta)
{
	Elf64_Phdr ph[4] = {
		{.p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0, .p_vaddr = 0x400000},
		{.p_type = PT_LOAD,
		 .p_flags = PF_R | PF_X,
		 .p_offset = 0x1000,
		 .p_vaddr = 0x401000},
		{.p_type = PT_LOAD,
		 .p_flags = PF_R | PF_W,
		 .p_offset = 0x2e10,
		 .p_vaddr = 0x403e10},
		{.p_type = PT_DYNAMIC, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = 0x10},
	};
	uint64_t delta = 1, text = 1;
	int fd = elf_file(ph, 4, ELFCLASS64);

	/* the executable PT_LOAD's alone (a PT_DYNAMIC marked X is no code) */
	ck_assert_int_eq(cfi_files_delta(fd, &delta, &text), 0);
	ck_assert_uint_eq(delta, 0x400000);
	ck_assert_uint_eq(text, 0x401000);
	/* the fd's offset is the caller's: read with pread */
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), sizeof(Elf64_Ehdr) + 4 * sizeof(Elf64_Phdr));
	close(fd);

	/* a PIE or a library: p_vaddr - p_offset 0 */
	ph[1].p_vaddr = ph[1].p_offset;
	fd = elf_file(ph, 2, ELFCLASS64);
	ck_assert_int_eq(cfi_files_delta(fd, &delta, &text), 0);
	ck_assert_uint_eq(delta, 0);
	close(fd);

	/* two executable segments that agree: the one delta, the lower one's vaddr */
	ph[2].p_flags = PF_R | PF_X;
	ph[2].p_vaddr = ph[2].p_offset;
	fd = elf_file(ph, 3, ELFCLASS64);
	ck_assert_int_eq(cfi_files_delta(fd, &delta, &text), 0);
	ck_assert_uint_eq(delta, 0);
	ck_assert_uint_eq(text, 0x1000);
	close(fd);

	/* ... that do not: no one delta turns the file's pcs into vaddrs */
	ph[2].p_vaddr = ph[2].p_offset + 0x200000;
	fd = elf_file(ph, 3, ELFCLASS64);
	delta = 7;
	ck_assert_int_eq(cfi_files_delta(fd, &delta, &text), -ERANGE);
	ck_assert_uint_eq(delta, 7);
	close(fd);

	/* no executable segment, a 32-bit file, headers cut short, not an ELF */
	fd = elf_file(ph, 1, ELFCLASS64);
	ck_assert_int_eq(cfi_files_delta(fd, &delta, &text), -ENOEXEC);
	close(fd);
	fd = elf_file(ph, 2, ELFCLASS32);
	ck_assert_int_eq(cfi_files_delta(fd, &delta, &text), -ENOEXEC);
	close(fd);
	fd = elf_file(ph, 2, ELFCLASS64);
	ck_assert_int_eq(ftruncate(fd, sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr) + 8), 0);
	ck_assert_int_eq(cfi_files_delta(fd, &delta, &text), -ENOEXEC);
	ck_assert_int_eq(ftruncate(fd, 3), 0);
	ck_assert_int_eq(cfi_files_delta(fd, &delta, &text), -ENOEXEC);
	close(fd);
	ck_assert_int_lt(cfi_files_delta(-1, &delta, &text), 0);
}
END_TEST

START_TEST(test_entry)
{
	Elf64_Phdr ph[1] = {
		{.p_type = PT_LOAD,
		 .p_flags = PF_R | PF_X,
		 .p_offset = 0x1000,
		 .p_vaddr = 0x201000},
	};
	struct fxs_cfi_file_key k;
	struct fxs_cfi_file e;
	char key[128];
	struct stat st;
	int fd = elf_file(ph, 1, ELFCLASS64);

	ck_assert_int_eq(fstat(fd, &st), 0);
	snprintf(key, sizeof(key), "%u:%u:%llu:/tmp/lib.so", major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	ck_assert_int_eq(cfi_files_entry(key, fd, 42, &k, &e), 0);
	ck_assert_uint_eq(k.ino, st.st_ino);
	ck_assert_uint_eq(k.dev, major(st.st_dev) << 20 | minor(st.st_dev));
	ck_assert_uint_eq(e.table, 42);
	ck_assert_uint_eq(e.delta, 0x200000);
	ck_assert_uint_eq(e.text_vaddr, 0x201000);
	ck_assert_uint_eq(e.size, st.st_size);
	ck_assert_int_eq(e.mtime_sec, st.st_mtim.tv_sec);
	ck_assert_uint_eq(e.mtime_nsec, st.st_mtim.tv_nsec);

	/* another inode than the key names: no entry */
	snprintf(key, sizeof(key), "%u:%u:%llu:/tmp/lib.so", major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino + 1);
	ck_assert_int_eq(cfi_files_entry(key, fd, 42, &k, &e), -ESTALE);
	snprintf(key, sizeof(key), "%u:%u:%llu:/tmp/lib.so", major(st.st_dev), minor(st.st_dev) + 1,
		 (unsigned long long)st.st_ino);
	ck_assert_int_eq(cfi_files_entry(key, fd, 42, &k, &e), -ESTALE);
	/* a mapping event with the build id: no dev and inode, fd's are taken */
	ck_assert_int_eq(cfi_files_entry("0:0:0:/tmp/lib.so:0badc0de", fd, 7, &k, &e), 0);
	ck_assert_uint_eq(k.ino, st.st_ino);
	ck_assert_uint_eq(k.dev, major(st.st_dev) << 20 | minor(st.st_dev));
	ck_assert_uint_eq(e.table, 7);
	/* the vdso and the like: not a file the kernel maps */
	ck_assert_int_eq(cfi_files_entry("0:0:0:[vdso]", fd, 42, &k, &e), -ENOENT);
	ck_assert_int_eq(cfi_files_entry(key, -1, 42, &k, &e), -ENOENT);
	close(fd);
}
END_TEST

static Suite *cfi_files_suite(void)
{
	Suite *s = suite_create("cfi_files");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_key);
	tcase_add_test(tc, test_delta);
	tcase_add_test(tc, test_entry);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(cfi_files_suite)
