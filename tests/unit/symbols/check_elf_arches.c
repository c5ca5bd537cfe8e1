// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests: report's ELF reading and symbolizing of arm64 and riscv64
 * objects, on any host. The fixtures in tests/data/elf/ARCH/ are committed
 * (make elf-fixtures rebuilds them with Debian 13's cross toolchains): a PIE
 * and a shared library stripped to .dynsym, built from tests/data/elf/fixture.c,
 * and the vDSO of Debian's kernel for that arch. symbols.txt holds what
 * binutils (readelf -n, nm -S) says of each: the expected answers come from
 * there, never from libelf.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_symbols.h"
#include "symbols/symbolizer.h"

#include "elf_type.h"
#include "fixture.h"
#include "check_main.h"

#define BASE 0x7f0000000000ULL
#define PID  4242

struct func {
	char file[16];
	char name[128];
	uint64_t addr, size;
};

struct expect {
	struct func f[64];
	size_t n;
	char build_id[3][128]; /* exe, lib.so, vdso.so */
};

static const char *const files[3] = {"exe", "lib.so", "vdso.so"};

static const char *data_path(const char *arch, const char *name)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "elf/%s/%s", arch, name);
	return test_data(rel);
}

static int file_index(const char *file)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(file, files[i]))
			return i;
	return -1;
}

static void load_expect(const char *arch, struct expect *e)
{
	char line[512], file[16], a[32], b[128], name[128];
	FILE *in = fopen(data_path(arch, "symbols.txt"), "re");

	ck_assert_msg(in, "%s: %s", data_path(arch, "symbols.txt"), strerror(errno));
	memset(e, 0, sizeof(*e));
	while (fgets(line, sizeof(line), in)) {
		int fi, k;

		if (line[0] == '#')
			continue;
		k = sscanf(line, "%15s %31s %127s %127s", file, a, b, name);
		fi = file_index(file);
		ck_assert_msg(fi >= 0, "symbols.txt: unknown file in: %s", line);
		if (k == 3 && !strcmp(a, "build-id")) {
			snprintf(e->build_id[fi], sizeof(e->build_id[fi]), "%s", b);
			continue;
		}
		ck_assert_msg(k == 4 && e->n < 64, "symbols.txt: bad line: %s", line);
		/* nm -D names a versioned symbol name@@VERSION; the symbol is name. */
		name[strcspn(name, "@")] = '\0';
		snprintf(e->f[e->n].file, sizeof(e->f[e->n].file), "%s", file);
		snprintf(e->f[e->n].name, sizeof(e->f[e->n].name), "%s", name);
		e->f[e->n].addr = strtoull(a, NULL, 16);
		e->f[e->n].size = strtoull(b, NULL, 0); /* readelf: decimal, or 0x.. */
		e->n++;
	}
	fclose(in);
}

static bool has_func(const struct expect *e, const char *file, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->f[i].file, file) && !strcmp(e->f[i].name, name))
			return true;
	return false;
}

/* The vDSO as modules.c sees it: bytes copied out of a process. */
static struct elf_symbols *open_vdso_image(const char *arch)
{
	static char buf[1 << 16];
	FILE *in = fopen(data_path(arch, "vdso.so"), "re");
	size_t len;

	ck_assert_ptr_nonnull(in);
	len = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	ck_assert_uint_gt(len, 0);
	return elf_symbols__open_mem(buf, len, "[vdso]", NULL);
}

static struct elf_symbols *open_fixture(const char *arch, int fi)
{
	struct elf_symbols_opts o = {.no_debug_file = true};

	return fi == 2 ? open_vdso_image(arch) : elf_symbols__open(data_path(arch, files[fi]), &o);
}

/* Every function binutils lists is found at its first and last byte, by name. */
static void check_arch(const char *arch)
{
	struct expect e;
	size_t checked[3] = {0};

	load_expect(arch, &e);
	/* The fixtures hold what the test is about: a test over nothing passes nothing. */
	ck_assert_msg(has_func(&e, "exe", "fxs_beta") && has_func(&e, "exe", "fxs_static_leaf") &&
			      has_func(&e, "lib.so", "fxs_beta"),
		      "%s: symbols.txt lacks the fixture's functions", arch);
	for (int fi = 0; fi < 3; fi++) {
		struct elf_symbols *es = open_fixture(arch, fi);
		const uint8_t *id;
		char hex[2 * ELF_BUILD_ID_MAX + 1];
		size_t len = 0;

		ck_assert_msg(es, "%s/%s: %s", arch, files[fi], strerror(errno));
		ck_assert_uint_eq(elf_file_type(data_path(arch, files[fi])), ET_DYN);
		id = elf_symbols__build_id(es, &len);
		ck_assert_ptr_nonnull(id);
		ck_assert_str_eq(elf_build_id_hex(id, len, hex, sizeof(hex)), e.build_id[fi]);
		for (size_t i = 0; i < e.n; i++) {
			const struct func *f = &e.f[i];
			uint64_t start = 0, size = 0, off = 0;
			const char *got;

			if (strcmp(f->file, files[fi]))
				continue;
			got = elf_symbols__lookup(es, f->addr, &off);
			ck_assert_msg(got && !strcmp(got, f->name),
				      "%s/%s 0x%" PRIx64 ": want %s, got %s", arch, f->file,
				      f->addr, f->name, got ? got : "(none)");
			ck_assert_uint_eq(off, 0);
			got = elf_symbols__lookup(es, f->addr + f->size - 1, NULL);
			ck_assert_msg(got && !strcmp(got, f->name), "%s/%s end of %s: got %s", arch,
				      f->file, f->name, got ? got : "(none)");
			ck_assert_int_eq(elf_symbols__lookup_addr(es, f->addr, &start, &size), 0);
			ck_assert_uint_eq(start, f->addr);
			ck_assert_uint_eq(size, f->size);
			checked[fi]++;
		}
		elf_symbols__free(es);
	}
	ck_assert_uint_ge(checked[0], 3);
	ck_assert_uint_ge(checked[1], 2);
	/* Each kernel's vDSO has clock_gettime, as __kernel_ (arm64) or __vdso_ (riscv64). */
	ck_assert_uint_ge(checked[2], 3);
	ck_assert(has_func(&e, "vdso.so", "__kernel_clock_gettime") ||
		  has_func(&e, "vdso.so", "__vdso_clock_gettime"));
}

/*
 * As report resolves a capture's frames: the file mapped at BASE, one mmap
 * per PT_LOAD, and return addresses inside each function.
 */
static void check_symbolizer(const char *arch)
{
	struct symbolizer_opts so = {.no_self_vdso = true};
	struct symbolizer *s = symbolizer__new(&so);
	struct expect e;
	size_t resolved = 0;

	ck_assert_ptr_nonnull(s);
	load_expect(arch, &e);
	for (int fi = 0; fi < 2; fi++) {
		const char *path = data_path(arch, files[fi]);
		struct elf_symbols *es = elf_symbols__open(path, NULL);
		const struct elf_segment *segs;
		uint64_t base = BASE + ((uint64_t)fi << 32);
		size_t n;

		ck_assert_ptr_nonnull(es);
		ck_assert_int_eq(symbolizer_add_module(s, PID, fi, path, NULL, 0), 0);
		n = elf_symbols__segments(es, &segs);
		ck_assert_uint_gt(n, 0);
		for (size_t i = 0; i < n; i++)
			ck_assert_int_eq(symbolizer_add_mmap(s, PID, fi, segs[i].flags,
							     base + segs[i].vaddr, segs[i].memsz,
							     segs[i].vaddr, 0),
					 0);
		elf_symbols__free(es);
		for (size_t i = 0; i < e.n; i++) {
			struct sym_frame f;

			if (strcmp(e.f[i].file, files[fi]) || e.f[i].size < 8)
				continue;
			/* A return address just past a call in the function's middle. */
			ck_assert_int_eq(
				symbolizer_resolve(s, PID, base + e.f[i].addr + 4, true, 0, &f), 0);
			ck_assert_msg(!strcmp(f.function, e.f[i].name), "%s/%s: want %s, got %s",
				      arch, files[fi], e.f[i].name, f.function);
			resolved++;
		}
	}
	ck_assert_uint_ge(resolved, 5);
	symbolizer__free(s);
}

START_TEST(test_arm64_elf)
{
	check_arch("arm64");
}
END_TEST

START_TEST(test_riscv64_elf)
{
	check_arch("riscv64");
}
END_TEST

START_TEST(test_arm64_symbolizer)
{
	check_symbolizer("arm64");
}
END_TEST

START_TEST(test_riscv64_symbolizer)
{
	check_symbolizer("riscv64");
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("elf_arches");
	TCase *tc = tcase_create("arches");

	tcase_add_test(tc, test_arm64_elf);
	tcase_add_test(tc, test_riscv64_elf);
	tcase_add_test(tc, test_arm64_symbolizer);
	tcase_add_test(tc, test_riscv64_symbolizer);
	suite_add_tcase(suite, tc);
	return check_run(suite);
}
