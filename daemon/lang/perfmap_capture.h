/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A capture's side of perf maps (lang/perfmap.h): the pcs sampled outside
 * every ELF file, per process and bounded, and at the process's end (an
 * exit seen, a pid reused, an exec) or the capture's, its map read and the
 * entries those pcs fall in written into the .fxt.
 *
 * The map is found, checked and read as lang/perfmap_open.h says, through
 * its process's root's tmp, held from the first such pc on so that it can
 * be read after the process is gone. A map that fails is skipped, counted
 * by its reason and told once.
 */
#ifndef FXS_DAEMON_LANG_PERFMAP_CAPTURE_H
#define FXS_DAEMON_LANG_PERFMAP_CAPTURE_H

#include <stdint.h>
#include <sys/types.h>

#include "fxt/fxt_stream.h"
#include "lang/perfmap_open.h"

/* The bounds: a flood of processes or pcs keeps the first ones, and counts the rest. */
#define PERFMAP_MAX_PROCS    4096
#define PERFMAP_MAX_PROC_PCS 16384
#define PERFMAP_MAX_PCS	     262144
#define PERFMAP_MAX_TMPS     64 /* distinct tmp directories held open */

struct perfmap_stats {
	uint64_t maps_read;	/* maps used */
	uint64_t maps_absent;	/* processes with such pcs and no map */
	uint64_t entries;	/* entries written */
	uint64_t pcs;		/* distinct pcs looked up */
	uint64_t pcs_dropped;	/* pcs over the bounds, not kept */
	uint64_t procs_dropped; /* processes over PERFMAP_MAX_PROCS (or their /proc gone) */
	uint64_t reaped;	/* maps read at an exit perfmap_capture_reap() found */
	uint64_t skipped[PERFMAP_SKIP_NR];
};

struct perfmap_capture;

/* tell: where a skipped map is told (one line each), may be NULL. NULL: -ENOMEM. */
struct perfmap_capture *
perfmap_capture__new(void (*tell)(void *ctx, uint32_t pid, const char *text), void *ctx);
void perfmap_capture__free(struct perfmap_capture *pc);

/* Whether pid is followed already (its pcs go to perfmap_capture_note() at once). */
bool perfmap_capture_follows(const struct perfmap_capture *pc, pid_t pid);
/*
 * Follow pid, alive now under pid_dir ("/proc/PID" or a pidfd-held directory):
 * its uids, its pid in its own namespace, its start and its tmp directory.
 * 0, or -ENOMEM; a process that cannot be followed is counted, not an error.
 */
int perfmap_capture_follow(struct perfmap_capture *pc, pid_t pid, const char *pid_dir);
/* A pc of a followed pid (a return address less one) in no ELF file. 0 or -ENOMEM. */
int perfmap_capture_note(struct perfmap_capture *pc, pid_t pid, uint64_t addr);
/* pid's process ended or is replaced: its map read and written now, pid forgotten. */
int perfmap_capture_flush(struct perfmap_capture *pc, struct fxt_stream *s, pid_t pid);
/*
 * Host-wide, where no pidfd tells of an exit: the followed processes with
 * pcs that have ended since (gone, a zombie, their pid another's) read and
 * written now, as perfmap_capture_flush() does, so that a map is read at its
 * process's exit (within the calls' interval), not at the capture's end,
 * when a script or a container may have removed it. Looks at max processes
 * at most, round robin. 0 or -ENOMEM.
 */
int perfmap_capture_reap(struct perfmap_capture *pc, struct fxt_stream *s, size_t max);
/*
 * How often a host-wide capture calls it, and its max: a map is read within
 * half a second of its process's exit (a few JIT processes), 4096 processes
 * are looked at in 8 s (512 reads of /proc a second at most).
 */
#define PERFMAP_REAP_NS	   250000000ULL
#define PERFMAP_REAP_PROCS 128
/* At the capture's end: every followed process's. */
int perfmap_capture_finish(struct perfmap_capture *pc, struct fxt_stream *s);
void perfmap_capture_stats(const struct perfmap_capture *pc, struct perfmap_stats *ret);
/* The counters as a counter event "perfmap" (category "fxsampler"), when any map was looked for. */
int perfmap_capture_write_counters(const struct perfmap_capture *pc, struct fxt_stream *s,
				   uint64_t ts);

#endif /* FXS_DAEMON_LANG_PERFMAP_CAPTURE_H */
