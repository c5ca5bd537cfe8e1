// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Perf maps of live processes, for fxsamplerd's scrapes (lang/perfmap_live.h),
 * on a real child process and its real /tmp/perf-PID.map: the entries its
 * pcs fall in; the same map asked again answered without a read, read again
 * only for new pcs or once it changed; a pid whose process started after the
 * first sample not read; a symlink refused, counted and told once over two
 * scrapes and not read; no map counted once; a process gone forgotten; pcs
 * over the bounds answered but not kept.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lang/perfmap.h"
#include "lang/perfmap_live.h"
#include "util/clock.h"
#include "check_main.h"

static char got[8192];
static unsigned nr_got, told;

static int collect(void *ctx, uint64_t pid, const struct perfmap_entry *e)
{
	size_t len = strlen(got);

	ck_assert_uint_eq(pid, (uint64_t)(pid_t)(intptr_t)ctx);
	snprintf(got + len, sizeof(got) - len, "%llx %llx %.*s|", (unsigned long long)e->start,
		 (unsigned long long)e->size, (int)e->name_len, e->name);
	nr_got++;
	return 0;
}

static void tell(void *ctx, uint32_t pid, const char *text)
{
	(void)ctx;
	(void)pid;
	ck_assert_msg(strstr(text, "not used: a symbolic link"), "%s", text);
	told++;
}

static int lookup(struct perfmap_live *pl, pid_t pid, uint64_t first, const uint64_t *pcs, size_t n)
{
	got[0] = '\0';
	nr_got = 0;
	return perfmap_live_lookup(pl, pid, first, pcs, n, collect, (void *)(intptr_t)pid);
}

static void write_map(const char *path, const char *text)
{
	char tmp[128];
	FILE *f;

	/* a new file each time, as a rename: a new inode, whatever the clock's grain */
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(rename(tmp, path), 0);
}

static pid_t child_start(char *map, size_t size)
{
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (!child) {
		pause();
		_exit(0);
	}
	snprintf(map, size, "/tmp/perf-%d.map", (int)child);
	unlink(map);
	return child;
}

START_TEST(test_live_cache)
{
	static const uint64_t ab[] = {0x1004, 0x2004, 0x3000};
	static const uint64_t more[] = {0x1004, 0x1008, 0x3004};
	static const uint64_t a[] = {0x1004};
	struct perfmap_live_stats st;
	struct perfmap_live *pl = perfmap_live__new("/proc", tell, NULL);
	char map[64];
	pid_t child = child_start(map, sizeof(map));
	uint64_t now;

	ck_assert_ptr_nonnull(pl);
	write_map(map, "1000 10 JS:*spinA /x/spin.js:1:15\n0x2000 0x10 LSpin;::hotB\n"
		       "5000 10 unsampled\n");
	now = clock_ns(CLOCK_BOOTTIME);
	ck_assert_int_eq(lookup(pl, child, now, ab, 3), 0);
	ck_assert_uint_eq(nr_got, 2);
	ck_assert_msg(strstr(got, "1000 10 JS:*spinA /x/spin.js:1:15|"), "%s", got);
	ck_assert_msg(strstr(got, "2000 10 LSpin;::hotB|"), "%s", got);
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.maps_read, 1);
	ck_assert_uint_eq(st.pcs_kept, 3);
	/* the same map, the same pcs: from the cache */
	ck_assert_int_eq(lookup(pl, child, now, ab, 3), 0);
	ck_assert_uint_eq(nr_got, 2);
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.maps_read, 1);
	ck_assert_uint_eq(st.maps_cached, 1);
	/* new pcs: read for them only, the old ones' answers kept */
	ck_assert_int_eq(lookup(pl, child, now, more, 3), 0);
	ck_assert_str_eq(got, "1000 10 JS:*spinA /x/spin.js:1:15|");
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.maps_read, 2);
	ck_assert_uint_eq(st.pcs_kept, 5);
	/* the map changed: the code at 0x1000 is another function now */
	write_map(map, "1000 10 JS:*spinA /x/spin.js:1:15\n1000 20 JS:*spinC /x/spin.js:9:1\n");
	ck_assert_int_eq(lookup(pl, child, now, a, 1), 0);
	ck_assert_str_eq(got, "1000 20 JS:*spinC /x/spin.js:9:1|");
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.maps_read, 3);
	ck_assert_uint_eq(st.pcs_kept, 1);
	/* a sample before the process started: another process had the pid */
	ck_assert_int_eq(lookup(pl, child, 1, a, 1), 0);
	ck_assert_uint_eq(nr_got, 0);
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.procs_gone, 1);
	ck_assert_uint_eq(st.procs_kept, 0);
	/* a symlink to a root-only file: refused, told and counted once, never read */
	unlink(map);
	ck_assert_int_eq(symlink("/etc/shadow", map), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(lookup(pl, child, now, a, 1), 0);
		ck_assert_uint_eq(nr_got, 0);
	}
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.skipped[PERFMAP_SKIP_SYMLINK], 1);
	ck_assert_uint_eq(told, 1);
	ck_assert_uint_eq(st.maps_read, 3);
	/* no map: counted once */
	unlink(map);
	ck_assert_int_eq(lookup(pl, child, now, a, 1), 0);
	ck_assert_int_eq(lookup(pl, child, now, a, 1), 0);
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.maps_absent, 1);
	ck_assert_uint_eq(st.procs_kept, 1);
	/* gone: forgotten */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ck_assert_int_eq(lookup(pl, child, now, a, 1), 0);
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.procs_gone, 2);
	ck_assert_uint_eq(st.procs_kept, 0);
	ck_assert_uint_eq(st.pcs_kept, 0);
	perfmap_live__free(pl);
}
END_TEST

/* More pcs than a process may keep: answered all the same, kept none, read each time. */
START_TEST(test_live_bounds)
{
	const size_t n = PERFMAP_LIVE_MAX_PROC_PCS + 1;
	uint64_t *pcs = malloc(n * sizeof(*pcs));
	struct perfmap_live_stats st;
	struct perfmap_live *pl = perfmap_live__new("/proc", NULL, NULL);
	char map[64];
	pid_t child = child_start(map, sizeof(map));

	ck_assert_ptr_nonnull(pcs);
	ck_assert_ptr_nonnull(pl);
	for (size_t i = 0; i < n; i++)
		pcs[i] = 0x100000 + i;
	write_map(map, "100000 100 first\n200000 10 none\n");
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(lookup(pl, child, clock_ns(CLOCK_BOOTTIME), pcs, n), 0);
		ck_assert_str_eq(got, "100000 100 first|");
	}
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.maps_read, 2);
	ck_assert_uint_eq(st.pcs_dropped, 2 * n);
	ck_assert_uint_eq(st.pcs_kept, 0);
	/* 1000 new pcs at once: kept (room made for all of them) */
	ck_assert_int_eq(lookup(pl, child, clock_ns(CLOCK_BOOTTIME), pcs, 1000), 0);
	ck_assert_str_eq(got, "100000 100 first|");
	perfmap_live_stats(pl, &st);
	ck_assert_uint_eq(st.pcs_kept, 1000);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	unlink(map);
	perfmap_live__free(pl);
	free(pcs);
}
END_TEST

static Suite *perfmap_live_suite(void)
{
	Suite *s = suite_create("perfmap_live");
	TCase *tc = tcase_create("perfmap_live");

	tcase_add_test(tc, test_live_cache);
	tcase_add_test(tc, test_live_bounds);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(perfmap_live_suite)
