// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of daemon/static/sd-daemon.c, the sd_listen_fds /
 * sd_is_socket_unix / sd_notify the static fxsamplerd (make cross) links
 * instead of libsystemd: the environment protocol of sd_listen_fds(3) and
 * sd_notify(3), on real sockets.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * The module itself, compiled in: it is not in libfxs.a (the native daemon
 * links libsystemd), and so every build of the unit tests (make check,
 * check-asan, check-valgrind) gets it without a rule of its own.
 */
#include "static/sd-daemon.c"
#include "check_main.h"

static void set_listen_env(const char *pid, const char *fds)
{
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", fds, 1);
}

static int unix_socket(int type, const char *path, bool listening)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, type, 0);

	ck_assert_int_ge(fd, 0);
	if (path) {
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
		unlink(path);
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	}
	if (listening)
		ck_assert_int_eq(listen(fd, 1), 0);
	return fd;
}

static const char *tmp_path(const char *name)
{
	static char buf[2][108];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s/fxs-sd-%d-%s", getenv("TMPDIR") ?: "/tmp",
		 (int)getpid(), name);
	return buf[i];
}

/* fds 3 and 4 are the protocol's: move whatever holds them (Check's files) away. */
static int saved[2];

static void save_fds(void)
{
	for (int i = 0; i < 2; i++) {
		saved[i] = fcntl(SD_LISTEN_FDS_START + i, F_DUPFD_CLOEXEC, 10);
		close(SD_LISTEN_FDS_START + i);
	}
}

static void restore_fds(void)
{
	for (int i = 0; i < 2; i++) {
		close(SD_LISTEN_FDS_START + i);
		if (saved[i] >= 0) {
			ck_assert_int_eq(dup2(saved[i], SD_LISTEN_FDS_START + i),
					 SD_LISTEN_FDS_START + i);
			close(saved[i]);
		}
	}
}

START_TEST(test_listen_fds)
{
	char pid[16];
	int fd;

	save_fds();
	fd = unix_socket(SOCK_STREAM, NULL, false);

	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	ck_assert_int_eq(sd_listen_fds(0), 0);

	/* One fd passed: it is fd 3 and becomes close-on-exec. */
	ck_assert_int_eq(dup2(fd, SD_LISTEN_FDS_START), SD_LISTEN_FDS_START);
	ck_assert_int_eq(fcntl(SD_LISTEN_FDS_START, F_SETFD, 0), 0);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	set_listen_env(pid, "1");
	ck_assert_int_eq(sd_listen_fds(0), 1);
	ck_assert(fcntl(SD_LISTEN_FDS_START, F_GETFD) & FD_CLOEXEC);
	ck_assert_ptr_nonnull(getenv("LISTEN_FDS"));
	ck_assert_int_eq(sd_listen_fds(1), 1);
	ck_assert_ptr_null(getenv("LISTEN_FDS"));
	ck_assert_ptr_null(getenv("LISTEN_PID"));

	/* Meant for another process (we are its child): none for us. */
	set_listen_env("1", "1");
	ck_assert_int_eq(sd_listen_fds(1), 0);
	ck_assert_ptr_null(getenv("LISTEN_FDS"));

	set_listen_env(pid, "two");
	ck_assert_int_eq(sd_listen_fds(1), -EINVAL);
	set_listen_env("-5", "1");
	ck_assert_int_eq(sd_listen_fds(1), -EINVAL);
	/* An fd that is not open. */
	set_listen_env(pid, "2");
	ck_assert_int_eq(fcntl(SD_LISTEN_FDS_START + 1, F_GETFD), -1);
	ck_assert_int_eq(sd_listen_fds(1), -EBADF);
	close(fd);
	restore_fds();
}
END_TEST

START_TEST(test_is_socket_unix)
{
	const char *path = tmp_path("stream");
	int lst = unix_socket(SOCK_STREAM, path, true);
	int unbound = unix_socket(SOCK_STREAM, NULL, false);
	int dgram = unix_socket(SOCK_DGRAM, NULL, false);
	int tcp = socket(AF_INET, SOCK_STREAM, 0);
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(sd_is_socket_unix(lst, SOCK_STREAM, 1, NULL, 0), 1);
	ck_assert_int_eq(sd_is_socket_unix(lst, SOCK_STREAM, 1, path, 0), 1);
	ck_assert_int_eq(sd_is_socket_unix(lst, SOCK_STREAM, 1, "/elsewhere", 0), 0);
	ck_assert_int_eq(sd_is_socket_unix(lst, SOCK_STREAM, -1, NULL, 0), 1);
	ck_assert_int_eq(sd_is_socket_unix(lst, SOCK_DGRAM, 1, NULL, 0), 0);
	ck_assert_int_eq(sd_is_socket_unix(lst, SOCK_STREAM, 0, NULL, 0), 0);
	ck_assert_int_eq(sd_is_socket_unix(unbound, SOCK_STREAM, 1, NULL, 0), 0);
	ck_assert_int_eq(sd_is_socket_unix(unbound, SOCK_STREAM, 0, NULL, 0), 1);
	ck_assert_int_eq(sd_is_socket_unix(dgram, SOCK_STREAM, -1, NULL, 0), 0);
	ck_assert_int_eq(sd_is_socket_unix(dgram, SOCK_DGRAM, -1, NULL, 0), 1);
	ck_assert_int_ge(tcp, 0);
	ck_assert_int_eq(sd_is_socket_unix(tcp, SOCK_STREAM, 0, NULL, 0), 0);
	ck_assert_int_eq(sd_is_socket_unix(p[0], 0, -1, NULL, 0), 0);
	ck_assert_int_eq(sd_is_socket_unix(-1, 0, -1, NULL, 0), -EBADF);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(sd_is_socket_unix(p[0], 0, -1, NULL, 0), -EBADF);
	close(tcp);
	close(dgram);
	close(unbound);
	close(lst);
	unlink(path);
}
END_TEST

static void expect_message(int fd, const char *want)
{
	char buf[128];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	ck_assert_int_eq(n, (ssize_t)strlen(want));
	buf[n] = '\0';
	ck_assert_str_eq(buf, want);
}

START_TEST(test_notify)
{
	const char *path = tmp_path("notify");
	char abstract[64];
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = unix_socket(SOCK_DGRAM, path, false), afd;

	unsetenv("NOTIFY_SOCKET");
	ck_assert_int_eq(sd_notify(0, "READY=1"), 0);

	setenv("NOTIFY_SOCKET", path, 1);
	ck_assert_int_eq(sd_notify(0, "READY=1"), 1);
	expect_message(fd, "READY=1");
	ck_assert_int_eq(sd_notify(1, "STOPPING=1"), 1);
	expect_message(fd, "STOPPING=1");
	ck_assert_ptr_null(getenv("NOTIFY_SOCKET"));

	/* '@' names a socket in the abstract namespace. */
	snprintf(abstract, sizeof(abstract), "@fxs-sd-test-%d", (int)getpid());
	afd = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_ge(afd, 0);
	memcpy(a.sun_path + 1, abstract + 1, strlen(abstract) - 1);
	ck_assert_int_eq(bind(afd, (struct sockaddr *)&a,
			      offsetof(struct sockaddr_un, sun_path) + strlen(abstract)),
			 0);
	setenv("NOTIFY_SOCKET", abstract, 1);
	ck_assert_int_eq(sd_notify(0, "RELOADING=1"), 1);
	expect_message(afd, "RELOADING=1");

	/* Nobody listening there, a relative path, no state: errors, not crashes. */
	setenv("NOTIFY_SOCKET", tmp_path("nobody"), 1);
	ck_assert_int_eq(sd_notify(0, "READY=1"), -ENOENT);
	setenv("NOTIFY_SOCKET", "relative", 1);
	ck_assert_int_eq(sd_notify(0, "READY=1"), -EINVAL);
	ck_assert_int_eq(sd_notify(1, NULL), -EINVAL);
	ck_assert_ptr_null(getenv("NOTIFY_SOCKET"));
	close(afd);
	close(fd);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("sd_daemon");
	TCase *tc = tcase_create("static");

	tcase_add_test(tc, test_listen_fds);
	tcase_add_test(tc, test_is_socket_unix);
	tcase_add_test(tc, test_notify);
	suite_add_tcase(suite, tc);
	return check_run(suite);
}
