/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the daemon's live tests share (defined in live_daemon.c, which every
 * live test links): waiting, shell commands, starting fxsamplerd, a suite's own
 * daemon and test user, the record client as that user, and targets owned by
 * another user.
 */
#ifndef FXS_TESTS_LIVE_LIVE_DAEMON_H
#define FXS_TESTS_LIVE_LIVE_DAEMON_H

#include <check.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli/client.h"
#include "service/protocol.h"

void live_msleep(unsigned ms);
/* How many fds pid has open (0 when it is gone). */
unsigned live_open_fds(pid_t pid);
/* system(cmd): its exit status, or 128 when it did not exit. */
int live_run_cmd(const char *cmd);
/*
 * Start argv (fxsamplerd, or a command that execs it) with stderr appended to
 * log; it dies with the test. Returns its pid once it answers a status
 * request on sock, or -1 when it exited or did not answer within 5 s.
 */
pid_t live_start_daemon(char *const argv[], const char *sock, const char *log);
/* Whether the daemon on sock answers a status request; its status in *st (may be NULL). */
bool live_daemon_status(const char *sock, struct fxs_msg_status *st);
/* fxsamplerd's path: $FXSAMPLERD, else beside FXS_BIN. */
void live_daemon_path(char *buf, size_t len);

/* A daemon of the test's own in tmpdir, started by live_daemon_start(). */
struct live_daemon {
	/* the test's choice; each may be left 0 */
	const char *name;	  /* tmpdir/NAME.sock and tmpdir/NAME.log (NULL: "s") */
	const char *config;	  /* its --config (NULL: /dev/null, an empty one) */
	const char *const *wrap;  /* a command that execs the daemon ("setpriv", ...) */
	const char *const *extra; /* arguments after its own ("-v") */
	/* set by live_daemon_start() */
	char sock[108]; /* a socket's path: sun_path's size */
	char log[PATH_MAX];
	pid_t pid;
};

/* Start d (live_start_daemon()): its pid once it answers, or -1. */
pid_t live_daemon_start(struct live_daemon *d);
/*
 * SIGTERM to the daemon pid, SIGKILL when it has not exited within ms: its
 * exit status (128 + the signal when killed), or -1 when there was none.
 */
int live_daemon_stop(pid_t pid, unsigned ms);

/* A daemon of the test's own in continuous mode, its files in dir. */
struct live_continuous {
	struct live_daemon d;
	char conf[300], dir[300];
};

/*
 * c's config tmpdir/NAME.conf: continuous mode into tmpdir/NAME (made with
 * dir_mode, 0: left to the daemon), the lines more after; c->d is fxsamplerd
 * -v with it on tmpdir/NAME.sock, its log tmpdir/NAME.log.
 */
void live_continuous_prepare(struct live_continuous *c, const char *name, mode_t dir_mode,
			     const char *more);
/* Whether the daemon on sock runs its continuous session. */
bool live_continuous_runs(const char *sock);
/* Start c->d and wait (5 s at most) until its continuous session runs. */
void live_continuous_start(struct live_continuous *c);

/*
 * A suite's own fxsamplerd and test user (check_daemon, check_security,
 * check_mmap, check_hostile): live_suite_main() makes tmpdir from dir with
 * mode dir_mode, the user when missing (useradd --system), and starts daemon;
 * after the suite it stops the daemon (SIGKILL after 5 s: one stuck must not
 * hold the host's sampler), removes the user it made and tmpdir (FXS_KEEP
 * keeps it).
 */
struct live_suite {
	const char *name;    /* "check_mmap": messages */
	const char *needs;   /* what it needs besides root, for the SKIP line */
	const char *user;    /* the test user's name (NULL: none) */
	const char *dir;     /* tmpdir's template, "/tmp/fxs-mmap.XXXXXX" */
	mode_t dir_mode;     /* 0777: the user writes its captures there too */
	void (*check)(void); /* exits with a message when a tool it needs is missing */
	struct live_daemon daemon;
	uid_t uid; /* the test user's */
	gid_t gid;
	bool user_created;
};

/*
 * main() of such a suite: SKIP loudly unless root; FXS_BIN and FXS_PROGS
 * must be set; the suite suite_fn() builds runs between the setup and the
 * teardown above. Returns the exit status.
 */
int live_suite_main(struct live_suite *ls, Suite *(*suite_fn)(void));

/*
 * The user name (useradd --system when missing): 1 when it was made here (the
 * caller runs userdel), 0 when it was there, -1 when it could not be made.
 */
int live_make_user(const char *name, uid_t *uid, gid_t *gid);
/*
 * In a child: become uid/gid with no supplementary groups, or _exit(125);
 * it still dies with its parent (live_die_with_parent()).
 */
void live_become(uid_t uid, gid_t gid);
/*
 * `FXS_BIN record --socket sock ARGS` (args NULL-terminated; sock NULL: no
 * --socket) as uid/gid (uid 0: as we are) in a process group of its own:
 * stdin from /dev/null, stdout to out_fd and stderr to err_fd (-1: /dev/null,
 * -2: ours). The caller reaps it (kill(-pid, ...) reaches its children).
 */
pid_t live_record_client(const char *sock, uid_t uid, gid_t gid, int out_fd, int err_fd,
			 const char *const *args);
#define LIVE_RECORD(sock, uid, gid, out_fd, err_fd, ...)                                           \
	live_record_client((sock), (uid), (gid), (out_fd), (err_fd),                               \
			   (const char *const[]){__VA_ARGS__, NULL})

/* What client_record() gave a child of live_client_start(). */
struct live_client {
	int err; /* client_record()'s result; -EPIPE: the child told nothing */
	struct client_result res;
	char msg[512];
};

/*
 * client_record() of o on sock for ns into out (made here, owned by uid) as
 * uid/gid (uid 0: as we are), in a child: its pid, the pipe its result comes
 * on in *ret_fd for live_client_wait().
 */
pid_t live_client_start(const char *sock, uid_t uid, gid_t gid, const struct capture_opts *o,
			const char *out, uint64_t ns, int *ret_fd);
/*
 * The result of such a child in *rep, and rep->err; fails the test when it
 * told nothing within secs (a hung daemon).
 */
int live_client_wait(pid_t pid, int fd, unsigned secs, struct live_client *rep);

/*
 * A child that burns CPU until killed (SIGKILL, then waitpid), as uid/gid when uid is not
 * 0 (no supplementary groups). Returns once the child runs with those
 * credentials, so nobody sees it as root first.
 */
pid_t spinner_as(uid_t uid, gid_t gid);

#endif /* FXS_TESTS_LIVE_LIVE_DAEMON_H */
