// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Blob records (fxt_put_blob, fxt_stream_blob, the reader, dump) and the
 * kernel-stack payloads they carry (fxt/fxt_kstack.h).
 */
#include <check.h>

#include "fxt/fxt_kstack.h"
#include "fxt_check.h"
#include "check_main.h"

/* Golden bytes: header, indexed name, payload padded to a word. */
START_TEST(test_put_blob)
{
	struct fxt_buf b = {0};
	struct fxt_sref name = {.index = 9};
	struct fxt_sref inl = {.s = "ab", .len = 2};
	uint64_t w[4];

	ck_assert_int_eq(fxt_put_blob(&b, name, FXT_BLOB_RAW, "0123456789", 10), 0);
	ck_assert_uint_eq(b.len, 24);
	memcpy(w, b.data, 24);
	/* type 5, 3 words, name 9, 10 bytes, blob type 1 */
	ck_assert_uint_eq(le64toh(w[0]), 0x5 | 3 << 4 | 9ULL << 16 | 10ULL << 32 | 1ULL << 48);
	ck_assert(!memcmp(b.data + 8, "0123456789\0\0\0\0\0\0", 16));
	b.len = 0;
	ck_assert_int_eq(fxt_put_blob(&b, inl, FXT_BLOB_RAW, "x", 1), 0);
	memcpy(w, b.data, 24);
	ck_assert_uint_eq(le64toh(w[0]),
			  0x5 | 3 << 4 | (0x8000ULL | 2) << 16 | 1ULL << 32 | 1ULL << 48);
	ck_assert(!memcmp(b.data + 8, "ab\0\0\0\0\0\0x\0\0\0\0\0\0\0", 16));
	/* the 15-bit size field, and no data for a length */
	ck_assert_int_eq(fxt_put_blob(&b, name, FXT_BLOB_RAW, "x", FXT_MAX_BLOB_LEN + 1), -EINVAL);
	ck_assert_int_eq(fxt_put_blob(&b, name, FXT_BLOB_RAW, NULL, 4), -EINVAL);
	ck_assert_int_eq(fxt_put_blob(&b, name, 256, "x", 1), -EINVAL);
	fxt_buf_free(&b);
}
END_TEST

/* A stream's blobs read back, and dump's lines of them. */
START_TEST(test_stream_blob_read)
{
	const uint32_t ids[3] = {7, 1, 65536};
	uint8_t payload[FXT_KSTACK_HDR + 12];
	struct mem_sink m;
	struct fxt_stream *s = new_stream(&m);
	struct fxt_reader *r;
	struct fxt_record rec;
	size_t len = fxt_kstack_encode(payload, 1234, 42, ids, 3);
	char *text;

	ck_assert_uint_eq(len, FXT_KSTACK_HDR + 12);
	ck_assert_int_eq(fxt_stream_blob(s, FXT_KSTACK_BLOB, payload, len), 0);
	ck_assert_int_eq(fxt_stream_blob(s, FXT_KSYMS_BLOB, "1 0x1f ksys_read vmlinux\n", 25), 0);
	ck_assert_int_eq(fxt_stream_blob(s, "empty", NULL, 0), 0);
	ck_assert_int_eq(fxt_stream_blob(s, "big", payload, FXT_MAX_BLOB_LEN + 1), -EINVAL);
	end_stream(s);

	r = open_sink(&m);
	next_record(r, &rec, FXT_RT_METADATA);
	next_record(r, &rec, FXT_RT_METADATA);
	next_record(r, &rec, FXT_RT_INIT);
	next_record(r, &rec, FXT_RT_STRING);
	next_record(r, &rec, FXT_RT_BLOB);
	ck_assert_str_eq(rec.name, FXT_KSTACK_BLOB);
	ck_assert_uint_eq(rec.blob_type, FXT_BLOB_RAW);
	ck_assert_uint_eq(rec.blob_len, len);
	ck_assert(!memcmp(rec.blob, payload, len));
	fxt_reader__free(r);

	r = open_sink(&m);
	text = dump(r);
	fxt_reader__free(r);
	ck_assert_msg(strstr(text, "blob name=\"fxsampler.kstack\" type=1 bytes=28 kstack ts=1234 "
				   "tid=42 kframes=3 k7 k1 k65536\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "blob name=\"fxsampler.ksyms\" type=1 bytes=25 lines=1\n"), "%s",
		      text);
	ck_assert_msg(strstr(text, "blob name=\"empty\" type=1 bytes=0\n"), "%s", text);
	free(text);
	free(m.data);
}
END_TEST

/* A blob's reserved bits and a payload past its record are refused. */
START_TEST(test_blob_malformed)
{
	struct fxt_buf b = {0};
	char msg[256];
	unsigned n;

	put_raw(&b, FXT_MAGIC_WORD);
	/* reserved bit 47 set */
	put_raw(&b, 0x5 | 2 << 4 | (0x8000ULL | 1) << 16 | 1ULL << 47);
	put_raw(&b, 'a');
	ck_assert_int_eq(read_all(b.data, b.len, &n, msg, sizeof(msg)), -EBADMSG);
	ck_assert_msg(strstr(msg, "blob"), "%s", msg);
	b.len = 8;
	/* 20 payload bytes in a 2-word record */
	put_raw(&b, 0x5 | 2 << 4 | 20ULL << 32 | 1ULL << 48);
	put_raw(&b, 0);
	ck_assert_int_eq(read_all(b.data, b.len, &n, msg, sizeof(msg)), -EBADMSG);
	ck_assert_msg(strstr(msg, "blob payload"), "%s", msg);
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_kstack_payload)
{
	const uint32_t ids[2] = {3, 0xffffffffu};
	uint8_t buf[FXT_KSTACK_HDR + 8];
	uint64_t ts, tid;
	unsigned nr;

	ck_assert_uint_eq(fxt_kstack_encode(buf, 0x1122334455667788ULL, 9, ids, 2), sizeof(buf));
	ck_assert(fxt_kstack_decode(buf, sizeof(buf), &ts, &tid, &nr));
	ck_assert_uint_eq(ts, 0x1122334455667788ULL);
	ck_assert_uint_eq(tid, 9);
	ck_assert_uint_eq(nr, 2);
	ck_assert_uint_eq(fxt_kstack_id(buf, 0), 3);
	ck_assert_uint_eq(fxt_kstack_id(buf, 1), 0xffffffffu);
	/* little-endian on the wire */
	ck_assert_uint_eq(buf[0], 0x88);
	ck_assert_uint_eq(buf[FXT_KSTACK_HDR], 3);
	ck_assert(!fxt_kstack_decode(buf, sizeof(buf) - 1, &ts, &tid, &nr));
	ck_assert(!fxt_kstack_decode(buf, FXT_KSTACK_HDR - 1, &ts, &tid, &nr));
	ck_assert(!fxt_kstack_decode(NULL, 0, &ts, &tid, &nr));
	ck_assert(fxt_kstack_decode(buf, FXT_KSTACK_HDR, &ts, &tid, &nr));
	ck_assert_uint_eq(nr, 0);
}
END_TEST

START_TEST(test_ksym_lines)
{
	/* malformed lines: each is refused, nothing consumed */
	static const char *const bad[] = {
		"x 0x1 f m\n", "1 1 f m\n",    "1 0x f m\n",	       "1 0x1 f\n",    "1 0x1 f m",
		"1 0x1  m\n",  "-1 0x1 f m\n", "4294967296 0x1 f m\n", "1 0xzz f m\n",
	};
	const char *text = "12 0x1f ksys_read vmlinux\n4294967295 0x0 nft_do_chain nf_tables\n";
	const char *p = text, *end = text + strlen(text);
	struct fxt_ksym_line l;
	char buf[64];

	ck_assert(fxt_ksym_parse(&p, end, &l));
	ck_assert_uint_eq(l.id, 12);
	ck_assert_uint_eq(l.offset, 0x1f);
	ck_assert(l.name_len == 9 && !memcmp(l.name, "ksys_read", 9));
	ck_assert(l.module_len == 7 && !memcmp(l.module, "vmlinux", 7));
	ck_assert(fxt_ksym_parse(&p, end, &l));
	ck_assert_uint_eq(l.id, 0xffffffffu);
	ck_assert(l.module_len == 9 && !memcmp(l.module, "nf_tables", 9));
	ck_assert_ptr_eq(p, end);

	ck_assert_uint_eq(fxt_ksym_format(buf, sizeof(buf), 5, 0x10, "f", "vmlinux"),
			  strlen("5 0x10 f vmlinux\n"));
	ck_assert_str_eq(buf, "5 0x10 f vmlinux\n");
	/* a name that would break the line, and one that does not fit */
	ck_assert_uint_eq(fxt_ksym_format(buf, sizeof(buf), 5, 0, "a b", "vmlinux"), 0);
	ck_assert_uint_eq(fxt_ksym_format(buf, sizeof(buf), 5, 0, "a\nb", "vmlinux"), 0);
	ck_assert_uint_eq(fxt_ksym_format(buf, 8, 5, 0, "abcdef", "vmlinux"), 0);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = bad[i];
		ck_assert_msg(!fxt_ksym_parse(&p, bad[i] + strlen(bad[i]), &l), "%s", bad[i]);
		ck_assert_ptr_eq(p, bad[i]);
	}
}
END_TEST

/* The unnamed lines kstacks_write_symbols() writes are counted; a malformed line ends the count. */
START_TEST(test_ksyms_unnamed)
{
	const char *text = "1 0x0 [unknown] -\n2 0x1f ksys_read vmlinux\n3 0x0 [unknown] -\n"
			   "4 0x0 [unknown] nf_tables\n";
	const char *cut = "1 0x0 [unknown] -\n2 0x0 [unknown]\n3 0x0 [unknown] -\n";

	ck_assert_uint_eq(fxt_ksyms_unnamed(text, strlen(text)), 2);
	ck_assert_uint_eq(fxt_ksyms_unnamed(cut, strlen(cut)), 1);
	ck_assert_uint_eq(fxt_ksyms_unnamed(text, 0), 0);
	ck_assert_uint_eq(fxt_ksyms_unnamed(NULL, 0), 0);
}
END_TEST

static Suite *fxt_kstack_suite(void)
{
	Suite *s = suite_create("fxt_kstack");
	TCase *tc = tcase_create("blob");

	tcase_add_test(tc, test_put_blob);
	tcase_add_test(tc, test_stream_blob_read);
	tcase_add_test(tc, test_blob_malformed);
	tcase_add_test(tc, test_kstack_payload);
	tcase_add_test(tc, test_ksym_lines);
	tcase_add_test(tc, test_ksyms_unnamed);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(fxt_kstack_suite)
