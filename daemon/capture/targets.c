// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture/authz.h"
#include "util/containers.h"
#include "util/sorted.h"
#include "capture/procinfo.h"
#include "capture/targets.h"

#ifndef PIDFD_NONBLOCK
#define PIDFD_NONBLOCK O_NONBLOCK
#endif

struct target {
	pid_t pid;
	int pidfd;
	bool denied; /* left the client's reach: said, and its samples dropped */
};

struct targets {
	bool check;
	uid_t uid;
	uint64_t caps;
	struct stat userns; /* our user namespace */
	struct target *v;   /* sorted by pid */
	size_t n, cap;
	int dirfd; /* of the last targets_enter(), until targets_leave() */
};

struct targets *targets__new(bool check, uid_t uid, uint64_t caps)
{
	struct targets *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->check = check;
	t->uid = uid;
	t->caps = caps;
	t->dirfd = -1;
	if (stat("/proc/self/ns/user", &t->userns)) {
		free(t);
		return NULL;
	}
	return t;
}

void targets__free(struct targets *t)
{
	if (!t)
		return;
	targets_leave(t);
	for (size_t i = 0; i < t->n; i++)
		close(t->v[i].pidfd);
	free(t->v);
	free(t);
}

static int cmp_pid(const void *key, const void *elem)
{
	pid_t k = *(const pid_t *)key, e = ((const struct target *)elem)->pid;

	return (k > e) - (k < e);
}

/* t->v is sorted by pid: pid's entry, or NULL and where it would go. */
static struct target *find(const struct targets *t, pid_t pid, size_t *ret_pos)
{
	return sorted_find(t->v, t->n, sizeof(*t->v), &pid, cmp_pid, ret_pos);
}

static void forget(struct targets *t, struct target *e)
{
	size_t i = (size_t)(e - t->v);

	close(e->pidfd);
	memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(*t->v));
	t->n--;
}

/* Whether the pidfd's process has exited. */
static bool exited(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	return poll(&p, 1, 0) != 0;
}

static struct target *add(struct targets *t, pid_t pid)
{
	struct target *e;
	size_t pos;
	int fd;

	e = find(t, pid, &pos);
	if (e)
		return e;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return NULL;
	if (array_reserve((void **)&t->v, &t->cap, t->n, sizeof(*t->v))) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	memmove(&t->v[pos + 1], &t->v[pos], (t->n - pos) * sizeof(*t->v));
	t->n++;
	t->v[pos] = (struct target){.pid = pid, .pidfd = fd};
	return &t->v[pos];
}

/*
 * The owner of the user namespace of the process under dir, as the one just
 * below ours: *ret_foreign false when it is ours. 0 or -errno.
 */
static int userns_owner(const struct targets *t, const char *dir, bool *ret_foreign,
			uid_t *ret_owner)
{
	char path[96];
	struct stat st;
	int fd, parent, i;

	snprintf(path, sizeof(path), "%s/ns/user", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	*ret_foreign = st.st_ino != t->userns.st_ino || st.st_dev != t->userns.st_dev;
	/* Nesting is at most 32 deep. */
	for (i = 0; *ret_foreign && i < 33; i++) {
		parent = ioctl(fd, NS_GET_PARENT);
		if (parent < 0 || fstat(parent, &st)) {
			if (parent >= 0)
				close(parent);
			close(fd);
			return -EPERM;
		}
		if (st.st_ino == t->userns.st_ino && st.st_dev == t->userns.st_dev) {
			close(parent);
			break;
		}
		close(fd);
		fd = parent;
	}
	if (*ret_foreign && (i == 33 || ioctl(fd, NS_GET_OWNER_UID, ret_owner))) {
		close(fd);
		return -EPERM;
	}
	close(fd);
	return 0;
}

/* Is the process of dirfd (named dir) still the client's? 0, AUTHZ_LEFT_*, or -errno. */
static int still_theirs(const struct targets *t, int dirfd, const char *dir)
{
	struct authz_owner o;
	bool foreign = false;
	uid_t owner = (uid_t)-1;
	int err;

	/* <proc_root>/<pid>/status, with the fd for the pid: dir/status */
	err = authz_proc_owner("/proc/self/fd", dirfd, &o);
	if (err)
		return err;
	err = userns_owner(t, dir, &foreign, &owner);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	return authz_target_left(t->uid, t->caps, &o, foreign, owner);
}

int targets_enter(struct targets *t, pid_t pid, uint64_t seen_ns, char *ret_dir, size_t dir_len,
		  int *ret_why)
{
	struct target *e;
	uint64_t start_ns;
	char path[32];
	bool fresh;
	int r;

	*ret_why = 0;
	targets_leave(t);
	if (pid <= 0)
		return -ESRCH;
	fresh = !find(t, pid, NULL);
	e = add(t, pid);
	if (!e)
		return errno == ESRCH ? -ESRCH : -errno;
	if (e->denied)
		return -EACCES;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	t->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/*
	 * Opened before the pidfd's process exited, the directory is that
	 * process: a pid is reused only after its process is reaped.
	 */
	if (t->dirfd < 0 || exited(e->pidfd)) {
		targets_leave(t);
		forget(t, e);
		return -ESRCH;
	}
	snprintf(ret_dir, dir_len, "/proc/self/fd/%d", t->dirfd);
	/*
	 * A pidfd opened now holds whatever process has the pid now: one that
	 * started after the sample is not the sample's (the start is in
	 * ticks, rounded down: never later than the real start).
	 */
	if (fresh && seen_ns && !procinfo_start_ns(ret_dir, &start_ns) && start_ns > seen_ns) {
		targets_leave(t);
		forget(t, e);
		return -ESRCH;
	}
	r = t->check ? still_theirs(t, t->dirfd, ret_dir) : 0;
	if (r == -ESRCH || (r < 0 && exited(e->pidfd))) {
		targets_leave(t);
		forget(t, e);
		return -ESRCH;
	}
	if (r) {
		/* what we cannot read, we do not give out */
		targets_leave(t);
		e->denied = true;
		*ret_why = r > 0 ? r : AUTHZ_LEFT_UNREADABLE;
		return -EACCES;
	}
	return 0;
}

void targets_leave(struct targets *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
}

bool targets_deny(struct targets *t, pid_t pid)
{
	struct target *e = find(t, pid, NULL);

	if (e && e->denied)
		return false;
	/* Never seen: held from now on, so its exit is noticed; gone: said all the same. */
	if (!e)
		e = add(t, pid);
	if (e)
		e->denied = true;
	return true;
}

bool targets_denied(const struct targets *t, pid_t pid)
{
	const struct target *e = find(t, pid, NULL);

	return e && e->denied;
}

size_t targets_reap(struct targets *t, pid_t *ret, size_t max)
{
	size_t n = 0, i = 0;

	while (i < t->n && n < max) {
		if (exited(t->v[i].pidfd)) {
			ret[n++] = t->v[i].pid;
			forget(t, &t->v[i]);
			continue;
		}
		i++;
	}
	return n;
}
