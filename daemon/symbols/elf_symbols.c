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
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/debug_file.h"
#include "symbols/elf_file.h"
#include "symbols/elf_symbols.h"
#include "util/sorted.h"

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
		data = elf_section_data(scn, &shdr);
		str = elf_section_data(str_scn, &str_shdr);
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

/* A debug file is of use here when it has the .symtab its stripped twin lacks. */
static int take_symtab(void *ctx, struct elf_file *f)
{
	(void)ctx;
	return elf_has_section_type(f->elf, SHT_SYMTAB) ? 0 : -ENODATA;
}

static struct elf_symbols *load(struct elf_file *f, const GElf_Ehdr *ehdr, const char *path,
				const char *name, const struct elf_symbols_opts *opts)
{
	struct elf_file dbg = {.fd = -1};
	struct debug_file_query dq = {
		.path = path, .elf = f->elf, .debug_dir = opts ? opts->debug_dir : NULL};
	struct raw_syms rs = {};
	struct elf_symbols *es;
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
	elf_find_build_id(f->elf, es->build_id, &es->build_id_len);
	if (!es->build_id_len)
		es->go_build_id = elf_find_go_build_id(f->elf);

	dq.build_id = es->build_id;
	dq.build_id_len = es->build_id_len;
	if (opts && opts->no_symbols)
		goto out;
	if (elf_has_section_type(f->elf, SHT_SYMTAB)) {
		err = load_symtab(f->elf, SHT_SYMTAB, &rs);
	} else if (!(opts && opts->no_debug_file) &&
		   !debug_file_find(&dq, take_symtab, NULL, &dbg, &es->debug_path)) {
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
