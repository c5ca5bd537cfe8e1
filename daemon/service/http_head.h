/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A request's head as fxsamplerd's HTTP gate (http_gate.h) reads it before
 * libmicrohttpd sees the connection: is it whole yet, is it an HTTP/1.x
 * request at all, and the answer to give when it is not, in the words and
 * statuses Go's net/http server uses (its error bodies are text/plain; ours
 * carry X-Go-Pprof: 1 as net/http/pprof's do). Pure: no sockets, no logging.
 */
#ifndef FXS_SERVICE_HTTP_HEAD_H
#define FXS_SERVICE_HTTP_HEAD_H

#include <stdbool.h>
#include <stddef.h>

/* The request line and headers, blank line included: a bigger head gets 431 (Go: 1 MiB). */
#define HTTP_HEAD_MAX (32 * 1024)
/* A request body (Content-Length) the gate waits for: a bigger one gets 413. */
#define HTTP_BODY_MAX (16 * 1024)

enum http_head_state {
	HTTP_HEAD_INCOMPLETE, /* more bytes may make it whole */
	HTTP_HEAD_OK,	      /* the head whole and well formed */
	HTTP_HEAD_BAD,	      /* answer status with why */
};

struct http_head {
	size_t len; /* the head's bytes, leading blank lines and the final blank line included */
	size_t body_len; /* its Content-Length, 0 without one */
	bool http11;	 /* HTTP/1.1 (else 1.0) */
	/* The Authorization header's value (into the buffer), NULL when absent or repeated. */
	const char *auth;
	size_t auth_len;
	unsigned status; /* HTTP_HEAD_BAD: 400, 411, 413, 431, 505 */
	char why[160];	 /* HTTP_HEAD_BAD: the answer's text, without a newline */
};

/*
 * Read the len bytes a client sent so far. A malformed request line is
 * answered as soon as the line is whole, not after the headers. OK once the
 * head is whole: its body (body_len bytes after len) may still be on its way.
 */
enum http_head_state http_head_parse(const char *buf, size_t len, struct http_head *h);

/* Go's reason phrase for a status this endpoint answers with; "Error" for others. */
const char *http_status_text(unsigned status);

/*
 * A whole HTTP/1.1 answer into buf: status, text/plain with X-Go-Pprof: 1,
 * Connection: close, extra (whole header lines "Name: value\r\n", or NULL),
 * then text. The bytes written (truncated to len - 1 at worst).
 */
size_t http_head_answer(char *buf, size_t len, unsigned status, const char *extra,
			const char *text);

#endif /* FXS_SERVICE_HTTP_HEAD_H */
