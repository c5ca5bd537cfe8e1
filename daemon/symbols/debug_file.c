// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The separate debug file of an ELF object, found the way gdb finds it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/debug_file.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_ELFDATA ELFDATA2LSB
#else
#define HOST_ELFDATA ELFDATA2MSB
#endif

/* CRC-32 of a whole file, as .gnu_debuglink records it (zlib's polynomial). */
static int file_crc32(int fd, uint32_t *ret)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		crc = crc32(crc, buf, (uInt)n);
	}
	*ret = (uint32_t)crc;
	return 0;
}

/*
 * Open a candidate debug file: an ELF object that carries the build id
 * wanted, or, when there is none, the CRC .gnu_debuglink gives; then take()
 * has its say.
 */
static int open_candidate(const char *path, const struct debug_file_query *q, const uint32_t *crc,
			  debug_file_take_fn take, void *ctx, struct elf_file *ret)
{
	struct elf_file f;
	GElf_Ehdr ehdr;
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t id_len = 0;
	uint32_t file_crc;
	int err;

	err = elf_file_open(path, &f, &ehdr);
	if (err)
		return err;
	if (q->build_id_len) {
		if (!elf_find_build_id(f.elf, id, &id_len) || id_len != q->build_id_len ||
		    memcmp(id, q->build_id, id_len)) {
			err = -ESTALE;
			goto fail;
		}
	} else if (crc) {
		/* A CRC over a file far larger than any ELF it holds would read it all. */
		if (f.oversized) {
			err = -EFBIG;
			goto fail;
		}
		err = file_crc32(f.fd, &file_crc);
		if (err)
			goto fail;
		if (file_crc != *crc) {
			err = -ESTALE;
			goto fail;
		}
	} else {
		err = -ESTALE;
		goto fail;
	}
	err = take(ctx, &f);
	if (err)
		goto fail;
	if (ret)
		*ret = f;
	else
		elf_file_close(&f);
	return 0;
fail:
	elf_file_close(&f);
	return err;
}

/* Read .gnu_debuglink: a file name, padding to 4 bytes, a CRC-32. */
static int read_debuglink(Elf *elf, char *name, size_t size, uint32_t *ret_crc)
{
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	Elf_Data *data;
	const char *s;
	size_t len, crc_off;
	uint32_t crc;

	scn = elf_find_section(elf, ".gnu_debuglink", &shdr);
	if (!scn)
		return -ENOENT;
	data = elf_section_data(scn, &shdr);
	if (!data || !data->d_buf || !data->d_size)
		return -EBADMSG;
	s = data->d_buf;
	len = strnlen(s, data->d_size);
	if (!len || len == data->d_size || len >= size || strchr(s, '/'))
		return -EBADMSG;
	crc_off = (len + 1 + 3) & ~(size_t)3;
	if (crc_off + 4 > data->d_size)
		return -EBADMSG;
	memcpy(&crc, s + crc_off, 4);
	/* The CRC is stored in the file's byte order. */
	if (gelf_getehdr(elf, &ehdr) && ehdr.e_ident[EI_DATA] != HOST_ELFDATA)
		crc = __builtin_bswap32(crc);
	memcpy(name, s, len + 1);
	*ret_crc = crc;
	return 0;
}

/* Each candidate in gdb's order; 0 when one was taken, path in cand. */
static int find(const struct debug_file_query *q, debug_file_take_fn take, void *ctx,
		struct elf_file *ret, char *cand, size_t size)
{
	const char *debug_dir = q->debug_dir ? q->debug_dir : ELF_DEBUG_DIR;
	char real[PATH_MAX], link[NAME_MAX + 1];
	const char *dir;
	uint32_t crc;
	char *slash;
	int n;

	if (q->build_id_len &&
	    !elf_build_id_debug_path(debug_dir, q->build_id, q->build_id_len, cand, size) &&
	    !open_candidate(cand, q, NULL, take, ctx, ret))
		return 0;
	if (!q->path || !q->elf || read_debuglink(q->elf, link, sizeof(link), &crc))
		return -ENOENT;
	/*
	 * Beside the real file, as gdb looks: a symlink to a binary (a
	 * /usr/bin/ alternative, a library's soname) is not where its debug
	 * file was installed.
	 */
	if (!realpath(q->path, real))
		return -ENOENT;
	slash = strrchr(real, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	dir = real;

	/* Not the file itself: a debuglink may name a file as stripped as it is. */
	n = snprintf(cand, size, "%s/%s", dir, link);
	if (n > 0 && (size_t)n < size && strcmp(link, slash + 1) &&
	    !open_candidate(cand, q, &crc, take, ctx, ret))
		return 0;
	n = snprintf(cand, size, "%s/.debug/%s", dir, link);
	if (n > 0 && (size_t)n < size && !open_candidate(cand, q, &crc, take, ctx, ret))
		return 0;
	n = snprintf(cand, size, "%s%s/%s", debug_dir, dir, link);
	if (n > 0 && (size_t)n < size && !open_candidate(cand, q, &crc, take, ctx, ret))
		return 0;
	return -ENOENT;
}

int debug_file_find(const struct debug_file_query *q, debug_file_take_fn take, void *ctx,
		    struct elf_file *ret, char **ret_path)
{
	char cand[PATH_MAX];
	int err;

	err = find(q, take, ctx, ret, cand, sizeof(cand));
	if (err)
		return err;
	*ret_path = strdup(cand);
	if (!*ret_path) {
		if (ret)
			elf_file_close(ret);
		return -ENOMEM;
	}
	return 0;
}
