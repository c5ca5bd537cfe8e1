/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An output file that is either whole or not there: `record -o` and
 * `report --pprof/--svg/--perf-script` both write through it.
 *
 * A regular file (new, or one to replace) is written under a temporary name
 * beside it, ".NAME.XXXXXX", then fsync()ed, renamed over it and its
 * directory fsync()ed; a failed write leaves the old file as it was. It is
 * created 0666 & ~umask, or with the permission bits and (where we may) the
 * owner of the file it replaces. A symlink is followed: its target is
 * replaced, the link stays a link. A character device or a FIFO (/dev/null, a
 * pipe), or a symlink to one, is written through and never replaced; a FIFO
 * without a reader is refused at once instead of blocking. Pure: no logging.
 */
#ifndef FXS_DAEMON_OUTFILE_H
#define FXS_DAEMON_OUTFILE_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* outfile_open() flags */
#define OUTFILE_DASH_STDOUT 0x1 /* "-" is standard output (never closed) */
#define OUTFILE_NO_TTY	    0x2 /* refuse a terminal: binary data would garble it */

/*
 * outfile_open()'s own failures, beside the errno of a system call: a path
 * that is no regular file, character device or FIFO (a socket, a block
 * device), and a terminal refused by OUTFILE_NO_TTY. open() of a path never
 * fails with these. A FIFO without a reader is -ENXIO.
 */
#define OUTFILE_ENOTREG EMEDIUMTYPE
#define OUTFILE_ETTY	ENOTTY

struct outfile {
	char final[PATH_MAX]; /* what the temporary file becomes: a symlink's target */
	char tmp[PATH_MAX];   /* "" once renamed or removed, or when written through */
	const char *name;     /* the path as given, for messages */
	mode_t type;	      /* S_IFMT of what name named before, 0 when nothing */
	int fd;		      /* write here */
	bool open;	      /* false for a zeroed struct: outfile_abort() does nothing */
	bool direct;	      /* a device, a FIFO or stdout: written through */
	bool is_stdout;
};

/*
 * Open path for writing (see above). Returns 0, or -errno with nothing left
 * open or created. path must outlive o (o->name points to it).
 */
int outfile_open(struct outfile *o, const char *path, unsigned flags);

/*
 * Finish: fsync() and close (a device or pipe that cannot sync is no
 * failure), then rename over the target and fsync() its directory. Returns 0
 * or -errno; on failure the temporary file is removed and the old file stays.
 */
int outfile_commit(struct outfile *o);

/* Drop an output not completed: close, remove the temporary file. Idempotent. */
void outfile_abort(struct outfile *o);

/* The reason for an outfile_open() or outfile_commit() failure, for a message. */
const char *outfile_strerror(const struct outfile *o, int err);

#endif /* FXS_DAEMON_OUTFILE_H */
