// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests: .eh_frame and .debug_frame framing on bytes written by hand:
 * LEB128 and pointer encodings, 64-bit lengths, the zero terminator, CIE
 * versions and augmentations, and every malformed case refused.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/eh_frame.h"

#include "cfi_bytes.h"
#include "check_main.h"

static struct bytes w;

static struct cfi_section section(bool debug_frame)
{
	return (struct cfi_section){.data = w.b,
				    .size = w.n,
				    .vaddr = 0x10000,
				    .text_vaddr = 0x20000,
				    .data_vaddr = 0x30000,
				    .debug_frame = debug_frame};
}

START_TEST(test_leb128)
{
	const uint8_t u[] = {0xe5, 0x8e, 0x26}, s[] = {0xc0, 0xbb, 0x78};
	const uint8_t big[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
	const uint8_t *p = u;
	uint64_t v;
	int64_t sv;

	ck_assert_int_eq(cfi_read_uleb(&p, u + 3, &v), 0);
	ck_assert_uint_eq(v, 624485);
	ck_assert_ptr_eq(p, u + 3);
	p = s;
	ck_assert_int_eq(cfi_read_sleb(&p, s + 3, &sv), 0);
	ck_assert_int_eq(sv, -123456);
	p = big;
	ck_assert_int_eq(cfi_read_uleb(&p, big + 10, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	p = over;
	ck_assert_int_eq(cfi_read_uleb(&p, over + 10, &v), -EBADMSG);
	p = u;
	ck_assert_int_eq(cfi_read_uleb(&p, u + 2, &v), -EBADMSG);
	ck_assert_ptr_eq(p, u);
	ck_assert_int_eq(cfi_read_u(&p, u + 2, 4, &v), -EBADMSG);
}
END_TEST

START_TEST(test_pointer_encodings)
{
	struct cfi_section s;
	const uint8_t *p;
	uint64_t v;

	w.n = 0;
	put_u(&w, 0xfffffff0, 4); /* sdata4 -16 */
	put_u(&w, 0x1234, 2);
	put_u(&w, 0x100, 4);
	s = section(false);
	p = w.b;
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + w.n, 0x1b, &v), 0); /* pcrel|sdata4 */
	ck_assert_uint_eq(v, 0x10000 - 16);
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + w.n, 0x02, &v), 0); /* udata2 */
	ck_assert_uint_eq(v, 0x1234);
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + w.n, 0x33, &v), 0); /* datarel|udata4 */
	ck_assert_uint_eq(v, 0x30100);
	p = w.b + 6;
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + w.n, 0x23, &v), 0); /* textrel */
	ck_assert_uint_eq(v, 0x20100);
	p = w.b;
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + w.n, 0x0a, &v), 0); /* sdata2 */
	ck_assert_uint_eq(v, (uint64_t)-16);
	p = w.b;
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + w.n, 0x43, &v), -EBADMSG); /* funcrel */
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + w.n, 0x05, &v), -EBADMSG);
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + w.n, 0xff, &v), -EBADMSG); /* omit */
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + 2, 0x04, &v), -EBADMSG);
	s.data_vaddr = 0;
	ck_assert_int_eq(cfi_read_pointer(&s, &p, w.b + w.n, 0x33, &v), -EBADMSG);
}
END_TEST

START_TEST(test_fdes_and_terminator)
{
	struct cfi_section s;
	struct cfi_fde f;
	size_t cie, pos = 0;

	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x1b, X86_CIE_INSNS);
	/* An FDE with pcrel pointers, as linkers write them: pc_begin 0x1000. */
	{
		size_t start = w.n;

		put_u(&w, 0, 4);
		put_u(&w, (uint32_t)(w.n - cie), 4);
		put_u(&w, (uint32_t)(0x1000 - (0x10000 + w.n)), 4);
		put_u(&w, 0x20, 4);
		put_uleb(&w, 0);
		put(&w, INSNS(0x41, 0x0e, 16));
		end_entry(&w, start);
	}
	put_u(&w, 0, 4);		      /* terminator */
	eh_fde(&w, cie, 0x9999, 4, INSNS(0)); /* after the terminator: never read */
	s = section(false);
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), 1);
	ck_assert_uint_eq(f.pc_begin, 0x1000);
	ck_assert_uint_eq(f.pc_end, 0x1020);
	ck_assert_uint_eq(f.cie.ra_reg, 16);
	ck_assert_int_eq(f.cie.data_align, -8);
	ck_assert_uint_eq(f.cie.insns_len % 1, 0);
	ck_assert_uint_eq(f.insns[0], 0x41);
	ck_assert(!f.cie.signal);
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), 0);
}
END_TEST

START_TEST(test_augmentations)
{
	struct cfi_section s;
	struct cfi_fde f;
	size_t cie, start, pos = 0;

	/* "zPLRS": personality (indirect pcrel sdata4), LSDA encoding, signal. */
	w.n = 0;
	cie = w.n;
	put_u(&w, 0, 4);
	put_u(&w, 0, 4);
	put_u(&w, 3, 1); /* version 3: RA as ULEB */
	put(&w, "zPLRS", 6);
	put_uleb(&w, 4);
	put_sleb(&w, -8);
	put_uleb(&w, 30);
	put_uleb(&w, 7);
	put_u(&w, 0x9b, 1);
	put_u(&w, 0x1234, 4);
	put_u(&w, 0x1b, 1);
	put_u(&w, 0x03, 1);
	put(&w, INSNS(0x0c, 31, 0));
	end_entry(&w, cie);
	start = w.n;
	put_u(&w, 0, 4);
	put_u(&w, (uint32_t)(w.n - cie), 4);
	put_u(&w, 0x4000, 4);
	put_u(&w, 0x40, 4);
	put_uleb(&w, 4); /* LSDA pointer */
	put_u(&w, 0xdead, 4);
	put(&w, INSNS(0x42));
	end_entry(&w, start);
	s = section(false);
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), 1);
	ck_assert(f.cie.signal);
	ck_assert_uint_eq(f.cie.code_align, 4);
	ck_assert_uint_eq(f.cie.ra_reg, 30);
	ck_assert_uint_eq(f.pc_begin, 0x4000);
	ck_assert_uint_eq(f.insns[0], 0x42);
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), 0);

	/* An augmentation we do not know, and pre-"z" "eh". */
	w.n = 0;
	cie = eh_cie(&w, "X", 1, -8, 16, 0x03, X86_CIE_INSNS);
	eh_fde(&w, cie, 0x1000, 16, INSNS(0));
	s = section(false);
	pos = 0;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), -EBADMSG);
	w.b[9] = 'e';
	w.b[10] = 'h';
	pos = 0;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), -EBADMSG);
}
END_TEST

START_TEST(test_debug_frame_and_64bit)
{
	struct cfi_section s;
	struct cfi_fde f;
	size_t start, pos = 0;

	/* A DWARF64 CIE, version 4, then a DWARF32 FDE pointing at it. */
	w.n = 0;
	put_u(&w, 0xffffffff, 4);
	put_u(&w, 0, 8); /* length, patched */
	put_u(&w, UINT64_MAX, 8);
	put_u(&w, 4, 1);
	put(&w, "", 1);
	put_u(&w, 8, 1); /* address size */
	put_u(&w, 0, 1); /* segment selector size */
	put_uleb(&w, 1);
	put_sleb(&w, -8);
	put_uleb(&w, 16);
	put(&w, X86_CIE_INSNS);
	{
		uint64_t len = w.n - 12;

		memcpy(w.b + 4, &len, 8);
	}
	start = w.n;
	put_u(&w, 0, 4);
	put_u(&w, 0, 4); /* .debug_frame: the CIE's offset in the section */
	put_u(&w, 0x401000, 8);
	put_u(&w, 0x80, 8);
	put(&w, INSNS(0x41, 0x0e, 16));
	end_entry(&w, start);
	s = section(true);
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), 1);
	ck_assert_uint_eq(f.pc_begin, 0x401000);
	ck_assert_uint_eq(f.pc_end, 0x401080);
	ck_assert_uint_eq(f.cie.ra_reg, 16);
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), 0);
	/* The same bytes as .eh_frame: the CIE id is not 0, so its "FDE" points nowhere. */
	s = section(false);
	pos = 0;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), -EBADMSG);
}
END_TEST

START_TEST(test_malformed)
{
	struct cfi_section s;
	struct cfi_fde f;
	size_t cie, fde, pos;

	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	fde = eh_fde(&w, cie, 0x1000, 16, INSNS(0x41));
	s = section(false);
	/* A length past the section. */
	s.size = w.n - 1;
	pos = 0;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), -EBADMSG);
	/* A CIE pointer before the section, and one to an FDE. */
	s = section(false);
	memcpy(w.b + fde + 4, &(uint32_t){0x1000}, 4);
	pos = 0;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), -EBADMSG);
	memcpy(w.b + fde + 4, &(uint32_t){4}, 4);
	pos = 0;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), -EBADMSG);
	/* A range that wraps the address space. */
	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x04, X86_CIE_INSNS);
	{
		size_t start = w.n;

		put_u(&w, 0, 4);
		put_u(&w, (uint32_t)(w.n - cie), 4);
		put_u(&w, UINT64_MAX - 4, 8);
		put_u(&w, 16, 8);
		put_uleb(&w, 0);
		end_entry(&w, start);
	}
	s = section(false);
	pos = 0;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), -EBADMSG);
	/* A CIE version we do not know. */
	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	eh_fde(&w, cie, 0x1000, 16, INSNS(0));
	w.b[8] = 2;
	s = section(false);
	pos = 0;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), -EBADMSG);
	/* An empty section and a lone short length. */
	s.size = 0;
	pos = 0;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), 0);
	s.size = 3;
	ck_assert_int_eq(cfi_next_fde(&s, &pos, &f), -EBADMSG);
}
END_TEST

static Suite *eh_frame_suite(void)
{
	Suite *s = suite_create("eh_frame");
	TCase *tc = tcase_create("framing");

	tcase_add_test(tc, test_leb128);
	tcase_add_test(tc, test_pointer_encodings);
	tcase_add_test(tc, test_fdes_and_terminator);
	tcase_add_test(tc, test_augmentations);
	tcase_add_test(tc, test_debug_frame_and_64bit);
	tcase_add_test(tc, test_malformed);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(eh_frame_suite)
