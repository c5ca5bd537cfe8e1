// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxsamplerd's HTTP endpoint (daemon.h): GET /debug/pprof/profile?seconds=N
 * (and /debug/pprof/offcpu with continuous_off_cpu), served by libmicrohttpd in the daemon's own
 * epoll loop (MHD_USE_EPOLL without a thread: no lock, the capture is touched by one thread only).
 * A scrape opens a window on the host profile's stream (scrape.h), its connection is suspended
 * until the window's end, then resumed with the profile. Without continuous mode the host capture
 * is started while any scrape needs it. The rules without a server are in http_rules.c.
 * libmicrohttpd listens on nothing: the gate (http_gate.h) accepts, and hands on a connection
 * once its request has arrived whole, well formed and with the token; every answer closes its
 * connection, so that every request passes the gate.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lang/perfmap_live.h"
#include "service/daemon.h"
#include "service/http_gate.h"
#include "service/http_head.h"
#include "service/http_rules.h"
#include "service/scrape.h"
#include "util/clock.h"

#ifndef HAVE_MICROHTTPD

int http_open(struct daemon *d)
{
	if (!d->cfg.http_listen[0])
		return 0;
	log_err("http_listen = %s: this fxsamplerd is built without libmicrohttpd (the static "
		"cross builds are: Debian has no static chain of it), so it has no HTTP "
		"endpoint; remove the key or use a dynamically linked fxsamplerd",
		d->cfg.http_listen);
	return -ENOTSUP;
}

void http_close(struct daemon *d)
{
}

int http_timeout_ms(struct daemon *d)
{
	return -1;
}

void http_run(struct daemon *d)
{
}

bool http_owns_event(const struct daemon *d, const void *tag)
{
	return false;
}

#else

#include <microhttpd.h>

/* Requests libmicrohttpd serves at once (scrapes in their window included): more get 503. */
#define HTTP_MAX_CONNECTIONS 64
/* A client that reads nothing of its answer for this long is cut off (not while it waits). */
#define HTTP_IO_TIMEOUT_S    10
/* Per connection: the gate lets through heads and bodies half this size at most. */
#define HTTP_MEMORY_LIMIT    (2 * (HTTP_HEAD_MAX + HTTP_BODY_MAX))
#define HTTP_BACKLOG	     128

/* One scrape, from its request to its answer. */
struct http_scrape {
	struct http_scrape *next;
	struct MHD_Connection *con;
	struct scrape_window *win;
	uint64_t deadline; /* CLOCK_BOOTTIME ns */
	unsigned seconds;
	unsigned stream;    /* the tap's stream when the window opened */
	bool offcpu;	    /* an off-CPU window */
	uint64_t lost_open; /* ring-full drops of that stream then */
	bool answered;
	unsigned status;
	char *body;
	size_t len;
	char what[96]; /* for the log */
};

struct http {
	struct MHD_Daemon *mhd;
	struct http_gate *gate;
	int listen_fd;
	int mhd_epfd;
	struct http_addr addr;
	bool own_unix;
	uint8_t token[HTTP_TOKEN_MAX];
	size_t token_len;
	struct http_scrape *pending; /* suspended, waiting for their window's end */
	unsigned nr_pending;
	struct perfmap_live *jit; /* live processes' perf maps, for the windows' JIT code */
};

static const char http_tag[] = "http";

bool http_owns_event(const struct daemon *d, const void *tag)
{
	return tag == http_tag;
}

static uint64_t boot_ns(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

/* The ring-full drops of the host capture running for the tap now; 0 without one. */
static uint64_t host_lost(const struct daemon *d, bool offcpu)
{
	struct capture_stats st;

	if (!d->sess.cap || d->sess.owner)
		return 0;
	capture_stats(d->sess.cap, &st);
	return offcpu ? st.offcpu.v[FXS_OC_RING_FULL] : st.counters.v[FXS_CNT_DROP_RING_FULL];
}

/* --- answers --- */

static enum MHD_Result answer(struct MHD_Connection *con, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An error as Go's net/http/pprof writes one: text/plain with X-Go-Pprof: 1. */
static enum MHD_Result answer(struct MHD_Connection *con, unsigned status, const char *fmt, ...)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return MHD_NO;
	resp = MHD_create_response_from_buffer((size_t)n, text, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/plain; charset=utf-8");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "X-Go-Pprof", "1");
	MHD_add_response_header(resp, "Connection", "close");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, "Allow", "GET");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, "WWW-Authenticate", "Bearer realm=\"fxsamplerd\"");
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(resp, "Retry-After", "5");
	ret = MHD_queue_response(con, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result answer_profile(struct http_scrape *sc)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(sc->len, sc->body, MHD_RESPMEM_MUST_FREE);
	if (!resp)
		return MHD_NO;
	sc->body = NULL;
	MHD_add_response_header(resp, "Content-Type", "application/octet-stream");
	MHD_add_response_header(resp, "Content-Disposition", "attachment; filename=\"profile\"");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Connection", "close");
	ret = MHD_queue_response(sc->con, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

static const char *peer_name(struct MHD_Connection *con, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf,
			  (socklen_t)len);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf,
			  (socklen_t)len);
	else
		snprintf(buf, len, "the unix socket");
	return buf;
}

/* A client's string for the log: at most len - 1 bytes, control characters as '?'. */
static const char *loggable(const char *in, char *buf, size_t len)
{
	size_t i;

	for (i = 0; in && in[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)in[i] < 0x20 || in[i] == 0x7f ? '?' : in[i];
	buf[i] = '\0';
	return buf;
}

/* --- a scrape's window --- */

static void pending_remove(struct http *h, struct http_scrape *sc)
{
	struct http_scrape **p;

	for (p = &h->pending; *p; p = &(*p)->next) {
		if (*p == sc) {
			*p = sc->next;
			h->nr_pending--;
			return;
		}
	}
}

/* A refused perf map: once per process and file (perfmap_live.h). */
static void jit_tell(void *ctx, uint32_t pid, const char *text)
{
	(void)ctx;
	(void)pid;
	log_info("http: %s; its JIT code stays unnamed in scrapes", text);
}

/* A window's JIT code, named from its live process's perf map. */
static int jit_lookup(void *ctx, uint64_t pid, uint64_t first_ns, const uint64_t *pcs,
		      size_t nr_pcs, perfmap_blob_fn add, void *add_ctx)
{
	return perfmap_live_lookup(ctx, (pid_t)pid, first_ns, pcs, nr_pcs, add, add_ctx);
}

/* The window ends: its profile becomes the answer, and the connection goes on. */
static void scrape_finish(struct daemon *d, struct http_scrape *sc, uint64_t now)
{
	struct http *h = d->http;
	uint64_t lost = host_lost(d, sc->offcpu);
	const char *what = sc->offcpu ? "off-CPU intervals" : "samples";
	struct perfmap_live_stats js;
	uint64_t refused = 0;
	struct sym_cache_stats cs;
	uint64_t cpu;
	FILE *f;
	int err;

	if (scrape_tap_streams(d->tap) == sc->stream && scrape_tap_running(d->tap) &&
	    lost >= sc->lost_open)
		scrape_window_note(sc->win, "%s lost (a per-CPU ring was full): %llu", what,
				   (unsigned long long)(lost - sc->lost_open));
	else if (scrape_tap_running(d->tap))
		scrape_window_note(sc->win,
				   "%s lost (a per-CPU ring was full): at least %llu (the "
				   "host capture restarted during the window)",
				   what, (unsigned long long)lost);
	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	f = open_memstream(&sc->body, &sc->len);
	err = f ? scrape_window_close(d->tap, sc->win, now, f) : -ENOMEM;
	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	if (!f)
		scrape_window_free(d->tap, sc->win);
	sc->win = NULL;
	if (f && fclose(f) && !err)
		err = -EIO;
	sc->status = err ? MHD_HTTP_INTERNAL_SERVER_ERROR : MHD_HTTP_OK;
	if (err) {
		free(sc->body);
		sc->body = NULL;
		log_err("http: the profile of %s could not be made: %s", sc->what, strerror(-err));
	}
	sc->answered = true;
	pending_remove(h, sc);
	MHD_resume_connection(sc->con);
	scrape_tap_cache_stats(d->tap, &cs);
	perfmap_live_stats(h->jit, &js);
	for (unsigned i = 0; i < PERFMAP_SKIP_NR; i++)
		refused += js.skipped[i];
	log_debug("http: %s: its profile took %.1f ms of CPU; frames so far: %llu from the "
		  "cache, %llu resolved, %zu kept; perf maps so far: %llu read, %llu from the "
		  "cache, %llu refused, %llu absent, %llu processes gone",
		  sc->what, cpu / 1e6, (unsigned long long)cs.hits, (unsigned long long)cs.misses,
		  cs.entries, (unsigned long long)js.maps_read, (unsigned long long)js.maps_cached,
		  (unsigned long long)refused, (unsigned long long)js.maps_absent,
		  (unsigned long long)js.procs_gone);
}

/* Drain the host capture so that the samples up to now reach the windows. */
static void host_drain(struct daemon *d)
{
	struct session *s = &d->sess;

	if (s->cap && !s->owner && s->state == FXS_SESSION_RUNNING)
		session_drain(s);
}

/* --- requests --- */

static enum MHD_Result count_seconds(void *cls, enum MHD_ValueKind kind, const char *key,
				     const char *value)
{
	*(unsigned *)cls += !strcmp(key, "seconds");
	return MHD_YES;
}

/*
 * The seconds argument: NULL when absent. A NUL in it (seconds=1%00) or a
 * second one (seconds=1&seconds=2) is refused, not read as 1 or as one of them.
 */
static int seconds_arg(struct MHD_Connection *con, const char **ret, char *msg, size_t msg_len)
{
	unsigned n = 0;
	size_t len = 0;

	MHD_get_connection_values(con, MHD_GET_ARGUMENT_KIND, count_seconds, &n);
	*ret = NULL;
	if (n > 1) {
		snprintf(msg, msg_len, "seconds: given %u times, once at most", n);
		return -EINVAL;
	}
	if (MHD_lookup_connection_value_n(con, MHD_GET_ARGUMENT_KIND, "seconds", 7, ret, &len) ==
		    MHD_YES &&
	    *ret && strlen(*ret) != len) {
		snprintf(msg, msg_len, "seconds: a NUL byte in it");
		return -EINVAL;
	}
	return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct daemon *d = cls;
	struct http *h = d->http;
	struct http_scrape *sc = *con_cls;
	const char *secs;
	char msg[160], peer[64], lurl[128], lmethod[24], lsecs[24];
	bool offcpu;
	uint64_t now;
	unsigned seconds;
	int bad_secs;

	if (sc) {
		/* resumed: the window ended */
		if (!sc->answered)
			return MHD_YES;
		log_info("http: %s from %s: %u, %zu bytes", sc->what,
			 peer_name(con, peer, sizeof(peer)), sc->status, sc->body ? sc->len : 0);
		if (sc->status == MHD_HTTP_SERVICE_UNAVAILABLE)
			return answer(con, sc->status, "fxsamplerd is stopping\n");
		if (sc->status != MHD_HTTP_OK)
			return answer(con, sc->status, "the profile could not be made\n");
		return answer_profile(sc);
	}
	bad_secs = seconds_arg(con, &secs, msg, sizeof(msg));
	log_info("http: %s %s%s%s from %s", loggable(method, lmethod, sizeof(lmethod)),
		 loggable(url, lurl, sizeof(lurl)), secs ? "?seconds=" : "",
		 loggable(secs, lsecs, sizeof(lsecs)), peer_name(con, peer, sizeof(peer)));
	if (h->token_len &&
	    !http_bearer_ok(MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Authorization"),
			    h->token, h->token_len))
		return answer(con, MHD_HTTP_UNAUTHORIZED,
			      "a bearer token is needed (Authorization: Bearer TOKEN), and this "
			      "one is missing or wrong\n");
	if (strcmp(url, "/debug/pprof/profile") && strcmp(url, "/debug/pprof/offcpu"))
		return answer(con, MHD_HTTP_NOT_FOUND,
			      "404 page not found: fxsamplerd serves /debug/pprof/profile and "
			      "/debug/pprof/offcpu\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return answer(con, MHD_HTTP_METHOD_NOT_ALLOWED, "method %s not allowed: GET only\n",
			      loggable(method, lmethod, sizeof(lmethod)));
	offcpu = !strcmp(url, "/debug/pprof/offcpu");
	if (offcpu && !d->cfg.continuous_off_cpu)
		return answer(
			con, MHD_HTTP_NOT_FOUND,
			"the host profile records no off-CPU time: continuous_off_cpu = no\n");
	if (bad_secs)
		return answer(con, MHD_HTTP_BAD_REQUEST, "%s\n", msg);
	if (http_seconds_parse(secs, (unsigned)d->cfg.http_max_seconds, &seconds, msg, sizeof(msg)))
		return answer(con, MHD_HTTP_BAD_REQUEST, "%s\n", msg);
	if (h->nr_pending >= d->cfg.http_max_scrapes)
		return answer(con, MHD_HTTP_SERVICE_UNAVAILABLE,
			      "%u scrapes are under way, http_max_scrapes = %u: try again later\n",
			      h->nr_pending, d->cfg.http_max_scrapes);
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return MHD_NO;
	now = boot_ns();
	host_drain(d);
	sc->win = scrape_window_open(d->tap, now, clock_ns(CLOCK_REALTIME),
				     1000000000ULL / (d->sess.cap && !d->sess.owner
							      ? d->sess.opts.freq_hz
							      : d->cfg.continuous_freq_hz),
				     offcpu);
	if (!sc->win) {
		free(sc);
		return answer(con, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	sc->con = con;
	sc->seconds = seconds;
	sc->deadline = now + seconds * 1000000000ULL;
	sc->stream = scrape_tap_streams(d->tap);
	sc->offcpu = offcpu;
	sc->lost_open = host_lost(d, offcpu);
	snprintf(sc->what, sizeof(sc->what), "%s %s?seconds=%u", method, url, seconds);
	sc->next = h->pending;
	h->pending = sc;
	h->nr_pending++;
	*con_cls = sc;
	MHD_suspend_connection(con);
	return MHD_YES;
}

/* The request is over (answered, or its client went away): its scrape goes. */
static void on_completed(void *cls, struct MHD_Connection *con, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct daemon *d = cls;
	struct http_scrape *sc = *con_cls;

	if (!sc)
		return;
	if (sc->win) {
		pending_remove(d->http, sc);
		scrape_window_free(d->tap, sc->win);
	}
	free(sc->body);
	free(sc);
	*con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[256];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("http: libmicrohttpd: %s", buf);
}

/* --- the listening socket --- */

/* The gate passed a request: libmicrohttpd serves it, if it has room. */
static bool hand_over(void *ctx, int fd, const struct sockaddr *sa, socklen_t len, char *busy,
		      size_t busy_len)
{
	struct http *h = ctx;
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	if (info && info->num_connections >= HTTP_MAX_CONNECTIONS) {
		snprintf(busy, busy_len,
			 "%u requests are being served, the most fxsamplerd serves at once: try "
			 "again later",
			 info->num_connections);
		return false;
	}
	/* on failure libmicrohttpd has closed fd */
	if (MHD_add_connection(h->mhd, fd, sa, len) != MHD_YES)
		log_debug("http: libmicrohttpd did not take a connection: %s", strerror(errno));
	return true;
}

static int http_socket(struct daemon *d, struct http *h)
{
	const struct sockaddr *sa = (const struct sockaddr *)&h->addr.ss;
	const char *path = ((const struct sockaddr_un *)&h->addr.ss)->sun_path;
	struct group *gr;
	struct stat st;
	int fd, one = 1, err;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (!h->addr.is_unix)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	else if (!lstat(path, &st) && S_ISSOCK(st.st_mode))
		unlink(path);
	if (bind(fd, sa, h->addr.len) || listen(fd, HTTP_BACKLOG)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (h->addr.is_unix) {
		h->own_unix = true;
		/* the profile covers the host: root, and the group that may sample it */
		gr = getgrnam(AUTHZ_GROUP);
		if ((gr && chown(path, 0, gr->gr_gid)) || chmod(path, gr ? 0660 : 0600)) {
			err = -errno;
			close(fd);
			unlink(path);
			return err;
		}
	}
	h->listen_fd = fd;
	return 0;
}

int http_open(struct daemon *d)
{
	const union MHD_DaemonInfo *info;
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = (void *)http_tag};
	struct http *h;
	char msg[512];
	int err;

	if (!d->cfg.http_listen[0])
		return 0;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->listen_fd = -1;
	d->http = h;
	err = http_addr_parse(d->cfg.http_listen, &h->addr, msg, sizeof(msg));
	if (err) {
		log_err("http_listen: %s", msg);
		return err;
	}
	if (d->cfg.http_token_file[0]) {
		err = http_token_load(d->cfg.http_token_file, h->token, &h->token_len, msg,
				      sizeof(msg));
		if (err) {
			log_err("%s", msg);
			return err;
		}
	}
	d->tap = scrape_tap__new(NULL);
	h->jit = perfmap_live__new("/proc", jit_tell, NULL);
	if (!d->tap || !h->jit)
		return -ENOMEM;
	scrape_tap_set_jit(d->tap, jit_lookup, h->jit);
	err = http_socket(d, h);
	if (err) {
		log_err("http: cannot listen on %s: %s%s", d->cfg.http_listen, strerror(-err),
			err == -EAFNOSUPPORT
				? " (under the hardened systemd unit, a TCP address needs the "
				  "drop-in fxsamplerd-http.conf: see fxsamplerd(8))"
				: "");
		return err;
	}
	h->mhd = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
					  MHD_USE_NO_LISTEN_SOCKET,
				  0, NULL, NULL, on_request, d, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
				  NULL, MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_IO_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, d, MHD_OPTION_END);
	if (!h->mhd) {
		log_err("http: libmicrohttpd could not start on %s", d->cfg.http_listen);
		return -EIO;
	}
	info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	h->mhd_epfd = info ? info->epoll_fd : -1;
	if (h->mhd_epfd < 0 || epoll_ctl(d->epfd, EPOLL_CTL_ADD, h->mhd_epfd, &ev)) {
		log_err("http: cannot watch libmicrohttpd's epoll descriptor");
		return -EIO;
	}
	h->gate = http_gate__new(&(struct http_gate_opts){.listen_fd = h->listen_fd,
							  .token = h->token,
							  .token_len = h->token_len,
							  .pass = hand_over,
							  .ctx = h});
	if (!h->gate || epoll_ctl(d->epfd, EPOLL_CTL_ADD, http_gate_fd(h->gate), &ev)) {
		log_err("http: cannot watch the listening socket: %s", strerror(errno));
		return -EIO;
	}
	log_info("http: serving /debug/pprof/profile on %s%s", d->cfg.http_listen,
		 h->token_len	   ? " (bearer token)"
		 : h->addr.is_unix ? " (the socket's file mode)"
				   : " (loopback)");
	return 0;
}

void http_close(struct daemon *d)
{
	struct http *h = d->http;
	struct http_scrape *sc;

	if (!h)
		return;
	/* suspended connections must be resumed before libmicrohttpd stops */
	while ((sc = h->pending)) {
		scrape_window_free(d->tap, sc->win);
		sc->win = NULL;
		sc->answered = true;
		sc->status = MHD_HTTP_SERVICE_UNAVAILABLE;
		pending_remove(h, sc);
		MHD_resume_connection(sc->con);
	}
	http_gate__free(h->gate);
	if (h->mhd) {
		MHD_run(h->mhd);
		MHD_stop_daemon(h->mhd);
	}
	if (h->listen_fd >= 0)
		close(h->listen_fd);
	if (h->own_unix)
		unlink(((const struct sockaddr_un *)&h->addr.ss)->sun_path);
	/* the host capture's sink must not feed the tap any more */
	d->sess.tap = NULL;
	scrape_tap__free(d->tap);
	d->tap = NULL;
	perfmap_live__free(h->jit);
	free(h);
	d->http = NULL;
}

int http_timeout_ms(struct daemon *d)
{
	struct http *h = d->http;
	MHD_UNSIGNED_LONG_LONG mt;
	uint64_t now, t = UINT64_MAX;
	struct http_scrape *sc;
	int gt;

	if (!h || !h->mhd || !h->gate)
		return -1;
	if (MHD_get_timeout(h->mhd, &mt) == MHD_YES)
		t = mt;
	now = boot_ns();
	gt = http_gate_timeout_ms(h->gate, now);
	if (gt >= 0 && (uint64_t)gt < t)
		t = (uint64_t)gt;
	for (sc = h->pending; sc; sc = sc->next) {
		uint64_t left = sc->deadline > now ? (sc->deadline - now + 999999) / 1000000 : 0;

		if (left < t)
			t = left;
	}
	return t == UINT64_MAX ? -1 : t > 60000 ? 60000 : (int)t;
}

/* Without continuous mode the host capture runs while a scrape needs it. */
static void on_demand(struct daemon *d)
{
	struct session *s = &d->sess;

	if (d->cfg.continuous)
		return;
	if (!s->cap && d->http->nr_pending && mono_s() >= d->cont_retry_at)
		cont_start_for(d, true);
	else if (s->cap && s->on_demand && !d->http->nr_pending) {
		log_info("http: no scrape needs the host capture: stopping it");
		cont_finish(d);
	}
}

void http_run(struct daemon *d)
{
	struct http *h = d->http;
	struct session *s = &d->sess;
	struct http_scrape *sc, *next;
	char why[160];
	uint64_t now;
	bool drained = false;

	if (!h || !h->mhd || !h->gate)
		return;
	http_gate_run(h->gate, boot_ns());
	MHD_run(h->mhd);
	if (!scrape_tap_running(d->tap) && s->cap && s->owner) {
		snprintf(why, sizeof(why),
			 "a client's session held the sampler (pid %d, uid %u): a scrape never "
			 "stops a user's record",
			 (int)s->holder_pid, (unsigned)s->holder_uid);
		scrape_tap_gap_reason(d->tap, why);
	}
	now = boot_ns();
	for (sc = h->pending; sc; sc = next) {
		next = sc->next;
		if (now < sc->deadline)
			continue;
		if (!drained)
			host_drain(d);
		drained = true;
		scrape_finish(d, sc, now);
	}
	on_demand(d);
	/* the resumed connections get their answers now */
	if (drained)
		MHD_run(h->mhd);
}

#endif /* HAVE_MICROHTTPD */
