// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's symbols from kallsyms text, and its build id from ELF notes. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/kallsyms.h"
#include "check_main.h"

static const char listing[] = "ffffffff81000000 T _text\n"
			      "ffffffff81001000 t helper\n"
			      "ffffffff81002000 D some_data\n"
			      "ffffffff81003000 T ksys_read\n"
			      "ffffffff81003400 W weak_fn\n"
			      "ffffffff81004000 T bpf_trace_run4\n"
			      "ffffffffc0001000 t nft_do_chain\t[nf_tables]\n"
			      "ffffffffc0100000 t bpf_prog_0123456789abcdef_fxs_offcpu\t[bpf]\n"
			      "garbage line\n"
			      "ffffffff81005000 T last_no_newline";

START_TEST(test_parse_and_find)
{
	struct kallsyms *k = kallsyms__parse(listing, strlen(listing));
	const struct ksym *s;

	ck_assert_ptr_nonnull(k);
	/* text and weak symbols only: the data symbol and the garbage are left out */
	ck_assert_uint_eq(kallsyms_count(k), 8);
	ck_assert_ptr_null(kallsyms_find(k, 0xffffffff80ffffffULL));
	s = kallsyms_find(k, 0xffffffff81003010ULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "ksys_read");
	ck_assert_str_eq(s->module, "vmlinux");
	ck_assert_uint_eq(s->addr, 0xffffffff81003000ULL);
	/* the data symbol does not end helper */
	ck_assert_str_eq(kallsyms_find(k, 0xffffffff81002100ULL)->name, "helper");
	ck_assert_str_eq(kallsyms_find(k, 0xffffffff81003400ULL)->name, "weak_fn");
	s = kallsyms_find(k, 0xffffffffc0001234ULL);
	ck_assert_str_eq(s->name, "nft_do_chain");
	ck_assert_str_eq(s->module, "nf_tables");
	ck_assert_str_eq(kallsyms_find(k, 0xffffffff81006000ULL)->name, "last_no_newline");

	ck_assert(kallsyms_is_tracing(k, 0xffffffff81004010ULL));
	ck_assert(kallsyms_is_tracing(k, 0xffffffffc0100040ULL));
	ck_assert(!kallsyms_is_tracing(k, 0xffffffff81003010ULL));
	ck_assert(!kallsyms_is_tracing(k, 0x1000));
	kallsyms__free(k);
}
END_TEST

/* A reader that may not see the addresses (kptr_restrict) gets nothing to look up. */
START_TEST(test_hidden_addresses)
{
	static const char hidden[] = "0000000000000000 T _text\n0000000000000000 T ksys_read\n";
	struct kallsyms *k = kallsyms__parse(hidden, strlen(hidden));

	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(kallsyms_count(k), 0);
	ck_assert_ptr_null(kallsyms_find(k, 0));
	ck_assert_ptr_null(kallsyms_find(k, 0xffffffff81003010ULL));
	ck_assert(!kallsyms_is_tracing(k, 0));
	kallsyms__free(k);
	ck_assert_ptr_null(kallsyms_find(NULL, 1));
	ck_assert_uint_eq(kallsyms_count(NULL), 0);
}
END_TEST

START_TEST(test_load_file)
{
	char path[] = "/tmp/fxs-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	struct kallsyms *k;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, listing, strlen(listing)), (ssize_t)strlen(listing));
	close(fd);
	k = kallsyms__load(path);
	unlink(path);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(kallsyms_count(k), 8);
	kallsyms__free(k);
	errno = 0;
	ck_assert_ptr_null(kallsyms__load("/nonexistent/kallsyms"));
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

static size_t note(uint8_t *p, const char *name, uint32_t type, const uint8_t *desc,
		   uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1, hdr[3] = {namesz, descsz, type};
	size_t n = 12;

	memcpy(p, hdr, 12);
	memset(p + n, 0, (namesz + 3) & ~3u);
	memcpy(p + n, name, namesz);
	n += (namesz + 3) & ~3u;
	memset(p + n, 0, (descsz + 3) & ~3u);
	memcpy(p + n, desc, descsz);
	return n + ((descsz + 3) & ~3u);
}

/* /sys/kernel/notes holds several notes; the GNU build id is type 3 of "GNU". */
START_TEST(test_notes_build_id)
{
	const uint8_t xen[6] = {1, 2, 3, 4, 5, 6}, id[20] = {0xa3, 0xe4, 0xcd, 0x60, 0xa8};
	uint8_t notes[256], out[64];
	size_t len = 0;

	len += note(notes + len, "Xen", 3, xen, sizeof(xen));
	len += note(notes + len, "GNU", 1, xen, 4);
	len += note(notes + len, "GNU", 3, id, sizeof(id));
	ck_assert_uint_eq(kallsyms_notes_build_id(notes, len, out, sizeof(out)), 20);
	ck_assert(!memcmp(out, id, 20));
	/* cut short, or too small a buffer: none */
	ck_assert_uint_eq(kallsyms_notes_build_id(notes, len - 4, out, sizeof(out)), 0);
	ck_assert_uint_eq(kallsyms_notes_build_id(notes, len, out, 8), 0);
	ck_assert_uint_eq(kallsyms_notes_build_id(notes, 11, out, sizeof(out)), 0);
}
END_TEST

static Suite *kallsyms_suite(void)
{
	Suite *s = suite_create("kallsyms");
	TCase *tc = tcase_create("kallsyms");

	tcase_add_test(tc, test_parse_and_find);
	tcase_add_test(tc, test_hidden_addresses);
	tcase_add_test(tc, test_load_file);
	tcase_add_test(tc, test_notes_build_id);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(kallsyms_suite)
