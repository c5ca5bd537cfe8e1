// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The HTTP endpoint's rules (http_rules.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "service/http_rules.h"

static int parse_port(const char *s, uint16_t *ret)
{
	unsigned long v = 0;
	const char *p;

	if (!*s || strlen(s) > 5)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (!v || v > 65535)
		return -EINVAL;
	*ret = (uint16_t)v;
	return 0;
}

int http_addr_parse(const char *s, struct http_addr *ret, char *msg, size_t msg_len)
{
	char host[64];
	const char *colon, *h, *port;
	size_t hl;
	uint16_t p;

	memset(ret, 0, sizeof(*ret));
	if (s[0] == '/') {
		struct sockaddr_un *un = (struct sockaddr_un *)&ret->ss;

		if (strlen(s) >= sizeof(un->sun_path)) {
			snprintf(msg, msg_len, "'%s' is longer than a unix socket path may be", s);
			return -EINVAL;
		}
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, s);
		ret->len = sizeof(*un);
		ret->is_unix = true;
		return 0;
	}
	if (s[0] == '[') {
		colon = strstr(s, "]:");
		h = s + 1;
		port = colon ? colon + 2 : NULL;
	} else {
		colon = strrchr(s, ':');
		h = s;
		port = colon ? colon + 1 : NULL;
	}
	hl = colon ? (size_t)(colon - h) : 0;
	if (!colon || !hl || hl >= sizeof(host) || parse_port(port, &p)) {
		snprintf(msg, msg_len,
			 "'%s' is not ADDRESS:PORT (127.0.0.1:6060, [::1]:6060) nor an absolute "
			 "unix socket path",
			 s);
		return -EINVAL;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (s[0] != '[') {
		struct sockaddr_in *in = (struct sockaddr_in *)&ret->ss;

		if (inet_pton(AF_INET, host, &in->sin_addr) != 1) {
			snprintf(msg, msg_len,
				 "'%s' is not a numeric IPv4 address (an IPv6 one goes in "
				 "brackets: [::1]:6060)",
				 host);
			return -EINVAL;
		}
		in->sin_family = AF_INET;
		in->sin_port = htons(p);
		ret->len = sizeof(*in);
		ret->is_loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ret->ss;

		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1) {
			snprintf(msg, msg_len, "'%s' is not a numeric IPv6 address", host);
			return -EINVAL;
		}
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		ret->len = sizeof(*in6);
		ret->is_loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	}
	return 0;
}

int http_seconds_parse(const char *s, unsigned max, unsigned *ret, char *msg, size_t msg_len)
{
	unsigned long v = 0;
	const char *p;

	if (!s) {
		*ret = HTTP_DEFAULT_SECONDS < max ? HTTP_DEFAULT_SECONDS : max;
		return 0;
	}
	for (p = s; *p && p - s < 10; p++) {
		if (*p < '0' || *p > '9')
			break;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (!*s || *p) {
		snprintf(msg, msg_len, "seconds: '%.32s' is not a whole number of seconds", s);
		return -EINVAL;
	}
	if (!v || v > max) {
		snprintf(msg, msg_len, "seconds: %lu is not in 1..%u (http_max_seconds)", v, max);
		return -EINVAL;
	}
	*ret = (unsigned)v;
	return 0;
}

bool http_bearer_ok(const char *header, const uint8_t *token, size_t len)
{
	static const char scheme[] = "Bearer ";
	const uint8_t *given;
	size_t glen, i;
	uint8_t diff;

	if (!header || !len || strncasecmp(header, scheme, sizeof(scheme) - 1))
		return false;
	given = (const uint8_t *)header + sizeof(scheme) - 1;
	glen = strlen((const char *)given);
	/*
	 * Every byte of the token is compared whatever the header holds: the
	 * time tells an attacker neither where a guess first differs nor the
	 * token's length.
	 */
	diff = glen != len;
	for (i = 0; i < len; i++)
		diff |= token[i] ^ (i < glen ? given[i] : 0);
	return !diff;
}

int http_token_load(const char *path, uint8_t *buf, size_t *len, char *msg, size_t msg_len)
{
	char tmp[HTTP_TOKEN_MAX + 2];
	struct stat st;
	ssize_t n;
	size_t i;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, msg_len, "http_token_file '%s': %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (st.st_mode & 0004)) {
		close(fd);
		snprintf(msg, msg_len,
			 "http_token_file '%s' is not a regular file that others cannot read "
			 "(chmod o-r)",
			 path);
		return -EACCES;
	}
	n = read(fd, tmp, sizeof(tmp));
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err) {
		snprintf(msg, msg_len, "http_token_file '%s': %s", path, strerror(-err));
		return err;
	}
	if (n > 0 && tmp[n - 1] == '\n')
		n--;
	if (n <= 0 || n > HTTP_TOKEN_MAX) {
		snprintf(msg, msg_len, "http_token_file '%s': the token is empty or over %d bytes",
			 path, HTTP_TOKEN_MAX);
		return -EINVAL;
	}
	for (i = 0; i < (size_t)n; i++) {
		if ((unsigned char)tmp[i] <= ' ' || tmp[i] == 0x7f) {
			snprintf(msg, msg_len,
				 "http_token_file '%s': the token has a blank or control "
				 "character",
				 path);
			return -EINVAL;
		}
	}
	memcpy(buf, tmp, (size_t)n);
	*len = (size_t)n;
	return 0;
}
