// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPython 3.13's _Py_DebugOffsets (lang/python_debug_offsets.h): the fields
 * from a blob laid out as Debian 13's python3.13 3.13.5 publishes it, each
 * way a blob is refused, the 3.13 table agreeing with it and a changed field
 * named; 3.13's strings (no ready bit); and the detection (lang/python_elf.h)
 * on Debian 13's own python3.13 in the test root (tests/python/root313.sh)
 * when this machine has one, and on a copy of it whose published offsets
 * were changed.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang/python_code.h"
#include "lang/python_debug_offsets.h"
#include "lang/python_elf.h"
#include "check_main.h"

/* make check-live makes it (FXS_PY313_ROOT); this default is make's FXS_CACHE */
#define ROOT313_DEFAULT "/var/cache/fxsampler/py313-root"

/* (word index, value) of Debian 13's python3.13 (3.13.5-2+deb13u5), as read from its file. */
static const uint64_t debian_3135[][2] = {
	{1, 0x30d05f0}, {2, 0},	  {5, 632}, {9, 7344}, {21, 8},	  {23, 72},  {25, 160}, {29, 8},
	{30, 0},	{31, 56}, {33, 70}, {34, 208}, {35, 112}, {37, 128}, {38, 136}, {39, 68},
	{43, 200},	{45, 8},  {65, 16}, {66, 32},  {68, 32},  {69, 16},  {70, 40},
};

static void put(uint8_t *blob, unsigned word, uint64_t v)
{
	for (unsigned k = 0; k < 8; k++)
		blob[8 * word + k] = (uint8_t)(v >> (8 * k));
}

static void make_blob(uint8_t *blob)
{
	memset(blob, 0, PY_DEBUG_OFFSETS_313_LEN);
	memcpy(blob, PY_DEBUG_COOKIE, 8);
	for (size_t i = 0; i < sizeof(debian_3135) / sizeof(debian_3135[0]); i++)
		put(blob, (unsigned)debian_3135[i][0], debian_3135[i][1]);
}

START_TEST(test_parse)
{
	uint8_t blob[PY_DEBUG_OFFSETS_313_LEN];
	struct py_debug_offsets d;
	const char *why = "x";

	make_blob(blob);
	ck_assert_int_eq(py_debug_offsets_313(blob, sizeof(blob), &d), PY_DEBUG_OK);
	ck_assert_uint_eq(d.version, 0x30d05f0);
	ck_assert_uint_eq(d.interpreters_head, 632);
	ck_assert_uint_eq(d.threads_head, 7344);
	ck_assert_uint_eq(d.ts_current_frame, 72);
	ck_assert_uint_eq(d.ts_native_tid, 160);
	ck_assert_uint_eq(d.frame_executable, 0);
	ck_assert_uint_eq(d.frame_instr_ptr, 56);
	ck_assert_uint_eq(d.frame_owner, 70);
	ck_assert_uint_eq(d.code_firstlineno, 68);
	ck_assert_uint_eq(d.code_adaptive, 200);
	ck_assert_uint_eq(d.ascii_size, 40);
	ck_assert(py_debug_offsets_agree(py_layout_for(13), &d, &why));
	ck_assert_ptr_null(why);
	/* 3.11's table is not 3.13's */
	ck_assert(!py_debug_offsets_agree(py_layout_for(11), &d, &why));
	ck_assert_str_eq(why, "interpreters_head");
}
END_TEST

START_TEST(test_refused)
{
	uint8_t blob[PY_DEBUG_OFFSETS_313_LEN];
	struct py_debug_offsets d;
	const char *why;

	make_blob(blob);
	ck_assert_int_eq(py_debug_offsets_313(blob, sizeof(blob) - 1, &d), PY_DEBUG_SHORT);
	blob[0] = 'y';
	ck_assert_int_eq(py_debug_offsets_313(blob, sizeof(blob), &d), PY_DEBUG_NO_COOKIE);
	make_blob(blob);
	put(blob, 1, 0x30e00f0); /* 3.14: another struct */
	ck_assert_int_eq(py_debug_offsets_313(blob, sizeof(blob), &d), PY_DEBUG_VERSION);
	put(blob, 1, 0x30c05f0);
	ck_assert_int_eq(py_debug_offsets_313(blob, sizeof(blob), &d), PY_DEBUG_VERSION);
	/* 3.13t, free-threaded: other objects */
	make_blob(blob);
	put(blob, 2, 1);
	ck_assert_int_eq(py_debug_offsets_313(blob, sizeof(blob), &d), PY_DEBUG_OK);
	ck_assert(!py_debug_offsets_agree(py_layout_for(13), &d, &why));
	ck_assert_str_eq(why, "free_threaded");
	/* a build whose thread list moved */
	make_blob(blob);
	put(blob, 9, 7352);
	ck_assert_int_eq(py_debug_offsets_313(blob, sizeof(blob), &d), PY_DEBUG_OK);
	ck_assert(!py_debug_offsets_agree(py_layout_for(13), &d, &why));
	ck_assert_str_eq(why, "threads_head");
	make_blob(blob);
	put(blob, 43, 208);
	py_debug_offsets_313(blob, sizeof(blob), &d);
	ck_assert(!py_debug_offsets_agree(py_layout_for(13), &d, &why));
	ck_assert_str_eq(why, "code_object.co_code_adaptive");
}
END_TEST

/* 3.13's compact ASCII str: data at 40, bit 7 (statically_allocated) either way. */
START_TEST(test_str_313)
{
	const struct py_layout *l = py_layout_for(13);
	uint8_t hdr[56] = {0};
	size_t off, len;
	unsigned kind;

	hdr[16] = 5;			    /* length */
	hdr[32] = 1 << 2 | 1 << 5 | 1 << 6; /* kind 1, compact, ascii; not "ready" */
	ck_assert(py_str_header(l, hdr, &off, &len, &kind));
	ck_assert_uint_eq(off, 40);
	ck_assert_uint_eq(len, 5);
	hdr[32] |= 1 << 7; /* statically allocated */
	ck_assert(py_str_header(l, hdr, &off, &len, &kind));
	/* a non-ASCII compact str: data after PyCompactUnicodeObject (56) */
	hdr[32] = 2 << 2 | 1 << 5;
	ck_assert(py_str_header(l, hdr, &off, &len, &kind));
	ck_assert_uint_eq(off, 56);
	ck_assert_uint_eq(len, 10);
	/* 3.11 wants ready */
	hdr[32] = 1 << 2 | 1 << 5 | 1 << 6;
	ck_assert(!py_str_header(py_layout_for(11), hdr, &off, &len, &kind));
}
END_TEST

static void *slurp_file(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Debian 13's python3.13: walked; a copy whose _Py_DebugOffsets moved the thread list: not. */
START_TEST(test_detect_313)
{
	const char *root = getenv("FXS_PY313_ROOT");
	char copy[] = "/tmp/fxs-py313-XXXXXX", py[300];
	struct py_image img;
	uint8_t *bytes, *cookie;
	size_t len;
	int fd;

	snprintf(py, sizeof(py), "%s/usr/bin/python3.13", root && *root ? root : ROOT313_DEFAULT);
	fd = open(py, O_RDONLY);
	if (fd < 0) {
		printf("SKIP: test_detect_313 needs Debian 13's python3.13 in %s "
		       "(tests/python/root313.sh, made by make check-live as root); NOT RUN\n",
		       py);
		return;
	}
	ck_assert_int_eq(py_image_detect(fd, &img), 0);
	close(fd);
	ck_assert_msg(img.kind == PY_IMAGE_OK, "python3.13: %s (%s)", py_image_kind_name(img.kind),
		      img.why ? img.why : "");
	ck_assert_uint_eq(img.major, 3);
	ck_assert_uint_eq(img.minor, 13);
	ck_assert_uint_ne(img.none, 0);
	ck_assert_ptr_eq(img.layout, py_layout_for(13));
	/* The same file with threads_head changed in its published offsets. */
	bytes = slurp_file(py, &len);
	/* the cookie is in .rodata too (the string): the struct is the one a 3.13 version follows
	 */
	cookie = bytes;
	while ((cookie = memmem(cookie, len - (size_t)(cookie - bytes), PY_DEBUG_COOKIE, 8)) &&
	       !(cookie[11] == 0x03 && cookie[10] == 0x0d))
		cookie += 8;
	ck_assert_ptr_nonnull(cookie);
	put(cookie, 9, 7352);
	fd = mkstemp(copy);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bytes, len), (ssize_t)len);
	ck_assert_int_eq(py_image_detect(fd, &img), 0);
	close(fd);
	unlink(copy);
	free(bytes);
	ck_assert_int_eq(img.kind, PY_IMAGE_MISMATCH);
	ck_assert_str_eq(img.why, "threads_head");
	ck_assert_ptr_null(img.layout);
}
END_TEST

static Suite *python_debug_offsets_suite(void)
{
	Suite *s = suite_create("python_debug_offsets");
	TCase *tc = tcase_create("bytes");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_str_313);
	tcase_add_test(tc, test_detect_313);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(python_debug_offsets_suite)
