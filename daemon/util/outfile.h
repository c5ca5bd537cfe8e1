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
 *
 * Continuous mode's rotating files go through it too, as long-lived new
 * files: outfile_create() makes one that replaces nothing, outfile_sync()
 * makes what was written so far durable while it grows, and outfile_commit()
 * gives it its name only if nothing has it (a rename without replacing).
 * outfile_adopt() takes over a temporary file a killed writer left, to cut
 * it and commit it the same way. outfile_temp_target() tells a temporary
 * name from any other, so the name is derived here only.
 */
#ifndef FXS_DAEMON_OUTFILE_H
#define FXS_DAEMON_OUTFILE_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
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
	bool noreplace; /* outfile_create() or _adopt(): see outfile_commit() */
};

/*
 * Open path for writing (see above). Returns 0, or -errno with nothing left
 * open or created. path must outlive o (o->name points to it).
 */
int outfile_open(struct outfile *o, const char *path, unsigned flags);

/*
 * A new regular file at path that a writer keeps open long and syncs as it
 * grows: its temporary file is created with mode exactly (no umask), and
 * nothing at path is ever replaced: -EEXIST when something has the name
 * already (a symlink included). o->name is o->final. Returns 0 or -errno,
 * with nothing left open or created.
 */
int outfile_create(struct outfile *o, const char *path, mode_t mode);

/*
 * Take over tmp, a temporary file a writer left (a killed daemon's), to be
 * committed as final (in the same directory) or aborted: it is opened for
 * reading and writing, not following a symlink, and must be a regular file
 * (-OUTFILE_ENOTREG). The caller may read, cut or stamp it through o->fd.
 * Commit and abort then behave as for outfile_create(). 0 or -errno.
 */
int outfile_adopt(struct outfile *o, const char *tmp, const char *final);

/* Make what was written so far durable (fdatasync): 0 or -errno. */
int outfile_sync(struct outfile *o);

/*
 * Finish: fsync() and close (a device or pipe that cannot sync is no
 * failure), then rename over the target and fsync() its directory. Returns 0
 * or -errno; on failure the temporary file is removed and the old file stays.
 * A file of outfile_create() or outfile_adopt() replaces nothing: the rename
 * fails with -EEXIST when something took the name meanwhile, and on any
 * failure its temporary file is kept (closed, named by o->tmp) for a later
 * salvage, since it may hold hours of samples.
 */
int outfile_commit(struct outfile *o);

/*
 * Drop an output not completed: close, remove the temporary file. Idempotent.
 * Returns 0, or -errno when the temporary file could not be removed (a
 * caller that logs deletions says so).
 */
int outfile_abort(struct outfile *o);

/*
 * Close a file of outfile_create() or outfile_adopt() without committing it,
 * its temporary file left as it is, for a later outfile_adopt() (a salvage
 * that could not finish). Idempotent.
 */
void outfile_leave(struct outfile *o);

/*
 * Whether name (a file name, no directory) is one of outfile's temporary
 * names, ".NAME.XXXXXX": 0 and NAME, the name it was to take, in buf; or
 * -EINVAL (not a temporary name) or -ENAMETOOLONG (buf too short). NAME is
 * exact for names up to 200 bytes (a longer one is cut in its temporary
 * name); outfile_create() refuses longer ones.
 */
int outfile_temp_target(const char *name, char *buf, size_t len);

/* The reason for an outfile_open() or outfile_commit() failure, for a message. */
const char *outfile_strerror(const struct outfile *o, int err);

#endif /* FXS_DAEMON_OUTFILE_H */
