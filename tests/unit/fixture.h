/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * For the unit tests' fixtures: the committed ones under tests/data, and for
 * the tests that build their fixture programs at test time (check_symbols,
 * check_dwarf) a scratch directory, paths in it, files written there, and a
 * shell command that says what failed. One test program includes it once.
 */
#ifndef FXS_TESTS_FIXTURE_H
#define FXS_TESTS_FIXTURE_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * tests/data/name, or $FXS_TEST_DATA/name: found from this header's own path,
 * so a test runs from any directory. The last eight results stay valid.
 */
static inline const char *test_data(const char *name)
{
	static char bufs[8][PATH_MAX];
	static unsigned next;
	char *b = bufs[next++ % 8];
	const char *dir = getenv("FXS_TEST_DATA");
	const char *slash = strrchr(__FILE__, '/');

	if (dir)
		snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	else
		snprintf(b, sizeof(bufs[0]), "%.*s/../data/%s", slash ? (int)(slash - __FILE__) : 1,
			 slash ? __FILE__ : ".", name);
	return b;
}

/* The test's scratch directory, made by its fixture setup. */
static char tmpdir[PATH_MAX];

/* tmpdir/name; the last eight results stay valid. */
static inline const char *fx(const char *name)
{
	static char bufs[8][PATH_MAX + 64];
	static unsigned next;
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", tmpdir, name);
	return b;
}

/*
 * tmpdir made afresh as $TMPDIR/prefix.XXXXXX (or under /tmp): a test without
 * its scratch directory cannot run, so it stops here.
 */
static inline void make_tmpdir(const char *prefix)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/%s.XXXXXX", getenv("TMPDIR") ?: "/tmp", prefix);
	if (!mkdtemp(tmpdir)) {
		perror(tmpdir);
		exit(EXIT_FAILURE);
	}
}

/* A fixture file written whole; a test without its fixture stops here. */
static inline void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(EXIT_FAILURE);
	}
}

/* system() of the formatted command; a failure is printed with the command. */
static inline int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st != 0)
		fprintf(stderr, "command failed (%d): %s\n", st, cmd);
	return st;
}

#endif /* FXS_TESTS_FIXTURE_H */
