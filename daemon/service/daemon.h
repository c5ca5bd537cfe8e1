/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fxsamplerd's shared state, private to daemon/service/. One daemon (struct
 * daemon) owns a listening socket, up to MAX_CONNS client connections
 * (struct conn) and at most one session (struct session) on the host's one
 * sampler: a client's, or the continuous capture's. The modules, one job
 * each, as journald is split:
 *   log.c        the log lines (log.h)
 *   conn.c       connections: output queues, replies, peer credentials and
 *                per-uid limits, reading and framing requests, flush, close
 *   session.c    a client's session: SETUP..DESTROY, STATUS, notices
 *   continuous.c continuous mode's rotating files: start, finish, salvage,
 *                the disk budget
 *   manager.c    the listening socket, signals, reload, timeouts, the loop
 *                and shutdown
 *   http.c       the opt-in HTTP endpoint (/debug/pprof/profile) on the host
 *                profile's stream, through scrape.c's windows
 *   fxsamplerd.c the command line: main()
 * Everything runs on the loop's one thread; nothing here blocks on a client.
 */
#ifndef FXS_SERVICE_DAEMON_H
#define FXS_SERVICE_DAEMON_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/authz.h"
#include "capture/capture.h"
#include "service/daemon_config.h"
#include "service/log.h"
#include "service/protocol.h"
#include "util/outfile.h"

/*
 * Samples sit in the rings until drained: every DRAIN_MS at the latest, often
 * enough that they never fill. The rings also wake the loop (a new thread, an
 * exec, a ring past its fill mark, a CFI walk that lacked its tables), and a
 * drain that leaves a mapping, fork or exec record held brings the next one
 * within capture_next_drain_ms(): a new image's stacks are walked by frame
 * pointers (marked) for a few ms, not up to DRAIN_MS. Drains come at least
 * DRAIN_GAP_MS apart however often the rings wake us: a drain hands on only
 * records stamped 1 ms before it (capture's horizon while no write is in
 * flight), so a sooner one could do little more than the last, and a host
 * full of execs would have us drain thousands of times a second.
 */
#define DRAIN_MS     100
#define DRAIN_GAP_MS 2
/* How soon continuous mode tries again after it could not start. */
#define CONT_RETRY_S 10
#define MAX_CONNS    1024
/* How long a connection being closed gets to take its last messages. */
#define CLOSE_GRACE_MS 5000

/* Bytes waiting to go out on a connection. */
struct outq {
	uint8_t *data;
	size_t off; /* sent already */
	size_t len;
	size_t cap;
};

struct conn {
	int fd;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	size_t nr_groups;
	uint8_t in[FXS_PROTO_MAX_MSG];
	size_t in_len;
	struct outq out;
	bool closing; /* send what is queued, read nothing more, then close */
	bool epollout;
	bool dead; /* closed at the end of this turn of the loop */
	/* CLOCK_MONOTONIC ms, for the timeouts */
	uint64_t msg_ms;      /* the last whole message, or the connect */
	uint64_t partial_ms;  /* when the message in in[] began (in_len > 0) */
	uint64_t sent_ms;     /* the last time send() took bytes, or the queue was empty */
	uint64_t close_by_ms; /* closing: hang up by then even with bytes unsent */
	bool spoke;	      /* it sent a whole message */
};

struct session {
	struct capture *cap;
	struct conn *owner; /* NULL for the continuous capture */
	unsigned state;	    /* FXS_SESSION_* */
	pid_t holder_pid;
	uid_t holder_uid;
	struct capture_opts opts;
	uint64_t next_drain_ms;
	uint64_t drained_ms; /* when the last drain ended */
	bool watched;	     /* the capture's wake fd is in the loop's epoll set */
	uint64_t started_ms; /* START, for max_session_length */
	/* continuous mode */
	struct outfile file; /* under its temporary name until committed */
	char name[64];	     /* rotate_file_name() makes 40 */
	uint64_t file_bytes;
	int64_t started_s;
	int sink_err;
	uint64_t synced_bytes; /* file_bytes at the last fdatasync */
	uint64_t synced_ms;
	uint64_t tick_bytes; /* file_bytes at the last cont_tick */
	/* a host capture for the HTTP scrapes alone (no continuous mode): no file */
	bool on_demand;
	struct scrape_tap *tap; /* the HTTP endpoint's reader of the host stream, or NULL */
};

/*
 * Refused connections are logged at most once per uid per REFUSAL_LOG_MS,
 * with a count of those not logged: a user who connects in a loop must not
 * flood the journal. REFUSAL_UIDS users are remembered, the oldest forgotten.
 */
#define REFUSAL_LOG_MS 10000
#define REFUSAL_UIDS   32
struct refusal_log {
	uid_t uid;
	uint64_t logged_ms; /* 0: a free slot */
	uint64_t suppressed;
};

struct http;
struct scrape_tap;

struct daemon {
	struct daemon_config cfg;
	const char *config_path;
	bool config_given;
	char socket_path[DAEMON_SOCKET_MAX];
	bool socket_given; /* --socket or $FXSAMPLER_SOCKET: the config's socket is moot */
	int listen_fd;
	bool own_socket; /* we bound it, so we unlink it */
	int epfd;
	struct conn *conns[MAX_CONNS];
	size_t nr_conns;
	struct session sess;
	struct authz_policy pol;
	unsigned cont_seq;
	int64_t cont_retry_at;
	bool cont_warned;
	/* The file completed (or salvaged) last: the disk budget never deletes it. */
	char cont_last[NAME_MAX + 1];
	int64_t cont_last_mtime;
	/*
	 * What a continuous file may still get before it can close: the most one
	 * turn of the loop (a drain) wrote in this file and the one before (a
	 * burst of mappings is forgotten two files later), and what the last
	 * finish wrote.
	 */
	uint64_t cont_max_turn, cont_prev_turn, cont_tail;
	/*
	 * The memory ceiling (memory.h): when the heap was looked at (ms) and
	 * last trimmed (s); renew: the scrapes' symbolizer starts over at the
	 * next stream.
	 */
	int64_t mem_checked_ms, mem_trimmed_s;
	bool mem_renew;
	struct refusal_log refusals[REFUSAL_UIDS];
	struct http *http;	/* the HTTP endpoint, when http_listen is set */
	struct scrape_tap *tap; /* its windows on the host profile's stream */
};

/* SIGTERM or SIGINT came: the loop ends at its next turn (manager.c). */
extern volatile sig_atomic_t stop_requested;

/* --- conn.c --- */

size_t outq_pending(const struct outq *q);
/* Queue m on c: 0, or -errno (-ENOBUFS past the hard limit: c is cut off). */
int queue_msg(struct conn *c, const struct fxs_msg *m);
/* The FXT sink of a client's capture (ctx is the conn): bytes become DATA messages. */
int conn_sink(void *ctx, const void *data, size_t len);
/* Replies: a queue that overflows marks c closing. */
void reply_ok(struct conn *c, unsigned request);
void reply_error(struct conn *c, unsigned request, unsigned kind, int err, pid_t hpid, uid_t huid,
		 const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void reply_end(struct conn *c, unsigned reason);
/* (Re)arm c's epoll events from closing and epollout: 0 or -errno. */
int conn_epoll(struct daemon *d, struct conn *c, int op);
/* Accept every pending connection, refusing those over the limits. */
void conns_accept(struct daemon *d);
/* Read what c sent and act on every whole message: 0, or -errno when c is dead. */
int conn_read(struct daemon *d, struct conn *c);
/* Say why, and close once that is sent (or CLOSE_GRACE_MS passed). */
void conn_hang_up(struct daemon *d, struct conn *c, const char *why);
/* Close the connections marked dead (only here, between turns of the loop). */
void conns_reap(struct daemon *d);
/* Send what every connection has queued, then reap. */
void conns_flush(struct daemon *d);

/* --- session.c --- */

/* Free the session's capture: the sampler is everyone's again. */
void session_clear(struct daemon *d);
/*
 * Once the capture runs: its rings wake the loop through the epoll set
 * (edge-triggered, so that rings left full while a client's back-pressure
 * skips drains do not spin the loop). session_clear() takes it out again.
 */
void session_watch(struct daemon *d);
/* Whether an epoll event's tag is the rings' wake-up. */
bool session_owns_event(const void *tag);
/* Drain the rings now (capture_poll); sets when the next drain is due. */
int session_drain(struct session *s);
/* Stop and finish a client's capture: the stream is complete after this. */
int session_end(struct session *s, unsigned reason);
/* Act on one request of c's. */
void handle_request(struct daemon *d, struct conn *c, const struct fxs_msg *m);
/* End the client's session before its client asked (a stall, a limit), saying why. */
void end_session_early(struct daemon *d, unsigned reason, const char *why);

/* --- continuous.c --- */

/* Start the continuous capture when it is on, not running and not waiting to retry. */
void cont_start(struct daemon *d);
/*
 * Start the host capture: continuous mode's, or (on_demand) one for the HTTP
 * scrapes alone, whose samples go to no file.
 */
void cont_start_for(struct daemon *d, bool on_demand);
/* Finish the continuous file: complete it, release the sampler, then name it. */
void cont_finish(struct daemon *d);
/* Each turn of the loop: rotate, sync, or start again. */
void cont_tick(struct daemon *d);

/* --- http.c --- */

/* Listen when http_listen is set: 0, or -errno (said in the log). */
int http_open(struct daemon *d);
/* Answer what waits, stop serving, unlink a unix socket. NULL-safe. */
void http_close(struct daemon *d);
/* How long the loop may wait for the endpoint: ms, or -1 for no limit. */
int http_timeout_ms(struct daemon *d);
/* Each turn of the loop: serve, end the windows that are due, start or stop the sampler. */
void http_run(struct daemon *d);
/* Whether an epoll event's tag is the endpoint's. */
bool http_owns_event(const struct daemon *d, const void *tag);

/* --- manager.c --- */

/* Block the signals the loop waits for; *waitmask is the mask to wait with. */
void daemon_signals(sigset_t *waitmask);
/* The group that may sample host-wide, looked up again at every reload. */
void daemon_load_policy(struct daemon *d);
/* The listening socket: systemd's, or d->socket_path bound. 0 or -errno. */
int daemon_listen(struct daemon *d);
/* The loop, until SIGTERM/SIGINT, then the shutdown: 0 or -errno. */
int daemon_run(struct daemon *d, const sigset_t *waitmask);

#endif /* FXS_SERVICE_DAEMON_H */
