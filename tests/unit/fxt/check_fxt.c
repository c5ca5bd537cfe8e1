/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * FXT writer, and its output read back (the reader's own checks of malformed
 * input: check_fxt_reader.c). The expected header words are derived by hand from
 * shared/docs/fxt-format.md (the arithmetic is in the comments), not copied from
 * the encoder's output, so an encoder bug cannot agree with its own test.
 */
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fxt/fxt.h"
#include "fxt/fxt_stream.h"
#include "fxt/fxt_dump.h"
#include "fxt/fxt_reader.h"
#include "check_main.h"
#include "fxt_check.h"

/* --- helpers --- */

static uint64_t word_at(const uint8_t *data, size_t i)
{
	uint64_t w;

	memcpy(&w, data + i * 8, sizeof(w));
	return le64toh(w);
}

#define ck_assert_word(data, i, exp)                                                               \
	do {                                                                                       \
		uint64_t got_ = word_at((data), (i)), exp_ = (exp);                                \
		ck_assert_msg(got_ == exp_, "word %zu: 0x%016" PRIx64 ", expected 0x%016" PRIx64,  \
			      (size_t)(i), got_, exp_);                                            \
	} while (0)

/* Checks that buf holds exactly these words. */
static void assert_words(const uint8_t *data, size_t len, const uint64_t *exp, size_t n)
{
	size_t i;

	ck_assert_uint_eq(len, n * 8);
	for (i = 0; i < n; i++)
		ck_assert_word(data, i, exp[i]);
}

#define ASSERT_BUF(b, ...)                                                                         \
	do {                                                                                       \
		const uint64_t exp_[] = {__VA_ARGS__};                                             \
		assert_words((b)->data, (b)->len, exp_, sizeof(exp_) / sizeof(exp_[0]));           \
	} while (0)

/* --- golden bytes --- */

START_TEST(test_magic)
{
	static const uint8_t file_bytes[] = {0x10, 0x00, 0x04, 0x46, 0x78, 0x54, 0x16, 0x00};
	struct fxt_buf b = {0};

	ck_assert_int_eq(fxt_put_magic(&b), 0);
	/*
	 * type 0 | size 1 << 4 = 0x10 | metadata type 4 << 16 = 0x40000 |
	 * trace info type 0 << 20 | 0x16547846 << 24 = 0x0016547846000000
	 */
	ASSERT_BUF(&b, 0x0016547846040010ULL);
	ck_assert_mem_eq(b.data, file_bytes, 8);
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_provider_records)
{
	struct fxt_buf b = {0};
	char name[257];

	/*
	 * "linux-ebpf-profiler" is 19 bytes: 3 words of stream, size 4.
	 * 0x40 | 1 << 16 = 0x10000 | id 1 << 20 = 0x100000 | 19 << 52 = 0x013 << 52
	 * Stream words, little-endian: "linux-eb" = 6c 69 6e 75 78 2d 65 62,
	 * "pf-profi" = 70 66 2d 70 72 6f 66 69, "ler" = 6c 65 72.
	 */
	ck_assert_int_eq(fxt_put_provider_info(&b, 1, "linux-ebpf-profiler"), 0);
	ASSERT_BUF(&b, 0x0130000000110040ULL, 0x62652d78756e696cULL, 0x69666f72702d6670ULL,
		   0x000000000072656cULL);
	fxt_buf_free(&b);

	/* Empty name, 32-bit id: 0x10 | 0x10000 | 0xabcdef12 << 20 = 0x000abcdef1200000 */
	ck_assert_int_eq(fxt_put_provider_info(&b, 0xabcdef12, ""), 0);
	ASSERT_BUF(&b, 0x000abcdef1210010ULL);
	fxt_buf_free(&b);

	/* Section: 0x10 | metadata type 2 << 16 = 0x20000 | id 1 << 20 = 0x100000 */
	ck_assert_int_eq(fxt_put_provider_section(&b, 1), 0);
	ASSERT_BUF(&b, 0x0000000000120010ULL);
	fxt_buf_free(&b);

	/*
	 * Event: 0x10 | 3 << 16 = 0x30000 | id << 20 | event << 52.
	 * id 1, event 0 -> 0x130010; id 2, event 15 -> 0xf << 52 | 0x200000 | 0x30010.
	 */
	ck_assert_int_eq(fxt_put_provider_event(&b, 1, FXT_PROVIDER_EVENT_DROPPED), 0);
	ck_assert_int_eq(fxt_put_provider_event(&b, 2, 15), 0);
	ASSERT_BUF(&b, 0x0000000000130010ULL, 0x00f0000000230010ULL);
	fxt_buf_free(&b);

	memset(name, 'n', 256);
	name[256] = '\0';
	ck_assert_int_eq(fxt_put_provider_info(&b, 1, name), -EINVAL);
	ck_assert_int_eq(fxt_put_provider_event(&b, 1, 16), -EINVAL);
	ck_assert_uint_eq(b.len, 0);
	name[255] = '\0';
	ck_assert_int_eq(fxt_put_provider_info(&b, 1, name), 0);
	/* 255 bytes -> 32 words of stream, size 33 = 0x21: 0x210 | 0x110000 | 0xff << 52 */
	ck_assert_word(b.data, 0, 0x0ff0000000110210ULL);
	ck_assert_uint_eq(b.len, 33 * 8);
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_init_string_thread)
{
	struct fxt_buf b = {0};
	char *big;

	/* Init: type 1 | size 2 << 4 = 0x21; then 1e9 = 0x3b9aca00 */
	ck_assert_int_eq(fxt_put_init(&b, GHZ), 0);
	ASSERT_BUF(&b, 0x21, 0x3b9aca00);
	fxt_buf_free(&b);

	/*
	 * String 1 "worker" (6 bytes, 1 word): 2 | 2 << 4 = 0x20 | 1 << 16 | 6 << 32.
	 * "worker" = 77 6f 72 6b 65 72 00 00.
	 */
	ck_assert_int_eq(fxt_put_string(&b, 1, "worker", 6), 0);
	ASSERT_BUF(&b, 0x0000000600010022ULL, 0x000072656b726f77ULL);
	fxt_buf_free(&b);

	/* Index 0x7fff, 8 bytes, no padding: 0x22 | 0x7fff << 16 | 8 << 32 */
	ck_assert_int_eq(fxt_put_string(&b, 0x7fff, "abcdefgh", 8), 0);
	ASSERT_BUF(&b, 0x000000087fff0022ULL, 0x6867666564636261ULL);
	fxt_buf_free(&b);

	/* The longest: 4094 words of text, size 4095: 2 | 0xfff0 | 1 << 16 | 0x7ff0 << 32 */
	big = calloc(1, 0x7fff);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', 0x7fff);
	ck_assert_int_eq(fxt_put_string(&b, 1, big, 4094 * 8), 0);
	ck_assert_word(b.data, 0, 0x00007ff00001fff2ULL);
	ck_assert_uint_eq(b.len, 4095 * 8);
	fxt_buf_free(&b);
	/* One byte more needs 4096 words; 0x7fff bytes would need 4097 */
	ck_assert_int_eq(fxt_put_string(&b, 1, big, 4094 * 8 + 1), -EINVAL);
	ck_assert_int_eq(fxt_put_string(&b, 1, big, 0x7fff), -EINVAL);
	ck_assert_int_eq(fxt_put_string(&b, 0, "a", 1), -EINVAL);
	ck_assert_int_eq(fxt_put_string(&b, 0x8000, "a", 1), -EINVAL);
	ck_assert_uint_eq(b.len, 0);
	free(big);

	/* Thread 1: 3 | 3 << 4 = 0x30 | 1 << 16; thread 255: 0xff << 16 */
	ck_assert_int_eq(fxt_put_thread(&b, 1, 1234, 1235), 0);
	ck_assert_int_eq(fxt_put_thread(&b, 255, 7, 8), 0);
	ASSERT_BUF(&b, 0x0000000000010033ULL, 1234, 1235, 0x0000000000ff0033ULL, 7, 8);
	ck_assert_int_eq(fxt_put_thread(&b, 0, 1, 2), -EINVAL);
	ck_assert_uint_eq(b.len, 6 * 8);
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_kobj)
{
	struct fxt_sref inl_aout = {.s = "a.out", .len = 5};
	struct fxt_sref inl_worker = {.s = "worker", .len = 6};
	struct fxt_arg arg = {
		.type = FXT_ARG_KOID,
		.name = {.s = "process", .len = 7},
		.u = 1234,
	};
	struct fxt_sref idx5 = {.index = 5}, bad = {.index = 0x8000};
	struct fxt_buf b = {0};

	/*
	 * Process 1234 "a.out" inline: size 1 + koid + 1 word of name = 3.
	 * 7 | 3 << 4 = 0x30 | type 1 << 16 | name 0x8005 << 24 | 0 args << 40
	 * "a.out" = 61 2e 6f 75 74.
	 */
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1234, inl_aout, NULL, 0), 0);
	ASSERT_BUF(&b, 0x0000008005010037ULL, 1234, 0x00000074756f2e61ULL);
	fxt_buf_free(&b);

	/*
	 * Thread 1235 "worker" with koid arg "process" = 1234, all inline.
	 * Arg: 8 | size (1 + name 1 + value 1) 3 << 4 = 0x30 | 0x8007 << 16.
	 * Record: size 1 + koid + name 1 + arg 3 = 6: 7 | 0x60 | 2 << 16 |
	 * 0x8006 << 24 | 1 << 40. "process" = 70 72 6f 63 65 73 73.
	 */
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_THREAD, 1235, inl_worker, &arg, 1), 0);
	ASSERT_BUF(&b, 0x0000018006020067ULL, 1235, 0x000072656b726f77ULL, 0x0000000080070038ULL,
		   0x00737365636f7270ULL, 1234);
	fxt_buf_free(&b);

	/* Indexed name: size 2, 7 | 0x20 | 1 << 16 | 5 << 24 */
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 42, idx5, NULL, 0), 0);
	ASSERT_BUF(&b, 0x0000000005010027ULL, 42);
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 42, bad, NULL, 0), -EINVAL);
	ck_assert_uint_eq(b.len, 2 * 8);
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_events)
{
	struct fxt_tref t3 = {.index = 3}, t1 = {.index = 1}, inl = {.pid = 1, .tid = 2};
	struct fxt_sref c1 = {.index = 1}, n2 = {.index = 2}, none = {0};
	struct fxt_sref cat = {.s = "cat", .len = 3}, nm = {.s = "nm", .len = 2};
	struct fxt_arg args[5];
	struct fxt_buf b = {0};

	memset(args, 0, sizeof(args));
	args[0].type = FXT_ARG_UINT64;
	args[0].name.index = 3;
	args[0].u = 10;
	args[1].type = FXT_ARG_UINT64;
	args[1].name.index = 4;
	args[1].u = 0;
	/*
	 * Counter, thread 3, category 1, name 2, 2 uint64 args, id 7.
	 * Size 1 + ts + 2 * (header + value) + id = 7.
	 * 4 | 7 << 4 = 0x70 | type 1 << 16 | 2 args << 20 | thread 3 << 24 |
	 * category 1 << 32 | name 2 << 48.
	 * Args: 4 | size 2 << 4 = 0x20 | name << 16.
	 */
	ck_assert_int_eq(fxt_put_event(&b, FXT_EVENT_COUNTER, 99, t3, c1, n2, args, 2, 7), 0);
	ASSERT_BUF(&b, 0x0002000103210074ULL, 99, 0x0000000000030024ULL, 10, 0x0000000000040024ULL,
		   0, 7);
	fxt_buf_free(&b);

	/*
	 * Instant, all inline: size 1 + ts + pid + tid + "cat" 1 + "nm" 1 = 6.
	 * 4 | 0x60 | category 0x8003 << 32 | name 0x8002 << 48.
	 */
	ck_assert_int_eq(fxt_put_event(&b, FXT_EVENT_INSTANT, 5, inl, cat, nm, NULL, 0, 0), 0);
	ASSERT_BUF(&b, 0x8002800300000064ULL, 5, 1, 2, 0x0000000000746163ULL,
		   0x0000000000006d6eULL);
	fxt_buf_free(&b);

	/*
	 * One argument of each header-encoded kind, in an instant on thread 1:
	 * int32 -5, inline name "i": 1 | 2 << 4 | 0x8001 << 16 | 0xfffffffb << 32;
	 * bool true, name 9: 9 | 1 << 4 | 9 << 16 | 1 << 32;
	 * string, name 1, value inline "xy": 6 | 2 << 4 | 1 << 16 | 0x8002 << 32;
	 * double 1.5, name 2: 5 | 2 << 4 | 2 << 16, then 0x3ff8000000000000;
	 * uint32 0xdeadbeef, name 3: 2 | 1 << 4 | 3 << 16 | 0xdeadbeef << 32.
	 * Args 2 + 1 + 2 + 2 + 1 = 8 words, record 10: 4 | 0xa0 | 5 << 20 | 1 << 24.
	 */
	memset(args, 0, sizeof(args));
	args[0].type = FXT_ARG_INT32;
	args[0].name.s = "i";
	args[0].name.len = 1;
	args[0].u = (uint64_t)-5;
	args[1].type = FXT_ARG_BOOL;
	args[1].name.index = 9;
	args[1].u = 1;
	args[2].type = FXT_ARG_STRING;
	args[2].name.index = 1;
	args[2].str.s = "xy";
	args[2].str.len = 2;
	args[3].type = FXT_ARG_DOUBLE;
	args[3].name.index = 2;
	args[3].d = 1.5;
	args[4].type = FXT_ARG_UINT32;
	args[4].name.index = 3;
	args[4].u = 0xdeadbeef;
	ck_assert_int_eq(fxt_put_event(&b, FXT_EVENT_INSTANT, 6, t1, none, none, args, 5, 0), 0);
	ASSERT_BUF(&b, 0x00000000015000a4ULL, 6, 0xfffffffb80010021ULL, 0x69, 0x0000000100090019ULL,
		   0x0000800200010026ULL, 0x7978, 0x0000000000020025ULL, 0x3ff8000000000000ULL,
		   0xdeadbeef00030012ULL);
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_profiler_records)
{
	static const uint8_t bid[] = {0xab, 0xcd, 0xef, 0x01};
	uint64_t frames[255];
	struct fxt_tref inl = {.pid = 1234}, t7 = {.index = 7}, t2 = {.index = 2};
	struct fxt_tref t5 = {.index = 5}, t255 = {.index = 255};
	struct fxt_tref inl_thread = {.pid = 1234, .tid = 1235};
	struct fxt_buf b = {0};
	unsigned i;

	/*
	 * Module 3 "/usr/bin/x" (10 bytes, 2 words), 4-byte build id (1 word),
	 * inline (1234, 0): size 1 + ts + 2 + 2 + 1 = 7.
	 * 0xa | 7 << 4 = 0x70 | subtype 0 << 16 | thread 0 << 20 | id 3 << 28 |
	 * name 10 << 44 = 0xa00000000000 | build id 4 << 52.
	 * "/usr/bin" = 2f 75 73 72 2f 62 69 6e, "/x" = 2f 78.
	 */
	ck_assert_int_eq(fxt_put_module(&b, 100, inl, 3, "/usr/bin/x", 10, bid, 4), 0);
	ASSERT_BUF(&b, 0x0040a0003000007aULL, 100, 1234, 0, 0x6e69622f7273752fULL, 0x782f,
		   0x01efcdab);
	fxt_buf_free(&b);

	/* Module 0xffff, thread 7, no name or build id: 0xa | 0x20 | 7 << 20 | 0xffff << 28 */
	ck_assert_int_eq(fxt_put_module(&b, 1, t7, 0xffff, NULL, 0, NULL, 0), 0);
	ASSERT_BUF(&b, 0x00000ffff070002aULL, 1);
	fxt_buf_free(&b);

	/*
	 * Mmap of module 3, flags r-x = 5, inline: size 1 + ts + 2 + 3 = 7.
	 * 0xa | 0x70 | subtype 1 << 16 | 3 << 28 | 5 << 44 = 0x500000000000.
	 * Thread 2 instead: size 5, 0x50 and 2 << 20.
	 */
	ck_assert_int_eq(fxt_put_mmap(&b, 100, inl, 3, 5, 0x401000, 0x2000, 0x1000), 0);
	ck_assert_int_eq(fxt_put_mmap(&b, 101, t2, 3, 5, 0x401000, 0x2000, 0x1000), 0);
	ASSERT_BUF(&b, 0x000050003001007aULL, 100, 1234, 0, 0x401000, 0x2000, 0x1000,
		   0x000050003021005aULL, 101, 0x401000, 0x2000, 0x1000);
	fxt_buf_free(&b);

	for (i = 0; i < 255; i++)
		frames[i] = 0x401000 + i;
	/*
	 * Backtrace, inline thread, N frames: size N + 4,
	 * 0xa | (N + 4) << 4 | 2 << 16 | N << 28.
	 * N = 3: 0xa | 0x70 | 0x20000 | 0x30000000.
	 * N = 64: 0xa | 0x440 | 0x20000 | 0x400000000.
	 */
	ck_assert_int_eq(fxt_put_backtrace(&b, 123, inl_thread, 0, frames, 3), 0);
	ASSERT_BUF(&b, 0x3002007aULL, 123, 1234, 1235, 0x401000, 0x401001, 0x401002);
	fxt_buf_free(&b);
	ck_assert_int_eq(fxt_put_backtrace(&b, 123, inl_thread, 0, frames, 64), 0);
	ck_assert_word(b.data, 0, 0x40002044aULL);
	ck_assert_uint_eq(b.len, 68 * 8);
	ck_assert_word(b.data, 67, 0x401000 + 63);
	fxt_buf_free(&b);

	/*
	 * Thread 5, both flags, 2 frames: size 4.
	 * 0xa | 0x40 | 0x20000 | 5 << 20 | 2 << 28 | 3 << 36 = 0x3000000000.
	 */
	ck_assert_int_eq(fxt_put_backtrace(&b, 9, t5,
					   FXT_BT_FLAG_TRUNCATED | FXT_BT_FLAG_PC_IS_RETURN, frames,
					   2),
			 0);
	ASSERT_BUF(&b, 0x000000302052004aULL, 9, 0x401000, 0x401001);
	fxt_buf_free(&b);

	/*
	 * Thread 255, truncated, 255 frames: size 257 = 0x101.
	 * 0xa | 0x1010 | 0x20000 | 0xff << 20 | 0xff << 28 | 1 << 36
	 * = 0xa + 0x1010 + 0x20000 + 0xff00000 + 0xff0000000 + 0x1000000000.
	 */
	ck_assert_int_eq(fxt_put_backtrace(&b, 9, t255, FXT_BT_FLAG_TRUNCATED, frames, 255), 0);
	ck_assert_word(b.data, 0, 0x0000001ffff2101aULL);
	ck_assert_uint_eq(b.len, 257 * 8);
	fxt_buf_free(&b);
}
END_TEST

/* --- validation in the encoders --- */

START_TEST(test_validation)
{
	uint64_t frames[256] = {0};
	char long_name[300];
	struct fxt_tref t = {.pid = 1, .tid = 2};
	struct fxt_sref none = {0}, huge = {0};
	struct fxt_arg args[16];
	struct fxt_buf b = {0};
	uint8_t bid[256] = {0};
	char *big;

	/* Something already in the buffer, which a rejected record must not touch. */
	ck_assert_int_eq(fxt_put_magic(&b), 0);

	ck_assert_int_eq(fxt_put_backtrace(&b, 1, t, 0, frames, 0), -EINVAL);
	ck_assert_int_eq(fxt_put_backtrace(&b, 1, t, 0, frames, 256), -EINVAL);
	/* the 28 bits of the header are all named; one past them is refused */
	ck_assert_int_eq(fxt_put_backtrace(&b, 1, t, 1u << 28, frames, 1), -EINVAL);
	ck_assert_int_eq(fxt_put_backtrace(&b, 1, t, 0, NULL, 1), -EINVAL);

	memset(long_name, 'm', sizeof(long_name));
	ck_assert_int_eq(fxt_put_module(&b, 1, t, 0, long_name, 256, bid, 20), -EINVAL);
	ck_assert_int_eq(fxt_put_module(&b, 1, t, 0, long_name, 10, bid, 256), -EINVAL);
	ck_assert_int_eq(fxt_put_mmap(&b, 1, t, 0, 8, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(fxt_put_thread(&b, 0, 1, 2), -EINVAL);
	ck_assert_int_eq(fxt_put_init(&b, 0), -EINVAL);
	ck_assert_int_eq(fxt_put_kobj(&b, 256, 1, none, NULL, 0), -EINVAL);

	/* A kernel object whose inline name needs 4094 words: 4096 with header and koid. */
	big = malloc(0x7fff);
	ck_assert_ptr_nonnull(big);
	memset(big, 'b', 0x7fff);
	huge.s = big;
	huge.len = 4094 * 8;
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1, huge, NULL, 0), -EINVAL);
	/* 4093 words of name fit exactly: 4095 */
	huge.len = 4093 * 8;
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1, huge, NULL, 0), 0);
	ck_assert_uint_eq(b.len, 8 + 4095 * 8);
	b.len = 8;
	huge.len = 0x8000;
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1, huge, NULL, 0), -EINVAL);

	memset(args, 0, sizeof(args));
	ck_assert_int_eq(fxt_put_event(&b, 0, 1, t, none, none, args, 16, 0), -EINVAL);
	ck_assert_int_eq(fxt_put_event(&b, 11, 1, t, none, none, NULL, 0, 0), -EINVAL);
	/* A string argument too long for any record */
	args[0].type = FXT_ARG_STRING;
	args[0].str.s = big;
	args[0].str.len = 0x7fff;
	ck_assert_int_eq(fxt_put_event(&b, 0, 1, t, none, none, args, 1, 0), -EINVAL);
	args[0].type = 11;
	ck_assert_int_eq(fxt_put_event(&b, 0, 1, t, none, none, args, 1, 0), -EINVAL);
	args[0].type = FXT_ARG_INT32;
	args[0].u = (uint64_t)INT32_MAX + 1;
	ck_assert_int_eq(fxt_put_event(&b, 0, 1, t, none, none, args, 1, 0), -EINVAL);
	args[0].type = FXT_ARG_UINT32;
	args[0].u = (uint64_t)UINT32_MAX + 1;
	ck_assert_int_eq(fxt_put_event(&b, 0, 1, t, none, none, args, 1, 0), -EINVAL);
	args[0].type = FXT_ARG_UINT64;
	args[0].name.index = 0x8000;
	ck_assert_int_eq(fxt_put_event(&b, 0, 1, t, none, none, args, 1, 0), -EINVAL);
	free(big);

	ASSERT_BUF(&b, FXT_MAGIC_WORD);
	fxt_buf_free(&b);
}
END_TEST

/* --- stream --- */

START_TEST(test_stream_bytes)
{
	static const uint64_t frames[] = {0x10, 0x20};
	const char *names[] = {"written", "dropped"};
	const uint64_t values[] = {10, 0};
	struct fxt_stream *s;
	struct mem_sink m;

	s = new_stream(&m);
	/* Magic 1 + provider info 3 + init 2 words, buffered until a flush */
	ck_assert_uint_eq(fxt_stream_bytes(s), 6 * 8);
	ck_assert_uint_eq(m.calls, 0);

	ck_assert_int_eq(fxt_stream_thread(s, 1234, 1235, "worker"), 0);
	ck_assert_int_eq(fxt_stream_process(s, 1234, "worker"), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 9, 1234, 1235, 0, frames, 2), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 10, 1234, 1235, 0, frames, 2), 0);
	ck_assert_int_eq(
		fxt_stream_counter(s, 50, 1234, 1235, "fxsampler", "drops", 0, names, values, 2),
		0);
	ck_assert_int_eq(fxt_stream_dropped(s), 0);
	ck_assert_uint_eq(fxt_stream_bytes(s), 44 * 8);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	ck_assert_uint_eq(m.calls, 1);
	ck_assert_uint_eq(fxt_stream_bytes(s), 44 * 8);
	fxt_stream__free(s);

	{
		const uint64_t exp[] = {
			FXT_MAGIC_WORD,
			/* provider "fxsampler", 9 bytes: 0x30 | 0x110000 | 9 << 52 */
			0x0090000000110030ULL,
			0x656c706d61737866ULL,
			0x72,
			/* init */
			0x21,
			GHZ,
			/* string 1 "worker" */
			0x0000000600010022ULL,
			0x000072656b726f77ULL,
			/* string 2 "process": 0x22 | 2 << 16 | 7 << 32 */
			0x0000000700020022ULL,
			0x00737365636f7270ULL,
			/*
			 * Thread object, name 1, one arg: size 2 + arg (header +
			 * koid) 2 = 4. 7 | 0x40 | 2 << 16 | 1 << 24 | 1 << 40.
			 * Arg: 8 | 2 << 4 | name 2 << 16.
			 */
			0x0000010001020047ULL,
			1235,
			0x0000000000020028ULL,
			1234,
			/* Process object, name 1 again: 7 | 0x20 | 1 << 16 | 1 << 24 */
			0x0000000001010027ULL,
			1234,
			/* The pair gets thread slot 1 */
			0x0000000000010033ULL,
			1234,
			1235,
			/* Backtrace on thread 1: 0xa | 0x40 | 2 << 16 | 1 << 20 | 2 << 28 */
			0x000000002012004aULL,
			9,
			0x10,
			0x20,
			/* The same pair: no thread record this time */
			0x000000002012004aULL,
			10,
			0x10,
			0x20,
			/* Strings 3 "fxsampler", 4 "drops", 5 "written", 6 "dropped" */
			0x0000000900030032ULL,
			0x656c706d61737866ULL,
			0x72,
			0x0000000500040022ULL,
			0x00000073706f7264ULL,
			0x0000000700050022ULL,
			0x006e657474697277ULL,
			0x0000000700060022ULL,
			0x00646570706f7264ULL,
			/*
			 * Counter: size 1 + ts + 2 * 2 + id = 7. 4 | 0x70 | 1 << 16 |
			 * 2 << 20 | thread 1 << 24 | category 3 << 32 | name 4 << 48.
			 */
			0x0004000301210074ULL,
			50,
			0x0000000000050024ULL,
			10,
			0x0000000000060024ULL,
			0,
			0,
			/* Provider event "dropped" on provider 1 */
			0x0000000000130010ULL,
		};
		assert_words(m.data, m.len, exp, sizeof(exp) / sizeof(exp[0]));
	}
	free(m.data);
}
END_TEST

/*
 * Module and mmap records name the process through an indexed thread ref to
 * (pid, 0): no inline thread words, which Fuchsia's readers disagree on.
 */
START_TEST(test_stream_module_mmap_bytes)
{
	static const uint8_t bid[] = {0xab, 0xcd, 0xef, 0x01};
	static const uint64_t frame = 0x401234;
	struct fxt_stream *s;
	struct mem_sink m;

	s = new_stream(&m);
	ck_assert_int_eq(fxt_stream_module(s, 5, 1234, 3, "/usr/bin/x", bid, sizeof(bid)), 0);
	ck_assert_int_eq(fxt_stream_mmap(s, 6, 1234, 3, 5, 0x401000, 0x2000, 0x1000), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 7, 1234, 1235, 0, &frame, 1), 0);
	ck_assert_int_eq(fxt_stream_mmap(s, 8, 1234, 3, 4, 0x403000, 0x1000, 0x3000), 0);
	end_stream(s);
	{
		const uint64_t exp[] = {
			FXT_MAGIC_WORD,
			0x0090000000110030ULL,
			0x656c706d61737866ULL,
			0x72,
			0x21,
			GHZ,
			/* thread record, slot 1 = (1234, 0): 3 | 3 << 4 | 1 << 16 */
			0x0000000000010033ULL,
			1234,
			0,
			/*
			 * Module 3, thread ref 1: size 1 + ts + name 2 + build id 1
			 * = 5. 0xa | 0x50 | subtype 0 | 1 << 20 | 3 << 28 |
			 * 10 << 44 = 0xa00000000000 | 4 << 52.
			 */
			0x0040a0003010005aULL,
			5,
			0x6e69622f7273752fULL,
			0x782f,
			0x01efcdab,
			/* Mmap, thread ref 1: size 5. 0xa | 0x50 | 1 << 16 | 1 << 20 | 3 << 28 | 5
			   << 44 */
			0x000050003011005aULL,
			6,
			0x401000,
			0x2000,
			0x1000,
			/* The sample's thread takes slot 2: 0x33 | 2 << 16 */
			0x0000000000020033ULL,
			1234,
			1235,
			/* Backtrace, thread 2, 1 frame: 0xa | 3 << 4 | 2 << 16 | 2 << 20 | 1 << 28
			 */
			0x000000001022003aULL,
			7,
			0x401234,
			/* Slot 1 still holds (1234, 0): no second thread record. r-- = 4 */
			0x000040003011005aULL,
			8,
			0x403000,
			0x1000,
			0x3000,
		};

		assert_words(m.data, m.len, exp, sizeof(exp) / sizeof(exp[0]));
	}
	free(m.data);
}
END_TEST

/*
 * Intern str the way the product does, as the name of a record: a process
 * record (koid 1). Returns the string index the record's name refers to (0
 * for an empty name), read back from its header; *ret_cost (may be NULL)
 * gets what the call wrote besides that record's two words, i.e. the string
 * record when str had no index.
 */
static int intern_name(struct fxt_stream *s, struct mem_sink *m, const char *str,
		       uint64_t *ret_cost)
{
	uint64_t before = fxt_stream_bytes(s), header;

	ck_assert_int_eq(fxt_stream_process(s, 1, str), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	ck_assert_uint_ge(m->len, 16);
	memcpy(&header, m->data + m->len - 16, sizeof(header));
	ck_assert_uint_eq(header & 0xf, FXT_RT_KOBJ);
	ck_assert_uint_eq((header >> 4) & 0xfff, 2);
	if (ret_cost)
		*ret_cost = fxt_stream_bytes(s) - before - 16;
	return (int)((header >> 24) & 0xffff);
}

START_TEST(test_stream_intern)
{
	struct fxt_stream *s;
	struct mem_sink m;
	uint64_t cost = 99;

	s = new_stream(&m);
	ck_assert_int_eq(intern_name(s, &m, "abc", &cost), 1);
	/* A string of 3 bytes: 2 words */
	ck_assert_uint_eq(cost, 2 * 8);
	ck_assert_int_eq(intern_name(s, &m, "def", &cost), 2);
	ck_assert_uint_eq(cost, 2 * 8);
	/* The stream's 6 words, two string records and two process records */
	ck_assert_uint_eq(fxt_stream_bytes(s), (6 + 4 + 2 * 2) * 8);
	ck_assert_int_eq(intern_name(s, &m, "abc", &cost), 1);
	/* Known and empty strings cost nothing */
	ck_assert_uint_eq(cost, 0);
	ck_assert_int_eq(intern_name(s, &m, "", &cost), 0);
	ck_assert_uint_eq(cost, 0);
	ck_assert_int_eq(intern_name(s, &m, NULL, &cost), 0);
	ck_assert_uint_eq(cost, 0);
	end_stream(s);
	free(m.data);
}
END_TEST

START_TEST(test_stream_string_table_full)
{
	struct fxt_stream *s;
	struct mem_sink m;
	uint64_t cost, total = 0;
	char str[32];
	int i;

	s = new_stream(&m);
	for (i = 1; i <= FXT_MAX_STRING_INDEX; i++) {
		snprintf(str, sizeof(str), "s%d", i);
		ck_assert_int_eq(intern_name(s, &m, str, NULL), i);
	}
	/* Full: the next new string takes index 1 round robin, then 2 */
	ck_assert_int_eq(intern_name(s, &m, "new1", NULL), 1);
	/* "s1" lost its index: interning it again writes a new string record */
	ck_assert_int_eq(intern_name(s, &m, "s1", &cost), 2);
	ck_assert_uint_eq(cost, 16);
	ck_assert_int_eq(intern_name(s, &m, "new1", &cost), 1);
	ck_assert_uint_eq(cost, 0);
	ck_assert_int_eq(intern_name(s, &m, "s3", &cost), 3);
	ck_assert_uint_eq(cost, 0);
	/* Evictions left every other string findable: no new records */
	for (i = 3; i <= FXT_MAX_STRING_INDEX; i++) {
		snprintf(str, sizeof(str), "s%d", i);
		ck_assert_int_eq(intern_name(s, &m, str, &cost), i);
		total += cost;
	}
	ck_assert_uint_eq(total, 0);
	/* A second lap of the round robin, which now points at index 3 */
	for (i = 1; i <= FXT_MAX_STRING_INDEX; i++) {
		snprintf(str, sizeof(str), "t%d", i);
		ck_assert_int_eq(intern_name(s, &m, str, NULL), (i + 1) % FXT_MAX_STRING_INDEX + 1);
	}
	ck_assert_int_eq(intern_name(s, &m, "t1", NULL), 3);
	ck_assert_int_eq(intern_name(s, &m, "s3", NULL), 3); /* the cursor is back at 3 */
	ck_assert_int_eq(fxt_stream_error(s), 0);
	end_stream(s);
	free(m.data);
}
END_TEST

START_TEST(test_stream_flush_threshold)
{
	uint64_t frames[64] = {0};
	struct fxt_stream *s;
	struct mem_sink m;
	unsigned i;

	s = new_stream(&m);
	/* A backtrace of 64 frames on a known thread is 66 words = 528 bytes. */
	for (i = 0; fxt_stream_bytes(s) + 66 * 8 <= 64 * 1024; i++)
		ck_assert_int_eq(fxt_stream_backtrace(s, i, 1, 1, 0, frames, 64), 0);
	ck_assert_uint_eq(m.calls, 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, i, 1, 1, 0, frames, 64), 0);
	ck_assert_uint_eq(m.calls, 1);
	ck_assert_uint_gt(m.len, 64 * 1024);
	ck_assert_uint_eq(fxt_stream_bytes(s), m.len);
	ck_assert_int_eq(fxt_stream_backtrace(s, i, 1, 1, 0, frames, 64), 0);
	ck_assert_uint_eq(fxt_stream_bytes(s), m.len + 66 * 8);
	end_stream(s);
	ck_assert_uint_eq(m.calls, 2);
	free(m.data);
}
END_TEST

START_TEST(test_stream_errors_latch)
{
	uint64_t frames[64] = {0};
	struct fxt_stream *s;
	struct mem_sink m;
	unsigned i;
	int err = 0;

	s = new_stream(&m);
	/* Bad arguments are refused without harming the stream */
	ck_assert_int_eq(fxt_stream_backtrace(s, 1, 1, 1, 0, frames, 0), -EINVAL);
	ck_assert_int_eq(fxt_stream_backtrace(s, 1, 1, 1, 0, frames, FXT_MAX_FRAMES + 1), -EINVAL);
	ck_assert_int_eq(fxt_stream_counter(s, 1, 1, 1, "c", "n", 0, NULL, NULL, 16), -EINVAL);
	ck_assert_int_eq(fxt_stream_mmap(s, 1, 1, 0, 9, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(fxt_stream_error(s), 0);
	ck_assert_uint_eq(fxt_stream_bytes(s), 6 * 8);

	m.fail = -EIO;
	for (i = 0; i < 1000 && !err; i++)
		err = fxt_stream_backtrace(s, i, 1, 1, 0, frames, 64);
	ck_assert_int_eq(err, -EIO);
	ck_assert_uint_eq(m.calls, 1);
	ck_assert_int_eq(fxt_stream_error(s), -EIO);
	ck_assert_int_eq(fxt_stream_backtrace(s, 1, 1, 1, 0, frames, 1), -EIO);
	ck_assert_int_eq(fxt_stream_process(s, 1, "p"), -EIO);
	ck_assert_int_eq(fxt_stream_dropped(s), -EIO);
	ck_assert_int_eq(fxt_stream_flush(s), -EIO);
	m.fail = 0;
	ck_assert_int_eq(fxt_stream_flush(s), -EIO);
	ck_assert_uint_eq(m.calls, 1);
	ck_assert_uint_eq(m.len, 0);
	fxt_stream__free(s);
	free(m.data);

	errno = 0;
	ck_assert_ptr_null(fxt_stream__new(NULL, NULL, "x", GHZ));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(fxt_stream__new(mem_sink_write, &m, "x", 0));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* --- round trips --- */

/* The next record that is not a string or thread table record. */
static void next_payload(struct fxt_reader *r, struct fxt_record *rec, unsigned type)
{
	int err;

	while ((err = fxt_reader_next(r, rec)) == 1)
		if (rec->type != FXT_RT_STRING && rec->type != FXT_RT_THREAD)
			break;
	ck_assert_msg(err == 1, "next: %d %s", err, fxt_reader_error(r));
	ck_assert_uint_eq(rec->type, type);
}

/* A process record with its command line: an inline string argument, cut at the limit. */
START_TEST(test_roundtrip_process_cmdline)
{
	static char long_cmd[FXT_CMDLINE_MAX + 100];
	struct fxt_stream *s;
	struct fxt_reader *r;
	struct fxt_record rec;
	struct mem_sink m;

	memset(long_cmd, 'x', sizeof(long_cmd) - 1);
	s = new_stream(&m);
	ck_assert_int_eq(fxt_stream_process_cmdline(s, 7, "prog", "/bin/prog -v 'a b'"), 0);
	ck_assert_int_eq(fxt_stream_process_cmdline(s, 8, "bare", ""), 0);
	ck_assert_int_eq(fxt_stream_process_cmdline(s, 9, "long", long_cmd), 0);
	end_stream(s);
	r = open_sink(&m);
	/* Past the magic, provider and initialization records. */
	do
		ck_assert_int_eq(fxt_reader_next(r, &rec), 1);
	while (rec.type != FXT_RT_KOBJ);
	ck_assert_uint_eq(rec.subtype, FXT_OBJ_PROCESS);
	ck_assert_uint_eq(rec.koid, 7);
	ck_assert_str_eq(rec.name, "prog");
	ck_assert_uint_eq(rec.nr_args, 1);
	ck_assert_str_eq(rec.args[0].name, "cmdline");
	ck_assert_uint_eq(rec.args[0].type, FXT_ARG_STRING);
	ck_assert_str_eq(rec.args[0].str, "/bin/prog -v 'a b'");
	next_payload(r, &rec, FXT_RT_KOBJ);
	ck_assert_uint_eq(rec.koid, 8);
	ck_assert_uint_eq(rec.nr_args, 0);
	next_payload(r, &rec, FXT_RT_KOBJ);
	ck_assert_uint_eq(rec.koid, 9);
	ck_assert_uint_eq(strlen(rec.args[0].str), FXT_CMDLINE_MAX);
	ck_assert_int_eq(fxt_reader_next(r, &rec), 0);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

START_TEST(test_roundtrip_every_kind)
{
	static const uint8_t bid[] = {0xab, 0xcd, 0xef, 0x01, 0x23};
	struct fxt_record rec;
	struct fxt_reader *r;
	struct mem_sink m;

	write_every_kind(&m);
	r = open_sink(&m);

	next_record(r, &rec, FXT_RT_METADATA);
	ck_assert_uint_eq(rec.offset, 0);
	ck_assert_uint_eq(rec.subtype, FXT_META_TRACE_INFO);
	ck_assert_uint_eq(rec.header, FXT_MAGIC_WORD);
	ck_assert_uint_eq(fxt_reader_offset(r), 8);

	next_record(r, &rec, FXT_RT_METADATA);
	ck_assert_uint_eq(rec.offset, 8);
	ck_assert_uint_eq(rec.subtype, FXT_META_PROVIDER_INFO);
	ck_assert_uint_eq(rec.provider_id, 1);
	ck_assert_str_eq(rec.name, "fxsampler");
	ck_assert_uint_eq(rec.words, 3);

	next_record(r, &rec, FXT_RT_INIT);
	ck_assert_uint_eq(rec.ticks_per_second, GHZ);

	next_record(r, &rec, FXT_RT_STRING);
	ck_assert_uint_eq(rec.index, 1);
	ck_assert_str_eq(rec.name, "a.out");

	next_record(r, &rec, FXT_RT_KOBJ);
	ck_assert_uint_eq(rec.subtype, FXT_OBJ_PROCESS);
	ck_assert_uint_eq(rec.koid, 1234);
	ck_assert_uint_eq(rec.pid, 1234);
	ck_assert_str_eq(rec.name, "a.out");
	ck_assert_uint_eq(rec.nr_args, 0);

	next_payload(r, &rec, FXT_RT_KOBJ);
	ck_assert_uint_eq(rec.subtype, FXT_OBJ_THREAD);
	ck_assert_uint_eq(rec.koid, 1235);
	ck_assert_uint_eq(rec.tid, 1235);
	ck_assert_uint_eq(rec.pid, 1234);
	ck_assert_str_eq(rec.name, "worker");
	ck_assert_uint_eq(rec.nr_args, 1);
	ck_assert_uint_eq(rec.args[0].type, FXT_ARG_KOID);
	ck_assert_str_eq(rec.args[0].name, "process");
	ck_assert_uint_eq(rec.args[0].u, 1234);

	/* Module and mmap name the process through thread slot 1 = (1234, 0). */
	next_record(r, &rec, FXT_RT_THREAD);
	ck_assert_uint_eq(rec.index, 1);
	ck_assert_uint_eq(rec.pid, 1234);
	ck_assert_uint_eq(rec.tid, 0);

	next_record(r, &rec, FXT_RT_PROFILER);
	ck_assert_uint_eq(rec.subtype, FXT_PROF_MODULE);
	ck_assert_uint_eq((rec.header >> 20) & 0xff, 1);
	ck_assert_uint_eq(rec.ts, 5);
	ck_assert_uint_eq(rec.pid, 1234);
	ck_assert_uint_eq(rec.tid, 0);
	ck_assert_uint_eq(rec.module_id, 0);
	ck_assert_str_eq(rec.name, "/usr/bin/x");
	ck_assert_uint_eq(rec.build_id_len, sizeof(bid));
	ck_assert_mem_eq(rec.build_id, bid, sizeof(bid));

	next_record(r, &rec, FXT_RT_PROFILER);
	ck_assert_uint_eq(rec.subtype, FXT_PROF_MMAP);
	ck_assert_uint_eq((rec.header >> 20) & 0xff, 1);
	ck_assert_uint_eq(rec.ts, 5);
	ck_assert_uint_eq(rec.pid, 1234);
	ck_assert_uint_eq(rec.tid, 0);
	ck_assert_uint_eq(rec.module_id, 0);
	ck_assert_uint_eq(rec.mmap_flags, 5);
	ck_assert_uint_eq(rec.start, 0x401000);
	ck_assert_uint_eq(rec.size, 0x2000);
	ck_assert_uint_eq(rec.vaddr, 0x1000);

	next_record(r, &rec, FXT_RT_THREAD);
	ck_assert_uint_eq(rec.index, 2);
	ck_assert_uint_eq(rec.pid, 1234);
	ck_assert_uint_eq(rec.tid, 1235);

	next_record(r, &rec, FXT_RT_PROFILER);
	ck_assert_uint_eq(rec.subtype, FXT_PROF_BACKTRACE);
	ck_assert_uint_eq(rec.ts, 123);
	ck_assert_uint_eq(rec.pid, 1234);
	ck_assert_uint_eq(rec.tid, 1235);
	ck_assert_uint_eq(rec.bt_flags, 0);
	ck_assert_uint_eq(rec.nr_frames, 3);
	ck_assert_uint_eq(rec.frames[0], 0x401000);
	ck_assert_uint_eq(rec.frames[1], 0x401100);
	ck_assert_uint_eq(rec.frames[2], 0x401200);

	next_record(r, &rec, FXT_RT_THREAD);
	ck_assert_uint_eq(rec.index, 3);
	next_record(r, &rec, FXT_RT_PROFILER);
	ck_assert_uint_eq(rec.subtype, FXT_PROF_BACKTRACE);
	ck_assert_uint_eq(rec.ts, 124);
	ck_assert_uint_eq(rec.tid, 1236);
	ck_assert_uint_eq(rec.bt_flags, FXT_BT_FLAG_TRUNCATED | FXT_BT_FLAG_PC_IS_RETURN);
	ck_assert_uint_eq(rec.nr_frames, 2);
	ck_assert_uint_eq(rec.frames[0], 0x401100);
	ck_assert_uint_eq(rec.frames[1], 0x401200);

	next_payload(r, &rec, FXT_RT_EVENT);
	ck_assert_uint_eq(rec.subtype, FXT_EVENT_COUNTER);
	ck_assert_uint_eq(rec.ts, 200);
	ck_assert_uint_eq(rec.pid, 1234);
	ck_assert_uint_eq(rec.tid, 1235);
	ck_assert_str_eq(rec.category, "fxsampler");
	ck_assert_str_eq(rec.name, "drops");
	ck_assert_uint_eq(rec.counter_id, 0);
	ck_assert_uint_eq(rec.nr_args, 2);
	ck_assert_uint_eq(rec.args[0].type, FXT_ARG_UINT64);
	ck_assert_str_eq(rec.args[0].name, "written");
	ck_assert_uint_eq(rec.args[0].u, 10);
	ck_assert_str_eq(rec.args[1].name, "dropped");
	ck_assert_uint_eq(rec.args[1].u, 0);

	next_record(r, &rec, FXT_RT_METADATA);
	ck_assert_uint_eq(rec.subtype, FXT_META_PROVIDER_EVENT);
	ck_assert_uint_eq(rec.provider_id, 1);
	ck_assert_uint_eq(rec.provider_event, FXT_PROVIDER_EVENT_DROPPED);

	ck_assert_int_eq(fxt_reader_next(r, &rec), 0);
	ck_assert_int_eq(fxt_reader_next(r, &rec), 0);
	ck_assert_ptr_null(fxt_reader_error(r));
	ck_assert_uint_eq(fxt_reader_offset(r), m.len);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

START_TEST(test_roundtrip_300_threads)
{
	struct fxt_stream *s;
	struct fxt_record rec;
	struct fxt_reader *r;
	struct mem_sink m;
	unsigned i, round, threads = 0, samples = 0;
	uint64_t frames[2];
	int err;

	s = new_stream(&m);
	/* Three rounds over 300 threads: each sample needs a slot again. */
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 300; i++) {
			frames[0] = i;
			frames[1] = round;
			ck_assert_int_eq(fxt_stream_backtrace(s, round * 1000 + i, 1000 + i / 10,
							      5000 + i, 0, frames, 2),
					 0);
		}
	}
	/* And one thread that stays in use while the others churn. */
	for (i = 0; i < 600; i++) {
		frames[0] = 9999;
		frames[1] = i;
		ck_assert_int_eq(fxt_stream_backtrace(s, 5000 + i, 1, 2, 0, frames, 2), 0);
		frames[0] = i % 300;
		ck_assert_int_eq(fxt_stream_backtrace(s, 6000 + i, 1000 + (i % 300) / 10,
						      5000 + i % 300, 0, frames, 2),
				 0);
	}
	end_stream(s);

	r = open_sink(&m);
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		if (rec.type == FXT_RT_THREAD) {
			ck_assert_uint_ge(rec.index, 1);
			threads++;
		}
		if (rec.type != FXT_RT_PROFILER)
			continue;
		samples++;
		ck_assert_uint_eq(rec.nr_frames, 2);
		if (rec.frames[0] == 9999) {
			ck_assert_uint_eq(rec.pid, 1);
			ck_assert_uint_eq(rec.tid, 2);
		} else {
			ck_assert_uint_eq(rec.pid, 1000 + rec.frames[0] / 10);
			ck_assert_uint_eq(rec.tid, 5000 + rec.frames[0]);
		}
	}
	ck_assert_msg(err == 0, "%s", fxt_reader_error(r));
	ck_assert_uint_eq(samples, 900 + 1200);
	/* Every sample of the 300 churned, the steady thread kept its slot */
	ck_assert_uint_eq(threads, 900 + 600 + 1);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

/*
 * 300 processes, each with two threads: their module, mmap and backtrace
 * records take 900 slots of the 255, three rounds over. Every record must
 * resolve to its own process, the (pid, 0) slots of module and mmap records
 * included; tracked here from the thread records themselves, independently of
 * the reader's table.
 */
START_TEST(test_roundtrip_module_slots_wrap)
{
	struct {
		uint64_t pid, tid;
	} table[256] = {{0}};
	unsigned i, round, threads = 0, modules = 0, mmaps = 0, samples = 0, ref;
	struct fxt_stream *s;
	struct fxt_record rec;
	struct fxt_reader *r;
	struct mem_sink m;
	uint64_t frames[1], pid;
	int err;

	s = new_stream(&m);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 300; i++) {
			pid = 10000 + i;
			if (!round)
				ck_assert_int_eq(fxt_stream_module(s, i, pid, (uint16_t)i, "/bin/p",
								   NULL, 0),
						 0);
			frames[0] = pid;
			ck_assert_int_eq(fxt_stream_backtrace(s, i, pid, pid, 0, frames, 1), 0);
			ck_assert_int_eq(fxt_stream_mmap(s, i, pid, (uint16_t)i, 5, pid << 12,
							 0x1000 * (round + 1), 0),
					 0);
			ck_assert_int_eq(fxt_stream_backtrace(s, i, pid, pid + 50000, 0, frames, 1),
					 0);
		}
	}
	end_stream(s);

	r = open_sink(&m);
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		if (rec.type == FXT_RT_THREAD) {
			table[rec.index].pid = rec.pid;
			table[rec.index].tid = rec.tid;
			threads++;
			continue;
		}
		if (rec.type != FXT_RT_PROFILER)
			continue;
		ref = (rec.header >> 20) & 0xff;
		ck_assert_msg(ref, "record at offset %" PRIu64 " has an inline thread ref",
			      rec.offset);
		ck_assert_uint_eq(table[ref].pid, rec.pid);
		ck_assert_uint_eq(table[ref].tid, rec.tid);
		switch (rec.subtype) {
		case FXT_PROF_MODULE:
			modules++;
			ck_assert_uint_eq(rec.pid, 10000 + rec.module_id);
			ck_assert_uint_eq(rec.tid, 0);
			break;
		case FXT_PROF_MMAP:
			mmaps++;
			ck_assert_uint_eq(rec.pid, 10000 + rec.module_id);
			ck_assert_uint_eq(rec.start, rec.pid << 12);
			ck_assert_uint_eq(rec.tid, 0);
			break;
		default:
			samples++;
			ck_assert_uint_eq(rec.pid, rec.frames[0]);
			ck_assert(rec.tid == rec.pid || rec.tid == rec.pid + 50000);
			break;
		}
	}
	ck_assert_msg(err == 0, "%s", fxt_reader_error(r));
	ck_assert_uint_eq(modules, 300);
	ck_assert_uint_eq(mmaps, 900);
	ck_assert_uint_eq(samples, 1800);
	/* Every slot was evicted and re-announced: 3 x 900 (pid, tid) and (pid, 0) pairs. */
	ck_assert_uint_eq(threads, 2700);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

START_TEST(test_thread_slots_lru)
{
	uint64_t frame = 1;
	struct fxt_stream *s;
	struct fxt_record rec;
	struct fxt_reader *r;
	struct mem_sink m;
	unsigned i, n = 0, idx[4];
	uint64_t tid[4];
	static const uint64_t late_tids[] = {1, 256, 1, 2};
	int err;

	s = new_stream(&m);
	for (i = 1; i <= 255; i++)
		ck_assert_int_eq(fxt_stream_backtrace(s, i, 1, i, 0, &frame, 1), 0);
	/* Touch tid 1: tid 2 is now the least recently used */
	ck_assert_int_eq(fxt_stream_backtrace(s, 300, 1, 1, 0, &frame, 1), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 301, 1, 256, 0, &frame, 1), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 302, 1, 1, 0, &frame, 1), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 303, 1, 2, 0, &frame, 1), 0);
	end_stream(s);

	r = open_sink(&m);
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		if (rec.type == FXT_RT_THREAD) {
			n++;
			if (n > 255) {
				ck_assert_uint_lt(n - 256, 4);
				idx[n - 256] = rec.index;
				tid[n - 256] = rec.tid;
			}
		}
		if (rec.type == FXT_RT_PROFILER && rec.ts < 300)
			ck_assert_uint_eq(rec.tid, rec.ts);
		if (rec.type == FXT_RT_PROFILER && rec.ts >= 300)
			ck_assert_uint_eq(rec.tid, late_tids[rec.ts - 300]);
	}
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(n, 257);
	ck_assert_uint_eq(idx[0], 2);
	ck_assert_uint_eq(tid[0], 256);
	ck_assert_uint_eq(idx[1], 3);
	ck_assert_uint_eq(tid[1], 2);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

START_TEST(test_roundtrip_string_reuse)
{
	const char *names[] = {"v"};
	const uint64_t values[] = {1};
	struct fxt_stream *s;
	struct fxt_record rec;
	struct fxt_reader *r;
	struct mem_sink m;
	char name[32];
	unsigned i, kobjs = 0;
	int err;

	s = new_stream(&m);
	/* 40000 names overflow the table; re-use early names as we go. */
	for (i = 0; i < 40000; i++) {
		snprintf(name, sizeof(name), "proc-%u", i);
		ck_assert_int_eq(fxt_stream_process(s, i, name), 0);
		if (i % 1000 == 999) {
			snprintf(name, sizeof(name), "proc-%u", i / 1000);
			ck_assert_int_eq(fxt_stream_process(s, i / 1000, name), 0);
		}
	}
	/* Counters interned after the table wrapped still read back right */
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "counter-%u", i);
		ck_assert_int_eq(fxt_stream_counter(s, i, 1, 1, "v", name, i, names, values, 1), 0);
	}
	end_stream(s);

	r = open_sink(&m);
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		if (rec.type == FXT_RT_KOBJ) {
			snprintf(name, sizeof(name), "proc-%" PRIu64, rec.koid);
			ck_assert_str_eq(rec.name, name);
			kobjs++;
		} else if (rec.type == FXT_RT_EVENT) {
			snprintf(name, sizeof(name), "counter-%" PRIu64, rec.counter_id);
			ck_assert_str_eq(rec.name, name);
			ck_assert_str_eq(rec.category, "v");
			ck_assert_str_eq(rec.args[0].name, "v");
		}
	}
	ck_assert_msg(err == 0, "%s", fxt_reader_error(r));
	ck_assert_uint_eq(kobjs, 40040);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

START_TEST(test_string_pinning)
{
	const char *names[] = {"x"};
	const uint64_t values[] = {1};
	struct fxt_stream *s;
	struct fxt_record rec;
	struct fxt_reader *r;
	struct mem_sink m;
	char str[32];
	int i, err, events = 0;

	s = new_stream(&m);
	for (i = 1; i <= FXT_MAX_STRING_INDEX; i++) {
		snprintf(str, sizeof(str), "s%d", i);
		ck_assert_int_eq(intern_name(s, &m, str, NULL), i);
	}
	/*
	 * The round robin points at index 1, which holds "s1". The category
	 * finds "s1" there; the new name and the new argument name must take
	 * other indices, or the category would read back as one of them.
	 */
	ck_assert_int_eq(fxt_stream_counter(s, 1, 1, 1, "s1", "fresh", 0, names, values, 1), 0);
	end_stream(s);

	r = open_sink(&m);
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		if (rec.type != FXT_RT_EVENT)
			continue;
		events++;
		ck_assert_str_eq(rec.category, "s1");
		ck_assert_str_eq(rec.name, "fresh");
		ck_assert_str_eq(rec.args[0].name, "x");
	}
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(events, 1);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

START_TEST(test_module_path_truncated)
{
	char path[301];
	struct fxt_stream *s;
	struct fxt_record rec;
	struct fxt_reader *r;
	struct mem_sink m;

	memset(path, 'd', 300);
	memcpy(path, "/head", 5);
	memcpy(path + 300 - 7, "/lib.so", 7);
	path[300] = '\0';
	s = new_stream(&m);
	ck_assert_int_eq(fxt_stream_module(s, 1, 2, 3, path, NULL, 0), 0);
	end_stream(s);

	r = open_sink(&m);
	next_record(r, &rec, FXT_RT_METADATA);
	next_record(r, &rec, FXT_RT_METADATA);
	next_record(r, &rec, FXT_RT_INIT);
	next_record(r, &rec, FXT_RT_THREAD);
	next_record(r, &rec, FXT_RT_PROFILER);
	ck_assert_uint_eq(rec.subtype, FXT_PROF_MODULE);
	ck_assert_uint_eq(rec.pid, 2);
	ck_assert_uint_eq(strlen(rec.name), 255);
	ck_assert_str_eq(rec.name, path + 45);
	ck_assert_uint_eq(rec.build_id_len, 0);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

static Suite *fxt_suite(void)
{
	Suite *s = suite_create("fxt");
	TCase *tc;

	tc = tcase_create("golden");
	tcase_add_test(tc, test_magic);
	tcase_add_test(tc, test_provider_records);
	tcase_add_test(tc, test_init_string_thread);
	tcase_add_test(tc, test_kobj);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_profiler_records);
	suite_add_tcase(s, tc);

	tc = tcase_create("validation");
	tcase_add_test(tc, test_validation);
	suite_add_tcase(s, tc);

	tc = tcase_create("stream");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stream_bytes);
	tcase_add_test(tc, test_stream_module_mmap_bytes);
	tcase_add_test(tc, test_stream_intern);
	tcase_add_test(tc, test_stream_string_table_full);
	tcase_add_test(tc, test_stream_flush_threshold);
	tcase_add_test(tc, test_stream_errors_latch);
	tcase_add_test(tc, test_thread_slots_lru);
	tcase_add_test(tc, test_string_pinning);
	tcase_add_test(tc, test_module_path_truncated);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_roundtrip_every_kind);
	tcase_add_test(tc, test_roundtrip_300_threads);
	tcase_add_test(tc, test_roundtrip_module_slots_wrap);
	tcase_add_test(tc, test_roundtrip_string_reuse);
	tcase_add_test(tc, test_roundtrip_process_cmdline);
	suite_add_tcase(s, tc);

	return s;
}

CHECK_MAIN(fxt_suite)
