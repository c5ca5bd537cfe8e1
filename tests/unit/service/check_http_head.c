// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the HTTP gate's reading of a request head
 * (service/http_head.h): whole or not, the statuses and words of Go's
 * server for what is not a request, and the answer's bytes.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "service/http_head.h"
#include "check_main.h"

static enum http_head_state parse(const char *s, struct http_head *h)
{
	return http_head_parse(s, strlen(s), h);
}

START_TEST(test_whole)
{
	static const char req[] = "GET /debug/pprof/profile?seconds=3 HTTP/1.1\r\nHost: x\r\n"
				  "Authorization:  Bearer abc \r\n\r\n";
	struct http_head h;
	size_t i;

	ck_assert_int_eq(parse(req, &h), HTTP_HEAD_OK);
	ck_assert_uint_eq(h.len, strlen(req));
	ck_assert(h.http11);
	ck_assert_uint_eq(h.body_len, 0);
	ck_assert_uint_eq(h.auth_len, 10);
	ck_assert(!strncmp(h.auth, "Bearer abc", 10));
	/* every prefix is incomplete, never bad */
	for (i = 0; i < strlen(req); i++)
		ck_assert_int_eq(http_head_parse(req, i, &h), HTTP_HEAD_INCOMPLETE);
	/* bare LFs, leading blank lines, HTTP/1.0 without Host, a folded line */
	ck_assert_int_eq(parse("\r\nGET / HTTP/1.0\nX: a\n b\n\n", &h), HTTP_HEAD_OK);
	ck_assert(!h.http11);
	ck_assert_ptr_null(h.auth);
	/* a body: the head is whole, its length said */
	ck_assert_int_eq(parse("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\nab", &h),
			 HTTP_HEAD_OK);
	ck_assert_uint_eq(h.body_len, 12);
	/* two Authorization headers: none taken */
	ck_assert_int_eq(
		parse("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n",
		      &h),
		HTTP_HEAD_OK);
	ck_assert_ptr_null(h.auth);
}
END_TEST

static void bad(const char *req, unsigned status, const char *why)
{
	struct http_head h;

	ck_assert_int_eq(parse(req, &h), HTTP_HEAD_BAD);
	ck_assert_uint_eq(h.status, status);
	ck_assert_msg(strstr(h.why, why), "'%s' does not say '%s'", h.why, why);
}

START_TEST(test_bad)
{
	char *big;

	bad("garbage\r\n\r\n", 400, "400 Bad Request: malformed HTTP request line");
	bad("GET\r\n", 400, "malformed HTTP request line");
	bad("GET /\r\n", 400, "malformed HTTP request line");
	bad("GET  / HTTP/1.1\r\n", 400, "malformed HTTP request line");
	bad("GET /a\x01 HTTP/1.1\r\n", 400, "control character");
	bad("GET / HTTP/1.1x\r\n", 400, "malformed HTTP version");
	bad("GET / FOO\r\n", 400, "malformed HTTP version");
	bad("GET / HTTP/2.0\r\n", 505, "505 HTTP Version Not Supported");
	bad("GET / HTTP/1.2\r\n", 505, "unsupported protocol version");
	/* junk is answered before its line ends */
	bad("\x16\x03\x01\x02", 400, "not HTTP/1.x");
	bad("GE(", 400, "malformed HTTP request line");
	bad("GET / HTTP/1.1\r\n\r\n", 400, "missing required Host header");
	bad("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 400, "too many Host headers");
	bad("GET / HTTP/1.1\r\nHost: a\r\nno colon\r\n", 400, "malformed MIME header line");
	bad("GET / HTTP/1.1\r\n: v\r\n", 400, "malformed MIME header line");
	bad("GET / HTTP/1.1\r\n folded first\r\n", 400, "malformed MIME header initial line");
	bad("GET / HTTP/1.1\r\nContent-Length: 1x\r\n", 400, "bad Content-Length");
	bad("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n", 400, "conflicting");
	bad("GET / HTTP/1.1\r\nContent-Length: 16385\r\n", 413, "413 Request Entity Too Large");
	bad("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n", 501, "unsupported transfer");
	/* 32 KiB of head without its end, or a whole one over it: 431 */
	big = malloc(HTTP_HEAD_MAX + 64);
	ck_assert_ptr_nonnull(big);
	strcpy(big, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: ");
	memset(big + strlen(big), 'a', HTTP_HEAD_MAX);
	big[HTTP_HEAD_MAX + 10] = '\0';
	bad(big, 431, "431 Request Header Fields Too Large");
	strcpy(big + HTTP_HEAD_MAX + 10, "\r\n\r\n");
	bad(big, 431, "over 32 KiB");
	memset(big, 'G', HTTP_HEAD_MAX);
	big[HTTP_HEAD_MAX] = '\0';
	bad(big, 431, "request line is too long");
	free(big);
}
END_TEST

START_TEST(test_answer)
{
	char buf[512];
	size_t n = http_head_answer(buf, sizeof(buf), 431, "Retry-After: 5\r\n", "too big\n");

	ck_assert_uint_eq(n, strlen(buf));
	ck_assert_str_eq(buf, "HTTP/1.1 431 Request Header Fields Too Large\r\n"
			      "Content-Type: text/plain; charset=utf-8\r\n"
			      "X-Content-Type-Options: nosniff\r\n"
			      "X-Go-Pprof: 1\r\n"
			      "Connection: close\r\n"
			      "Content-Length: 8\r\n"
			      "Retry-After: 5\r\n"
			      "\r\ntoo big\n");
	/* truncated, never overrun */
	ck_assert_uint_eq(http_head_answer(buf, 16, 400, NULL, "x"), 15);
	ck_assert_str_eq(http_status_text(408), "Request Timeout");
	ck_assert_str_eq(http_status_text(299), "Error");
}
END_TEST

static Suite *http_head_suite(void)
{
	Suite *s = suite_create("http_head");
	TCase *tc = tcase_create("head");

	tcase_add_test(tc, test_whole);
	tcase_add_test(tc, test_bad);
	tcase_add_test(tc, test_answer);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(http_head_suite)
