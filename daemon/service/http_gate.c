// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The HTTP endpoint's gate (http_gate.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "service/http_gate.h"
#include "service/http_head.h"
#include "service/http_rules.h"
#include "service/log.h"

/* Accepted per run: the daemon's loop gets back to its other work in between. */
#define GATE_ACCEPTS_PER_RUN 64
/* Refusals said at info level per minute; the rest at debug level, counted. */
#define GATE_LOG_PER_MINUTE 20

struct gate_conn {
	struct gate_conn *next, *prev; /* oldest first */
	int fd;
	struct sockaddr_storage ss;
	socklen_t len;
	uint64_t deadline; /* boottime ns */
	bool lingering;	   /* answered: its unread bytes are dropped until EOF or the deadline */
	bool dead;	   /* dropped: freed at the end of the run (an event may still name it) */
};

struct http_gate {
	struct http_gate_opts o;
	int epfd;
	struct gate_conn *head, *tail;
	struct gate_conn *dead; /* dropped during this run, through next */
	unsigned nr;
	uint64_t log_minute;
	unsigned logged, unlogged;
	char buf[HTTP_HEAD_MAX + HTTP_BODY_MAX];
};

static const char listen_tag[] = "listen";

static const char *peer_str(const struct gate_conn *c, char *buf, size_t len)
{
	const struct sockaddr *sa = (const struct sockaddr *)&c->ss;

	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf,
			  (socklen_t)len);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf,
			  (socklen_t)len);
	else
		snprintf(buf, len, "the unix socket");
	return buf;
}

/* Two clients at one address: same family and IP (a unix socket's peers are not counted). */
static bool same_address(const struct gate_conn *a, const struct gate_conn *b)
{
	const struct sockaddr *x = (const struct sockaddr *)&a->ss;
	const struct sockaddr *y = (const struct sockaddr *)&b->ss;

	if (x->sa_family != y->sa_family)
		return false;
	if (x->sa_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	if (x->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
			       &((const struct sockaddr_in6 *)y)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

static void unlink_conn(struct http_gate *g, struct gate_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		g->tail = c->prev;
	g->nr--;
}

/* Forget c; close its socket unless it was handed on. */
static void drop(struct http_gate *g, struct gate_conn *c, bool close_fd)
{
	epoll_ctl(g->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	if (close_fd)
		close(c->fd);
	unlink_conn(g, c);
	c->dead = true;
	c->next = g->dead;
	g->dead = c;
}

static void free_dead(struct http_gate *g)
{
	struct gate_conn *c;

	while ((c = g->dead)) {
		g->dead = c->next;
		free(c);
	}
}

/* A refusal for the log: at info level up to GATE_LOG_PER_MINUTE a minute. */
static void say(struct http_gate *g, uint64_t now, const struct gate_conn *c, const char *why)
{
	char peer[64];
	uint64_t minute = now / 60000000000ULL;

	if (minute != g->log_minute) {
		if (g->unlogged)
			log_info("http: %u more requests refused in the last minute (-v: each)",
				 g->unlogged);
		g->log_minute = minute;
		g->logged = g->unlogged = 0;
	}
	if (g->logged < GATE_LOG_PER_MINUTE) {
		g->logged++;
		log_info("http: from %s: %s", peer_str(c, peer, sizeof(peer)), why);
	} else {
		g->unlogged++;
		log_debug("http: from %s: %s", peer_str(c, peer, sizeof(peer)), why);
	}
}

/*
 * Answer c and close it after: the client's bytes still unread are read
 * and dropped for a while, so that closing does not reset the connection
 * before the client has read the answer.
 */
static void refuse(struct http_gate *g, struct gate_conn *c, uint64_t now, unsigned status,
		   const char *extra, const char *text)
{
	char out[512], body[256];
	size_t n;

	snprintf(body, sizeof(body), "%s\n", text);
	n = http_head_answer(out, sizeof(out), status, extra, body);
	if (send(c->fd, out, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 || shutdown(c->fd, SHUT_WR)) {
		drop(g, c, true);
		return;
	}
	c->lingering = true;
	c->deadline = now + HTTP_GATE_LINGER_MS * 1000000ULL;
}

static void linger_read(struct http_gate *g, struct gate_conn *c)
{
	ssize_t n;

	while ((n = recv(c->fd, g->buf, sizeof(g->buf), MSG_DONTWAIT)) > 0)
		;
	if (!n || (errno != EAGAIN && errno != EWOULDBLOCK))
		drop(g, c, true);
}

static bool token_ok(const struct http_gate *g, const struct http_head *h)
{
	char hdr[HTTP_TOKEN_MAX + 16];

	if (!h->auth || h->auth_len >= sizeof(hdr))
		return false;
	memcpy(hdr, h->auth, h->auth_len);
	hdr[h->auth_len] = '\0';
	return http_bearer_ok(hdr, g->o.token, g->o.token_len);
}

/*
 * What has arrived of c's request: wait for more, refuse it, or hand it on.
 * hup: the client has closed its side, so what has arrived is all there is.
 */
static void read_request(struct http_gate *g, struct gate_conn *c, uint64_t now, bool hup)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLET | EPOLLRDHUP};
	struct http_head h;
	char busy[160], why[200];
	ssize_t n;

	n = recv(c->fd, g->buf, sizeof(g->buf), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		/* the client went away before a whole request */
		drop(g, c, true);
		return;
	}
	switch (http_head_parse(g->buf, (size_t)n, &h)) {
	case HTTP_HEAD_INCOMPLETE:
		/* a peek sees the bytes before the end: the end says nothing more comes */
		if (hup)
			drop(g, c, true);
		return;
	case HTTP_HEAD_BAD:
		say(g, now, c, h.why);
		refuse(g, c, now, h.status, NULL, h.why);
		return;
	case HTTP_HEAD_OK:
		break;
	}
	/* the token before anything else of the request is looked at or waited on */
	if (g->o.token_len && !token_ok(g, &h)) {
		say(g, now, c, "401: no bearer token, or a wrong one");
		refuse(g, c, now, 401, "WWW-Authenticate: Bearer realm=\"fxsamplerd\"\r\n",
		       "a bearer token is needed (Authorization: Bearer TOKEN), and this one "
		       "is missing or wrong");
		return;
	}
	if ((size_t)n < h.len + h.body_len) {
		/* its body is on its way, unless the client is done sending */
		if (hup)
			drop(g, c, true);
		return;
	}
	busy[0] = '\0';
	epoll_ctl(g->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	if (g->o.pass(g->o.ctx, c->fd, (const struct sockaddr *)&c->ss, c->len, busy,
		      sizeof(busy))) {
		drop(g, c, false);
		return;
	}
	/* back in the set, to linger after the answer */
	ev.data.ptr = c;
	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, c->fd, &ev)) {
		drop(g, c, true);
		return;
	}
	snprintf(why, sizeof(why), "503: %s", busy);
	say(g, now, c, why);
	refuse(g, c, now, 503, "Retry-After: 5\r\n", busy);
}

static void cut_off(struct http_gate *g, struct gate_conn *c, uint64_t now, const char *why)
{
	char line[200];

	snprintf(line, sizeof(line), "408: %s", why);
	say(g, now, c, line);
	refuse(g, c, now, 408, NULL, why);
}

static void accept_one(struct http_gate *g, uint64_t now, int fd, const struct sockaddr_storage *ss,
		       socklen_t len)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLET | EPOLLRDHUP};
	struct gate_conn *c = calloc(1, sizeof(*c)), *o;
	unsigned same = 0;
	char why[160];

	if (!c) {
		close(fd);
		return;
	}
	c->fd = fd;
	c->ss = *ss;
	c->len = len;
	c->deadline = now + HTTP_GATE_DEADLINE_MS * 1000000ULL;
	c->prev = g->tail;
	if (g->tail)
		g->tail->next = c;
	else
		g->head = c;
	g->tail = c;
	g->nr++;
	ev.data.ptr = c;
	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		drop(g, c, true);
		return;
	}
	for (o = g->head; o != c; o = o->next)
		same += !o->lingering && same_address(o, c);
	if (same >= HTTP_GATE_PER_ADDRESS) {
		snprintf(why, sizeof(why),
			 "429: %u requests from this address are arriving already (at most %d "
			 "at once)",
			 same, HTTP_GATE_PER_ADDRESS);
		say(g, now, c, why);
		refuse(g, c, now, 429, "Retry-After: 5\r\n", why + 5);
		return;
	}
	if (g->nr <= HTTP_GATE_MAX)
		return;
	/* full: the oldest unfinished request makes room (an answered one first) */
	for (o = g->head; o && !o->lingering; o = o->next)
		;
	if (o) {
		drop(g, o, true);
		return;
	}
	snprintf(why, sizeof(why),
		 "the request did not arrive whole before %d newer connections (the server is "
		 "busy)",
		 HTTP_GATE_MAX);
	cut_off(g, g->head, now, why);
}

static void accept_new(struct http_gate *g, uint64_t now)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int i, fd;

	for (i = 0; i < GATE_ACCEPTS_PER_RUN; i++) {
		len = sizeof(ss);
		fd = accept4(g->o.listen_fd, (struct sockaddr *)&ss, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				log_debug("http: accept: %s", strerror(errno));
			return;
		}
		accept_one(g, now, fd, &ss, len);
	}
}

void http_gate_run(struct http_gate *g, uint64_t now)
{
	struct epoll_event evs[64];
	struct gate_conn *c, *next;
	char why[160];
	int i, n;

	n = epoll_wait(g->epfd, evs, 64, 0);
	for (i = 0; i < n; i++) {
		c = evs[i].data.ptr;
		if (c == (void *)listen_tag)
			accept_new(g, now);
		else if (c->dead)
			continue;
		else if (c->lingering)
			linger_read(g, c);
		else
			read_request(g, c, now, evs[i].events & (EPOLLRDHUP | EPOLLHUP));
	}
	for (c = g->head; c; c = next) {
		next = c->next;
		if (now < c->deadline)
			continue;
		if (c->lingering) {
			drop(g, c, true);
			continue;
		}
		snprintf(why, sizeof(why), "the request did not arrive whole within %d s",
			 HTTP_GATE_DEADLINE_MS / 1000);
		cut_off(g, c, now, why);
	}
	free_dead(g);
}

int http_gate_timeout_ms(const struct http_gate *g, uint64_t now)
{
	uint64_t t = UINT64_MAX;
	const struct gate_conn *c;

	for (c = g->head; c; c = c->next)
		if (c->deadline < t)
			t = c->deadline;
	if (t == UINT64_MAX)
		return -1;
	return t <= now ? 0 : (int)((t - now + 999999) / 1000000);
}

unsigned http_gate_connections(const struct http_gate *g)
{
	return g->nr;
}

int http_gate_fd(const struct http_gate *g)
{
	return g->epfd;
}

struct http_gate *http_gate__new(const struct http_gate_opts *o)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = (void *)listen_tag};
	struct http_gate *g = calloc(1, sizeof(*g));
	int err;

	if (!g)
		return NULL;
	g->o = *o;
	g->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (g->epfd < 0 || epoll_ctl(g->epfd, EPOLL_CTL_ADD, o->listen_fd, &ev)) {
		err = errno;
		if (g->epfd >= 0)
			close(g->epfd);
		free(g);
		errno = err;
		return NULL;
	}
	return g;
}

void http_gate__free(struct http_gate *g)
{
	if (!g)
		return;
	while (g->head)
		drop(g, g->head, true);
	free_dead(g);
	close(g->epfd);
	free(g);
}
