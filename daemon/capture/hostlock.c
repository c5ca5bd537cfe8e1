// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "capture/hostlock.h"

static pid_t read_holder(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (pid_t)strtol(buf, NULL, 10);
}

int hostlock_acquire(const char *path, int *ret_fd, pid_t *ret_holder)
{
	char buf[32];
	int fd, n, err;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (ret_holder)
			*ret_holder = err == -EBUSY ? read_holder(fd) : 0;
		close(fd);
		return err;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n) {
		err = -errno;
		close(fd);
		return err;
	}
	*ret_fd = fd;
	return 0;
}

int hostlock_probe(const char *path, pid_t *ret_holder)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	*ret_holder = 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/* a shared lock is refused only while someone holds the exclusive one */
	if (flock(fd, LOCK_SH | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (err == -EBUSY)
			*ret_holder = read_holder(fd);
	}
	close(fd);
	return err;
}

void hostlock_release(int fd)
{
	if (fd < 0)
		return;
	/* Clear the pid first so nobody is named as the holder after we leave. */
	if (ftruncate(fd, 0)) {
		/* The lock itself goes with the close; a stale pid is only cosmetic. */
	}
	close(fd);
}
