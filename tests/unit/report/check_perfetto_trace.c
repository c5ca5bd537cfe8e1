// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfetto_trace: Perfetto's TracePackets as protos/perfetto/trace spells
 * them (bytes worked out by hand from the .proto field numbers), and their
 * FXT blob records of type 3, read back with fxsampler's FXT reader.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "report/perfetto_trace.h"
#include "check_main.h"

static void assert_bytes(const struct pbuf *b, const uint8_t *want, size_t n)
{
	size_t i;

	ck_assert_int_eq(b->err, 0);
	ck_assert_uint_eq(b->len, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(b->data[i] == want[i], "byte %zu: 0x%02x, want 0x%02x", i, b->data[i],
			      want[i]);
}

START_TEST(test_sample_packet)
{
	static const uint8_t want[] = {
		0x0a, 19,	       /* Trace.packet, 19 bytes */
		0x40, 0x05,	       /* timestamp = 5 */
		0x50, 0x01,	       /* trusted_packet_sequence_id = 1 */
		0x68, 0x02,	       /* sequence_flags = SEQ_NEEDS_INCREMENTAL_STATE */
		0x92, 0x04, 10,	       /* perf_sample (66), 10 bytes */
		0x08, 0x00,	       /* cpu = 0, written: CPU 0 is a CPU */
		0x10, 100,  0x18, 101, /* pid, tid */
		0x20, 0x07,	       /* callstack_iid */
		0x28, 0x01,	       /* cpu_mode = MODE_KERNEL */
	};
	struct perfetto_sample s = {.ts_ns = 5,
				    .pid = 100,
				    .tid = 101,
				    .has_cpu = true,
				    .callstack_iid = 7,
				    .kernel_mode = true};
	struct pbuf trace = {}, scratch = {};

	perfetto_packet_sample(&trace, 1, &s, &scratch);
	assert_bytes(&trace, want, sizeof(want));
	/* without a CPU (an older file) the field is left out; user mode */
	trace.len = 0;
	s.has_cpu = false;
	s.kernel_mode = false;
	perfetto_packet_sample(&trace, 1, &s, &scratch);
	ck_assert_uint_eq(trace.len, sizeof(want) - 2);
	ck_assert_uint_eq(trace.data[trace.len - 1], 0x02); /* MODE_USER */
	pbuf_free(&trace);
	pbuf_free(&scratch);
}
END_TEST

START_TEST(test_interned)
{
	/* frame_ids unpacked (proto2 repeated: one field each) */
	static const uint8_t callstack[] = {0x3a, 0x06, 0x08, 0x03, 0x10, 0x01, 0x10, 0x02};
	/* a frame in a mapping keeps rel_pc 0; kind = KIND_KERNEL */
	static const uint8_t frame[] = {0x32, 0x0a, 0x08, 0x04, 0x10, 0x05,
					0x18, 0x06, 0x20, 0x00, 0x38, 0x02};
	/* a frame without a mapping has no rel_pc */
	static const uint8_t dummy[] = {0x32, 0x04, 0x08, 0x04, 0x10, 0x05};
	static const uint8_t name[] = {0x2a, 0x05, 0x08, 0x09, 0x12, 0x01, 'f'};
	static const uint8_t mapping[] = {0x9a, 0x01, 0x0a, 0x08, 0x01, 0x10, 0x03,
					  0x20, 0x10, 0x28, 0x20, 0x38, 0x02};
	static const uint8_t packet[] = {0x0a, 0x0b, 0x50, 0x01, 0x68, 0x01, 0xb8,
					 0x05, 0x01, 0x62, 0x02, 0x08, 0x01};
	struct perfetto_frame f = {
		.iid = 4, .function_name_iid = 5, .mapping_iid = 6, .kind = PERFETTO_KIND_KERNEL};
	struct perfetto_mapping m = {
		.iid = 1, .start = 0x10, .end = 0x20, .path_iid = 2, .build_id_iid = 3};
	struct pbuf b = {}, in = {};

	perfetto_intern_callstack(&b, 3, (const uint64_t[]){1, 2}, 2);
	assert_bytes(&b, callstack, sizeof(callstack));
	b.len = 0;
	perfetto_intern_frame(&b, &f);
	assert_bytes(&b, frame, sizeof(frame));
	b.len = 0;
	f.mapping_iid = 0;
	f.kind = 0;
	perfetto_intern_frame(&b, &f);
	assert_bytes(&b, dummy, sizeof(dummy));
	b.len = 0;
	perfetto_intern_string(&b, PERFETTO_FUNCTION_NAMES, 9, "f");
	assert_bytes(&b, name, sizeof(name));
	b.len = 0;
	perfetto_intern_mapping(&b, &m);
	assert_bytes(&b, mapping, sizeof(mapping));
	/* the first packet of the sequence clears its state, says it is the first */
	b.len = 0;
	pb_uint(&in, 1, 1);
	perfetto_packet_interned(&b, 1, true, &in);
	assert_bytes(&b, packet, sizeof(packet));
	ck_assert_uint_eq(in.len, 0);
	/* later ones need it */
	b.len = 0;
	perfetto_packet_interned(&b, 1, false, &in);
	ck_assert_uint_eq(b.data[5], 0x02);
	pbuf_free(&b);
	pbuf_free(&in);
}
END_TEST

/* Bytes across blob records of 32000 bytes, each well under 32 KiB, read back whole. */
START_TEST(test_fxt_blobs)
{
	const size_t len = 70001;
	uint8_t *data = malloc(len), *back = calloc(1, len);
	struct fxt_buf out = {0};
	struct fxt_reader *rd;
	struct fxt_record rec;
	size_t got = 0, i;
	unsigned blobs = 0;

	ck_assert_ptr_nonnull(data);
	ck_assert_ptr_nonnull(back);
	for (i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 7 + 3);
	ck_assert_int_eq(fxt_put_magic(&out), 0);
	ck_assert_int_eq(fxt_put_provider_info(&out, 1, "fxsampler"), 0);
	ck_assert_int_eq(perfetto_fxt_blobs(&out, data, len), 0);
	rd = fxt_reader__open_mem(out.data, out.len);
	ck_assert_ptr_nonnull(rd);
	while (fxt_reader_next(rd, &rec) == 1) {
		if (rec.type != FXT_RT_BLOB)
			continue;
		blobs++;
		ck_assert_uint_eq(rec.blob_type, FXT_BLOB_PERFETTO);
		ck_assert_str_eq(rec.name, PERFETTO_BLOB_NAME);
		ck_assert_uint_lt(rec.words, 4096);
		ck_assert_uint_le(got + rec.blob_len, len);
		memcpy(back + got, rec.blob, rec.blob_len);
		got += rec.blob_len;
	}
	ck_assert_uint_eq(blobs, 3);
	ck_assert_uint_eq(got, len);
	ck_assert_int_eq(memcmp(data, back, len), 0);
	fxt_reader__free(rd);
	/* nothing to write: no record */
	out.len = 0;
	ck_assert_int_eq(perfetto_fxt_blobs(&out, data, 0), 0);
	ck_assert_uint_eq(out.len, 0);
	fxt_buf_free(&out);
	free(data);
	free(back);
}
END_TEST

static Suite *perfetto_trace_suite(void)
{
	Suite *s = suite_create("perfetto-trace");
	TCase *tc = tcase_create("encoding");

	tcase_add_test(tc, test_sample_packet);
	tcase_add_test(tc, test_interned);
	tcase_add_test(tc, test_fxt_blobs);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(perfetto_trace_suite)
