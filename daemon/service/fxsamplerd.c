// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxsamplerd: owns the host's one sampler and lends it, one session at a time,
 * to clients on a Unix socket (docs/PROTOCOL.md), streaming the FXT bytes back
 * to them; optionally keeps a low-rate host-wide capture in rotating files
 * when nobody else is sampling.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>

#include "util/io.h"
#include "util/clock.h"
#include "capture/authz.h"
#include "capture/capture.h"
#include "cli/client.h"
#include "service/daemon_config.h"
#include "capture/guard.h"
#include "capture/kfeatures.h"
#include "service/protocol.h"
#include "service/rotate.h"

#ifndef FXS_VERSION
#define FXS_VERSION "unknown"
#endif

/* Samples sit in the rings until drained: often enough that they never fill. */
#define DRAIN_MS 100
/* While a client has this much unsent, its rings are not drained (they drop and count). */
#define OUT_HIGH_WATER (8u << 20)
/* A client that lets this much pile up is cut off. */
#define OUT_HARD_LIMIT (256u << 20)
/* How long the rest of a stream may take to reach its client at shutdown. */
#define SHUTDOWN_FLUSH_MS 5000
/* How soon continuous mode tries again after it could not start. */
#define CONT_RETRY_S 10
/*
 * Whole records reach the continuous file at every drain; this often they
 * are made durable too, so that a crash or a power cut loses seconds.
 */
#define CONT_SYNC_MS 5000
#define MAX_CONNS    1024
/* How long a connection being closed gets to take its last messages. */
#define CLOSE_GRACE_MS 5000
/* How often the timeouts are looked at while connections are open. */
#define SWEEP_MS 500

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reload_requested;
static bool verbose;
static bool journal;

enum { LOG_ERR_ = 3, LOG_WARN_ = 4, LOG_INFO_ = 6, LOG_DEBUG_ = 7 };

static void vlog(int level, const char *fmt, va_list ap)
{
	static const char *const words[] = {
		[3] = "error: ", [4] = "warning: ", [6] = "", [7] = "debug: "};

	if (level == LOG_DEBUG_ && !verbose)
		return;
	if (journal)
		fprintf(stderr, "<%d>", level);
	else
		fprintf(stderr, "fxsamplerd: %s", words[level]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void log_at(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void log_at(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

#define log_err(...)   log_at(LOG_ERR_, __VA_ARGS__)
#define log_warn(...)  log_at(LOG_WARN_, __VA_ARGS__)
#define log_info(...)  log_at(LOG_INFO_, __VA_ARGS__)
#define log_debug(...) log_at(LOG_DEBUG_, __VA_ARGS__)

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	if (journal)
		fprintf(stderr, "<%d>", level == LIBBPF_WARN ? LOG_WARN_ : LOG_DEBUG_);
	return vfprintf(stderr, fmt, ap);
}

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
	uint64_t started_ms; /* START, for max_session_length */
	/* continuous mode */
	int file_fd;
	char name[64]; /* rotate_file_name() makes 40 */
	uint64_t file_bytes;
	int64_t started_s;
	int sink_err;
	uint64_t synced_bytes; /* file_bytes at the last fdatasync */
	uint64_t synced_ms;
};

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
};

static const char listen_tag[] = "listen";

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

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

static size_t outq_pending(const struct outq *q)
{
	return q->len - q->off;
}

static int queue_msg(struct conn *c, const struct fxs_msg *m)
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
static int conn_sink(void *ctx, const void *data, size_t len)
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

static void reply_ok(struct conn *c, unsigned request)
{
	struct fxs_msg m = {.type = FXS_MSG_OK};

	m.ok.request = (uint16_t)request;
	if (queue_msg(c, &m))
		c->closing = true;
}

static void reply_error(struct conn *c, unsigned request, unsigned kind, int err, pid_t hpid,
			uid_t huid, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void reply_error(struct conn *c, unsigned request, unsigned kind, int err, pid_t hpid,
			uid_t huid, const char *fmt, ...)
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

static void reply_end(struct conn *c, unsigned reason)
{
	struct fxs_msg m = {.type = FXS_MSG_END};

	m.end.reason = reason;
	if (queue_msg(c, &m))
		c->closing = true;
}

/* --- connections --- */

static int conn_epoll(struct daemon *d, struct conn *c, int op)
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

static void session_clear(struct session *s)
{
	capture__free(s->cap);
	s->cap = NULL;
	s->owner = NULL;
	s->state = FXS_SESSION_NONE;
	s->holder_pid = 0;
	s->holder_uid = 0;
}

static void conn_close(struct daemon *d, struct conn *c)
{
	size_t i;

	if (d->sess.cap && d->sess.owner == c) {
		log_info("client pid %d (uid %u) went away, destroying its %s session", (int)c->pid,
			 (unsigned)c->uid, protocol_session_name(d->sess.state));
		session_clear(&d->sess);
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

static void accept_conns(struct daemon *d)
{
	const char *limit;
	struct conn *c;
	int fd, err;

	for (;;) {
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
		if (limit) {
			log_warn("refusing pid %d (uid %u): %s", (int)c->pid, (unsigned)c->uid,
				 limit);
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

/* --- continuous mode --- */

static int file_sink(void *ctx, const void *data, size_t len)
{
	struct session *s = ctx;

	s->sink_err = write_all(s->file_fd, data, len);
	if (!s->sink_err)
		s->file_bytes += len;
	return s->sink_err;
}

static int open_dir(const struct daemon *d)
{
	int fd = open(d->cfg.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && !mkdir(d->cfg.directory, 0750))
		fd = open(d->cfg.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* "3h05m" */
static void fmt_age(char *buf, size_t len, int64_t age_s)
{
	if (age_s < 0)
		age_s = 0;
	if (age_s >= 86400)
		snprintf(buf, len, "%lldd%02lldh", (long long)(age_s / 86400),
			 (long long)(age_s % 86400 / 3600));
	else if (age_s >= 3600)
		snprintf(buf, len, "%lldh%02lldm", (long long)(age_s / 3600),
			 (long long)(age_s % 3600 / 60));
	else if (age_s >= 60)
		snprintf(buf, len, "%lldm%02llds", (long long)(age_s / 60),
			 (long long)(age_s % 60));
	else
		snprintf(buf, len, "%llds", (long long)age_s);
}

/*
 * Delete the oldest files so that one more fits in the budget, never the file
 * completed last; own (the file being written) is not counted. Every deletion
 * is logged with why.
 */
static void cont_prune(struct daemon *d, int dfd, const char *own)
{
	struct rotate_policy pol = {d->cfg.max_file_size, d->cfg.max_file_age_s,
				    d->cfg.max_total_size};
	struct rotate_file *files = NULL;
	uint64_t total = d->cfg.max_file_size;
	size_t nr = 0, del, i, j;
	int64_t now = time(NULL);
	char age[32];
	int err;

	err = rotate_list(d->cfg.directory, &files, &nr);
	if (err) {
		log_warn("cannot list '%s': %s", d->cfg.directory, strerror(-err));
		return;
	}
	for (i = j = 0; i < nr; i++)
		if (strcmp(files[i].name, own))
			files[j++] = files[i];
	nr = j;
	for (i = 0; i < nr; i++)
		total += files[i].size;
	del = rotate_plan(&pol, files, nr, d->cfg.max_file_size,
			  d->cont_last[0] ? d->cont_last : NULL);
	for (i = 0; i < del; i++) {
		fmt_age(age, sizeof(age), now - files[i].mtime_s);
		if (unlinkat(dfd, files[i].name, 0) && errno != ENOENT) {
			log_warn("cannot delete '%s/%s': %s", d->cfg.directory, files[i].name,
				 strerror(errno));
			continue;
		}
		log_info("deleted '%s/%s' (%s old, %llu bytes), the oldest, for the disk budget: "
			 "%zu files and %llu bytes reserved for the next came to %llu bytes, over "
			 "max_total_size = %llu",
			 d->cfg.directory, files[i].name, age, (unsigned long long)files[i].size,
			 nr, (unsigned long long)d->cfg.max_file_size, (unsigned long long)total,
			 (unsigned long long)d->cfg.max_total_size);
	}
	free(files);
}

/* The new name, without replacing a file that has it already. */
static int rename_noreplace(int dfd, const char *from, const char *to)
{
	if (!renameat2(dfd, from, dfd, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* A file system without RENAME_NOREPLACE: check, then rename. */
	if (!faccessat(dfd, to, F_OK, AT_SYMLINK_NOFOLLOW))
		return -EEXIST;
	return renameat(dfd, from, dfd, to) ? -errno : 0;
}

/*
 * A partial file a daemon left when it was killed: cut it to its last whole
 * record and give it its complete name, or delete it when it holds no record
 * beyond the FXT header.
 */
static void cont_salvage_one(struct daemon *d, int dfd, const char *name)
{
	struct rotate_salvage sv = {0};
	char done[NAME_MAX + 1];
	struct timespec times[2];
	struct stat st;
	void *map;
	int fd, err;

	if (rotate_complete_name(name, done, sizeof(done)))
		return;
	fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		log_warn("cannot salvage '%s/%s': %s", d->cfg.directory, name,
			 fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			log_warn("cannot salvage '%s/%s': %s", d->cfg.directory, name,
				 strerror(errno));
			close(fd);
			return;
		}
		rotate_salvage_scan(map, (uint64_t)st.st_size, &sv);
		munmap(map, (size_t)st.st_size);
	}
	if (!sv.records) {
		close(fd);
		if (unlinkat(dfd, name, 0) && errno != ENOENT)
			log_warn("cannot delete '%s/%s': %s", d->cfg.directory, name,
				 strerror(errno));
		else
			log_info("deleted '%s/%s' (%llu bytes) left by a daemon that did not "
				 "finish it: it holds no whole record beyond the FXT header",
				 d->cfg.directory, name, (unsigned long long)st.st_size);
		return;
	}
	err = 0;
	if ((uint64_t)st.st_size > sv.keep && ftruncate(fd, (off_t)sv.keep))
		err = -errno;
	/* The budget deletes the oldest first: the file keeps its age. */
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	if (!err && (futimens(fd, times) || fsync(fd)))
		err = -errno;
	close(fd);
	if (!err)
		err = rename_noreplace(dfd, name, done);
	if (err) {
		log_warn("cannot salvage '%s/%s': %s", d->cfg.directory, name, strerror(-err));
		return;
	}
	log_info("salvaged '%s/%s' left by a daemon that did not finish it: '%s' keeps %llu "
		 "bytes (%llu records), %llu bytes of a cut record dropped",
		 d->cfg.directory, name, done, (unsigned long long)sv.keep,
		 (unsigned long long)sv.records, (unsigned long long)(st.st_size - sv.keep));
	if (!d->cont_last[0] || st.st_mtim.tv_sec >= d->cont_last_mtime) {
		strcpy(d->cont_last, done);
		d->cont_last_mtime = st.st_mtim.tv_sec;
	}
}

/*
 * Salvage the partial files of the directory but own (the one this daemon
 * writes). Called holding the host's sampler lock: no other capture is
 * writing any of them.
 */
static void cont_salvage(struct daemon *d, int dfd, const char *own)
{
	struct rotate_file *files = NULL;
	size_t nr = 0, i;
	int err;

	err = rotate_list(d->cfg.directory, &files, &nr);
	if (err) {
		log_warn("cannot list '%s': %s", d->cfg.directory, strerror(-err));
		return;
	}
	for (i = 0; i < nr; i++)
		if (files[i].partial && strcmp(files[i].name, own))
			cont_salvage_one(d, dfd, files[i].name);
	free(files);
}

/* Finish the continuous file: complete it, release the sampler, then name it. */
static void cont_finish(struct daemon *d)
{
	struct session *s = &d->sess;
	char part[NAME_MAX + 1];
	int err, dfd;

	if (!s->cap || s->owner)
		return;
	err = capture_finish(s->cap);
	session_clear(s);
	if (!err && fsync(s->file_fd))
		err = -errno;
	close(s->file_fd);
	s->file_fd = -1;
	snprintf(part, sizeof(part), "%s%s", s->name, ROTATE_PARTIAL);
	dfd = open_dir(d);
	if (dfd < 0) {
		log_err("cannot open '%s': %s", d->cfg.directory, strerror(-dfd));
		return;
	}
	if (err) {
		/* what it holds up to the failure is kept, cut to its last whole record */
		log_err("continuous capture '%s' failed: %s; salvaging what it holds", s->name,
			strerror(-err));
		cont_salvage_one(d, dfd, part);
	} else if (renameat(dfd, part, dfd, s->name)) {
		log_err("cannot rename '%s/%s': %s", d->cfg.directory, part, strerror(errno));
	} else {
		log_info("wrote '%s/%s' (%llu bytes)", d->cfg.directory, s->name,
			 (unsigned long long)s->file_bytes);
		strcpy(d->cont_last, s->name);
		d->cont_last_mtime = time(NULL);
	}
	close(dfd);
}

static void cont_start(struct daemon *d)
{
	struct session *s = &d->sess;
	struct capture_opts o = {
		.freq_hz = d->cfg.continuous_freq_hz,
		.buffer_size = d->cfg.buffer_size,
		.max_frames = d->cfg.max_frames,
	};
	char part[NAME_MAX + 1];
	pid_t holder = 0;
	int dfd, fd, err;

	if (!d->cfg.continuous || s->cap || stop_requested || mono_s() < d->cont_retry_at)
		return;
	dfd = open_dir(d);
	if (dfd < 0) {
		log_err("continuous mode: cannot open '%s': %s", d->cfg.directory, strerror(-dfd));
		d->cont_retry_at = mono_s() + CONT_RETRY_S;
		return;
	}
	err = rotate_file_name(s->name, sizeof(s->name), time(NULL), d->cont_seq++);
	if (!err &&
	    snprintf(part, sizeof(part), "%s%s", s->name, ROTATE_PARTIAL) >= (int)sizeof(part))
		err = -ENAMETOOLONG;
	if (err)
		goto fail;
	fd = openat(dfd, part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	s->file_fd = fd;
	s->file_bytes = 0;
	s->sink_err = 0;
	s->synced_bytes = 0;
	s->synced_ms = mono_ms();
	err = capture__new(&o, file_sink, s, &s->cap, &holder);
	if (!err) {
		/* The sampler lock is ours now: no other capture writes in the directory. */
		cont_salvage(d, dfd, part);
		cont_prune(d, dfd, part);
		err = capture_start(s->cap);
		if (err) {
			capture__free(s->cap);
			s->cap = NULL;
		}
	}
	if (err) {
		close(fd);
		s->file_fd = -1;
		unlinkat(dfd, part, 0);
		goto fail;
	}
	close(dfd);
	s->owner = NULL;
	s->state = FXS_SESSION_RUNNING;
	s->holder_pid = getpid();
	s->holder_uid = geteuid();
	s->opts = o;
	s->started_s = mono_s();
	s->next_drain_ms = mono_ms() + DRAIN_MS;
	d->cont_warned = false;
	log_info("continuous capture at %llu Hz into '%s/%s'", (unsigned long long)o.freq_hz,
		 d->cfg.directory, s->name);
	return;
fail:
	close(dfd);
	d->cont_retry_at = mono_s() + CONT_RETRY_S;
	if (!d->cont_warned) {
		if (err == -EBUSY)
			log_warn("continuous mode waits: the sampler is held by pid %d",
				 (int)holder);
		else
			log_err("continuous mode cannot start: %s", strerror(-err));
	}
	d->cont_warned = true;
}

static void cont_tick(struct daemon *d)
{
	struct session *s = &d->sess;
	struct rotate_policy pol = {d->cfg.max_file_size, d->cfg.max_file_age_s,
				    d->cfg.max_total_size};

	if (s->cap && !s->owner && rotate_due(&pol, s->file_bytes, s->started_s, mono_s())) {
		cont_finish(d);
		d->cont_retry_at = 0;
	}
	if (s->cap && !s->owner && s->file_bytes != s->synced_bytes &&
	    mono_ms() >= s->synced_ms + CONT_SYNC_MS) {
		if (fdatasync(s->file_fd))
			log_warn("cannot sync '%s/%s%s': %s", d->cfg.directory, s->name,
				 ROTATE_PARTIAL, strerror(errno));
		s->synced_bytes = s->file_bytes;
		s->synced_ms = mono_ms();
	}
	cont_start(d);
}

/* --- requests --- */

/* A target of a client's session left its reach: the client is told, once per pid. */
static void session_notice(void *ctx, uint32_t pid, const char *text)
{
	struct session *s = ctx;
	struct fxs_msg m = {.type = FXS_MSG_NOTICE};

	if (!s->owner)
		return;
	log_info("session of pid %d (uid %u): %s", (int)s->owner->pid, (unsigned)s->owner->uid,
		 text);
	m.notice.kind = FXS_NOTICE_TARGET_LEFT;
	m.notice.pid = pid;
	snprintf(m.notice.text, sizeof(m.notice.text), "%s", text);
	if (queue_msg(s->owner, &m))
		s->owner->closing = true;
}

/*
 * A session for a non-root client with targets samples them only while they
 * stay fully its own (capture_opts.check_creds). Its capabilities are those
 * the client process has now; a host-wide session (root or the group) is not
 * limited.
 */
static void limit_to_client(struct session *s, const struct conn *c, struct capture_opts *o)
{
	struct authz_owner peer;

	if (c->uid == 0 || !o->nr_pids)
		return;
	o->check_creds = true;
	o->uid = (uint32_t)c->uid;
	o->caps = 0;
	if (!authz_proc_owner("/proc", c->pid, &peer) && peer.has_caps && peer.ruid == c->uid &&
	    peer.euid == c->uid && peer.suid == c->uid)
		o->caps = peer.cap_prm;
	o->notice = session_notice;
	o->notice_ctx = s;
}

static bool own_session(struct daemon *d, struct conn *c)
{
	return d->sess.cap && d->sess.owner == c;
}

static void handle_setup(struct daemon *d, struct conn *c, const struct fxs_msg_setup *req)
{
	struct authz_creds cr = {c->pid, c->uid, c->gid, c->groups, c->nr_groups};
	pid_t pids[FXS_PROTO_MAX_PIDS], holder = 0;
	struct session *s = &d->sess;
	struct authz_owner owner = {0};
	char reason[FXS_PROTO_MAX_TEXT];
	struct capture_opts o;
	size_t pending;
	unsigned i;
	int err;

	if (own_session(d, c)) {
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_BAD_STATE, -EALREADY, 0, 0,
			    "this connection already has a session (destroy it first)");
		return;
	}
	if (s->cap && s->owner) {
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_ALREADY_EXISTS, -EBUSY, s->holder_pid,
			    s->holder_uid, "the sampler is busy: held by pid %d (uid %u)",
			    (int)s->holder_pid, (unsigned)s->holder_uid);
		return;
	}
	if (protocol_setup_to_opts(req, &o)) {
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_INVALID_ARGS, -EINVAL, 0, 0,
			    "invalid capture options");
		return;
	}
	if (!o.period_ns == !o.freq_hz) {
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_INVALID_ARGS, -EINVAL, 0, 0,
			    "give exactly one of a period and a frequency");
		return;
	}
	for (i = 0; i < o.nr_pids; i++)
		pids[i] = (pid_t)o.pids[i];
	reason[0] = '\0';
	err = authz_check_request(&d->pol, &cr, "/proc", pids, o.nr_pids, reason, sizeof(reason));
	if (err) {
		reply_error(c, FXS_MSG_SETUP,
			    err == -EACCES   ? FXS_ERR_ACCESS_DENIED
			    : err == -ESRCH  ? FXS_ERR_NOT_FOUND
			    : err == -EINVAL ? FXS_ERR_INVALID_ARGS
					     : FXS_ERR_INTERNAL,
			    err, 0, 0, "%s", reason);
		if (err == -EACCES)
			log_info("denied pid %d (uid %u): %s", (int)c->pid, (unsigned)c->uid,
				 reason);
		return;
	}
	if (s->cap) {
		log_info("pausing continuous mode for pid %d (uid %u)", (int)c->pid,
			 (unsigned)c->uid);
		cont_finish(d);
	}
	/*
	 * The prologue is queued by the sink during setup: drop it if setup
	 * fails. Nothing is sent meanwhile, so the bytes queued before stay the
	 * first pending ones even if the queue is compacted.
	 */
	pending = outq_pending(&c->out);
	limit_to_client(s, c, &o);
	err = capture__new(&o, conn_sink, c, &s->cap, &holder);
	if (err) {
		s->cap = NULL;
		c->out.len = c->out.off + pending;
		switch (err) {
		case -EBUSY:
			if (holder > 0)
				authz_proc_owner("/proc", holder, &owner);
			reply_error(
				c, FXS_MSG_SETUP, FXS_ERR_ALREADY_EXISTS, err, holder, owner.ruid,
				"the sampler is busy: held by pid %d (uid %u) outside fxsamplerd",
				(int)holder, (unsigned)owner.ruid);
			break;
		case -EINVAL:
			reply_error(
				c, FXS_MSG_SETUP, FXS_ERR_INVALID_ARGS, err, 0, 0,
				"invalid capture options: the period or frequency, buffer size "
				"(a power of two, at least a page) or max frames (1..%d) is out "
				"of range",
				FXS_MAX_FRAMES);
			break;
		case -ESRCH:
			reply_error(c, FXS_MSG_SETUP, FXS_ERR_NOT_FOUND, err, 0, 0,
				    "a target process exited");
			break;
		case -EACCES:
			/* it changed between the check above and its pidfd */
			reply_error(c, FXS_MSG_SETUP, FXS_ERR_ACCESS_DENIED, err, 0, 0,
				    "a target process changed credentials: it is not uid %u's",
				    (unsigned)c->uid);
			break;
		default:
			reply_error(c, FXS_MSG_SETUP, FXS_ERR_INTERNAL, err, 0, 0,
				    "fxsamplerd cannot set up the sampler: %s", strerror(-err));
			log_err("cannot set up a capture for pid %d: %s", (int)c->pid,
				strerror(-err));
			break;
		}
		/* continuous mode resumes by itself */
		return;
	}
	s->owner = c;
	s->state = FXS_SESSION_CONFIGURED;
	s->holder_pid = c->pid;
	s->holder_uid = c->uid;
	s->opts = o;
	log_info("session for pid %d (uid %u): %s, %u target%s", (int)c->pid, (unsigned)c->uid,
		 o.nr_pids ? "pids" : "host-wide", o.nr_pids, o.nr_pids == 1 ? "" : "s");
	reply_ok(c, FXS_MSG_SETUP);
}

static void bad_state(struct conn *c, unsigned request, const struct session *s, bool own,
		      const char *want)
{
	reply_error(c, request, FXS_ERR_BAD_STATE, -EINVAL, 0, 0, "%s: %s, not %s",
		    protocol_type_name(request),
		    own ? protocol_session_name(s->state) : "this connection has no session", want);
}

/* Stop and finish a client's capture: the stream is complete after this. */
static int session_end(struct session *s, unsigned reason)
{
	int err = 0;

	if (s->state == FXS_SESSION_RUNNING)
		err = capture_stop(s->cap);
	if (!err)
		err = capture_finish(s->cap);
	s->state = FXS_SESSION_STOPPED;
	if (!err)
		reply_end(s->owner, reason);
	return err;
}

static void handle_request(struct daemon *d, struct conn *c, const struct fxs_msg *m)
{
	struct session *s = &d->sess;
	bool own = own_session(d, c);
	struct capture_stats st;
	struct fxs_msg r;
	int err;

	switch (m->type) {
	case FXS_MSG_SETUP:
		handle_setup(d, c, &m->setup);
		return;
	case FXS_MSG_START:
		if (!own || s->state != FXS_SESSION_CONFIGURED) {
			bad_state(c, m->type, s, own, "configured");
			return;
		}
		err = capture_start(s->cap);
		if (err) {
			reply_error(c, m->type, FXS_ERR_INTERNAL, err, 0, 0,
				    "cannot start sampling: %s", strerror(-err));
			return;
		}
		s->state = FXS_SESSION_RUNNING;
		s->next_drain_ms = mono_ms() + DRAIN_MS;
		s->started_ms = mono_ms();
		reply_ok(c, m->type);
		return;
	case FXS_MSG_STOP:
		if (!own || s->state != FXS_SESSION_RUNNING) {
			bad_state(c, m->type, s, own, "running");
			return;
		}
		err = session_end(s, FXS_END_STOPPED);
		if (err) {
			reply_error(c, m->type, FXS_ERR_INTERNAL, err, 0, 0,
				    "cannot stop sampling: %s", strerror(-err));
			return;
		}
		reply_ok(c, m->type);
		return;
	case FXS_MSG_READ:
		if (!own) {
			bad_state(c, m->type, s, own, "a session");
			return;
		}
		if (s->state != FXS_SESSION_STOPPED) {
			err = capture_poll(s->cap, 0);
			if (err < 0) {
				reply_error(c, m->type, FXS_ERR_INTERNAL, err, 0, 0,
					    "cannot read the buffers: %s", strerror(-err));
				return;
			}
		}
		reply_ok(c, m->type);
		return;
	case FXS_MSG_DESTROY:
		if (!own) {
			bad_state(c, m->type, s, own, "a session");
			return;
		}
		log_info("session of pid %d (uid %u) destroyed", (int)c->pid, (unsigned)c->uid);
		session_clear(s);
		reply_ok(c, m->type);
		return;
	case FXS_MSG_STATUS:
		memset(&r, 0, sizeof(r));
		r.type = FXS_MSG_STATUS_REPLY;
		if (s->cap && c->uid && c->uid != s->holder_uid) {
			/* not root and not the holder: whose it is, not what it sees */
			r.status.session = s->state;
			r.status.flags = FXS_STATUS_OTHERS | (s->owner ? 0 : FXS_STATUS_CONTINUOUS);
			r.status.holder_uid = (uint32_t)s->holder_uid;
		} else if (s->cap) {
			capture_stats(s->cap, &st);
			r.status.session = s->state;
			r.status.flags = (s->owner ? 0 : FXS_STATUS_CONTINUOUS) |
					 (s->owner == c ? FXS_STATUS_YOURS : 0);
			r.status.holder_pid = (uint32_t)s->holder_pid;
			r.status.holder_uid = (uint32_t)s->holder_uid;
			r.status.nr_cpus = st.nr_cpus;
			r.status.nr_pids = s->opts.nr_pids;
			r.status.period_ns = s->opts.period_ns;
			r.status.freq_hz = s->opts.freq_hz;
			r.status.processes = st.processes;
			r.status.threads = st.threads;
			r.status.bytes = st.bytes;
			r.status.counters = st.counters;
		}
		if (queue_msg(c, &r))
			c->closing = true;
		return;
	default:
		reply_error(c, 0, FXS_ERR_BAD_MESSAGE, -EBADMSG, 0, 0,
			    "unexpected %s message from a client", protocol_type_name(m->type));
		return;
	}
}

/* Read what the client sent and act on every whole message in it. */
static int conn_read(struct daemon *d, struct conn *c)
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

/* --- the listening socket --- */

static int listen_socket(struct daemon *d)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, n, err;

	n = sd_listen_fds(1);
	if (n > 1) {
		log_err("expected one socket from systemd, got %d", n);
		return -EINVAL;
	}
	if (n == 1) {
		fd = SD_LISTEN_FDS_START;
		if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
			log_err("the socket from systemd is not a listening Unix stream socket");
			return -EINVAL;
		}
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) ||
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
			return -errno;
		d->listen_fd = fd;
		d->own_socket = false;
		log_info("listening on the socket passed by systemd");
		return 0;
	}
	if (strlen(d->socket_path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, d->socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/*
	 * A socket left by a daemon that died is replaced; a live one (something
	 * answers on it) is not.
	 */
	if (!lstat(d->socket_path, &st) && S_ISSOCK(st.st_mode)) {
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (probe >= 0 && !connect(probe, (struct sockaddr *)&addr, sizeof(addr))) {
			close(probe);
			close(fd);
			log_err("another fxsamplerd is listening on '%s'", d->socket_path);
			return -EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
		unlink(d->socket_path);
	}
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		log_err("cannot bind '%s': %s", d->socket_path, strerror(-err));
		close(fd);
		return err;
	}
	/* anyone may connect: every request is authorized on its own */
	if (chmod(d->socket_path, 0666) || listen(fd, 64)) {
		err = -errno;
		log_err("cannot listen on '%s': %s", d->socket_path, strerror(-err));
		unlink(d->socket_path);
		close(fd);
		return err;
	}
	d->listen_fd = fd;
	d->own_socket = true;
	log_info("listening on '%s'", d->socket_path);
	return 0;
}

/* --- configuration --- */

static void load_policy(struct daemon *d)
{
	struct group *gr = getgrnam(AUTHZ_GROUP);

	d->pol.have_group = gr != NULL;
	d->pol.group_gid = gr ? gr->gr_gid : 0;
	if (!gr)
		log_debug("no group '%s': host-wide sampling is for root only", AUTHZ_GROUP);
}

static void reload(struct daemon *d)
{
	struct daemon_config cfg;
	char err[512];
	bool restart;

	sd_notify(0, "RELOADING=1");
	if (daemon_config_load(d->config_path, d->config_given, &cfg, err, sizeof(err))) {
		log_err("cannot reload the configuration, keeping the old one: %s", err);
		sd_notify(0, "READY=1");
		return;
	}
	if (!d->socket_given && strcmp(cfg.socket_path, d->cfg.socket_path))
		log_warn("the socket path changed to '%s': it takes a restart", cfg.socket_path);
	restart = cfg.continuous != d->cfg.continuous ||
		  cfg.continuous_freq_hz != d->cfg.continuous_freq_hz ||
		  cfg.buffer_size != d->cfg.buffer_size || cfg.max_frames != d->cfg.max_frames ||
		  strcmp(cfg.directory, d->cfg.directory);
	if (restart && d->sess.cap && !d->sess.owner)
		cont_finish(d);
	/* the socket in use stays the socket in use */
	strcpy(cfg.socket_path, d->cfg.socket_path);
	d->cfg = cfg;
	d->cont_retry_at = 0;
	d->cont_warned = false;
	load_policy(d);
	log_info("configuration reloaded from '%s'", d->config_path);
	sd_notify(0, "READY=1");
}

/* --- the loop --- */

static void drain(struct daemon *d)
{
	struct session *s = &d->sess;
	uint64_t now = mono_ms();
	int err;

	if (!s->cap || s->state != FXS_SESSION_RUNNING || now < s->next_drain_ms)
		return;
	s->next_drain_ms = now + DRAIN_MS;
	/* a client that does not keep up loses samples (counted), not the daemon's memory */
	if (s->owner && outq_pending(&s->owner->out) > OUT_HIGH_WATER)
		return;
	err = capture_poll(s->cap, 0);
	if (err >= 0)
		return;
	if (s->owner) {
		log_err("capture of pid %d failed: %s", (int)s->owner->pid, strerror(-err));
		reply_error(s->owner, 0, FXS_ERR_INTERNAL, err, 0, 0, "the capture failed: %s",
			    strerror(-err));
		s->owner->closing = true;
		conn_epoll(d, s->owner, EPOLL_CTL_MOD);
	} else {
		log_err("continuous capture failed: %s", strerror(-err));
		cont_finish(d);
		d->cont_retry_at = mono_s() + CONT_RETRY_S;
	}
}

/* Say why, and close once that is sent (or CLOSE_GRACE_MS passed). */
static void conn_hang_up(struct daemon *d, struct conn *c, const char *why)
{
	log_info("closing the connection of pid %d (uid %u): %s", (int)c->pid, (unsigned)c->uid,
		 why);
	reply_error(c, 0, FXS_ERR_INTERNAL, -ETIMEDOUT, 0, 0, "%s", why);
	c->closing = true;
	c->close_by_ms = mono_ms() + CLOSE_GRACE_MS;
	conn_epoll(d, c, EPOLL_CTL_MOD);
}

/*
 * A session's client that reads nothing, or one past max_session_length:
 * its capture is finished (the stream is complete if it ever reads it) and
 * the sampler is released for everyone else.
 */
static void end_session_early(struct daemon *d, unsigned reason, const char *why)
{
	struct session *s = &d->sess;
	struct conn *c = s->owner;
	int err;

	log_info("ending the session of pid %d (uid %u): %s", (int)c->pid, (unsigned)c->uid, why);
	err = s->state == FXS_SESSION_STOPPED ? 0 : session_end(s, reason);
	if (err)
		reply_error(c, 0, FXS_ERR_INTERNAL, err, 0, 0, "fxsamplerd ended the capture: %s",
			    why);
	/* the sampler is everyone's again at once; the stream waits in c's queue */
	session_clear(s);
	if (reason == FXS_END_STALLED) {
		c->closing = true;
		c->close_by_ms = mono_ms() + CLOSE_GRACE_MS;
		conn_epoll(d, c, EPOLL_CTL_MOD);
	}
}

/* The timeouts: handshakes, idle connections, clients that do not read, long sessions. */
static void sweep(struct daemon *d)
{
	const struct daemon_config *cfg = &d->cfg;
	struct session *s = &d->sess;
	uint64_t now = mono_ms();
	char why[160];
	size_t i;

	for (i = 0; i < d->nr_conns; i++) {
		struct conn *c = d->conns[i];
		bool own = s->cap && s->owner == c;

		if (c->dead)
			continue;
		if (c->closing) {
			if (c->close_by_ms && now >= c->close_by_ms)
				c->dead = true;
			continue;
		}
		if (own && outq_pending(&c->out) &&
		    now - c->sent_ms >= cfg->client_read_timeout_s * 1000) {
			snprintf(why, sizeof(why), "the client read nothing for %llu s",
				 (unsigned long long)cfg->client_read_timeout_s);
			end_session_early(d, FXS_END_STALLED, why);
			continue;
		}
		if (own && s->state == FXS_SESSION_RUNNING && cfg->max_session_length_s &&
		    now - s->started_ms >= cfg->max_session_length_s * 1000) {
			snprintf(why, sizeof(why),
				 "the session reached max_session_length (%llu s)",
				 (unsigned long long)cfg->max_session_length_s);
			end_session_early(d, FXS_END_LIMIT, why);
			continue;
		}
		if (c->in_len && now - c->partial_ms >= cfg->handshake_timeout_s * 1000) {
			snprintf(why, sizeof(why), "a message was not completed within %llu s",
				 (unsigned long long)cfg->handshake_timeout_s);
			conn_hang_up(d, c, why);
		} else if (!c->spoke && now - c->msg_ms >= cfg->handshake_timeout_s * 1000) {
			snprintf(why, sizeof(why), "no request within %llu s of connecting",
				 (unsigned long long)cfg->handshake_timeout_s);
			conn_hang_up(d, c, why);
		} else if ((!own || s->state != FXS_SESSION_RUNNING) && cfg->idle_timeout_s &&
			   now - c->msg_ms >= cfg->idle_timeout_s * 1000) {
			/* a session set up or stopped and left there holds the sampler too */
			snprintf(why, sizeof(why), "idle for %llu s",
				 (unsigned long long)cfg->idle_timeout_s);
			conn_hang_up(d, c, why);
		}
	}
}

static int timeout_ms(const struct daemon *d)
{
	const struct session *s = &d->sess;
	uint64_t now = mono_ms();
	int t = -1;

	if (s->cap && s->state == FXS_SESSION_RUNNING)
		t = s->next_drain_ms > now ? (int)(s->next_drain_ms - now) : 0;
	else if (d->cfg.continuous)
		t = CONT_RETRY_S * 1000;
	if (d->nr_conns && (t < 0 || t > SWEEP_MS))
		t = SWEEP_MS;
	return t;
}

/*
 * Connections are closed only here, between turns of the loop, so that no
 * event still in hand can name a connection already freed.
 */
static void reap(struct daemon *d)
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

static void flush_all(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nr_conns; i++) {
		if (!d->conns[i]->dead && conn_flush(d, d->conns[i]))
			d->conns[i]->dead = true;
	}
	reap(d);
}

/* SIGTERM: every stream is finished, and gets a bounded time to reach its client. */
static void shutdown_daemon(struct daemon *d)
{
	struct session *s = &d->sess;
	uint64_t deadline = mono_ms() + SHUTDOWN_FLUSH_MS;
	struct epoll_event evs[16];
	int err, n, i;

	sd_notify(0, "STOPPING=1");
	if (s->cap && !s->owner) {
		cont_finish(d);
	} else if (s->cap && s->state != FXS_SESSION_STOPPED) {
		log_info("stopping the session of pid %d (uid %u)", (int)s->owner->pid,
			 (unsigned)s->owner->uid);
		err = session_end(s, FXS_END_SHUTDOWN);
		if (err)
			log_err("cannot finish the capture of pid %d: %s", (int)s->owner->pid,
				strerror(-err));
		s->owner->closing = true;
	}
	for (i = 0; i < (int)d->nr_conns; i++)
		d->conns[i]->closing = true;
	flush_all(d);
	while (d->nr_conns && mono_ms() < deadline) {
		n = epoll_wait(d->epfd, evs, 16, (int)(deadline - mono_ms()));
		if (n < 0 && errno != EINTR)
			break;
		flush_all(d);
	}
	while (d->nr_conns) {
		d->conns[0]->dead = true;
		reap(d);
	}
	session_clear(s);
}

static int run(struct daemon *d, const sigset_t *waitmask)
{
	struct epoll_event evs[32], ev = {.events = EPOLLIN, .data.ptr = (void *)listen_tag};
	struct conn *c;
	int n, i, err;

	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->listen_fd, &ev))
		return -errno;
	cont_start(d);
	sd_notify(0, "READY=1");
	while (!stop_requested) {
		n = epoll_pwait(d->epfd, evs, 32, timeout_ms(d), waitmask);
		if (n < 0) {
			if (errno != EINTR)
				return -errno;
			n = 0;
		}
		if (reload_requested) {
			reload_requested = 0;
			reload(d);
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == listen_tag) {
				accept_conns(d);
				continue;
			}
			c = evs[i].data.ptr;
			if (c->dead)
				continue;
			err = 0;
			if (evs[i].events & EPOLLIN)
				err = conn_read(d, c);
			else if (evs[i].events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP))
				err = -ECONNRESET;
			if (err) {
				if (err != -ECONNRESET)
					log_debug("connection of pid %d: %s", (int)c->pid,
						  strerror(-err));
				c->dead = true;
			}
		}
		reap(d);
		drain(d);
		sweep(d);
		cont_tick(d);
		flush_all(d);
	}
	log_info("stopping");
	shutdown_daemon(d);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fxsamplerd [--socket PATH] [--config FILE] [-v]\n"
		"\n"
		"The fxsampler daemon: owns the host's sampler and lends it, one session at a\n"
		"time, to clients (`fxsampler record`, `fxsampler status`) on a Unix socket,\n"
		"streaming each capture back to its client as FXT; the client writes the file.\n"
		"Runs in the foreground and logs to stderr (journald level prefixes under\n"
		"systemd); Type=notify and socket activation are supported.\n"
		"\n"
		"  -s, --socket PATH  listen on PATH (default: $FXSAMPLER_SOCKET, else\n"
		"                     the config's socket, else %s)\n"
		"  -c, --config FILE  configuration (default: %s)\n"
		"  -v, --verbose      debug output, libbpf's included\n"
		"      --allow-unsafe-kernel  start on a kernel in the perf-interrupt lockup\n"
		"                     range (5.19 to 6.3.9) that has the fix backported\n"
		"  -h, --help         this text\n"
		"  -V, --version      the version\n"
		"\n"
		"Who may do what (from the peer's SO_PEERCRED):\n"
		"  root may sample anything; another user only processes that run as that\n"
		"  user (real, effective and saved uid, no capability beyond the client's),\n"
		"  checked again for every sample and before every read of their /proc files:\n"
		"  a target that execs a set-user-ID or file-capability program is dropped,\n"
		"  and the client told. Host-wide sampling needs root or the group '%s'.\n"
		"  One session at a time: another client is told who holds it.\n"
		"  A client that disconnects has its session stopped and destroyed.\n"
		"\n"
		"Configuration (key = value, # comments):\n"
		"  socket = PATH            continuous = yes|no   continuous_frequency = 19\n"
		"  directory = %s      max_file_size = 64M\n"
		"  max_file_age = 1h        max_total_size = 1G   buffer_size = 256K\n"
		"  max_frames = 64          max_clients = 16      max_clients_per_uid = 4\n"
		"  handshake_timeout = 5s   idle_timeout = 60s    client_read_timeout = 30s\n"
		"  max_session_length = 0 (no limit)\n"
		"Root's connections are not counted against max_clients: root can always\n"
		"connect. A session whose client reads nothing for client_read_timeout is\n"
		"stopped, and its client told why.\n"
		"Continuous mode samples the whole host into rotating complete .fxt files in\n"
		"directory, paused while a client holds the sampler; max_total_size must be at\n"
		"least twice max_file_size. Files a killed daemon left are salvaged at start.\n"
		"\n"
		"Signals: SIGTERM/SIGINT finish the current capture (its client gets a complete\n"
		"file) and exit; SIGHUP reloads the configuration (not the socket).\n"
		"Units: fxsamplerd.socket, fxsamplerd.service; the protocol: docs/PROTOCOL.md.\n"
		"Exit status: 0 success, 1 runtime failure, 2 usage error.\n",
		DAEMON_DEFAULT_SOCKET, DAEMON_DEFAULT_CONFIG, AUTHZ_GROUP, DAEMON_DEFAULT_DIR);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"socket", required_argument, NULL, 's'},
		{"config", required_argument, NULL, 'c'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"allow-unsafe-kernel", no_argument, NULL, 'U'},
		{},
	};
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	const char *socket_opt = NULL, *env;
	bool allow_unsafe_kernel = false;
	sigset_t block, waitmask;
	struct daemon *d;
	char errbuf[512];
	int opt, err;

	journal = getenv("JOURNAL_STREAM") != NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "fxsamplerd: out of memory\n");
		return EXIT_FAILURE;
	}
	d->listen_fd = -1;
	d->epfd = -1;
	d->sess.file_fd = -1;
	d->config_path = DAEMON_DEFAULT_CONFIG;
	while ((opt = getopt_long(argc, argv, "s:c:vhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'U':
			allow_unsafe_kernel = true;
			break;
		case 's':
			socket_opt = optarg;
			break;
		case 'c':
			d->config_path = optarg;
			d->config_given = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			free(d);
			return EXIT_SUCCESS;
		case 'V':
			printf("fxsamplerd %s (protocol %d)\n", FXS_VERSION, FXS_PROTO_VERSION);
			free(d);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			free(d);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "fxsamplerd: unexpected argument '%s'\n", argv[optind]);
		free(d);
		return 2;
	}
	/* Refuse to start where no capture could be made safely: say so once, at start. */
	if (guard_check_host(allow_unsafe_kernel, errbuf, sizeof(errbuf))) {
		log_err("%s", errbuf);
		free(d);
		return EXIT_FAILURE;
	}
	err = daemon_config_load(d->config_path, d->config_given, &d->cfg, errbuf, sizeof(errbuf));
	if (err) {
		log_err("%s", errbuf);
		free(d);
		/* a configuration that makes no sense is a usage error */
		return err == -EINVAL ? 2 : EXIT_FAILURE;
	}
	env = getenv(CLIENT_SOCKET_ENV);
	if (!socket_opt && env && *env)
		socket_opt = env;
	if (socket_opt && (socket_opt[0] != '/' || strlen(socket_opt) >= DAEMON_SOCKET_MAX)) {
		fprintf(stderr, "fxsamplerd: socket path '%s' is not absolute or too long\n",
			socket_opt);
		free(d);
		return 2;
	}
	if (socket_opt) {
		strcpy(d->cfg.socket_path, socket_opt);
		d->socket_given = true;
	}
	strcpy(d->socket_path, d->cfg.socket_path);
	libbpf_set_print(libbpf_print);
	if (kfeatures_check(errbuf, sizeof(errbuf))) {
		log_err("%s", errbuf);
		free(d);
		return EXIT_FAILURE;
	}
	load_policy(d);

	/* signals are only delivered inside epoll_pwait: no wake-up is ever missed */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGHUP);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	err = listen_socket(d);
	if (err) {
		if (err != -EADDRINUSE)
			log_err("cannot listen on '%s': %s", d->socket_path, strerror(-err));
		goto out;
	}
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->epfd < 0) {
		err = -errno;
		log_err("epoll_create1: %s", strerror(-err));
		goto out;
	}
	err = run(d, &waitmask);
	if (err)
		log_err("event loop failed: %s", strerror(-err));
out:
	if (d->own_socket)
		unlink(d->socket_path);
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	if (d->epfd >= 0)
		close(d->epfd);
	free(d);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}
