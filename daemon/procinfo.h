/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small facts about live processes from /proc. */
#ifndef FXS_DAEMON_PROCINFO_H
#define FXS_DAEMON_PROCINFO_H

#include <stddef.h>
#include <sys/types.h>

/* The comm of thread tid of process pid; "" (and -errno) when it is gone. */
int procinfo_comm(pid_t pid, pid_t tid, char *buf, size_t size);
/*
 * The command line of pid, its arguments joined by spaces, cut to size - 1
 * bytes; "" for a kernel thread. Returns its length, or -errno.
 */
int procinfo_cmdline(pid_t pid, char *buf, size_t size);
/* The thread group of a pid or tid: >0, or -errno (-ESRCH when there is none). */
pid_t procinfo_tgid(pid_t pid);

#endif /* FXS_DAEMON_PROCINFO_H */
