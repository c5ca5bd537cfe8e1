// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxsamplerd's manager (daemon.h): the listening socket, signals, the
 * configuration's reload, the drain of the rings, the timeouts, the loop and
 * the shutdown.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "util/clock.h"
#include "service/daemon.h"

/* While a client has this much unsent, its rings are not drained (they drop and count). */
#define OUT_HIGH_WATER (8u << 20)
/* How long the rest of a stream may take to reach its client at shutdown. */
#define SHUTDOWN_FLUSH_MS 5000
/* How often the timeouts are looked at while connections are open. */
#define SWEEP_MS 500

volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reload_requested;

static const char listen_tag[] = "listen";

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

/* Signals are only delivered inside epoll_pwait: no wake-up is ever missed. */
void daemon_signals(sigset_t *waitmask)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGHUP);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* --- the listening socket --- */

int daemon_listen(struct daemon *d)
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

void daemon_load_policy(struct daemon *d)
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
	/* the endpoint's socket and token stay as they were at start */
	if (strcmp(cfg.http_listen, d->cfg.http_listen) ||
	    strcmp(cfg.http_token_file, d->cfg.http_token_file))
		log_warn("http_listen or http_token_file changed: it takes a restart");
	strcpy(cfg.http_listen, d->cfg.http_listen);
	strcpy(cfg.http_token_file, d->cfg.http_token_file);
	restart = cfg.continuous != d->cfg.continuous ||
		  cfg.continuous_freq_hz != d->cfg.continuous_freq_hz ||
		  cfg.continuous_off_cpu != d->cfg.continuous_off_cpu ||
		  cfg.buffer_size != d->cfg.buffer_size || cfg.max_frames != d->cfg.max_frames ||
		  strcmp(cfg.directory, d->cfg.directory);
	if (restart && d->sess.cap && !d->sess.owner)
		cont_finish(d);
	/* the socket in use stays the socket in use */
	strcpy(cfg.socket_path, d->cfg.socket_path);
	d->cfg = cfg;
	d->cont_retry_at = 0;
	d->cont_warned = false;
	daemon_load_policy(d);
	log_info("configuration reloaded from '%s'", d->config_path);
	sd_notify(0, "READY=1");
}

/* --- the loop --- */

/*
 * Drain when due, or when the rings woke us (woken), DRAIN_GAP_MS after the
 * last drain at the earliest (daemon.h).
 */
static void drain(struct daemon *d, bool woken)
{
	struct session *s = &d->sess;
	uint64_t now = mono_ms();
	int err;

	if (!s->cap || s->state != FXS_SESSION_RUNNING)
		return;
	if (woken && s->next_drain_ms > s->drained_ms + DRAIN_GAP_MS)
		s->next_drain_ms = s->drained_ms + DRAIN_GAP_MS;
	if (now < s->next_drain_ms)
		return;
	/* a client that does not keep up loses samples (counted), not the daemon's memory */
	if (s->owner && outq_pending(&s->owner->out) > OUT_HIGH_WATER) {
		s->next_drain_ms = now + DRAIN_MS;
		return;
	}
	err = session_drain(s);
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
		/* The next file that starts says that continuous mode resumed. */
		d->cont_warned = true;
	}
}

/* The timeouts: handshakes, idle connections, clients that do not read, long sessions. */
static void sweep(struct daemon *d)
{
	const struct daemon_config *cfg = &d->cfg;
	struct session *s = &d->sess;
	uint64_t now = mono_ms(), limit_s;
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
		/* a user's session ends by default (1 h), root's does not */
		limit_s = c->uid ? cfg->max_session_length_s : cfg->max_root_session_length_s;
		if (own && s->state == FXS_SESSION_RUNNING && limit_s &&
		    now - s->started_ms >= limit_s * 1000) {
			snprintf(why, sizeof(why), "the session reached %s (%llu s)",
				 c->uid ? "max_session_length" : "max_root_session_length",
				 (unsigned long long)limit_s);
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

static int timeout_ms(struct daemon *d)
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
	if (d->http) {
		int h = http_timeout_ms(d);

		if (h >= 0 && (t < 0 || h < t))
			t = h;
	}
	return t;
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
	conns_flush(d);
	while (d->nr_conns && mono_ms() < deadline) {
		n = epoll_wait(d->epfd, evs, 16, (int)(deadline - mono_ms()));
		if (n < 0 && errno != EINTR)
			break;
		conns_flush(d);
	}
	while (d->nr_conns) {
		d->conns[0]->dead = true;
		conns_reap(d);
	}
	session_clear(d);
}

/*
 * The loop is epoll_pwait(), not sd-event: the static fxsamplerd of `make
 * cross` (the VM tier, check-cross) links daemon/static/sd-daemon.c, since
 * Debian ships no libsystemd.a, and sd-event has no small stand-in. Nor is
 * throughput at stake: in a 10 s capture at 50 kHz of two spinning threads
 * (130-140k samples) fxsamplerd used 0.30-0.55 s of CPU in about 90 turns of
 * this loop, nearly all of it capture_poll() draining and encoding, which
 * any loop would run the same (measured when it drained only every 100 ms;
 * the rings now wake it, at most every DRAIN_GAP_MS).
 */
int daemon_run(struct daemon *d, const sigset_t *waitmask)
{
	struct epoll_event evs[32], ev = {.events = EPOLLIN, .data.ptr = (void *)listen_tag};
	struct conn *c;
	bool woken;
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
		woken = false;
		for (i = 0; i < n; i++) {
			if (session_owns_event(evs[i].data.ptr)) {
				woken = true;
				continue;
			}
			if (evs[i].data.ptr == listen_tag) {
				conns_accept(d);
				continue;
			}
			/* http_run() below serves it */
			if (http_owns_event(d, evs[i].data.ptr))
				continue;
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
		conns_reap(d);
		drain(d, woken);
		sweep(d);
		cont_tick(d);
		http_run(d);
		conns_flush(d);
	}
	log_info("stopping");
	http_close(d);
	shutdown_daemon(d);
	return 0;
}
