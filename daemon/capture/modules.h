/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What each sampled process has mapped, written as FXT profiler module and
 * mmap records at first sight, so its samples can be symbolized after it is
 * gone. Files are read once per capture (build id, load segments) and shared
 * by every process that maps them.
 */
#ifndef FXS_DAEMON_MODULES_H
#define FXS_DAEMON_MODULES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fxt/fxt_stream.h"

struct modules;

/*
 * Who else learns of each process's executable mappings (the CFI tables):
 * file for each file the first time it is read (fd: open on it, borrowed; for
 * the vdso a memfd with its image; -1 when it could not be read), returning
 * an id; mapping for each new
 * mapping of pid, of the file whose id file returned, whose module vaddr is
 * pc - bias; scanned after a scan of pid added mappings. Errors end the scan.
 */
struct modules_listener {
	int (*file)(void *ctx, const uint8_t *build_id, size_t build_id_len, const char *key,
		    int fd);
	int (*mapping)(void *ctx, pid_t pid, uint64_t start, uint64_t end, uint64_t bias, int id);
	int (*scanned)(void *ctx, pid_t pid);
	void *ctx;
};

/* NULL with errno set. proc_root is "/proc" but for tests. */
struct modules *modules__new(const char *proc_root);
void modules__free(struct modules *m);
/*
 * Tell l of every file and mapping from now on (copied), after the listeners
 * added before it (the CFI tables, the Python walk): 0, or -ENOSPC past
 * MODULES_MAX_LISTENERS. scanned may be NULL.
 */
#define MODULES_MAX_LISTENERS 2
int modules_add_listener(struct modules *m, const struct modules_listener *l);

/*
 * Write module and mmap records for the executable mappings of pid that were
 * not written yet (all of them the first time; the new ones after a dlopen or
 * an exec). Reads pid's files under pid_dir (a /proc/PID directory held by an
 * fd, "/proc/self/fd/N", that cannot turn into another process), or under
 * <proc_root>/<pid> when NULL. Returns the number of mappings found (written,
 * or kept: see modules_keep_until_sampled()), or -errno; -ESRCH when the
 * process is gone.
 */
int modules_scan_dir(struct modules *m, struct fxt_stream *s, uint64_t ts, pid_t pid,
		     const char *pid_dir);
#define MODULES_RESCAN_NS     50000000ULL
#define MODULES_RESCAN_MAX_NS 10000000000ULL

/*
 * A pc of pid fell outside its known mappings (a dlopen, libraries mapped
 * after an exec, or code in no file): scan again, unless pid was scanned less
 * than MODULES_RESCAN_NS ago (by the monotonic clock), a wait that doubles
 * with each rescan that finds nothing new, up to MODULES_RESCAN_MAX_NS.
 * pid_dir as for modules_scan_dir().
 */
int modules_refresh_dir(struct modules *m, struct fxt_stream *s, uint64_t ts, pid_t pid,
			const char *pid_dir);
/* Whether modules_refresh_dir() would scan now (so that /proc is not entered in vain). */
bool modules_refresh_due(const struct modules *m, pid_t pid);
/* Whether pc lies in an executable mapping already written for pid. */
bool modules_covers(const struct modules *m, pid_t pid, uint64_t pc);
/*
 * Whether pc lies in a mapping of an ELF file read for pid: not JIT code,
 * anonymous memory, a file that is no ELF, or a garbage address.
 */
bool modules_in_file(const struct modules *m, pid_t pid, uint64_t pc);
/* Forget pid's mappings (it execed: the next scan writes them anew). */
void modules_forget(struct modules *m, pid_t pid);
/*
 * Which process is on pid as modules knows it (0: none): a new entry or a
 * fork record changes it. modules_exited() drops pid's entry, the mappings
 * and the set of modules written, if it still holds that process: once
 * every record from before its exit was handed on (capture_procs.c), so
 * that a capture of many short processes keeps those alive, not all that
 * ever ran (in check_faults' storm of 2,000 processes, 1.1 of record's 2.2 MB
 * of growth).
 */
uint32_t modules_generation(const struct modules *m, pid_t pid);
void modules_exited(struct modules *m, pid_t pid, uint32_t generation);
/*
 * The kernel ended pid's mapping events (an exec that left it not dumpable
 * ends a task's perf events): from now on only /proc tells its mappings, for
 * it and for the children it forks. 0 or -ENOMEM.
 */
int modules_events_ended(struct modules *m, pid_t pid);
/* Whether modules_events_ended() was told of pid (or of the parent it was forked from). */
bool modules_without_events(const struct modules *m, pid_t pid);

/*
 * From now on a process's mappings (from events, forks and /proc alike) are
 * kept until modules_emit() runs for it, then written as they come; before,
 * every mapping is written at once (the capture without mapping events).
 */
void modules_keep_until_sampled(struct modules *m);
/*
 * pid was named anew in the file (an exec, a rename): its module records are
 * written again before its next mmap records, so that a reader counting from
 * that name finds them.
 */
void modules_renamed(struct modules *m, pid_t pid);
/* Whether pid has mappings here, or had its /proc read. */
bool modules_known(const struct modules *m, pid_t pid);

/*
 * An executable mapping as the kernel reported it when it was made
 * (struct fxs_mmap; no libbpf here). build_id (build_id_len bytes, 0 when
 * the kernel gave none) is the mapped file's, whatever is at path later.
 */
struct modules_event {
	uint64_t start, len, pgoff, ino;
	uint32_t maj, min;
	uint32_t prot;	/* PROT_* */
	uint32_t flags; /* MAP_* */
	const uint8_t *build_id;
	size_t build_id_len;
	const char *path; /* d_path's, " (deleted)" and all; "[vdso]" for the vdso */
	/*
	 * The process's /proc directory, or NULL: a new file is opened through
	 * its map_files first, which reaches the very file mapped where the
	 * path names another or none in our root (a chroot, a container).
	 */
	const char *dir;
};

/* Where a mapping came from, for the counters. */
enum modules_source {
	MODULES_FROM_EVENT, /* the kernel's mapping event */
	MODULES_FROM_PROC,  /* a read of /proc/PID/maps */
	MODULES_FROM_FORK,  /* the parent's, at the fork */
	MODULES_NR_SOURCES,
};

/*
 * The mapping ev of pid: it replaces the known ones it overlaps, and is
 * written (module record the first time, mmap record) if pid's mappings go
 * out as they come (modules_emit() ran for it); otherwise it is kept for
 * then. The file is opened by its path only if it is still the mapped inode,
 * or, with the kernel's build id, a world-readable file of that build id
 * (its load segments); the vdso is ours. 1 written, 0 kept, or -errno. No
 * /proc read but ev->dir's map_files link, when given.
 */
int modules_add_event(struct modules *m, struct fxt_stream *s, uint64_t ts, pid_t pid,
		      const struct modules_event *ev);
/*
 * cpid was forked by ppid: it has ppid's mappings, which the kernel does not
 * report again. Forgets what was known of an earlier process on cpid and
 * keeps ppid's mappings for cpid, unwritten. Returns how many, or -errno.
 */
int modules_fork(struct modules *m, pid_t ppid, pid_t cpid);
/*
 * The most mappings kept for one process, and for all: a process mapping
 * more (a JIT, a hostile program) has the rest dropped, counted by
 * modules_dropped(); each costs O(log n) (issue 40).
 */
#define MODULES_MAX_PROC_RANGES 65536
#define MODULES_MAX_RANGES	(1U << 20)
uint64_t modules_dropped(const struct modules *m);
/*
 * pid's exec replaced its memory (the kernel's exec comm record, before the
 * new image is mapped): at its exec record (modules_exec()) every mapping
 * it had before goes, whatever its source; until then they stay (a sample
 * inside execve() is still in the old image). Without it, an exec loop
 * piled up each image's mappings on the pid's.
 */
void modules_exec_begin(struct modules *m, pid_t pid);
/*
 * pid's exec has run (its new image's mappings came before): forget the
 * mappings it had from its parent or from /proc, which belonged to the old
 * image; after modules_exec_begin(), every mapping from before it.
 */
void modules_exec(struct modules *m, pid_t pid);
/*
 * Tell the listener pid's mappings again, as modules keeps them, and that the
 * set is complete: after it forgot the process (an exec, whose old image the
 * kernel's walker dropped). 0 or the listener's error.
 */
int modules_replay(struct modules *m, pid_t pid);
/*
 * pid is sampled: write the mappings kept for it, and from now on write its
 * new ones as they come. ret_written[source] counts the mmap records written.
 * 0 or -errno; nothing the second time.
 */
int modules_emit(struct modules *m, struct fxt_stream *s, uint64_t ts, pid_t pid,
		 unsigned ret_written[MODULES_NR_SOURCES]);

#endif /* FXS_DAEMON_MODULES_H */
