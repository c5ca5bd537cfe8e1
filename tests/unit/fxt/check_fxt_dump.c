// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxt_dump: every kind of record as `fxsampler dump` prints it, strings
 * escaped, and snprintf's contract on a short buffer.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_dump.h"
#include "fxt/fxt_reader.h"
#include "check_main.h"
#include "fxt_check.h"

START_TEST(test_format)
{
	static const uint8_t bid[] = {0xab, 0xcd, 0xef, 0x01};
	static const uint64_t frames[] = {0x401000, 0x401100, 0x401200};
	static const char weird[] = "a\"b\\c\n\x01\xff";
	const char *exp =
		"0x00000000 magic\n"
		"0x00000008 provider id=1 name=\"fxsampler\"\n"
		"0x00000020 provider_section id=1\n"
		"0x00000028 init ticks_per_second=1000000000\n"
		"0x00000038 string index=1 \"worker\"\n"
		"0x00000048 thread index=1 pid=1234 tid=1235\n"
		"0x00000060 kobj process koid=1234 name=\"a.out\"\n"
		"0x00000078 kobj thread koid=1235 name=\"worker\" process=1234\n"
		"0x000000a0 backtrace ts=123 pid=1234 tid=1235 frames=3 flags=0x0 0x401000 "
		"0x401100 0x401200\n"
		"0x000000c8 backtrace ts=124 pid=1234 tid=1236 frames=1 flags=0x3b83 cpu=59 "
		"0x401000\n"
		"0x000000f0 module ts=5 pid=1234 id=0 name=\"/usr/bin/x\" build_id=abcdef01\n"
		"0x00000128 mmap ts=5 pid=1234 id=0 start=0x401000 size=0x2000 vaddr=0x1000 "
		"flags=0x5\n"
		"0x00000160 counter ts=200 pid=1234 tid=1235 category=\"fxsampler\" name=\"drops\" "
		"id=0 written=10 dropped=0\n"
		"0x000001c0 provider_event id=1 event=0 (records dropped)\n"
		"0x000001c8 string index=2 \"a\\\"b\\\\c\\x0a\\x01\\xff\"\n"
		"0x000001d8 instant ts=7 pid=1234 tid=1235 category=\"\" "
		"name=\"a\\\"b\\\\c\\x0a\\x01"
		"\\xff\" i=-5 b=true s=\"v\" d=1.5 p=0xdead\n"
		"0x00000250 large type=0 words=3 (skipped)\n"
		"0x00000268 record type=11 words=2 (skipped)\n";
	struct fxt_sref inl_aout = {.s = "a.out", .len = 5}, s1 = {.index = 1};
	struct fxt_sref s2 = {.index = 2}, none = {0};
	struct fxt_sref fxs = {.s = "fxsampler", .len = 9}, drops = {.s = "drops", .len = 5};
	struct fxt_tref t1 = {.index = 1}, inl_t = {.pid = 1234, .tid = 1236};
	struct fxt_tref inl_p = {.pid = 1234};
	struct fxt_arg args[5];
	struct fxt_buf b = {0};
	struct fxt_reader *r;
	struct fxt_record rec;
	char *text, small[16];

	memset(args, 0, sizeof(args));
	ck_assert_int_eq(fxt_put_magic(&b), 0);
	ck_assert_int_eq(fxt_put_provider_info(&b, 1, "fxsampler"), 0);
	ck_assert_int_eq(fxt_put_provider_section(&b, 1), 0);
	ck_assert_int_eq(fxt_put_init(&b, GHZ), 0);
	ck_assert_int_eq(fxt_put_string(&b, 1, "worker", 6), 0);
	ck_assert_int_eq(fxt_put_thread(&b, 1, 1234, 1235), 0);
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1234, inl_aout, NULL, 0), 0);
	args[0].type = FXT_ARG_KOID;
	args[0].name.s = "process";
	args[0].name.len = 7;
	args[0].u = 1234;
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_THREAD, 1235, s1, args, 1), 0);
	ck_assert_int_eq(fxt_put_backtrace(&b, 123, t1, 0, frames, 3), 0);
	ck_assert_int_eq(fxt_put_backtrace(&b, 124, inl_t, 3 | FXT_BT_CPU(59), frames, 1), 0);
	ck_assert_int_eq(fxt_put_module(&b, 5, inl_p, 0, "/usr/bin/x", 10, bid, 4), 0);
	ck_assert_int_eq(fxt_put_mmap(&b, 5, inl_p, 0, 5, 0x401000, 0x2000, 0x1000), 0);
	memset(args, 0, sizeof(args));
	args[0].type = FXT_ARG_UINT64;
	args[0].name.s = "written";
	args[0].name.len = 7;
	args[0].u = 10;
	args[1].type = FXT_ARG_UINT64;
	args[1].name.s = "dropped";
	args[1].name.len = 7;
	ck_assert_int_eq(fxt_put_event(&b, FXT_EVENT_COUNTER, 200, t1, fxs, drops, args, 2, 0), 0);
	ck_assert_int_eq(fxt_put_provider_event(&b, 1, 0), 0);
	ck_assert_int_eq(fxt_put_string(&b, 2, weird, strlen(weird)), 0);
	memset(args, 0, sizeof(args));
	args[0].type = FXT_ARG_INT32;
	args[0].name.s = "i";
	args[0].name.len = 1;
	args[0].u = (uint64_t)-5;
	args[1].type = FXT_ARG_BOOL;
	args[1].name.s = "b";
	args[1].name.len = 1;
	args[1].u = 1;
	args[2].type = FXT_ARG_STRING;
	args[2].name.s = "s";
	args[2].name.len = 1;
	args[2].str.s = "v";
	args[2].str.len = 1;
	args[3].type = FXT_ARG_DOUBLE;
	args[3].name.s = "d";
	args[3].name.len = 1;
	args[3].d = 1.5;
	args[4].type = FXT_ARG_POINTER;
	args[4].name.s = "p";
	args[4].name.len = 1;
	args[4].u = 0xdead;
	ck_assert_int_eq(fxt_put_event(&b, FXT_EVENT_INSTANT, 7, t1, none, s2, args, 5, 0), 0);
	put_raw(&b, FXT_RT_LARGE | 3 << 4);
	put_raw(&b, 0);
	put_raw(&b, 0);
	put_raw(&b, 11 | 2 << 4);
	put_raw(&b, 0);

	r = fxt_reader__open_mem(b.data, b.len);
	ck_assert_ptr_nonnull(r);
	text = dump(r);
	fxt_reader__free(r);
	ck_assert_str_eq(text, exp);
	free(text);

	/* A short buffer: snprintf semantics, always terminated */
	r = fxt_reader__open_mem(b.data, b.len);
	ck_assert_ptr_nonnull(r);
	next_record(r, &rec, FXT_RT_METADATA);
	next_record(r, &rec, FXT_RT_METADATA);
	ck_assert_int_eq(fxt_record_format(&rec, small, sizeof(small)),
			 strlen("0x00000008 provider id=1 name=\"fxsampler\""));
	ck_assert_str_eq(small, "0x00000008 prov");
	fxt_reader__free(r);
	fxt_buf_free(&b);
}
END_TEST

static Suite *fxt_dump_suite(void)
{
	Suite *s = suite_create("fxt_dump");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, test_format);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(fxt_dump_suite)
