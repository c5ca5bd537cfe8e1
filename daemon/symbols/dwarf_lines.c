// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF source lines and inline chains through libdw.
 *
 * The file is mapped (ELF_C_READ_MMAP) and its descriptor closed at once, so
 * an open dwarf_lines holds no file descriptor. Compilation units are found
 * through a table of their address ranges built on the first lookup, not
 * through .debug_aranges, which some producers (Go, clang) leave out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/containers.h"
#include "util/sorted.h"
#include "util/safe_open.h"
#include "symbols/debug_file.h"
#include "symbols/debuginfod_fetch.h"
#include "symbols/dwarf_lines.h"
#include "symbols/elf_file.h"

#ifdef HAVE_LIBDW

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>

/* An address range and the DIE (a compilation unit or a function) it belongs to. */
struct die_range {
	uint64_t start, end;
	uint64_t max_end; /* max end over this and every earlier range, once sorted */
	Dwarf_Die die;
	struct cu_funcs *funcs; /* compilation units: their functions */
};

/* The out-of-line functions of one compilation unit, indexed on first use. */
struct cu_funcs {
	struct die_range *v;
	size_t n, cap;
	bool built;
};

struct dwarf_lines {
	Elf *elf;
	Dwarf *dbg;
	char *path;
	struct die_range *ranges; /* of the compilation units */
	size_t nr_ranges, cap_ranges;
	struct cu_funcs **cus;
	size_t nr_cus, cap_cus;
	bool indexed;
};

/*
 * Let the pages of the mapped file that dwarf_begin_elf() read go: a debug
 * file's compressed sections were inflated whole into memory (Debian's
 * libc6-dbg: 3.7 MB of compressed pages a report kept resident beside the
 * 10 MB they inflate to), and a section read in place is read again when a
 * lookup reads it. MADV_PAGEOUT keeps the contents whatever the pages are
 * (libelf reads the file into memory when it cannot map it); a kernel
 * before 5.4 refuses it, and the pages stay.
 */
static void drop_mapped_pages(Elf *elf)
{
#ifdef MADV_PAGEOUT
	long page = sysconf(_SC_PAGESIZE);
	size_t size = 0;
	char *image = elf_rawfile(elf, &size);
	uintptr_t start = (uintptr_t)image, end = start + size;

	if (!image || page <= 0)
		return;
	start = (start + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	end &= ~((uintptr_t)page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_PAGEOUT);
#else
	(void)elf;
#endif
}

/*
 * Sections dwarf_begin_elf() would inflate whole that no lookup here reads:
 * variables' locations (libc6-dbg's .debug_loclists inflate to 1.4 MB),
 * address tables (the units' own ranges are read instead), name tables and
 * macros. Not .debug_frame: a file with it alone is a file with DWARF to
 * libdw (its separate debug file is then not looked for), as before.
 */
static const char *const unread_sections[] = {
	".debug_loc",	   ".debug_loclists", ".debug_aranges", ".debug_pubnames",
	".debug_pubtypes", ".debug_macinfo",  ".debug_macro",
};

/*
 * Hide the unread sections from libdw: it skips a section that belongs to a
 * group (SHF_GROUP) when it reads the file's global DWARF. Only libelf's
 * copy of the section header changes; the file is never written.
 */
static void hide_unread_sections(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *shdr = gelf_getshdr(scn, &mem);
		const char *name = shdr ? elf_strptr(elf, shstrndx, shdr->sh_name) : NULL;

		if (!name || (shdr->sh_flags & SHF_GROUP))
			continue;
		for (i = 0; i < sizeof(unread_sections) / sizeof(unread_sections[0]); i++) {
			if (!strcmp(name, unread_sections[i])) {
				shdr->sh_flags |= SHF_GROUP;
				gelf_update_shdr(scn, shdr);
				break;
			}
		}
	}
}

/* A mapped ELF and its descriptor-free DWARF, or -ENODATA when it has none. */
static int open_dwarf_fd(int fd, const uint8_t *want_id, size_t want_len, Elf **ret_elf,
			 Dwarf **ret_dbg)
{
	const void *id;
	Dwarf *dbg;
	Elf *elf;
	ssize_t len;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -ENODATA;
	}
	if (want_len) {
		len = dwelf_elf_gnu_build_id(elf, &id);
		if (len != (ssize_t)want_len || memcmp(id, want_id, want_len)) {
			elf_end(elf);
			return -ESTALE;
		}
	}
	hide_unread_sections(elf);
	dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dbg) {
		elf_end(elf);
		return -ENODATA;
	}
	/* Everything is mapped: libelf needs the descriptor no more. */
	elf_cntl(elf, ELF_C_FDDONE);
	drop_mapped_pages(elf);
	*ret_elf = elf;
	*ret_dbg = dbg;
	return 0;
}

/* A debug file the finder found is of use when libdw reads DWARF in it. */
static int take_dwarf(void *ctx, struct elf_file *f)
{
	struct dwarf_lines *dl = ctx;

	/* The finder has matched the build id already. */
	return open_dwarf_fd(f->fd, NULL, 0, &dl->elf, &dl->dbg);
}

/* The separate debug file, as gdb looks for it: build id, then .gnu_debuglink. */
static int find_debug_file(struct dwarf_lines *dl, Elf *elf, const char *path, const uint8_t *id,
			   size_t id_len, const char *debug_dir)
{
	struct debug_file_query q = {.path = path,
				     .elf = elf,
				     .build_id = id,
				     .build_id_len = id_len,
				     .debug_dir = debug_dir};
	int err = debug_file_find(&q, take_dwarf, dl, NULL, &dl->path);

	return err == -ENOENT ? -ENODATA : err;
}

/* The debug file by build id from debuginfod, within the fetcher's caps. */
static int fetch_debug_file(struct dwarf_lines *dl, struct debuginfod_fetcher *d, const uint8_t *id,
			    size_t id_len)
{
	char *got = NULL;
	int fd, err;

	if (!d || !id_len)
		return -ENODATA;
	fd = debuginfod_fetcher__fetch(d, id, id_len, &got);
	if (fd < 0)
		return fd;
	err = open_dwarf_fd(fd, id, id_len, &dl->elf, &dl->dbg);
	close(fd);
	if (err) {
		free(got);
		return err == -ESTALE ? -ESTALE : -ENODATA;
	}
	dl->path = got ? got : strdup("debuginfod");
	return dl->path ? 0 : -ENOMEM;
}

/*
 * path's ELF (NULL when there is none; *ret_fd its descriptor, or -1), and
 * the build id to want of its DWARF: the recorded one, else the file's own
 * (copied into own_id).
 */
static Elf *open_module_elf(const char *path, int *ret_fd, uint8_t own_id[ELF_BUILD_ID_MAX],
			    const uint8_t **id, size_t *id_len)
{
	Elf *elf = NULL;
	int fd = -1;

	if (path) {
		fd = safe_open_regular(path, NULL);
		if (fd >= 0)
			elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf && elf_kind(elf) != ELF_K_ELF) {
			elf_end(elf);
			elf = NULL;
		}
	}
	if (elf && !*id_len) {
		const void *p;
		ssize_t n = dwelf_elf_gnu_build_id(elf, &p);

		if (n > 0 && (size_t)n <= ELF_BUILD_ID_MAX) {
			memcpy(own_id, p, (size_t)n);
			*id = own_id;
			*id_len = (size_t)n;
		}
	}
	*ret_fd = fd;
	return elf;
}

struct dwarf_lines *dwarf_lines__open(const char *path, const uint8_t *build_id,
				      size_t build_id_len, const struct dwarf_lines_opts *opts,
				      int *ret_fetch_err)
{
	const char *debug_dir = opts && opts->debug_dir ? opts->debug_dir : ELF_DEBUG_DIR;
	struct dwarf_lines *dl;
	uint8_t own_id[ELF_BUILD_ID_MAX];
	const uint8_t *id = build_id;
	size_t id_len = build_id_len;
	Elf *elf = NULL;
	int fd = -1, err;

	if (ret_fetch_err)
		*ret_fetch_err = 0;
	elf_version(EV_CURRENT);
	dl = calloc(1, sizeof(*dl));
	if (!dl) {
		errno = ENOMEM;
		return NULL;
	}
	elf = open_module_elf(path, &fd, own_id, &id, &id_len);
	err = -ENODATA;
	/* The file's own DWARF, when it is the recorded build. */
	if (elf && !open_dwarf_fd(fd, id, id_len, &dl->elf, &dl->dbg)) {
		dl->path = strdup(path);
		err = dl->path ? 0 : -ENOMEM;
	}
	if (err == -ENODATA)
		err = find_debug_file(dl, elf, path, id, id_len, debug_dir);
	if (err == -ENODATA && opts && opts->debuginfod) {
		err = fetch_debug_file(dl, opts->debuginfod, id, id_len);
		if (err && err != -ENOMEM && ret_fetch_err)
			*ret_fetch_err = err;
		if (err && err != -ENOMEM)
			err = -ENODATA;
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (err) {
		dwarf_lines__free(dl);
		errno = -err;
		return NULL;
	}
	return dl;
}

void dwarf_lines__free(struct dwarf_lines *dl)
{
	if (!dl)
		return;
	if (dl->dbg)
		dwarf_end(dl->dbg);
	elf_end(dl->elf);
	while (dl->nr_cus--) {
		free(dl->cus[dl->nr_cus]->v);
		free(dl->cus[dl->nr_cus]);
	}
	free(dl->cus);
	free(dl->ranges);
	free(dl->path);
	free(dl);
}

const char *dwarf_lines__path(const struct dwarf_lines *dl)
{
	return dl->path;
}

/* Whether the ELF has a section libdw could read DWARF from (its own, compressed, LTO's). */
static bool has_debug_sections(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *shdr = gelf_getshdr(scn, &mem);
		const char *name = shdr ? elf_strptr(elf, shstrndx, shdr->sh_name) : NULL;

		if (name && shdr->sh_type != SHT_NOBITS &&
		    (!strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8) ||
		     !strncmp(name, ".gnu.debuglto_.debug", 20)))
			return true;
	}
	return false;
}

static int take_if_debug_sections(void *ctx, struct elf_file *f)
{
	(void)ctx;
	return has_debug_sections(f->elf) ? 0 : -ENODATA;
}

int dwarf_lines__probe(const char *path, const uint8_t *build_id, size_t build_id_len,
		       const struct dwarf_lines_opts *opts)
{
	const char *debug_dir = opts && opts->debug_dir ? opts->debug_dir : ELF_DEBUG_DIR;
	struct debug_file_query q = {.path = path, .debug_dir = debug_dir};
	uint8_t own_id[ELF_BUILD_ID_MAX];
	const uint8_t *id = build_id;
	size_t id_len = build_id_len;
	Elf *elf = NULL;
	char *found = NULL;
	int fd = -1, ret = 0, err;

	elf_version(EV_CURRENT);
	elf = open_module_elf(path, &fd, own_id, &id, &id_len);
	if (elf && has_debug_sections(elf)) {
		const void *p;
		ssize_t n = id_len ? dwelf_elf_gnu_build_id(elf, &p) : 0;

		ret = !id_len || (n == (ssize_t)id_len && !memcmp(p, id, id_len));
	}
	if (!ret) {
		q.elf = elf;
		q.build_id = id;
		q.build_id_len = id_len;
		err = debug_file_find(&q, take_if_debug_sections, NULL, NULL, &found);
		free(found);
		ret = err == -ENOMEM ? -ENOMEM : !err;
	}
	/* debuginfod may have it: only a fetch tells */
	if (!ret && opts && opts->debuginfod && id_len)
		ret = 1;
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ret;
}

static int range_order(const void *pa, const void *pb)
{
	const struct die_range *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static int add_range(struct die_range **v, size_t *n, size_t *cap, uint64_t start, uint64_t end,
		     const Dwarf_Die *die, struct cu_funcs *funcs)
{
	struct die_range *r;

	if (array_reserve((void **)v, cap, *n, sizeof(**v)))
		return -ENOMEM;
	r = &(*v)[(*n)++];
	r->start = start;
	r->end = end;
	r->die = *die;
	r->funcs = funcs;
	return 0;
}

/* Every range of die, appended. */
static int add_die_ranges(struct die_range **v, size_t *n, size_t *cap, Dwarf_Die *die,
			  struct cu_funcs *funcs)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int err;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		err = add_range(v, n, cap, start, end, die, funcs);
		if (err)
			return err;
	}
	return 0;
}

static void sort_ranges(struct die_range *v, size_t n)
{
	uint64_t max_end = 0;
	size_t i;

	if (n)
		qsort(v, n, sizeof(*v), range_order);
	for (i = 0; i < n; i++) {
		if (v[i].end > max_end)
			max_end = v[i].end;
		v[i].max_end = max_end;
	}
}

/* Every compilation unit's address ranges, sorted by start. */
static int build_index(struct dwarf_lines *dl)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t unit_type;
	int err;

	dl->indexed = true;
	while (!dwarf_get_units(dl->dbg, cu, &cu, &version, &unit_type, &cudie, &subdie)) {
		struct cu_funcs *funcs;

		if (unit_type == DW_UT_skeleton || unit_type == DW_UT_split_compile)
			continue;
		if (dwarf_tag(&cudie) != DW_TAG_compile_unit &&
		    dwarf_tag(&cudie) != DW_TAG_partial_unit)
			continue;
		if (array_reserve((void **)&dl->cus, &dl->cap_cus, dl->nr_cus, sizeof(*dl->cus)))
			return -ENOMEM;
		funcs = calloc(1, sizeof(*funcs));
		if (!funcs)
			return -ENOMEM;
		dl->cus[dl->nr_cus++] = funcs;
		err = add_die_ranges(&dl->ranges, &dl->nr_ranges, &dl->cap_ranges, &cudie, funcs);
		if (err)
			return err;
	}
	sort_ranges(dl->ranges, dl->nr_ranges);
	return 0;
}

/*
 * The functions of a compilation unit, at its top level or inside the
 * namespaces, modules and classes that hold them (C++, Rust).
 */
static int index_funcs(struct cu_funcs *f, Dwarf_Die *parent)
{
	Dwarf_Die child;
	int err = 0;

	if (dwarf_child(parent, &child))
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			err = add_die_ranges(&f->v, &f->n, &f->cap, &child, NULL);
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			err = index_funcs(f, &child);
			break;
		default:
			break;
		}
	} while (!err && !dwarf_siblingof(&child, &child));
	return err;
}

static int cmp_range_start(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, e = ((const struct die_range *)elem)->start;

	return (k > e) - (k < e);
}

/* The range of v[0..n) (sorted) holding addr, or NULL. */
static struct die_range *find_range(struct die_range *v, size_t n, uint64_t addr)
{
	size_t i = sorted_upper(v, n, sizeof(*v), &addr, cmp_range_start);

	while (i-- > 0) {
		if (v[i].max_end <= addr)
			break;
		if (addr < v[i].end)
			return &v[i];
	}
	return NULL;
}

#define MAX_SCOPES 64

/*
 * The DIEs holding addr from fn down, outermost first: the function, then
 * the lexical blocks and inlined subroutines nested in it.
 */
static int scope_path(Dwarf_Die *fn, uint64_t addr, Dwarf_Die *path)
{
	Dwarf_Die child;
	int n = 1;

	path[0] = *fn;
	while (n < MAX_SCOPES && !dwarf_child(&path[n - 1], &child)) {
		bool found = false;

		do {
			if (dwarf_haspc(&child, addr) == 1) {
				path[n++] = child;
				found = true;
				break;
			}
		} while (!dwarf_siblingof(&child, &child));
		if (!found)
			break;
	}
	return n;
}

static const char *die_function_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return name;
}

static void fill_frame(struct dwarf_frame *f, Dwarf_Die *die, const char *file, unsigned line)
{
	int decl_line = 0;

	f->function = die_function_name(die);
	f->file = file;
	f->line = line;
	f->decl_file = dwarf_decl_file(die);
	f->decl_line = dwarf_decl_line(die, &decl_line) ? 0 : (unsigned)decl_line;
}

int dwarf_lines__lookup(struct dwarf_lines *dl, uint64_t file_vaddr, struct dwarf_frame *frames,
			unsigned max)
{
	Dwarf_Die scopes[MAX_SCOPES], *cu;
	struct die_range *cr, *fr;
	Dwarf_Files *files = NULL;
	const char *file = NULL;
	Dwarf_Line *dline;
	unsigned line = 0, n = 0;
	size_t nfiles = 0;
	int nscopes, i, err;

	if (!dl->indexed) {
		err = build_index(dl);
		if (err)
			return err;
	}
	cr = find_range(dl->ranges, dl->nr_ranges, file_vaddr);
	if (!cr || !max)
		return 0;
	cu = &cr->die;
	if (!cr->funcs->built) {
		cr->funcs->built = true;
		err = index_funcs(cr->funcs, cu);
		if (err)
			return err;
		sort_ranges(cr->funcs->v, cr->funcs->n);
	}
	fr = find_range(cr->funcs->v, cr->funcs->n, file_vaddr);
	if (!fr)
		return 0;
	dline = dwarf_getsrc_die(cu, file_vaddr);
	if (dline) {
		int l = 0;

		file = dwarf_linesrc(dline, NULL, NULL);
		if (!dwarf_lineno(dline, &l) && l > 0)
			line = (unsigned)l;
	}
	/*
	 * The DIEs that physically contain the pc are the inline chain, as
	 * eu-addr2line -i walks it (dwarf_getscopes() would continue from an
	 * inlined instance into its abstract definition instead, and walk the
	 * whole unit to do so).
	 */
	nscopes = scope_path(&fr->die, file_vaddr, scopes);
	for (i = nscopes - 1; i >= 0 && n < max; i--) {
		Dwarf_Die *scope = &scopes[i];
		int tag = dwarf_tag(scope);
		Dwarf_Attribute attr;
		Dwarf_Word v;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram &&
		    tag != DW_TAG_entry_point)
			continue;
		fill_frame(&frames[n++], scope, file, line);
		if (tag != DW_TAG_inlined_subroutine)
			break;
		/* The caller executes at the inlined call's site. */
		file = NULL;
		line = 0;
		if (!dwarf_formudata(dwarf_attr(scope, DW_AT_call_file, &attr), &v) &&
		    (files || !dwarf_getsrcfiles(cu, &files, &nfiles)) && v < nfiles)
			file = dwarf_filesrc(files, v, NULL, NULL);
		if (!dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &attr), &v))
			line = (unsigned)v;
	}
	return (int)n;
}

#else /* !HAVE_LIBDW */

struct dwarf_lines *dwarf_lines__open(const char *path, const uint8_t *build_id,
				      size_t build_id_len, const struct dwarf_lines_opts *opts,
				      int *ret_fetch_err)
{
	if (ret_fetch_err)
		*ret_fetch_err = 0;
	errno = EOPNOTSUPP;
	return NULL;
}

void dwarf_lines__free(struct dwarf_lines *dl)
{
}

const char *dwarf_lines__path(const struct dwarf_lines *dl)
{
	return NULL;
}

int dwarf_lines__probe(const char *path, const uint8_t *build_id, size_t build_id_len,
		       const struct dwarf_lines_opts *opts)
{
	return 0;
}

int dwarf_lines__lookup(struct dwarf_lines *dl, uint64_t file_vaddr, struct dwarf_frame *frames,
			unsigned max)
{
	return 0;
}

#endif /* HAVE_LIBDW */
