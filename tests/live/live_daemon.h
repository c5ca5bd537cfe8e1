/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the daemon's live tests share (defined in live.c, which every live
 * test links): waiting, shell commands, starting fxsamplerd, and targets
 * owned by another user.
 */
#ifndef FXS_TESTS_LIVE_LIVE_DAEMON_H
#define FXS_TESTS_LIVE_LIVE_DAEMON_H

#include <sys/types.h>

void live_msleep(unsigned ms);
/* system(cmd): its exit status, or 128 when it did not exit. */
int live_run_cmd(const char *cmd);
/*
 * Start argv (fxsamplerd, or a command that execs it) with stderr appended to
 * log; it dies with the test. Returns its pid once it answers a status
 * request on sock, or -1 when it exited or did not answer within 5 s.
 */
pid_t live_start_daemon(char *const argv[], const char *sock, const char *log);
/*
 * A child that burns CPU until killed (SIGKILL, then waitpid), as uid/gid when uid is not
 * 0 (no supplementary groups). Returns once the child runs with those
 * credentials, so nobody sees it as root first.
 */
pid_t spinner_as(uid_t uid, gid_t gid);

#endif /* FXS_TESTS_LIVE_LIVE_DAEMON_H */
