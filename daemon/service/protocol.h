/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fxsamplerd control protocol (docs/PROTOCOL.md): framed binary messages on
 * a Unix stream socket. Pure encoders and a strict decoder: no sockets, no
 * libbpf, no logging, no allocation. The decoder takes untrusted bytes and is
 * meant to be fuzzed: every failure is -EBADMSG and nothing is read past len.
 */
#ifndef FXS_DAEMON_PROTOCOL_H
#define FXS_DAEMON_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampler.h"

struct capture_opts;

#define FXS_PROTO_MAGIC	   0x50535846u /* "FXSP" as little-endian bytes */
#define FXS_PROTO_VERSION  1
#define FXS_PROTO_HDR_SIZE 16
/* A whole message, header included, never exceeds this. */
#define FXS_PROTO_MAX_MSG     65536
#define FXS_PROTO_MAX_PAYLOAD (FXS_PROTO_MAX_MSG - FXS_PROTO_HDR_SIZE)
#define FXS_PROTO_MAX_PIDS    64
#define FXS_PROTO_MAX_TEXT    1024
/* Counters a STATUS may carry; more than we know of are accepted and ignored. */
#define FXS_PROTO_MAX_COUNTERS 64

enum fxs_msg_type {
	/* requests, client to daemon */
	FXS_MSG_SETUP = 1,
	FXS_MSG_START = 2,
	FXS_MSG_STOP = 3,
	FXS_MSG_READ = 4,
	FXS_MSG_DESTROY = 5,
	FXS_MSG_STATUS = 6,
	/* replies and notices, daemon to client */
	FXS_MSG_OK = 0x81,
	FXS_MSG_ERROR = 0x82,
	FXS_MSG_DATA = 0x83,
	FXS_MSG_STATUS_REPLY = 0x84,
	FXS_MSG_END = 0x85,
	FXS_MSG_NOTICE = 0x86,
};

/* Fuchsia's zx_status_t kinds that the sampler's calls return, plus two of ours. */
enum fxs_err_kind {
	FXS_ERR_ALREADY_EXISTS = 1, /* the host's sampler is held: holder_pid/uid say by whom */
	FXS_ERR_INVALID_ARGS = 2,
	FXS_ERR_BAD_STATE = 3,
	FXS_ERR_ACCESS_DENIED = 4, /* text says why */
	FXS_ERR_INTERNAL = 5,
	FXS_ERR_NOT_FOUND = 6,	 /* a target pid does not exist */
	FXS_ERR_BAD_MESSAGE = 7, /* malformed, oversized or unknown message */
	FXS_ERR_NR,
};

/* fxs_msg_setup.flags */
#define FXS_SETUP_ALL_HOST 0x1u
#define FXS_SETUP_INHERIT  0x2u
/* Off-CPU intervals too: offcpu_min_ns follows the pids on the wire. */
#define FXS_SETUP_OFFCPU 0x4u
/*
 * Kernel stacks too (record --kernel), if the client may have them: the
 * daemon says in a notice when it leaves them out.
 */
#define FXS_SETUP_KERNEL 0x8u
/* Root only: a client's session that holds the sampler is ended (END PREEMPTED) for this one. */
#define FXS_SETUP_PREEMPT 0x10u
/*
 * record --unwind: auto or cfi (at most one); neither is fp, as an older
 * client means. The tables' memory is the daemon's (cfi_memory).
 */
#define FXS_SETUP_UNWIND_AUTO 0x20u
#define FXS_SETUP_UNWIND_CFI  0x40u
/*
 * record --python=off: no Python frames. Python frames are the default, so
 * that an older client (which sends no such flag) gets them too.
 */
#define FXS_SETUP_NO_PYTHON 0x80u
#define FXS_SETUP_FLAGS                                                                            \
	(FXS_SETUP_ALL_HOST | FXS_SETUP_INHERIT | FXS_SETUP_OFFCPU | FXS_SETUP_KERNEL |            \
	 FXS_SETUP_PREEMPT | FXS_SETUP_UNWIND_AUTO | FXS_SETUP_UNWIND_CFI | FXS_SETUP_NO_PYTHON)

struct fxs_msg_setup {
	uint64_t period_ns;
	uint64_t freq_hz;
	uint32_t buffer_size;
	uint32_t max_frames;
	uint32_t flags; /* FXS_SETUP_*: ALL_HOST is set exactly when nr_pids is 0 */
	uint32_t nr_pids;
	uint32_t pids[FXS_PROTO_MAX_PIDS];
	uint64_t offcpu_min_ns; /* only with FXS_SETUP_OFFCPU */
};

struct fxs_msg_ok {
	uint16_t request; /* the type of the request this answers */
};

struct fxs_msg_error {
	uint16_t request; /* the type of the request this answers, 0 when unknown */
	uint16_t kind;	  /* enum fxs_err_kind */
	int32_t err;	  /* a negative errno, for the curious */
	uint32_t holder_pid;
	uint32_t holder_uid;
	char text[FXS_PROTO_MAX_TEXT + 1]; /* NUL-terminated, no NUL inside on the wire */
};

/* fxs_msg_status.session */
enum fxs_session_state {
	FXS_SESSION_NONE = 0,
	FXS_SESSION_CONFIGURED = 1,
	FXS_SESSION_RUNNING = 2,
	FXS_SESSION_STOPPED = 3, /* stream finished, waiting for DESTROY */
	FXS_SESSION_NR,
};

/* fxs_msg_status.flags */
#define FXS_STATUS_CONTINUOUS 0x1u /* the holder is the daemon's own continuous capture */
#define FXS_STATUS_YOURS      0x2u /* the session belongs to the asking connection */
/* another user's session: only its state and holder_uid are filled in */
#define FXS_STATUS_OTHERS 0x4u
#define FXS_STATUS_FLAGS  (FXS_STATUS_CONTINUOUS | FXS_STATUS_YOURS | FXS_STATUS_OTHERS)

struct fxs_msg_status {
	uint32_t session; /* enum fxs_session_state */
	uint32_t flags;	  /* FXS_STATUS_* */
	uint32_t holder_pid;
	uint32_t holder_uid;
	uint32_t nr_cpus;
	uint32_t nr_pids; /* targets of the session; 0: the whole host */
	uint64_t period_ns;
	uint64_t freq_hz;
	uint64_t processes;
	uint64_t threads;
	uint64_t bytes;
	struct fxs_counters counters; /* counters the sender did not have are 0 */
};

/* fxs_msg_end.reason */
enum fxs_end_reason {
	FXS_END_STOPPED = 0,   /* the client asked */
	FXS_END_SHUTDOWN = 1,  /* the daemon is exiting */
	FXS_END_LIMIT = 2,     /* the session reached the daemon's max_session_length */
	FXS_END_STALLED = 3,   /* the client read nothing for client_read_timeout */
	FXS_END_PREEMPTED = 4, /* root took the sampler (SETUP with PREEMPT) */
	FXS_END_NR,
};

/* The FXT stream is complete: no DATA follows for this session. */
struct fxs_msg_end {
	uint32_t reason;
};

/* fxs_msg_notice.kind */
enum fxs_notice_kind {
	FXS_NOTICE_TARGET_LEFT = 1, /* pid is no longer the client's: no longer sampled */
	FXS_NOTICE_NO_KERNEL = 2,   /* kernel stacks asked for and not allowed: left out */
	FXS_NOTICE_NR,
};

/* Something the client's user should know, e.g. on stderr; the capture goes on. */
struct fxs_msg_notice {
	uint16_t kind;			   /* enum fxs_notice_kind */
	uint32_t pid;			   /* the process it is about, 0: none */
	char text[FXS_PROTO_MAX_TEXT + 1]; /* NUL-terminated, no NUL inside on the wire */
};

/* FXT bytes; the decoder points into the buffer it was given. */
struct fxs_msg_data {
	const void *data;
	size_t len;
};

struct fxs_msg {
	uint16_t type; /* enum fxs_msg_type */
	union {
		struct fxs_msg_setup setup;
		struct fxs_msg_ok ok;
		struct fxs_msg_error error;
		struct fxs_msg_status status;
		struct fxs_msg_end end;
		struct fxs_msg_data data;
		struct fxs_msg_notice notice;
	};
};

/*
 * Look at the start of a byte stream: 0 and *ret_len = the size of the whole
 * first message when its header is complete and valid (the message itself may
 * still be incomplete); -EAGAIN when fewer than FXS_PROTO_HDR_SIZE bytes are
 * there; -EBADMSG when the header is bad (magic, version, reserved bits, length
 * over the maximum), after which the stream cannot be resynchronised.
 */
int protocol_frame_len(const void *buf, size_t len, size_t *ret_len);

/*
 * Decode exactly one whole message of len bytes. 0 and *ret filled, or
 * -EBADMSG for anything malformed: bad header, len not matching the header,
 * unknown type, payload size or content inconsistent with the type. For DATA,
 * ret->data.data points into buf. *ret is written only on success.
 */
int protocol_decode(const void *buf, size_t len, struct fxs_msg *ret);

/*
 * Encode msg into buf (cap bytes): the number of bytes written, -EINVAL when
 * the message is not valid (the same rules as the decoder), -EMSGSIZE when it
 * does not fit in cap. Whatever is encoded decodes back to the same message.
 */
int protocol_encode(const struct fxs_msg *msg, void *buf, size_t cap);

/*
 * Write the header of a DATA message of len payload bytes (1..MAX_PAYLOAD)
 * into hdr, so that a sender can send the payload from where it lies. 0 or
 * -EINVAL.
 */
int protocol_encode_data_header(size_t len, uint8_t hdr[FXS_PROTO_HDR_SIZE]);

/* Conversions between a SETUP message and the options of a capture. 0 or -EINVAL. */
int protocol_setup_from_opts(const struct capture_opts *opts, struct fxs_msg_setup *ret);
int protocol_setup_to_opts(const struct fxs_msg_setup *setup, struct capture_opts *ret);

/* Stable lowercase names ("setup", "already exists", "running"), "?" when unknown. */
const char *protocol_type_name(unsigned type);
const char *protocol_err_name(unsigned kind);
const char *protocol_session_name(unsigned session);

#endif /* FXS_DAEMON_PROTOCOL_H */
