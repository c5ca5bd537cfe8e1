// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "service/protocol.h"
#include "check_main.h"

static uint8_t buf[FXS_PROTO_MAX_MSG + 64];

static struct fxs_msg setup_msg(void)
{
	struct fxs_msg m;

	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_SETUP;
	m.setup.period_ns = 1000000;
	m.setup.buffer_size = 1 << 20;
	m.setup.max_frames = 64;
	m.setup.flags = FXS_SETUP_INHERIT;
	m.setup.nr_pids = 2;
	m.setup.pids[0] = 42;
	m.setup.pids[1] = 4242;
	return m;
}

static struct fxs_msg error_msg(void)
{
	struct fxs_msg m;

	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_ERROR;
	m.error.request = FXS_MSG_SETUP;
	m.error.kind = FXS_ERR_ALREADY_EXISTS;
	m.error.err = -EBUSY;
	m.error.holder_pid = 77;
	m.error.holder_uid = 1000;
	strcpy(m.error.text, "the sampler is held by pid 77 (uid 1000)");
	return m;
}

static struct fxs_msg status_msg(void)
{
	struct fxs_msg m;
	unsigned i;

	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_STATUS_REPLY;
	m.status.session = FXS_SESSION_RUNNING;
	m.status.flags = FXS_STATUS_YOURS;
	m.status.holder_pid = 99;
	m.status.holder_uid = 0;
	m.status.nr_cpus = 2;
	m.status.nr_pids = 0;
	m.status.freq_hz = 99;
	m.status.processes = 3;
	m.status.threads = 7;
	m.status.bytes = 123456789012ULL;
	for (i = 0; i < FXS_CNT_NR; i++)
		m.status.counters.v[i] = 1000 + i;
	return m;
}

START_TEST(test_header_golden)
{
	static const uint8_t want[] = {
		0x46, 0x58, 0x53, 0x50, /* "FXSP" */
		0x01, 0x00,		/* version 1 */
		0x02, 0x00,		/* START */
		0x00, 0x00, 0x00, 0x00, /* no payload */
		0x00, 0x00, 0x00, 0x00, /* reserved */
	};
	struct fxs_msg m = {.type = FXS_MSG_START};

	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), 16);
	ck_assert_mem_eq(buf, want, sizeof(want));
}
END_TEST

START_TEST(test_setup_golden)
{
	static const uint8_t want[] = {0x46, 0x58, 0x53, 0x50, 0x01, 0x00, 0x01, 0x00, 0x28, 0x00,
				       0x00, 0x00, 0, 0, 0, 0,
				       /* period_ns 1000000 */
				       0x40, 0x42, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00,
				       /* freq_hz 0 */
				       0, 0, 0, 0, 0, 0, 0, 0,
				       /* buffer 1 MiB, max_frames 64, flags INHERIT, 2 pids */
				       0x00, 0x00, 0x10, 0x00, 0x40, 0x00, 0x00, 0x00, 0x02, 0x00,
				       0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
				       /* 42, 4242 */
				       0x2a, 0x00, 0x00, 0x00, 0x92, 0x10, 0x00, 0x00};
	struct fxs_msg m = setup_msg();

	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), sizeof(want));
	ck_assert_mem_eq(buf, want, sizeof(want));
}
END_TEST

static void roundtrip(const struct fxs_msg *m, struct fxs_msg *out)
{
	int n = protocol_encode(m, buf, sizeof(buf));
	size_t frame = 0;

	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(protocol_frame_len(buf, (size_t)n, &frame), 0);
	ck_assert_uint_eq(frame, (size_t)n);
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, out), 0);
	ck_assert_uint_eq(out->type, m->type);
}

START_TEST(test_roundtrip_requests)
{
	static const uint16_t types[] = {FXS_MSG_START, FXS_MSG_STOP, FXS_MSG_READ, FXS_MSG_DESTROY,
					 FXS_MSG_STATUS};
	struct fxs_msg m = setup_msg(), out;
	unsigned i;

	roundtrip(&m, &out);
	ck_assert_mem_eq(&out.setup, &m.setup, sizeof(m.setup));

	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_SETUP;
	m.setup.freq_hz = 99;
	m.setup.flags = FXS_SETUP_ALL_HOST;
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.setup.freq_hz, 99);
	ck_assert_uint_eq(out.setup.nr_pids, 0);

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.type = types[i];
		roundtrip(&m, &out);
	}
}
END_TEST

START_TEST(test_roundtrip_replies)
{
	struct fxs_msg m, out;
	static const char fxt[] = "\x10\x00\x04\x46\x78\x54\x16\x00";

	m = error_msg();
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.error.kind, FXS_ERR_ALREADY_EXISTS);
	ck_assert_int_eq(out.error.err, -EBUSY);
	ck_assert_uint_eq(out.error.holder_pid, 77);
	ck_assert_uint_eq(out.error.holder_uid, 1000);
	ck_assert_str_eq(out.error.text, m.error.text);

	m = status_msg();
	roundtrip(&m, &out);
	ck_assert_mem_eq(&out.status, &m.status, sizeof(m.status));

	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_OK;
	m.ok.request = FXS_MSG_STOP;
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.ok.request, FXS_MSG_STOP);

	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_END;
	m.end.reason = FXS_END_SHUTDOWN;
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.end.reason, FXS_END_SHUTDOWN);
	/* the daemon's own ends: a session limit, a client that does not read */
	m.end.reason = FXS_END_LIMIT;
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.end.reason, FXS_END_LIMIT);
	m.end.reason = FXS_END_STALLED;
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.end.reason, FXS_END_STALLED);
	/* root took the sampler */
	m.end.reason = FXS_END_PREEMPTED;
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.end.reason, FXS_END_PREEMPTED);

	/* another user's session: the state and the holder uid only */
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_STATUS_REPLY;
	m.status.session = FXS_SESSION_RUNNING;
	m.status.flags = FXS_STATUS_OTHERS;
	m.status.holder_uid = 1000;
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.status.flags, FXS_STATUS_OTHERS);
	ck_assert_uint_eq(out.status.holder_uid, 1000);

	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_NOTICE;
	m.notice.kind = FXS_NOTICE_TARGET_LEFT;
	m.notice.pid = 4242;
	strcpy(m.notice.text, "pid 4242 changed credentials (exec of a set-user-ID program): no "
			      "longer sampled");
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.notice.kind, FXS_NOTICE_TARGET_LEFT);
	ck_assert_uint_eq(out.notice.pid, 4242);
	ck_assert_str_eq(out.notice.text, m.notice.text);

	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_DATA;
	m.data.data = fxt;
	m.data.len = 8;
	roundtrip(&m, &out);
	ck_assert_uint_eq(out.data.len, 8);
	ck_assert_ptr_eq(out.data.data, buf + FXS_PROTO_HDR_SIZE);
	ck_assert_mem_eq(out.data.data, fxt, 8);
}
END_TEST

START_TEST(test_data_max_and_header)
{
	static uint8_t payload[FXS_PROTO_MAX_PAYLOAD];
	uint8_t hdr[FXS_PROTO_HDR_SIZE];
	struct fxs_msg m = {.type = FXS_MSG_DATA}, out;
	int n;

	memset(payload, 0xab, sizeof(payload));
	m.data.data = payload;
	m.data.len = sizeof(payload);
	n = protocol_encode(&m, buf, sizeof(buf));
	ck_assert_int_eq(n, FXS_PROTO_MAX_MSG);
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), 0);
	ck_assert_uint_eq(out.data.len, FXS_PROTO_MAX_PAYLOAD);

	ck_assert_int_eq(protocol_encode_data_header(sizeof(payload), hdr), 0);
	ck_assert_mem_eq(hdr, buf, sizeof(hdr));
	ck_assert_int_eq(protocol_encode_data_header(0, hdr), -EINVAL);
	ck_assert_int_eq(protocol_encode_data_header(FXS_PROTO_MAX_PAYLOAD + 1, hdr), -EINVAL);

	m.data.len = FXS_PROTO_MAX_PAYLOAD + 1;
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);
}
END_TEST

/* A newer sender may know more counters than we do: they are skipped. */
START_TEST(test_status_more_counters)
{
	struct fxs_msg m = status_msg(), out;
	int n = protocol_encode(&m, buf, sizeof(buf));

	ck_assert_int_gt(n, 0);
	/* append two counters and fix nr_counters and the payload length */
	memset(buf + n, 0x11, 16);
	buf[16 + 64] = FXS_CNT_NR + 2;
	buf[8] = (uint8_t)(n - 16 + 16);
	ck_assert_int_eq(protocol_decode(buf, (size_t)n + 16, &out), 0);
	ck_assert_mem_eq(&out.status.counters, &m.status.counters, sizeof(m.status.counters));
}
END_TEST

START_TEST(test_encode_errors)
{
	struct fxs_msg m = setup_msg();

	ck_assert_int_eq(protocol_encode(&m, buf, 16 + 40 - 1), -EMSGSIZE);
	ck_assert_int_eq(protocol_encode(&m, buf, 16 + 40), 56);

	m.setup.flags |= FXS_SETUP_ALL_HOST; /* host-wide with pids */
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = setup_msg();
	m.setup.nr_pids = FXS_PROTO_MAX_PIDS + 1;
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = setup_msg();
	m.setup.pids[1] = 0;
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);

	m = error_msg();
	m.error.kind = FXS_ERR_NR;
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = error_msg();
	memset(m.error.text, 'x', sizeof(m.error.text)); /* no NUL: too long */
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);
	m = error_msg();
	m.error.err = EBUSY; /* positive */
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);

	m.type = 0x7f;
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);
	m.type = FXS_MSG_OK;
	m.ok.request = FXS_MSG_OK;
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(test_frame_len)
{
	struct fxs_msg m = setup_msg();
	size_t frame = 0;
	int n = protocol_encode(&m, buf, sizeof(buf));

	ck_assert_int_eq(protocol_frame_len(buf, 0, &frame), -EAGAIN);
	ck_assert_int_eq(protocol_frame_len(buf, 15, &frame), -EAGAIN);
	/* the header alone is enough to know the size */
	ck_assert_int_eq(protocol_frame_len(buf, 16, &frame), 0);
	ck_assert_uint_eq(frame, (size_t)n);

	buf[8] = 0xf1; /* 0xfff1 + 16 > 64 KiB */
	buf[9] = 0xff;
	ck_assert_int_eq(protocol_frame_len(buf, 16, &frame), -EBADMSG);
	buf[8] = 0xf0;
	ck_assert_int_eq(protocol_frame_len(buf, 16, &frame), 0);
	ck_assert_uint_eq(frame, FXS_PROTO_MAX_MSG);
	buf[10] = 1; /* 16 MiB */
	ck_assert_int_eq(protocol_frame_len(buf, 16, &frame), -EBADMSG);
}
END_TEST

/* Change one header byte of a valid START and expect a rejection. */
static void expect_bad_header(unsigned off, uint8_t v)
{
	struct fxs_msg m = {.type = FXS_MSG_START}, out;
	size_t frame;
	int n = protocol_encode(&m, buf, sizeof(buf));

	ck_assert_int_eq(n, 16);
	buf[off] = v;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	if (off < 6 || off >= 12)
		ck_assert_int_eq(protocol_frame_len(buf, (size_t)n, &frame), -EBADMSG);
}

START_TEST(test_reject_header)
{
	expect_bad_header(0, 'X');   /* magic */
	expect_bad_header(3, 0);     /* magic */
	expect_bad_header(4, 2);     /* version 2 */
	expect_bad_header(5, 1);     /* version 257 */
	expect_bad_header(4, 0);     /* version 0 */
	expect_bad_header(6, 0);     /* type 0 */
	expect_bad_header(6, 7);     /* unknown request */
	expect_bad_header(6, 0x80);  /* unknown reply */
	expect_bad_header(6, 0x87);  /* unknown reply */
	expect_bad_header(7, 1);     /* type 0x102 */
	expect_bad_header(8, 1);     /* says 1 payload byte, has 0 */
	expect_bad_header(12, 1);    /* reserved */
	expect_bad_header(15, 0x80); /* reserved */
}
END_TEST

/* Every strict prefix of a valid message, and every longer buffer, is refused. */
START_TEST(test_reject_truncated_and_trailing)
{
	struct fxs_msg msgs[4], out;
	size_t len;
	int i, n;

	msgs[0] = setup_msg();
	msgs[1] = error_msg();
	msgs[2] = status_msg();
	memset(&msgs[3], 0, sizeof(msgs[3]));
	msgs[3].type = FXS_MSG_END;
	for (i = 0; i < 4; i++) {
		n = protocol_encode(&msgs[i], buf, sizeof(buf));
		ck_assert_int_gt(n, 0);
		for (len = 0; len < (size_t)n; len++)
			ck_assert_int_eq(protocol_decode(buf, len, &out), -EBADMSG);
		buf[n] = 0;
		ck_assert_int_eq(protocol_decode(buf, (size_t)n + 1, &out), -EBADMSG);
		ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), 0);
	}
	ck_assert_int_eq(protocol_decode(NULL, 16, &out), -EBADMSG);
}
END_TEST

/*
 * Payloads whose header is right but whose contents are not: a consistent
 * payload length whose inner counts or values disagree.
 */
START_TEST(test_reject_payload)
{
	struct fxs_msg m, out;
	int n;

	/* a request with a payload */
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_STOP;
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[8] = 4;
	memset(buf + n, 0, 4);
	ck_assert_int_eq(protocol_decode(buf, (size_t)n + 4, &out), -EBADMSG);

	/* SETUP: nr_pids says 3, two are there */
	m = setup_msg();
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 28] = 3;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	/* nr_pids huge: must not read past the end */
	buf[16 + 31] = 0x80;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	/* unknown flag */
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 24] |= 0x4;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 25] |= 0x1;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	/* host-wide flag with pids */
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 24] |= FXS_SETUP_ALL_HOST;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	/* pid 0, pid above INT32_MAX */
	n = protocol_encode(&m, buf, sizeof(buf));
	memset(buf + 16 + 32, 0, 4);
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 35] = 0x80;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	/* neither host-wide nor pids */
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_SETUP;
	m.setup.flags = FXS_SETUP_ALL_HOST;
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 24] = 0;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);

	/* ERROR: text length beyond the payload, NUL inside, unknown kind */
	m = error_msg();
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 16] += 1;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 24 + 3] = 0;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 2] = 0;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 20] = 1; /* reserved */
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);

	/* STATUS: unknown session state, too many counters */
	m = status_msg();
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16] = FXS_SESSION_NR;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 64] = FXS_PROTO_MAX_COUNTERS + 1;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);

	/* OK answering a non-request, END with an unknown reason, empty DATA */
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_OK;
	m.ok.request = FXS_MSG_READ;
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16] = FXS_MSG_DATA;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_END;
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16] = FXS_END_NR;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	m.type = FXS_MSG_START;
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[6] = FXS_MSG_DATA;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);

	/* NOTICE: unknown kind, reserved bits, no text, text past the payload, NUL inside */
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_NOTICE;
	m.notice.kind = FXS_NOTICE_TARGET_LEFT;
	m.notice.pid = 7;
	strcpy(m.notice.text, "pid 7 left");
	n = protocol_encode(&m, buf, sizeof(buf));
	ck_assert_int_eq(n, FXS_PROTO_HDR_SIZE + 12 + 10);
	buf[16] = FXS_NOTICE_NR;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 2] = 1;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 8] += 1;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	n = protocol_encode(&m, buf, sizeof(buf));
	buf[16 + 12 + 3] = 0;
	ck_assert_int_eq(protocol_decode(buf, (size_t)n, &out), -EBADMSG);
	m.notice.text[0] = '\0';
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);
	m.notice.kind = 0;
	strcpy(m.notice.text, "x");
	ck_assert_int_eq(protocol_encode(&m, buf, sizeof(buf)), -EINVAL);
}
END_TEST

/*
 * A poor man's fuzzer until libFuzzer runs: random mutations of valid
 * messages. Whatever decodes must encode back to the same bytes.
 */
START_TEST(test_random_mutations)
{
	static uint8_t again[FXS_PROTO_MAX_MSG];
	struct fxs_msg seeds[3], out;
	unsigned seed = 12345, i, j, nr;
	int n, m, ok = 0;

	seeds[0] = setup_msg();
	seeds[1] = error_msg();
	seeds[2] = status_msg();
	for (i = 0; i < 200000; i++) {
		n = protocol_encode(&seeds[i % 3], buf, sizeof(buf));
		ck_assert_int_gt(n, 0);
		nr = 1 + (unsigned)rand_r(&seed) % 3;
		for (j = 0; j < nr; j++)
			buf[(unsigned)rand_r(&seed) % (unsigned)n] = (uint8_t)rand_r(&seed);
		if (rand_r(&seed) % 8 == 0)
			n = (int)((unsigned)rand_r(&seed) % (unsigned)(n + 1));
		if (protocol_decode(buf, (size_t)n, &out))
			continue;
		ok++;
		m = protocol_encode(&out, again, sizeof(again));
		ck_assert_int_eq(m, n);
		ck_assert_mem_eq(again, buf, (size_t)n);
	}
	/* some mutations (in values) must have been accepted */
	ck_assert_int_gt(ok, 0);
}
END_TEST

START_TEST(test_opts_conversion)
{
	struct capture_opts o = {.freq_hz = 99, .buffer_size = 4096, .max_frames = 10}, back;
	struct fxs_msg_setup s;

	/* --python=off is a flag; on, the default, is none: an older client's sessions get it */
	ck_assert_int_eq(protocol_setup_from_opts(&o, &s), 0);
	ck_assert_uint_eq(s.flags, FXS_SETUP_ALL_HOST | FXS_SETUP_NO_PYTHON);
	ck_assert_int_eq(protocol_setup_to_opts(&s, &back), 0);
	ck_assert(!back.python);
	o.python = true;
	ck_assert_int_eq(protocol_setup_from_opts(&o, &s), 0);
	ck_assert_uint_eq(s.flags, FXS_SETUP_ALL_HOST);
	ck_assert_int_eq(protocol_setup_to_opts(&s, &back), 0);
	ck_assert(back.python);
	o.nr_pids = 1;
	o.pids[0] = 5;
	o.inherit = true;
	ck_assert_int_eq(protocol_setup_from_opts(&o, &s), 0);
	ck_assert_uint_eq(s.flags, FXS_SETUP_INHERIT);
	ck_assert_int_eq(protocol_setup_to_opts(&s, &back), 0);
	ck_assert_uint_eq(back.freq_hz, 99);
	ck_assert_uint_eq(back.buffer_size, 4096);
	ck_assert_uint_eq(back.max_frames, 10);
	ck_assert_uint_eq(back.nr_pids, 1);
	ck_assert_uint_eq(back.pids[0], 5);
	ck_assert(back.inherit);
	ck_assert(!back.kernel);
	/* --kernel is a flag of its own, with nothing after the pids */
	o.kernel = true;
	ck_assert_int_eq(protocol_setup_from_opts(&o, &s), 0);
	ck_assert_uint_eq(s.flags, FXS_SETUP_INHERIT | FXS_SETUP_KERNEL);
	ck_assert_int_eq(protocol_setup_to_opts(&s, &back), 0);
	ck_assert(back.kernel);
	ck_assert(!back.preempt);
	/* record --preempt: the flag, and back */
	o.preempt = true;
	ck_assert_int_eq(protocol_setup_from_opts(&o, &s), 0);
	ck_assert_uint_eq(s.flags, FXS_SETUP_INHERIT | FXS_SETUP_KERNEL | FXS_SETUP_PREEMPT);
	ck_assert_int_eq(protocol_setup_to_opts(&s, &back), 0);
	ck_assert(back.preempt);
	o.pids[0] = 0;
	ck_assert_int_eq(protocol_setup_from_opts(&o, &s), -EINVAL);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(protocol_type_name(FXS_MSG_SETUP), "setup");
	ck_assert_str_eq(protocol_type_name(FXS_MSG_END), "end");
	ck_assert_str_eq(protocol_type_name(FXS_MSG_NOTICE), "notice");
	ck_assert_str_eq(protocol_type_name(0x42), "?");
	ck_assert_str_eq(protocol_err_name(FXS_ERR_ACCESS_DENIED), "access denied");
	ck_assert_str_eq(protocol_err_name(0), "?");
	ck_assert_str_eq(protocol_session_name(FXS_SESSION_RUNNING), "running");
	ck_assert_str_eq(protocol_session_name(99), "?");
}
END_TEST

static Suite *protocol_suite(void)
{
	Suite *s = suite_create("protocol");
	TCase *tc;

	tc = tcase_create("encode");
	tcase_add_test(tc, test_header_golden);
	tcase_add_test(tc, test_setup_golden);
	tcase_add_test(tc, test_encode_errors);
	tcase_add_test(tc, test_opts_conversion);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_add_test(tc, test_roundtrip_requests);
	tcase_add_test(tc, test_roundtrip_replies);
	tcase_add_test(tc, test_data_max_and_header);
	tcase_add_test(tc, test_status_more_counters);
	suite_add_tcase(s, tc);

	tc = tcase_create("reject");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_frame_len);
	tcase_add_test(tc, test_reject_header);
	tcase_add_test(tc, test_reject_truncated_and_trailing);
	tcase_add_test(tc, test_reject_payload);
	tcase_add_test(tc, test_random_mutations);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(protocol_suite)
