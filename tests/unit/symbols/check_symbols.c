// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of elf_symbols and symbolizer.
 *
 * The ELF fixtures are built here, at run time, from a small C source with
 * the machine's gcc/objcopy/strip, so they match the toolchain the profiler
 * meets; the expected addresses come from nm and readelf, not from libelf.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf_symbols.h"
#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "capture/proc_maps.h"
#include "symbols/symbolizer.h"

#include "elf_type.h"
#include "fixture.h"
#include "check_main.h"

/* ---- fixtures ---- */

static const char fixture_src[] =
	"static volatile int counter;\n"
	"__attribute__((noinline)) static int fxs_static_leaf(int x)\n"
	"{ counter += x; return counter * 3; }\n"
	"__attribute__((noinline)) int fxs_alpha(int x) { return fxs_static_leaf(x) + 1; }\n"
	"__attribute__((noinline)) int fxs_beta(int x) { return fxs_alpha(x) * 2; }\n"
	/* An unsized symbol, then a sized one nesting another. */
	"__asm__(\".text\\n\"\n"
	"\".globl fxs_nosize\\n.type fxs_nosize, %function\\nfxs_nosize:\\n\"\n"
	"\"\\tnop\\n\\tnop\\n\\tnop\\n\\tnop\\n\\tret\\n\"\n"
	"\".globl fxs_outer\\n.type fxs_outer, %function\\nfxs_outer:\\n\\tnop\\n\\tnop\\n\"\n"
	"\".globl fxs_inner\\n.type fxs_inner, %function\\nfxs_inner:\\n\\tnop\\n\\tnop\\n\"\n"
	"\".Linner_end:\\n.size fxs_inner, .Linner_end - fxs_inner\\n\"\n"
	"\"\\tnop\\n\\tnop\\n\\tret\\n.size fxs_outer, . - fxs_outer\\n\");\n"
	"int main(int argc, char **argv) { return fxs_beta(argc) > 100; }\n";

static const char lib_src[] =
	"__attribute__((noinline)) static int fxs_lib_hidden(int x) { return x * 7 + 1; }\n"
	"int fxs_lib_exported(int x) { return fxs_lib_hidden(x) - 2; }\n";

/* Build ids given to the linker, so the expected bytes are known. */
#define ID_PIE	 "0123456789abcdef0123456789abcdef01234567"
#define ID_NOPIE "1123456789abcdef0123456789abcdef01234567"
#define ID_STRIP "2123456789abcdef0123456789abcdef01234567"
#define ID_GZ	 "3123456789abcdef0123456789abcdef01234567"
#define ID_MIS	 "4123456789abcdef0123456789abcdef01234567"
#define ID_LIB	 "5123456789abcdef"

static char debug_dir[PATH_MAX + 32];
static char empty_dir[PATH_MAX + 32];
static bool gz_symtab_compressed, gz_debug_compressed;

static size_t hex_to_bytes(const char *hex, uint8_t *out)
{
	size_t n = 0;

	while (hex[0] && hex[1]) {
		unsigned v;

		sscanf(hex, "%2x", &v);
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

/* Compress the named sections of an ELF file in place, as eu-elfcompress -n does. */
static bool compress_sections(const char *path, const char *const *names)
{
	bool any = false;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *e;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_RDWR, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx)) {
		close(fd);
		return false;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;
		unsigned i;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(e, shstrndx, sh.sh_name);
		for (i = 0; n && names[i]; i++)
			if (!strcmp(n, names[i]) && elf_compress(scn, ELFCOMPRESS_ZLIB, 0) == 1)
				any = true;
	}
	if (elf_update(e, ELF_C_WRITE) < 0)
		any = false;
	elf_end(e);
	close(fd);
	return any;
}

/* Whether the named section of a file has SHF_COMPRESSED, read with libelf. */
static bool section_compressed(const char *path, const char *name)
{
	bool ret = false;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *e;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getshdrstrndx(e, &shstrndx)) {
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
			    !strcmp(n, name))
				ret = sh.sh_flags & SHF_COMPRESSED;
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

static void build_fixtures(void)
{
	const char *const symtab_names[] = {".symtab", ".strtab", NULL};
	const char *cc = getenv("FXS_TEST_CC") ?: "gcc";
	const char *flags = "-O1 -g -fno-inline -fno-omit-frame-pointer";
	char realdir[PATH_MAX];
	int err = 0;

	snprintf(tmpdir, sizeof(tmpdir), "%s/fxs_symbols.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(EXIT_FAILURE);
	}
	snprintf(debug_dir, sizeof(debug_dir), "%s/debug", tmpdir);
	snprintf(empty_dir, sizeof(empty_dir), "%s/empty", tmpdir);
	write_file(fx("prog.c"), fixture_src);
	write_file(fx("lib.c"), lib_src);
	write_file(fx("not_elf"), "#!/bin/sh\necho hello\n");
	if (!realpath(tmpdir, realdir)) {
		perror("realpath");
		exit(EXIT_FAILURE);
	}

	err |= run("cd %s && mkdir -p debug empty .debug", tmpdir);
	err |= run("cd %s && %s %s -fPIE -pie -Wl,--build-id=0x%s prog.c -o pie", tmpdir, cc, flags,
		   ID_PIE);
	err |= run("cd %s && %s %s -fno-pie -no-pie -Wl,--build-id=0x%s prog.c -o nopie", tmpdir,
		   cc, flags, ID_NOPIE);
	err |= run("cd %s && %s %s -fPIC -shared -Wl,--build-id=0x%s lib.c -o lib.so && "
		   "cp lib.so lib_stripped.so && strip --strip-all lib_stripped.so",
		   tmpdir, cc, flags, ID_LIB);
	/* Stripped, with its symbols in <debug>/.build-id/xx/yyy.debug. */
	err |= run(
		"cd %s && %s %s -Wl,--build-id=0x%s prog.c -o stripped && "
		"objcopy --only-keep-debug stripped stripped.debug && strip --strip-all stripped "
		"&& "
		"mkdir -p debug/.build-id/%.2s && cp stripped.debug debug/.build-id/%.2s/%s.debug",
		tmpdir, cc, flags, ID_STRIP, ID_STRIP, ID_STRIP, &ID_STRIP[2]);
	/* Compressed DWARF (-gz), and a debug file whose .symtab is compressed too. */
	err |= run("cd %s && %s %s -gz=zlib -Wl,--build-id=0x%s prog.c -o gz && "
		   "cp gz gz_full && objcopy --only-keep-debug gz gz.debug && strip --strip-all gz",
		   tmpdir, cc, flags, ID_GZ);
	if (!err) {
		gz_symtab_compressed = compress_sections(fx("gz.debug"), symtab_names);
		gz_debug_compressed = section_compressed(fx("gz.debug"), ".debug_info");
		err |= run("cd %s && mkdir -p debug/.build-id/%.2s && "
			   "cp gz.debug debug/.build-id/%.2s/%s.debug",
			   tmpdir, ID_GZ, ID_GZ, &ID_GZ[2]);
	}
	/* A stripped binary whose build-id debug file belongs to another build. */
	err |= run("cd %s && %s %s -Wl,--build-id=0x%s prog.c -o mismatch && "
		   "strip --strip-all mismatch && mkdir -p debug/.build-id/%.2s && "
		   "cp stripped.debug debug/.build-id/%.2s/%s.debug",
		   tmpdir, cc, flags, ID_MIS, ID_MIS, ID_MIS, &ID_MIS[2]);
	/* .gnu_debuglink without build ids: same dir, .debug/, under the debug root. */
	err |= run("cd %s && %s %s -Wl,--build-id=none prog.c -o linked && "
		   "objcopy --only-keep-debug linked linked.debug && strip --strip-all linked && "
		   "objcopy --add-gnu-debuglink=linked.debug linked && "
		   "cp linked linked_sub && cp linked.debug .debug/linked.debug && "
		   "cp linked linked_bad && "
		   "mkdir -p debug%s && cp linked linked_root && cp linked.debug debug%s/",
		   tmpdir, cc, flags, realdir, realdir);
	/* linked_sub and linked_root must not find linked.debug beside them. */
	err |= run("cd %s && mkdir sub root bad && mv linked_sub sub/linked && "
		   "mv .debug sub/ && mv linked_root root/linked && mkdir -p debug%s/root && "
		   "mv debug%s/linked.debug debug%s/root/ && mv linked_bad bad/linked && "
		   "cp prog.c other.c && echo 'int fxs_other_marker = 1;' >> other.c && "
		   "%s %s -Wl,--build-id=none other.c -o other && "
		   "objcopy --only-keep-debug other bad/linked.debug",
		   tmpdir, realdir, realdir, realdir, cc, flags);
	if (err) {
		fprintf(stderr, "cannot build the ELF fixtures in %s\n", tmpdir);
		exit(EXIT_FAILURE);
	}
}

static void remove_fixtures(void)
{
	if (tmpdir[0] && !getenv("FXS_KEEP_FIXTURES"))
		run("rm -rf '%s'", tmpdir);
}

/* nm's view of one fixture, read once per binary (forked tests each read their own). */
struct nm_table {
	char bin[PATH_MAX + 64];
	struct nm_entry {
		char name[64];
		uint64_t addr, size;
	} e[64];
	unsigned n;
};

/* Address and size of a symbol as nm prints them; size 0 when nm shows none. */
static bool nm_sym(const char *bin, const char *name, uint64_t *addr, uint64_t *size)
{
	static struct nm_table tables[12];
	static unsigned nr_tables;
	struct nm_table *t = NULL;
	char cmd[PATH_MAX + 64], line[512];
	unsigned i;
	FILE *p;

	for (i = 0; i < nr_tables && !t; i++)
		if (!strcmp(tables[i].bin, bin))
			t = &tables[i];
	if (!t) {
		ck_assert_uint_lt(nr_tables, 12);
		t = &tables[nr_tables++];
		snprintf(t->bin, sizeof(t->bin), "%s", bin);
		snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", bin);
		p = popen(cmd, "r");
		ck_assert_ptr_nonnull(p);
		while (fgets(line, sizeof(line), p)) {
			char f1[64], f2[64], f3[64], f4[64];
			int n = sscanf(line, "%63s %63s %63s %63s", f1, f2, f3, f4);
			struct nm_entry *e = &t->e[t->n];

			if (strncmp(n == 4 ? f4 : f3, "fxs_", 4) &&
			    strcmp(n == 4 ? f4 : f3, "main"))
				continue;
			ck_assert_uint_lt(t->n, 64);
			snprintf(e->name, sizeof(e->name), "%s", n == 4 ? f4 : f3);
			e->addr = strtoull(f1, NULL, 16);
			e->size = n == 4 ? strtoull(f2, NULL, 16) : 0;
			t->n++;
		}
		pclose(p);
	}
	for (i = 0; i < t->n; i++) {
		if (!strcmp(t->e[i].name, name)) {
			*addr = t->e[i].addr;
			*size = t->e[i].size;
			return true;
		}
	}
	return false;
}

static uint64_t nm_addr(const char *bin, const char *name)
{
	uint64_t addr = 0, size;

	ck_assert_msg(nm_sym(bin, name, &addr, &size), "nm: no %s in %s", name, bin);
	return addr;
}

static void assert_lookup(const struct elf_symbols *es, uint64_t vaddr, const char *want,
			  uint64_t want_off)
{
	uint64_t off = ~0ULL;
	const char *got = elf_symbols__lookup(es, vaddr, &off);

	ck_assert_msg(got && !strcmp(got, want), "0x%" PRIx64 ": want %s, got %s", vaddr, want,
		      got ?: "(null)");
	ck_assert_uint_eq(off, want_off);
}

/* The sized functions of the fixture resolve on their first and last byte only. */
static void assert_fixture_symbols(const struct elf_symbols *es, const char *bin)
{
	static const char *const names[] = {"fxs_alpha", "fxs_beta", "fxs_static_leaf", "main"};
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t addr, size;
		const char *after;

		ck_assert(nm_sym(bin, names[i], &addr, &size));
		ck_assert_uint_gt(size, 0);
		assert_lookup(es, addr, names[i], 0);
		assert_lookup(es, addr + size - 1, names[i], size - 1);
		after = elf_symbols__lookup(es, addr + size, NULL);
		ck_assert(!after || strcmp(after, names[i]));
	}
}

/* ---- elf_symbols ---- */

/*
 * The build id of the ELF file at path, or (path NULL) of the image data, as
 * the product reads it: elf_symbols__build_id() of the object opened without
 * debug files. Copied into buf (ELF_BUILD_ID_MAX bytes); returns its length,
 * 0 when it has none, -errno when the object does not open.
 */
static int read_build_id(const char *path, const void *data, size_t size, uint8_t *buf)
{
	const struct elf_symbols_opts opts = {.no_debug_file = true};
	struct elf_symbols *es = path ? elf_symbols__open(path, &opts)
				      : elf_symbols__open_mem(data, size, NULL, &opts);
	const uint8_t *id;
	size_t len = 0;

	if (!es)
		return -errno;
	id = elf_symbols__build_id(es, &len);
	if (id)
		memcpy(buf, id, len);
	elf_symbols__free(es);
	return id ? (int)len : 0;
}

START_TEST(test_elf_pie)
{
	struct elf_symbols *es = elf_symbols__open(fx("pie"), NULL);
	uint8_t want[32];
	const uint8_t *id;
	size_t len = 0;

	ck_assert_ptr_nonnull(es);
	ck_assert_uint_eq(elf_file_type(fx("pie")), ET_DYN);
	ck_assert_str_eq(elf_symbols__path(es), fx("pie"));
	ck_assert_ptr_null(elf_symbols__debug_path(es));
	id = elf_symbols__build_id(es, &len);
	ck_assert_ptr_nonnull(id);
	ck_assert_uint_eq(len, hex_to_bytes(ID_PIE, want));
	ck_assert_mem_eq(id, want, len);
	assert_fixture_symbols(es, fx("pie"));
	ck_assert_ptr_null(elf_symbols__lookup(es, 0, NULL));
	ck_assert_ptr_null(elf_symbols__lookup(es, UINT64_MAX, NULL));
	elf_symbols__free(es);
}
END_TEST

/*
 * What a capture opens every module for: its build id and load segments,
 * the same as with symbols, and no symbol loaded (no_symbols).
 */
START_TEST(test_elf_no_symbols)
{
	const struct elf_symbols_opts opts = {.no_debug_file = true, .no_symbols = true};
	struct elf_symbols *all = elf_symbols__open(fx("pie"), NULL);
	struct elf_symbols *es = elf_symbols__open(fx("pie"), &opts);
	const struct elf_segment *a, *b;
	size_t len = 0, len_all = 0, n;
	const uint8_t *id, *id_all;

	ck_assert_ptr_nonnull(all);
	ck_assert_ptr_nonnull(es);
	ck_assert_uint_gt(elf_symbols__count(all), 0);
	ck_assert_uint_eq(elf_symbols__count(es), 0);
	ck_assert_ptr_null(elf_symbols__lookup(es, 0x1000, NULL));
	id = elf_symbols__build_id(es, &len);
	id_all = elf_symbols__build_id(all, &len_all);
	ck_assert_ptr_nonnull(id);
	ck_assert_uint_eq(len, len_all);
	ck_assert_mem_eq(id, id_all, len);
	n = elf_symbols__segments(es, &b);
	ck_assert_uint_eq(n, elf_symbols__segments(all, &a));
	ck_assert_mem_eq(a, b, n * sizeof(*a));
	elf_symbols__free(es);
	elf_symbols__free(all);
}
END_TEST

START_TEST(test_elf_nopie)
{
	struct elf_symbols *es = elf_symbols__open(fx("nopie"), NULL);

	ck_assert_ptr_nonnull(es);
	ck_assert_uint_eq(elf_file_type(fx("nopie")), ET_EXEC);
	/* Absolute addresses: the binary is not relocated. */
	ck_assert_uint_ge(nm_addr(fx("nopie"), "fxs_alpha"), 0x400000);
	assert_fixture_symbols(es, fx("nopie"));
	elf_symbols__free(es);
}
END_TEST

START_TEST(test_elf_unsized_and_nested)
{
	struct elf_symbols *es = elf_symbols__open(fx("pie"), NULL);
	uint64_t nosize = nm_addr(fx("pie"), "fxs_nosize");
	uint64_t outer = nm_addr(fx("pie"), "fxs_outer");
	uint64_t inner = nm_addr(fx("pie"), "fxs_inner");
	uint64_t outer_size = 0, inner_size = 0, start = 0, size = 0, v;

	ck_assert_ptr_nonnull(es);
	ck_assert(nm_sym(fx("pie"), "fxs_outer", &outer, &outer_size));
	ck_assert(nm_sym(fx("pie"), "fxs_inner", &inner, &inner_size));
	ck_assert_uint_gt(outer, nosize);
	ck_assert_uint_gt(inner, outer);
	ck_assert_uint_lt(inner + inner_size, outer + outer_size);

	/* An unsized symbol covers everything up to the next one. */
	for (v = nosize; v < outer; v++)
		assert_lookup(es, v, "fxs_nosize", v - nosize);
	ck_assert_int_eq(elf_symbols__lookup_addr(es, nosize + 1, &start, &size), 0);
	ck_assert_uint_eq(start, nosize);
	ck_assert_uint_eq(size, outer - nosize);

	assert_lookup(es, outer, "fxs_outer", 0);
	assert_lookup(es, inner, "fxs_inner", 0);
	assert_lookup(es, inner + inner_size - 1, "fxs_inner", inner_size - 1);
	/* Past the nested symbol, the enclosing one covers the pc again. */
	assert_lookup(es, inner + inner_size, "fxs_outer", inner + inner_size - outer);
	assert_lookup(es, outer + outer_size - 1, "fxs_outer", outer_size - 1);
	elf_symbols__free(es);
}
END_TEST

START_TEST(test_elf_segments)
{
	struct elf_symbols *es = elf_symbols__open(fx("pie"), NULL);
	const struct elf_segment *segs;
	char cmd[PATH_MAX + 32], line[512];
	size_t n, i = 0;
	FILE *p;

	ck_assert_ptr_nonnull(es);
	n = elf_symbols__segments(es, &segs);
	ck_assert_uint_ge(n, 2);
	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", fx("pie"));
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long off, vaddr, paddr, filesz, memsz;
		unsigned flags = 0;
		char *tok, *save = NULL;
		int field = 0;

		if (sscanf(line, " LOAD %llx %llx %llx %llx %llx", &off, &vaddr, &paddr, &filesz,
			   &memsz) != 5)
			continue;
		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			if (++field <= 6 || !strncmp(tok, "0x", 2))
				continue;
			flags |= strchr(tok, 'R') ? PF_R : 0;
			flags |= strchr(tok, 'W') ? PF_W : 0;
			flags |= strchr(tok, 'E') ? PF_X : 0;
		}
		ck_assert_uint_lt(i, n);
		ck_assert_uint_eq(segs[i].offset, off);
		ck_assert_uint_eq(segs[i].vaddr, vaddr);
		ck_assert_uint_eq(segs[i].filesz, filesz);
		ck_assert_uint_eq(segs[i].memsz, memsz);
		ck_assert_uint_eq(segs[i].flags, flags);
		i++;
	}
	pclose(p);
	ck_assert_uint_eq(i, n);

	/* A maps line's page-aligned offset gives back the segment's p_vaddr. */
	for (i = 0; i < n; i++) {
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		uint64_t floor = segs[i].offset & ~(page - 1), got = 0;

		ck_assert_int_eq(elf_symbols__offset_to_vaddr(es, floor, segs[i].flags, &got), 0);
		ck_assert_uint_eq(got, segs[i].vaddr - (segs[i].offset - floor));
	}
	ck_assert_int_eq(elf_symbols__offset_to_vaddr(es, 1ULL << 40, 0, &i), -ENOENT);
	elf_symbols__free(es);
}
END_TEST

START_TEST(test_elf_shared_lib)
{
	struct elf_symbols *full = elf_symbols__open(fx("lib.so"), NULL);
	struct elf_symbols *stripped = elf_symbols__open(fx("lib_stripped.so"), NULL);
	uint64_t hidden = nm_addr(fx("lib.so"), "fxs_lib_hidden");
	uint64_t exported = nm_addr(fx("lib.so"), "fxs_lib_exported");
	const char *name;

	ck_assert_ptr_nonnull(full);
	ck_assert_ptr_nonnull(stripped);
	ck_assert_uint_eq(elf_file_type(fx("lib.so")), ET_DYN);
	assert_lookup(full, hidden, "fxs_lib_hidden", 0);
	assert_lookup(full, exported, "fxs_lib_exported", 0);
	/* Stripped: .dynsym still has the export, the static function is gone. */
	assert_lookup(stripped, exported, "fxs_lib_exported", 0);
	name = elf_symbols__lookup(stripped, hidden, NULL);
	ck_assert(!name || strcmp(name, "fxs_lib_hidden"));
	elf_symbols__free(full);
	elf_symbols__free(stripped);
}
END_TEST

START_TEST(test_elf_build_id_debug_file)
{
	struct elf_symbols_opts none = {.debug_dir = empty_dir};
	struct elf_symbols_opts dbg = {.debug_dir = debug_dir};
	struct elf_symbols *es;
	uint64_t alpha = nm_addr(fx("stripped.debug"), "fxs_alpha");
	char want_path[PATH_MAX * 2];

	es = elf_symbols__open(fx("stripped"), &none);
	ck_assert_ptr_nonnull(es);
	ck_assert_ptr_null(elf_symbols__lookup(es, alpha, NULL));
	ck_assert_ptr_null(elf_symbols__debug_path(es));
	elf_symbols__free(es);

	es = elf_symbols__open(fx("stripped"), &dbg);
	ck_assert_ptr_nonnull(es);
	snprintf(want_path, sizeof(want_path), "%s/.build-id/%.2s/%s.debug", debug_dir, ID_STRIP,
		 &ID_STRIP[2]);
	ck_assert_str_eq(elf_symbols__debug_path(es), want_path);
	assert_fixture_symbols(es, fx("stripped.debug"));
	elf_symbols__free(es);

	/* The same file with debug files turned off. */
	dbg.no_debug_file = true;
	es = elf_symbols__open(fx("stripped"), &dbg);
	ck_assert_ptr_nonnull(es);
	ck_assert_ptr_null(elf_symbols__lookup(es, alpha, NULL));
	elf_symbols__free(es);
}
END_TEST

START_TEST(test_elf_mismatched_debug_file)
{
	struct elf_symbols_opts dbg = {.debug_dir = debug_dir};
	struct elf_symbols *es;
	char path[PATH_MAX * 2];
	struct stat st;

	/* The file is there, under the right name, but for another build. */
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", debug_dir, ID_MIS, &ID_MIS[2]);
	ck_assert_int_eq(stat(path, &st), 0);
	es = elf_symbols__open(fx("mismatch"), &dbg);
	ck_assert_ptr_nonnull(es);
	ck_assert_ptr_null(elf_symbols__debug_path(es));
	ck_assert_ptr_null(
		elf_symbols__lookup(es, nm_addr(fx("stripped.debug"), "fxs_alpha"), NULL));
	elf_symbols__free(es);
}
END_TEST

START_TEST(test_elf_compressed_debug_file)
{
	struct elf_symbols_opts dbg = {.debug_dir = debug_dir};
	struct elf_symbols *es;

	/* The fixture must really be compressed, or this proves nothing. */
	ck_assert(gz_debug_compressed);
	ck_assert(gz_symtab_compressed);
	ck_assert(section_compressed(fx("gz.debug"), ".symtab"));
	ck_assert(section_compressed(fx("gz.debug"), ".strtab"));

	es = elf_symbols__open(fx("gz"), &dbg);
	ck_assert_ptr_nonnull(es);
	ck_assert_ptr_nonnull(elf_symbols__debug_path(es));
	/* nm reads the unstripped twin: the addresses are the same. */
	assert_fixture_symbols(es, fx("gz_full"));
	elf_symbols__free(es);

	/* Opened directly, the debug file itself symbolizes. */
	es = elf_symbols__open(fx("gz.debug"), NULL);
	ck_assert_ptr_nonnull(es);
	assert_fixture_symbols(es, fx("gz_full"));
	elf_symbols__free(es);
}
END_TEST

START_TEST(test_elf_debuglink)
{
	struct elf_symbols_opts dbg = {.debug_dir = debug_dir};
	static const char *const good[] = {"linked", "sub/linked", "root/linked"};
	uint64_t alpha = nm_addr(fx("linked.debug"), "fxs_alpha");
	struct elf_symbols *es;
	uint8_t id[ELF_BUILD_ID_MAX];
	unsigned i;

	ck_assert_int_eq(read_build_id(fx("linked"), NULL, 0, id), 0);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		es = elf_symbols__open(fx(good[i]), &dbg);
		ck_assert_ptr_nonnull(es);
		ck_assert_msg(elf_symbols__debug_path(es), "%s: no debug file", good[i]);
		assert_lookup(es, alpha, "fxs_alpha", 0);
		elf_symbols__free(es);
	}
	/* bad/linked.debug exists but its CRC is not the one the link records. */
	es = elf_symbols__open(fx("bad/linked"), &dbg);
	ck_assert_ptr_nonnull(es);
	ck_assert_ptr_null(elf_symbols__debug_path(es));
	ck_assert_ptr_null(elf_symbols__lookup(es, alpha, NULL));
	elf_symbols__free(es);
}
END_TEST

static void *read_whole(const char *path, size_t *ret_len)
{
	struct stat st;
	void *buf;
	FILE *f = fopen(path, "re");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fstat(fileno(f), &st), 0);
	buf = malloc((size_t)st.st_size);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*ret_len = (size_t)st.st_size;
	return buf;
}

START_TEST(test_elf_memory_image)
{
	size_t len;
	void *buf = read_whole(fx("pie"), &len);
	struct elf_symbols *es = elf_symbols__open_mem(buf, len, "pie-in-memory", NULL);
	uint8_t id[ELF_BUILD_ID_MAX], want[32];

	ck_assert_ptr_nonnull(es);
	/* The object keeps its own copy. */
	memset(buf, 0, len);
	free(buf);
	ck_assert_str_eq(elf_symbols__path(es), "pie-in-memory");
	assert_fixture_symbols(es, fx("pie"));
	elf_symbols__free(es);

	buf = read_whole(fx("pie"), &len);
	ck_assert_int_eq(read_build_id(NULL, buf, len, id), (int)hex_to_bytes(ID_PIE, want));
	ck_assert_mem_eq(id, want, 20);
	free(buf);
}
END_TEST

/* Truncated and corrupted images: refused or loaded, never a crash. */
START_TEST(test_elf_corrupt_images)
{
	size_t len, cut, i;
	uint8_t *orig = read_whole(fx("pie"), &len), *buf = malloc(len);
	uint64_t rng = 0x243f6a8885a308d3ULL, alpha = nm_addr(fx("pie"), "fxs_alpha");
	unsigned loaded = 0, refused = 0;

	ck_assert_ptr_nonnull(buf);
	for (cut = 0; cut < len; cut += len / 97 + 1) {
		struct elf_symbols *es = elf_symbols__open_mem(orig, cut, NULL, NULL);

		if (es)
			loaded++;
		else
			refused++;
		elf_symbols__free(es);
	}
	for (i = 0; i < 300; i++) {
		struct elf_symbols *es;
		unsigned k;

		memcpy(buf, orig, len);
		for (k = 0; k < 8; k++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			/* Mostly the headers, where the offsets and sizes are. */
			buf[(k & 1 ? rng % len : rng % 128)] = (uint8_t)(rng >> 40);
		}
		es = elf_symbols__open_mem(buf, len, NULL, NULL);
		if (es) {
			elf_symbols__lookup(es, alpha, NULL);
			loaded++;
		} else {
			refused++;
		}
		elf_symbols__free(es);
	}
	ck_assert_uint_gt(refused, 0);
	ck_assert_uint_gt(loaded, 0);
	free(orig);
	free(buf);
}
END_TEST

START_TEST(test_elf_errors)
{
	uint8_t id[ELF_BUILD_ID_MAX];

	errno = 0;
	ck_assert_ptr_null(elf_symbols__open(fx("nonexistent"), NULL));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(elf_symbols__open(fx("not_elf"), NULL));
	ck_assert_int_eq(errno, ENOEXEC);
	errno = 0;
	ck_assert_ptr_null(elf_symbols__open_mem("", 0, NULL, NULL));
	ck_assert_int_eq(errno, ENOEXEC);

	ck_assert_int_eq(read_build_id(fx("nonexistent"), NULL, 0, id), -ENOENT);
	ck_assert_int_eq(read_build_id(fx("not_elf"), NULL, 0, id), -ENOEXEC);
	/* Build ids of 20 and 8 bytes, as the linker was told. */
	ck_assert_int_eq(read_build_id(fx("pie"), NULL, 0, id), 20);
	ck_assert_int_eq(read_build_id(fx("lib.so"), NULL, 0, id), 8);
	elf_symbols__free(NULL);
}
END_TEST

START_TEST(test_elf_build_id_paths)
{
	static const uint8_t id[] = {0xab, 0xcd, 0x01, 0x23};
	char buf[64], hex[16];

	ck_assert_int_eq(elf_build_id_debug_path("/d", id, sizeof(id), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/d/.build-id/ab/cd0123.debug");
	ck_assert_int_eq(elf_build_id_debug_path(NULL, id, sizeof(id), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/usr/lib/debug/.build-id/ab/cd0123.debug");
	ck_assert_int_eq(elf_build_id_debug_path("/d", id, sizeof(id), buf, 10), -ENAMETOOLONG);
	ck_assert_int_eq(elf_build_id_debug_path("/d", id, 0, buf, sizeof(buf)), -EINVAL);
	ck_assert_str_eq(elf_build_id_hex(id, sizeof(id), hex, sizeof(hex)), "abcd0123");
	/* Truncated to the buffer, always terminated. */
	ck_assert_str_eq(elf_build_id_hex(id, sizeof(id), hex, 6), "abcd");
	ck_assert_uint_eq(elf_pc_to_vaddr(0x7f0000001234ULL, 0x7f0000001000ULL, 0x3000), 0x3234);
	ck_assert_uint_eq(elf_lookup_pc(0x1000, true), 0xfff);
	ck_assert_uint_eq(elf_lookup_pc(0x1000, false), 0x1000);
}
END_TEST

START_TEST(test_elf_vdso)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct proc_map *maps = NULL;
	const struct proc_map *m;
	struct elf_symbols *es;
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t n = 0, len;
	uint64_t v;
	const char *name = NULL;

	if (!base) {
		/* valgrind hides the vDSO from its guest. */
		fprintf(stderr, "SKIP: test_elf_vdso: no vDSO in this process\n");
		return;
	}
	ck_assert_int_eq(proc_maps_read("/proc/self/maps", &maps, &n), 0);
	m = proc_maps_find(maps, n, base);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->path, "[vdso]");
	len = m->end - base;
	es = elf_symbols__open_mem((const void *)base, len, "[vdso]", NULL);
	ck_assert_ptr_nonnull(es);
	ck_assert_uint_eq(elf_header_type((const unsigned char *)base), ET_DYN);
	ck_assert_uint_gt(elf_symbols__count(es), 0);
	ck_assert_int_gt(read_build_id(NULL, (const void *)base, len, id), 0);
	for (v = 0; v < len && !name; v++)
		name = elf_symbols__lookup(es, v, NULL);
	ck_assert_ptr_nonnull(name);
	ck_assert_ptr_nonnull(strstr(name, "vdso") ?: strstr(name, "time"));
	elf_symbols__free(es);
	proc_maps_free(maps, n);
}
END_TEST

/* ---- symbolizer ---- */

#define BASE 0x555555550000ULL
#define PID  4242

/*
 * Module id of pid is path loaded at base at time ts, with one mmap per
 * PT_LOAD of elf_for_segments.
 */
static void add_module_when(struct symbolizer *s, uint64_t pid, uint16_t id, const char *path,
			    const char *elf_for_segments, const char *build_id_hex, uint64_t base,
			    uint64_t ts)
{
	struct elf_symbols *es = elf_symbols__open(elf_for_segments, NULL);
	const struct elf_segment *segs;
	uint8_t bid[64];
	size_t i, n;

	ck_assert_ptr_nonnull(es);
	ck_assert_int_eq(symbolizer_add_module(s, pid, id, path, bid,
					       build_id_hex ? hex_to_bytes(build_id_hex, bid) : 0),
			 0);
	n = elf_symbols__segments(es, &segs);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(symbolizer_add_mmap(s, pid, id, segs[i].flags,
						     base + segs[i].vaddr, segs[i].memsz,
						     segs[i].vaddr, ts),
				 0);
	elf_symbols__free(es);
}

/* The same, at time 0. */
static void add_module_at(struct symbolizer *s, uint64_t pid, uint16_t id, const char *path,
			  const char *elf_for_segments, const char *build_id_hex, uint64_t base)
{
	add_module_when(s, pid, id, path, elf_for_segments, build_id_hex, base, 0);
}

static void assert_frame(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return,
			 const char *want)
{
	struct sym_frame f;

	ck_assert_int_eq(symbolizer_resolve(s, pid, pc, is_return, 0, &f), 0);
	ck_assert_ptr_nonnull(f.function);
	ck_assert_msg(!strcmp(f.function, want), "pc 0x%" PRIx64 ": want %s, got %s", pc, want,
		      f.function);
}

START_TEST(test_sym_resolve)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t alpha = nm_addr(fx("pie"), "fxs_alpha");
	uint64_t outer = nm_addr(fx("pie"), "fxs_outer");
	struct sym_frame f;

	ck_assert_ptr_nonnull(s);
	add_module_at(s, PID, 0, fx("pie"), fx("pie"), ID_PIE, BASE);

	ck_assert_int_eq(symbolizer_resolve(s, PID, BASE + alpha + 3, false, 0, &f), 0);
	ck_assert_str_eq(f.function, "fxs_alpha");
	ck_assert(f.resolved);
	ck_assert_str_eq(f.module, fx("pie"));
	ck_assert_uint_eq(f.module_offset, alpha + 3);
	ck_assert_uint_eq(f.function_offset, 3);
	ck_assert_ptr_nonnull(f.mapping);
	ck_assert_uint_eq(f.mapping->pid, PID);
	ck_assert_uint_le(f.mapping->start, BASE + alpha);
	/* The text segment's file offset, from the ELF. */
	ck_assert_uint_eq(f.mapping->file_offset, f.mapping->vaddr);

	/* A return address at the start of fxs_outer was a call at the end of fxs_nosize. */
	assert_frame(s, PID, BASE + outer, false, "fxs_outer");
	assert_frame(s, PID, BASE + outer, true, "fxs_nosize");

	/* No mapping, no process. */
	ck_assert_int_eq(symbolizer_resolve(s, PID, 0x1000, false, 0, &f), 0);
	ck_assert_str_eq(f.function, SYMBOLIZER_UNKNOWN);
	ck_assert_ptr_null(f.module);
	ck_assert(!f.resolved);
	assert_frame(s, PID + 1, BASE + alpha, false, SYMBOLIZER_UNKNOWN);
	symbolizer__free(s);
}
END_TEST

/* A backtrace's frames as report resolves them: one symbolizer_resolve() each. */
static void resolve_backtrace(struct symbolizer *s, uint64_t pid, const uint64_t *frames,
			      unsigned nr, unsigned bt_flags, struct sym_frame *ret)
{
	for (unsigned i = 0; i < nr; i++)
		ck_assert_int_eq(symbolizer_resolve(s, pid, frames[i],
						    symbolizer_frame_is_return(i, bt_flags), 0,
						    &ret[i]),
				 0);
}

START_TEST(test_sym_backtrace)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t outer = nm_addr(fx("pie"), "fxs_outer");
	uint64_t beta = nm_addr(fx("pie"), "fxs_beta");
	uint64_t frames[] = {BASE + outer, BASE + outer, 0x10, BASE + beta + 1};
	struct sym_frame out[4];

	ck_assert_ptr_nonnull(s);
	add_module_at(s, PID, 3, fx("pie"), fx("pie"), ID_PIE, BASE);
	ck_assert(!symbolizer_frame_is_return(0, 0));
	ck_assert(symbolizer_frame_is_return(0, FXT_BT_FLAG_PC_IS_RETURN));
	ck_assert(symbolizer_frame_is_return(1, 0));

	resolve_backtrace(s, PID, frames, 4, 0, out);
	ck_assert_str_eq(out[0].function, "fxs_outer");
	ck_assert_str_eq(out[1].function, "fxs_nosize");
	ck_assert_str_eq(out[2].function, SYMBOLIZER_UNKNOWN);
	ck_assert_str_eq(out[3].function, "fxs_beta");

	resolve_backtrace(s, PID, frames, 1, FXT_BT_FLAG_PC_IS_RETURN, out);
	ck_assert_str_eq(out[0].function, "fxs_nosize");
	symbolizer__free(s);
}
END_TEST

struct failures {
	char path[8][PATH_MAX];
	int err[8];
	unsigned n;
};

static void on_failure(void *ctx, const char *path, int err)
{
	struct failures *fl = ctx;

	if (fl->n < 8) {
		snprintf(fl->path[fl->n], PATH_MAX, "%s", path);
		fl->err[fl->n++] = err;
	}
}

START_TEST(test_sym_build_id_mismatch)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t alpha = nm_addr(fx("pie"), "fxs_alpha");
	struct failures fl = {};
	char want[64];

	ck_assert_ptr_nonnull(s);
	/* The file on disk was rebuilt since: its symbols must not be trusted. */
	add_module_at(s, PID, 0, fx("pie"), fx("pie"), ID_NOPIE, BASE);
	snprintf(want, sizeof(want), "pie+0x%" PRIx64, alpha);
	assert_frame(s, PID, BASE + alpha, false, want);
	/* The same string comes back for the same pc. */
	assert_frame(s, PID, BASE + alpha, false, want);
	symbolizer_for_each_failure(s, on_failure, &fl);
	ck_assert_uint_eq(fl.n, 1);
	ck_assert_str_eq(fl.path[0], fx("pie"));
	ck_assert_int_eq(fl.err[0], -ESTALE);
	symbolizer__free(s);
}
END_TEST

START_TEST(test_sym_missing_file)
{
	struct symbolizer_opts opts = {.debug_dir = debug_dir};
	struct symbolizer *s = symbolizer__new(&opts);
	uint64_t alpha = nm_addr(fx("stripped.debug"), "fxs_alpha");
	struct failures fl = {};

	ck_assert_ptr_nonnull(s);
	/* Gone from disk, but its debug file is found by build id. */
	add_module_at(s, 10, 0, "/nonexistent/stripped", fx("stripped"), ID_STRIP, BASE);
	assert_frame(s, 10, BASE + alpha, false, "fxs_alpha");
	/* Gone, without a debug file. */
	add_module_at(s, 11, 0, "/nonexistent/dir/libgone.so", fx("pie"), ID_PIE, BASE);
	assert_frame(s, 11, BASE + 0x1010, false, "libgone.so+0x1010");
	symbolizer_for_each_failure(s, on_failure, &fl);
	ck_assert_uint_eq(fl.n, 1);
	ck_assert_str_eq(fl.path[0], "/nonexistent/dir/libgone.so");
	ck_assert_int_eq(fl.err[0], -ENOENT);
	symbolizer__free(s);
}
END_TEST

START_TEST(test_sym_records_any_order)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t alpha = nm_addr(fx("pie"), "fxs_alpha");
	uint64_t lib = nm_addr(fx("lib.so"), "fxs_lib_exported");
	struct elf_symbols *es = elf_symbols__open(fx("pie"), NULL);
	const struct elf_segment *segs;
	struct fxt_record rec = {};
	uint8_t id[32];
	char want[64];
	size_t i, n;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(es);
	/* mmap records first, their module last, as Fuchsia's writer emits them. */
	n = elf_symbols__segments(es, &segs);
	for (i = 0; i < n; i++) {
		rec.type = FXT_RT_PROFILER;
		rec.subtype = FXT_PROF_MMAP;
		rec.pid = PID;
		rec.module_id = 7;
		rec.mmap_flags = segs[i].flags;
		rec.start = BASE + segs[i].vaddr;
		rec.size = segs[i].memsz;
		rec.vaddr = segs[i].vaddr;
		ck_assert_int_eq(symbolizer_add_record(s, &rec), 0);
		/* A repeated record changes nothing. */
		ck_assert_int_eq(symbolizer_add_record(s, &rec), 0);
	}
	elf_symbols__free(es);
	snprintf(want, sizeof(want), "[module 7]+0x%" PRIx64, alpha);
	assert_frame(s, PID, BASE + alpha, false, want);
	memset(&rec, 0, sizeof(rec));
	rec.type = FXT_RT_PROFILER;
	rec.subtype = FXT_PROF_MODULE;
	rec.pid = PID;
	rec.module_id = 7;
	rec.name = fx("pie");
	rec.build_id = id;
	rec.build_id_len = hex_to_bytes(ID_PIE, id);
	ck_assert_int_eq(symbolizer_add_record(s, &rec), 0);
	assert_frame(s, PID, BASE + alpha, false, "fxs_alpha");

	/* Other records are ignored. */
	rec.type = FXT_RT_KOBJ;
	rec.name = "whatever";
	ck_assert_int_eq(symbolizer_add_record(s, &rec), 0);

	/* A newer mapping over the same range wins. */
	add_module_at(s, PID, 8, fx("lib.so"), fx("lib.so"), ID_LIB, BASE);
	assert_frame(s, PID, BASE + lib, false, "fxs_lib_exported");
	symbolizer__free(s);
}
END_TEST

/* ---- the mapping at a sample's time ---- */

/*
 * The module pc of PID resolves to at time ts, checked against the mapping
 * symbolizer_mapping_id() chooses; its id in *ret_id.
 */
static const char *module_at(struct symbolizer *s, uint64_t pc, uint64_t ts, unsigned *ret_id)
{
	struct sym_frame f;

	ck_assert_int_eq(symbolizer_resolve(s, PID, pc, false, ts, &f), 0);
	ck_assert_ptr_nonnull(f.mapping);
	ck_assert_ptr_nonnull(f.module);
	ck_assert_uint_eq(symbolizer_mapping_id(s, PID, pc, false, ts), f.mapping->id);
	if (ret_id)
		*ret_id = f.mapping->id;
	return f.module;
}

/*
 * pie mapped at BASE at time 100, then lib.so over it at 200 (a dlclose and
 * a dlopen at the same address): a pc is named by the mapping there at the
 * sample's time, not by the newest.
 */
START_TEST(test_sym_mapping_at_sample_time)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t lib = nm_addr(fx("lib.so"), "fxs_lib_exported");
	unsigned pie_id, lib_id;
	struct sym_frame f;

	ck_assert_ptr_nonnull(s);
	add_module_when(s, PID, 0, fx("pie"), fx("pie"), ID_PIE, BASE, 100);
	add_module_when(s, PID, 1, fx("lib.so"), fx("lib.so"), ID_LIB, BASE, 200);

	/* Older than every mapping (its records came after it): the oldest. */
	ck_assert_str_eq(module_at(s, BASE + lib, 50, &pie_id), fx("pie"));
	/* While pie was mapped, its start and the instant before lib.so's. */
	ck_assert_str_eq(module_at(s, BASE + lib, 100, NULL), fx("pie"));
	ck_assert_str_eq(module_at(s, BASE + lib, 199, NULL), fx("pie"));
	/* From lib.so's time on. */
	ck_assert_str_eq(module_at(s, BASE + lib, 200, &lib_id), fx("lib.so"));
	ck_assert_str_eq(module_at(s, BASE + lib, UINT64_MAX, NULL), fx("lib.so"));
	ck_assert_uint_ne(pie_id, lib_id);
	ck_assert_int_eq(symbolizer_resolve(s, PID, BASE + lib, false, 300, &f), 0);
	ck_assert_str_eq(f.function, "fxs_lib_exported");
	ck_assert_uint_eq(f.mapping->ts, 200);
	ck_assert_int_eq(symbolizer_resolve(s, PID, BASE + lib, false, 150, &f), 0);
	ck_assert_str_ne(f.function, "fxs_lib_exported");
	ck_assert_uint_eq(f.mapping->ts, 100);

	/* The epochs: one change, at 200; another process has none. */
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 50), 0);
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 199), 0);
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 200), 201);
	ck_assert_uint_eq(symbolizer_epoch(s, PID, UINT64_MAX), 201);
	ck_assert_uint_eq(symbolizer_epoch(s, PID + 1, 300), 0);

	/* pie recorded again while it was there (continuous mode): the same mapping. */
	add_module_when(s, PID, 0, fx("pie"), fx("pie"), ID_PIE, BASE, 150);
	ck_assert_uint_eq(symbolizer_mapping_id(s, PID, BASE + lib, false, 199), pie_id);
	ck_assert_uint_eq(symbolizer_mapping_id(s, PID, BASE + lib, false, 200), lib_id);
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 199), 0);
	/* lib.so too. */
	add_module_when(s, PID, 1, fx("lib.so"), fx("lib.so"), ID_LIB, BASE, 250);
	ck_assert_uint_eq(symbolizer_mapping_id(s, PID, BASE + lib, false, 260), lib_id);

	/* pie mapped there again after lib.so: a new mapping of it, from 300 on. */
	add_module_when(s, PID, 0, fx("pie"), fx("pie"), ID_PIE, BASE, 300);
	ck_assert_str_eq(module_at(s, BASE + lib, 299, NULL), fx("lib.so"));
	ck_assert_uint_ne(symbolizer_mapping_id(s, PID, BASE + lib, false, 300), pie_id);
	ck_assert_str_eq(module_at(s, BASE + lib, 300, NULL), fx("pie"));
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 299), 201);
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 300), 301);
	symbolizer__free(s);
}
END_TEST

/*
 * A module id's record written again with another file (an exec reused it):
 * its mappings name the new file, whether they had handed their mapping out
 * already (symbolizer_mapping_at()) or only named their file
 * (symbolizer_file_pc()); the pointer handed out stays valid and follows.
 */
START_TEST(test_sym_module_replaced)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t lib = nm_addr(fx("lib.so"), "fxs_lib_exported"), vaddr;
	const struct symbolizer_mapping *mp;
	const void *pie_file, *lib_file, *file;
	uint8_t bid[64];

	ck_assert_ptr_nonnull(s);
	add_module_when(s, PID, 1, fx("pie"), fx("pie"), ID_PIE, BASE, 100);
	add_module_when(s, PID + 1, 1, fx("pie"), fx("pie"), ID_PIE, BASE, 100);
	ck_assert_int_eq(symbolizer_file_pc(s, PID, BASE + lib, false, 100, &pie_file, &vaddr), 1);
	ck_assert_int_eq(symbolizer_mapping_at(s, PID, BASE + lib, false, 100, &mp), 0);
	ck_assert_ptr_nonnull(mp);
	ck_assert_str_eq(mp->path, fx("pie"));
	ck_assert_uint_le(mp->start, BASE + lib);
	ck_assert_uint_gt(mp->start + mp->size, BASE + lib);
	ck_assert_uint_eq(mp->pid, PID);
	ck_assert_uint_eq(mp->ts, 100);
	/* The other process maps the same file: the same file id. */
	ck_assert_int_eq(symbolizer_file_pc(s, PID + 1, BASE + lib, false, 100, &file, &vaddr), 1);
	ck_assert_ptr_eq(file, pie_file);

	ck_assert_int_eq(
		symbolizer_add_module(s, PID, 1, fx("lib.so"), bid, hex_to_bytes(ID_LIB, bid)), 0);
	ck_assert_int_eq(
		symbolizer_add_module(s, PID + 1, 1, fx("lib.so"), bid, hex_to_bytes(ID_LIB, bid)),
		0);
	ck_assert_str_eq(module_at(s, BASE + lib, 100, NULL), fx("lib.so"));
	ck_assert_str_eq(mp->path, fx("lib.so"));
	ck_assert_uint_eq(mp->build_id_len, strlen(ID_LIB) / 2);
	ck_assert_int_eq(symbolizer_file_pc(s, PID + 1, BASE + lib, false, 100, &lib_file, &vaddr),
			 1);
	ck_assert_ptr_ne(lib_file, pie_file);
	ck_assert_int_eq(symbolizer_file_pc(s, PID, BASE + lib, false, 100, &file, &vaddr), 1);
	ck_assert_ptr_eq(file, lib_file);

	/* Back to pie: the file opened for it before. */
	ck_assert_int_eq(
		symbolizer_add_module(s, PID + 1, 1, fx("pie"), bid, hex_to_bytes(ID_PIE, bid)), 0);
	ck_assert_int_eq(symbolizer_file_pc(s, PID + 1, BASE + lib, false, 100, &file, &vaddr), 1);
	ck_assert_ptr_eq(file, pie_file);
	ck_assert_str_eq(mp->path, fx("lib.so"));
	symbolizer__free(s);
}
END_TEST

/* The records in another order than the mappings began: their times decide. */
START_TEST(test_sym_mapping_records_out_of_order)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t lib = nm_addr(fx("lib.so"), "fxs_lib_exported");

	ck_assert_ptr_nonnull(s);
	add_module_when(s, PID, 1, fx("lib.so"), fx("lib.so"), ID_LIB, BASE, 200);
	add_module_when(s, PID, 0, fx("pie"), fx("pie"), ID_PIE, BASE, 100);
	ck_assert_str_eq(module_at(s, BASE + lib, 50, NULL), fx("pie"));
	ck_assert_str_eq(module_at(s, BASE + lib, 150, NULL), fx("pie"));
	ck_assert_str_eq(module_at(s, BASE + lib, 200, NULL), fx("lib.so"));
	/* The change is lib.so's, recorded first. */
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 199), 0);
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 200), 201);
	symbolizer__free(s);
}
END_TEST

/* Two mappings begun at the same time: the later record is the newer one. */
START_TEST(test_sym_mapping_same_time)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t lib = nm_addr(fx("lib.so"), "fxs_lib_exported");

	ck_assert_ptr_nonnull(s);
	add_module_when(s, PID, 0, fx("pie"), fx("pie"), ID_PIE, BASE, 100);
	add_module_when(s, PID, 1, fx("lib.so"), fx("lib.so"), ID_LIB, BASE, 100);
	ck_assert_str_eq(module_at(s, BASE + lib, 100, NULL), fx("lib.so"));
	ck_assert_str_eq(module_at(s, BASE + lib, 500, NULL), fx("lib.so"));
	/* Older than both: the oldest, which is the earlier record. */
	ck_assert_str_eq(module_at(s, BASE + lib, 99, NULL), fx("pie"));
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 99), 0);
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 100), 101);
	symbolizer__free(s);

	/* A change at time 0 is an epoch of its own. */
	s = symbolizer__new(NULL);
	ck_assert_ptr_nonnull(s);
	add_module_when(s, PID, 0, fx("pie"), fx("pie"), ID_PIE, BASE, 0);
	add_module_when(s, PID, 1, fx("lib.so"), fx("lib.so"), ID_LIB, BASE, 0);
	ck_assert_str_eq(module_at(s, BASE + lib, 0, NULL), fx("lib.so"));
	ck_assert_uint_eq(symbolizer_epoch(s, PID, 0), 1);
	symbolizer__free(s);
}
END_TEST

/*
 * The same file mapped again over itself at the same load bias (a segment
 * split by mprotect, a re-read of /proc) names every pc alike: no change,
 * and the newest such mapping at the time is still the one chosen.
 */
START_TEST(test_sym_mapping_same_file_again)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint64_t lib = nm_addr(fx("lib.so"), "fxs_lib_exported");
	struct elf_symbols *es = elf_symbols__open(fx("lib.so"), NULL);
	const struct elf_segment *segs;
	unsigned first;
	size_t i, n;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(es);
	add_module_when(s, PID, 1, fx("lib.so"), fx("lib.so"), ID_LIB, BASE, 100);
	n = elf_symbols__segments(es, &segs);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(symbolizer_add_mmap(s, PID, 1, segs[i].flags, BASE + segs[i].vaddr,
						     segs[i].memsz + 0x1000, segs[i].vaddr, 200),
				 0);
	elf_symbols__free(es);
	ck_assert_str_eq(module_at(s, BASE + lib, 150, &first), fx("lib.so"));
	ck_assert_uint_ne(symbolizer_mapping_id(s, PID, BASE + lib, false, 200), first);
	assert_frame(s, PID, BASE + lib, false, "fxs_lib_exported");
	ck_assert_uint_eq(symbolizer_epoch(s, PID, UINT64_MAX), 0);
	/* At another bias it is a change. */
	ck_assert_int_eq(symbolizer_add_mmap(s, PID, 1, PF_R | PF_X, BASE, 0x100000, 0x10, 300), 0);
	ck_assert_uint_eq(symbolizer_epoch(s, PID, UINT64_MAX), 301);
	symbolizer__free(s);
}
END_TEST

START_TEST(test_sym_vdso)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct symbolizer *s;
	struct symbolizer_opts opts = {.no_self_vdso = true};
	struct elf_symbols *es;
	struct proc_map *maps = NULL;
	const struct proc_map *m;
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t n = 0;
	uint64_t v;
	const char *name = NULL;
	int len;

	if (!base) {
		fprintf(stderr, "SKIP: test_sym_vdso: no vDSO in this process\n");
		return;
	}
	ck_assert_int_eq(proc_maps_read("/proc/self/maps", &maps, &n), 0);
	m = proc_maps_find(maps, n, base);
	ck_assert_ptr_nonnull(m);
	es = elf_symbols__open_mem((const void *)base, m->end - base, "[vdso]", NULL);
	ck_assert_ptr_nonnull(es);
	len = read_build_id(NULL, (const void *)base, m->end - base, id);
	ck_assert_int_gt(len, 0);
	for (v = 0; v < m->end - base && !name; v++)
		name = elf_symbols__lookup(es, v, NULL);
	ck_assert_ptr_nonnull(name);
	v--;

	s = symbolizer__new(NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(symbolizer_add_module(s, 1, 0, "[vdso]", id, (size_t)len), 0);
	ck_assert_int_eq(
		symbolizer_add_mmap(s, 1, 0, PF_R | PF_X, 0x7000000000ULL, m->end - base, 0, 0), 0);
	assert_frame(s, 1, 0x7000000000ULL + v, false, name);
	symbolizer__free(s);

	/* Turned off, or another kernel's vDSO: not symbolized. */
	s = symbolizer__new(&opts);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(symbolizer_add_module(s, 1, 0, "[vdso]", id, (size_t)len), 0);
	ck_assert_int_eq(
		symbolizer_add_mmap(s, 1, 0, PF_R | PF_X, 0x7000000000ULL, m->end - base, 0, 0), 0);
	assert_frame(s, 1, 0x7000000000ULL + 0x10, false, "[vdso]+0x10");
	symbolizer__free(s);
	id[0] ^= 0xff;
	s = symbolizer__new(NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(symbolizer_add_module(s, 1, 0, "[vdso]", id, (size_t)len), 0);
	ck_assert_int_eq(
		symbolizer_add_mmap(s, 1, 0, PF_R | PF_X, 0x7000000000ULL, m->end - base, 0, 0), 0);
	assert_frame(s, 1, 0x7000000000ULL + 0x10, false, "[vdso]+0x10");
	symbolizer__free(s);

	elf_symbols__free(es);
	proc_maps_free(maps, n);
}
END_TEST

START_TEST(test_sym_errors)
{
	struct symbolizer *s = symbolizer__new(NULL);
	uint8_t id[300] = {};

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(symbolizer_add_module(s, 1, 0, "/x", id, sizeof(id)), -EINVAL);
	ck_assert_int_eq(symbolizer_add_module(s, 1, 0, "/x", NULL, 4), -EINVAL);
	/* An empty mapping covers nothing. */
	ck_assert_int_eq(symbolizer_add_mmap(s, 1, 0, PF_X, 0x1000, 0, 0, 0), 0);
	assert_frame(s, 1, 0x1000, false, SYMBOLIZER_UNKNOWN);
	symbolizer__free(s);
	symbolizer__free(NULL);
}
END_TEST

static Suite *elf_symbols_suite(void)
{
	Suite *s = suite_create("elf_symbols");
	TCase *tc = tcase_create("lookup");
	TCase *dbg = tcase_create("debug_files");
	TCase *err = tcase_create("errors");

	tcase_set_timeout(tc, 60);
	tcase_set_timeout(dbg, 60);
	tcase_set_timeout(err, 60);
	tcase_add_test(tc, test_elf_pie);
	tcase_add_test(tc, test_elf_no_symbols);
	tcase_add_test(tc, test_elf_nopie);
	tcase_add_test(tc, test_elf_unsized_and_nested);
	tcase_add_test(tc, test_elf_segments);
	tcase_add_test(tc, test_elf_shared_lib);
	tcase_add_test(tc, test_elf_memory_image);
	tcase_add_test(tc, test_elf_vdso);
	tcase_add_test(dbg, test_elf_build_id_debug_file);
	tcase_add_test(dbg, test_elf_mismatched_debug_file);
	tcase_add_test(dbg, test_elf_compressed_debug_file);
	tcase_add_test(dbg, test_elf_debuglink);
	tcase_add_test(err, test_elf_corrupt_images);
	tcase_add_test(err, test_elf_errors);
	tcase_add_test(err, test_elf_build_id_paths);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, dbg);
	suite_add_tcase(s, err);
	return s;
}

static Suite *symbolizer_suite(void)
{
	Suite *s = suite_create("symbolizer");
	TCase *tc = tcase_create("resolve");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sym_resolve);
	tcase_add_test(tc, test_sym_backtrace);
	tcase_add_test(tc, test_sym_build_id_mismatch);
	tcase_add_test(tc, test_sym_missing_file);
	tcase_add_test(tc, test_sym_records_any_order);
	tcase_add_test(tc, test_sym_vdso);
	tcase_add_test(tc, test_sym_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("time");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sym_mapping_at_sample_time);
	tcase_add_test(tc, test_sym_mapping_records_out_of_order);
	tcase_add_test(tc, test_sym_module_replaced);
	tcase_add_test(tc, test_sym_mapping_same_time);
	tcase_add_test(tc, test_sym_mapping_same_file_again);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	Suite *suites[2];
	int status;

	build_fixtures();
	suites[0] = elf_symbols_suite();
	suites[1] = symbolizer_suite();
	status = check_run_suites(suites, 2);
	remove_fixtures();
	return status;
}
