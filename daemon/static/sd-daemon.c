// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sd_listen_fds, sd_is_socket_unix and sd_notify as systemd documents them
 * (sd_listen_fds(3), sd_is_fifo(3), sd_notify(3)), for the statically linked
 * fxsamplerd: the environment protocol is small and stable, and Debian has
 * no libsystemd.a. Errors are -errno, as libsystemd's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "systemd/sd-daemon.h"

static void unset_listen_env(void)
{
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
}

/* A non-negative decimal that fits an int, or -EINVAL. */
static int parse_count(const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || *s == '-')
		return -EINVAL;
	return (int)v;
}

int sd_listen_fds(int unset_environment)
{
	const char *pid_s = getenv("LISTEN_PID"), *fds_s = getenv("LISTEN_FDS");
	int pid, n, r;

	if (!pid_s || !fds_s) {
		r = 0;
		goto out;
	}
	pid = parse_count(pid_s, INT_MAX);
	if (pid < 0) {
		r = pid;
		goto out;
	}
	/* The fds are meant for another process (we were forked or exec'd). */
	if (pid != getpid()) {
		r = 0;
		goto out;
	}
	n = parse_count(fds_s, INT_MAX - SD_LISTEN_FDS_START);
	if (n < 0) {
		r = n;
		goto out;
	}
	for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + n; fd++) {
		int flags = fcntl(fd, F_GETFD);

		if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0) {
			r = -errno;
			goto out;
		}
	}
	r = n;
out:
	if (unset_environment)
		unset_listen_env();
	return r;
}

int sd_is_socket_unix(int fd, int type, int listening, const char *path, size_t length)
{
	struct sockaddr_un addr;
	socklen_t len = sizeof(addr);
	int val;
	struct stat st;

	if (fd < 0)
		return -EBADF;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return 0;
	len = sizeof(val);
	if (type != 0) {
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &val, &len) < 0)
			return -errno;
		if (val != type)
			return 0;
	}
	if (listening >= 0) {
		len = sizeof(val);
		if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &val, &len) < 0)
			return -errno;
		if (!val != !listening)
			return 0;
	}
	len = sizeof(addr);
	memset(&addr, 0, sizeof(addr));
	if (getsockname(fd, (struct sockaddr *)&addr, &len) < 0)
		return -errno;
	if (len < sizeof(sa_family_t) || addr.sun_family != AF_UNIX)
		return 0;
	if (path) {
		size_t have = len - offsetof(struct sockaddr_un, sun_path);

		if (length == 0)
			length = strlen(path);
		/* A path name may be stored with its NUL; an abstract one has none. */
		if (path[0] && have > 0 && addr.sun_path[have - 1] == '\0')
			have--;
		if (have != length || memcmp(addr.sun_path, path, length))
			return 0;
	}
	return 1;
}

int sd_notify(int unset_environment, const char *state)
{
	const char *e = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t n, len;
	ssize_t sent;
	int fd, r;

	if (!state) {
		r = -EINVAL;
		goto out;
	}
	if (!e) {
		r = 0;
		goto out;
	}
	n = strlen(e);
	/* A path, or '@' for a name in the abstract namespace. */
	if (n < 2 || n >= sizeof(addr.sun_path) || (e[0] != '/' && e[0] != '@')) {
		r = -EINVAL;
		goto out;
	}
	memcpy(addr.sun_path, e, n);
	if (e[0] == '@')
		addr.sun_path[0] = '\0';
	len = offsetof(struct sockaddr_un, sun_path) + n + (e[0] == '/');
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&addr,
		      (socklen_t)len);
	r = sent < 0 ? -errno : 1;
	close(fd);
out:
	if (unset_environment)
		unsetenv("NOTIFY_SOCKET");
	return r;
}
