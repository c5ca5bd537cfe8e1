// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stacks deeper than a backtrace record holds (255 frames, an 8-bit count):
 * the writer puts the outer frames into an FXT_FRAMES_BLOB record before the
 * backtrace, and the reader gives them back as one backtrace (fxt/fxt.h).
 */
#include <check.h>

#include "fxt_check.h"
#include "check_main.h"

/* Frame i of a made-up stack of thread tid: tells every frame apart. */
static uint64_t frame(uint64_t tid, unsigned i)
{
	return 0x400000 + tid * 0x100000 + i * 16;
}

/* One backtrace of nr frames of thread tid at ts into s. */
static void put_stack(struct fxt_stream *s, uint64_t ts, uint64_t tid, unsigned nr, unsigned flags)
{
	uint64_t frames[FXT_MAX_FRAMES];

	for (unsigned i = 0; i < nr; i++)
		frames[i] = frame(tid, i);
	ck_assert_int_eq(fxt_stream_backtrace(s, ts, 1, tid, flags, frames, nr), 0);
}

/* The next backtrace read, which must be nr frames of thread tid at ts. */
static void expect_stack(struct fxt_reader *r, uint64_t ts, uint64_t tid, unsigned nr)
{
	struct fxt_record rec;
	int err;

	while ((err = fxt_reader_next(r, &rec)) == 1)
		if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_BACKTRACE)
			break;
	ck_assert_msg(err == 1, "%d %s", err, fxt_reader_error(r));
	ck_assert_uint_eq(rec.ts, ts);
	ck_assert_uint_eq(rec.tid, tid);
	ck_assert_uint_eq(rec.nr_frames, nr);
	for (unsigned i = 0; i < nr; i++)
		ck_assert_uint_eq(rec.frames[i], frame(tid, i));
}

/* 255 frames fit the record; 256, 300 and 512 take the blob too; all read back whole. */
START_TEST(test_deep_round_trip)
{
	static const unsigned depths[] = {1, 254, 255, 256, 300, 512, FXT_MAX_FRAMES};
	struct mem_sink m;
	struct fxt_stream *s = new_stream(&m);
	struct fxt_reader *r;
	size_t i;

	for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++)
		put_stack(s, 100 + i, 7 + i % 2, depths[i], FXT_BT_FLAG_TRUNCATED);
	end_stream(s);
	r = open_sink(&m);
	for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++)
		expect_stack(r, 100 + i, 7 + i % 2, depths[i]);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

/* The record itself: 255 frames, the blob before it with the rest, in order. */
START_TEST(test_deep_records)
{
	struct mem_sink m;
	struct fxt_stream *s = new_stream(&m);
	struct fxt_reader *r;
	struct fxt_record rec;
	uint64_t ts, tid;
	unsigned nr, blobs = 0;
	int err;

	put_stack(s, 5, 9, 300, 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 5, 1, 9, 0, (uint64_t[1]){1}, 0), -EINVAL);
	ck_assert_int_eq(fxt_stream_backtrace(s, 5, 1, 9, 0, (uint64_t[1]){1}, FXT_MAX_FRAMES + 1),
			 -EINVAL);
	end_stream(s);
	r = open_sink(&m);
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		if (rec.type == FXT_RT_BLOB) {
			ck_assert_str_eq(rec.name, FXT_FRAMES_BLOB);
			ck_assert(fxt_frames_blob_decode(rec.blob, rec.blob_len, &ts, &tid, &nr));
			ck_assert_uint_eq(ts, 5);
			ck_assert_uint_eq(tid, 9);
			ck_assert_uint_eq(nr, 300 - 255);
			ck_assert_uint_eq(fxt_get_le(rec.blob + FXT_FRAMES_HDR, 8), frame(9, 255));
			blobs++;
		}
		/* a reader of the record alone: its header says 255 frames */
		if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_BACKTRACE)
			ck_assert_uint_eq((rec.header >> 28) & 0xff, 255);
	}
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(blobs, 1);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

/*
 * A blob not followed by its backtrace (another thread's, another time's, or
 * a record of 255 frames that is not the blob's) joins nothing, and a later
 * backtrace does not get stale frames.
 */
START_TEST(test_deep_unpaired)
{
	struct fxt_buf b = {0};
	struct fxt_reader *r;
	struct fxt_tref t = {.index = 0, .pid = 1, .tid = 9};
	struct fxt_sref name = {.s = FXT_FRAMES_BLOB, .len = strlen(FXT_FRAMES_BLOB)};
	uint64_t frames[255], more[3] = {1, 2, 3}, ts, tid;
	unsigned nr;

	for (unsigned i = 0; i < 255; i++)
		frames[i] = frame(9, i);
	ck_assert_int_eq(fxt_put_magic(&b), 0);
	/* wrong thread, then the right one's backtrace at another time */
	ck_assert_int_eq(fxt_put_frames_blob(&b, name, 10, 8, more, 3), 0);
	ck_assert_int_eq(fxt_put_backtrace(&b, 10, t, 0, frames, 255), 0);
	ck_assert_int_eq(fxt_put_frames_blob(&b, name, 11, 9, more, 3), 0);
	ck_assert_int_eq(fxt_put_backtrace(&b, 12, t, 0, frames, 255), 0);
	ck_assert_int_eq(fxt_put_backtrace(&b, 11, t, 0, frames, 255), 0);
	/* a shorter record is never joined */
	ck_assert_int_eq(fxt_put_frames_blob(&b, name, 13, 9, more, 3), 0);
	ck_assert_int_eq(fxt_put_backtrace(&b, 13, t, 0, frames, 10), 0);
	ck_assert_int_eq(fxt_put_frames_blob(&b, name, 14, 9, more, 0), -EINVAL);
	ck_assert_int_eq(b.err, 0);
	r = fxt_reader__open_mem(b.data, b.len);
	ck_assert_ptr_nonnull(r);
	expect_stack(r, 10, 9, 255);
	expect_stack(r, 12, 9, 255);
	expect_stack(r, 11, 9, 255);
	expect_stack(r, 13, 9, 10);
	fxt_reader__free(r);
	/* payloads that are not whole */
	ck_assert(!fxt_frames_blob_decode((const uint8_t *)"0123456789abcdef", 16, &ts, &tid, &nr));
	ck_assert(!fxt_frames_blob_decode((const uint8_t *)"0123456789abcdef0123", 20, &ts, &tid,
					  &nr));
	ck_assert(!fxt_frames_blob_decode(NULL, 24, &ts, &tid, &nr));
	fxt_buf_free(&b);
}
END_TEST

static Suite *fxt_deep_suite(void)
{
	Suite *s = suite_create("fxt_deep");
	TCase *tc = tcase_create("deep");

	tcase_add_test(tc, test_deep_round_trip);
	tcase_add_test(tc, test_deep_records);
	tcase_add_test(tc, test_deep_unpaired);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(fxt_deep_suite)
