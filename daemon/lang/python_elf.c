// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A CPython interpreter in an ELF file (lang/python_elf.h). */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "lang/python_elf.h"
#include "lang/python_debug_offsets.h"

struct wanted {
	const char *name;
	uint64_t value;
	uint64_t size;
	bool found;
};

enum { W_RUNTIME, W_VERSION, W_CODE_TYPE, W_NONE, W_NR };

/* The wanted symbol's index in the GNU hash table's dynsym, else 0 (index 0 is no symbol). */
static uint32_t gnu_hash_find(Elf *elf, const uint8_t *p, size_t len, Elf_Data *syms,
			      const GElf_Shdr *symsh, const char *name)
{
	size_t word = gelf_getclass(elf) == ELFCLASS64 ? 8 : 4, bits = word * 8;
	uint32_t head[4], h = 5381, sym, next;
	uint64_t bloom = 0, nsyms = symsh->sh_size / symsh->sh_entsize;
	size_t buckets, chain;

	for (const char *c = name; *c; c++)
		h = h * 33 + (uint8_t)*c;
	if (len < sizeof(head))
		return 0;
	/* nbuckets, symoffset, bloom words, bloom shift; bloom; buckets; chain */
	memcpy(head, p, sizeof(head));
	buckets = sizeof(head) + (size_t)head[2] * word;
	chain = buckets + (size_t)head[0] * 4;
	if (!head[0] || !head[2] || head[2] > len || head[3] >= 32 || chain > len)
		return 0;
	if (word == 8) {
		memcpy(&bloom, p + sizeof(head) + (h / bits % head[2]) * word, word);
	} else {
		uint32_t b32;

		memcpy(&b32, p + sizeof(head) + (h / bits % head[2]) * word, word);
		bloom = b32;
	}
	if (!(bloom >> (h % bits) & 1) || !(bloom >> ((h >> head[3]) % bits) & 1))
		return 0;
	memcpy(&sym, p + buckets + (size_t)(h % head[0]) * 4, 4);
	for (; sym >= head[1] && sym < nsyms; sym++) {
		size_t at = chain + (size_t)(sym - head[1]) * 4;
		GElf_Sym s;
		const char *n;

		if (at + 4 > len)
			return 0;
		memcpy(&next, p + at, 4);
		if ((next | 1) == (h | 1) && gelf_getsym(syms, (int)sym, &s) &&
		    (n = elf_strptr(elf, symsh->sh_link, s.st_name)) && !strcmp(n, name))
			return s.st_shndx == SHN_UNDEF ? 0 : sym;
		if (next & 1)
			return 0;
	}
	return 0;
}

/*
 * The wanted symbols by the file's GNU hash table (.gnu.hash), which holds
 * every symbol a file defines for others: a few lookups. Scanning .dynsym
 * read every symbol of every module the capture learned of, on its loop:
 * 3 to 9 ms for libclang-cpp's and libLLVM's 31 k and 45 k, while a new
 * clang's stacks waited for their tables. false: no such table (or one
 * not in this machine's byte order), and nothing found.
 */
static bool find_by_gnu_hash(Elf *elf, struct wanted *w)
{
	Elf_Scn *scn = NULL, *symscn;
	GElf_Shdr sh, symsh;
	Elf_Data *hash, *syms;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_DATA] !=
		    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB))
		return false;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_HASH)
			break;
	symscn = scn ? elf_getscn(elf, sh.sh_link) : NULL;
	if (!symscn || !gelf_getshdr(symscn, &symsh) || symsh.sh_type != SHT_DYNSYM ||
	    !symsh.sh_entsize)
		return false;
	hash = elf_rawdata(scn, NULL);
	syms = elf_getdata(symscn, NULL);
	if (!hash || !hash->d_buf || !syms)
		return false;
	for (int k = 0; k < W_NR; k++) {
		uint32_t i = gnu_hash_find(elf, hash->d_buf, hash->d_size, syms, &symsh, w[k].name);
		GElf_Sym s;

		if (i && gelf_getsym(syms, (int)i, &s)) {
			w[k].found = true;
			w[k].value = s.st_value;
			w[k].size = s.st_size;
		}
	}
	return true;
}

static void find_dynsyms(Elf *elf, struct wanted *w)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (find_by_gnu_hash(elf, w))
		return;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (int k = 0; name && k < W_NR; k++) {
				if (!w[k].found && !strcmp(name, w[k].name)) {
					w[k].found = true;
					w[k].value = sym.st_value;
					w[k].size = sym.st_size;
				}
			}
		}
	}
}

/* len bytes of the file's initialized data at vaddr. */
static bool read_vaddr(Elf *elf, uint64_t vaddr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (vaddr < sh.sh_addr || vaddr + len > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || vaddr - sh.sh_addr + len > d->d_size)
			return false;
		memcpy(buf, (const char *)d->d_buf + (vaddr - sh.sh_addr), len);
		return true;
	}
	return false;
}

int py_image_detect(int fd, struct py_image *ret)
{
	struct wanted w[W_NR] = {
		{"_PyRuntime"}, {"Py_Version"}, {"PyCode_Type"}, {"_Py_NoneStruct"}};
	static uint8_t dbg[PY_DEBUG_OFFSETS_313_LEN];
	struct py_debug_offsets d;
	uint8_t b[8];
	uint32_t version;
	uint64_t basicsize = 0;
	Elf *elf;

	memset(ret, 0, sizeof(*ret));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	find_dynsyms(elf, w);
	if (!w[W_RUNTIME].found || !w[W_VERSION].found)
		goto out;
	ret->runtime = w[W_RUNTIME].value;
	ret->kind = PY_IMAGE_UNREADABLE;
	if (!read_vaddr(elf, w[W_VERSION].value, b, 4))
		goto out;
	/* PY_VERSION_HEX: major, minor, micro, then release level and serial. */
	version =
		(uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	ret->major = version >> 24;
	ret->minor = (version >> 16) & 0xff;
	ret->micro = (version >> 8) & 0xff;
	ret->layout = ret->major == 3 ? py_layout_for(ret->minor) : NULL;
	if (!ret->layout) {
		ret->kind = PY_IMAGE_UNSUPPORTED;
		goto out;
	}
	/* PyTypeObject: ob_refcnt, ob_type, ob_size, tp_name, then tp_basicsize. */
	if (!w[W_CODE_TYPE].found || !read_vaddr(elf, w[W_CODE_TYPE].value + 32, b, 8))
		goto out;
	for (int i = 0; i < 8; i++)
		basicsize |= (uint64_t)b[i] << (8 * i);
	ret->code_type = w[W_CODE_TYPE].value;
	ret->kind = basicsize == ret->layout->code_type_basicsize ? PY_IMAGE_OK : PY_IMAGE_MISMATCH;
	if (ret->kind != PY_IMAGE_OK) {
		ret->why = "PyCode_Type.tp_basicsize";
		goto out;
	}
	if (ret->minor >= 13) {
		/*
		 * 3.13 publishes its offsets at _PyRuntime (a static initializer:
		 * in the file): the table is walked only where they agree.
		 */
		if (!w[W_NONE].found) {
			ret->kind = PY_IMAGE_UNREADABLE;
			goto out;
		}
		ret->none = w[W_NONE].value;
		if (!read_vaddr(elf, ret->runtime, dbg, sizeof(dbg))) {
			ret->kind = PY_IMAGE_UNREADABLE;
			goto out;
		}
		if (py_debug_offsets_313(dbg, sizeof(dbg), &d) != PY_DEBUG_OK) {
			ret->kind = PY_IMAGE_MISMATCH;
			ret->why = "_Py_DebugOffsets";
		} else if (!py_debug_offsets_agree(ret->layout, &d, &ret->why)) {
			ret->kind = PY_IMAGE_MISMATCH;
		}
	}
out:
	if (ret->kind != PY_IMAGE_OK)
		ret->layout = NULL;
	elf_end(elf);
	return 0;
}

const char *py_image_kind_name(enum py_image_kind k)
{
	switch (k) {
	case PY_IMAGE_OK:
		return "walked";
	case PY_IMAGE_UNSUPPORTED:
		return "unsupported version";
	case PY_IMAGE_MISMATCH:
		return "objects differ from the table";
	case PY_IMAGE_UNREADABLE:
		return "unreadable binary";
	default:
		return "not python";
	}
}
