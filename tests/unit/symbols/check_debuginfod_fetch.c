// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The caps of debuginfod fetches: defaults, the environment elfutils reads,
 * the report's caps bounding a fetch's, and the words of the warning. The
 * fetches themselves, against a server that streams without end, are in
 * tests/report/run.sh (check-report's caps tier). libdebuginfod is loaded
 * at the first fetch: here a missing library and one without its functions;
 * the real one fetches in check-report's debuginfod tier (a fetch through it
 * leaks a buffer of glibc's dprintf() inside libdebuginfod 0.188, which
 * check-asan and check-valgrind would report).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/debuginfod_fetch.h"
#include "check_main.h"

START_TEST(test_defaults)
{
	struct debuginfod_limits l;

	unsetenv("DEBUGINFOD_MAXSIZE");
	unsetenv("DEBUGINFOD_MAXTIME");
	debuginfod_limits_resolve(NULL, &l);
	ck_assert_uint_eq(l.max_size, 256ULL << 20);
	ck_assert_uint_eq(l.max_time_ns, 30ULL * 1000000000);
	ck_assert_uint_eq(l.total_size, 1ULL << 30);
	ck_assert_uint_eq(l.total_time_ns, 120ULL * 1000000000);
}
END_TEST

/* The user's DEBUGINFOD_MAXSIZE/MAXTIME are the defaults; options win; junk is unset. */
START_TEST(test_environment)
{
	struct debuginfod_limits given = {0}, l;

	setenv("DEBUGINFOD_MAXSIZE", "1048576", 1);
	setenv("DEBUGINFOD_MAXTIME", "7", 1);
	debuginfod_limits_resolve(&given, &l);
	ck_assert_uint_eq(l.max_size, 1048576);
	ck_assert_uint_eq(l.max_time_ns, 7ULL * 1000000000);
	given.max_size = 4096;
	given.max_time_ns = 500000000;
	debuginfod_limits_resolve(&given, &l);
	ck_assert_uint_eq(l.max_size, 4096);
	ck_assert_uint_eq(l.max_time_ns, 500000000);
	/* elfutils' 0 is "no limit": here it is unset, and the default holds. */
	setenv("DEBUGINFOD_MAXSIZE", "0", 1);
	setenv("DEBUGINFOD_MAXTIME", "-3", 1);
	debuginfod_limits_resolve(NULL, &l);
	ck_assert_uint_eq(l.max_size, 256ULL << 20);
	ck_assert_uint_eq(l.max_time_ns, 30ULL * 1000000000);
	setenv("DEBUGINFOD_MAXSIZE", "lots", 1);
	debuginfod_limits_resolve(NULL, &l);
	ck_assert_uint_eq(l.max_size, 256ULL << 20);
	unsetenv("DEBUGINFOD_MAXSIZE");
	unsetenv("DEBUGINFOD_MAXTIME");
}
END_TEST

/* A fetch may not take more than the whole report may. */
START_TEST(test_fetch_within_report)
{
	struct debuginfod_limits given = {.total_size = 1 << 20, .total_time_ns = 2000000000}, l;

	unsetenv("DEBUGINFOD_MAXSIZE");
	unsetenv("DEBUGINFOD_MAXTIME");
	debuginfod_limits_resolve(&given, &l);
	ck_assert_uint_eq(l.max_size, 1 << 20);
	ck_assert_uint_eq(l.max_time_ns, 2000000000);
}
END_TEST

START_TEST(test_describe)
{
	struct debuginfod_limits l = {.max_size = 2 << 20,
				      .max_time_ns = 1500000000,
				      .total_size = 1ULL << 30,
				      .total_time_ns = 120ULL * 1000000000};
	char buf[160];

	ck_assert_str_eq(debuginfod_cap_describe(&l, DEBUGINFOD_OVER_SIZE, buf, sizeof(buf)),
			 "the size cap of a fetch, 2 MiB (--debuginfod-max-size)");
	ck_assert_str_eq(debuginfod_cap_describe(&l, DEBUGINFOD_OVER_TIME, buf, sizeof(buf)),
			 "the time cap of a fetch, 1500 ms (--debuginfod-max-time)");
	ck_assert_str_eq(debuginfod_cap_describe(&l, DEBUGINFOD_OVER_TOTAL_SIZE, buf, sizeof(buf)),
			 "the size cap of the report's fetches, 1 GiB (--debuginfod-total-size)");
	ck_assert_str_eq(debuginfod_cap_describe(&l, DEBUGINFOD_OVER_TOTAL_TIME, buf, sizeof(buf)),
			 "the time cap of the report's fetches, 2 min (--debuginfod-total-time)");
	l.max_size = 5000;
	ck_assert_str_eq(debuginfod_cap_describe(&l, DEBUGINFOD_OVER_SIZE, buf, sizeof(buf)),
			 "the size cap of a fetch, 5000 bytes (--debuginfod-max-size)");
	/* libdebuginfod's own errors are not caps: the caller prints their errno. */
	ck_assert_ptr_null(debuginfod_cap_describe(&l, -ENOENT, buf, sizeof(buf)));
	ck_assert_ptr_null(debuginfod_cap_describe(&l, -EIO, buf, sizeof(buf)));
}
END_TEST

/* Off without DEBUGINFOD_URLS, as in elfutils. */
START_TEST(test_off_without_urls)
{
	unsetenv("DEBUGINFOD_URLS");
	ck_assert_ptr_null(debuginfod_fetcher__new(NULL));
	setenv("DEBUGINFOD_URLS", " \t", 1);
	ck_assert_ptr_null(debuginfod_fetcher__new(NULL));
	unsetenv("DEBUGINFOD_URLS");
}
END_TEST

#ifdef HAVE_LIBDEBUGINFOD
static char cache[64];

/* DEBUGINFOD_URLS on a port nobody listens on, the cache in a new directory. */
static void fetch_env(void)
{
	snprintf(cache, sizeof(cache), "/tmp/fxs_debuginfod_fetch.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(cache));
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
}

static void fetch_env_end(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", cache);
	ck_assert_int_eq(system(cmd), 0);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
}

static const uint8_t some_id[20] = {0xfe, 0xed, 0xfa, 0xce, 1,	2,  3,	4,  5,	6,
				    7,	  8,	9,    10,   11, 12, 13, 14, 15, 16};

/* No library: every fetch says so at once, and why, naming the file. */
START_TEST(test_missing_library)
{
	struct debuginfod_fetcher *f;
	char *path = (char *)"x";

	fetch_env();
	f = debuginfod_fetcher__new_with(NULL, "libfxs-no-such-library.so.0");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_null(debuginfod_fetcher__library_error(f)); /* not tried yet */
	ck_assert_int_eq(debuginfod_fetcher__fetch(f, some_id, sizeof(some_id), &path),
			 DEBUGINFOD_NO_LIBRARY);
	ck_assert_ptr_null(path);
	ck_assert_ptr_nonnull(
		strstr(debuginfod_fetcher__library_error(f), "libfxs-no-such-library.so.0"));
	ck_assert_int_eq(debuginfod_fetcher__fetch(f, some_id, sizeof(some_id), &path),
			 DEBUGINFOD_NO_LIBRARY);
	debuginfod_fetcher__free(f);
	fetch_env_end();
}
END_TEST

/* A library that is not libdebuginfod: the function it lacks is named. */
START_TEST(test_library_without_functions)
{
	struct debuginfod_fetcher *f;
	char *path;

	fetch_env();
	f = debuginfod_fetcher__new_with(NULL, "libz.so.1");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(debuginfod_fetcher__fetch(f, some_id, sizeof(some_id), &path),
			 DEBUGINFOD_NO_LIBRARY);
	ck_assert_str_eq(debuginfod_fetcher__library_error(f), "libz.so.1 has no debuginfod_begin");
	debuginfod_fetcher__free(f);
	fetch_env_end();
}
END_TEST
#endif /* HAVE_LIBDEBUGINFOD */

static Suite *debuginfod_fetch_suite(void)
{
	Suite *s = suite_create("debuginfod_fetch");
	TCase *tc = tcase_create("limits");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_environment);
	tcase_add_test(tc, test_fetch_within_report);
	tcase_add_test(tc, test_describe);
	tcase_add_test(tc, test_off_without_urls);
	suite_add_tcase(s, tc);
#ifdef HAVE_LIBDEBUGINFOD
	tc = tcase_create("library");
	tcase_add_test(tc, test_missing_library);
	tcase_add_test(tc, test_library_without_functions);
	suite_add_tcase(s, tc);
#endif
	return s;
}

CHECK_MAIN(debuginfod_fetch_suite)
