// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fxt/fxt_framer.h"
#include "util/io.h"
#include "util/clock.h"
#include "cli/client.h"
#include "service/daemon_config.h"

/* How often the loop wakes to look at the stop flag and the clock. */
#define TICK_MS	    100
#define PROGRESS_NS 500000000ULL

struct cl {
	int fd;
	int out_fd;
	uint8_t in[FXS_PROTO_MAX_MSG];
	size_t in_len;
	size_t consumed; /* bytes of the message handed out last, dropped on the next read */
	uint64_t written;
	struct fxt_framer framer; /* where the whole records of what was written end */
	bool ended;
	uint32_t end_reason;
	bool status_pending; /* a STATUS for the progress hook is on its way */
	const struct client_hooks *hooks;
	uint64_t t0;
	struct capture_stats last;
	char *errbuf;
	size_t errlen;
};

static void set_err(struct cl *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_err(struct cl *cl, const char *fmt, ...)
{
	va_list ap;

	if (!cl->errbuf || !cl->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(cl->errbuf, cl->errlen, fmt, ap);
	va_end(ap);
}

const char *client_socket_path(const char *opt)
{
	const char *env;

	if (opt && *opt)
		return opt;
	env = getenv(CLIENT_SOCKET_ENV);
	if (env && *env)
		return env;
	return DAEMON_DEFAULT_SOCKET;
}

int client_connect(const char *socket_path, int *ret_fd, char *errbuf, size_t errlen)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd, err;

	if (strlen(socket_path) >= sizeof(addr.sun_path)) {
		snprintf(errbuf, errlen, "socket path '%s' is too long", socket_path);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "cannot create a socket: %s", strerror(-err));
		return err;
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		snprintf(errbuf, errlen, "cannot connect to fxsamplerd at '%s': %s", socket_path,
			 strerror(-err));
		close(fd);
		return err;
	}
	*ret_fd = fd;
	return 0;
}

static int send_all(struct cl *cl, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = send(cl->fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			set_err(cl, "cannot send to fxsamplerd: %s", strerror((int)-n));
			return (int)n;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_msg(struct cl *cl, const struct fxs_msg *m)
{
	uint8_t buf[512];
	int n = protocol_encode(m, buf, sizeof(buf));

	if (n < 0) {
		set_err(cl, "cannot encode a %s request: %s", protocol_type_name(m->type),
			strerror(-n));
		return n;
	}
	return send_all(cl, buf, (size_t)n);
}

static int send_request(struct cl *cl, unsigned type)
{
	struct fxs_msg m = {.type = (uint16_t)type};

	return send_msg(cl, &m);
}

static int write_out(struct cl *cl, const void *buf, size_t len)
{
	int err = write_all(cl->out_fd, buf, len);

	if (err) {
		set_err(cl, "cannot write the capture: %s", strerror(-err));
		return err;
	}
	cl->written += len;
	fxt_framer_feed(&cl->framer, buf, len);
	return 0;
}

/*
 * The next message: 1 and *ret, 0 when none came within timeout_ms, or
 * -errno. DATA in *ret points into cl->in and stays valid until the next call.
 */
static int next_msg(struct cl *cl, int timeout_ms, struct fxs_msg *ret)
{
	struct pollfd pfd = {.fd = cl->fd, .events = POLLIN};
	size_t frame;
	ssize_t n;
	int err;

	if (cl->consumed) {
		memmove(cl->in, cl->in + cl->consumed, cl->in_len - cl->consumed);
		cl->in_len -= cl->consumed;
		cl->consumed = 0;
	}
	for (;;) {
		err = protocol_frame_len(cl->in, cl->in_len, &frame);
		if (err == -EBADMSG) {
			set_err(cl,
				"fxsamplerd sent a malformed message (protocol version %d "
				"expected)",
				FXS_PROTO_VERSION);
			return -EPROTO;
		}
		if (!err && cl->in_len >= frame) {
			if (protocol_decode(cl->in, frame, ret)) {
				set_err(cl, "fxsamplerd sent a malformed message");
				return -EPROTO;
			}
			cl->consumed = frame;
			return 1;
		}
		err = poll(&pfd, 1, timeout_ms);
		if (err < 0) {
			if (errno == EINTR)
				return 0;
			err = -errno;
			set_err(cl, "poll: %s", strerror(-err));
			return err;
		}
		if (!err)
			return 0;
		n = recv(cl->fd, cl->in + cl->in_len, sizeof(cl->in) - cl->in_len, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			err = -errno;
			set_err(cl, "cannot read from fxsamplerd: %s", strerror(-err));
			return err;
		}
		if (!n) {
			set_err(cl, "fxsamplerd closed the connection");
			return -ECONNRESET;
		}
		cl->in_len += (size_t)n;
	}
}

static void status_to_stats(const struct fxs_msg_status *st, struct capture_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->counters = st->counters;
	ret->processes = st->processes;
	ret->threads = st->threads;
	ret->bytes = st->bytes;
	ret->nr_cpus = st->nr_cpus;
}

static int error_to_errno(const struct fxs_msg_error *e)
{
	switch (e->kind) {
	case FXS_ERR_ALREADY_EXISTS:
		return -EBUSY;
	case FXS_ERR_INVALID_ARGS:
		return -EINVAL;
	case FXS_ERR_ACCESS_DENIED:
		return -EACCES;
	case FXS_ERR_NOT_FOUND:
		return -ESRCH;
	case FXS_ERR_BAD_STATE:
	case FXS_ERR_BAD_MESSAGE:
		return -EPROTO;
	default:
		return e->err ? e->err : -EIO;
	}
}

/* What may arrive at any time: FXT bytes, the end of the stream, progress, notices. */
static int handle_async(struct cl *cl, const struct fxs_msg *m, bool *ret_handled)
{
	*ret_handled = true;
	switch (m->type) {
	case FXS_MSG_DATA:
		if (cl->ended) {
			set_err(cl, "fxsamplerd sent data after the end of the stream");
			return -EPROTO;
		}
		return write_out(cl, m->data.data, m->data.len);
	case FXS_MSG_END:
		cl->ended = true;
		cl->end_reason = m->end.reason;
		return 0;
	case FXS_MSG_NOTICE:
		if (cl->hooks && cl->hooks->notice)
			cl->hooks->notice(cl->hooks->ctx, m->notice.text);
		return 0;
	case FXS_MSG_STATUS_REPLY:
		if (!cl->status_pending)
			break;
		cl->status_pending = false;
		status_to_stats(&m->status, &cl->last);
		if (cl->hooks && cl->hooks->progress)
			cl->hooks->progress(cl->hooks->ctx, &cl->last, mono_ns() - cl->t0);
		return 0;
	default:
		break;
	}
	*ret_handled = false;
	return 0;
}

/*
 * Wait for the answer to request: 0 (OK, or a STATUS_REPLY copied into
 * *ret_status for STATUS), or the error the daemon sent, with its text.
 */
static int await(struct cl *cl, unsigned request, struct fxs_msg_status *ret_status)
{
	uint64_t deadline = mono_ns() + CLIENT_REPLY_TIMEOUT_MS * 1000000ULL;
	struct fxs_msg m;
	bool handled;
	int err;

	for (;;) {
		err = next_msg(cl, TICK_MS, &m);
		if (err < 0)
			return err;
		if (!err) {
			if (mono_ns() > deadline) {
				set_err(cl, "fxsamplerd did not answer %s within %d s",
					protocol_type_name(request),
					CLIENT_REPLY_TIMEOUT_MS / 1000);
				return -ETIMEDOUT;
			}
			continue;
		}
		if (request == FXS_MSG_STATUS && m.type == FXS_MSG_STATUS_REPLY &&
		    !cl->status_pending) {
			*ret_status = m.status;
			return 0;
		}
		err = handle_async(cl, &m, &handled);
		if (err)
			return err;
		if (handled)
			continue;
		if (m.type == FXS_MSG_OK && m.ok.request == request)
			return 0;
		if (m.type == FXS_MSG_ERROR && (m.error.request == request || !m.error.request)) {
			set_err(cl, "%s",
				m.error.text[0] ? m.error.text : protocol_err_name(m.error.kind));
			return error_to_errno(&m.error);
		}
		set_err(cl, "fxsamplerd answered %s with an unexpected %s message",
			protocol_type_name(request), protocol_type_name(m.type));
		return -EPROTO;
	}
}

static int request(struct cl *cl, unsigned type)
{
	int err = send_request(cl, type);

	return err ? err : await(cl, type, NULL);
}

/* Stream while running; returns when asked to stop, at the deadline or at END. */
static int run(struct cl *cl, volatile sig_atomic_t *stop_flag, uint64_t duration_ns)
{
	uint64_t next_progress = cl->t0 + PROGRESS_NS;
	struct fxs_msg m;
	bool handled;
	int err;

	while (!cl->ended) {
		if (stop_flag && *stop_flag)
			return 0;
		if (duration_ns && mono_ns() - cl->t0 >= duration_ns)
			return 0;
		if (cl->hooks && cl->hooks->done && cl->hooks->done(cl->hooks->ctx))
			return 0;
		if (cl->hooks && cl->hooks->progress && !cl->status_pending &&
		    mono_ns() >= next_progress) {
			err = send_request(cl, FXS_MSG_STATUS);
			if (err)
				return err;
			cl->status_pending = true;
			next_progress = mono_ns() + PROGRESS_NS;
		}
		err = next_msg(cl, TICK_MS, &m);
		if (err < 0)
			return err;
		if (!err)
			continue;
		err = handle_async(cl, &m, &handled);
		if (err)
			return err;
		if (!handled) {
			set_err(cl, "fxsamplerd sent an unexpected %s message during the capture",
				protocol_type_name(m.type));
			return -EPROTO;
		}
	}
	return 0;
}

/* A connection not made yet (fd -1), writing DATA to out_fd; NULL: no memory (said in errbuf). */
static struct cl *cl_new(int out_fd, const struct client_hooks *hooks, char *errbuf, size_t errlen)
{
	struct cl *cl = calloc(1, sizeof(*cl));

	if (!cl) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	cl->fd = -1;
	cl->out_fd = out_fd;
	cl->hooks = hooks;
	cl->errbuf = errbuf;
	cl->errlen = errlen;
	return cl;
}

int client_record(const char *socket_path, const struct capture_opts *opts, int out_fd,
		  volatile sig_atomic_t *stop_flag, uint64_t duration_ns,
		  const struct client_hooks *hooks, struct client_result *ret, char *errbuf,
		  size_t errlen)
{
	struct fxs_msg_status st;
	struct client_result res;
	struct fxs_msg m = {.type = FXS_MSG_SETUP};
	struct cl *cl;
	int err;

	cl = cl_new(out_fd, hooks, errbuf, errlen);
	if (!cl)
		return -ENOMEM;
	memset(&res, 0, sizeof(res));

	err = protocol_setup_from_opts(opts, &m.setup);
	if (err) {
		set_err(cl, "invalid capture options (at most %d pids, none of them 0)",
			FXS_PROTO_MAX_PIDS);
		goto out;
	}
	err = client_connect(client_socket_path(socket_path), &cl->fd, errbuf, errlen);
	if (err)
		goto out;
	err = send_msg(cl, &m);
	if (err)
		goto out;
	err = await(cl, FXS_MSG_SETUP, NULL);
	if (err)
		goto out;
	err = request(cl, FXS_MSG_START);
	if (err)
		goto out;
	cl->t0 = mono_ns();
	if (hooks && hooks->started) {
		err = hooks->started(hooks->ctx);
		if (err) {
			set_err(cl, "the capture was aborted: %s", strerror(err < 0 ? -err : err));
			err = err < 0 ? err : -ECANCELED;
			goto out;
		}
	}
	err = run(cl, stop_flag, duration_ns);
	if (err)
		goto out;
	if (cl->ended) {
		/* the daemon stopped the capture on its own (it exits, or a limit): no more
		 * requests */
		res.shutdown = cl->end_reason == FXS_END_SHUTDOWN;
		res.ended_by_daemon = true;
		res.end_reason = cl->end_reason;
		res.stats = cl->last;
	} else {
		err = request(cl, FXS_MSG_STOP);
		if (err && cl->ended && cl->end_reason != FXS_END_STOPPED) {
			/* the daemon ended it first: the stream is complete all the same */
			res.shutdown = cl->end_reason == FXS_END_SHUTDOWN;
			res.ended_by_daemon = true;
			res.end_reason = cl->end_reason;
			res.stats = cl->last;
			err = 0;
			goto done;
		}
		if (err)
			goto out;
		if (!cl->ended) {
			set_err(cl, "fxsamplerd acknowledged stop without ending the stream");
			err = -EPROTO;
			goto out;
		}
		err = send_request(cl, FXS_MSG_STATUS);
		if (!err)
			err = await(cl, FXS_MSG_STATUS, &st);
		if (err)
			goto out;
		status_to_stats(&st, &res.stats);
		err = request(cl, FXS_MSG_DESTROY);
		if (err)
			goto out;
	}
done:
	res.bytes_written = cl->written;
	*ret = res;
out:
	/* The daemon went away mid-stream: how much of what came is whole records. */
	if (err == -ECONNRESET) {
		memset(ret, 0, sizeof(*ret));
		ret->bytes_written = cl->written;
		ret->bytes_whole = cl->framer.whole;
	}
	if (cl->fd >= 0)
		close(cl->fd);
	free(cl);
	return err;
}

int client_query_status(const char *socket_path, struct fxs_msg_status *ret, char *errbuf,
			size_t errlen)
{
	struct fxs_msg_status st;
	struct cl *cl;
	int err;

	cl = cl_new(-1, NULL, errbuf, errlen);
	if (!cl)
		return -ENOMEM;
	err = client_connect(client_socket_path(socket_path), &cl->fd, errbuf, errlen);
	if (err) {
		free(cl);
		return err;
	}
	err = send_request(cl, FXS_MSG_STATUS);
	if (!err)
		err = await(cl, FXS_MSG_STATUS, &st);
	close(cl->fd);
	free(cl);
	if (err)
		return err;
	*ret = st;
	return 0;
}

void client_print_status(FILE *out, const char *socket_path, const struct fxs_msg_status *st)
{
	unsigned i;

	fprintf(out, "daemon:     fxsamplerd at %s\n", socket_path);
	if (st->session == FXS_SESSION_NONE) {
		fprintf(out, "state:      idle (no session)\n");
		return;
	}
	if (st->flags & FXS_STATUS_OTHERS) {
		fprintf(out, "state:      busy, held by uid %u%s\n", st->holder_uid,
			(st->flags & FXS_STATUS_CONTINUOUS) ? " (fxsamplerd's continuous capture)"
							    : "");
		return;
	}
	fprintf(out, "state:      %s\n", protocol_session_name(st->session));
	if (st->flags & FXS_STATUS_CONTINUOUS)
		fprintf(out, "holder:     fxsamplerd's continuous capture (pid %u)\n",
			st->holder_pid);
	else
		fprintf(out, "holder:     pid %u, uid %u%s\n", st->holder_pid, st->holder_uid,
			(st->flags & FXS_STATUS_YOURS) ? " (this connection)" : "");
	if (st->nr_pids)
		fprintf(out, "targets:    %u pid%s\n", st->nr_pids, st->nr_pids == 1 ? "" : "s");
	else
		fprintf(out, "targets:    the whole host\n");
	if (st->freq_hz)
		fprintf(out, "rate:       %llu Hz\n", (unsigned long long)st->freq_hz);
	else
		fprintf(out, "period:     %llu ns\n", (unsigned long long)st->period_ns);
	fprintf(out, "cpus:       %u\n", st->nr_cpus);
	fprintf(out, "processes:  %llu\nthreads:    %llu\nfxt bytes:  %llu\n",
		(unsigned long long)st->processes, (unsigned long long)st->threads,
		(unsigned long long)st->bytes);
	fprintf(out, "counters:\n");
	for (i = 0; i < FXS_CNT_NR; i++)
		fprintf(out, "  %-20s %llu\n", capture_counter_name(i),
			(unsigned long long)st->counters.v[i]);
}

int client_status(const char *socket_path, FILE *out, char *errbuf, size_t errlen)
{
	const char *path = client_socket_path(socket_path);
	struct fxs_msg_status st;
	int err;

	err = client_query_status(path, &st, errbuf, errlen);
	if (err)
		return err;
	client_print_status(out, path, &st);
	return 0;
}
