/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the tests of DWARF lines that build their fixture programs at test
 * time (check_dwarf, check_dwarf_source, check_debug_file) share, so that the
 * three start, build and clean up the same way: whether this build reads
 * DWARF at all, the program with an inline chain the first two compile, its
 * stripped build with the debug file found by build id, nm's address of a
 * symbol, and the run that keeps a failure's fixtures to look at.
 */
#ifndef FXS_TESTS_DWARF_FIXTURE_H
#define FXS_TESTS_DWARF_FIXTURE_H

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "symbols/dwarf_lines.h"

#include "fixture.h"
#include "check_main.h"

/*
 * Whether this build reads DWARF: without libdw (HAVE_LIBDW) every
 * dwarf_lines__open() fails with EOPNOTSUPP, whatever the file. And no
 * debuginfod server is ever asked: the fixtures are all on disk.
 */
static inline bool dwarf_fixture_start(void)
{
	struct dwarf_lines *probe;
	bool have_libdw;

	unsetenv("DEBUGINFOD_URLS");
	errno = 0;
	probe = dwarf_lines__open("/proc/self/exe", NULL, 0, NULL, NULL);
	have_libdw = probe || errno != EOPNOTSUPP;
	dwarf_lines__free(probe);
	return have_libdw;
}

/*
 * dwarf_fixture_start() for a test that is all DWARF: without libdw it says
 * so (a skip, not a pass) and returns true, and main() returns success.
 */
static inline bool dwarf_fixture_start_or_skip(const char *test)
{
	if (dwarf_fixture_start())
		return false;
	printf("SKIP: %s: built without libdw (HAVE_LIBDW); NOT RUN\n", test);
	return true;
}

/*
 * check_run() of s on the fixtures in tmpdir, removed after if every test
 * passed and keep is false: a failure's fixtures stay to look at.
 */
static inline int check_run_fixtures(Suite *s, bool keep)
{
	int status = check_run(s);

	if (status == EXIT_SUCCESS && !keep)
		run("rm -rf '%s'", tmpdir);
	return status;
}

/*
 * A program whose fxs_outer runs a loop inlined twice (fxs_leaf in fxs_mid in
 * fxs_outer, always_inline so that -O2 keeps the chain); LINE_ and DECL_ are
 * its line numbers.
 */
static const char inline_chain_src[] =
	"#include <stdlib.h>\n"
	"static volatile unsigned long sink;\n"
	"static inline __attribute__((always_inline)) unsigned long fxs_leaf(unsigned long x)\n"
	"{\n"
	"\tunsigned long i, s = 0;\n"
	"\tfor (i = 0; i < x; i++)\n"
	"\t\ts += i * i ^ (s >> 3);\n"
	"\treturn s;\n"
	"}\n"
	"static inline __attribute__((always_inline)) unsigned long fxs_mid(unsigned long x)\n"
	"{\n"
	"\treturn fxs_leaf(x) + 1;\n"
	"}\n"
	"__attribute__((noinline)) unsigned long fxs_outer(unsigned long x)\n"
	"{\n"
	"\treturn fxs_mid(x) * 3;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tsink += fxs_outer(argc > 1 ? strtoul(argv[1], 0, 0) : 10);\n"
	"\treturn 0;\n"
	"}\n";

#define LINE_LEAF_LOOP	7 /* "s += i * i ..." */
#define LINE_MID_CALL	12
#define LINE_OUTER_CALL 16
#define DECL_OUTER	14

/* The build id of the stripped fixture: its debug file is .build-id/61/23...debug. */
#define ID_STRIP "6123456789abcdef0123456789abcdef01234567"

/*
 * fx("full"), fx("inl.c") built by cc with cflags and build id ID_STRIP, and
 * fx("stripped"), it without debug info, which only debug_dir's
 * .build-id/ tree gives back. Nonzero if a command failed.
 */
static inline int build_stripped_by_build_id(const char *cc, const char *cflags,
					     const char *debug_dir)
{
	int err = 0;

	err |= run("%s %s -g -Wl,--build-id=0x%s -o %s %s", cc, cflags, ID_STRIP, fx("full"),
		   fx("inl.c"));
	err |= run("mkdir -p %s/.build-id/%.2s && objcopy --only-keep-debug %s "
		   "%s/.build-id/%.2s/%s.debug && strip -o %s %s",
		   debug_dir, ID_STRIP, fx("full"), debug_dir, ID_STRIP, ID_STRIP + 2,
		   fx("stripped"), fx("full"));
	return err;
}

/* sym's address in bin, from binutils' nm, and its size if ret_size. */
static inline uint64_t nm_addr(const char *bin, const char *sym, uint64_t *ret_size)
{
	char cmd[PATH_MAX + 128];
	unsigned long long a = 0, sz = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S %s | awk '$4 == \"%s\" {print $1, $2}'", bin, sym);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%llx %llx", &a, &sz), 2);
	pclose(p);
	if (ret_size)
		*ret_size = sz;
	return a;
}

#endif /* FXS_TESTS_DWARF_FIXTURE_H */
