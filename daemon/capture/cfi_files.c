// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture/cfi_files.h"

/* Program headers read at most: more is no file the walker needs. */
#define MAX_PHDRS 256

int cfi_files_key(const char *key, struct fxs_cfi_file_key *ret)
{
	unsigned major, minor;
	unsigned long long ino;
	int end = 0;

	if (!key || sscanf(key, "%u:%u:%llu:%n", &major, &minor, &ino, &end) != 3 || !end)
		return -EINVAL;
	/* the kernel's dev_t: MKDEV(major, minor), 12 bits of major over 20 of minor */
	if (major >= 1U << 12 || minor >= 1U << 20)
		return -EINVAL;
	*ret = (struct fxs_cfi_file_key){.ino = ino, .dev = major << 20 | minor};
	return 0;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -ENOEXEC;
}

int cfi_files_delta(int fd, uint64_t *ret_delta, uint64_t *ret_text)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	bool found = false;
	uint64_t delta = 0, text = UINT64_MAX;
	int err;

	err = read_at(fd, &eh, sizeof(eh), 0);
	if (err)
		return err;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > MAX_PHDRS)
		return -ENOEXEC;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		err = read_at(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph));
		if (err)
			return err;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (found && ph.p_vaddr - ph.p_offset != delta)
			return -ERANGE;
		delta = ph.p_vaddr - ph.p_offset;
		if (ph.p_vaddr < text)
			text = ph.p_vaddr;
		found = true;
	}
	if (!found)
		return -ENOEXEC;
	*ret_delta = delta;
	*ret_text = text;
	return 0;
}

int cfi_files_entry(const char *key, int fd, uint32_t table, struct fxs_cfi_file_key *ret_key,
		    struct fxs_cfi_file *ret)
{
	struct fxs_cfi_file_key k;
	struct stat st;
	uint64_t delta, text;
	int err;

	/* "major:minor:inode:/path[:build-id]": a file, not the vdso */
	if (fd < 0 || cfi_files_key(key, &k) || !strchr(key, '/'))
		return -ENOENT;
	if (fstat(fd, &st))
		return -errno;
	/*
	 * A mapping event with the build id has no dev and inode (perf gives
	 * one or the other): fd is the file opened by path with that build id.
	 */
	if (!k.ino && !k.dev) {
		if (major(st.st_dev) >= 1U << 12 || minor(st.st_dev) >= 1U << 20)
			return -ENOENT;
		k.ino = st.st_ino;
		k.dev = major(st.st_dev) << 20 | minor(st.st_dev);
	}
	/* glibc's major()/minor() read st_dev as /proc/PID/maps prints the kernel's */
	if ((uint64_t)st.st_ino != k.ino || major(st.st_dev) != k.dev >> 20 ||
	    minor(st.st_dev) != (k.dev & ((1U << 20) - 1)))
		return -ESTALE;
	err = cfi_files_delta(fd, &delta, &text);
	if (err)
		return err;
	*ret_key = k;
	*ret = (struct fxs_cfi_file){
		.mtime_sec = st.st_mtim.tv_sec,
		.mtime_nsec = (uint32_t)st.st_mtim.tv_nsec,
		.size = (uint64_t)st.st_size,
		.delta = delta,
		.text_vaddr = text,
		.table = table,
	};
	return 0;
}
