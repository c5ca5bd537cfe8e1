/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CFI walker's tables as one capture keeps them (include/unwind_maps.h):
 * one table per module, keyed by build id and shared by every process that
 * maps it; per process, its executable mappings and the table of each.
 *
 * Tables are made off the sampling path: a module the capture learns of is
 * queued with an fd on its file (opened where the capture reads the process's
 * maps: through its re-authorized /proc/PID, see capture/modules.c), and
 * cfi_tables_work() makes the queued tables between two drains. Until its
 * module's table is loaded, a frame ends with FXS_UE_NO_TABLE (or, under
 * --unwind=auto, goes on by the frame-pointer chain, marked).
 *
 * Memory: the rows of every table share one array of a fixed size (the cap),
 * 4 bytes a row and a word of page index per 64 KiB of the module's code;
 * their rules, each once, one array of FXS_CFI_RULES_MAX. A module whose new
 * rules do not fit there gets no table (failed, named: -ENOSPC).
 * A table that does not fit evicts the least recently used tables that no
 * process of the capture maps now (a table is used when a process that maps
 * it is published); an evicted table is not made again in this capture, and
 * its frames end with FXS_UE_NO_TABLE. A table in use is never evicted: when
 * the modules in use do not fit together, the one that came last is left out
 * (FXS_UE_NO_TABLE too: by frame pointers under auto, marked) and made once
 * room comes (processes that mapped others exit), at most a few times; or
 * once stacks show they need it more than tables in use that make room for
 * it, which are left out in its place (cfi_tables_demand()), a few times.
 *
 * Pure: writes the rows and ranges arrays it is given (the mmapped maps), and
 * publishes through the ops; no libbpf.
 */
#ifndef FXS_DAEMON_CFI_TABLES_H
#define FXS_DAEMON_CFI_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind.h"
#include "unwind_maps.h"
#include "unwind/cfi_lost.h"
#include "unwind/cfi_status.h"

struct cfi_tables_ops {
	/* the cfi_rows array (page indexes and 4-byte rows, unwind/cfi_pages.h) */
	uint32_t *words;
	uint32_t nr_words;
	uint32_t *rules; /* the cfi_rules array, nr_rules long (<= FXS_CFI_RULES_MAX) */
	uint32_t nr_rules;
	struct fxs_cfi_range *ranges; /* the cfi_ranges array, nr_ranges long */
	uint32_t nr_ranges;
	/* cfi_tables[id] = *t */
	int (*set_table)(void *ctx, uint32_t id, const struct fxs_cfi_table *t);
	/* cfi_procs[pid] = *p, or deletes it when p is NULL */
	int (*set_proc)(void *ctx, uint32_t pid, const struct fxs_cfi_proc *p);
	/*
	 * Whether cfi_procs[pid] is there: the kernel drops it when pid execs or
	 * a new process gets the pid. May be NULL (never dropped).
	 */
	bool (*has_proc)(void *ctx, uint32_t pid);
	/*
	 * cfi_procs[pid] = *p only if the entry is there: -ENOENT when the kernel
	 * dropped it (an exec). A republished process, and a child whose entry the
	 * kernel made at its fork, go through it. May be NULL (has_proc, then
	 * set_proc).
	 */
	int (*replace_proc)(void *ctx, uint32_t pid, const struct fxs_cfi_proc *p);
	/*
	 * The clock of the records (boot time, ns): a freed slice of ranges is
	 * stamped with it, and reused only once cfi_tables_handed() says every
	 * record before the stamp was read. May be NULL (reused two works later).
	 */
	uint64_t (*now)(void *ctx);
	/*
	 * Make a module's rows from an fd on its file: 0 and *ret_rows (malloc'ed)
	 * and *ret_n; -ENOENT when it has no CFI (its code is walked by frame
	 * pointers); another -errno when no table can be had.
	 */
	int (*generate)(void *ctx, int fd, struct fxs_cfi_row **ret_rows, uint32_t *ret_n);
	/*
	 * May be NULL. Begin making table id's rows from fd (borrowed: dup it)
	 * off this thread, as generate() would: true when begun, and then
	 * collect() gives them (-EINPROGRESS until they are made). A big
	 * library's rows take 80 ms or more (libLLVM's 950 k): made one after
	 * the other between drains, a new program's stacks waited for all.
	 */
	bool (*start)(void *ctx, uint32_t id, int fd);
	int (*collect)(void *ctx, uint32_t id, struct fxs_cfi_row **ret_rows, uint32_t *ret_n,
		       uint64_t *ret_ns);
	/*
	 * May be NULL. A new fd on table id's file, or -errno: for a module
	 * (cfi_tables_module_reopenable()) queued while CFI_TABLES_MAX_FDS fds
	 * were held, whose own was not kept.
	 */
	int (*reopen)(void *ctx, uint32_t id);
	void *ctx;
	void *gen_ctx; /* generate's, start's, collect's and reopen's */
};

struct cfi_tables_stats {
	uint64_t tables;       /* modules known */
	uint64_t loaded;       /* tables loaded now */
	uint64_t generated;    /* tables made */
	uint64_t no_cfi;       /* modules without CFI: frame pointers */
	uint64_t failed;       /* modules no table could be made for (or larger than the cap) */
	uint64_t evicted;      /* tables evicted for the cap */
	uint64_t row_bytes;    /* bytes of rows and page indexes loaded now */
	uint64_t rules;	       /* rules in the shared array */
	uint64_t cap_bytes;    /* the cap */
	uint64_t gen_ns;       /* time spent making tables */
	uint64_t proc_dropped; /* processes whose ranges did not fit */
	uint64_t left_out;     /* modules in use without a table: no room (CFI_MOD_LEFT_OUT) */
	uint64_t swapped;      /* let in for the stacks that lost their table in them */
	uint64_t from_cache;   /* read from disk (unwind/cfi_cache.h), not made: cfi_capture's */
};

struct cfi_tables;

/*
 * The fds held on files waiting for their tables (queued, or left out to try
 * again): past it a module's fd is not kept and ops.reopen() opens the file
 * again at its turn, so that a process mapping thousands of files does not
 * use up the daemon's (check_hostile: 1,367 fds open for 2,500 files, before).
 * At most CFI_TABLES_MAX_STARTED tables are with the workers at once, each
 * with the worker's fd (ours is closed when reopenable): 64 fds in all.
 */
#define CFI_TABLES_MAX_FDS     32
#define CFI_TABLES_MAX_STARTED 32

/* NULL with errno set. */
struct cfi_tables *cfi_tables__new(const struct cfi_tables_ops *ops);
/* Closes the queued fds. NULL-safe. */
void cfi_tables__free(struct cfi_tables *t);

/*
 * A module file (fd: open on it, borrowed, -1 when it has none to read, as the
 * vdso): its table id (queued for cfi_tables_work() the first time its key
 * is seen), or -errno. key: its build id, or another identity when it has
 * none (dev:inode:path).
 */
int cfi_tables_module(struct cfi_tables *t, const void *key, size_t key_len, int fd);
/*
 * The same for a file ops.reopen() can open again: past CFI_TABLES_MAX_FDS
 * held, its fd is not kept until its turn.
 */
int cfi_tables_module_reopenable(struct cfi_tables *t, const void *key, size_t key_len, int fd);
/* The name the summary gives table id (its first name sticks). 0 or -ENOMEM. */
int cfi_tables_name(struct cfi_tables *t, int id, const char *name);
/*
 * The modules the summary names: those without a table that frames of theirs
 * might need (no CFI, failed, evicted, left out), in the order they were
 * learned. Fills at most max of out; returns how many there are.
 */
size_t cfi_tables_modules(const struct cfi_tables *t, struct cfi_mod_info *out, size_t max);
/*
 * A new executable mapping of pid, [start, end), whose module vaddr is
 * pc - bias, of the module cfi_tables_module() returned id for.
 */
int cfi_tables_mapping(struct cfi_tables *t, pid_t pid, uint64_t start, uint64_t end, uint64_t bias,
		       int id);
/*
 * Publish pid's mappings to the walker (after its mappings were added). Once
 * the kernel has dropped them (an exec, a new process with the pid), they
 * are not published again until cfi_tables_forget(): mappings added to a
 * dead process's are no one's.
 */
int cfi_tables_publish(struct cfi_tables *t, pid_t pid);
/*
 * Publish pid's mappings at the next cfi_tables_publish_pending(), once
 * however many it made since: a process making mappings by the thousand
 * costs a copy of its ranges per drain, not per mapping (issue 40). Its
 * first ones go at once (the kernel copies them to the children it forks).
 */
int cfi_tables_publish_soon(struct cfi_tables *t, pid_t pid);
int cfi_tables_publish_pending(struct cfi_tables *t);
/*
 * The ranges kept: per process what its entry holds (1 << FXS_CFI_RANGES_LOG),
 * and over all CFI_TABLES_MAX_RANGES; mappings past them are dropped (what
 * they cover is cut all the same), counted here.
 */
#define CFI_TABLES_MAX_RANGES (1U << 20)
uint64_t cfi_tables_ranges_dropped(const struct cfi_tables *t);
/* pid execed or exited: its mappings go. */
void cfi_tables_forget(struct cfi_tables *t, pid_t pid);
/*
 * cpid was forked by ppid (bpf/walk_cfi.bpf.h's cfi_fork() gave it ppid's
 * slice, or an empty entry): with inherit, it gets its own copy of ppid's
 * mappings, published into the kernel's entry unless the kernel dropped it
 * since (cpid execed); without (ppid is not the session's), it has none.
 * What was known of an earlier process on cpid goes.
 */
int cfi_tables_fork(struct cfi_tables *t, pid_t ppid, pid_t cpid, bool inherit);
/*
 * Every record up to ns (the ops' now() clock) has been read: a slice freed
 * before it can no longer be in use by a child whose fork record was unread.
 */
void cfi_tables_handed(struct cfi_tables *t, uint64_t ns);
/*
 * Make queued tables for about budget_ns (at least one), and reuse what was
 * freed before the last call. Also sweeps some processes: one whose entry
 * the kernel dropped (it exited, or execed) gives its slice back, and is
 * forgotten once every record from before is read. Returns how many tables
 * were made, or -errno.
 */
int cfi_tables_work(struct cfi_tables *t, uint64_t budget_ns);
/* Whether tables are queued. */
bool cfi_tables_pending(const struct cfi_tables *t);
void cfi_tables_stats(const struct cfi_tables *t, struct cfi_tables_stats *ret);
/*
 * What pid's module at look had at ts (the records' clock) as far as is
 * known now: a table loaded since before ts, or none (queued, loaded later,
 * failed, evicted, left out; *ret_id its id, UINT32_MAX for a mapping no
 * table is made for), or no module (unwind/cfi_lost.h).
 */
enum cfi_lost_had cfi_tables_had(const struct cfi_tables *t, pid_t pid, uint64_t look, uint64_t ts,
				 uint32_t *ret_id);
/*
 * When the tables in use do not all fit, which of them the stacks need
 * (cfi_tables_demand.c): whether a module in use is left out now, so that
 * stacks are worth counting; and one on-CPU stack's count, the tables it was
 * walked by (each once) and the one it lost its table in (UINT32_MAX: none).
 * cfi_tables_work() lets a module left out in for tables fewer stacks walked.
 */
bool cfi_tables_short(const struct cfi_tables *t);
void cfi_tables_demand(struct cfi_tables *t, const uint32_t *walked, size_t nr, uint32_t lost);
/* Table id's name (cfi_tables_name()), or NULL. */
const char *cfi_tables_mod_name(const struct cfi_tables *t, uint32_t id);

#endif /* FXS_DAEMON_CFI_TABLES_H */
