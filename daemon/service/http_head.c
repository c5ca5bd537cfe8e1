// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A request's head, before libmicrohttpd sees it (http_head.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "service/http_head.h"

/* RFC 9110's tchar: what a method and a header name are made of. */
static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static enum http_head_state bad(struct http_head *h, unsigned status, const char *why)
{
	h->status = status;
	snprintf(h->why, sizeof(h->why), "%u %s: %s", status, http_status_text(status), why);
	return HTTP_HEAD_BAD;
}

/* The line at p (up to its LF, a CR before it dropped): its length, or -1 when not whole. */
static long line_len(const char *p, const char *end, const char **next)
{
	const char *lf = memchr(p, '\n', (size_t)(end - p));

	if (!lf)
		return -1;
	*next = lf + 1;
	return lf > p && lf[-1] == '\r' ? lf - 1 - p : lf - p;
}

/*
 * "METHOD SP TARGET SP HTTP/d.d". The method is checked as its bytes come
 * (a TLS hello or binary junk is answered at once); the rest once whole.
 */
static enum http_head_state request_line(const char *p, const char *end, struct http_head *h,
					 const char **next)
{
	const char *sp1, *sp2, *v;
	long n = line_len(p, end, next);
	const char *stop = n < 0 ? end : p + n;

	for (sp1 = p; sp1 < stop && *sp1 != ' '; sp1++)
		if (!is_tchar((unsigned char)*sp1))
			return bad(h, 400, "malformed HTTP request line (not HTTP/1.x?)");
	if (n < 0)
		return HTTP_HEAD_INCOMPLETE;
	if (sp1 == p || sp1 == stop)
		return bad(h, 400, "malformed HTTP request line");
	for (sp2 = sp1 + 1; sp2 < stop && *sp2 != ' '; sp2++)
		if ((unsigned char)*sp2 < 0x21 || *sp2 == 0x7f)
			return bad(h, 400,
				   "malformed HTTP request line: a control character "
				   "in the target");
	if (sp2 == sp1 + 1 || sp2 == stop)
		return bad(h, 400, "malformed HTTP request line");
	v = sp2 + 1;
	if (stop - v != 8 || strncmp(v, "HTTP/", 5) || v[5] < '0' || v[5] > '9' || v[6] != '.' ||
	    v[7] < '0' || v[7] > '9')
		return bad(h, 400, "malformed HTTP version");
	if (v[5] != '1' || v[7] > '1')
		return bad(h, 505, "unsupported protocol version");
	h->http11 = v[7] == '1';
	return HTTP_HEAD_OK;
}

static bool name_is(const char *p, size_t n, const char *name)
{
	return strlen(name) == n && !strncasecmp(p, name, n);
}

/* The value of a header line, blanks around it dropped. */
static void header_value(const char *colon, const char *stop, const char **v, size_t *len)
{
	const char *a = colon + 1, *b = stop;

	while (a < b && (*a == ' ' || *a == '\t'))
		a++;
	while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	*v = a;
	*len = (size_t)(b - a);
}

static enum http_head_state content_length(const char *v, size_t n, struct http_head *h, bool *seen)
{
	size_t i, val = 0;

	if (!n || n > 12)
		return bad(h, 400, "bad Content-Length");
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return bad(h, 400, "bad Content-Length");
		val = val * 10 + (size_t)(v[i] - '0');
	}
	if (*seen && val != h->body_len)
		return bad(h, 400, "conflicting Content-Length headers");
	*seen = true;
	h->body_len = val;
	if (val > HTTP_BODY_MAX)
		return bad(h, 413, "a GET of a profile takes no request body this big");
	return HTTP_HEAD_OK;
}

enum http_head_state http_head_parse(const char *buf, size_t len, struct http_head *h)
{
	const char *p = buf, *end = buf + len, *next = NULL, *colon, *v;
	unsigned hosts = 0, auths = 0;
	bool have_cl = false, first = true;
	enum http_head_state st;
	size_t vlen;
	long n;

	memset(h, 0, sizeof(*h));
	/* RFC 9112 2.2: blank lines before the request line are ignored */
	while (p < end && (*p == '\r' || *p == '\n') && p - buf < 8)
		p++;
	st = request_line(p, end, h, &next);
	if (st != HTTP_HEAD_OK)
		return st == HTTP_HEAD_INCOMPLETE && len >= HTTP_HEAD_MAX
			       ? bad(h, 431, "the request line is too long")
			       : st;
	for (p = next;; p = next, first = false) {
		if (p - buf > HTTP_HEAD_MAX)
			return bad(h, 431, "the request's headers are over 32 KiB");
		n = line_len(p, end, &next);
		if (n < 0)
			return len >= HTTP_HEAD_MAX
				       ? bad(h, 431, "the request's headers are over 32 KiB")
				       : HTTP_HEAD_INCOMPLETE;
		if (!n)
			break;
		if (*p == ' ' || *p == '\t') {
			/* an obsolete folded continuation of the line before */
			if (first)
				return bad(h, 400, "malformed MIME header initial line");
			continue;
		}
		for (colon = p; colon < p + n && is_tchar((unsigned char)*colon); colon++)
			;
		if (colon == p || colon == p + n || *colon != ':')
			return bad(h, 400, "malformed MIME header line");
		header_value(colon, p + n, &v, &vlen);
		if (name_is(p, (size_t)(colon - p), "Host")) {
			hosts++;
		} else if (name_is(p, (size_t)(colon - p), "Authorization")) {
			h->auth = v;
			h->auth_len = vlen;
			auths++;
		} else if (name_is(p, (size_t)(colon - p), "Content-Length")) {
			st = content_length(v, vlen, h, &have_cl);
			if (st != HTTP_HEAD_OK)
				return st;
		} else if (name_is(p, (size_t)(colon - p), "Transfer-Encoding")) {
			return bad(h, 501,
				   "unsupported transfer encoding (send a body with a "
				   "Content-Length, or none)");
		}
	}
	h->len = (size_t)(next - buf);
	if (h->len > HTTP_HEAD_MAX)
		return bad(h, 431, "the request's headers are over 32 KiB");
	if (hosts > 1)
		return bad(h, 400, "too many Host headers");
	if (h->http11 && !hosts)
		return bad(h, 400, "missing required Host header");
	if (auths != 1)
		h->auth = NULL, h->auth_len = 0;
	return HTTP_HEAD_OK;
}

const char *http_status_text(unsigned status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 413:
		return "Request Entity Too Large";
	case 429:
		return "Too Many Requests";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	case 503:
		return "Service Unavailable";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Error";
	}
}

size_t http_head_answer(char *buf, size_t len, unsigned status, const char *extra, const char *text)
{
	int n = snprintf(buf, len,
			 "HTTP/1.1 %u %s\r\n"
			 "Content-Type: text/plain; charset=utf-8\r\n"
			 "X-Content-Type-Options: nosniff\r\n"
			 "X-Go-Pprof: 1\r\n"
			 "Connection: close\r\n"
			 "Content-Length: %zu\r\n"
			 "%s\r\n%s",
			 status, http_status_text(status), strlen(text), extra ? extra : "", text);

	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}
