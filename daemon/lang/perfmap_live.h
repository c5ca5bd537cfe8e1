/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Perf maps of live processes, for fxsamplerd's HTTP scrapes: the JIT code
 * of a scrape's window is named from its process's map at the scrape's end
 * (the capture writes entries into its files only at a process's end or a
 * rotation). The map is found, checked and read as lang/perfmap_open.h says
 * (the capture's very code); a process is the one sampled only if it started
 * before its first sample of the window (a pid reused since is not read).
 *
 * Across scrapes, per process (pid and start), what its map gave is kept
 * under the map's identity (device, inode, size, mtime): the same map again
 * answers the pcs it answered without a read, and is read only for pcs it
 * was not asked yet; a map that changed is read again (a JIT reuses its code
 * space: the last line over a pc wins). A refused map is counted and told
 * once, and not read again while it stays the same file. Bounded: at most
 * PERFMAP_LIVE_MAX_PROCS processes and PERFMAP_LIVE_MAX_PCS pcs (each with
 * at most one entry, names at most PERFMAP_MAX_NAME bytes), the processes
 * asked least recently go first.
 */
#ifndef FXS_DAEMON_LANG_PERFMAP_LIVE_H
#define FXS_DAEMON_LANG_PERFMAP_LIVE_H

#include <stdint.h>
#include <sys/types.h>

#include "lang/perfmap.h"
#include "lang/perfmap_open.h"

#define PERFMAP_LIVE_MAX_PROCS	  1024
#define PERFMAP_LIVE_MAX_PCS	  32768
#define PERFMAP_LIVE_MAX_PROC_PCS 16384

struct perfmap_live_stats {
	uint64_t maps_read;		   /* reads of a map (a new or changed map, or new pcs) */
	uint64_t maps_cached;		   /* answers without a read: the same map, the same pcs */
	uint64_t maps_absent;		   /* processes with such pcs and no map (once each) */
	uint64_t procs_gone;		   /* asked for a process gone, or its pid reused */
	uint64_t entries;		   /* entries given */
	uint64_t pcs;			   /* pcs asked */
	uint64_t pcs_dropped;		   /* pcs answered but not kept: over the bounds */
	uint64_t skipped[PERFMAP_SKIP_NR]; /* refusals, each (process, map) once */
	size_t procs_kept, pcs_kept;
};

struct perfmap_live;

/*
 * proc: where processes are ("/proc"); tell: where a refused map is told
 * (one line each), may be NULL. NULL: ENOMEM.
 */
struct perfmap_live *perfmap_live__new(const char *proc,
				       void (*tell)(void *ctx, uint32_t pid, const char *text),
				       void *ctx);
void perfmap_live__free(struct perfmap_live *pl);

/*
 * The entries of pid's map that pcs (sorted, distinct; return addresses less
 * one) fall in, each given to fn; first_boot_ns: the CLOCK_BOOTTIME of pid's
 * first sample asked for. 0, fn's nonzero, or -ENOMEM; a map not there or
 * refused, or a process gone, is no error.
 */
int perfmap_live_lookup(struct perfmap_live *pl, pid_t pid, uint64_t first_boot_ns,
			const uint64_t *pcs, size_t nr_pcs, perfmap_blob_fn fn, void *fn_ctx);
void perfmap_live_stats(const struct perfmap_live *pl, struct perfmap_live_stats *ret);

#endif /* FXS_DAEMON_LANG_PERFMAP_LIVE_H */
