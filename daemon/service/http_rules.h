/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The rules of fxsamplerd's HTTP endpoint that need no server: the listen
 * address (`http_listen`), a scrape's `seconds`, the bearer token and its
 * file. Pure: no libmicrohttpd, no logging; the server is http.c.
 */
#ifndef FXS_SERVICE_HTTP_RULES_H
#define FXS_SERVICE_HTTP_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Go's net/http/pprof default. */
#define HTTP_DEFAULT_SECONDS 30
/* The longest token a token file may hold. */
#define HTTP_TOKEN_MAX 512

struct http_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	bool is_unix;	  /* an absolute path: a unix socket, guarded by its file mode */
	bool is_loopback; /* 127.0.0.0/8 or ::1 */
};

/*
 * "127.0.0.1:6060", "[::1]:6060" (numeric addresses only, port 1..65535) or
 * an absolute path of a unix socket. 0, or -EINVAL with the reason in msg.
 */
int http_addr_parse(const char *s, struct http_addr *ret, char *msg, size_t msg_len);

/*
 * The `seconds` of a scrape: NULL (absent) is HTTP_DEFAULT_SECONDS, or max
 * when that is smaller; else a decimal in 1..max, nothing else. 0, or
 * -EINVAL with the reason in msg (for the 400 answer).
 */
int http_seconds_parse(const char *s, unsigned max, unsigned *ret, char *msg, size_t msg_len);

/*
 * Whether an Authorization header is "Bearer TOKEN" with token's len bytes,
 * compared in time that does not depend on where they differ. NULL header:
 * false.
 */
bool http_bearer_ok(const char *header, const uint8_t *token, size_t len);

/*
 * Read the token file at path into buf (HTTP_TOKEN_MAX bytes at most; one
 * trailing newline dropped). Refused: a file others may read, an empty token,
 * one with blanks or control characters. 0, or -errno with the reason in msg.
 */
int http_token_load(const char *path, uint8_t *buf, size_t *len, char *msg, size_t msg_len);

#endif /* FXS_SERVICE_HTTP_RULES_H */
