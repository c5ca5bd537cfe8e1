/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cfi_tables' state, shared by its two files: cfi_tables.c (the tables and
 * the processes' ranges, as the kernel's walker reads them) and
 * cfi_tables_info.c (what the summary reads of them).
 */
#ifndef FXS_DAEMON_CFI_TABLES_INTERNAL_H
#define FXS_DAEMON_CFI_TABLES_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/rangemap.h"
#include "unwind/cfi_pages.h"
#include "capture/cfi_extents.h"
#include "capture/cfi_tables.h"

#define KEY_MAX 64

/* A module left out is tried again at most this many times, as room comes. */
#define LEFT_OUT_TRIES 3

struct mod {
	uint8_t key[KEY_MAX];
	size_t key_len;
	char *name; /* its path, for the summary (cfi_tables_name) */
	enum cfi_mod_state state;
	int err;		   /* CFI_MOD_FAILED: why (-errno) */
	int fd;			   /* open while QUEUED or LEFT_OUT: the table may still be made */
	bool reopenable;	   /* ops.reopen() can open its file again */
	bool reopen;		   /* fd not kept (CFI_TABLES_MAX_FDS): ops.reopen() at its turn */
	uint32_t first, n;	   /* its slice of words (page index and rows) */
	struct cfi_pages pages;	   /* its geometry, once loaded */
	uint32_t need;		   /* words it needs (once generated) */
	struct fxs_cfi_row *ready; /* rows made, waiting for the room evictions give */
	uint32_t nready;	   /* how many */
	unsigned tries;		   /* times it was left out */
	bool started;		   /* ops.start() took it: ops.collect() gives its rows */
	uint64_t last_used;
	uint64_t loaded_ns; /* ops.now() when its table was last loaded */
	/*
	 * Since the last look (cfi_tables_rebalance()): stacks walked by its
	 * table, and of them those that lost their table further on; stacks lost in it.
	 */
	uint32_t walked, walked_lost, lost;
	unsigned moves; /* times let in or left out for the stacks' demand */
};

/*
 * Stretches freed while a walk may still read them, reused two works later;
 * a slice of ranges also only once every record before its free was read:
 * a child forked before it may walk by it until its fork record is read.
 */
struct held {
	struct extent e;
	uint64_t gen;
	uint64_t at; /* ops.now() when freed (ranges only) */
	bool rows;   /* of the rows array, else of the ranges array */
};

struct cproc {
	pid_t pid;
	struct rangemap ranges; /* of struct fxs_cfi_range (start, end: the node's) */
	bool dirty;		/* to publish at the next cfi_tables_publish_pending() */
	uint32_t first, nr;	/* the published slice (nr 0: none) */
	bool published;
	bool dropped;	     /* the kernel dropped the published slice: publish no more */
	bool inherited;	     /* the kernel made its entry at the fork: replace it only */
	uint64_t dropped_at; /* ops.now() when found dropped */
};

struct cfi_tables {
	struct cfi_tables_ops ops;
	struct mod *mods; /* index: table id */
	size_t nr_mods, cap_mods;
	size_t next_queued;  /* mods before it are not MOD_QUEUED */
	struct cproc *procs; /* sorted by pid */
	size_t nr_procs, cap_procs;
	size_t sweep_at;			 /* where the next sweep() looks */
	struct free_list free_rows, free_ranges; /* free_rows: of words */
	struct cfi_rules rules;			 /* the cfi_rules array's */
	struct held *held;
	size_t nr_held, cap_held;
	uint64_t gen, tick;
	uint64_t handed; /* every record before it was read (cfi_tables_handed) */
	uint64_t serial; /* the last mapping's (struct fxs_cfi_range's serial) */
	struct cfi_tables_stats stats;
	pid_t *dirty; /* processes to publish (cfi_tables_publish_soon) */
	size_t nr_dirty, cap_dirty;
	size_t nr_ranges;	 /* over every process: CFI_TABLES_MAX_RANGES */
	size_t nr_fds;		 /* mods' fds open: CFI_TABLES_MAX_FDS */
	uint64_t ranges_dropped; /* mappings not kept for the caps */
	uint32_t demand_stacks;	 /* stacks counted since the last look (cfi_tables_demand()) */
};

/* Which modules a process of the capture maps now; used[] has nr_mods entries. */
void cfi_tables_mark_in_use(const struct cfi_tables *t, bool *used);
/* Rows freed and waiting out the walks that may still read them. */
uint64_t cfi_tables_rows_coming(const struct cfi_tables *t);
/* A loaded table out of the walker's reach, its rows held until no walk reads them. */
void cfi_tables_unload(struct cfi_tables *t, struct mod *m);
/* The same, for good: no process maps it now (CFI_MOD_EVICTED). */
void cfi_tables_evict(struct cfi_tables *t, struct mod *m);
/*
 * Tables in use let in for the ones stacks need more (cfi_tables_demand.c),
 * once enough stacks were counted: 0 or -ENOMEM.
 */
int cfi_tables_rebalance(struct cfi_tables *t);

#endif /* FXS_DAEMON_CFI_TABLES_INTERNAL_H */
