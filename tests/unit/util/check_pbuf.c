// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pbuf: protocol buffers' wire format by hand (varints, tags, embedded messages). */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "util/pbuf.h"
#include "check_main.h"

static void assert_bytes(const struct pbuf *b, const uint8_t *want, size_t n)
{
	ck_assert_int_eq(b->err, 0);
	ck_assert_uint_eq(b->len, n);
	ck_assert_int_eq(memcmp(b->data, want, n), 0);
}

START_TEST(test_varint)
{
	static const uint8_t want[] = {0x00, 0x01, 0x7f, 0x80, 0x01, 0xac, 0x02, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	struct pbuf b = {};

	pb_varint(&b, 0);
	pb_varint(&b, 1);
	pb_varint(&b, 127);
	pb_varint(&b, 128);
	pb_varint(&b, 300);
	pb_varint(&b, UINT64_MAX); /* ten bytes, the last 0x01 */
	assert_bytes(&b, want, sizeof(want));
	pbuf_free(&b);
	ck_assert_ptr_null(b.data);
	ck_assert_uint_eq(b.len, 0);
	pbuf_free(NULL);
}
END_TEST

START_TEST(test_fields)
{
	/* field 1 = 150, field 2 left out (0), field 3 = 0 kept, field 66 = "ab" */
	static const uint8_t want[] = {0x08, 0x96, 0x01, 0x18, 0x00, 0x92, 0x04, 0x02, 'a', 'b'};
	struct pbuf b = {};

	pb_uint(&b, 1, 150);
	pb_uint(&b, 2, 0);
	pb_uint_always(&b, 3, 0);
	pb_str(&b, 66, "ab");
	assert_bytes(&b, want, sizeof(want));
	pbuf_free(&b);
}
END_TEST

START_TEST(test_messages)
{
	/* field 12 { field 1 = 7 }, then the emptied sub reused: field 12 {} */
	static const uint8_t want[] = {0x62, 0x02, 0x08, 0x07, 0x62, 0x00};
	struct pbuf b = {}, sub = {};

	pb_uint(&sub, 1, 7);
	pb_msg(&b, 12, &sub);
	ck_assert_uint_eq(sub.len, 0);
	pb_msg(&b, 12, &sub);
	assert_bytes(&b, want, sizeof(want));
	/* a sub's error carries into the message it goes in, and stays */
	sub.err = -12;
	pb_msg(&b, 12, &sub);
	ck_assert_int_eq(b.err, -12);
	pb_uint(&b, 1, 1);
	ck_assert_uint_eq(b.len, sizeof(want));
	pbuf_free(&b);
	pbuf_free(&sub);
}
END_TEST

START_TEST(test_growth)
{
	struct pbuf b = {};
	size_t i;

	for (i = 0; i < 100000; i++)
		pb_uint(&b, 1, i + 1);
	ck_assert_int_eq(b.err, 0);
	ck_assert_uint_ge(b.cap, b.len);
	ck_assert_uint_eq(b.data[0], 0x08);
	ck_assert_uint_eq(b.data[1], 0x01);
	pbuf_free(&b);
}
END_TEST

static Suite *pbuf_suite(void)
{
	Suite *s = suite_create("pbuf");
	TCase *tc = tcase_create("encoding");

	tcase_add_test(tc, test_varint);
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_messages);
	tcase_add_test(tc, test_growth);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(pbuf_suite)
