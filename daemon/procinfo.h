/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small facts about live processes from /proc. */
#ifndef FXS_DAEMON_PROCINFO_H
#define FXS_DAEMON_PROCINFO_H

#include <stddef.h>
#include <sys/types.h>

/* The comm of thread tid of process pid; "" (and -errno) when it is gone. */
int procinfo_comm(pid_t pid, pid_t tid, char *buf, size_t size);
/* The thread group of a pid or tid: >0, or -errno (-ESRCH when there is none). */
pid_t procinfo_tgid(pid_t pid);

/* What a pid is, for deciding whether it can be sampled at all. */
enum procinfo_kind {
	PROCINFO_USER = 0,    /* a process with a user stack */
	PROCINFO_ZOMBIE = 1,  /* exited, not yet reaped: nothing to sample, ever */
	PROCINFO_KTHREAD = 2, /* a kernel thread: no user stack */
};

/* The kind of pid: PROCINFO_*, or -errno (-ESRCH when it is gone). */
int procinfo_kind(pid_t pid);
/* The same from the text of /proc/PID/stat: PROCINFO_* or -EINVAL. */
int procinfo_kind_from_stat(const char *stat);

#endif /* FXS_DAEMON_PROCINFO_H */
