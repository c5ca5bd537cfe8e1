// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The control protocol's wire format. Every multi-byte field is little-endian
 * and written byte by byte, so that the format does not depend on the host and
 * the decoder never makes an unaligned load. docs/PROTOCOL.md is the reference.
 */
#include <errno.h>
#include <string.h>

#include "capture/capture.h"
#include "service/protocol.h"

#define SETUP_FIXED  32
#define OK_SIZE	     4
#define ERROR_FIXED  24
#define STATUS_FIXED 72
#define END_SIZE     4
#define NOTICE_FIXED 12
/* errno values are at most 4095 on Linux (MAX_ERRNO). */
#define PROTO_MAX_ERRNO 4095

_Static_assert(FXS_CNT_NR <= FXS_PROTO_MAX_COUNTERS, "STATUS cannot carry every counter");
_Static_assert(FXS_PROTO_MAX_PIDS == CAPTURE_MAX_PIDS, "SETUP and capture_opts pid limits differ");
_Static_assert(STATUS_FIXED + 8 * FXS_PROTO_MAX_COUNTERS <= FXS_PROTO_MAX_PAYLOAD,
	       "STATUS does not fit in a message");

/* A bounded cursor over untrusted bytes: reads past the end latch an error. */
struct rd {
	const uint8_t *p;
	size_t left;
	bool bad;
};

static uint64_t rd_le(struct rd *r, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (r->bad || r->left < n) {
		r->bad = true;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	r->left -= n;
	return v;
}

static uint16_t rd_u16(struct rd *r)
{
	return (uint16_t)rd_le(r, 2);
}

static uint32_t rd_u32(struct rd *r)
{
	return (uint32_t)rd_le(r, 4);
}

static uint64_t rd_u64(struct rd *r)
{
	return rd_le(r, 8);
}

struct wr {
	uint8_t *p;
	size_t left;
};

/* Callers have checked the size first, so the writer cannot overflow. */
static void wr_le(struct wr *w, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		w->p[i] = (uint8_t)(v >> (8 * i));
	w->p += n;
	w->left -= n;
}

static void wr_u16(struct wr *w, uint16_t v)
{
	wr_le(w, v, 2);
}

static void wr_u32(struct wr *w, uint32_t v)
{
	wr_le(w, v, 4);
}

static void wr_u64(struct wr *w, uint64_t v)
{
	wr_le(w, v, 8);
}

static void wr_bytes(struct wr *w, const void *s, size_t n)
{
	if (n)
		memcpy(w->p, s, n);
	w->p += n;
	w->left -= n;
}

static bool is_request(unsigned type)
{
	return type >= FXS_MSG_SETUP && type <= FXS_MSG_STATUS;
}

static bool is_known(unsigned type)
{
	return is_request(type) || (type >= FXS_MSG_OK && type <= FXS_MSG_NOTICE);
}

/* Checks shared by the encoder and the decoder. */
static bool setup_valid(const struct fxs_msg_setup *s)
{
	uint32_t i;

	if (s->flags & ~FXS_SETUP_FLAGS)
		return false;
	if ((s->flags & FXS_SETUP_UNWIND_AUTO) && (s->flags & FXS_SETUP_UNWIND_CFI))
		return false;
	if (s->nr_pids > FXS_PROTO_MAX_PIDS)
		return false;
	if (!!(s->flags & FXS_SETUP_ALL_HOST) == !!s->nr_pids)
		return false;
	for (i = 0; i < s->nr_pids; i++) {
		/* pid_t is a positive int */
		if (!s->pids[i] || s->pids[i] > INT32_MAX)
			return false;
	}
	return true;
}

static bool error_valid(const struct fxs_msg_error *e, size_t text_len)
{
	if (e->request && !is_request(e->request))
		return false;
	if (!e->kind || e->kind >= FXS_ERR_NR)
		return false;
	if (e->err > 0 || e->err < -PROTO_MAX_ERRNO)
		return false;
	if (text_len > FXS_PROTO_MAX_TEXT)
		return false;
	return !memchr(e->text, '\0', text_len);
}

static bool status_valid(const struct fxs_msg_status *s)
{
	if (s->session >= FXS_SESSION_NR || (s->flags & ~FXS_STATUS_FLAGS))
		return false;
	if (s->nr_pids > FXS_PROTO_MAX_PIDS)
		return false;
	/* no session, no holder and nothing to count */
	if (s->session == FXS_SESSION_NONE && (s->flags || s->holder_pid))
		return false;
	return true;
}

int protocol_frame_len(const void *buf, size_t len, size_t *ret_len)
{
	struct rd r = {.p = buf, .left = len};
	uint32_t magic, plen, reserved;
	uint16_t version;

	if (len < FXS_PROTO_HDR_SIZE)
		return -EAGAIN;
	magic = rd_u32(&r);
	version = rd_u16(&r);
	rd_u16(&r); /* the type is the decoder's business */
	plen = rd_u32(&r);
	reserved = rd_u32(&r);
	if (magic != FXS_PROTO_MAGIC || version != FXS_PROTO_VERSION || reserved)
		return -EBADMSG;
	if (plen > FXS_PROTO_MAX_PAYLOAD)
		return -EBADMSG;
	*ret_len = FXS_PROTO_HDR_SIZE + (size_t)plen;
	return 0;
}

static int decode_setup(struct rd *r, struct fxs_msg_setup *s)
{
	uint32_t i;

	if (r->left < SETUP_FIXED)
		return -EBADMSG;
	s->period_ns = rd_u64(r);
	s->freq_hz = rd_u64(r);
	s->buffer_size = rd_u32(r);
	s->max_frames = rd_u32(r);
	s->flags = rd_u32(r);
	s->nr_pids = rd_u32(r);
	if (s->nr_pids > FXS_PROTO_MAX_PIDS ||
	    r->left != 4 * (size_t)s->nr_pids + (s->flags & FXS_SETUP_OFFCPU ? 8 : 0))
		return -EBADMSG;
	for (i = 0; i < s->nr_pids; i++)
		s->pids[i] = rd_u32(r);
	s->offcpu_min_ns = s->flags & FXS_SETUP_OFFCPU ? rd_u64(r) : 0;
	return setup_valid(s) ? 0 : -EBADMSG;
}

static int decode_error(struct rd *r, struct fxs_msg_error *e)
{
	uint32_t text_len;

	if (r->left < ERROR_FIXED)
		return -EBADMSG;
	e->request = rd_u16(r);
	e->kind = rd_u16(r);
	e->err = (int32_t)rd_u32(r);
	e->holder_pid = rd_u32(r);
	e->holder_uid = rd_u32(r);
	text_len = rd_u32(r);
	if (rd_u32(r)) /* reserved */
		return -EBADMSG;
	if (text_len > FXS_PROTO_MAX_TEXT || r->left != text_len)
		return -EBADMSG;
	memcpy(e->text, r->p, text_len);
	e->text[text_len] = '\0';
	r->p += text_len;
	r->left = 0;
	return error_valid(e, text_len) ? 0 : -EBADMSG;
}

static bool notice_valid(const struct fxs_msg_notice *n, size_t text_len)
{
	if (!n->kind || n->kind >= FXS_NOTICE_NR || !text_len || text_len > FXS_PROTO_MAX_TEXT)
		return false;
	return !memchr(n->text, '\0', text_len);
}

static int decode_notice(struct rd *r, struct fxs_msg_notice *n)
{
	uint32_t text_len;

	if (r->left < NOTICE_FIXED)
		return -EBADMSG;
	n->kind = rd_u16(r);
	if (rd_u16(r)) /* reserved */
		return -EBADMSG;
	n->pid = rd_u32(r);
	text_len = rd_u32(r);
	if (text_len > FXS_PROTO_MAX_TEXT || r->left != text_len)
		return -EBADMSG;
	memcpy(n->text, r->p, text_len);
	n->text[text_len] = '\0';
	r->p += text_len;
	r->left = 0;
	return notice_valid(n, text_len) ? 0 : -EBADMSG;
}

static int decode_status(struct rd *r, struct fxs_msg_status *s)
{
	uint32_t nr_counters, i;
	uint64_t v;

	if (r->left < STATUS_FIXED)
		return -EBADMSG;
	s->session = rd_u32(r);
	s->flags = rd_u32(r);
	s->holder_pid = rd_u32(r);
	s->holder_uid = rd_u32(r);
	s->nr_cpus = rd_u32(r);
	s->nr_pids = rd_u32(r);
	s->period_ns = rd_u64(r);
	s->freq_hz = rd_u64(r);
	s->processes = rd_u64(r);
	s->threads = rd_u64(r);
	s->bytes = rd_u64(r);
	nr_counters = rd_u32(r);
	if (rd_u32(r)) /* reserved */
		return -EBADMSG;
	if (nr_counters > FXS_PROTO_MAX_COUNTERS || r->left != 8 * (size_t)nr_counters)
		return -EBADMSG;
	memset(&s->counters, 0, sizeof(s->counters));
	for (i = 0; i < nr_counters; i++) {
		v = rd_u64(r);
		if (i < FXS_CNT_NR)
			s->counters.v[i] = v;
	}
	return status_valid(s) ? 0 : -EBADMSG;
}

int protocol_decode(const void *buf, size_t len, struct fxs_msg *ret)
{
	struct fxs_msg m;
	size_t frame;
	struct rd r;
	int err;

	if (!buf)
		return -EBADMSG;
	err = protocol_frame_len(buf, len, &frame);
	if (err)
		return -EBADMSG;
	if (frame != len)
		return -EBADMSG;
	memset(&m, 0, sizeof(m));
	r.p = (const uint8_t *)buf + 6;
	r.left = 2;
	r.bad = false;
	m.type = rd_u16(&r);
	r.p = (const uint8_t *)buf + FXS_PROTO_HDR_SIZE;
	r.left = len - FXS_PROTO_HDR_SIZE;

	switch (m.type) {
	case FXS_MSG_SETUP:
		err = decode_setup(&r, &m.setup);
		break;
	case FXS_MSG_START:
	case FXS_MSG_STOP:
	case FXS_MSG_READ:
	case FXS_MSG_DESTROY:
	case FXS_MSG_STATUS:
		err = r.left ? -EBADMSG : 0;
		break;
	case FXS_MSG_OK:
		if (r.left != OK_SIZE)
			return -EBADMSG;
		m.ok.request = rd_u16(&r);
		if (rd_u16(&r) || !is_request(m.ok.request))
			return -EBADMSG;
		err = 0;
		break;
	case FXS_MSG_ERROR:
		err = decode_error(&r, &m.error);
		break;
	case FXS_MSG_DATA:
		if (!r.left)
			return -EBADMSG;
		m.data.data = r.p;
		m.data.len = r.left;
		r.left = 0;
		err = 0;
		break;
	case FXS_MSG_STATUS_REPLY:
		err = decode_status(&r, &m.status);
		break;
	case FXS_MSG_END:
		if (r.left != END_SIZE)
			return -EBADMSG;
		m.end.reason = rd_u32(&r);
		err = m.end.reason < FXS_END_NR ? 0 : -EBADMSG;
		break;
	case FXS_MSG_NOTICE:
		err = decode_notice(&r, &m.notice);
		break;
	default:
		return -EBADMSG;
	}
	if (err || r.bad)
		return -EBADMSG;
	*ret = m;
	return 0;
}

static void put_header(struct wr *w, unsigned type, size_t plen)
{
	wr_u32(w, FXS_PROTO_MAGIC);
	wr_u16(w, FXS_PROTO_VERSION);
	wr_u16(w, (uint16_t)type);
	wr_u32(w, (uint32_t)plen);
	wr_u32(w, 0);
}

int protocol_encode_data_header(size_t len, uint8_t hdr[FXS_PROTO_HDR_SIZE])
{
	struct wr w = {.p = hdr, .left = FXS_PROTO_HDR_SIZE};

	if (!len || len > FXS_PROTO_MAX_PAYLOAD)
		return -EINVAL;
	put_header(&w, FXS_MSG_DATA, len);
	return 0;
}

/* The payload size of msg, or -EINVAL when it is not valid. */
static long payload_size(const struct fxs_msg *msg, size_t *ret_text_len)
{
	size_t text_len;

	switch (msg->type) {
	case FXS_MSG_SETUP:
		if (!setup_valid(&msg->setup))
			return -EINVAL;
		return SETUP_FIXED + 4 * (long)msg->setup.nr_pids +
		       (msg->setup.flags & FXS_SETUP_OFFCPU ? 8 : 0);
	case FXS_MSG_START:
	case FXS_MSG_STOP:
	case FXS_MSG_READ:
	case FXS_MSG_DESTROY:
	case FXS_MSG_STATUS:
		return 0;
	case FXS_MSG_OK:
		return is_request(msg->ok.request) ? OK_SIZE : -EINVAL;
	case FXS_MSG_ERROR:
		text_len = strnlen(msg->error.text, sizeof(msg->error.text));
		if (text_len > FXS_PROTO_MAX_TEXT || !error_valid(&msg->error, text_len))
			return -EINVAL;
		*ret_text_len = text_len;
		return ERROR_FIXED + (long)text_len;
	case FXS_MSG_DATA:
		if (!msg->data.len || msg->data.len > FXS_PROTO_MAX_PAYLOAD || !msg->data.data)
			return -EINVAL;
		return (long)msg->data.len;
	case FXS_MSG_STATUS_REPLY:
		if (!status_valid(&msg->status))
			return -EINVAL;
		return STATUS_FIXED + 8 * FXS_CNT_NR;
	case FXS_MSG_END:
		return msg->end.reason < FXS_END_NR ? END_SIZE : -EINVAL;
	case FXS_MSG_NOTICE:
		text_len = strnlen(msg->notice.text, sizeof(msg->notice.text));
		if (!notice_valid(&msg->notice, text_len))
			return -EINVAL;
		*ret_text_len = text_len;
		return NOTICE_FIXED + (long)text_len;
	default:
		return -EINVAL;
	}
}

int protocol_encode(const struct fxs_msg *msg, void *buf, size_t cap)
{
	size_t text_len = 0;
	struct wr w;
	long plen;
	unsigned i;

	if (!msg || !buf)
		return -EINVAL;
	plen = payload_size(msg, &text_len);
	if (plen < 0)
		return (int)plen;
	if ((size_t)plen + FXS_PROTO_HDR_SIZE > cap)
		return -EMSGSIZE;
	w.p = buf;
	w.left = cap;
	put_header(&w, msg->type, (size_t)plen);

	switch (msg->type) {
	case FXS_MSG_SETUP:
		wr_u64(&w, msg->setup.period_ns);
		wr_u64(&w, msg->setup.freq_hz);
		wr_u32(&w, msg->setup.buffer_size);
		wr_u32(&w, msg->setup.max_frames);
		wr_u32(&w, msg->setup.flags);
		wr_u32(&w, msg->setup.nr_pids);
		for (i = 0; i < msg->setup.nr_pids; i++)
			wr_u32(&w, msg->setup.pids[i]);
		if (msg->setup.flags & FXS_SETUP_OFFCPU)
			wr_u64(&w, msg->setup.offcpu_min_ns);
		break;
	case FXS_MSG_OK:
		wr_u16(&w, msg->ok.request);
		wr_u16(&w, 0);
		break;
	case FXS_MSG_ERROR:
		wr_u16(&w, msg->error.request);
		wr_u16(&w, msg->error.kind);
		wr_u32(&w, (uint32_t)msg->error.err);
		wr_u32(&w, msg->error.holder_pid);
		wr_u32(&w, msg->error.holder_uid);
		wr_u32(&w, (uint32_t)text_len);
		wr_u32(&w, 0);
		wr_bytes(&w, msg->error.text, text_len);
		break;
	case FXS_MSG_DATA:
		wr_bytes(&w, msg->data.data, msg->data.len);
		break;
	case FXS_MSG_STATUS_REPLY:
		wr_u32(&w, msg->status.session);
		wr_u32(&w, msg->status.flags);
		wr_u32(&w, msg->status.holder_pid);
		wr_u32(&w, msg->status.holder_uid);
		wr_u32(&w, msg->status.nr_cpus);
		wr_u32(&w, msg->status.nr_pids);
		wr_u64(&w, msg->status.period_ns);
		wr_u64(&w, msg->status.freq_hz);
		wr_u64(&w, msg->status.processes);
		wr_u64(&w, msg->status.threads);
		wr_u64(&w, msg->status.bytes);
		wr_u32(&w, FXS_CNT_NR);
		wr_u32(&w, 0);
		for (i = 0; i < FXS_CNT_NR; i++)
			wr_u64(&w, msg->status.counters.v[i]);
		break;
	case FXS_MSG_END:
		wr_u32(&w, msg->end.reason);
		break;
	case FXS_MSG_NOTICE:
		wr_u16(&w, msg->notice.kind);
		wr_u16(&w, 0);
		wr_u32(&w, msg->notice.pid);
		wr_u32(&w, (uint32_t)text_len);
		wr_bytes(&w, msg->notice.text, text_len);
		break;
	default:
		break;
	}
	return FXS_PROTO_HDR_SIZE + (int)plen;
}

int protocol_setup_from_opts(const struct capture_opts *opts, struct fxs_msg_setup *ret)
{
	struct fxs_msg_setup s;
	unsigned i;

	if (!opts || opts->nr_pids > FXS_PROTO_MAX_PIDS)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.period_ns = opts->period_ns;
	s.freq_hz = opts->freq_hz;
	s.buffer_size = opts->buffer_size;
	s.max_frames = opts->max_frames;
	s.flags = (opts->nr_pids ? 0 : FXS_SETUP_ALL_HOST) |
		  (opts->inherit ? FXS_SETUP_INHERIT : 0) | (opts->offcpu ? FXS_SETUP_OFFCPU : 0) |
		  (opts->kernel ? FXS_SETUP_KERNEL : 0) | (opts->preempt ? FXS_SETUP_PREEMPT : 0) |
		  (opts->python ? 0 : FXS_SETUP_NO_PYTHON) |
		  (opts->unwind == FXS_UNWIND_AUTO  ? FXS_SETUP_UNWIND_AUTO
		   : opts->unwind == FXS_UNWIND_CFI ? FXS_SETUP_UNWIND_CFI
						    : 0);
	s.offcpu_min_ns = opts->offcpu ? opts->offcpu_min_ns : 0;
	s.nr_pids = opts->nr_pids;
	for (i = 0; i < opts->nr_pids; i++)
		s.pids[i] = opts->pids[i];
	if (!setup_valid(&s))
		return -EINVAL;
	*ret = s;
	return 0;
}

int protocol_setup_to_opts(const struct fxs_msg_setup *setup, struct capture_opts *ret)
{
	struct capture_opts o;
	unsigned i;

	if (!setup || !setup_valid(setup))
		return -EINVAL;
	memset(&o, 0, sizeof(o));
	o.period_ns = setup->period_ns;
	o.freq_hz = setup->freq_hz;
	o.buffer_size = setup->buffer_size;
	o.max_frames = setup->max_frames;
	o.nr_pids = setup->nr_pids;
	for (i = 0; i < setup->nr_pids; i++)
		o.pids[i] = setup->pids[i];
	o.inherit = setup->flags & FXS_SETUP_INHERIT;
	o.offcpu = setup->flags & FXS_SETUP_OFFCPU;
	o.offcpu_min_ns = o.offcpu ? setup->offcpu_min_ns : 0;
	o.kernel = setup->flags & FXS_SETUP_KERNEL;
	o.preempt = setup->flags & FXS_SETUP_PREEMPT;
	o.python = !(setup->flags & FXS_SETUP_NO_PYTHON);
	o.unwind = setup->flags & FXS_SETUP_UNWIND_AUTO	 ? FXS_UNWIND_AUTO
		   : setup->flags & FXS_SETUP_UNWIND_CFI ? FXS_UNWIND_CFI
							 : FXS_UNWIND_FP;
	*ret = o;
	return 0;
}

const char *protocol_type_name(unsigned type)
{
	static const char *const names[] = {
		[FXS_MSG_SETUP] = "setup",     [FXS_MSG_START] = "start",
		[FXS_MSG_STOP] = "stop",       [FXS_MSG_READ] = "read",
		[FXS_MSG_DESTROY] = "destroy", [FXS_MSG_STATUS] = "status",
		[FXS_MSG_OK] = "ok",	       [FXS_MSG_ERROR] = "error",
		[FXS_MSG_DATA] = "data",       [FXS_MSG_STATUS_REPLY] = "status reply",
		[FXS_MSG_END] = "end",	       [FXS_MSG_NOTICE] = "notice",
	};

	if (!is_known(type))
		return "?";
	return names[type];
}

const char *protocol_err_name(unsigned kind)
{
	static const char *const names[] = {
		[FXS_ERR_ALREADY_EXISTS] = "already exists",
		[FXS_ERR_INVALID_ARGS] = "invalid arguments",
		[FXS_ERR_BAD_STATE] = "bad state",
		[FXS_ERR_ACCESS_DENIED] = "access denied",
		[FXS_ERR_INTERNAL] = "internal error",
		[FXS_ERR_NOT_FOUND] = "not found",
		[FXS_ERR_BAD_MESSAGE] = "bad message",
	};

	if (!kind || kind >= FXS_ERR_NR)
		return "?";
	return names[kind];
}

const char *protocol_session_name(unsigned session)
{
	static const char *const names[] = {
		[FXS_SESSION_NONE] = "idle",
		[FXS_SESSION_CONFIGURED] = "configured",
		[FXS_SESSION_RUNNING] = "running",
		[FXS_SESSION_STOPPED] = "stopped",
	};

	if (session >= FXS_SESSION_NR)
		return "?";
	return names[session];
}
