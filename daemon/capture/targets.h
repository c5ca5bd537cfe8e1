/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The processes of a session for a non-root client, each held by a pidfd from
 * the moment it is first seen: an exit is noticed, and a pid reused by another
 * process is never taken for the target. Before each read of a target's /proc
 * files the daemon asks here again whether the process is still fully the
 * client's (authz_target_left()); the reads then go through a /proc/PID
 * directory fd that is verified to be the pidfd's process, so they cannot land
 * on another process either. No logging.
 */
#ifndef FXS_DAEMON_TARGETS_H
#define FXS_DAEMON_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct targets;

/*
 * For the client uid, whose permitted capabilities are caps; with check false
 * (a root session) only the identity of each process is kept, not its owner.
 * NULL with errno set.
 */
struct targets *targets__new(bool check, uid_t uid, uint64_t caps);
/* Closes every pidfd. NULL-safe. */
void targets__free(struct targets *t);

/*
 * May pid's /proc files be read now? 0, and *ret_dir names its /proc/PID
 * directory through an fd ("/proc/self/fd/N") that is that process, until
 * targets_leave(); -ESRCH when it is gone (and forgotten), or when the process
 * now on that pid started after seen_ns (CLOCK_BOOTTIME; 0: do not check),
 * when a sample of pid was taken: it is another; -EACCES when it is
 * no longer the client's: *ret_why is the AUTHZ_LEFT_* reason the first time
 * it is found so, 0 after (it was said already); other -errno. A pid not seen
 * before is opened as a pidfd here.
 */
int targets_enter(struct targets *t, pid_t pid, uint64_t seen_ns, char *ret_dir, size_t dir_len,
		  int *ret_why);
/* Done reading the /proc files of the last targets_enter(). */
void targets_leave(struct targets *t);
/*
 * pid left (the kernel took it out of the targets): true the first time, so
 * that it is said once. Its later samples are dropped (targets_denied()).
 */
bool targets_deny(struct targets *t, pid_t pid);
bool targets_denied(const struct targets *t, pid_t pid);
/*
 * Pids whose process exited since the last call, up to max into ret; they are
 * forgotten (a new process on the same pid starts afresh). Returns how many.
 */
size_t targets_reap(struct targets *t, pid_t *ret, size_t max);

#endif /* FXS_DAEMON_TARGETS_H */
