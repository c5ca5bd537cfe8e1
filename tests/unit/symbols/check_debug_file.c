// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the one separate-debug-file finder (symbols/debug_file.h)
 * that ELF symbols and DWARF lines share: a binary reached through a symlink
 * finds the .gnu_debuglink file beside the real binary, as gdb does, through
 * both elf_symbols__open() and dwarf_lines__open().
 *
 * The fixture is built here: a program without a build id (so only the
 * debuglink and its CRC can name its debug file), stripped, its debug file
 * beside it in real/, and link/prog a symlink to real/prog; bad/prog beside
 * another program's debug file of the same name.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/dwarf_lines.h"
#include "symbols/elf_symbols.h"

#include "dwarf_fixture.h"

static const char src[] = "__attribute__((noinline)) int fxs_linked_fn(int x)\n"
			  "{\n"
			  "\treturn x * 3 + 1;\n"
			  "}\n"
			  "int main(int argc, char **argv)\n"
			  "{\n"
			  "\t(void)argv;\n"
			  "\treturn fxs_linked_fn(argc) == 4;\n"
			  "}\n";

#define LINE_FN_BODY 3 /* "return x * 3 + 1;" */

static char realdir[PATH_MAX];
static char want_debug[PATH_MAX + 32];
static char debug_root[PATH_MAX + 16];
static bool have_libdw;

static void build_fixtures(void)
{
	const char *cc = getenv("FXS_TEST_CC") ?: "gcc";
	int err = 0;

	make_tmpdir("fxs_debug_file");
	if (!realpath(tmpdir, realdir)) {
		perror(tmpdir);
		exit(EXIT_FAILURE);
	}
	/* The debug root holds nothing: only the debuglink beside the file can work. */
	snprintf(debug_root, sizeof(debug_root), "%s/debug", tmpdir);
	snprintf(want_debug, sizeof(want_debug), "%s/real/prog.debug", realdir);
	write_file(fx("prog.c"), src);
	err |= run("cd %s && mkdir -p real link debug && "
		   "%s -O1 -g -fno-inline -Wl,--build-id=none prog.c -o real/prog.full && "
		   "cd real && objcopy --only-keep-debug prog.full prog.debug && "
		   "strip --strip-all -o prog prog.full && "
		   "objcopy --add-gnu-debuglink=prog.debug prog && rm prog.full",
		   tmpdir, cc);
	/* An absolute link, in another directory than the file and its debug file. */
	err |= run("ln -s %s/real/prog %s/link/prog", realdir, tmpdir);
	/* bad/prog.debug is another program's: the CRC the debuglink records tells. */
	err |= run("cd %s && mkdir -p bad && cp real/prog bad/prog && "
		   "sed 's/x \\* 3 + 1/x * 5 + 2/' prog.c > other.c && "
		   "%s -O1 -g -fno-inline -Wl,--build-id=none other.c -o other && "
		   "objcopy --only-keep-debug other bad/prog.debug",
		   tmpdir, cc);
	if (err) {
		fprintf(stderr, "cannot build the fixtures in %s\n", tmpdir);
		exit(EXIT_FAILURE);
	}
}

/* fxs_linked_fn's address in the debug file. */
static uint64_t fn_addr(void)
{
	uint64_t a = nm_addr(want_debug, "fxs_linked_fn", NULL);

	ck_assert_uint_ne(a, 0);
	return a;
}

START_TEST(test_fixture_is_debuglink_only)
{
	struct elf_symbols *es;

	/* No build id: the debuglink is the only way to the debug file. */
	es = elf_symbols__open(fx("real/prog"), &(struct elf_symbols_opts){.no_debug_file = true});
	ck_assert_ptr_nonnull(es);
	ck_assert_ptr_null(elf_symbols__build_id(es, NULL));
	ck_assert_ptr_null(elf_symbols__lookup(es, fn_addr(), NULL));
	elf_symbols__free(es);
	ck_assert_int_ne(access(fx("link/prog.debug"), F_OK), 0);
}
END_TEST

START_TEST(test_symlink_elf_symbols)
{
	struct elf_symbols_opts o = {.debug_dir = debug_root};
	uint64_t off = 1, a = fn_addr();
	struct elf_symbols *es;
	const char *name;

	es = elf_symbols__open(fx("link/prog"), &o);
	ck_assert_ptr_nonnull(es);
	ck_assert_ptr_nonnull(elf_symbols__debug_path(es));
	ck_assert_str_eq(elf_symbols__debug_path(es), want_debug);
	name = elf_symbols__lookup(es, a, &off);
	ck_assert_ptr_nonnull(name);
	ck_assert_str_eq(name, "fxs_linked_fn");
	ck_assert_uint_eq(off, 0);
	elf_symbols__free(es);
}
END_TEST

START_TEST(test_symlink_dwarf_lines)
{
	struct dwarf_lines_opts o = {.debug_dir = debug_root};
	struct dwarf_frame fr[DWARF_MAX_FRAMES];
	struct dwarf_lines *dl;
	int n;

	if (!have_libdw) {
		printf("SKIP: check_debug_file: built without libdw (HAVE_LIBDW); NOT RUN\n");
		return;
	}
	dl = dwarf_lines__open(fx("link/prog"), NULL, 0, &o, NULL);
	ck_assert_msg(dl, "link/prog: no DWARF: %s", strerror(errno));
	ck_assert_str_eq(dwarf_lines__path(dl), want_debug);
	n = dwarf_lines__lookup(dl, fn_addr(), fr, DWARF_MAX_FRAMES);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(fr[0].function, "fxs_linked_fn");
	ck_assert_ptr_nonnull(fr[0].file);
	ck_assert_ptr_nonnull(strstr(fr[0].file, "prog.c"));
	ck_assert_uint_ge(fr[0].line, 1);
	ck_assert_uint_le(fr[0].line, LINE_FN_BODY);
	ck_assert_uint_eq(fr[0].decl_line, 1);
	dwarf_lines__free(dl);
}
END_TEST

START_TEST(test_crc_mismatch)
{
	struct elf_symbols_opts o = {.debug_dir = debug_root};
	char cmd[2 * PATH_MAX + 64];
	struct elf_symbols *es;

	/* The fixture must really differ, or the CRC decides nothing. */
	snprintf(cmd, sizeof(cmd), "cmp -s %s %s", fx("bad/prog.debug"), want_debug);
	ck_assert_int_ne(system(cmd), 0);
	es = elf_symbols__open(fx("bad/prog"), &o);
	ck_assert_ptr_nonnull(es);
	ck_assert_ptr_null(elf_symbols__debug_path(es));
	elf_symbols__free(es);
	if (!have_libdw)
		return;
	ck_assert_ptr_null(dwarf_lines__open(fx("bad/prog"), NULL, 0,
					     &(struct dwarf_lines_opts){.debug_dir = debug_root},
					     NULL));
	ck_assert_int_eq(errno, ENODATA);
}
END_TEST

static Suite *debug_file_suite(void)
{
	Suite *s = suite_create("debug_file");
	TCase *tc = tcase_create("debuglink");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fixture_is_debuglink_only);
	tcase_add_test(tc, test_symlink_elf_symbols);
	tcase_add_test(tc, test_symlink_dwarf_lines);
	tcase_add_test(tc, test_crc_mismatch);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* Not skipped without libdw: the debuglink is ELF symbols' too. */
	have_libdw = dwarf_fixture_start();
	build_fixtures();
	return check_run_fixtures(debug_file_suite(), getenv("FXS_KEEP_FIXTURES"));
}
