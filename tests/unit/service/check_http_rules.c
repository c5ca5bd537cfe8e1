// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the HTTP endpoint's rules (service/http_rules.h): listen
 * addresses, `seconds`, the bearer token and its file; and the config keys
 * that use them.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service/daemon_config.h"
#include "service/http_rules.h"
#include "check_main.h"

START_TEST(test_addr)
{
	struct http_addr a;
	char msg[256];

	ck_assert_int_eq(http_addr_parse("127.0.0.1:6060", &a, msg, sizeof(msg)), 0);
	ck_assert(a.is_loopback && !a.is_unix);
	ck_assert_uint_eq(ntohs(((struct sockaddr_in *)&a.ss)->sin_port), 6060);
	ck_assert_int_eq(http_addr_parse("127.1.2.3:1", &a, msg, sizeof(msg)), 0);
	ck_assert(a.is_loopback);
	ck_assert_int_eq(http_addr_parse("0.0.0.0:6060", &a, msg, sizeof(msg)), 0);
	ck_assert(!a.is_loopback);
	ck_assert_int_eq(http_addr_parse("10.1.2.3:65535", &a, msg, sizeof(msg)), 0);
	ck_assert(!a.is_loopback);
	ck_assert_int_eq(http_addr_parse("[::1]:6060", &a, msg, sizeof(msg)), 0);
	ck_assert(a.is_loopback);
	ck_assert_uint_eq(a.ss.ss_family, AF_INET6);
	ck_assert_int_eq(http_addr_parse("[::]:6060", &a, msg, sizeof(msg)), 0);
	ck_assert(!a.is_loopback);
	ck_assert_int_eq(http_addr_parse("/run/fxsampler/pprof.sock", &a, msg, sizeof(msg)), 0);
	ck_assert(a.is_unix && !a.is_loopback);

	ck_assert_int_eq(http_addr_parse("6060", &a, msg, sizeof(msg)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "is not ADDRESS:PORT"));
	ck_assert_int_eq(http_addr_parse("localhost:6060", &a, msg, sizeof(msg)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "'localhost' is not a numeric IPv4 address"));
	ck_assert_int_eq(http_addr_parse("127.0.0.1:0", &a, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(http_addr_parse("127.0.0.1:65536", &a, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(http_addr_parse("127.0.0.1:60x", &a, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(http_addr_parse("::1:6060", &a, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(http_addr_parse("[::1]6060", &a, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(http_addr_parse("[zz]:6060", &a, msg, sizeof(msg)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "not a numeric IPv6 address"));
	ck_assert_int_eq(http_addr_parse("relative.sock", &a, msg, sizeof(msg)), -EINVAL);
}
END_TEST

START_TEST(test_seconds)
{
	unsigned v;
	char msg[256];

	ck_assert_int_eq(http_seconds_parse(NULL, 60, &v, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(v, 30);
	ck_assert_int_eq(http_seconds_parse(NULL, 10, &v, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(v, 10);
	ck_assert_int_eq(http_seconds_parse("14", 60, &v, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(v, 14);
	ck_assert_int_eq(http_seconds_parse("60", 60, &v, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(v, 60);

	ck_assert_int_eq(http_seconds_parse("0", 60, &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "seconds: 0 is not in 1..60 (http_max_seconds)");
	ck_assert_int_eq(http_seconds_parse("61", 60, &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "seconds: 61 is not in 1..60 (http_max_seconds)");
	ck_assert_int_eq(http_seconds_parse("-1", 60, &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "seconds: '-1' is not a whole number of seconds");
	ck_assert_int_eq(http_seconds_parse("abc", 60, &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(http_seconds_parse("", 60, &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(http_seconds_parse("1.5", 60, &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(http_seconds_parse(" 5", 60, &v, msg, sizeof(msg)), -EINVAL);
	ck_assert_int_eq(http_seconds_parse("99999999999999999999", 60, &v, msg, sizeof(msg)),
			 -EINVAL);
}
END_TEST

START_TEST(test_bearer)
{
	const uint8_t tok[] = "s3cret-token";
	size_t n = sizeof(tok) - 1;

	ck_assert(http_bearer_ok("Bearer s3cret-token", tok, n));
	ck_assert(http_bearer_ok("bearer s3cret-token", tok, n));
	ck_assert(!http_bearer_ok(NULL, tok, n));
	ck_assert(!http_bearer_ok("", tok, n));
	ck_assert(!http_bearer_ok("Bearer ", tok, n));
	ck_assert(!http_bearer_ok("Bearer s3cret-toke", tok, n));
	ck_assert(!http_bearer_ok("Bearer s3cret-tokenX", tok, n));
	ck_assert(!http_bearer_ok("Bearer s3cret-tokeN", tok, n));
	ck_assert(!http_bearer_ok("Basic s3cret-token", tok, n));
	ck_assert(!http_bearer_ok("s3cret-token", tok, n));
	/* no token configured: nothing matches */
	ck_assert(!http_bearer_ok("Bearer ", tok, 0));
}
END_TEST

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

START_TEST(test_token_file)
{
	char dir[] = "/tmp/fxs_token.XXXXXX", path[64], msg[256];
	uint8_t buf[HTTP_TOKEN_MAX];
	size_t len;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/token", dir);
	write_file(path, "abc123\n", 0600);
	ck_assert_int_eq(http_token_load(path, buf, &len, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(len, 6);
	ck_assert_int_eq(memcmp(buf, "abc123", 6), 0);
	write_file(path, "abc123", 0640);
	ck_assert_int_eq(http_token_load(path, buf, &len, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(len, 6);

	write_file(path, "abc123\n", 0644);
	ck_assert_int_eq(http_token_load(path, buf, &len, msg, sizeof(msg)), -EACCES);
	ck_assert_ptr_nonnull(strstr(msg, "others cannot read"));
	write_file(path, "\n", 0600);
	ck_assert_int_eq(http_token_load(path, buf, &len, msg, sizeof(msg)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "empty"));
	write_file(path, "abc 123\n", 0600);
	ck_assert_int_eq(http_token_load(path, buf, &len, msg, sizeof(msg)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(msg, "blank or control"));
	unlink(path);
	ck_assert_int_eq(http_token_load(path, buf, &len, msg, sizeof(msg)), -ENOENT);
	rmdir(dir);
}
END_TEST

static int parse(const char *text, struct daemon_config *c, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	daemon_config_defaults(c);
	ret = daemon_config_parse(f, "t.conf", c, err, len);
	fclose(f);
	return ret;
}

START_TEST(test_config)
{
	struct daemon_config c;
	char err[512];

	daemon_config_defaults(&c);
	ck_assert_str_eq(c.http_listen, "");
	ck_assert_uint_eq(c.http_max_scrapes, 4);
	ck_assert_uint_eq(c.http_max_seconds, 60);
	ck_assert_int_eq(parse("http_listen = 127.0.0.1:6060\nhttp_max_scrapes = 8\n"
			       "http_max_seconds = 2m\n",
			       &c, err, sizeof(err)),
			 0);
	ck_assert_str_eq(c.http_listen, "127.0.0.1:6060");
	ck_assert_uint_eq(c.http_max_scrapes, 8);
	ck_assert_uint_eq(c.http_max_seconds, 120);
	ck_assert_int_eq(parse("http_listen = /run/fxsampler/pprof.sock\n", &c, err, sizeof(err)),
			 0);
	/* "off" turns it off (a key set twice is refused, as any other) */
	ck_assert_int_eq(parse("http_listen = off\n", &c, err, sizeof(err)), 0);
	ck_assert_str_eq(c.http_listen, "");

	/* any other address needs a token */
	ck_assert_int_eq(parse("http_listen = 0.0.0.0:6060\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf: http_listen = 0.0.0.0:6060 is not loopback: it needs "
			      "http_token_file (a bearer token), or listen on 127.0.0.1 or a unix "
			      "socket");
	ck_assert_int_eq(parse("http_listen = 0.0.0.0:6060\nhttp_token_file = /etc/t\n", &c, err,
			       sizeof(err)),
			 0);
	ck_assert_int_eq(parse("http_listen = localhost:6060\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "t.conf:1: 'localhost' is not a numeric IPv4"));
	ck_assert_int_eq(parse("http_token_file = t\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(parse("http_max_scrapes = 0\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(parse("http_max_scrapes = 65\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(parse("http_max_seconds = 0\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(parse("http_max_seconds = 2h\n", &c, err, sizeof(err)), -EINVAL);
	/* the host capture's off-CPU intervals, for /debug/pprof/offcpu */
	ck_assert(!c.continuous_off_cpu);
	ck_assert_int_eq(parse("continuous_off_cpu = yes\n", &c, err, sizeof(err)), 0);
	ck_assert(c.continuous_off_cpu);
	ck_assert_int_eq(parse("continuous_off_cpu = maybe\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:1: continuous_off_cpu: 'maybe' is not yes or no");
}
END_TEST

static Suite *http_rules_suite(void)
{
	Suite *s = suite_create("http_rules");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_addr);
	tcase_add_test(tc, test_seconds);
	tcase_add_test(tc, test_bearer);
	tcase_add_test(tc, test_token_file);
	tcase_add_test(tc, test_config);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(http_rules_suite)
