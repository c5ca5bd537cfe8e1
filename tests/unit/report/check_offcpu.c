// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Off-CPU intervals: the context-switch record's bytes, the reader's round
 * trip, the pairing of intervals with their stacks (daemon/report/offcpu.c), the
 * report's --off-cpu and --wall views, and the options that ask for them.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "fxt/fxt.h"
#include "fxt/fxt_stream.h"
#include "fxt/fxt_dump.h"
#include "fxt/fxt_reader.h"
#include "report/offcpu.h"
#include "service/protocol.h"
#include "report/report.h"
#include "check_main.h"

#define GHZ 1000000000ULL

static uint64_t word_at(const uint8_t *data, size_t i)
{
	uint64_t w;

	memcpy(&w, data + i * 8, 8);
	return le64toh(w);
}

struct mem_sink {
	uint8_t *data;
	size_t len, cap;
};

static int mem_sink_write(void *ctx, const void *data, size_t len)
{
	struct mem_sink *m = ctx;

	if (m->len + len > m->cap) {
		m->cap = (m->len + len) * 2;
		m->data = realloc(m->data, m->cap);
		ck_assert_ptr_nonnull(m->data);
	}
	memcpy(m->data + m->len, data, len);
	m->len += len;
	return 0;
}

/* --- golden bytes --- */

START_TEST(test_context_switch_bytes)
{
	struct fxt_arg w = {.type = FXT_ARG_INT32,
			    .name = {.index = 5},
			    .u = (uint64_t)(int64_t)FXT_IDLE_WEIGHT};
	struct fxt_buf b = {0};

	/*
	 * 5 words: header, ts, out, in, one int32 argument.
	 * 8 | 5 << 4 | argc 1 << 16 | cpu 1 << 20 | state 3 << 36 | subtype 1 << 60.
	 * Argument: 1 | 1 << 4 | name 5 << 16 | INT32_MIN << 32.
	 */
	ck_assert_int_eq(fxt_put_context_switch(&b, 100, 1, FXT_THREAD_BLOCKED, 1235, 0, &w, 1), 0);
	ck_assert_uint_eq(b.len, 5 * 8);
	ck_assert_uint_eq(word_at(b.data, 0), 0x1000003000110058ULL);
	ck_assert_uint_eq(word_at(b.data, 1), 100);
	ck_assert_uint_eq(word_at(b.data, 2), 1235);
	ck_assert_uint_eq(word_at(b.data, 3), 0);
	ck_assert_uint_eq(word_at(b.data, 4), 0x8000000000050011ULL);
	fxt_buf_free(&b);

	/* No arguments, cpu 0xffff, state 15: 4 words. */
	ck_assert_int_eq(fxt_put_context_switch(&b, 7, 0xffff, 15, 0, 42, NULL, 0), 0);
	ck_assert_uint_eq(b.len, 4 * 8);
	ck_assert_uint_eq(word_at(b.data, 0), 0x100000fffff00048ULL);
	ck_assert_uint_eq(word_at(b.data, 3), 42);
	fxt_buf_free(&b);

	/* Fields out of range: nothing written. */
	ck_assert_int_eq(fxt_put_context_switch(&b, 7, 0x10000, 1, 1, 0, NULL, 0), -EINVAL);
	ck_assert_int_eq(fxt_put_context_switch(&b, 7, 0, 16, 1, 0, NULL, 0), -EINVAL);
	ck_assert_uint_eq(b.len, 0);
	fxt_buf_free(&b);
}
END_TEST

START_TEST(test_offcpu_backtrace_flags)
{
	uint64_t frames[] = {0x401000};
	unsigned flags = FXT_BT_FLAG_OFFCPU | FXT_BT_FLAG_PC_IS_RETURN |
			 FXS_OFF_UNINTERRUPTIBLE << FXT_BT_OFFCPU_STATE_SHIFT;
	struct fxt_tref t = {.index = 1};
	struct fxt_buf b = {0};

	/* 0xa | 3 << 4 | 2 << 16 | 1 << 20 | 1 << 28 | (0x2 | 0x4 | 2 << 3) << 36 */
	ck_assert_int_eq(fxt_put_backtrace(&b, 9, t, flags, frames, 1), 0);
	ck_assert_uint_eq(word_at(b.data, 0), 0x0000016010120032ULL + 0x8ULL);
	ck_assert_uint_eq(FXT_BT_OFFCPU_STATE(flags), FXS_OFF_UNINTERRUPTIBLE);
	fxt_buf_free(&b);
	/* Bits 7..27 are the CPU (FXT_BT_FLAG_HAS_CPU); past the 28 bits is no one's. */
	ck_assert_int_eq(fxt_put_backtrace(&b, 9, t, flags | FXT_BT_CPU(3), frames, 1), 0);
	ck_assert_uint_eq(word_at(b.data, 0), 0x0000016010120032ULL + 0x8ULL + (0x380ULL << 36));
	fxt_buf_free(&b);
	ck_assert_int_eq(fxt_put_backtrace(&b, 9, t, 1u << 28, frames, 1), -EINVAL);
	fxt_buf_free(&b);
}
END_TEST

/* --- reader round trips --- */

static struct fxt_reader *open_stream(struct mem_sink *m)
{
	struct fxt_reader *r = fxt_reader__open_mem(m->data, m->len);

	ck_assert_ptr_nonnull(r);
	return r;
}

/* The next record of type type (skipping string and thread records). */
static void next_of(struct fxt_reader *r, struct fxt_record *rec, unsigned type)
{
	int err;

	do {
		err = fxt_reader_next(r, rec);
		ck_assert_msg(err == 1, "expected a record of type %u: %d (%s)", type, err,
			      fxt_reader_error(r) ? fxt_reader_error(r) : "end");
	} while (rec->type != type);
}

START_TEST(test_context_switch_roundtrip)
{
	struct mem_sink m = {0};
	struct fxt_stream *s = fxt_stream__new(mem_sink_write, &m, "fxsampler", GHZ);
	struct fxt_reader *r;
	struct fxt_record rec;
	char line[256];

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(fxt_stream_context_switch(s, 1000, 1, FXT_THREAD_BLOCKED, 77, 0, 0), 0);
	ck_assert_int_eq(fxt_stream_context_switch(s, 5000, 0, FXT_THREAD_RUNNING, 0, 77, 1), 0);
	ck_assert_int_eq(fxt_stream_context_switch(s, 1, 0x10000, 0, 77, 0, 0), -EINVAL);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);

	r = open_stream(&m);
	next_of(r, &rec, FXT_RT_SCHED);
	ck_assert_uint_eq(rec.subtype, FXT_SCHED_CONTEXT_SWITCH);
	ck_assert_uint_eq(rec.ts, 1000);
	ck_assert_uint_eq(rec.cpu, 1);
	ck_assert_uint_eq(rec.out_state, FXT_THREAD_BLOCKED);
	ck_assert_uint_eq(rec.out_tid, 77);
	ck_assert_uint_eq(rec.in_tid, 0);
	ck_assert_uint_eq(rec.nr_args, 1);
	ck_assert_str_eq(rec.args[0].name, "incoming_weight");
	ck_assert_uint_eq(rec.args[0].type, FXT_ARG_INT32);
	ck_assert_int_eq((int32_t)rec.args[0].u, INT32_MIN);
	fxt_record_format(&rec, line, sizeof(line));
	ck_assert_str_eq(strchr(line, ' ') + 1,
			 "cswitch ts=1000 cpu=1 out=77 state=3 in=0 incoming_weight=-2147483648");
	next_of(r, &rec, FXT_RT_SCHED);
	ck_assert_uint_eq(rec.ts, 5000);
	ck_assert_uint_eq(rec.out_tid, 0);
	ck_assert_uint_eq(rec.in_tid, 77);
	ck_assert_str_eq(rec.args[0].name, "outgoing_weight");
	ck_assert_int_eq(fxt_reader_next(r, &rec), 0);
	fxt_reader__free(r);
	free(m.data);
}
END_TEST

/* A trace of the magic, then raw words. */
static void raw_trace(struct fxt_buf *b, const uint64_t *w, size_t n)
{
	ck_assert_int_eq(fxt_put_magic(b), 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t le = htole64(w[i]);

		ck_assert_int_eq(b->len + 8 <= b->cap || b->cap == 0 || 1, 1);
		b->data = realloc(b->data, b->len + 8);
		memcpy(b->data + b->len, &le, 8);
		b->len += 8;
		b->cap = b->len;
	}
}

START_TEST(test_sched_reader_checks)
{
	/* A wakeup on cpu 3 of thread 9; then a context switch with a reserved bit set. */
	const uint64_t good[] = {8 | 3 << 4 | 3 << 20 | 2ULL << 60, 50, 9};
	const uint64_t bad[] = {8 | 4 << 4 | 1ULL << 40 | 1ULL << 60, 50, 9, 0};
	struct fxt_buf b = {0};
	struct fxt_reader *r;
	struct fxt_record rec;

	raw_trace(&b, good, 3);
	r = fxt_reader__open_mem(b.data, b.len);
	ck_assert_int_eq(fxt_reader_next(r, &rec), 1);
	ck_assert_int_eq(fxt_reader_next(r, &rec), 1);
	ck_assert_uint_eq(rec.type, FXT_RT_SCHED);
	ck_assert_uint_eq(rec.subtype, FXT_SCHED_THREAD_WAKEUP);
	ck_assert_uint_eq(rec.cpu, 3);
	ck_assert_uint_eq(rec.in_tid, 9);
	ck_assert_int_eq(fxt_reader_next(r, &rec), 0);
	fxt_reader__free(r);
	fxt_buf_free(&b);

	raw_trace(&b, bad, 4);
	r = fxt_reader__open_mem(b.data, b.len);
	ck_assert_int_eq(fxt_reader_next(r, &rec), 1);
	ck_assert_int_eq(fxt_reader_next(r, &rec), -EBADMSG);
	ck_assert_str_eq(fxt_reader_error(r), "offset 8: reserved bits 0x0000010000000000 of a "
					      "context switch record are not zero");
	fxt_reader__free(r);
	fxt_buf_free(&b);
}
END_TEST

/* --- a capture with intervals, as daemon/capture/capture.c writes one --- */

#define PID    100
#define BUSY   101 /* on the CPU: 10 samples */
#define SLP    102 /* sleeps 50 ms twice, runnable 3 ms once, 2 samples */
#define PERIOD 1000000ULL

static const uint64_t sleep_stack[] = {0x1000, 0x2000, 0x3000};
static const uint64_t busy_stack[] = {0x5000, 0x2000, 0x3000};

static void interval(struct fxt_stream *s, uint64_t tid, uint64_t start, uint64_t end,
		     unsigned state, const uint64_t *frames, unsigned n)
{
	unsigned flags = FXT_BT_FLAG_OFFCPU | state << FXT_BT_OFFCPU_STATE_SHIFT;

	ck_assert_int_eq(fxt_stream_context_switch(s, start, 0, FXT_THREAD_BLOCKED, tid, 0, 0), 0);
	ck_assert_int_eq(fxt_stream_context_switch(s, end, 1, FXT_THREAD_RUNNING, 0, tid, 1), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, start, PID, tid, flags, frames, n), 0);
}

/* Writes the capture to a file; with_config: the "config" counter first. */
static void write_capture(const char *path, bool with_config)
{
	static const char *const names[] = {"period_ns", "offcpu_min_ns"};
	const uint64_t values[] = {PERIOD, 1000000};
	struct mem_sink m = {0};
	struct fxt_stream *s = fxt_stream__new(mem_sink_write, &m, "fxsampler", GHZ);
	FILE *f;

	ck_assert_ptr_nonnull(s);
	if (with_config)
		ck_assert_int_eq(
			fxt_stream_counter(s, 0, 0, 0, "fxsampler", "config", 0, names, values, 2),
			0);
	ck_assert_int_eq(fxt_stream_process(s, PID, "app"), 0);
	/* A module not on disk: its PCs show as lib+0xOFFSET. */
	ck_assert_int_eq(fxt_stream_module(s, 0, PID, 0, "/nonexistent/lib", NULL, 0), 0);
	ck_assert_int_eq(fxt_stream_mmap(s, 0, PID, 0, 5, 0x0, 0x10000, 0), 0);
	ck_assert_int_eq(fxt_stream_thread(s, PID, BUSY, "busy"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, PID, SLP, "sleepy"), 0);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(fxt_stream_backtrace(s, 1000 + i, PID, BUSY, 0, busy_stack, 3), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(fxt_stream_backtrace(s, 2000 + i, PID, SLP, 0, busy_stack, 3), 0);
	interval(s, SLP, 10000000, 60000000, FXS_OFF_SLEEPING, sleep_stack, 3);
	interval(s, SLP, 70000000, 120000000, FXS_OFF_SLEEPING, sleep_stack, 3);
	interval(s, SLP, 130000000, 133000000, FXS_OFF_RUNNABLE, busy_stack, 3);
	/* A stack whose interval is not in the file: counted, never weighed. */
	ck_assert_int_eq(
		fxt_stream_backtrace(s, 999, PID, BUSY, FXT_BT_FLAG_OFFCPU, sleep_stack, 3), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(m.data, 1, m.len, f), m.len);
	fclose(f);
	free(m.data);
}

static char path[64];

static void make_capture(bool with_config)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/fxs-offcpu-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_capture(path, with_config);
}

START_TEST(test_pairing)
{
	struct fxt_reader *r;
	struct fxt_record rec;
	struct offcpu *o = offcpu__new();
	struct offcpu_thread *t;
	uint64_t ns, seen[4] = {0};
	unsigned n = 0, unpaired = 0;
	long nt;
	int err;

	make_capture(true);
	r = fxt_reader__open(path);
	ck_assert_ptr_nonnull(r);
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		ck_assert_int_eq(offcpu_add(o, &rec), 0);
		if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_BACKTRACE &&
		    (rec.bt_flags & FXT_BT_FLAG_OFFCPU)) {
			bool paired = offcpu_last_interval(o, &ns);

			ck_assert_uint_lt(n, 4);
			seen[n++] = paired ? ns : UINT64_MAX;
			unpaired += !paired;
		}
	}
	ck_assert_int_eq(err, 0);
	fxt_reader__free(r);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(seen[0], 50000000);
	ck_assert_uint_eq(seen[1], 50000000);
	ck_assert_uint_eq(seen[2], 3000000);
	ck_assert_uint_eq(seen[3], UINT64_MAX);
	ck_assert_uint_eq(offcpu_intervals(o), 3);
	ck_assert_uint_eq(unpaired, 1);
	ck_assert_uint_eq(offcpu_period_ns(o), PERIOD);
	nt = offcpu_threads(o, &t);
	ck_assert_int_eq(nt, 2);
	ck_assert_uint_eq(t[0].tid, BUSY);
	ck_assert_uint_eq(t[0].samples, 10);
	ck_assert_uint_eq(t[0].intervals, 0);
	ck_assert_uint_eq(t[1].tid, SLP);
	ck_assert_uint_eq(t[1].samples, 2);
	ck_assert_uint_eq(t[1].state_ns[FXS_OFF_SLEEPING], 100000000);
	ck_assert_uint_eq(t[1].state_ns[FXS_OFF_RUNNABLE], 3000000);
	free(t);
	offcpu__free(o);
	unlink(path);
}
END_TEST

/* The report's output for a time mode, into buf. */
static int run_report(unsigned mode, bool folded, char *buf, size_t size, char *err,
		      size_t err_size)
{
	/* Thread frames by name alone (the default): these views are about time. */
	struct report_opts o = {
		.time_mode = mode, .folded = folded, .errbuf = err, .errbuf_size = err_size};
	FILE *out = fmemopen(buf, size, "w");
	int ret;

	ck_assert_ptr_nonnull(out);
	memset(buf, 0, size);
	ret = report_run(path, &o, out);
	fclose(out);
	return ret;
}

START_TEST(test_report_views)
{
	char buf[8192], err[256];

	make_capture(true);
	/* Samples: the off-CPU stacks are no samples. */
	ck_assert_int_eq(run_report(REPORT_SAMPLES, true, buf, sizeof(buf), err, sizeof(err)), 0);
	ck_assert_ptr_null(strstr(buf, "lib+0x1000"));
	ck_assert_ptr_nonnull(strstr(buf, "app;busy;lib+0x3000;lib+0x2000;lib+0x5000 10\n"));
	ck_assert_ptr_nonnull(strstr(buf, "app;sleepy;lib+0x3000;lib+0x2000;lib+0x5000 2\n"));

	/* Off-CPU: ns blocked by stack, the unpaired stack left out. */
	ck_assert_int_eq(run_report(REPORT_OFFCPU, true, buf, sizeof(buf), err, sizeof(err)), 0);
	ck_assert_str_eq(buf, "app;sleepy;lib+0x3000;lib+0x2000;lib+0x1000 100000000\n"
			      "app;sleepy;lib+0x3000;lib+0x2000;lib+0x5000 3000000\n");

	/* Wall: samples x 1 ms plus the intervals; the runnable stack merges with the samples'. */
	ck_assert_int_eq(run_report(REPORT_WALL, true, buf, sizeof(buf), err, sizeof(err)), 0);
	ck_assert_str_eq(buf, "app;busy;lib+0x3000;lib+0x2000;lib+0x5000 10000000\n"
			      "app;sleepy;lib+0x3000;lib+0x2000;lib+0x1000 100000000\n"
			      "app;sleepy;lib+0x3000;lib+0x2000;lib+0x5000 5000000\n");

	/* The top view ends with the thread states. */
	ck_assert_int_eq(run_report(REPORT_OFFCPU, false, buf, sizeof(buf), err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "Values: ns off the CPU (3 off-CPU intervals; 0.103 s"));
	ck_assert_ptr_nonnull(strstr(buf, "Thread states, ms (running: samples x 1.000 ms"));
	ck_assert_ptr_nonnull(strstr(buf,
				     "     100      101       10.0        0.0        0.0        "
				     "0.0      0.0       10.0  busy\n"));
	ck_assert_ptr_nonnull(strstr(buf,
				     "     100      102        2.0        3.0      100.0        "
				     "0.0      0.0      105.0  sleepy\n"));
	unlink(path);

	/* --wall needs the period, which only a capture with --off-cpu records. */
	make_capture(false);
	ck_assert_int_eq(run_report(REPORT_WALL, true, buf, sizeof(buf), err, sizeof(err)),
			 -ENODATA);
	ck_assert_ptr_nonnull(strstr(err, "has no sampling period (recorded without --off-cpu)"));
	unlink(path);
}
END_TEST

/* --- asking for it: record's option and the daemon's SETUP --- */

START_TEST(test_record_option)
{
	/* getopt wants writable strings. */
	char rec[] = "record", off[] = "--off-cpu", dd[] = "--", cmd[] = "true";
	char off2[] = "--off-cpu=250us", off3[] = "--off-cpu=soon", p[] = "-p", one[] = "1";
	char *argv1[] = {rec, off, dd, cmd, NULL};
	char *argv2[] = {rec, off2, p, one, NULL};
	char *argv3[] = {rec, off3, p, one, NULL};
	char *argv4[] = {rec, p, one, NULL};
	struct record_args a;
	char err[256];

	ck_assert_int_eq(args_parse_record(4, argv1, &a, err, sizeof(err)), ARGS_RUN);
	ck_assert(a.capture.offcpu);
	ck_assert_uint_eq(a.capture.offcpu_min_ns, 1000000);
	ck_assert_int_eq(args_parse_record(4, argv2, &a, err, sizeof(err)), ARGS_RUN);
	ck_assert_uint_eq(a.capture.offcpu_min_ns, 250000);
	ck_assert_int_eq(args_parse_record(4, argv3, &a, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "invalid --off-cpu 'soon': a duration such as 1ms or 0");
	ck_assert_int_eq(args_parse_record(3, argv4, &a, err, sizeof(err)), ARGS_RUN);
	ck_assert(!a.capture.offcpu);
}
END_TEST

START_TEST(test_setup_message)
{
	struct capture_opts o = {.freq_hz = 99,
				 .buffer_size = 4096,
				 .max_frames = 8,
				 .nr_pids = 1,
				 .pids = {42},
				 .offcpu = true,
				 .offcpu_min_ns = 123456789};
	struct fxs_msg m = {.type = FXS_MSG_SETUP}, back;
	struct capture_opts o2;
	uint8_t buf[512];
	int len;

	ck_assert_int_eq(protocol_setup_from_opts(&o, &m.setup), 0);
	ck_assert_uint_eq(m.setup.flags & FXS_SETUP_OFFCPU, FXS_SETUP_OFFCPU);
	len = protocol_encode(&m, buf, sizeof(buf));
	/* header, 32 fixed bytes, one pid, the minimum */
	ck_assert_int_eq(len, FXS_PROTO_HDR_SIZE + 32 + 4 + 8);
	ck_assert_int_eq(protocol_decode(buf, len, &back), 0);
	ck_assert_uint_eq(back.setup.offcpu_min_ns, 123456789);
	ck_assert_int_eq(protocol_setup_to_opts(&back.setup, &o2), 0);
	ck_assert(o2.offcpu);
	ck_assert_uint_eq(o2.offcpu_min_ns, 123456789);

	/* The flag without its 8 bytes, or the bytes without the flag: malformed. */
	buf[8] -= 8; /* payload length */
	ck_assert_int_eq(protocol_decode(buf, len - 8, &back), -EBADMSG);
	buf[8] += 8;
	buf[FXS_PROTO_HDR_SIZE + 24] &= ~FXS_SETUP_OFFCPU;
	ck_assert_int_eq(protocol_decode(buf, len, &back), -EBADMSG);

	/* Without off-CPU the message is as it always was. */
	o.offcpu = false;
	ck_assert_int_eq(protocol_setup_from_opts(&o, &m.setup), 0);
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), FXS_PROTO_HDR_SIZE + 32 + 4);
}
END_TEST

static Suite *offcpu_suite(void)
{
	Suite *s = suite_create("offcpu");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, test_context_switch_bytes);
	tcase_add_test(tc, test_offcpu_backtrace_flags);
	tcase_add_test(tc, test_context_switch_roundtrip);
	tcase_add_test(tc, test_sched_reader_checks);
	suite_add_tcase(s, tc);
	tc = tcase_create("report");
	tcase_add_test(tc, test_pairing);
	tcase_add_test(tc, test_report_views);
	suite_add_tcase(s, tc);
	tc = tcase_create("options");
	tcase_add_test(tc, test_record_option);
	tcase_add_test(tc, test_setup_message);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(offcpu_suite)
