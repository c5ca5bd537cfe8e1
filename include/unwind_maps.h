/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CFI walker's maps (bpf/walk_cfi.bpf.h), as user space fills them
 * (daemon/capture/cfi_tables.c). The rows themselves are include/unwind.h's.
 *
 *   cfi_rows    one array of 32-bit words; every module's table is a slice
 *               of it (its page index, then its 4-byte rows: include/unwind.h's
 *               compact rows), written once and shared by every process
 *               that maps the module (keyed by build id in user space)
 *   cfi_rules   the rules the rows index, every module's, each once:
 *               append-only, a rule once written never changes
 *   cfi_tables  table id -> its slice (struct fxs_cfi_table); nr_rows 0: not
 *               loaded (being generated, or evicted), or, with first
 *               FXS_CFI_TABLE_FP, a module without CFI: frame pointers
 *   cfi_ranges  one array of struct fxs_cfi_range; every process's executable
 *               mappings are a slice of it, sorted by start
 *   cfi_procs   pid -> its slice of cfi_ranges (struct fxs_cfi_proc)
 *   cfi_stale   pid -> its ranges the kernel has since put other mappings
 *               over (struct fxs_cfi_stale): written by BPF alone
 *   cfi_files   a module's file (the kernel's dev and inode) -> its table
 *               and how a pc maps to the table's addresses (struct
 *               fxs_cfi_file): for a pc no range of its process holds yet
 *               (bpf/vma.bpf.h finds the file through the kernel's vma)
 *
 * User space writes rows and ranges first (both arrays are mmapped), then
 * publishes them with one map update (the table's slice, the process's
 * slice), and reuses a freed slice only a drain later: a walk in flight never
 * reads a slice that is being rewritten.
 */
#ifndef FXS_INCLUDE_UNWIND_MAPS_H
#define FXS_INCLUDE_UNWIND_MAPS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* record --unwind (the program's cfg_unwind, set before load). */
enum fxs_unwind_mode {
	FXS_UNWIND_FP = 0,   /* the frame-pointer walkers only, as before CFI */
	FXS_UNWIND_AUTO = 1, /* CFI where a table is loaded; else the fp chain, marked */
	FXS_UNWIND_CFI = 2,  /* CFI; a frame without a table ends the stack */
};

/* What a range's code is unwound with. */
enum fxs_cfi_range_kind {
	FXS_CFI_RANGE_TABLE = 0, /* as cfi_tables[table] says */
	FXS_CFI_RANGE_FP = 1,	 /* a module without CFI: its frame-pointer chain */
	FXS_CFI_RANGE_NONE = 2,	 /* a module no table can be made for (the vdso, too many) */
};

/*
 * The values of cfi_rows and cfi_rules: FXS_CFI_WORDS words each, word i of
 * the array in value i / FXS_CFI_WORDS. The kernel lays an array map's values
 * out 8-byte aligned, so a value of one word would take 8 bytes (and the
 * mmapped array would not be the words side by side).
 */
#define FXS_CFI_WORDS_LOG 4
#define FXS_CFI_WORDS	  (1u << FXS_CFI_WORDS_LOG)
struct fxs_cfi_words {
	__u32 w[FXS_CFI_WORDS];
};

struct fxs_cfi_table {
	__u32 first;	  /* its slice; FXS_CFI_TABLE_FP with nr_rows 0: the module has no CFI */
	__u32 nr_rows;	  /* 0: not loaded */
	__u32 first_page; /* vaddr >> FXS_CFI_PAGE_SHIFT of its first row */
	__u32 nr_pages;	  /* its page index: nr_pages + 1 words, then the rows */
};
#define FXS_CFI_TABLE_FP 0xffffffffu

/* One executable mapping of a process. */
struct fxs_cfi_range {
	__u64 start, end; /* [start, end) in the process */
	__u64 bias;	  /* the module's vaddr of a pc is pc - bias */
	__u32 table;	  /* index in cfi_tables */
	__u32 kind;	  /* enum fxs_cfi_range_kind */
	/*
	 * Which mapping of the process it is, unique in a capture (user space
	 * counts them as it learns them): with start, what cfi_stale names.
	 */
	__u64 serial;
};

struct fxs_cfi_proc {
	__u32 first_range;
	__u32 nr_ranges;
};

/*
 * A process's ranges that a new mapping has since been placed over (an
 * address freed by a dlclose and given to the next dlopen), named by start
 * and serial: the walker treats them as no module until user space, reading
 * the new mapping's record, publishes a slice without them. The last
 * FXS_CFI_STALE are kept (n counts every one: slot n % FXS_CFI_STALE).
 */
#define FXS_CFI_STALE 16
struct fxs_cfi_stale_range {
	__u64 start, serial;
};
struct fxs_cfi_stale {
	__u32 n;
	__u32 pad;
	struct fxs_cfi_stale_range r[FXS_CFI_STALE];
};

/*
 * A module's file as the kernel names it: i_sb->s_dev (MAJOR << 20 | MINOR,
 * what /proc/PID/maps prints as major:minor) and i_ino.
 */
struct fxs_cfi_file_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

/*
 * What the walker needs of the file to use its table. The module vaddr of a
 * pc in a mapping of it is pc - vm_start + (vm_pgoff << PAGE_SHIFT) + delta,
 * delta being its executable segment's p_vaddr - p_offset. mtime and size
 * are the file's when the table was made: an inode rewritten in place, or
 * freed and given to another file, is not taken for it.
 */
struct fxs_cfi_file {
	__s64 mtime_sec;
	__u64 size;
	__u64 delta;
	__u64 text_vaddr; /* the lowest executable segment's p_vaddr: at mm->start_code */
	__u32 mtime_nsec;
	__u32 table; /* index in cfi_tables */
};

/*
 * Largest slices the walker's binary searches reach (2^k entries): the rows
 * of one page (their offsets in it are unique).
 */
#define FXS_CFI_ROWS_LOG 16
/* The words of all tables together, at most (1 GiB: --cfi-memory's bound). */
#define FXS_CFI_ROWS_TOTAL (1U << 28)
#define FXS_CFI_RANGES_LOG 12
#define FXS_CFI_MAX_TABLES 8192
#define FXS_CFI_MAX_PROCS  16384
#define FXS_CFI_MAX_FILES  FXS_CFI_MAX_TABLES

#endif /* FXS_INCLUDE_UNWIND_MAPS_H */
