// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The output file of record, report and continuous mode: whole or not
 * there, never a device replaced by a file. See outfile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/outfile.h"

static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

/* A device or a FIFO: written through. A FIFO without a reader fails at once. */
static int open_direct(struct outfile *o, unsigned flags)
{
	int fd, fl, err;

	fd = open(o->name, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		err = -errno;
		close(fd);
		return err;
	}
	if ((flags & OUTFILE_NO_TTY) && isatty(fd)) {
		close(fd);
		return -OUTFILE_ETTY;
	}
	o->fd = fd;
	o->direct = true;
	return 0;
}

/*
 * The temporary name is derived here only: ".NAME.XXXXXX" beside NAME (the
 * X's are mkostemp()'s), NAME cut to TEMP_NAME_KEEP bytes so that a long one
 * still makes a valid name; outfile_temp_target() is the inverse.
 */
#define TEMP_NAME_KEEP 200
#define TEMP_SUFFIX    ".XXXXXX"

/*
 * The temporary file beside o->final, still 0600: o->tmp and o->fd. basename()
 * here and below is GNU's (<string.h>, _GNU_SOURCE): it never modifies its
 * argument, and a name ending in '/' has an empty base.
 */
static int make_temp(struct outfile *o)
{
	int dirlen = (int)(basename(o->final) - o->final), n;

	n = snprintf(o->tmp, sizeof(o->tmp), "%.*s.%.*s" TEMP_SUFFIX, dirlen, o->final,
		     TEMP_NAME_KEEP, o->final + dirlen);
	if (n < 0 || (size_t)n >= sizeof(o->tmp)) {
		o->tmp[0] = '\0';
		return -ENAMETOOLONG;
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		o->tmp[0] = '\0';
		return -errno;
	}
	return 0;
}

static bool temp_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

int outfile_temp_target(const char *name, char *buf, size_t len)
{
	size_t n = strlen(name), x = strlen(TEMP_SUFFIX) - 1, keep, i;

	/* ".", NAME, ".", the X's */
	if (n < x + 3 || name[0] != '.' || name[n - x - 1] != '.' || strchr(name, '/'))
		return -EINVAL;
	for (i = n - x; i < n; i++)
		if (!temp_char(name[i]))
			return -EINVAL;
	keep = n - x - 2;
	if ((keep == 1 && name[1] == '.') || (keep == 2 && name[1] == '.' && name[2] == '.'))
		return -EINVAL;
	if (keep >= len)
		return -ENAMETOOLONG;
	memcpy(buf, name + 1, keep);
	buf[keep] = '\0';
	return 0;
}

/* The temporary file beside final, named after it, with the mode it will keep. */
static int open_temp(struct outfile *o, const struct stat *old)
{
	int err = make_temp(o);

	if (err)
		return err;
	if (old) {
		/* Replacing a profile keeps who may read it. */
		if (fchown(o->fd, old->st_uid, old->st_gid)) {
			/* not ours to give away: the mode still applies */
		}
		/* the permission bits only: a profile is never set-id */
		fchmod(o->fd, old->st_mode & 0777);
	} else {
		fchmod(o->fd, 0666 & ~current_umask());
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path, unsigned flags)
{
	struct stat st, lst;
	int err;

	memset(o, 0, sizeof(*o));
	o->name = path;
	o->fd = -1;
	if ((flags & OUTFILE_DASH_STDOUT) && !strcmp(path, "-")) {
		if ((flags & OUTFILE_NO_TTY) && isatty(STDOUT_FILENO))
			return -OUTFILE_ETTY;
		o->fd = STDOUT_FILENO;
		o->direct = o->is_stdout = true;
		o->open = true;
		return 0;
	}
	if (strlen(path) >= sizeof(o->final) - 16)
		return -ENAMETOOLONG;
	strcpy(o->final, path);
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return -errno;
		err = open_temp(o, NULL);
	} else {
		o->type = st.st_mode & S_IFMT;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
			err = open_direct(o, flags);
		} else if (!S_ISREG(st.st_mode)) {
			return -OUTFILE_ENOTREG;
		} else {
			if (!lstat(path, &lst) && S_ISLNK(lst.st_mode)) {
				char *real = realpath(path, NULL);

				/* the link stays a link: its target is what is replaced */
				if (!real || strlen(real) >= sizeof(o->final) - 16) {
					err = real ? -ENAMETOOLONG : -errno;
					free(real);
					return err;
				}
				strcpy(o->final, real);
				free(real);
			}
			err = open_temp(o, &st);
		}
	}
	if (!err)
		o->open = true;
	return err;
}

int outfile_create(struct outfile *o, const char *path, mode_t mode)
{
	const char *base = basename(path);
	struct stat st;
	int err;

	memset(o, 0, sizeof(*o));
	o->name = o->final;
	o->fd = -1;
	if (!*base)
		return -EISDIR;
	/* its temporary name must name it back (outfile_temp_target()) */
	if (strlen(path) >= sizeof(o->final) - 16 || strlen(base) > TEMP_NAME_KEEP)
		return -ENAMETOOLONG;
	if (!lstat(path, &st))
		return -EEXIST;
	if (errno != ENOENT)
		return -errno;
	strcpy(o->final, path);
	err = make_temp(o);
	if (err)
		return err;
	if (fchmod(o->fd, mode & 07777)) {
		err = -errno;
		close(o->fd);
		unlink(o->tmp);
		o->fd = -1;
		o->tmp[0] = '\0';
		return err;
	}
	o->noreplace = true;
	o->open = true;
	return 0;
}

int outfile_adopt(struct outfile *o, const char *tmp, const char *final)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->name = o->tmp;
	o->fd = -1;
	if (strlen(tmp) >= sizeof(o->tmp) || strlen(final) >= sizeof(o->final))
		return -ENAMETOOLONG;
	fd = open(tmp, O_RDWR | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISREG(st.st_mode) ? -errno : -OUTFILE_ENOTREG;
	}
	strcpy(o->tmp, tmp);
	strcpy(o->final, final);
	o->type = S_IFREG;
	o->fd = fd;
	o->noreplace = true;
	o->open = true;
	return 0;
}

int outfile_sync(struct outfile *o)
{
	if (!o->open)
		return -EBADF;
	return fdatasync(o->fd) ? -errno : 0;
}

/* Sync the directory too, so that the rename survives a crash. */
static void sync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		 slash ? path : ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* The new name, without replacing a file that has it already. */
static int rename_noreplace(const char *from, const char *to)
{
	struct stat st;

	if (!renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A file system (or kernel) without RENAME_NOREPLACE: check, then rename. */
	if (!lstat(to, &st))
		return -EEXIST;
	return rename(from, to) ? -errno : 0;
}

int outfile_commit(struct outfile *o)
{
	int err = 0;

	if (!o->open)
		return -EBADF;
	if (o->direct) {
		/* a device or a pipe may not sync: that is no failure */
		if (fsync(o->fd) && errno != EINVAL && errno != EROFS)
			err = -errno;
		if (!o->is_stdout && close(o->fd) && !err)
			err = -errno;
		o->fd = -1;
		o->open = false;
		return err;
	}
	if (fsync(o->fd))
		err = -errno;
	if (close(o->fd) && !err)
		err = -errno;
	o->fd = -1;
	if (!err && o->noreplace)
		err = rename_noreplace(o->tmp, o->final);
	else if (!err && rename(o->tmp, o->final))
		err = -errno;
	if (err && o->noreplace) {
		/* kept for a salvage: it may hold hours of samples */
		o->open = false;
		return err;
	}
	if (err) {
		outfile_abort(o);
		return err;
	}
	o->tmp[0] = '\0';
	o->open = false;
	sync_dir_of(o->final);
	return 0;
}

int outfile_abort(struct outfile *o)
{
	int err = 0;

	if (!o->open)
		return 0;
	if (o->fd >= 0 && !o->is_stdout)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0] && unlink(o->tmp) && errno != ENOENT)
		err = -errno;
	o->tmp[0] = '\0';
	o->open = false;
	return err;
}

void outfile_leave(struct outfile *o)
{
	if (!o->open)
		return;
	if (o->fd >= 0 && !o->is_stdout)
		close(o->fd);
	o->fd = -1;
	o->open = false;
}

const char *outfile_strerror(const struct outfile *o, int err)
{
	if (err == -ENXIO && o->type == S_IFIFO)
		return "a FIFO with no reader";
	if (err == -OUTFILE_ENOTREG)
		return "not a regular file, a character device or a FIFO";
	if (err == -OUTFILE_ETTY)
		return "a terminal";
	return strerror(-err);
}
