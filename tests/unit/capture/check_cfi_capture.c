// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cfi_capture: how a capture says that --unwind=auto walked by frame pointers
 * because the kernel refused the CFI walker: one warning, and the counter
 * event "cfi_fallback" that record's summary reads back from the file.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/cfi_capture.h"
#include "fxt/fxt_reader.h"
#include "fxt/fxt_stream.h"
#include "check_main.h"

struct buf {
	char data[4096];
	size_t len;
};

static int to_buf(void *ctx, const void *data, size_t len)
{
	struct buf *b = ctx;

	ck_assert_uint_le(b->len + len, sizeof(b->data));
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

static char warned[256];
static int nr_warned;

static void warn(void *ctx, const char *text)
{
	(void)ctx;
	snprintf(warned, sizeof(warned), "%s", text);
	nr_warned++;
}

/* The stream cause writes: the cause read back, and its counter's arguments. */
static unsigned write_and_read(unsigned cause, unsigned *ret_ones)
{
	static struct buf b;
	struct fxt_stream *s;
	struct fxt_reader *r;
	struct fxt_record rec;
	unsigned found = 0;

	b.len = 0;
	*ret_ones = 0;
	s = fxt_stream__new(to_buf, &b, "test", 1000000000ULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(cfi_capture_write_fallback(s, cause, warn, NULL), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
	r = fxt_reader__open_mem(b.data, b.len);
	ck_assert_ptr_nonnull(r);
	while (fxt_reader_next(r, &rec) > 0) {
		if (rec.type != FXT_RT_EVENT || rec.subtype != FXT_EVENT_COUNTER || !rec.name ||
		    strcmp(rec.name, "cfi_fallback"))
			continue;
		for (unsigned i = 0; i < rec.nr_args; i++)
			if (rec.args[i].u) {
				found = cfi_fallback_cause(rec.args[i].name);
				++*ret_ones;
			}
	}
	fxt_reader__free(r);
	return found;
}

START_TEST(test_fallback_round_trip)
{
	static const unsigned causes[] = {BPF_CFI_NO_LOOP, BPF_CFI_NO_JIT, BPF_CFI_REJECTED};
	unsigned ones;

	for (unsigned i = 0; i < 3; i++) {
		nr_warned = 0;
		ck_assert_uint_eq(write_and_read(causes[i], &ones), causes[i]);
		ck_assert_uint_eq(ones, 1);
		ck_assert_int_eq(nr_warned, 1);
		ck_assert_ptr_nonnull(strstr(warned, cfi_fallback_text(causes[i])));
		ck_assert_ptr_nonnull(strstr(warned, "--unwind=auto walks frame pointers"));
	}
}
END_TEST

START_TEST(test_fallback_texts)
{
	ck_assert_ptr_nonnull(strstr(cfi_fallback_text(BPF_CFI_NO_JIT), "bpf_jit_enable=0"));
	ck_assert_ptr_nonnull(strstr(cfi_fallback_text(BPF_CFI_NO_LOOP), "bpf_loop"));
	ck_assert_ptr_nonnull(strstr(cfi_fallback_text(BPF_CFI_REJECTED), "verifier"));
	ck_assert_uint_eq(cfi_fallback_cause("jit_off"), BPF_CFI_NO_JIT);
	ck_assert_uint_eq(cfi_fallback_cause("tables"), 0);
	ck_assert_uint_eq(cfi_fallback_cause(NULL), 0);
}
END_TEST

/* Issue 37: the default tables' memory follows the machine's, within its floor and ceiling. */
START_TEST(test_default_memory)
{
	uint64_t mem = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t want = mem / 256 & ~((1ULL << 20) - 1);
	uint64_t got = cfi_capture_default_memory();

	if (want < CFI_MEMORY_FLOOR)
		want = CFI_MEMORY_FLOOR;
	if (want > CFI_MEMORY_CEIL)
		want = CFI_MEMORY_CEIL;
	ck_assert_uint_eq(got, want);
	/* holds clang++'s 16.2 MB of tables twice over, on any machine */
	ck_assert_uint_ge(got, 32ULL << 20);
	ck_assert_uint_le(got, 128ULL << 20);
}
END_TEST

static Suite *cfi_capture_suite(void)
{
	Suite *s = suite_create("cfi_capture");
	TCase *tc = tcase_create("fallback");

	tcase_add_test(tc, test_fallback_round_trip);
	tcase_add_test(tc, test_fallback_texts);
	tcase_add_test(tc, test_default_memory);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(cfi_capture_suite)
