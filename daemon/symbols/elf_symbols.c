// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF function symbols through libelf.
 *
 * Loading keeps the Elf handles only until the names are copied into one
 * arena, then closes them: the symbolizer may hold hundreds of these.
 * Symbols are sorted by address and deduplicated the way perf's
 * choose_best_symbol() does (sized over unsized, global over weak over local,
 * fewer leading underscores, longer name), so an alias such as
 * __libc_malloc/malloc resolves to one stable name.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/elf_symbols.h"
#include "util/safe_open.h"
#include "util/sorted.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_ELFDATA ELFDATA2LSB
#else
#define HOST_ELFDATA ELFDATA2MSB
#endif

/* A symbol while loading: name points into an Elf's string table. */
struct raw_sym {
	uint64_t addr;
	uint64_t size;
	uint64_t sec_end; /* end of the symbol's section, 0 when unknown */
	const char *name;
	unsigned char bind;
};

struct sym {
	uint64_t addr;
	uint64_t size;	  /* st_size, 0 for an unsized symbol */
	uint64_t end;	  /* exclusive end of what the symbol covers */
	uint64_t max_end; /* max of end over this and every earlier symbol */
	const char *name; /* into the arena */
};

struct elf_symbols {
	char *path;
	char *debug_path;
	char *go_build_id;
	size_t build_id_len;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	struct elf_segment *segs;
	size_t nr_segs;
	struct sym *syms;
	size_t nr_syms;
	char *names;
};

struct raw_syms {
	struct raw_sym *v;
	size_t n;
	size_t cap;
};

/*
 * A file is "oversized" when it is larger than everything its headers
 * describe by more than this factor plus slack: a huge (sparse) file behind a
 * valid ELF header, not a real object. Only the described part is mapped and
 * the file is never read whole (no .gnu_debuglink CRC over it).
 */
#define ELF_OVERSIZE_FACTOR 2
#define ELF_OVERSIZE_SLACK  (1ULL << 20)

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
	bool oversized;
};

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

static void elf_file_close(struct elf_file *f)
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
static int elf_file_open(const char *path, struct elf_file *f, GElf_Ehdr *ret_ehdr)
{
	struct stat st;
	uint64_t extent, len;
	Elf *probe;
	int err;

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

static int elf_file_open_mem(const void *data, size_t size, struct elf_file *f, GElf_Ehdr *ret_ehdr)
{
	int err;

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
static Elf_Data *section_data(Elf_Scn *scn, GElf_Shdr *shdr)
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
static char *find_go_build_id(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		size_t off = 0, next, name_off, desc_off, i;
		Elf_Data *data;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = section_data(scn, &shdr);
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
static int find_build_id(Elf *elf, uint8_t *buf, size_t *ret_len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t i, nr_phdr;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		if (notes_build_id(section_data(scn, &shdr), buf, ret_len))
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

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *ret_shdr)
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

static bool has_section_type(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == type)
			return true;
	return false;
}

static int raw_syms_push(struct raw_syms *rs, const struct raw_sym *s)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 256;
		struct raw_sym *tmp = reallocarray(rs->v, cap, sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		rs->v = tmp;
		rs->cap = cap;
	}
	rs->v[rs->n++] = *s;
	return 0;
}

/* Append the function symbols of every section of the given type. */
static int load_symtab(Elf *elf, Elf64_Word type, struct raw_syms *rs)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	int err;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn *str_scn;
		GElf_Shdr str_shdr;
		Elf_Data *data, *str;
		size_t i, n, entsize;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != type)
			continue;
		str_scn = elf_getscn(elf, shdr.sh_link);
		if (!str_scn || !gelf_getshdr(str_scn, &str_shdr))
			continue;
		data = section_data(scn, &shdr);
		str = section_data(str_scn, &str_shdr);
		entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		if (!data || !str || !str->d_buf || !entsize)
			continue;
		n = data->d_size / entsize;
		for (i = 0; i < n; i++) {
			struct raw_sym rsym = {};
			GElf_Sym sym;
			unsigned st_type;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			st_type = GELF_ST_TYPE(sym.st_info);
			if (st_type != STT_FUNC && st_type != STT_GNU_IFUNC)
				continue;
			if (sym.st_shndx == SHN_UNDEF || sym.st_name >= str->d_size)
				continue;
			name = (const char *)str->d_buf + sym.st_name;
			if (!*name || !memchr(name, '\0', str->d_size - sym.st_name))
				continue;
			rsym.addr = sym.st_value;
			rsym.size = sym.st_size;
			rsym.name = name;
			rsym.bind = GELF_ST_BIND(sym.st_info);
			if (sym.st_shndx < SHN_LORESERVE) {
				Elf_Scn *sec = elf_getscn(elf, sym.st_shndx);
				GElf_Shdr sec_shdr;

				if (sec && gelf_getshdr(sec, &sec_shdr) &&
				    sec_shdr.sh_addr <= sym.st_value &&
				    sec_shdr.sh_addr + sec_shdr.sh_size > sym.st_value)
					rsym.sec_end = sec_shdr.sh_addr + sec_shdr.sh_size;
			}
			err = raw_syms_push(rs, &rsym);
			if (err)
				return err;
		}
	}
	return 0;
}

static int bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* By address, then the best of a group of aliases first. */
static int raw_sym_cmp(const void *pa, const void *pb)
{
	const struct raw_sym *a = pa, *b = pb;
	size_t ua, ub, la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (!a->size != !b->size)
		return a->size ? -1 : 1;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Sort, deduplicate, compute what each symbol covers, copy names to the arena. */
static int finish_symbols(struct elf_symbols *es, struct raw_syms *rs)
{
	size_t i, n = 0, names_len = 0, pos = 0;
	uint64_t max_end = 0;

	if (!rs->n)
		return 0;
	qsort(rs->v, rs->n, sizeof(*rs->v), raw_sym_cmp);
	for (i = 0; i < rs->n; i++) {
		if (n && rs->v[n - 1].addr == rs->v[i].addr)
			continue;
		rs->v[n++] = rs->v[i];
	}
	es->syms = calloc(n, sizeof(*es->syms));
	if (!es->syms)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		names_len += strlen(rs->v[i].name) + 1;
	es->names = malloc(names_len);
	if (!es->names)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct raw_sym *r = &rs->v[i];
		struct sym *s = &es->syms[i];
		size_t len = strlen(r->name) + 1;

		s->addr = r->addr;
		s->size = r->size;
		if (r->size) {
			s->end = r->addr + r->size < r->addr ? UINT64_MAX : r->addr + r->size;
		} else {
			/* Unsized (hand-written assembly): up to the next symbol. */
			s->end = i + 1 < n ? rs->v[i + 1].addr : UINT64_MAX;
			if (r->sec_end && r->sec_end < s->end)
				s->end = r->sec_end;
		}
		if (s->end > max_end)
			max_end = s->end;
		s->max_end = max_end;
		memcpy(es->names + pos, r->name, len);
		s->name = es->names + pos;
		pos += len;
	}
	es->nr_syms = n;
	return 0;
}

static int load_segments(struct elf_symbols *es, Elf *elf)
{
	size_t i, nr_phdr;

	if (elf_getphdrnum(elf, &nr_phdr))
		return -EBADMSG;
	if (!nr_phdr)
		return 0;
	es->segs = calloc(nr_phdr, sizeof(*es->segs));
	if (!es->segs)
		return -ENOMEM;
	for (i = 0; i < nr_phdr; i++) {
		struct elf_segment *seg = &es->segs[es->nr_segs];
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, (int)i, &phdr))
			return -EBADMSG;
		if (phdr.p_type != PT_LOAD)
			continue;
		seg->vaddr = phdr.p_vaddr;
		seg->offset = phdr.p_offset;
		seg->filesz = phdr.p_filesz;
		seg->memsz = phdr.p_memsz;
		seg->align = phdr.p_align;
		seg->flags = phdr.p_flags;
		es->nr_segs++;
	}
	return 0;
}

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
 * Open a candidate debug file: it must be an ELF object with a .symtab, and
 * carry the same build id as the main file, or, when the main file has none,
 * the CRC its .gnu_debuglink gives.
 */
static int open_debug_candidate(const char *path, const struct elf_symbols *es, const uint32_t *crc,
				struct elf_file *ret)
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
	if (es->build_id_len) {
		if (!find_build_id(f.elf, id, &id_len) || id_len != es->build_id_len ||
		    memcmp(id, es->build_id, id_len)) {
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
	if (!has_section_type(f.elf, SHT_SYMTAB)) {
		err = -ENODATA;
		goto fail;
	}
	*ret = f;
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

	scn = find_section(elf, ".gnu_debuglink", &shdr);
	if (!scn)
		return -ENOENT;
	data = section_data(scn, &shdr);
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

/*
 * Find the separate debug file of es, the way gdb does: by build id under the
 * debug root, then by .gnu_debuglink next to the file, in its .debug/
 * directory and under the debug root.
 */
static int find_debug_file(struct elf_symbols *es, Elf *elf, const char *path,
			   const char *debug_dir, struct elf_file *ret)
{
	char cand[PATH_MAX], link[NAME_MAX + 1], dir[PATH_MAX];
	uint32_t crc;
	char *slash;
	int n;

	if (es->build_id_len &&
	    !elf_build_id_debug_path(debug_dir, es->build_id, es->build_id_len, cand,
				     sizeof(cand)) &&
	    !open_debug_candidate(cand, es, NULL, ret))
		goto found;
	if (!path || read_debuglink(elf, link, sizeof(link), &crc))
		return -ENOENT;
	if (!realpath(path, dir))
		return -ENOENT;
	slash = strrchr(dir, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';

	n = snprintf(cand, sizeof(cand), "%s/%s", dir, link);
	if (n > 0 && (size_t)n < sizeof(cand) && !open_debug_candidate(cand, es, &crc, ret))
		goto found;
	n = snprintf(cand, sizeof(cand), "%s/.debug/%s", dir, link);
	if (n > 0 && (size_t)n < sizeof(cand) && !open_debug_candidate(cand, es, &crc, ret))
		goto found;
	n = snprintf(cand, sizeof(cand), "%s%s/%s", debug_dir, dir, link);
	if (n > 0 && (size_t)n < sizeof(cand) && !open_debug_candidate(cand, es, &crc, ret))
		goto found;
	return -ENOENT;
found:
	es->debug_path = strdup(cand);
	if (!es->debug_path) {
		elf_file_close(ret);
		return -ENOMEM;
	}
	return 0;
}

static struct elf_symbols *load(struct elf_file *f, const GElf_Ehdr *ehdr, const char *path,
				const char *name, const struct elf_symbols_opts *opts)
{
	struct elf_file dbg = {.fd = -1};
	struct raw_syms rs = {};
	struct elf_symbols *es;
	const char *debug_dir = opts && opts->debug_dir ? opts->debug_dir : ELF_DEBUG_DIR;
	int err;

	es = calloc(1, sizeof(*es));
	if (!es) {
		err = -ENOMEM;
		goto out;
	}
	if (name) {
		es->path = strdup(name);
		if (!es->path) {
			err = -ENOMEM;
			goto out;
		}
	}
	err = load_segments(es, f->elf);
	if (err)
		goto out;
	find_build_id(f->elf, es->build_id, &es->build_id_len);
	if (!es->build_id_len)
		es->go_build_id = find_go_build_id(f->elf);

	if (has_section_type(f->elf, SHT_SYMTAB)) {
		err = load_symtab(f->elf, SHT_SYMTAB, &rs);
	} else if (!(opts && opts->no_debug_file) &&
		   !find_debug_file(es, f->elf, path, debug_dir, &dbg)) {
		err = load_symtab(dbg.elf, SHT_SYMTAB, &rs);
	}
	if (err)
		goto out;
	/* .dynsym also holds what a stripped library exports. */
	err = load_symtab(f->elf, SHT_DYNSYM, &rs);
	if (err)
		goto out;
	err = finish_symbols(es, &rs);
out:
	free(rs.v);
	elf_file_close(&dbg);
	if (err) {
		elf_symbols__free(es);
		errno = -err;
		return NULL;
	}
	return es;
}

struct elf_symbols *elf_symbols__open(const char *path, const struct elf_symbols_opts *opts)
{
	struct elf_file f;
	struct elf_symbols *es;
	GElf_Ehdr ehdr;
	int err;

	err = libelf_init();
	if (!err)
		err = elf_file_open(path, &f, &ehdr);
	if (err) {
		errno = -err;
		return NULL;
	}
	es = load(&f, &ehdr, path, path, opts);
	err = errno;
	elf_file_close(&f);
	errno = err;
	return es;
}

struct elf_symbols *elf_symbols__open_mem(const void *data, size_t size, const char *name,
					  const struct elf_symbols_opts *opts)
{
	struct elf_file f;
	struct elf_symbols *es;
	GElf_Ehdr ehdr;
	int err;

	err = libelf_init();
	if (!err)
		err = elf_file_open_mem(data, size, &f, &ehdr);
	if (err) {
		errno = -err;
		return NULL;
	}
	es = load(&f, &ehdr, NULL, name, opts);
	err = errno;
	elf_file_close(&f);
	errno = err;
	return es;
}

void elf_symbols__free(struct elf_symbols *es)
{
	if (!es)
		return;
	free(es->path);
	free(es->debug_path);
	free(es->go_build_id);
	free(es->segs);
	free(es->syms);
	free(es->names);
	free(es);
}

static int cmp_sym_addr(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, e = ((const struct sym *)elem)->addr;

	return (k > e) - (k < e);
}

static const struct sym *find_sym(const struct elf_symbols *es, uint64_t vaddr)
{
	/* The number of symbols starting at or below vaddr. */
	size_t i = sorted_upper(es->syms, es->nr_syms, sizeof(*es->syms), &vaddr, cmp_sym_addr);

	/* Walk back over nested symbols that end before vaddr. */
	while (i-- > 0) {
		const struct sym *s = &es->syms[i];

		if (s->max_end <= vaddr)
			break;
		if (vaddr < s->end)
			return s;
	}
	return NULL;
}

const char *elf_symbols__lookup(const struct elf_symbols *es, uint64_t file_vaddr,
				uint64_t *ret_offset)
{
	const struct sym *s;

	if (!es)
		return NULL;
	s = find_sym(es, file_vaddr);
	if (!s)
		return NULL;
	if (ret_offset)
		*ret_offset = file_vaddr - s->addr;
	return s->name;
}

int elf_symbols__lookup_addr(const struct elf_symbols *es, uint64_t file_vaddr, uint64_t *ret_start,
			     uint64_t *ret_size)
{
	const struct sym *s = es ? find_sym(es, file_vaddr) : NULL;

	if (!s)
		return -ENOENT;
	if (ret_start)
		*ret_start = s->addr;
	if (ret_size)
		*ret_size = s->end - s->addr;
	return 0;
}

const uint8_t *elf_symbols__build_id(const struct elf_symbols *es, size_t *ret_len)
{
	if (!es->build_id_len)
		return NULL;
	if (ret_len)
		*ret_len = es->build_id_len;
	return es->build_id;
}

const char *elf_symbols__go_build_id(const struct elf_symbols *es)
{
	return es->go_build_id;
}

size_t elf_symbols__segments(const struct elf_symbols *es, const struct elf_segment **ret)
{
	*ret = es->segs;
	return es->nr_segs;
}

size_t elf_symbols__count(const struct elf_symbols *es)
{
	return es->nr_syms;
}

const char *elf_symbols__path(const struct elf_symbols *es)
{
	return es->path;
}

const char *elf_symbols__debug_path(const struct elf_symbols *es)
{
	return es->debug_path;
}

int elf_symbols__offset_to_vaddr(const struct elf_symbols *es, uint64_t file_offset, unsigned flags,
				 uint64_t *ret_vaddr)
{
	uint64_t page_mask = (uint64_t)sysconf(_SC_PAGESIZE) - 1;
	const struct elf_segment *best = NULL;
	int best_score = -1;
	size_t i;

	for (i = 0; i < es->nr_segs; i++) {
		const struct elf_segment *seg = &es->segs[i];
		int score;

		/* The kernel maps a segment from the page holding p_offset. */
		if (file_offset < (seg->offset & ~page_mask) ||
		    file_offset >= seg->offset + seg->filesz)
			continue;
		/* Segments may share a file page: the flags tell them apart. */
		if (!flags || seg->flags == flags)
			score = 2;
		else
			score = (seg->flags & PF_X) == (flags & PF_X);
		if (score > best_score) {
			best = seg;
			best_score = score;
		}
	}
	if (!best)
		return -ENOENT;
	/* Wraps for a file_offset below p_offset, and wraps back. */
	*ret_vaddr = best->vaddr + file_offset - best->offset;
	return 0;
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
