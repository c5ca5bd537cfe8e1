// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The daemon's live tests' shared helpers: see live_daemon.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/client.h"
#include "live.h"
#include "live_daemon.h"
#include "check_main.h"

/* --- the daemon's tests --- */

void live_msleep(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

unsigned live_open_fds(pid_t pid)
{
	char path[64];
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int live_run_cmd(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

pid_t live_start_daemon(char *const argv[], const char *sock, const char *log)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		/* A test that fails takes its daemon with it. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (fd >= 0)
			dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	/* Ready when it answers. */
	for (int i = 0; i < 100; i++) {
		if (live_daemon_status(sock, NULL))
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		live_msleep(50);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

bool live_daemon_status(const char *sock, struct fxs_msg_status *st)
{
	struct fxs_msg_status mine;
	char err[256];

	return !client_query_status(sock, st ? st : &mine, err, sizeof(err));
}

void live_daemon_path(char *buf, size_t len)
{
	const char *env = getenv("FXSAMPLERD");
	char *slash;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	snprintf(buf, len, "%s", bin);
	slash = strrchr(buf, '/');
	snprintf(slash ? slash + 1 : buf, len - (size_t)(slash ? slash + 1 - buf : 0), "%s",
		 "fxsamplerd");
}

pid_t live_daemon_start(struct live_daemon *d)
{
	const char *name = d->name ? d->name : "s", *argv[32];
	char daemon_bin[PATH_MAX];
	size_t n = 0;

	live_daemon_path(daemon_bin, sizeof(daemon_bin));
	if (snprintf(d->sock, sizeof(d->sock), "%s/%s.sock", tmpdir, name) >= (int)sizeof(d->sock))
		return d->pid = -1;
	snprintf(d->log, sizeof(d->log), "%s/%s.log", tmpdir, name);
	for (size_t i = 0; d->wrap && d->wrap[i]; i++)
		argv[n++] = d->wrap[i];
	argv[n++] = daemon_bin;
	argv[n++] = "--socket";
	argv[n++] = d->sock;
	argv[n++] = "--config";
	argv[n++] = d->config ? d->config : "/dev/null";
	for (size_t i = 0; d->extra && d->extra[i]; i++)
		argv[n++] = d->extra[i];
	argv[n] = NULL;
	d->pid = live_start_daemon((char *const *)argv, d->sock, d->log);
	return d->pid;
}

int live_daemon_stop(pid_t pid, unsigned ms)
{
	int st;

	if (pid <= 0)
		return -1;
	kill(pid, SIGTERM);
	for (;;) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (!ms) {
			fprintf(stderr, "fxsamplerd %d ignored SIGTERM, killing it\n", (int)pid);
			kill(pid, SIGKILL);
			if (waitpid(pid, &st, 0) != pid)
				return -1;
			return 128 + SIGKILL;
		}
		live_msleep(ms < 20 ? ms : 20);
		ms -= ms < 20 ? ms : 20;
	}
}

pid_t live_start_tmp_daemon(char *sock, size_t len)
{
	struct live_daemon d = {0};
	pid_t pid = live_daemon_start(&d);

	snprintf(sock, len, "%s", d.sock);
	return pid;
}

void live_continuous_prepare(struct live_continuous *c, const char *name, mode_t dir_mode,
			     const char *more)
{
	static const char *const verbose[] = {"-v", NULL};
	FILE *f;

	memset(c, 0, sizeof(*c));
	snprintf(c->conf, sizeof(c->conf), "%s/%s.conf", tmpdir, name);
	snprintf(c->dir, sizeof(c->dir), "%s/%s", tmpdir, name);
	if (dir_mode)
		ck_assert_int_eq(mkdir(c->dir, dir_mode), 0);
	f = fopen(c->conf, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "continuous = yes\ndirectory = %s\n%s", c->dir, more);
	ck_assert_int_eq(fclose(f), 0);
	c->d.name = name;
	c->d.config = c->conf;
	c->d.extra = verbose;
}

bool live_continuous_runs(const char *sock)
{
	struct fxs_msg_status st;

	return live_daemon_status(sock, &st) && st.session == FXS_SESSION_RUNNING &&
	       (st.flags & FXS_STATUS_CONTINUOUS);
}

void live_continuous_start(struct live_continuous *c)
{
	ck_assert_msg(live_daemon_start(&c->d) > 0, "fxsamplerd did not start, see %s", c->d.log);
	for (int i = 0; i < 100 && !live_continuous_runs(c->d.sock); i++)
		live_msleep(50);
	ck_assert_msg(live_continuous_runs(c->d.sock), "no continuous session, see %s", c->d.log);
}

/* --- a suite's own daemon and test user --- */

static void suite_die(const struct live_suite *ls, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s%s\n", ls->name, what, arg ? arg : "");
	exit(EXIT_FAILURE);
}

static void suite_setup(struct live_suite *ls)
{
	char daemon_bin[PATH_MAX];
	int made;

	bin = getenv("FXS_BIN");
	progs = getenv("FXS_PROGS");
	if (!bin || !*bin || !progs || !*progs)
		suite_die(ls, "FXS_BIN and FXS_PROGS must name the binary and the test programs",
			  NULL);
	live_daemon_path(daemon_bin, sizeof(daemon_bin));
	if (access(daemon_bin, X_OK))
		suite_die(ls, "no fxsamplerd beside FXS_BIN (or at $FXSAMPLERD)", NULL);
	if (ls->check)
		ls->check();
	made = ls->user ? live_make_user(ls->user, &ls->uid, &ls->gid) : 0;
	if (made < 0)
		suite_die(ls, "cannot make the test user ", ls->user);
	ls->user_created = made;
	snprintf(tmpdir, sizeof(tmpdir), "%s", ls->dir);
	if (!mkdtemp(tmpdir))
		suite_die(ls, "mkdtemp failed: ", ls->dir);
	chmod(tmpdir, ls->dir_mode);
	if (live_daemon_start(&ls->daemon) <= 0)
		suite_die(ls, "fxsamplerd did not start, see ", ls->daemon.log);
}

static void suite_teardown(struct live_suite *ls)
{
	char cmd[PATH_MAX];
	int rc = live_daemon_stop(ls->daemon.pid, 5000);

	if (rc)
		fprintf(stderr, "%s: fxsamplerd exited with %d\n", ls->name, rc);
	if (ls->user_created) {
		snprintf(cmd, sizeof(cmd), "userdel %s", ls->user);
		live_run_cmd(cmd);
	}
	if (getenv("FXS_KEEP")) {
		fprintf(stderr, "kept %s\n", tmpdir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	live_run_cmd(cmd);
}

int live_suite_main(struct live_suite *ls, Suite *(*suite_fn)(void))
{
	int status;

	if (geteuid() != 0) {
		printf("SKIP: %s needs root (%s); NOT RUN\n", ls->name, ls->needs);
		return EXIT_SUCCESS;
	}
	suite_setup(ls);
	status = check_run(suite_fn());
	suite_teardown(ls);
	return status;
}

int live_make_user(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(name);
	char cmd[256];
	int made = 0;

	if (!pw) {
		snprintf(cmd, sizeof(cmd),
			 "useradd --system --no-create-home --shell /usr/sbin/nologin %s", name);
		if (live_run_cmd(cmd))
			return -1;
		made = 1;
		pw = getpwnam(name);
	}
	if (!pw)
		return -1;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return made;
}

pid_t live_client_start(const char *sock, uid_t uid, gid_t gid, const struct capture_opts *o,
			const char *out, uint64_t ns, int *ret_fd)
{
	int pfd[2], fd;
	pid_t pid;

	ck_assert_int_eq(pipe2(pfd, O_CLOEXEC), 0);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	if (uid)
		ck_assert_int_eq(fchown(fd, uid, gid), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct live_client r;

		memset(&r, 0, sizeof(r));
		if (uid)
			live_become(uid, gid);
		r.err = client_record(sock, o, fd, NULL, ns, NULL, &r.res, r.msg, sizeof(r.msg));
		_exit(write(pfd[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(fd);
	close(pfd[1]);
	*ret_fd = pfd[0];
	return pid;
}

int live_client_wait(pid_t pid, int fd, unsigned secs, struct live_client *rep)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	size_t got = 0;
	ssize_t n;
	int st;

	memset(rep, 0, sizeof(*rep));
	if (poll(&p, 1, (int)secs * 1000) <= 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(fd);
		ck_abort_msg("the capture did not end in %u s: the daemon hangs", secs);
	}
	while (got < sizeof(*rep) && (n = read(fd, (char *)rep + got, sizeof(*rep) - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (got != sizeof(*rep))
		rep->err = -EPIPE;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return rep->err;
}

void live_become(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		_exit(125);
	live_die_with_parent();
}

pid_t live_record_client(const char *sock, uid_t uid, gid_t gid, int out_fd, int err_fd,
			 const char *const *args)
{
	const char *argv[64];
	size_t n = 0;
	pid_t pid;

	argv[n++] = bin;
	argv[n++] = "record";
	if (sock) {
		argv[n++] = "--socket";
		argv[n++] = sock;
	}
	for (size_t i = 0; args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

		setpgid(0, 0);
		dup2(devnull, 0);
		if (out_fd != -2)
			dup2(out_fd >= 0 ? out_fd : devnull, 1);
		if (err_fd != -2)
			dup2(err_fd >= 0 ? err_fd : devnull, 2);
		if (uid)
			live_become(uid, gid);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

pid_t spinner_as(uid_t uid, gid_t gid)
{
	volatile unsigned long x = 0;
	int ready[2];
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe2(ready, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		close(ready[0]);
		if (uid)
			live_become(uid, gid);
		if (write(ready[1], "r", 1) != 1)
			_exit(126);
		close(ready[1]);
		for (;;)
			x++;
	}
	close(ready[1]);
	ck_assert_msg(read(ready[0], &c, 1) == 1, "the spinner could not become uid %u",
		      (unsigned)uid);
	close(ready[0]);
	return pid;
}
