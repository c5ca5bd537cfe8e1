/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small facts about live processes from /proc. */
#ifndef FXS_DAEMON_PROCINFO_H
#define FXS_DAEMON_PROCINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The comm of thread tid of process pid; "" (and -errno) when it is gone. */
int procinfo_comm(pid_t pid, pid_t tid, char *buf, size_t size);
/* The same under a /proc/PID directory of the process (e.g. "/proc/self/fd/N"). */
int procinfo_comm_at(const char *pid_dir, pid_t tid, char *buf, size_t size);
/*
 * The start of a process, from the text of its /proc/PID/stat: field 22, in
 * clock ticks since boot. 0, or -EBADMSG.
 */
int procinfo_parse_start(const char *stat, uint64_t *ret_ticks);
/* The start of the process under pid_dir, in ns of CLOCK_BOOTTIME (tick precision). */
int procinfo_start_ns(const char *pid_dir, uint64_t *ret_ns);
/*
 * The command line of the process under pid_dir ("/proc/PID" or a verified
 * directory fd's path), its arguments joined by spaces, cut to size - 1 bytes;
 * "" for a kernel thread. Returns its length, or -errno.
 */
int procinfo_cmdline_at(const char *pid_dir, char *buf, size_t size);
/*
 * Whether the process under pid_dir is not dumpable: its /proc directory is
 * then owned by root, not by its real uid. So is a process after an exec
 * that changed its credentials (set-user-ID, set-group-ID, file
 * capabilities), unless fs.suid_dumpable is 1. 1 or 0, or -errno (-ESRCH
 * when it is gone).
 */
int procinfo_not_dumpable(const char *pid_dir);
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
