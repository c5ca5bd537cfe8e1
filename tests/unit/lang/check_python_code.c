// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPython's objects as bytes (lang/python_code.h), on bytes CPython 3.11
 * itself made, and the interpreter detection (lang/python_elf.h) on the
 * system's python3.11 when it has one.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/python_code.h"
#include "lang/python_elf.h"
#include "check_main.h"

/*
 * co_linetable of this function, and co_positions()' line of each of its 49
 * code units, from Debian 12's python3.11:
 *
 *  1 def sample(n):
 *  2     total = 0
 *  3     for i in range(n):
 *  4         if i % 3 == 0:
 *  5             total += i * 2
 *  6         else:
 *  7             total -= 1
 *  8
 *  9
 * 10     return (total
 * 11             + 1)
 */
static const uint8_t table[] = {
	0x80, 0x00, 0xd8, 0x0c, 0x0d, 0x80, 0x45, 0xdd, 0x0d, 0x12, 0x90, 0x31, 0x89, 0x58, 0x8c,
	0x58, 0xf0, 0x00, 0x04, 0x05, 0x17, 0xf0, 0x00, 0x04, 0x05, 0x17, 0x88, 0x01, 0xd8, 0x0b,
	0x0c, 0x88, 0x71, 0x89, 0x35, 0x90, 0x41, 0x8a, 0x3a, 0x88, 0x3a, 0xd8, 0x0c, 0x11, 0x90,
	0x51, 0x98, 0x11, 0x91, 0x55, 0x89, 0x4e, 0x88, 0x45, 0x88, 0x45, 0xe0, 0x0c, 0x11, 0x90,
	0x51, 0x89, 0x4a, 0x88, 0x45, 0x88, 0x45, 0xf0, 0x06, 0x00, 0x0d, 0x12, 0xd8, 0x0e, 0x0f,
	0xf1, 0x03, 0x01, 0x0d, 0x10, 0xf0, 0x00, 0x01, 0x05, 0x11};
static const int lines[] = {1, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,  3,  3,  3,  3, 3, 3,
			    3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4,  4,  5,  5,  5, 5, 5,
			    5, 5, 5, 5, 7, 7, 7, 7, 7, 7, 10, 11, 10, 10, 10};

START_TEST(test_line_table)
{
	for (int i = 0; i < (int)(sizeof(lines) / sizeof(lines[0])); i++)
		ck_assert_int_eq(py_line_of(table, sizeof(table), 1, i), lines[i]);
	/* not started: the first line; past the end, or a broken table: none */
	ck_assert_int_eq(py_line_of(table, sizeof(table), 1, -1), 1);
	ck_assert_int_eq(py_line_of(table, sizeof(table), 1, 49), -1);
	ck_assert_int_eq(py_line_of(table, 5, 1, 40), -1);
	ck_assert_int_eq(py_line_of((const uint8_t *)"\x01\x02", 2, 1, 0), -1);
	ck_assert_int_eq(py_line_of(NULL, 0, 7, 0), -1);
	/* a varint cut short ends the walk, not the reader */
	ck_assert_int_eq(py_line_of((const uint8_t *)"\xe8\x7f", 2, 1, 0), -1);
	/* code 15: no location */
	ck_assert_int_eq(py_line_of((const uint8_t *)"\xf8", 1, 1, 0), -1);
}
END_TEST

/* A compact ASCII str and a compact UCS-2 one, as 3.11 lays them out. */
START_TEST(test_str)
{
	const struct py_layout *l = py_layout_for(11);
	uint8_t hdr[72] = {0};
	size_t off, len;
	unsigned kind;
	char out[16];
	const uint8_t ucs2[] = {'a', 0, 0xe9, 0, 0xac, 0x20}; /* "aé€" */

	ck_assert_ptr_nonnull(l);
	hdr[16] = 5;				     /* length */
	hdr[32] = 1 << 2 | 1 << 5 | 1 << 6 | 1 << 7; /* kind 1, compact, ascii, ready */
	ck_assert(py_str_header(l, hdr, &off, &len, &kind));
	ck_assert_uint_eq(off, 48);
	ck_assert_uint_eq(len, 5);
	ck_assert_uint_eq(kind, 1);
	hdr[16] = 3;
	hdr[32] = 2 << 2 | 1 << 5 | 1 << 7; /* kind 2, compact, ready */
	ck_assert(py_str_header(l, hdr, &off, &len, &kind));
	ck_assert_uint_eq(off, 72);
	ck_assert_uint_eq(len, 6);
	ck_assert_uint_eq(py_str_utf8(ucs2, len, kind, out, sizeof(out)), 6);
	ck_assert_str_eq(out, "a\xc3\xa9\xe2\x82\xac");
	/* cut at a character, never inside one */
	ck_assert_uint_eq(py_str_utf8(ucs2, len, kind, out, 4), 3);
	ck_assert_str_eq(out, "a\xc3\xa9");
	/* not compact, not ready, a bad kind, an ASCII string of wide kind */
	hdr[32] = 1 << 2 | 1 << 7;
	ck_assert(!py_str_header(l, hdr, &off, &len, &kind));
	hdr[32] = 1 << 2 | 1 << 5;
	ck_assert(!py_str_header(l, hdr, &off, &len, &kind));
	hdr[32] = 3 << 2 | 1 << 5 | 1 << 7;
	ck_assert(!py_str_header(l, hdr, &off, &len, &kind));
	hdr[32] = 2 << 2 | 1 << 5 | 1 << 6 | 1 << 7;
	ck_assert(!py_str_header(l, hdr, &off, &len, &kind));
}
END_TEST

/* The code object's fields and the check the BPF walk computes alike. */
START_TEST(test_code_refs)
{
	const struct py_layout *l = py_layout_for(11);
	uint8_t obj[184] = {0};
	struct py_code_refs r;

	ck_assert_ptr_null(py_layout_for(10));
	ck_assert_ptr_null(py_layout_for(12));
	obj[72] = 12; /* co_firstlineno */
	obj[76] = 3;  /* co_nlocalsplus */
	obj[112] = 1; /* co_filename */
	obj[128] = 2; /* co_qualname */
	obj[136] = 3; /* co_linetable */
	py_code_refs(l, obj, &r);
	ck_assert_int_eq(r.firstlineno, 12);
	ck_assert_uint_eq(r.filename, 1);
	ck_assert_uint_eq(r.qualname, 2);
	ck_assert_uint_eq(r.linetable, 3);
	ck_assert_uint_eq(py_code_check(l, obj), FXS_PY_CHECK(12u, 3u));
	ck_assert_uint_eq(py_code_check(l, obj) >> 31, 0);
	/* no code object's check is the walk's "not read" (FXS_PY_UNCHECKED) */
	ck_assert_uint_ne(FXS_PY_CHECK(FXS_PY_UNCHECKED, 0u), FXS_PY_UNCHECKED);
	ck_assert_uint_ne(FXS_PY_CHECK(0xffffffffu, 0xffffffffu), FXS_PY_UNCHECKED);
	ck_assert_uint_ne(FXS_PY_CHECK(0u, 0x4000u), FXS_PY_UNCHECKED);
	memset(obj + 72, 0xff, 8);
	ck_assert_uint_ne(py_code_check(l, obj), FXS_PY_UNCHECKED);
}
END_TEST

/* Debian 12's python3.11: an interpreter of the table's layout; libc is none. */
START_TEST(test_detect)
{
	struct py_image img;
	int fd = open("/usr/bin/python3.11", O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "SKIP test_detect: no /usr/bin/python3.11\n");
		return;
	}
	ck_assert_int_eq(py_image_detect(fd, &img), 0);
	close(fd);
	ck_assert_int_eq(img.kind, PY_IMAGE_OK);
	ck_assert_uint_eq(img.major, 3);
	ck_assert_uint_eq(img.minor, 11);
	ck_assert_uint_ne(img.runtime, 0);
	/* PyCode_Type: what a code object's ob_type must be */
	ck_assert_uint_ne(img.code_type, 0);
	ck_assert_uint_ne(img.code_type, img.runtime);
	ck_assert_ptr_eq(img.layout, py_layout_for(11));
	fd = open("/bin/sh", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(py_image_detect(fd, &img), 0);
	close(fd);
	ck_assert_int_eq(img.kind, PY_IMAGE_NONE);
	ck_assert_str_eq(py_image_kind_name(PY_IMAGE_UNSUPPORTED), "unsupported version");
}
END_TEST

/*
 * The symbols found by the GNU hash table are the ones a scan of .dynsym
 * finds: the same python3.11 without its .gnu.hash section (objcopy) is
 * read by the scan.
 */
START_TEST(test_detect_by_hash_as_by_scan)
{
	char copy[] = "/tmp/fxs-py-nohash-XXXXXX", cmd[256];
	struct py_image by_hash, by_scan;
	int fd = open("/usr/bin/python3.11", O_RDONLY), tmp;

	if (fd < 0) {
		fprintf(stderr, "SKIP test_detect_by_hash_as_by_scan: no /usr/bin/python3.11\n");
		return;
	}
	ck_assert_int_eq(py_image_detect(fd, &by_hash), 0);
	close(fd);
	tmp = mkstemp(copy);
	ck_assert_int_ge(tmp, 0);
	close(tmp);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --remove-section .gnu.hash /usr/bin/python3.11 %s && "
		 "! readelf -S %s | grep -q GNU_HASH",
		 copy, copy);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	fd = open(copy, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(py_image_detect(fd, &by_scan), 0);
	close(fd);
	unlink(copy);
	ck_assert_int_eq(by_hash.kind, PY_IMAGE_OK);
	ck_assert_int_eq(by_scan.kind, PY_IMAGE_OK);
	ck_assert_uint_eq(by_hash.runtime, by_scan.runtime);
	ck_assert_uint_eq(by_hash.code_type, by_scan.code_type);
	ck_assert_uint_eq(by_hash.none, by_scan.none);
	ck_assert_uint_eq(by_hash.minor, by_scan.minor);
}
END_TEST

static Suite *python_code_suite(void)
{
	Suite *s = suite_create("python_code");
	TCase *tc = tcase_create("bytes");

	tcase_add_test(tc, test_line_table);
	tcase_add_test(tc, test_str);
	tcase_add_test(tc, test_code_refs);
	tcase_add_test(tc, test_detect);
	tcase_add_test(tc, test_detect_by_hash_as_by_scan);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(python_code_suite)
