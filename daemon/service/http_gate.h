/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The HTTP endpoint's gate: it accepts the connections of http_listen and
 * holds each until its request's head (and Content-Length body) has arrived
 * whole, is an HTTP/1.x request (http_head.h) and carries the bearer token
 * when one is set; only then is the connection handed to libmicrohttpd
 * (http.c), with the request's bytes still unread in the socket. So a client
 * that sends slowly, sends junk or has no token never holds one of
 * libmicrohttpd's connections, and every refusal is answered in text/plain
 * with X-Go-Pprof: 1 (libmicrohttpd's own are HTML, and it answers a junk
 * request line by closing).
 *
 * Limits: a request must arrive within HTTP_GATE_DEADLINE_MS of its
 * connection (408 after); HTTP_GATE_PER_ADDRESS connections at once per
 * client address in the gate (429 for more); HTTP_GATE_MAX in all, the
 * oldest still unfinished one cut off (408) for a new one. Every connection
 * the gate answers is closed after its answer, the client's unread bytes
 * read and dropped for HTTP_GATE_LINGER_MS (so that its answer is not lost to
 * a reset). Sockets in its own epoll set (edge-triggered: a request is read
 * with MSG_PEEK, each arrival re-read whole, 48 KiB at most).
 */
#ifndef FXS_SERVICE_HTTP_GATE_H
#define FXS_SERVICE_HTTP_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define HTTP_GATE_DEADLINE_MS 5000
#define HTTP_GATE_LINGER_MS   1000
#define HTTP_GATE_PER_ADDRESS 8
#define HTTP_GATE_MAX	      256

struct http_gate;

/*
 * A connection whose request passed: hand fd (its request unread) on. true:
 * taken; false: refused (e.g. libmicrohttpd is at its limit), the gate
 * answers 503 with busy (a line, no newline).
 */
typedef bool (*http_gate_pass_fn)(void *ctx, int fd, const struct sockaddr *sa, socklen_t len,
				  char *busy, size_t busy_len);

struct http_gate_opts {
	int listen_fd; /* listening, non-blocking; not the gate's to close */
	const uint8_t *token;
	size_t token_len; /* 0: no token needed */
	http_gate_pass_fn pass;
	void *ctx;
};

/* NULL with errno set. */
struct http_gate *http_gate__new(const struct http_gate_opts *o);
/* Closes the connections it holds. NULL-safe. */
void http_gate__free(struct http_gate *g);
/* Readable when the gate has work: for the daemon's epoll set. */
int http_gate_fd(const struct http_gate *g);
/* Accept, read, answer and hand on what is ready; cut off what is late. now: CLOCK_BOOTTIME ns. */
void http_gate_run(struct http_gate *g, uint64_t now);
/* Milliseconds to the next deadline, -1 for none. */
int http_gate_timeout_ms(const struct http_gate *g, uint64_t now);
/* Connections the gate holds now. */
unsigned http_gate_connections(const struct http_gate *g);

#endif /* FXS_SERVICE_HTTP_GATE_H */
