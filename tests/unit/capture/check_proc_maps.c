// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* proc_maps: the /proc/PID/maps parser, from fixtures, lines and this process. */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/proc_maps.h"
#include "fixture.h"
#include "check_main.h"

START_TEST(test_maps_fixture)
{
	struct proc_map *maps = NULL;
	size_t n = 0;
	const struct proc_map *m;

	ck_assert_int_eq(proc_maps_read(test_data("maps_basic.txt"), &maps, &n), 0);
	ck_assert_uint_eq(n, 12);

	m = &maps[0];
	ck_assert_uint_eq(m->start, 0x55d4a6c00000ULL);
	ck_assert_uint_eq(m->end, 0x55d4a6c02000ULL);
	ck_assert_str_eq(m->perms, "r--p");
	ck_assert_uint_eq(m->offset, 0);
	ck_assert_uint_eq(m->dev_major, 0x103);
	ck_assert_uint_eq(m->dev_minor, 0x2);
	ck_assert_uint_eq(m->inode, 1312040);
	ck_assert_str_eq(m->path, "/usr/bin/cat");
	ck_assert(!m->deleted);

	m = &maps[1];
	ck_assert_str_eq(m->perms, "r-xp");
	ck_assert_uint_eq(m->offset, 0x2000);
	ck_assert_uint_eq(proc_map_elf_flags(m), PF_R | PF_X);

	m = &maps[3];
	ck_assert_str_eq(m->path, "[heap]");
	ck_assert_str_eq(m->perms, "rw-p");
	ck_assert_uint_eq(proc_map_elf_flags(m), PF_R | PF_W);

	/* Anonymous: no path, though the line is padded. */
	ck_assert_ptr_null(maps[4].path);
	ck_assert_uint_eq(maps[4].inode, 0);

	ck_assert_str_eq(maps[5].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	ck_assert_uint_eq(maps[5].offset, 0x28000);

	m = &maps[6];
	ck_assert_str_eq(m->path, "/tmp/my dir/lib with  spaces.so");
	ck_assert(!m->deleted);
	m = &maps[7];
	ck_assert_str_eq(m->path, "/tmp/old build/libgone.so");
	ck_assert(m->deleted);
	ck_assert_str_eq(m->perms, "r-xs");

	ck_assert_str_eq(maps[8].path, "[stack]");
	ck_assert_str_eq(maps[9].path, "[vvar]");
	ck_assert_str_eq(maps[10].path, "[vdso]");
	m = &maps[11];
	ck_assert_str_eq(m->path, "[vsyscall]");
	ck_assert_uint_eq(m->start, 0xffffffffff600000ULL);
	ck_assert_uint_eq(m->end, 0xffffffffff601000ULL);
	ck_assert_str_eq(m->perms, "--xp");
	ck_assert_uint_eq(proc_map_elf_flags(m), PF_X);

	ck_assert_ptr_eq(proc_maps_find(maps, n, 0x55d4a6c00000ULL), &maps[0]);
	ck_assert_ptr_eq(proc_maps_find(maps, n, 0x55d4a6c01fffULL), &maps[0]);
	ck_assert_ptr_eq(proc_maps_find(maps, n, 0x55d4a6c02000ULL), &maps[1]);
	ck_assert_ptr_null(proc_maps_find(maps, n, 0x1000));
	ck_assert_ptr_null(proc_maps_find(maps, n, 0x7ffd00000000ULL));
	ck_assert_ptr_eq(proc_maps_find(maps, n, 0xffffffffff600800ULL), &maps[11]);
	proc_maps_free(maps, n);
}
END_TEST

START_TEST(test_maps_bad_fixtures)
{
	static const struct {
		const char *file;
		size_t line;
	} bad[] = {
		{"maps_bad_perms.txt", 2},
		{"maps_bad_range.txt", 3},
		{"maps_bad_truncated.txt", 2},
	};
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct proc_map *maps = (struct proc_map *)1;
		size_t n = 77, line = 0;
		FILE *f = fopen(test_data(bad[i].file), "re");

		ck_assert_msg(f, "%s", bad[i].file);
		ck_assert_int_eq(proc_maps_parse(f, &maps, &n, &line), -EBADMSG);
		ck_assert_uint_eq(line, bad[i].line);
		/* Output parameters are written only on success. */
		ck_assert_ptr_eq(maps, (struct proc_map *)1);
		ck_assert_uint_eq(n, 77);
		fclose(f);
	}
}
END_TEST

START_TEST(test_maps_empty_and_missing)
{
	struct proc_map *maps = (struct proc_map *)1;
	size_t n = 5;
	FILE *f = fmemopen((void *)"", 0, "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(proc_maps_parse(f, &maps, &n, NULL), 0);
	ck_assert_ptr_null(maps);
	ck_assert_uint_eq(n, 0);
	fclose(f);
	ck_assert_int_eq(proc_maps_read("/nonexistent/maps", &maps, &n), -ENOENT);
	/* No process 0. */
	ck_assert_int_eq(proc_maps_read("/proc/0/maps", &maps, &n), -ENOENT);
}
END_TEST

START_TEST(test_maps_lines)
{
	static const char *const good[] = {
		"00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon\n",
		"7f0000000000-7f0000001000 ---p 00000000 00:00 0",
		"7f0000000000-7f0000001000 ---p 00000000 00:00 0 ",
		"0-0 rw-s 0 0:0 0",
		/* The largest value of every field. */
		("ffffffffffffffff-ffffffffffffffff rwxp ffffffffffffffff fff:fffff "
		 "18446744073709551615 x"),
		"7f00-7f01 r--p 00000000 fd:00 12 /a (deleted)",
		"7f00-7f01 r--p 00000000 fd:00 12  (deleted)",
	};
	static const char *const bad[] = {
		"",
		"\n",
		"garbage",
		"7f00-7f01",
		"7f00-7f01 ",
		"7f00-7f01 r--p",
		"7f00-7f01 r--p 0",
		"7f00-7f01 r--p 0 08",
		"7f00-7f01 r--p 0 08:",
		"7f00-7f01 r--p 0 08:02",
		"7f00-7f01 r--p 0 08:02 ",
		"7f00-7f01 r--p 0 08:02 x /bin/x",
		"7f00-7f01 r--q 0 08:02 1 /bin/x",
		"7f00-7f01 rw-pp 0 08:02 1 /bin/x",
		"7f00-7f01 R--p 0 08:02 1 /bin/x",
		"7f01-7f00 r--p 0 08:02 1 /bin/x",
		"7f00 7f01 r--p 0 08:02 1 /bin/x",
		"-7f01 r--p 0 08:02 1 /bin/x",
		"7f00-7f01  r--p 0 08:02 1 /bin/x",
		"10000000000000000-10000000000000001 r--p 0 08:02 1 /x",
		"7f00-7f01 r--p 0 08:02 18446744073709551616 /x",
		"7f00-7f01 r--p 0 123456789:02 1 /x",
		"7f00-7f01 r--p 0 08:02 1x /x",
		"7f00-7f01 r--p 0 08:02 1 /x\n\n",
		"7f00-7f01 r--p 0 08:02 1 /a\nb",
		"g000-7f01 r--p 0 08:02 1 /x",
	};
	struct proc_map m;
	unsigned i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ck_assert_msg(proc_map_parse_line(good[i], strlen(good[i]), &m) == 0, "good %u: %s",
			      i, good[i]);
		proc_map_clear(&m);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(proc_map_parse_line(bad[i], strlen(bad[i]), &m) == -EBADMSG,
			      "bad %u: %s", i, bad[i]);

	ck_assert_int_eq(proc_map_parse_line(good[4], strlen(good[4]), &m), 0);
	ck_assert_uint_eq(m.start, UINT64_MAX);
	ck_assert_uint_eq(m.dev_major, 0xfff);
	ck_assert_uint_eq(m.dev_minor, 0xfffff);
	ck_assert_uint_eq(m.inode, UINT64_MAX);
	ck_assert_str_eq(m.path, "x");
	proc_map_clear(&m);
	/* " (deleted)" alone is a name, not a suffix of one. */
	ck_assert_int_eq(proc_map_parse_line(good[6], strlen(good[6]), &m), 0);
	ck_assert_str_eq(m.path, "(deleted)");
	ck_assert(!m.deleted);
	proc_map_clear(&m);
	/* An embedded NUL would cut the path. */
	ck_assert_int_eq(proc_map_parse_line("7f00-7f01 r--p 0 08:02 1 /a\0b", 29, &m), -EBADMSG);
	ck_assert_int_eq(proc_map_parse_line(NULL, 0, &m), -EBADMSG);
}
END_TEST

/* Mutated lines never crash the parser and are either parsed sanely or rejected. */
START_TEST(test_maps_mutations)
{
	static const char *const seeds[] = {
		"55d4a6c02000-55d4a6c07000 r-xp 00002000 103:02 1312040   /usr/bin/cat\n",
		"7ffd5e9f1000-7ffd5e9f3000 r-xp 00000000 00:00 0                          [vdso]\n",
		"7f00-7f01 r--p 0 08:02 1 /a b (deleted)\n",
	};
	const char alphabet[] = "0123456789abcdefxg-: /\n\t(rwps)\0";
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	char line[256];
	unsigned i, ok = 0, rejected = 0;

	for (i = 0; i < 20000; i++) {
		const char *seed = seeds[i % 3];
		size_t len = strlen(seed), k, edits;
		struct proc_map m;
		int err;

		memcpy(line, seed, len);
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		edits = 1 + rng % 4;
		for (k = 0; k < edits; k++) {
			size_t pos;

			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			pos = rng % len;
			switch ((rng >> 20) % 3) {
			case 0:
				line[pos] = alphabet[(rng >> 32) % (sizeof(alphabet) - 1)];
				break;
			case 1:
				len = pos;
				break;
			default:
				if (len + 1 < sizeof(line)) {
					memmove(line + pos + 1, line + pos, len - pos);
					line[pos] = alphabet[(rng >> 32) % (sizeof(alphabet) - 1)];
					len++;
				}
			}
			if (!len)
				break;
		}
		err = proc_map_parse_line(line, len, &m);
		ck_assert_msg(err == 0 || err == -EBADMSG, "err %d", err);
		if (!err) {
			ck_assert_uint_le(m.start, m.end);
			ck_assert_uint_eq(strlen(m.perms), 4);
			ck_assert(!m.path || !strchr(m.path, '\n'));
			proc_map_clear(&m);
			ok++;
		} else {
			rejected++;
		}
	}
	/* Both outcomes must occur, or the mutations test nothing. */
	ck_assert_uint_gt(ok, 100);
	ck_assert_uint_gt(rejected, 100);
}
END_TEST

START_TEST(test_maps_self)
{
	struct proc_map *maps = NULL;
	const struct proc_map *m;
	char exe[PATH_MAX] = "";
	size_t n = 0, i;

	ck_assert_int_gt(readlink("/proc/self/exe", exe, sizeof(exe) - 1), 0);
	ck_assert_int_eq(proc_maps_read("/proc/self/maps", &maps, &n), 0);
	ck_assert_uint_gt(n, 3);
	for (i = 1; i < n; i++)
		ck_assert_uint_le(maps[i - 1].end, maps[i].start);
	m = proc_maps_find(maps, n, (uint64_t)(uintptr_t)&proc_map_parse_line);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->perms[2], 'x');
	ck_assert_ptr_nonnull(m->path);
	ck_assert_str_eq(m->path, exe);
	proc_maps_free(maps, n);
}
END_TEST

/*
 * proc_map_parse_line(NULL, 0, ...) computed line + len before its NULL
 * check (daemon/capture/proc_maps.c, struct cursor initializer): undefined behaviour,
 * reported by UBSan in test_maps_lines. A test of its own, so that
 * `make check-asan` names it (UBSan: "applying zero offset to null pointer").
 */
START_TEST(test_maps_null_line)
{
	struct proc_map m;

	ck_assert_int_eq(proc_map_parse_line(NULL, 0, &m), -EBADMSG);
	ck_assert_int_eq(proc_map_parse_line("", 0, &m), -EBADMSG);
}
END_TEST

static Suite *proc_maps_suite(void)
{
	Suite *s = suite_create("proc_maps");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_maps_fixture);
	tcase_add_test(tc, test_maps_bad_fixtures);
	tcase_add_test(tc, test_maps_empty_and_missing);
	tcase_add_test(tc, test_maps_lines);
	tcase_add_test(tc, test_maps_mutations);
	tcase_add_test(tc, test_maps_self);
	tcase_add_test(tc, test_maps_null_line);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(proc_maps_suite)
