/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the daemon's live tests share (defined in live.c, which every live
 * test links): waiting, shell commands, and starting fxsamplerd.
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

#endif /* FXS_TESTS_LIVE_LIVE_DAEMON_H */
