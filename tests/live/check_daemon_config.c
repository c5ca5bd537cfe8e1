// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxsamplerd's configuration file as someone else may leave it (root; issue
 * 25): the path becomes a FIFO and the daemon gets SIGHUP (it must keep
 * serving with the old configuration, and still end on SIGTERM); a FIFO, a
 * directory, a key set twice or a NUL byte at start (exit 2 with one line
 * naming the file, at once). The daemon is the real one on a socket of its
 * own.
 *
 * FXS_BIN: the fxsampler binary (fxsamplerd beside it, or $FXSAMPLERD).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/client.h"
#include "live_daemon.h"
#include "service/protocol.h"
#include "check_main.h"

static char daemon_bin[PATH_MAX];
static char tmpdir[64];

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = calloc(1, 65536);
	size_t n;

	ck_assert_ptr_nonnull(buf);
	if (!f)
		return buf;
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void write_file(const char *path, const void *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/*
 * waitpid(pid) for at most ms: its exit status (128+N for signal N), or -1
 * when it was still running then (it is killed and reaped).
 */
static int wait_for(pid_t pid, unsigned ms)
{
	uint64_t end = now_ms() + ms;
	int st;

	for (;;) {
		pid_t got = waitpid(pid, &st, WNOHANG);

		if (got == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (now_ms() >= end)
			break;
		live_msleep(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/*
 * Whether the daemon at sock answers a status request within ms: asked in a
 * child, which a wedged daemon would keep waiting.
 */
static bool answers_within(const char *sock, unsigned ms)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct fxs_msg_status st;
		char err[256];

		_exit(client_query_status(sock, &st, err, sizeof(err)) ? 1 : 0);
	}
	return wait_for(pid, ms) == 0;
}

/*
 * fxsamplerd --config conf on a socket of its own, expected to refuse to
 * start: its exit status within 1 s (-1: still running), its stderr in
 * *ret_text (freed by the caller).
 */
static int start_refused(const char *name, const char *conf, char **ret_text)
{
	char sock[128], errlog[128];
	char *argv[] = {daemon_bin,	    (char *)"--socket", sock,
			(char *)"--config", (char *)conf,	NULL};
	int fd, rc;
	pid_t pid;

	snprintf(sock, sizeof(sock), "%s/%s.sock", tmpdir, name);
	snprintf(errlog, sizeof(errlog), "%s/%s.err", tmpdir, name);
	fd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd);
	rc = wait_for(pid, 1000);
	*ret_text = slurp(errlog);
	/* It never listened. */
	ck_assert_int_ne(access(sock, F_OK), 0);
	return rc;
}

/* The daemon's stderr is one line, and it holds want. */
static void one_line_with(const char *text, const char *want)
{
	ck_assert_msg(strstr(text, want), "wanted '%s' in: %s", want, text);
	ck_assert_msg(strchr(text, '\n') == text + strlen(text) - 1, "not one line: %s", text);
}

/* --- tests --- */

/*
 * The config path replaced by a FIFO, then SIGHUP: open() of it blocked the
 * daemon for good (no status answer, SIGTERM ignored). Now the reload is
 * refused at once, logged with the reason, and the old configuration kept.
 */
START_TEST(test_sighup_fifo)
{
	char sock[128], conf[128], log[128], want[256], *text;
	char *argv[] = {daemon_bin, (char *)"--socket", sock, (char *)"--config",
			conf,	    (char *)"-v",	NULL};
	static const char good[] = "max_clients = 8\n";
	uint64_t t0;
	pid_t pid;
	int rc;

	snprintf(sock, sizeof(sock), "%s/hup.sock", tmpdir);
	snprintf(conf, sizeof(conf), "%s/hup.conf", tmpdir);
	snprintf(log, sizeof(log), "%s/hup.log", tmpdir);
	write_file(conf, good, sizeof(good) - 1);
	pid = live_start_daemon(argv, sock, log);
	ck_assert_msg(pid > 0, "fxsamplerd did not start: %s", slurp(log));

	ck_assert_int_eq(unlink(conf), 0);
	ck_assert_int_eq(mkfifo(conf, 0644), 0);
	t0 = now_ms();
	ck_assert_int_eq(kill(pid, SIGHUP), 0);
	ck_assert_msg(answers_within(sock, 1000), "no status answer within 1 s of SIGHUP");
	/* The reload was tried and refused (not merely not reached yet). */
	snprintf(want, sizeof(want),
		 "cannot reload the configuration, keeping the old one: %s: not a regular file "
		 "(fifo)",
		 conf);
	for (text = slurp(log); !strstr(text, want) && now_ms() - t0 < 5000; text = slurp(log)) {
		free(text);
		live_msleep(20);
	}
	ck_assert_msg(strstr(text, want), "no '%s' in the log: %s", want, text);
	free(text);
	ck_assert_msg(answers_within(sock, 1000), "no status answer after the refused reload");

	/* A directory there: the same, with the errno. */
	ck_assert_int_eq(unlink(conf), 0);
	ck_assert_int_eq(mkdir(conf, 0755), 0);
	ck_assert_int_eq(kill(pid, SIGHUP), 0);
	snprintf(want, sizeof(want), "keeping the old one: %s: Is a directory", conf);
	for (text = slurp(log); !strstr(text, want) && now_ms() - t0 < 5000; text = slurp(log)) {
		free(text);
		live_msleep(20);
	}
	ck_assert_msg(strstr(text, want), "no '%s' in the log: %s", want, text);
	free(text);
	ck_assert(answers_within(sock, 1000));

	/* SIGTERM still ends it, cleanly. */
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	rc = wait_for(pid, 5000);
	ck_assert_msg(rc == 0, "fxsamplerd after SIGTERM: %d", rc);
	rmdir(conf);
}
END_TEST

/* `-c FIFO` at start blocked with no message: now exit 2 and one line, at once. */
START_TEST(test_start_fifo)
{
	char conf[128], want[256], *text;
	int rc;

	snprintf(conf, sizeof(conf), "%s/start.fifo", tmpdir);
	ck_assert_int_eq(mkfifo(conf, 0644), 0);
	rc = start_refused("fifo", conf, &text);
	ck_assert_msg(rc == 2, "exit %d within 1 s: %s", rc, text);
	snprintf(want, sizeof(want), "%s: not a regular file (fifo)", conf);
	one_line_with(text, want);
	free(text);
}
END_TEST

/* A directory said `FILE: read error`, no errno. */
START_TEST(test_start_directory)
{
	char conf[128], want[256], *text;
	int rc;

	snprintf(conf, sizeof(conf), "%s/start.dir", tmpdir);
	ck_assert_int_eq(mkdir(conf, 0755), 0);
	rc = start_refused("dir", conf, &text);
	ck_assert_msg(rc == 2, "exit %d within 1 s: %s", rc, text);
	snprintf(want, sizeof(want), "%s: Is a directory", conf);
	one_line_with(text, want);
	free(text);
}
END_TEST

/* A config file of body (name.conf) refused at start with exit 2 and the line FILE<say>. */
static void check_refused_file(const char *name, const char *body, size_t len, const char *say)
{
	char conf[128], want[256], *text;
	int rc;

	snprintf(conf, sizeof(conf), "%s/%s.conf", tmpdir, name);
	write_file(conf, body, len);
	rc = start_refused(name, conf, &text);
	ck_assert_msg(rc == 2, "exit %d: %s", rc, text);
	snprintf(want, sizeof(want), "%s%s", conf, say);
	one_line_with(text, want);
	free(text);
}

/* `max_clients = 4` then `max_clients = 5` was taken without a word. */
START_TEST(test_start_duplicate_key)
{
	static const char dup[] = "max_clients = 4\nmax_frames = 32\nmax_clients = 5\n";

	check_refused_file("dup", dup, sizeof(dup) - 1,
			   ":3: max_clients is set twice (first on line 1)");
}
END_TEST

/* `max_clients = 4\0junk` loaded as 4. */
START_TEST(test_start_nul_byte)
{
	static const char nul[] = "# fxsamplerd\nmax_clients = 4\0junk\n";

	check_refused_file("nul", nul, sizeof(nul) - 1, ":2: a NUL byte in the line");
}
END_TEST

static Suite *daemon_config_suite(void)
{
	Suite *s = suite_create("daemon_config");
	TCase *tc = tcase_create("files");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sighup_fifo);
	tcase_add_test(tc, test_start_fifo);
	tcase_add_test(tc, test_start_directory);
	tcase_add_test(tc, test_start_duplicate_key);
	tcase_add_test(tc, test_start_nul_byte);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *bin = getenv("FXS_BIN");
	char tmp[PATH_MAX], cmd[128];
	int status;

	if (geteuid()) {
		printf("SKIP: check_daemon_config needs root (fxsamplerd loads BPF); NOT RUN\n");
		return EXIT_SUCCESS;
	}
	if (!bin || !*bin) {
		fprintf(stderr, "check_daemon_config: FXS_BIN must name the fxsampler binary\n");
		return EXIT_FAILURE;
	}
	snprintf(tmp, sizeof(tmp), "%s", bin);
	if (getenv("FXSAMPLERD"))
		snprintf(daemon_bin, sizeof(daemon_bin), "%s", getenv("FXSAMPLERD"));
	else
		snprintf(daemon_bin, sizeof(daemon_bin), "%s/fxsamplerd", dirname(tmp));
	strcpy(tmpdir, "/tmp/fxs-daemon-config.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	status = check_run(daemon_config_suite());
	if (getenv("FXS_KEEP")) {
		fprintf(stderr, "kept %s\n", tmpdir);
	} else {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		live_run_cmd(cmd);
	}
	return status;
}
