// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * FXT reader: files and gzip, and malformed input refused with its offset
 * and reason; what is meant to be extended (unknown types, longer records,
 * the inline thread forms of other writers) is read. The writer's output
 * read back: check_fxt.c.
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
#include "fxt/fxt_dump.h"
#include "fxt/fxt_reader.h"
#include "fxt/fxt_stream.h"
#include "check_main.h"
#include "fxt_check.h"

/* --- files --- */

static void write_file(const char *path, const void *data, size_t len, int gz)
{
	FILE *f;
	gzFile g;

	if (gz) {
		g = gzopen(path, "wb9");
		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(gzwrite(g, data, len), (int)len);
		ck_assert_int_eq(gzclose(g), Z_OK);
	} else {
		f = fopen(path, "we");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(data, 1, len, f), len);
		ck_assert_int_eq(fclose(f), 0);
	}
}

START_TEST(test_files_and_gzip)
{
	char dir[] = "/tmp/check_fxt.XXXXXX", plain[64], gz[64], cut[64], missing[64];
	char *from_mem, *from_plain, *from_gz, msg[256];
	struct fxt_reader *r;
	struct fxt_record rec;
	struct mem_sink m;
	int err;

	write_every_kind(&m);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(plain, sizeof(plain), "%s/t.fxt", dir);
	snprintf(gz, sizeof(gz), "%s/t.fxt.gz", dir);
	snprintf(cut, sizeof(cut), "%s/cut.fxt.gz", dir);
	snprintf(missing, sizeof(missing), "%s/missing.fxt", dir);
	write_file(plain, m.data, m.len, 0);
	write_file(gz, m.data, m.len, 1);
	/* Uncompressed, cut in the middle of the last record (the provider event) */
	write_file(cut, m.data, m.len - 4, 1);

	r = open_sink(&m);
	from_mem = dump(r);
	fxt_reader__free(r);

	r = fxt_reader__open(plain);
	ck_assert_ptr_nonnull(r);
	from_plain = dump(r);
	ck_assert_uint_eq(fxt_reader_offset(r), m.len);
	fxt_reader__free(r);

	r = fxt_reader__open(gz);
	ck_assert_ptr_nonnull(r);
	from_gz = dump(r);
	/* Offsets count uncompressed bytes */
	ck_assert_uint_eq(fxt_reader_offset(r), m.len);
	fxt_reader__free(r);

	ck_assert_str_eq(from_plain, from_mem);
	ck_assert_str_eq(from_gz, from_mem);
	ck_assert_ptr_nonnull(strstr(from_gz, " backtrace ts=123 pid=1234 tid=1235 frames=3"));

	r = fxt_reader__open(cut);
	ck_assert_ptr_nonnull(r);
	while ((err = fxt_reader_next(r, &rec)) == 1)
		;
	ck_assert_int_eq(err, -EBADMSG);
	snprintf(msg, sizeof(msg), "offset %zu: truncated record header (4 of 8 bytes)", m.len - 8);
	ck_assert_str_eq(fxt_reader_error(r), msg);
	fxt_reader__free(r);

	errno = 0;
	ck_assert_ptr_null(fxt_reader__open(missing));
	ck_assert_int_eq(errno, ENOENT);

	ck_assert_int_eq(unlink(plain), 0);
	ck_assert_int_eq(unlink(gz), 0);
	ck_assert_int_eq(unlink(cut), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	free(from_mem);
	free(from_plain);
	free(from_gz);
	free(m.data);
}
END_TEST

/* --- malformed input --- */

/* magic, provider 1 "p", string 1 "ab", thread 1 (1, 2): 7 words */
static void valid_prefix(struct fxt_buf *b)
{
	ck_assert_int_eq(fxt_put_magic(b), 0);
	ck_assert_int_eq(fxt_put_provider_info(b, 1, "p"), 0);
	ck_assert_int_eq(fxt_put_string(b, 1, "ab", 2), 0);
	ck_assert_int_eq(fxt_put_thread(b, 1, 1, 2), 0);
	ck_assert_uint_eq(b->len, 8 * 8);
}

START_TEST(test_reject_bad_magic)
{
	struct fxt_buf b = {0};

	valid_prefix(&b);
	b.data[0] = 0x11;
	assert_rejected(&b, "offset 0: missing magic record (first word 0x0016547846040011)");
	b.len = 0;
	assert_rejected(&b, "offset 0: empty file: no magic record");
	/* A magic record later in the stream must be the exact word too */
	b.len = 0;
	valid_prefix(&b);
	put_raw(&b, FXT_MAGIC_WORD ^ (1ULL << 30));
	assert_rejected(&b, "offset 64: bad magic record 0x0016547806040010");
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_reject_truncated)
{
	static const uint64_t frames[] = {1, 2, 3};
	struct fxt_tref t = {.index = 1};
	struct fxt_buf b = {0};

	valid_prefix(&b);
	ck_assert_int_eq(fxt_put_backtrace(&b, 1, t, 0, frames, 3), 0);
	b.len -= 8;
	assert_rejected(&b, "offset 64: record of 5 words truncated at end of file");
	b.len = 64 + 3;
	assert_rejected(&b, "offset 64: truncated record header (3 of 8 bytes)");
	b.len = 64;
	ck_assert_int_eq(read_all(b.data, b.len, NULL, (char[8]){0}, 8), 0);
	fxt_buf_free(&b);
}
END_TEST

/* Read all of len bytes: the records returned, and whether the stream was cut short. */
static unsigned read_cut(const void *data, size_t len, bool *ret_cut)
{
	struct fxt_reader *r = fxt_reader__open_mem(data, len);
	struct fxt_record rec;
	unsigned n = 0;
	int err;

	ck_assert_ptr_nonnull(r);
	while ((err = fxt_reader_next(r, &rec)) == 1)
		n++;
	*ret_cut = fxt_reader_truncated(r);
	ck_assert(err == 0 || err == -EBADMSG);
	ck_assert(err == -EBADMSG || !*ret_cut);
	fxt_reader__free(r);
	return n;
}

/*
 * A stream cut at any byte (a full disk, a crash, a copy interrupted): every
 * record before the cut is read, and the error says the file was cut short;
 * a malformed record is not a cut.
 */
START_TEST(test_cut_anywhere)
{
	struct mem_sink m = {0};
	uint64_t ends[4096];
	unsigned nr = 0, i = 0, n;
	struct fxt_reader *r;
	struct fxt_record rec;
	bool cut;

	write_every_kind(&m);
	r = fxt_reader__open_mem(m.data, m.len);
	ck_assert_ptr_nonnull(r);
	while (fxt_reader_next(r, &rec) == 1 && nr < 4096)
		ends[nr++] = fxt_reader_offset(r);
	fxt_reader__free(r);
	ck_assert_uint_gt(nr, 5);
	for (size_t len = 1; len <= m.len; len++) {
		while (i < nr && ends[i] <= len)
			i++;
		n = read_cut(m.data, len, &cut);
		ck_assert_uint_eq(n, i);
		/* Cut short unless the cut falls between two records. */
		ck_assert_int_eq(cut, len != ends[i ? i - 1 : 0]);
	}
	/* A record of size 0 is malformed, not cut short. */
	{
		struct fxt_buf b = {0};

		valid_prefix(&b);
		put_raw(&b, 0x0);
		ck_assert_uint_eq(read_cut(b.data, b.len, &cut), 4);
		ck_assert(!cut);
		fxt_buf_free(&b);
	}
	free(m.data);
}
END_TEST

START_TEST(test_reject_sizes)
{
	struct fxt_buf b = {0};
	unsigned n;
	char msg[256];

	valid_prefix(&b);
	put_raw(&b, FXT_RT_STRING); /* size 0 */
	assert_rejected(&b, "offset 64: record size 0");

	/* String record saying 9 bytes in a 2-word record */
	b.len = 64;
	put_raw(&b, FXT_RT_STRING | 2 << 4 | 2 << 16 | 9ULL << 32);
	put_raw(&b, 0x6161616161616161ULL);
	assert_rejected(&b, "offset 64: string of 9 bytes overruns the 2-word record");

	/* Padding after a stream must be zero */
	b.len = 64;
	put_raw(&b, FXT_RT_STRING | 2 << 4 | 2 << 16 | 3ULL << 32);
	put_raw(&b, 0x0100000000616161ULL);
	assert_rejected(&b, "offset 64: non-zero padding after string");

	/* A process object whose argument claims 4 words where 2 are left */
	b.len = 64;
	put_raw(&b, FXT_RT_KOBJ | 4 << 4 | 1 << 16 | 1ULL << 24 | 1ULL << 40);
	put_raw(&b, 7);
	put_raw(&b, FXT_ARG_UINT64 | 4 << 4 | 1 << 16);
	put_raw(&b, 5);
	assert_rejected(&b, "offset 64: argument 0 of 4 words overruns the record");

	/* An argument whose inline name runs past the argument */
	b.len = 64;
	put_raw(&b, FXT_RT_KOBJ | 4 << 4 | 1 << 16 | 1ULL << 24 | 1ULL << 40);
	put_raw(&b, 7);
	put_raw(&b, 0 | 1 << 4 | 0x8010ULL << 16);
	put_raw(&b, 0x6161616161616161ULL);
	assert_rejected(&b, "offset 64: argument name of 16 bytes overruns the 1-word argument");

	/* A uint64 argument without its value word */
	b.len = 64;
	put_raw(&b, FXT_RT_KOBJ | 3 << 4 | 1 << 16 | 1ULL << 24 | 1ULL << 40);
	put_raw(&b, 7);
	put_raw(&b, FXT_ARG_UINT64 | 1 << 4 | 1 << 16);
	assert_rejected(&b, "offset 64: argument value overruns the 1-word argument");

	/* A uint64 argument one word longer than its contents */
	b.len = 64;
	put_raw(&b, FXT_RT_KOBJ | 5 << 4 | 1 << 16 | 1ULL << 24 | 1ULL << 40);
	put_raw(&b, 7);
	put_raw(&b, FXT_ARG_UINT64 | 3 << 4 | 1 << 16);
	put_raw(&b, 5);
	put_raw(&b, 0);
	assert_rejected(&b, "offset 64: argument 0 is 3 words, its contents 2");

	/* The same record with a 2-word argument is fine */
	b.len = 64;
	put_raw(&b, FXT_RT_KOBJ | 4 << 4 | 1 << 16 | 1ULL << 24 | 1ULL << 40);
	put_raw(&b, 7);
	put_raw(&b, FXT_ARG_UINT64 | 2 << 4 | 1 << 16);
	put_raw(&b, 5);
	ck_assert_int_eq(read_all(b.data, b.len, &n, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(n, 5);
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_reject_refs)
{
	struct fxt_sref s7 = {.index = 7}, s1 = {.index = 1};
	struct fxt_tref t9 = {.index = 9};
	struct fxt_buf b = {0};
	uint64_t frame = 1;

	valid_prefix(&b);
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1, s7, NULL, 0), 0);
	assert_rejected(&b, "offset 64: name refers to undefined string index 7");

	b.len = 64;
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1, s1, NULL, 0), 0);
	ck_assert_int_eq(fxt_put_backtrace(&b, 1, t9, 0, &frame, 1), 0);
	assert_rejected(&b, "offset 80: undefined thread index 9");

	/* Index 0 in string and thread records */
	b.len = 64;
	put_raw(&b, FXT_RT_STRING | 2 << 4 | 1ULL << 32);
	put_raw(&b, 'a');
	assert_rejected(&b, "offset 64: string record with index 0");
	b.len = 64;
	put_raw(&b, FXT_RT_THREAD | 3 << 4);
	put_raw(&b, 1);
	put_raw(&b, 2);
	assert_rejected(&b, "offset 64: thread record with index 0");

	/* Tables are per provider: provider 2 has no string 1 */
	b.len = 64;
	ck_assert_int_eq(fxt_put_provider_info(&b, 2, "q"), 0);
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1, s1, NULL, 0), 0);
	assert_rejected(&b, "offset 80: name refers to undefined string index 1");
	/* but switching back to provider 1 finds it */
	b.len = 80;
	ck_assert_int_eq(fxt_put_provider_section(&b, 1), 0);
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1, s1, NULL, 0), 0);
	ck_assert_int_eq(read_all(b.data, b.len, NULL, (char[8]){0}, 8), 0);
	/* a section for a provider never announced */
	b.len = 64;
	ck_assert_int_eq(fxt_put_provider_section(&b, 3), 0);
	assert_rejected(&b, "offset 64: provider section for unannounced provider 3");
	fxt_buf_free(&b);
}
END_TEST

/* The text of the next record, its offset cut off. */
static void next_text(struct fxt_reader *r, char *buf, size_t size)
{
	struct fxt_record rec;

	next_record(r, &rec, FXT_RT_PROFILER);
	ck_assert_int_lt(fxt_record_format(&rec, buf, size), size);
	memmove(buf, buf + 11, strlen(buf + 11) + 1);
}

/*
 * Module and mmap records in the three forms readers meet: an indexed ref
 * (fxsampler now), two inline words pid, tid (the spec, Fuchsia's C++ writer,
 * fxsampler before) and one inline word pid (what one version of Fuchsia's Rust
 * reader expects). All read and dump alike; a size that fits neither inline
 * form is refused with its offset.
 */
START_TEST(test_module_mmap_thread_forms)
{
	static const uint8_t bid[] = {0xab, 0xcd, 0xef, 0x01};
	static const char *const exp[] = {
		"module ts=5 pid=1234 id=3 name=\"/usr/bin/x\" build_id=abcdef01",
		"mmap ts=5 pid=1234 id=3 start=0x401000 size=0x2000 vaddr=0x1000 flags=0x5",
	};
	struct fxt_tref t2 = {.index = 2}, inl = {.pid = 1234};
	struct fxt_buf b = {0};
	struct fxt_reader *r;
	char line[256];
	unsigned form, i;

	valid_prefix(&b);
	ck_assert_int_eq(fxt_put_thread(&b, 2, 1234, 0), 0);
	/* indexed */
	ck_assert_int_eq(fxt_put_module(&b, 5, t2, 3, "/usr/bin/x", 10, bid, 4), 0);
	ck_assert_int_eq(fxt_put_mmap(&b, 5, t2, 3, 5, 0x401000, 0x2000, 0x1000), 0);
	/* inline, two words */
	ck_assert_int_eq(fxt_put_module(&b, 5, inl, 3, "/usr/bin/x", 10, bid, 4), 0);
	ck_assert_int_eq(fxt_put_mmap(&b, 5, inl, 3, 5, 0x401000, 0x2000, 0x1000), 0);
	/*
	 * inline, one word: module size 1 + ts + pid + name 2 + build id 1 = 6:
	 * 0xa | 0x60 | 3 << 28 | 10 << 44 | 4 << 52; mmap size 6:
	 * 0xa | 0x60 | 1 << 16 | 3 << 28 | 5 << 44.
	 */
	put_raw(&b, 0x0040a0003000006aULL);
	put_raw(&b, 5);
	put_raw(&b, 1234);
	put_raw(&b, 0x6e69622f7273752fULL);
	put_raw(&b, 0x782f);
	put_raw(&b, 0x01efcdab);
	put_raw(&b, 0x000050003001006aULL);
	put_raw(&b, 5);
	put_raw(&b, 1234);
	put_raw(&b, 0x401000);
	put_raw(&b, 0x2000);
	put_raw(&b, 0x1000);

	r = fxt_reader__open_mem(b.data, b.len);
	ck_assert_ptr_nonnull(r);
	for (i = 0; i < 5; i++) {
		struct fxt_record rec;

		ck_assert_int_eq(fxt_reader_next(r, &rec), 1);
	}
	for (form = 0; form < 3; form++) {
		for (i = 0; i < 2; i++) {
			next_text(r, line, sizeof(line));
			ck_assert_msg(!strcmp(line, exp[i]), "form %u: %s", form, line);
		}
	}
	{
		struct fxt_record rec;

		ck_assert_int_eq(fxt_reader_next(r, &rec), 0);
	}
	fxt_reader__free(r);

	/* Inline with no thread words, or three: fits neither form. */
	b.len = 64;
	put_raw(&b, 0x000050003001005aULL); /* mmap of 5 words, inline ref */
	put_raw(&b, 5);
	put_raw(&b, 0x401000);
	put_raw(&b, 0x2000);
	put_raw(&b, 0x1000);
	assert_rejected(&b, "offset 64: mmap record of 5 words with an inline thread ref: "
			    "6 words hold pid only, 7 pid and tid");
	b.len = 64;
	ck_assert_int_eq(fxt_put_mmap(&b, 5, inl, 3, 5, 0x401000, 0x2000, 0x1000), 0);
	b.data[64] += 0x10; /* 8 words */
	put_raw(&b, 0);
	assert_rejected(&b, "offset 64: mmap record of 8 words with an inline thread ref: "
			    "6 words hold pid only, 7 pid and tid");
	b.len = 64;
	/* module of 5 words = 1 + ts + name 2 + build id 1: no room for a pid */
	put_raw(&b, 0x0040a0003000005aULL);
	put_raw(&b, 5);
	put_raw(&b, 0x6e69622f7273752fULL);
	put_raw(&b, 0x782f);
	put_raw(&b, 0x01efcdab);
	assert_rejected(&b, "offset 64: module record of 5 words with an inline thread ref: "
			    "6 words hold pid only, 7 pid and tid");
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_concatenated_traces)
{
	struct fxt_sref s1 = {.index = 1};
	struct fxt_buf b = {0};
	struct mem_sink m1, m2;
	unsigned n1, n2, n;
	uint8_t *both;
	char msg[256];

	write_every_kind(&m1);
	write_every_kind(&m2);
	ck_assert_int_eq(read_all(m1.data, m1.len, &n1, msg, sizeof(msg)), 0);
	both = malloc(m1.len + m2.len);
	ck_assert_ptr_nonnull(both);
	memcpy(both, m1.data, m1.len);
	memcpy(both + m1.len, m2.data, m2.len);
	ck_assert_int_eq(read_all(both, m1.len + m2.len, &n2, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(n2, 2 * n1);

	/* A provider info record starts its tables afresh */
	valid_prefix(&b);
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1, s1, NULL, 0), 0);
	ck_assert_int_eq(read_all(b.data, b.len, &n, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(fxt_put_provider_info(&b, 1, "p"), 0);
	ck_assert_int_eq(fxt_put_kobj(&b, FXT_OBJ_PROCESS, 1, s1, NULL, 0), 0);
	assert_rejected(&b, "offset 96: name refers to undefined string index 1");
	fxt_buf_free(&b);
	free(both);
	free(m1.data);
	free(m2.data);
}
END_TEST

START_TEST(test_reject_backtrace_count)
{
	static const uint64_t frames[] = {1, 2, 3};
	struct fxt_tref t = {.index = 1};
	struct fxt_buf b = {0};
	uint64_t h;

	valid_prefix(&b);
	ck_assert_int_eq(fxt_put_backtrace(&b, 1, t, 0, frames, 3), 0);
	/* Count field (bits 28..35) 3 -> 2 while the size still holds 3 frames */
	memcpy(&h, b.data + 64, 8);
	h = htole64(le64toh(h) - (1ULL << 28));
	memcpy(b.data + 64, &h, 8);
	assert_rejected(&b, "offset 64: backtrace of 2 frames has 3 words of frames");
	/* Count 4 with room for 3 */
	h = htole64(le64toh(h) + (2ULL << 28));
	memcpy(b.data + 64, &h, 8);
	assert_rejected(&b, "offset 64: backtrace of 4 frames has 3 words of frames");
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_reject_reserved_bits)
{
	struct fxt_buf b = {0};

	valid_prefix(&b);
	put_raw(&b, FXT_RT_THREAD | 3 << 4 | 2 << 16 | 1ULL << 40);
	put_raw(&b, 1);
	put_raw(&b, 2);
	assert_rejected(
		&b, "offset 64: reserved bits 0x0000010000000000 of a thread record are not zero");
	b.len = 64;
	put_raw(&b, FXT_RT_STRING | 2 << 4 | 2 << 16 | 1ULL << 31 | 1ULL << 32);
	put_raw(&b, 'a');
	assert_rejected(
		&b, "offset 64: reserved bits 0x0000000080000000 of a string record are not zero");
	b.len = 64;
	put_raw(&b, FXT_RT_INIT | 2 << 4 | 1ULL << 16);
	put_raw(&b, GHZ);
	assert_rejected(&b, "offset 64: reserved bits 0x0000000000010000 of an initialization "
			    "record are not zero");
	b.len = 64;
	/* mmap flags are 3 bits; bit 47 is reserved */
	put_raw(&b, FXT_RT_PROFILER | 5 << 4 | 1 << 16 | 1 << 20 | 1ULL << 47);
	put_raw(&b, 1);
	put_raw(&b, 2);
	put_raw(&b, 3);
	put_raw(&b, 4);
	assert_rejected(
		&b, "offset 64: reserved bits 0x0000800000000000 of an mmap record are not zero");
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_skip_unknown)
{
	static const uint64_t frames[] = {0x1234};
	struct fxt_tref t = {.index = 1};
	struct fxt_buf b = {0};
	struct fxt_reader *r;
	struct fxt_record rec;

	valid_prefix(&b);
	/* Type 11 (unassigned), 3 words */
	put_raw(&b, 11 | 3 << 4 | 0xabcdULL << 16);
	put_raw(&b, 1);
	put_raw(&b, 2);
	/* Large record of 3 words: size in bits 4..35 */
	put_raw(&b, FXT_RT_LARGE | 3 << 4);
	put_raw(&b, 1);
	put_raw(&b, 2);
	/* Instant event with a blob argument (type 10) of 2 words, then a uint64 */
	put_raw(&b, FXT_RT_EVENT | 6 << 4 | 2 << 20 | 1 << 24 | 1ULL << 48);
	put_raw(&b, 77);
	put_raw(&b, 10 | 2 << 4 | 1 << 16 | 3ULL << 32);
	put_raw(&b, 0x636261);
	put_raw(&b, FXT_ARG_UINT64 | 2 << 4 | 1 << 16);
	put_raw(&b, 42);
	/* A profiler subtype from the future */
	put_raw(&b, FXT_RT_PROFILER | 2 << 4 | 9 << 16);
	put_raw(&b, 0);
	ck_assert_int_eq(fxt_put_backtrace(&b, 1, t, 0, frames, 1), 0);

	r = fxt_reader__open_mem(b.data, b.len);
	ck_assert_ptr_nonnull(r);
	next_record(r, &rec, FXT_RT_METADATA);
	next_record(r, &rec, FXT_RT_METADATA);
	next_record(r, &rec, FXT_RT_STRING);
	next_record(r, &rec, FXT_RT_THREAD);
	next_record(r, &rec, 11);
	ck_assert_uint_eq(rec.words, 3);
	next_record(r, &rec, FXT_RT_LARGE);
	ck_assert_uint_eq(rec.words, 3);
	ck_assert_uint_eq(rec.offset, 88);
	next_record(r, &rec, FXT_RT_EVENT);
	ck_assert_uint_eq(rec.ts, 77);
	ck_assert_uint_eq(rec.pid, 1);
	ck_assert_uint_eq(rec.tid, 2);
	ck_assert_str_eq(rec.name, "ab");
	ck_assert_uint_eq(rec.nr_args, 2);
	ck_assert_uint_eq(rec.args[0].type, 10);
	ck_assert_uint_eq(rec.args[1].type, FXT_ARG_UINT64);
	ck_assert_uint_eq(rec.args[1].u, 42);
	next_record(r, &rec, FXT_RT_PROFILER);
	ck_assert_uint_eq(rec.subtype, 9);
	next_record(r, &rec, FXT_RT_PROFILER);
	ck_assert_uint_eq(rec.nr_frames, 1);
	ck_assert_uint_eq(rec.frames[0], 0x1234);
	ck_assert_int_eq(fxt_reader_next(r, &rec), 0);
	fxt_reader__free(r);

	/* A large record running past the end */
	b.len = 64;
	put_raw(&b, FXT_RT_LARGE | 5000ULL << 4);
	put_raw(&b, 1);
	assert_rejected(&b, "offset 64: large record of 5000 words truncated at end of file");
	fxt_buf_free(&b);
}
END_TEST

/* What fxt_stream hands its sink, one chunk per flush. */
struct chunks {
	uint8_t *data[8];
	size_t len[8];
	unsigned n;
};

static int chunk_sink(void *ctx, const void *data, size_t len)
{
	struct chunks *c = ctx;

	ck_assert_uint_lt(c->n, 8);
	c->data[c->n] = malloc(len);
	ck_assert_ptr_nonnull(c->data[c->n]);
	memcpy(c->data[c->n], data, len);
	c->len[c->n++] = len;
	return 0;
}

/* A stream read chunk by chunk (fxsamplerd's scrapes): its tables carry over. */
START_TEST(test_stream_chunks)
{
	const uint64_t frames[] = {0x1000, 0x2000};
	struct fxt_stream *st;
	struct fxt_reader *r;
	struct fxt_record rec;
	struct chunks c = {};
	unsigned i, threads = 0, backtraces = 0;

	st = fxt_stream__new(chunk_sink, &c, "fxsampler", 1000000000ULL);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(fxt_stream_thread(st, 7, 8, "worker"), 0);
	ck_assert_int_eq(fxt_stream_flush(st), 0);
	/* refers to the thread slot and strings of the first chunk */
	ck_assert_int_eq(fxt_stream_backtrace(st, 5, 7, 8, 0, frames, 2), 0);
	ck_assert_int_eq(fxt_stream_flush(st), 0);
	fxt_stream__free(st);
	ck_assert_uint_eq(c.n, 2);

	r = fxt_reader__open_stream();
	ck_assert_ptr_nonnull(r);
	for (i = 0; i < c.n; i++) {
		int n;

		ck_assert_int_eq(fxt_reader_feed(r, c.data[i], c.len[i]), 0);
		if (i == 0) {
			/* a chunk not read to its end cannot be followed */
			ck_assert_int_eq(fxt_reader_feed(r, c.data[1], c.len[1]), -EBUSY);
		}
		while ((n = fxt_reader_next(r, &rec)) == 1) {
			if (rec.type == FXT_RT_KOBJ && rec.subtype == FXT_OBJ_THREAD) {
				ck_assert_str_eq(rec.name, "worker");
				threads++;
			}
			if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_BACKTRACE) {
				ck_assert_uint_eq(rec.pid, 7);
				ck_assert_uint_eq(rec.tid, 8);
				ck_assert_uint_eq(rec.nr_frames, 2);
				ck_assert_uint_eq(rec.frames[1], 0x2000);
				backtraces++;
			}
		}
		ck_assert_int_eq(n, 0);
	}
	ck_assert_uint_eq(threads, 1);
	ck_assert_uint_eq(backtraces, 1);
	fxt_reader__free(r);

	/* a record cut at a chunk's end is malformed */
	r = fxt_reader__open_stream();
	ck_assert_int_eq(fxt_reader_feed(r, c.data[0], c.len[0] - 8), 0);
	while (fxt_reader_next(r, &rec) == 1)
		;
	ck_assert_ptr_nonnull(fxt_reader_error(r));
	ck_assert_ptr_nonnull(strstr(fxt_reader_error(r), "truncated"));
	fxt_reader__free(r);
	for (i = 0; i < c.n; i++)
		free(c.data[i]);
}
END_TEST

static Suite *fxt_reader_suite(void)
{
	Suite *s = suite_create("fxt_reader");
	TCase *tc;

	tc = tcase_create("files");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_files_and_gzip);
	tcase_add_test(tc, test_stream_chunks);
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_test(tc, test_reject_bad_magic);
	tcase_add_test(tc, test_reject_truncated);
	tcase_add_test(tc, test_cut_anywhere);
	tcase_add_test(tc, test_reject_sizes);
	tcase_add_test(tc, test_reject_refs);
	tcase_add_test(tc, test_module_mmap_thread_forms);
	tcase_add_test(tc, test_concatenated_traces);
	tcase_add_test(tc, test_reject_backtrace_count);
	tcase_add_test(tc, test_reject_reserved_bits);
	tcase_add_test(tc, test_skip_unknown);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(fxt_reader_suite)
