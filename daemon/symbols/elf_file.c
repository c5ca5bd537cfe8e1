// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One ELF object through libelf: opened from a path (mapped, never read
 * whole) or from memory, its sections, and the build ids in its notes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf_file.h"
#include "util/safe_open.h"

/*
 * A file is "oversized" when it is larger than everything its headers
 * describe by more than this factor plus slack: a huge (sparse) file behind a
 * valid ELF header, not a real object. Only the described part is mapped and
 * the file is never read whole (no .gnu_debuglink CRC over it).
 */
#define ELF_OVERSIZE_FACTOR 2
#define ELF_OVERSIZE_SLACK  (1ULL << 20)

static int libelf_init(void)
{
	/* elf_version() only records the version: calling it again is harmless. */
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	return 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->image);
	if (f->map)
		munmap(f->map, f->map_len);
	f->elf = NULL;
	f->fd = -1;
	f->image = NULL;
	f->map = NULL;
	f->map_len = 0;
}

/* Check that f->elf is an ELF object of a type we symbolize. */
static int elf_file_check(struct elf_file *f, GElf_Ehdr *ret_ehdr)
{
	if (!f->elf)
		return -EBADMSG;
	if (elf_kind(f->elf) != ELF_K_ELF)
		return -ENOEXEC;
	if (!gelf_getehdr(f->elf, ret_ehdr))
		return -EBADMSG;
	if (ret_ehdr->e_type != ET_EXEC && ret_ehdr->e_type != ET_DYN)
		return -ENOEXEC;
	return 0;
}

/*
 * How far into the file the ELF headers reach: the headers, the program and
 * section header tables, every segment's and every section's file bytes.
 * elf is read with ELF_C_READ, which reads only the headers asked for.
 */
static uint64_t elf_extent(Elf *elf, const GElf_Ehdr *ehdr)
{
	uint64_t end = gelf_fsize(elf, ELF_T_EHDR, 1, EV_CURRENT), e;
	Elf_Scn *scn = NULL;
	size_t i, n;

	if (!elf_getphdrnum(elf, &n)) {
		e = add_sat(ehdr->e_phoff, mul_sat(n, ehdr->e_phentsize));
		end = e > end ? e : end;
		for (i = 0; i < n; i++) {
			GElf_Phdr phdr;

			if (!gelf_getphdr(elf, (int)i, &phdr))
				break;
			e = add_sat(phdr.p_offset, phdr.p_filesz);
			end = e > end ? e : end;
		}
	}
	if (!elf_getshdrnum(elf, &n)) {
		e = add_sat(ehdr->e_shoff, mul_sat(n, ehdr->e_shentsize));
		end = e > end ? e : end;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			break;
		if (shdr.sh_type == SHT_NOBITS)
			continue;
		e = add_sat(shdr.sh_offset, shdr.sh_size);
		end = e > end ? e : end;
	}
	return end;
}

/*
 * Open an ELF file named by a path from elsewhere: only a regular file
 * (safe_open_regular()), and mapped, never read into memory; a file far
 * larger than its headers describe is mapped only as far as they reach.
 * libelf's own mmap falls back to reading the file when mmap fails: ours
 * fails instead.
 */
int elf_file_open(const char *path, struct elf_file *f, GElf_Ehdr *ret_ehdr)
{
	struct stat st;
	uint64_t extent, len;
	Elf *probe;
	int err;

	err = libelf_init();
	if (err)
		return err;
	memset(f, 0, sizeof(*f));
	f->fd = safe_open_regular(path, &st);
	if (f->fd < 0)
		return f->fd;
	if (st.st_size < EI_NIDENT) {
		err = -ENOEXEC;
		goto fail;
	}
	/* The size sanity check, from the headers alone, before mapping. */
	probe = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!probe) {
		err = -EBADMSG;
		goto fail;
	}
	f->elf = probe;
	err = elf_file_check(f, ret_ehdr);
	f->elf = NULL;
	extent = err ? 0 : elf_extent(probe, ret_ehdr);
	elf_end(probe);
	if (err)
		goto fail;
	len = (uint64_t)st.st_size;
	if (len > add_sat(mul_sat(extent, ELF_OVERSIZE_FACTOR), ELF_OVERSIZE_SLACK)) {
		f->oversized = true;
		len = extent;
	}
	if (len > SIZE_MAX) {
		err = -EFBIG;
		goto fail;
	}
	f->map_len = (size_t)len;
	/* Private and writable as libelf wants it, but no swap is reserved for it. */
	f->map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE, f->fd,
		      0);
	if (f->map == MAP_FAILED) {
		err = -errno;
		f->map = NULL;
		goto fail;
	}
	f->elf = elf_memory(f->map, f->map_len);
	err = elf_file_check(f, ret_ehdr);
	if (err)
		goto fail;
	return 0;
fail:
	elf_file_close(f);
	return err;
}

int elf_file_open_mem(const void *data, size_t size, struct elf_file *f, GElf_Ehdr *ret_ehdr)
{
	int err;

	err = libelf_init();
	if (err)
		return err;
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (!size)
		return -ENOEXEC;
	/* libelf wants a writable image and decompression may write to it. */
	f->image = malloc(size);
	if (!f->image)
		return -ENOMEM;
	memcpy(f->image, data, size);
	f->elf = elf_memory(f->image, size);
	err = elf_file_check(f, ret_ehdr);
	if (err)
		elf_file_close(f);
	return err;
}

/* A section's data, decompressed first when it is SHF_COMPRESSED. */
Elf_Data *elf_section_data(Elf_Scn *scn, GElf_Shdr *shdr)
{
	if (shdr->sh_type == SHT_NOBITS)
		return NULL;
	if (shdr->sh_flags & SHF_COMPRESSED) {
		GElf_Chdr chdr;

		/* deflate expands at most about 1032:1: a bigger claim is a bomb. */
		if (!gelf_getchdr(scn, &chdr) ||
		    chdr.ch_size > add_sat(mul_sat(shdr->sh_size, 1032), 4096))
			return NULL;
		if (elf_compress(scn, 0, 0) < 0)
			return NULL;
		if (!gelf_getshdr(scn, shdr))
			return NULL;
	}
	return elf_getdata(scn, NULL);
}

/* 1 and the id in buf when the notes in data hold a GNU build id, else 0. */
static int notes_build_id(Elf_Data *data, uint8_t *buf, size_t *ret_len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || (data->d_type != ELF_T_NHDR && data->d_type != ELF_T_NHDR8))
		return 0;
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp((const char *)data->d_buf + name_off, ELF_NOTE_GNU,
			    sizeof(ELF_NOTE_GNU)) &&
		    nh.n_descsz > 0 && nh.n_descsz <= ELF_BUILD_ID_MAX) {
			memcpy(buf, (const uint8_t *)data->d_buf + desc_off, nh.n_descsz);
			*ret_len = nh.n_descsz;
			return 1;
		}
		off = next;
	}
	return 0;
}

#define GO_NOTE_NAME	"Go\0\0"
#define GO_NOTE_BUILDID 4
#define GO_BUILD_ID_MAX 256

/* The Go build id note: a printable string, copied NUL-terminated. NULL when none. */
char *elf_find_go_build_id(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		size_t off = 0, next, name_off, desc_off, i;
		Elf_Data *data;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_section_data(scn, &shdr);
		if (!data || (data->d_type != ELF_T_NHDR && data->d_type != ELF_T_NHDR8))
			continue;
		while (off < data->d_size &&
		       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const char *desc = (const char *)data->d_buf + desc_off;

			off = next;
			if (nh.n_type != GO_NOTE_BUILDID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + name_off, GO_NOTE_NAME, 4) ||
			    !nh.n_descsz || nh.n_descsz > GO_BUILD_ID_MAX)
				continue;
			for (i = 0; i < nh.n_descsz; i++)
				if (desc[i] < 0x21 || desc[i] > 0x7e)
					break;
			if (i == nh.n_descsz)
				return strndup(desc, nh.n_descsz);
		}
	}
	return NULL;
}

/*
 * The GNU build id from the note sections, else from the PT_NOTE segments:
 * sections first because a separate debug file keeps the program headers of
 * its stripped twin but not the bytes they point at.
 */
int elf_find_build_id(Elf *elf, uint8_t *buf, size_t *ret_len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t i, nr_phdr;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		if (notes_build_id(elf_section_data(scn, &shdr), buf, ret_len))
			return 1;
	}
	if (elf_getphdrnum(elf, &nr_phdr))
		return 0;
	for (i = 0; i < nr_phdr; i++) {
		GElf_Phdr phdr;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)phdr.p_offset, phdr.p_filesz,
					    phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (notes_build_id(data, buf, ret_len))
			return 1;
	}
	return 0;
}

Elf_Scn *elf_find_section(Elf *elf, const char *name, GElf_Shdr *ret_shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, ret_shdr))
			continue;
		n = elf_strptr(elf, shstrndx, ret_shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

bool elf_has_section_type(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == type)
			return true;
	return false;
}

int elf_build_id_debug_path(const char *debug_dir, const uint8_t *id, size_t len, char *buf,
			    size_t size)
{
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	int n;

	if (!id || !len || len > ELF_BUILD_ID_MAX)
		return -EINVAL;
	if (!debug_dir)
		debug_dir = ELF_DEBUG_DIR;
	elf_build_id_hex(id, len, hex, sizeof(hex));
	/* A one-byte id has no file part: gdb would not look it up either. */
	if (len < 2)
		return -EINVAL;
	n = snprintf(buf, size, "%s/.build-id/%.2s/%s.debug", debug_dir, hex, hex + 2);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

char *elf_build_id_hex(const uint8_t *id, size_t len, char *buf, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (!size)
		return buf;
	for (i = 0; i < len && 2 * i + 2 < size; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 0xf];
	}
	buf[2 * i] = '\0';
	return buf;
}
