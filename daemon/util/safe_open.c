// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A read-only open that neither blocks nor has side effects on special files. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safe_open.h"

int safe_open_regular(const char *path, struct stat *ret_st)
{
	struct stat st;
	int fd, flags, err;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		/* A socket cannot be open()ed at all: say what it is, not ENXIO. */
		if (!stat(path, &st)) {
			if (ret_st)
				*ret_st = st;
			if (!S_ISREG(st.st_mode))
				return -SAFE_OPEN_ENOTREG;
		}
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (ret_st)
		*ret_st = st;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -SAFE_OPEN_ENOTREG;
	}
	/* Reads of a regular file ignore O_NONBLOCK, but a FUSE file may not. */
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

const char *safe_open_type_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "regular file";
	case S_IFDIR:
		return "directory";
	case S_IFIFO:
		return "fifo";
	case S_IFCHR:
		return "character device";
	case S_IFBLK:
		return "block device";
	case S_IFSOCK:
		return "socket";
	case S_IFLNK:
		return "symbolic link";
	default:
		return "special file";
	}
}

const char *safe_open_describe(const char *path)
{
	struct stat st;

	if (stat(path, &st) || S_ISREG(st.st_mode))
		return NULL;
	return safe_open_type_name(st.st_mode);
}
