// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* record's command: forked first, held until sampling runs (child.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/child.h"

/* Resolve like execvp, so a command that cannot run fails before any BPF is loaded. */
int child_find_command(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? -errno : 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", cmd);
		if (!access(buf, X_OK))
			return 0;
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

int child_spawn(char **cmd, struct child *ret)
{
	sigset_t all, old;
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	/*
	 * No signal reaches the child before it has its own dispositions: one
	 * caught by our handler in the child would be lost, and the child would
	 * wait for a release that never comes.
	 */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (pid == 0) {
		char c;
		int e;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* The command lives as long as its capture, even if record is killed. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(go[1]);
		close(err[0]);
		/* EOF without the byte: the parent gave up (or died), so do not run. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		e = errno;
		if (write(err[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(go[0]);
	close(err[1]);
	ret->pid = pid;
	ret->go_fd = go[1];
	ret->err_fd = err[0];
	ret->released = false;
	return 0;
}

/* Let it exec; 0 once it runs the command, or the exec's -errno. */
int child_release(struct child *c)
{
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, "x", 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	c->released = n != sizeof(e);
	return n == sizeof(e) ? -e : 0;
}

/*
 * End the child: one still held sees its pipe close and exits (SIGKILL
 * besides, in case it is anywhere else); a running command gets sig (0:
 * none, it is waited for). Its wait status in *ret_status.
 */
void child_end(struct child *c, int sig, int *ret_status)
{
	int st = 0;

	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0) {
		if (!c->released)
			sig = SIGKILL;
		if (sig)
			kill(c->pid, sig);
		while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
			;
		if (ret_status)
			*ret_status = st;
	}
	c->pid = 0;
}

void child_abort(struct child *c)
{
	child_end(c, SIGKILL, NULL);
}

/*
 * The command is the user's: when the capture ends without it (the daemon
 * went away), it runs on and we wait for it, passing on a signal we get.
 */
void child_wait(struct child *c, volatile sig_atomic_t *stop_signal, int *ret_status)
{
	int st = 0, forwarded = 0;

	*stop_signal = 0;
	while (c->pid > 0) {
		pid_t w = waitpid(c->pid, &st, WNOHANG);
		struct timespec ts = {.tv_nsec = 20000000};

		if (w == c->pid || (w < 0 && errno != EINTR)) {
			c->pid = 0;
			break;
		}
		if (*stop_signal && !forwarded) {
			kill(c->pid, *stop_signal);
			forwarded = *stop_signal;
		}
		nanosleep(&ts, NULL);
	}
	if (ret_status)
		*ret_status = st;
}
