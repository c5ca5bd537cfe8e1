// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a demanding user and a hostile local user did (issue 18), for real
 * (root): output that is a device, a FIFO, a symlink, stdout or a file with
 * a mode to keep; exit codes; targets that cannot be sampled; commands that
 * must not hang.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libgen.h>
#include <limits.h>
#include <sys/socket.h>

#include "cli/client.h"
#include "capture/hostlock.h"
#include "live.h"
#include "live_daemon.h"
#include "service/protocol.h"

#define NOBODY 65534

static void setup(void)
{
	live_make_dir("/tmp/fxs-hardening-XXXXXX");
}

static void teardown(void)
{
	live_remove_dir();
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Only the names given (and . and ..) are in dir: no temporary file is left. */
static void assert_only(const char *dir, const char *const *names)
{
	char cmd[512], out[4096] = "";
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	pclose(p);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		bool known = false;

		for (const char *const *k = names; *k; k++)
			known |= !strcmp(line, *k);
		ck_assert_msg(known, "unexpected '%s' in %s", line, dir);
	}
}

/* A short capture of demo into path: its run. */
static void record_demo(struct run *r, uid_t uid, const char *path)
{
	run_as(r, uid,
	       (const char *const[]){"record", "-q", "-d", "300ms", "-o", path, "--", prog("demo"),
				     "0.3", NULL});
}

static void assert_fxt(const char *path)
{
	struct capture_file *f = load(path);

	ck_assert_msg(f->read_result == 0, "%s: %s", path, f->error);
	ck_assert_msg(counter(f, "samples"), "%s has no counters: incomplete", path);
	unload(f);
}

/* --- output --- */

/* -o NODE of a character device: written through, still that device afterwards. */
START_TEST(test_output_char_device)
{
	char *node = out_path("null"), *link = out_path("link");
	struct stat st;
	struct run r;

	ck_assert_int_eq(mknod(node, S_IFCHR | 0666, makedev(1, 3)), 0);
	ck_assert_int_eq(symlink("null", link), 0);
	record_demo(&r, 0, node);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(stat(node, &st), 0);
	ck_assert_msg(S_ISCHR(st.st_mode), "%s is no longer a character device", node);
	ck_assert_uint_eq(st.st_rdev, makedev(1, 3));
	/* through a symlink: the link and the device stay */
	record_demo(&r, 0, link);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert_msg(S_ISLNK(st.st_mode), "the symlink was replaced");
	ck_assert_int_eq(stat(node, &st), 0);
	ck_assert_msg(S_ISCHR(st.st_mode), "%s is no longer a character device", node);
	assert_only(tmpdir, (const char *const[]){"null", "link", NULL});
}
END_TEST

/* -o FIFO: the reader gets a whole capture, the FIFO stays; no reader: refused at once. */
START_TEST(test_output_fifo)
{
	char *fifo = out_path("fifo"), *copy = out_path("copy.fxt");
	struct stat st;
	struct run r;
	pid_t reader, ready;
	int rst;

	ck_assert_int_eq(mkfifo(fifo, 0666), 0);
	record_demo(&r, 0, fifo);
	ck_assert_int_eq(exit_code(&r), 1);
	ck_assert_msg(strstr(r.err, "no reader") && strstr(r.err, fifo), "%s", r.err);
	ready = fork();
	ck_assert_int_ge(ready, 0);
	if (!ready) {
		/* the reader: there before the writer, until the writer is done */
		int in = open(fifo, O_RDONLY | O_NONBLOCK),
		    fd = open(copy, O_WRONLY | O_CREAT, 0644);
		char buf[65536];
		bool got = false;

		for (int i = 0; in >= 0 && fd >= 0 && i < 2000; i++) {
			ssize_t n = read(in, buf, sizeof(buf));

			if (n > 0 && write(fd, buf, (size_t)n) == n)
				got = true;
			else if (!n && got)
				_exit(0);
			else if (n <= 0)
				live_msleep(5);
		}
		_exit(1);
	}
	reader = ready;
	/* until the reader holds the FIFO open: then writing succeeds */
	live_msleep(200);
	record_demo(&r, 0, fifo);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(waitpid(reader, &rst, 0), reader);
	ck_assert_msg(WIFEXITED(rst) && !WEXITSTATUS(rst), "the reader got nothing");
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	assert_fxt(copy);
}
END_TEST

/* A new file honours the umask; a replaced one keeps its mode and owner. */
START_TEST(test_output_modes)
{
	char *path = out_path("m.fxt"), cmd[1200];
	struct stat st;
	struct run r;
	int fd;

	snprintf(cmd, sizeof(cmd), "umask 077; exec '%s' record -q -d 300ms -o '%s' -- '%s' 0.3",
		 bin, path, prog("demo"));
	ck_assert_int_eq(live_run_cmd(cmd), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 0777) == 0600, "umask 077 gave %o", st.st_mode & 0777);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "umask 027; exec '%s' record -q -d 300ms -o '%s' -- '%s' 0.3",
		 bin, path, prog("demo"));
	ck_assert_int_eq(live_run_cmd(cmd), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 0777) == 0640, "umask 027 gave %o", st.st_mode & 0777);

	/* a 0600 profile of another owner stays 0600 and theirs */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchown(fd, NOBODY, NOBODY), 0);
	ck_assert_int_eq(fchmod(fd, 0600), 0);
	close(fd);
	record_demo(&r, 0, path);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0600, "replacing a 0600 file gave %o",
		      st.st_mode & 07777);
	ck_assert_uint_eq(st.st_uid, NOBODY);
	ck_assert_uint_gt(st.st_size, 0);
	assert_fxt(path);
	assert_only(tmpdir, (const char *const[]){"m.fxt", NULL});
}
END_TEST

/* A symlink to a regular file: the target is replaced, the link stays a link. */
START_TEST(test_output_symlink_to_file)
{
	char *target = out_path("real.fxt"), *link = out_path("link.fxt");
	struct stat st;
	struct run r;
	int fd;

	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0640);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(symlink("real.fxt", link), 0);
	record_demo(&r, 0, link);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert_msg(S_ISLNK(st.st_mode), "the symlink was replaced by a file");
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640);
	assert_fxt(target);
	assert_only(tmpdir, (const char *const[]){"real.fxt", "link.fxt", NULL});
}
END_TEST

/* -o - streams to stdout; refused on a terminal, with no file named "-". */
START_TEST(test_output_stdout)
{
	char *copy = out_path("stdout.fxt");
	char *argv[] = {(char *)bin,	 (char *)"record", (char *)"-q", (char *)"-d",
			(char *)"300ms", (char *)"-o",	   (char *)"-",	 (char *)"--",
			prog("demo"),	 (char *)"0.3",	   NULL};
	int out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), err = temp_fd();
	int master, slave, st;
	struct run r;
	pid_t pid;

	ck_assert_int_ge(out, 0);
	collect(spawn_io(argv, out, err), err, &r);
	close(out);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_msg(strstr(r.err, "wrote standard output"), "%s", r.err);
	assert_fxt(copy);
	ck_assert_int_ne(access(out_path("-"), F_OK), 0);

	/* stdout a terminal: a pty of our own */
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(master, 0);
	ck_assert_int_eq(grantpt(master), 0);
	ck_assert_int_eq(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(slave, 0);
	err = temp_fd();
	pid = spawn_io(argv, slave, err);
	close(slave);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	read_fd(err, r.err, sizeof(r.err));
	close(err);
	close(master);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d: %s", st, r.err);
	ck_assert_msg(strstr(r.err, "terminal"), "%s", r.err);
	ck_assert_int_ne(access(out_path("-"), F_OK), 0);
}
END_TEST

/* --- the daemon's fairness: a daemon of each test's own, with short timeouts --- */

static char sock[300];
static pid_t daemon_pid;

static void start_daemon(const char *config)
{
	char daemon_bin[PATH_MAX], tmp[PATH_MAX], conf[300], log[300];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s", bin);
	snprintf(daemon_bin, sizeof(daemon_bin), "%s/fxsamplerd", dirname(tmp));
	snprintf(conf, sizeof(conf), "%s/d.conf", tmpdir);
	snprintf(log, sizeof(log), "%s/d.log", tmpdir);
	snprintf(sock, sizeof(sock), "%s/d.sock", tmpdir);
	f = fopen(conf, "we");
	ck_assert_ptr_nonnull(f);
	fputs(config, f);
	fclose(f);
	{
		char *argv[] = {daemon_bin, (char *)"--socket", sock, (char *)"--config",
				conf,	    (char *)"-v",	NULL};

		daemon_pid = live_start_daemon(argv, sock, log);
	}
	ck_assert_msg(daemon_pid > 0, "fxsamplerd did not start (see %s)", log);
}

/* The end of the daemon's log, for failure messages. */
static const char *daemon_log(void)
{
	static char buf[4096];
	char path[300];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/d.log", tmpdir);
	buf[0] = '\0';
	f = fopen(path, "re");
	if (f) {
		fseek(f, 0, SEEK_END);
		if (ftell(f) > (long)sizeof(buf) - 1)
			fseek(f, -(long)sizeof(buf) + 1, SEEK_END);
		else
			fseek(f, 0, SEEK_SET);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

static void stop_daemon(void)
{
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		waitpid(daemon_pid, NULL, 0);
	}
	daemon_pid = 0;
}

static void daemon_teardown(void)
{
	stop_daemon();
	teardown();
}

static struct fxs_msg_status daemon_status(void)
{
	struct fxs_msg_status st;
	char err[256];

	ck_assert_msg(!client_query_status(sock, &st, err, sizeof(err)), "%s", err);
	return st;
}

static int raw_connect(void)
{
	char err[256];
	int fd = -1;

	ck_assert_msg(!client_connect(sock, &fd, err, sizeof(err)), "%s", err);
	return fd;
}

static void raw_msg(int fd, const struct fxs_msg *m)
{
	uint8_t buf[512];
	int n = protocol_encode(m, buf, sizeof(buf));

	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(send(fd, buf, (size_t)n, MSG_NOSIGNAL), n);
}

static void raw_setup(int fd, pid_t target, uint64_t hz)
{
	struct capture_opts o = {.freq_hz = hz, .buffer_size = 1 << 20, .max_frames = 255};
	struct fxs_msg m = {.type = FXS_MSG_SETUP};

	o.pids[0] = (uint32_t)target;
	o.nr_pids = 1;
	ck_assert_int_eq(protocol_setup_from_opts(&o, &m.setup), 0);
	raw_msg(fd, &m);
}

/*
 * Read every message until the daemon hangs up (or timeout_s): the last
 * ERROR's text and the last END's reason (-1: none). Returns how long it took.
 */
static double read_until_eof(int fd, unsigned timeout_s, char ret_error[FXS_PROTO_MAX_TEXT],
			     int *ret_end)
{
	static uint8_t buf[FXS_PROTO_MAX_MSG * 2];
	double t0 = mono_s();
	struct timeval tv = {.tv_sec = 1};
	size_t have = 0, frame;
	struct fxs_msg m;
	ssize_t n;

	*ret_end = -1;
	ret_error[0] = '\0';
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (mono_s() - t0 < timeout_s) {
		n = recv(fd, buf + have, sizeof(buf) - have, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			break;
		if (n < 0)
			continue;
		have += (size_t)n;
		while (protocol_frame_len(buf, have, &frame) == 0 && have >= frame) {
			ck_assert_int_eq(protocol_decode(buf, frame, &m), 0);
			if (m.type == FXS_MSG_ERROR)
				memcpy(ret_error, m.error.text, FXS_PROTO_MAX_TEXT);
			if (m.type == FXS_MSG_END)
				*ret_end = (int)m.end.reason;
			memmove(buf, buf + frame, have - frame);
			have -= frame;
		}
	}
	return mono_s() - t0;
}

/*
 * One user's 16 idle connections: only max_clients_per_uid of them get in,
 * and root and another user still capture through the daemon.
 */
START_TEST(test_daemon_per_uid_limit)
{
	int pfd[2], counts[2] = {-1, -1};
	char path[300];
	struct run r;
	pid_t hog;

	start_daemon("max_clients = 16\nmax_clients_per_uid = 4\n");
	ck_assert_int_eq(pipe(pfd), 0);
	hog = fork();
	ck_assert_int_ge(hog, 0);
	if (!hog) {
		int fds[16], in = 0, out = 0;

		if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			_exit(126);
		live_die_with_parent();
		for (int i = 0; i < 16; i++)
			if (client_connect(sock, &fds[i], path, sizeof(path)))
				fds[i] = -1;
		live_msleep(500);
		for (int i = 0; i < 16; i++) {
			char c;

			/* the refused ones were sent an error and hung up on */
			if (fds[i] >= 0 && recv(fds[i], &c, 1, MSG_DONTWAIT | MSG_PEEK) < 0 &&
			    errno == EAGAIN)
				in++;
			else
				out++;
		}
		counts[0] = in;
		counts[1] = out;
		if (write(pfd[1], counts, sizeof(counts)) != sizeof(counts))
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], counts, sizeof(counts)), sizeof(counts));
	close(pfd[0]);
	ck_assert_msg(counts[0] == 4 && counts[1] == 12, "%d in, %d refused", counts[0], counts[1]);
	/* root */
	snprintf(path, sizeof(path), "%s/root.fxt", tmpdir);
	run_as(&r, 0,
	       (const char *const[]){"record", "-q", "--daemon", "--socket", sock, "-d", "300ms",
				     "-o", path, "--", prog("demo"), "0.3", NULL});
	ck_assert_msg(exit_code(&r) == 0, "root: exit %d: %s", exit_code(&r), r.err);
	assert_fxt(path);
	/* another user */
	snprintf(path, sizeof(path), "%s/other.fxt", tmpdir);
	run_as(&r, NOBODY - 1,
	       (const char *const[]){"record", "-q", "--socket", sock, "-d", "300ms", "-o", path,
				     "--", prog("demo"), "0.3", NULL});
	ck_assert_msg(exit_code(&r) == 0, "another user: exit %d: %s", exit_code(&r), r.err);
	assert_fxt(path);
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
}
END_TEST

/* Lines of the daemon's log but its debug lines (-v), and of those, refusals. */
static unsigned log_lines(unsigned *ret_refusals)
{
	char path[300], line[1024];
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/d.log", tmpdir);
	*ret_refusals = 0;
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "fxsamplerd: debug: "))
			continue;
		n++;
		*ret_refusals += strstr(line, "refusing pid") != NULL;
	}
	fclose(f);
	return n;
}

/*
 * One user holds 4 connections and opens a fifth 1000 times (issue 30): each
 * fifth is refused and told why, and the log has at most 10 lines for all of
 * it (a refusal is logged once per user per 10 s, with a count of the rest).
 */
START_TEST(test_daemon_connect_loop)
{
	unsigned before, after, refusals;
	int pfd[2], refused = -1;
	pid_t child;

	start_daemon("max_clients = 16\nmax_clients_per_uid = 4\n");
	before = log_lines(&refusals);
	ck_assert_int_eq(pipe(pfd), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		char err[256];
		int fd, held[4];

		if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			_exit(126);
		live_die_with_parent();
		refused = 0;
		for (int i = 0; i < 4; i++)
			if (client_connect(sock, &held[i], err, sizeof(err)))
				_exit(4);
		for (int i = 0; i < 1000; i++) {
			struct timeval tv = {.tv_sec = 5};
			uint8_t buf[512];
			struct fxs_msg m;
			size_t frame;
			ssize_t n;

			if (client_connect(sock, &fd, err, sizeof(err)))
				_exit(5);
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			/* A refused connection is sent why, then hung up on. */
			n = recv(fd, buf, sizeof(buf), MSG_WAITALL);
			if (n > 0 && !protocol_frame_len(buf, (size_t)n, &frame) &&
			    !protocol_decode(buf, frame, &m) && m.type == FXS_MSG_ERROR &&
			    strstr(m.error.text, "at most 4 per user"))
				refused++;
			close(fd);
		}
		if (write(pfd[1], &refused, sizeof(refused)) != sizeof(refused))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], &refused, sizeof(refused)), sizeof(refused));
	close(pfd[0]);
	waitpid(child, NULL, 0);
	after = log_lines(&refusals);
	printf("connect loop: %d of 1000 fifth connections refused; %u log lines (%u refusals)\n",
	       refused, after - before, refusals);
	ck_assert_msg(refused == 1000, "%d of 1000 fifth connections refused", refused);
	if (after - before > 10)
		printf("the daemon's log ends:\n%s\n", daemon_log());
	ck_assert_msg(after - before <= 10, "%u log lines", after - before);
	ck_assert_uint_ge(refusals, 1);
}
END_TEST

/* Phase 1 alone, checked by the log: the first refusal of a user is always logged. */
START_TEST(test_daemon_connect_close_not_refused)
{
	unsigned refusals, lines;
	pid_t child;
	int status;

	start_daemon("max_clients = 16\nmax_clients_per_uid = 4\n");
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		char err[256];
		int fd;

		if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			_exit(126);
		live_die_with_parent();
		for (int i = 0; i < 2000; i++) {
			if (client_connect(sock, &fd, err, sizeof(err)))
				_exit(2);
			close(fd);
		}
		_exit(0);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_int_eq(status, 0);
	/* The daemon has taken every connection once it answers root's status. */
	daemon_status();
	lines = log_lines(&refusals);
	printf("connect/close: %u log lines, %u refusals\n", lines, refusals);
	ck_assert_msg(lines <= 10, "%u log lines for 2000 connections", lines);
	if (refusals)
		printf("the daemon's log ends:\n%s\n", daemon_log());
	ck_assert_msg(refusals == 0, "connect/close, one at a time: %u refusals logged", refusals);
}
END_TEST

/* Whether dir holds a file whose name starts with prefix and is not empty. */
static bool started(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	bool found = false;

	ck_assert_ptr_nonnull(d);
	while (!found && (e = readdir(d)))
		found = !strncmp(e->d_name, prefix, strlen(prefix)) &&
			!fstatat(dirfd(d), e->d_name, &st, 0) && st.st_size > 0;
	closedir(d);
	return found;
}

/* A user's record of progs/demo through the daemon, -F 199, into tmpdir/name; not waited for. */
static pid_t user_record(const char *name, const char *duration, int err_fd)
{
	char path[300];
	char *argv[] = {(char *)bin,	  (char *)"record",   (char *)"-q", (char *)"-F",
			(char *)"199",	  (char *)"--socket", sock,	    (char *)"-d",
			(char *)duration, (char *)"-o",	      path,	    (char *)"--",
			prog("demo"),	  (char *)"30",	      NULL};

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return spawn_as(argv, -1, err_fd, NOBODY - 1);
}

/*
 * SIGKILL of the daemon 3 s into a user's capture (issue 30): the client keeps
 * what it received up to the last whole record, a file the reader accepts
 * with at least 80 % of the samples a 3 s capture gives, says it is partial,
 * and exits 1.
 */
START_TEST(test_daemon_killed_partial_file)
{
	struct capture_file *f;
	size_t whole_samples;
	struct run r;
	int err_fd;
	pid_t pid;

	start_daemon("");
	/* What a 3 s capture gives here and now. */
	err_fd = temp_fd();
	collect(user_record("whole.fxt", "3s", err_fd), err_fd, &r);
	ck_assert_msg(exit_code(&r) == 0, "a 3 s capture: exit %d: %s", exit_code(&r), r.err);
	f = load(out_path("whole.fxt"));
	whole_samples = f->nr_samples;
	unload(f);

	err_fd = temp_fd();
	pid = user_record("partial.fxt", "30s", err_fd);
	/* 3 s from the start of the stream: the client's temporary file has its first bytes. */
	for (int i = 0; i < 100 && !started(tmpdir, ".partial.fxt."); i++)
		live_msleep(50);
	live_msleep(3000);
	kill(daemon_pid, SIGKILL);
	waitpid(daemon_pid, NULL, 0);
	daemon_pid = 0;
	collect(pid, err_fd, &r);
	printf("daemon killed: exit %d, %s", exit_code(&r), r.err);
	ck_assert_int_eq(exit_code(&r), 1);
	ck_assert_msg(strstr(r.err, "the capture is partial"), "%s", r.err);
	f = load(out_path("partial.fxt"));
	printf("daemon killed after 3 s: %zu samples kept; a 3 s capture: %zu\n", f->nr_samples,
	       whole_samples);
	ck_assert_msg(f->nr_samples * 100 >= whole_samples * 80, "%zu samples of %zu",
		      f->nr_samples, whole_samples);
	unload(f);
}
END_TEST

/* Half a message, no message at all, or nothing after one: hung up on, and told why. */
START_TEST(test_daemon_timeouts)
{
	struct fxs_msg m = {.type = FXS_MSG_STATUS};
	uint8_t buf[64];
	char why[FXS_PROTO_MAX_TEXT];
	int fd, end, n;
	double t;

	start_daemon("handshake_timeout = 1s\nidle_timeout = 2s\n");
	/* half a header */
	fd = raw_connect();
	n = protocol_encode(&m, buf, sizeof(buf));
	ck_assert_int_gt(n, 9);
	ck_assert_int_eq(send(fd, buf, 9, MSG_NOSIGNAL), 9);
	t = read_until_eof(fd, 10, why, &end);
	close(fd);
	ck_assert_msg(t < 3, "hung up on after %.1f s", t);
	ck_assert_msg(strstr(why, "not completed within 1 s"), "'%s'", why);
	/* nothing at all */
	fd = raw_connect();
	t = read_until_eof(fd, 10, why, &end);
	close(fd);
	ck_assert_msg(t < 3, "hung up on after %.1f s", t);
	ck_assert_msg(strstr(why, "no request within 1 s"), "'%s'", why);
	/* one request, then idle */
	fd = raw_connect();
	raw_msg(fd, &m);
	t = read_until_eof(fd, 10, why, &end);
	close(fd);
	ck_assert_msg(t > 1.5 && t < 4, "hung up on after %.1f s", t);
	ck_assert_msg(strstr(why, "idle for 2 s"), "'%s'", why);
	/* and the daemon serves on */
	ck_assert_uint_eq(daemon_status().session, FXS_SESSION_NONE);
}
END_TEST

/*
 * A client that starts a session and never reads: stopped after
 * client_read_timeout, the sampler free for root, the client told why
 * (if it ever reads, the stream ends with END "stalled").
 */
START_TEST(test_daemon_stalled_client)
{
	pid_t target = spinner_as(0, 0);
	char why[FXS_PROTO_MAX_TEXT], path[300];
	struct fxs_msg m = {.type = FXS_MSG_START};
	struct run r;
	int fd, end, rcvbuf = 4096, i;

	start_daemon("client_read_timeout = 2s\n");
	fd = raw_connect();
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	raw_setup(fd, target, 9999);
	raw_msg(fd, &m);
	/* setting up loads BPF: slow on a loaded host */
	for (i = 0; i < 100 && daemon_status().session != FXS_SESSION_RUNNING; i++)
		live_msleep(50);
	ck_assert_msg(daemon_status().session == FXS_SESSION_RUNNING, "no session: %s",
		      daemon_log());
	for (i = 0; i < 100 && daemon_status().session != FXS_SESSION_NONE; i++)
		live_msleep(100);
	ck_assert_msg(daemon_status().session == FXS_SESSION_NONE,
		      "the stalled session still holds the sampler after %d s", i / 10);
	snprintf(path, sizeof(path), "%s/root.fxt", tmpdir);
	run_as(&r, 0,
	       (const char *const[]){"record", "-q", "--daemon", "--socket", sock, "-d", "300ms",
				     "-o", path, "--", prog("demo"), "0.3", NULL});
	ck_assert_msg(exit_code(&r) == 0, "root after a stalled client: exit %d: %s", exit_code(&r),
		      r.err);
	read_until_eof(fd, 10, why, &end);
	close(fd);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	ck_assert_msg(end == FXS_END_STALLED || strstr(why, "read nothing"),
		      "the client was not told why: end %d, '%s'", end, why);
}
END_TEST

/*
 * max_session_length ends a user's capture with a complete file, and says so;
 * root's is not limited by it, only by max_root_session_length.
 */
START_TEST(test_daemon_max_session_length)
{
	pid_t mine = spinner_as(NOBODY - 1, NOBODY - 1), roots = spinner_as(0, 0);
	char path[300], pid[16];
	struct run r;
	double t0 = mono_s();

	start_daemon("max_session_length = 1s\n");
	snprintf(path, sizeof(path), "%s/long.fxt", tmpdir);
	snprintf(pid, sizeof(pid), "%d", (int)mine);
	run_as(&r, NOBODY - 1,
	       (const char *const[]){"record", "-q", "--socket", sock, "-d", "20s", "-p", pid, "-o",
				     path, NULL});
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_msg(mono_s() - t0 < 8, "ran %.1f s", mono_s() - t0);
	ck_assert_msg(strstr(r.err, "max_session_length"), "%s", r.err);
	assert_fxt(path);

	/* root's session runs its course */
	snprintf(path, sizeof(path), "%s/root.fxt", tmpdir);
	snprintf(pid, sizeof(pid), "%d", (int)roots);
	run_as(&r, 0,
	       (const char *const[]){"record", "-q", "--daemon", "--socket", sock, "-d", "2s", "-p",
				     pid, "-o", path, NULL});
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_msg(!strstr(r.err, "ended the capture early"), "root's was ended: %s", r.err);
	assert_fxt(path);
	stop_daemon();

	/* unless max_root_session_length says otherwise */
	start_daemon("max_root_session_length = 1s\n");
	t0 = mono_s();
	run_as(&r, 0,
	       (const char *const[]){"record", "-q", "--daemon", "--socket", sock, "-d", "20s",
				     "-p", pid, "-o", path, NULL});
	kill(mine, SIGKILL);
	waitpid(mine, NULL, 0);
	kill(roots, SIGKILL);
	waitpid(roots, NULL, 0);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_msg(mono_s() - t0 < 8, "ran %.1f s", mono_s() - t0);
	ck_assert_msg(strstr(r.err, "max_root_session_length"), "%s", r.err);
	assert_fxt(path);
}
END_TEST

/* --- no hangs --- */

/*
 * Run fxsampler with args as uid, for at most timeout_s: its exit code, or -1
 * (and it is killed) when it did not end in time. *ret_s: how long it ran.
 */
static int run_bounded(struct run *r, uid_t uid, const char *const *args, double timeout_s,
		       double *ret_s)
{
	char *argv[64];
	int err = temp_fd(), out = temp_fd(), i;
	double t0 = mono_s();
	pid_t pid;

	argv[0] = (char *)bin;
	for (i = 0; args[i]; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	pid = spawn_as(argv, out, err, uid);
	for (;;) {
		pid_t w = waitpid(pid, &r->status, WNOHANG);

		if (w == pid)
			break;
		if (mono_s() - t0 > timeout_s) {
			kill(pid, SIGKILL);
			waitpid(pid, &r->status, 0);
			read_fd(err, r->err, sizeof(r->err));
			close(err);
			close(out);
			*ret_s = mono_s() - t0;
			return -1;
		}
		live_msleep(10);
	}
	*ret_s = mono_s() - t0;
	read_fd(err, r->err, sizeof(r->err));
	read_fd(out, r->out, sizeof(r->out));
	close(err);
	close(out);
	return exit_code(r);
}

/*
 * We are the subreaper: a process a test left behind is our child. None may
 * be alive but the daemon.
 */
static void assert_no_orphans(void)
{
	char path[64], buf[512];
	struct dirent *de;
	DIR *d;

	live_msleep(100);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	d = opendir("/proc");
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		int pid = atoi(de->d_name), ppid = 0;
		FILE *f;

		if (pid <= 0 || pid == daemon_pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && strrchr(buf, ')'))
			sscanf(strrchr(buf, ')') + 1, " %*c %d", &ppid);
		fclose(f);
		ck_assert_msg(ppid != getpid(), "pid %d was left behind: %s", pid, buf);
	}
	closedir(d);
}

/*
 * A user without a daemon: every try fails in under a second naming the
 * socket, with no process and no file left (it used to hang in half of them).
 */
START_TEST(test_no_daemon_fails_fast)
{
	char *nosock = out_path("none.sock"), *path = out_path("x.fxt");
	struct run r;
	double t;

	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	for (int i = 0; i < 10; i++) {
		int rc = run_bounded(&r, NOBODY,
				     (const char *const[]){"record", "-q", "--socket", nosock, "-o",
							   path, "--", "/bin/true", NULL},
				     5, &t);

		ck_assert_msg(rc == 1, "try %d: exit %d after %.1f s: %s", i, rc, t, r.err);
		ck_assert_msg(t < 1, "try %d took %.2f s", i, t);
		ck_assert_msg(strstr(r.err, nosock), "try %d: the socket is not named: %s", i,
			      r.err);
		ck_assert_msg(!strchr(r.err, '\n') || strchr(r.err, '\n') == strrchr(r.err, '\n'),
			      "more than one line: %s", r.err);
		assert_no_orphans();
	}
	assert_only(tmpdir, (const char *const[]){NULL});
}
END_TEST

/* The daemon refuses (the sampler is busy): the held command is killed, exit 1 at once. */
START_TEST(test_daemon_refused_kills_child)
{
	char *path = out_path("x.fxt");
	pid_t holder = 0;
	struct run r;
	double t;
	int fd, rc;

	start_daemon("");
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	ck_assert_int_eq(hostlock_acquire(HOSTLOCK_PATH, &fd, &holder), 0);
	rc = run_bounded(&r, NOBODY,
			 (const char *const[]){"record", "-q", "--socket", sock, "-o", path, "--",
					       prog("demo"), "5", NULL},
			 5, &t);
	hostlock_release(fd);
	ck_assert_msg(rc == 1, "exit %d after %.1f s: %s", rc, t, r.err);
	ck_assert_msg(t < 1, "took %.2f s", t);
	ck_assert_msg(strstr(r.err, "busy"), "%s", r.err);
	assert_no_orphans();
	ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

/*
 * The highest rate: the end of the command ends the capture within a few
 * seconds, and SIGTERM one host-wide with both CPUs busy within a second
 * and a half.
 */
START_TEST(test_max_rate_ends)
{
	char *path = out_path("fast.fxt");
	pid_t spin[2], rec;
	struct run r;
	double t, t0;
	int rc, err;

	rc = run_bounded(&r, 0,
			 (const char *const[]){"record", "-q", "-F", "50000", "-o", path, "--",
					       "sleep", "0.3", NULL},
			 30, &t);
	ck_assert_msg(rc == 0, "exit %d after %.1f s: %s", rc, t, r.err);
	ck_assert_msg(t < 5, "-F 50000 -- sleep 0.3 took %.1f s", t);
	assert_fxt(path);
	spin[0] = spinner_as(0, 0);
	spin[1] = spinner_as(0, 0);
	err = temp_fd();
	rec = START(err, "record", "-q", "-a", "-F", "50000", "-o", path);
	live_msleep(1500);
	t0 = mono_s();
	kill(rec, SIGTERM);
	collect(rec, err, &r);
	t = mono_s() - t0;
	kill(spin[0], SIGKILL);
	kill(spin[1], SIGKILL);
	waitpid(spin[0], NULL, 0);
	waitpid(spin[1], NULL, 0);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	/*
	 * The signal is seen within ~0.2 s (the drain budget); the rest is the
	 * final drain of full rings and the teardown, slower the less CPU we
	 * get. Without the budget this took minutes.
	 */
	ck_assert_msg(t < 5, "SIGTERM took %.2f s to end a 50 kHz capture", t);
	assert_fxt(path);
}
END_TEST

/* --- the user's command survives the daemon --- */

/*
 * SIGTERM to the daemon mid-capture: the file is complete, the command runs
 * to its end (exit 0 with --exit-status, not 143), and the summary counts
 * what the file holds.
 */
START_TEST(test_command_survives_daemon)
{
	char *path = out_path("cmd.fxt"), want[64];
	struct capture_file *f;
	struct run r;
	double t0 = mono_s(), t;
	pid_t rec;
	int err;

	start_daemon("");
	err = temp_fd();
	{
		char *argv[] = {
			(char *)bin,  (char *)"record", (char *)"-q", (char *)"--socket",
			sock,	      (char *)"-o",	path,	      (char *)"--exit-status",
			(char *)"--", prog("demo"),	(char *)"2",  NULL};

		rec = spawn_as(argv, -1, err, NOBODY);
	}
	live_msleep(800);
	stop_daemon();
	collect(rec, err, &r);
	t = mono_s() - t0;
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_msg(t >= 1.9, "the command did not run to its end (%.1f s)", t);
	ck_assert_msg(strstr(r.err, "shutting down"), "%s", r.err);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "%s", f->error);
	ck_assert_uint_gt(f->nr_samples, 0);
	snprintf(want, sizeof(want), ": %llu samples of", (unsigned long long)total(f, "written"));
	ck_assert_msg(strstr(r.err, want), "the summary does not say '%s': %s", want, r.err);
	unload(f);
}
END_TEST

/* --- targets --- */

/* -p of a zombie or a kernel thread is refused; -p whose targets all exit ends. */
START_TEST(test_targets)
{
	char pid[16], kt[64] = "";
	pid_t z, spin;
	struct run r;
	double t;
	int rc;
	FILE *f;

	z = fork();
	ck_assert_int_ge(z, 0);
	if (!z)
		_exit(0);
	live_msleep(100);
	snprintf(pid, sizeof(pid), "%d", (int)z);
	RUN(&r, "record", "-q", "-d", "1", "-p", pid, "-o", out_path("z.fxt"));
	waitpid(z, NULL, 0);
	ck_assert_msg(exit_code(&r) == 1, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_msg(strstr(r.err, "zombie"), "%s", r.err);
	f = fopen("/proc/2/comm", "re");
	if (f && fgets(kt, sizeof(kt), f) && !strncmp(kt, "kthreadd", 8)) {
		RUN(&r, "record", "-q", "-d", "1", "-p", "2", "-o", out_path("k.fxt"));
		ck_assert_msg(exit_code(&r) == 1, "exit %d: %s", exit_code(&r), r.err);
		ck_assert_msg(strstr(r.err, "kernel thread"), "%s", r.err);
	} else {
		fprintf(stderr,
			"SKIP: no kthreadd at pid 2 here: the kernel-thread case NOT RUN\n");
	}
	if (f)
		fclose(f);
	assert_no_output(tmpdir);

	/* every target exits (a zombie: we do not reap it): the capture ends, directly and via the
	 * daemon */
	start_daemon("");
	for (int via = 0; via < 2; via++) {
		const char *mode = via ? "--daemon" : "-q";
		char sockarg[400];

		spin = spinner_as(0, 0);
		snprintf(pid, sizeof(pid), "%d", (int)spin);
		snprintf(sockarg, sizeof(sockarg), "--socket=%s", sock);
		if (!fork()) {
			live_msleep(700);
			kill(spin, SIGKILL);
			_exit(0);
		}
		rc = run_bounded(&r, 0,
				 (const char *const[]){"record", "-q", mode, sockarg, "-p", pid,
						       "-o", out_path("gone.fxt"), NULL},
				 10, &t);
		waitpid(spin, NULL, 0);
		ck_assert_msg(rc == 0, "%s: exit %d after %.1f s: %s", mode, rc, t, r.err);
		ck_assert_msg(t < 3, "%s: the capture ran %.1f s after its target exited", mode, t);
		assert_fxt(out_path("gone.fxt"));
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}
END_TEST

/* --- exit codes and messages --- */

START_TEST(test_exit_status)
{
	struct run r;

	RUN(&r, "record", "-q", "-o", out_path("e.fxt"), "--exit-status", "--", "/bin/sh", "-c",
	    "exit 7");
	ck_assert_msg(exit_code(&r) == 7, "exit %d: %s", exit_code(&r), r.err);
	assert_fxt(out_path("e.fxt"));
	RUN(&r, "record", "-q", "-o", out_path("e.fxt"), "--", "/bin/sh", "-c", "exit 7");
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_msg(strstr(r.err, "exited with status 7"), "%s", r.err);
	RUN(&r, "record", "-q", "-o", out_path("e.fxt"), "--exit-status", "--", "/bin/sh", "-c",
	    "kill -USR1 $$");
	ck_assert_msg(exit_code(&r) == 128 + SIGUSR1, "exit %d: %s", exit_code(&r), r.err);
}
END_TEST

/* status never names a holder it does not know, and hides another user's session. */
START_TEST(test_status)
{
	struct fxs_msg m = {.type = FXS_MSG_START};
	char want[64], *nosock = out_path("none.sock");
	pid_t holder = 0, target;
	struct run r;
	int fd;

	run_as(&r, NOBODY, (const char *const[]){"status", "--socket", nosock, NULL});
	ck_assert_int_eq(exit_code(&r), 0);
	ck_assert_msg(!strstr(r.out, "pid 0"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "sampler: "), "%s", r.out);
	ck_assert_int_eq(hostlock_acquire(HOSTLOCK_PATH, &fd, &holder), 0);
	run_as(&r, NOBODY, (const char *const[]){"status", "--socket", nosock, NULL});
	hostlock_release(fd);
	snprintf(want, sizeof(want), "sampler: busy, held by pid %d", (int)getpid());
	ck_assert_msg(strstr(r.out, want), "%s", r.out);

	start_daemon("");
	target = spinner_as(0, 0);
	fd = raw_connect();
	raw_setup(fd, target, 999);
	raw_msg(fd, &m);
	for (int i = 0; i < 50 && daemon_status().session != FXS_SESSION_RUNNING; i++)
		live_msleep(50);
	run_as(&r, NOBODY, (const char *const[]){"status", "--socket", sock, NULL});
	ck_assert_msg(strstr(r.out, "busy, held by uid 0"), "%s", r.out);
	ck_assert_msg(!strstr(r.out, "counters") && !strstr(r.out, "fired"), "%s", r.out);
	/* root sees it all */
	RUN(&r, "status", "--socket", sock);
	ck_assert_msg(strstr(r.out, "counters:"), "%s", r.out);
	close(fd);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
}
END_TEST

/* A full disk at setup names the output; report names its file once. */
START_TEST(test_messages_name_the_file)
{
	char *tiny = out_path("tiny"), path[400], fill[400], *bad = out_path("bad.fxt");
	struct run r;
	const char *p;
	int n = 0, fd;

	ck_assert_int_eq(mkdir(tiny, 0755), 0);
	ck_assert_msg(mount("tmpfs", tiny, "tmpfs", 0, "size=16k") == 0, "mount: %s",
		      strerror(errno));
	/* fill it: the prologue at setup is what fails */
	snprintf(fill, sizeof(fill), "%s/fill", tiny);
	fd = open(fill, O_WRONLY | O_CREAT, 0644);
	while (fd >= 0 && write(fd, path, sizeof(path)) > 0)
		;
	close(fd);
	snprintf(path, sizeof(path), "%s/full.fxt", tiny);
	RUN(&r, "record", "-q", "-o", path, "--", prog("demo"), "0.2");
	umount2(tiny, MNT_DETACH);
	ck_assert_msg(exit_code(&r) == 1, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_msg(strstr(r.err, path) && strstr(r.err, "No space left"), "%s", r.err);

	fd = open(bad, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_eq(write(fd, "garbage!", 8), 8);
	close(fd);
	RUN(&r, "report", bad);
	ck_assert_int_eq(exit_code(&r), 1);
	for (p = r.err; (p = strstr(p, bad)); p++)
		n++;
	ck_assert_msg(n == 1, "the file is named %d times: %s", n, r.err);
}
END_TEST

static Suite *hardening_suite(void)
{
	Suite *s = suite_create("hardening");
	TCase *tc;

	tc = tcase_create("output");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_output_char_device);
	tcase_add_test(tc, test_output_fifo);
	tcase_add_test(tc, test_output_modes);
	tcase_add_test(tc, test_output_symlink_to_file);
	tcase_add_test(tc, test_output_stdout);
	suite_add_tcase(s, tc);

	tc = tcase_create("daemon");
	tcase_add_checked_fixture(tc, setup, daemon_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_daemon_per_uid_limit);
	tcase_add_test(tc, test_daemon_connect_close_not_refused);
	tcase_add_test(tc, test_daemon_connect_loop);
	tcase_add_test(tc, test_daemon_killed_partial_file);
	tcase_add_test(tc, test_daemon_timeouts);
	tcase_add_test(tc, test_daemon_stalled_client);
	tcase_add_test(tc, test_daemon_max_session_length);
	suite_add_tcase(s, tc);

	tc = tcase_create("hangs");
	tcase_add_checked_fixture(tc, setup, daemon_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_no_daemon_fails_fast);
	tcase_add_test(tc, test_daemon_refused_kills_child);
	tcase_add_test(tc, test_max_rate_ends);
	tcase_add_test(tc, test_command_survives_daemon);
	suite_add_tcase(s, tc);

	tc = tcase_create("targets_and_codes");
	tcase_add_checked_fixture(tc, setup, daemon_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_targets);
	tcase_add_test(tc, test_exit_status);
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_messages_name_the_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return live_main(hardening_suite());
}
