/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Finding, checking and reading a process's perf map (lang/perfmap.h), the
 * one way every reader does it: a capture at a process's end
 * (lang/perfmap_capture.h) and fxsamplerd's HTTP scrapes (lang/perfmap_live.h).
 *
 * The map is a file its process's user controls, read by root: it is found
 * in the process's own mount namespace (/proc/PID/root/tmp/perf-NSPID.map),
 * opened without following a symlink or blocking, and used only if it is a
 * regular file of one link, owned by one of the process's uids, written
 * since the process started, at most PERFMAP_MAX_FILE bytes, with lines of
 * at most PERFMAP_MAX_LINE.
 */
#ifndef FXS_DAEMON_LANG_PERFMAP_OPEN_H
#define FXS_DAEMON_LANG_PERFMAP_OPEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define PERFMAP_MAX_FILE (256ULL << 20)

/* Why a map was not used (the counters, and the line that tells it). */
enum perfmap_skip {
	PERFMAP_SKIP_SYMLINK,
	PERFMAP_SKIP_NOT_REGULAR,
	PERFMAP_SKIP_OWNER,
	PERFMAP_SKIP_LINKS,
	PERFMAP_SKIP_STALE,
	PERFMAP_SKIP_TOO_LARGE,
	PERFMAP_SKIP_LONG_LINE,
	PERFMAP_SKIP_NO_TMP, /* the process's root had no plain tmp directory */
	PERFMAP_SKIP_ERROR,  /* another error opening or reading it */
	/* the "perfmap" counter event holds the reasons above; these go in "perfmap_skipped" */
	PERFMAP_SKIP_GONE, /* the process had exited before its root could be opened */
	PERFMAP_SKIP_TMPS, /* PERFMAP_MAX_TMPS tmp directories held already */
	PERFMAP_SKIP_NR,
	PERFMAP_SKIP_FIRST_LATER = PERFMAP_SKIP_GONE,
};

/* The counter's name of a reason ("skipped_symlink", ...), and its text ("a symbolic link"). */
const char *perfmap_skip_name(unsigned why);
const char *perfmap_skip_text(unsigned why);

/* What a map's checks need of its process. */
struct perfmap_proc {
	pid_t nspid;		/* its pid in its own namespace: the map's name */
	uint32_t uids[4];	/* real, effective, saved, fs */
	uint64_t start_boot_ns; /* CLOCK_BOOTTIME, tick precision */
	uint64_t start_real_ns; /* the same, CLOCK_REALTIME */
};

/* The process alive under pid_dir ("/proc/PID" or a pidfd-held directory). 0 or -errno. */
int perfmap_proc_read(const char *pid_dir, struct perfmap_proc *ret);
/*
 * Its tmp, as it sees it: an O_PATH fd of a directory of its root, not a
 * symlink; or -ESRCH when its root cannot be opened (it has exited: a
 * zombie has no root), or another -errno of its tmp (-ENOENT, -ENOTDIR).
 */
int perfmap_open_tmp(const char *pid_dir);
/* The reason (PERFMAP_SKIP_*) for perfmap_open_tmp()'s error. */
unsigned perfmap_tmp_skip(int err);
/* perf-NSPID.map in tmp_fd, an O_PATH fd never through a symlink; -ENOENT: no map. */
int perfmap_open_map(int tmp_fd, pid_t nspid);
/*
 * The checks of the map at fd (an O_PATH fd), without reading it: 0, or a
 * reason PERFMAP_SKIP_* + 1. *ret: its fstat (for a cache's identity).
 */
int perfmap_check_fd(int fd, const uint32_t uids[4], uint64_t start_real_ns, struct stat *ret);

/*
 * Read the map at fd (an O_PATH fd of it) for a process of uids that started
 * at start_real_ns (CLOCK_REALTIME), picking the entries of pcs (sorted):
 * perfmap_check_fd(), then the very inode checked read: 0 (*ret_pick
 * filled: perfmap_pick_free() it), a reason PERFMAP_SKIP_* + 1, or -ENOMEM.
 */
struct perfmap_pick;
int perfmap_read_fd(int fd, const uint32_t uids[4], uint64_t start_real_ns, const uint64_t *pcs,
		    size_t nr_pcs, struct perfmap_pick *ret_pick);

#endif /* FXS_DAEMON_LANG_PERFMAP_OPEN_H */
