// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxsamplerd's connections (daemon.h): what each client sent is framed and
 * handed to session.c; what it is sent waits in its output queue, flushed
 * without blocking; who it is comes from SO_PEERCRED and SO_PEERGROUPS.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "service/daemon.h"

/* A client that lets this much pile up is cut off. */
#define OUT_HARD_LIMIT (256u << 20)

/* --- output queues --- */

static int outq_reserve(struct outq *q, size_t more)
{
	size_t need, cap;
	uint8_t *tmp;

	if (q->off && q->off == q->len)
		q->off = q->len = 0;
	need = q->len + more;
	if (need <= q->cap)
		return 0;
	if (q->off) {
		/* reclaim what was sent before growing */
		memmove(q->data, q->data + q->off, q->len - q->off);
		q->len -= q->off;
		q->off = 0;
		need = q->len + more;
		if (need <= q->cap)
			return 0;
	}
	if (need > OUT_HARD_LIMIT)
		return -ENOBUFS;
	cap = q->cap ? q->cap : 65536;
	while (cap < need)
		cap *= 2;
	tmp = realloc(q->data, cap);
	if (!tmp)
		return -ENOMEM;
	q->data = tmp;
	q->cap = cap;
	return 0;
}

size_t outq_pending(const struct outq *q)
{
	return q->len - q->off;
}

int queue_msg(struct conn *c, const struct fxs_msg *m)
{
	uint8_t buf[2048];
	int n = protocol_encode(m, buf, sizeof(buf)), err;

	if (n < 0)
		return n;
	err = outq_reserve(&c->out, (size_t)n);
	if (err)
		return err;
	memcpy(c->out.data + c->out.len, buf, (size_t)n);
	c->out.len += (size_t)n;
	return 0;
}

/* The FXT sink of a client's capture: the bytes become DATA messages. */
int conn_sink(void *ctx, const void *data, size_t len)
{
	struct conn *c = ctx;
	const uint8_t *p = data;
	size_t chunk;
	int err;

	while (len) {
		chunk = len < FXS_PROTO_MAX_PAYLOAD ? len : FXS_PROTO_MAX_PAYLOAD;
		err = outq_reserve(&c->out, FXS_PROTO_HDR_SIZE + chunk);
		if (err)
			return err;
		protocol_encode_data_header(chunk, c->out.data + c->out.len);
		memcpy(c->out.data + c->out.len + FXS_PROTO_HDR_SIZE, p, chunk);
		c->out.len += FXS_PROTO_HDR_SIZE + chunk;
		p += chunk;
		len -= chunk;
	}
	return 0;
}

void reply_ok(struct conn *c, unsigned request)
{
	struct fxs_msg m = {.type = FXS_MSG_OK};

	m.ok.request = (uint16_t)request;
	if (queue_msg(c, &m))
		c->closing = true;
}

void reply_error(struct conn *c, unsigned request, unsigned kind, int err, pid_t hpid, uid_t huid,
		 const char *fmt, ...)
{
	struct fxs_msg m = {.type = FXS_MSG_ERROR};
	va_list ap;

	m.error.request = (uint16_t)request;
	m.error.kind = (uint16_t)kind;
	m.error.err = err < 0 && err >= -4095 ? err : 0;
	m.error.holder_pid = hpid > 0 ? (uint32_t)hpid : 0;
	m.error.holder_uid = (uint32_t)huid;
	va_start(ap, fmt);
	vsnprintf(m.error.text, sizeof(m.error.text), fmt, ap);
	va_end(ap);
	log_debug("pid %d: %s: %s: %s", (int)c->pid, protocol_type_name(request),
		  protocol_err_name(kind), m.error.text);
	if (queue_msg(c, &m))
		c->closing = true;
}

void reply_end(struct conn *c, unsigned reason)
{
	struct fxs_msg m = {.type = FXS_MSG_END};

	m.end.reason = reason;
	if (queue_msg(c, &m))
		c->closing = true;
}

/* --- connections --- */

int conn_epoll(struct daemon *d, struct conn *c, int op)
{
	struct epoll_event ev = {.data.ptr = c};

	ev.events = (c->closing ? 0 : EPOLLIN) | (c->epollout ? EPOLLOUT : 0) | EPOLLRDHUP;
	return epoll_ctl(d->epfd, op, c->fd, &ev) ? -errno : 0;
}

static void conn_free(struct conn *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->groups);
	free(c->out.data);
	free(c);
}

static void conn_close(struct daemon *d, struct conn *c)
{
	size_t i;

	if (d->sess.cap && d->sess.owner == c) {
		log_info("client pid %d (uid %u) went away, destroying its %s session", (int)c->pid,
			 (unsigned)c->uid, protocol_session_name(d->sess.state));
		session_clear(d);
	}
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	for (i = 0; i < d->nr_conns; i++) {
		if (d->conns[i] == c) {
			d->conns[i] = d->conns[--d->nr_conns];
			break;
		}
	}
	log_debug("connection of pid %d closed", (int)c->pid);
	conn_free(c);
}

/* Send what is queued without blocking: 0, or -errno when the connection is dead. */
static int conn_flush(struct daemon *d, struct conn *c)
{
	struct outq *q = &c->out;
	bool want;
	ssize_t n;

	while (outq_pending(q)) {
		n = send(c->fd, q->data + q->off, outq_pending(q), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return -errno;
		}
		q->off += (size_t)n;
		if (n > 0)
			c->sent_ms = mono_ms();
	}
	if (!outq_pending(q)) {
		q->off = q->len = 0;
		c->sent_ms = mono_ms();
		if (c->closing)
			return -ECONNABORTED;
	}
	want = outq_pending(q) > 0;
	if (want != c->epollout) {
		c->epollout = want;
		return conn_epoll(d, c, EPOLL_CTL_MOD);
	}
	return 0;
}

static int peer_creds(struct conn *c)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t *groups = NULL, *tmp;
	size_t n = 32;

	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return -errno;
	c->pid = cred.pid;
	c->uid = cred.uid;
	c->gid = cred.gid;
	/* SO_PEERGROUPS (Linux 4.13) says ERANGE and the size needed when short */
	for (;;) {
		tmp = realloc(groups, n * sizeof(*groups));
		if (!tmp) {
			free(groups);
			return -ENOMEM;
		}
		groups = tmp;
		len = (socklen_t)(n * sizeof(*groups));
		if (!getsockopt(c->fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
			break;
		if (errno != ERANGE || len / sizeof(*groups) <= n || n >= 65536) {
			free(groups);
			return -errno;
		}
		n = len / sizeof(*groups);
	}
	c->groups = groups;
	c->nr_groups = len / sizeof(*groups);
	return 0;
}

/*
 * Why c may not connect, or NULL. Root is never refused (but for the hard
 * cap): one user's idle connections must not lock out the one who can fix
 * things. The others share max_clients, each user at most max_clients_per_uid.
 */
static const char *conn_limit(const struct daemon *d, const struct conn *c)
{
	static char why[160];
	size_t all = 0, mine = 0, i;

	if (d->nr_conns >= MAX_CONNS) {
		snprintf(why, sizeof(why), "too many connections to fxsamplerd (at most %d)",
			 MAX_CONNS);
		return why;
	}
	if (c->uid == 0)
		return NULL;
	for (i = 0; i < d->nr_conns; i++) {
		if (d->conns[i]->dead || d->conns[i]->uid == 0)
			continue;
		all++;
		mine += d->conns[i]->uid == c->uid;
	}
	if (mine >= d->cfg.max_clients_per_uid) {
		snprintf(why, sizeof(why),
			 "too many connections to fxsamplerd from uid %u (at most %u per user)",
			 (unsigned)c->uid, d->cfg.max_clients_per_uid);
		return why;
	}
	if (all >= d->cfg.max_clients) {
		snprintf(why, sizeof(why), "too many connections to fxsamplerd (at most %u)",
			 d->cfg.max_clients);
		return why;
	}
	return NULL;
}

/*
 * Process the hangups the loop has not seen yet: a client that closed its
 * connection and connects again must not count twice against the limits.
 * Whatever a connection sent before it hung up is acted on first. Returns
 * how many connections this found dead.
 */
static size_t settle_hangups(struct daemon *d)
{
	struct pollfd pfd = {.events = POLLRDHUP};
	size_t i, n = 0;

	for (i = 0; i < d->nr_conns; i++) {
		struct conn *c = d->conns[i];

		if (c->dead)
			continue;
		pfd.fd = c->fd;
		pfd.revents = 0;
		if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)))
			continue;
		if (conn_read(d, c)) {
			c->dead = true;
			n++;
		}
	}
	return n;
}

/* Log a refusal, at most once per uid per REFUSAL_LOG_MS (see struct refusal_log). */
static void log_refusal(struct daemon *d, const struct conn *c, const char *why)
{
	struct refusal_log *e = NULL, *oldest = &d->refusals[0];
	uint64_t now = mono_ms();
	size_t i;

	for (i = 0; i < REFUSAL_UIDS && !e; i++) {
		if (d->refusals[i].logged_ms && d->refusals[i].uid == c->uid)
			e = &d->refusals[i];
		else if (d->refusals[i].logged_ms < oldest->logged_ms)
			oldest = &d->refusals[i];
	}
	if (e && now - e->logged_ms < REFUSAL_LOG_MS) {
		e->suppressed++;
		return;
	}
	if (e && e->suppressed)
		log_warn("refusing pid %d (uid %u): %s (and %" PRIu64
			 " more of uid %u's connections in the last %.0f s)",
			 (int)c->pid, (unsigned)c->uid, why, e->suppressed, (unsigned)c->uid,
			 (now - e->logged_ms) / 1000.0);
	else
		log_warn("refusing pid %d (uid %u): %s", (int)c->pid, (unsigned)c->uid, why);
	if (!e)
		e = oldest;
	*e = (struct refusal_log){.uid = c->uid, .logged_ms = now ? now : 1};
}

/*
 * Connections taken in one turn of the loop: the rest wait in the backlog
 * (the listening socket stays readable) until the turn's hangups are reaped,
 * so that a client connecting and closing in a loop cannot fill the table
 * with connections already gone.
 */
#define ACCEPT_BATCH 64

void conns_accept(struct daemon *d)
{
	const char *limit;
	struct conn *c;
	int fd, err;

	for (int taken = 0; taken < ACCEPT_BATCH; taken++) {
		fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warn("cannot accept a connection: %s", strerror(errno));
			return;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			log_err("cannot accept a connection: %s", strerror(ENOMEM));
			close(fd);
			continue;
		}
		c->fd = fd;
		err = peer_creds(c);
		if (err) {
			log_warn("cannot read a peer's credentials: %s", strerror(-err));
			conn_free(c);
			continue;
		}
		limit = conn_limit(d, c);
		if (limit && settle_hangups(d))
			limit = conn_limit(d, c);
		if (limit) {
			log_refusal(d, c, limit);
			reply_error(c, 0, FXS_ERR_INTERNAL, -EMFILE, 0, 0, "%s", limit);
			/* a fresh socket's buffer takes one small message */
			send(c->fd, c->out.data, c->out.len, MSG_NOSIGNAL | MSG_DONTWAIT);
			conn_free(c);
			continue;
		}
		c->msg_ms = c->sent_ms = mono_ms();
		err = conn_epoll(d, c, EPOLL_CTL_ADD);
		if (err) {
			log_err("cannot watch a connection: %s", strerror(-err));
			conn_free(c);
			continue;
		}
		d->conns[d->nr_conns++] = c;
		log_debug("connection of pid %d (uid %u, gid %u)", (int)c->pid, (unsigned)c->uid,
			  (unsigned)c->gid);
	}
}

/* Read what the client sent and act on every whole message in it. */
int conn_read(struct daemon *d, struct conn *c)
{
	struct fxs_msg m;
	size_t frame, off;
	ssize_t n;
	int err;

	for (;;) {
		n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		if (!n)
			return -ECONNRESET;
		if (!c->in_len)
			c->partial_ms = mono_ms();
		c->in_len += (size_t)n;
		off = 0;
		while (!c->closing) {
			err = protocol_frame_len(c->in + off, c->in_len - off, &frame);
			if (err == -EAGAIN || (!err && c->in_len - off < frame))
				break;
			if (err) {
				/* a bad header loses the framing: say so and hang up */
				reply_error(
					c, 0, FXS_ERR_BAD_MESSAGE, -EBADMSG, 0, 0,
					"malformed message header (protocol version %d, at most "
					"%d bytes)",
					FXS_PROTO_VERSION, FXS_PROTO_MAX_MSG);
				log_warn("pid %d (uid %u) sent a malformed message header, "
					 "closing its connection",
					 (int)c->pid, (unsigned)c->uid);
				c->closing = true;
				break;
			}
			if (protocol_decode(c->in + off, frame, &m))
				reply_error(c, 0, FXS_ERR_BAD_MESSAGE, -EBADMSG, 0, 0,
					    "malformed %s message",
					    protocol_type_name(c->in[off + 6] |
							       (unsigned)c->in[off + 7] << 8));
			else
				handle_request(d, c, &m);
			off += frame;
			c->msg_ms = c->partial_ms = mono_ms();
			c->spoke = true;
		}
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
		if (c->closing)
			return conn_epoll(d, c, EPOLL_CTL_MOD);
	}
}

/* Say why, and close once that is sent (or CLOSE_GRACE_MS passed). */
void conn_hang_up(struct daemon *d, struct conn *c, const char *why)
{
	log_info("closing the connection of pid %d (uid %u): %s", (int)c->pid, (unsigned)c->uid,
		 why);
	reply_error(c, 0, FXS_ERR_INTERNAL, -ETIMEDOUT, 0, 0, "%s", why);
	c->closing = true;
	c->close_by_ms = mono_ms() + CLOSE_GRACE_MS;
	conn_epoll(d, c, EPOLL_CTL_MOD);
}

/*
 * Connections are closed only here, between turns of the loop, so that no
 * event still in hand can name a connection already freed.
 */
void conns_reap(struct daemon *d)
{
	size_t i = 0;

	while (i < d->nr_conns) {
		if (d->conns[i]->dead) {
			conn_close(d, d->conns[i]);
			continue;
		}
		i++;
	}
}

void conns_flush(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nr_conns; i++) {
		if (!d->conns[i]->dead && conn_flush(d, d->conns[i]))
			d->conns[i]->dead = true;
	}
	conns_reap(d);
}
