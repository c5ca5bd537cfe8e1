/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One sampler per host, as in Fuchsia: an advisory lock on a file under /run
 * that holds the owner's pid, so a second user is told who has it.
 */
#ifndef FXS_DAEMON_HOSTLOCK_H
#define FXS_DAEMON_HOSTLOCK_H

#include <sys/types.h>

#define HOSTLOCK_PATH "/run/fxsampler.lock"

/*
 * 0 and *ret_fd on success; -EBUSY and *ret_holder (0 if unknown) when another
 * process holds it; other -errno. The lock dies with the process.
 */
int hostlock_acquire(const char *path, int *ret_fd, pid_t *ret_holder);
/* Releases the lock; -1 is a no-op. */
void hostlock_release(int fd);
/*
 * Whether the lock is held, without taking it and with read access only (a
 * user's `status`): 0 free (or no lock file), -EBUSY and *ret_holder (0 if
 * unknown) when held, other -errno when it cannot be told.
 */
int hostlock_probe(const char *path, pid_t *ret_holder);

#endif /* FXS_DAEMON_HOSTLOCK_H */
