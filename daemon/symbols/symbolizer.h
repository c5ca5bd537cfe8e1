/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-profile symbolization: the module and mmap records of each process go
 * in, (pid, pc) -> {function, module, offsets} comes out. ELF files are
 * opened lazily, once per (path, build id), and a file whose build id differs
 * from the recorded one is not used (the binary changed since the capture).
 * Pure: no libbpf, no logging.
 */
#ifndef FXS_DAEMON_SYMBOLIZER_H
#define FXS_DAEMON_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/debuginfod_fetch.h"
#include "symbols/dwarf_lines.h"
#include "fxt/fxt.h"

struct fxt_record;

#define SYMBOLIZER_UNKNOWN "[unknown]"

struct symbolizer_opts {
	/* Root of separate debug files (see struct elf_symbols_opts); NULL: the default. */
	const char *debug_dir;
	/*
	 * Do not symbolize "[vdso]" modules with this process's own vDSO (used
	 * when its build id matches the recorded one, i.e. the same kernel).
	 */
	bool no_self_vdso;
	/*
	 * Fetch missing debug files from debuginfod when DEBUGINFOD_URLS is set,
	 * within debuginfod_limits (see debuginfod_fetcher__new()).
	 */
	bool debuginfod;
	struct debuginfod_limits debuginfod_limits;
};

/* One mmap record, as the symbolizer keeps it. Owned by the symbolizer. */
struct symbolizer_mapping {
	unsigned id; /* 1-based, unique within the symbolizer */
	uint64_t pid;
	uint64_t ts; /* when it began: its mmap record's timestamp (file ticks) */
	uint64_t start;
	uint64_t size;
	uint64_t vaddr;	      /* ELF p_vaddr of start */
	uint64_t file_offset; /* p_offset of that segment when the ELF was found, else 0 */
	unsigned flags;	      /* ELF p_flags */
	uint16_t module_id;
	const char *path; /* module path, NULL when no module record was seen */
	const uint8_t *build_id;
	size_t build_id_len;
	/* The ELF's Go build id when it has no GNU one, once found; else NULL. */
	const char *go_build_id;
};

/* What one frame resolves to. Every pointer is owned by the symbolizer. */
struct sym_frame {
	/*
	 * Never NULL: the function name; "<module basename>+0x<module offset>"
	 * when the module has no symbol there; SYMBOLIZER_UNKNOWN when no
	 * mapping covers the pc.
	 */
	const char *function;
	const char *module;			  /* module path, or NULL */
	const struct symbolizer_mapping *mapping; /* or NULL */
	uint64_t module_offset;			  /* the pc's ELF vaddr in the module */
	uint64_t function_offset;		  /* pc - function start, when resolved */
	bool resolved;				  /* function is a symbol */
	/*
	 * From DWARF, NULL and 0 without debug info: where the pc executes in
	 * function (for a pc in inlined code, the site of the outermost inlined
	 * call), and where function is declared.
	 */
	const char *file;
	unsigned line;
	const char *decl_file;
	unsigned decl_line;
	/*
	 * The functions inlined at the pc, innermost first: inlined[0] holds
	 * the pc itself, inlined[i] was inlined into inlined[i + 1], the last
	 * one into function. Their function is never NULL.
	 */
	const struct dwarf_frame *inlined;
	unsigned nr_inlined;
};

struct symbolizer;

/* NULL with errno set (ENOMEM). opts may be NULL; it is copied. */
struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts);
/* NULL-safe. Invalidates every pointer the symbolizer handed out. */
void symbolizer__free(struct symbolizer *s);

/*
 * Processes known (by their module or mmap records), and forgetting them all:
 * a symbolizer that outlives many captures (fxsamplerd's HTTP scrapes) keeps
 * its ELF files, DWARF and names, and drops the processes' tables. Every
 * symbolizer_mapping handed out is invalid after it.
 */
size_t symbolizer_processes(const struct symbolizer *s);
void symbolizer_forget_processes(struct symbolizer *s);

/*
 * Feed a record: profiler module and mmap records are kept, any other record
 * is ignored. Returns 0, -ENOMEM. A module record whose id the process
 * already has replaces it (the process was re-recorded).
 *
 * A mapping begins at its record's timestamp ts. An mmap record equal to a
 * mapping the process has (start, size, vaddr, module, flags) is that
 * mapping recorded again (continuous mode re-records a process), unless
 * another mapping over its range began after it and at or before ts (the
 * library was unmapped, another mapped there, and it was mapped again).
 */
int symbolizer_add_record(struct symbolizer *s, const struct fxt_record *rec);
int symbolizer_add_module(struct symbolizer *s, uint64_t pid, uint16_t module_id, const char *path,
			  const uint8_t *build_id, size_t build_id_len);
int symbolizer_add_mmap(struct symbolizer *s, uint64_t pid, uint16_t module_id, unsigned flags,
			uint64_t start, uint64_t size, uint64_t vaddr, uint64_t ts);

/*
 * The mapping a pc of process pid was in at time ts (a sample's timestamp,
 * in the records' ticks): of the mappings covering the pc, the newest that
 * began at or before ts (the later record of two that began at once); when
 * none did (a sample older than every mapping of its pc: its records were
 * written after it), the oldest. is_return as for symbolizer_resolve().
 * Returns its id, or 0 when no mapping covers the pc. Binary searches only.
 */
unsigned symbolizer_mapping_id(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return,
			       uint64_t ts);

/*
 * Which span of pid's life ts falls in, for keys: what a pc of pid resolves
 * to changes only where a mapping begins over the range of another file's
 * (or of the same file at another load bias), so two times of the same
 * epoch resolve every pc alike, given the records fed so far. 0 before the
 * first such change (and always, for a process that never mapped a file
 * over another), else 1 + the time of the latest one at or before ts.
 */
uint64_t symbolizer_epoch(const struct symbolizer *s, uint64_t pid, uint64_t ts);

/*
 * Resolve one pc of process pid at time ts into *ret, in the mapping
 * symbolizer_mapping_id() chooses. is_return: the pc is a return address, so
 * the byte before it is looked up. Returns 0 (even when nothing is known
 * about the pc: frames are never dropped), or -ENOMEM.
 */
int symbolizer_resolve(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		       struct sym_frame *ret);

/*
 * Batch the DWARF of many pcs (symbols/dwarf_source.h): want each pc first
 * (nothing is read but its mapping; a module file with no DWARF to find is
 * told at its first want), then load them: one file's DWARF open at a time,
 * closed once its pcs are looked up. symbolizer_resolve() of a wanted pc then
 * answers as it would have, from what was kept (its strings interned in the
 * symbolizer), so the DWARF of every file is never held at once. 0 or -ENOMEM.
 */
int symbolizer_want_source(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return,
			   uint64_t ts);
int symbolizer_load_sources(struct symbolizer *s);

/* The largest id of a symbolizer_mapping so far (ids count from 1). */
unsigned symbolizer_max_mapping_id(const struct symbolizer *s);

/*
 * The mapping symbolizer_resolve() would name for the pc, with every field
 * set (its path, build id and file offset), in *ret; NULL when no mapping
 * covers the pc. 0 or -ENOMEM.
 */
int symbolizer_mapping_at(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return,
			  uint64_t ts, const struct symbolizer_mapping **ret);

/*
 * What symbolizer_resolve() of the pc depends on when the pc is code of a
 * module file: the file (*file: an id shared by every process that maps the
 * same path and build id, valid while the symbolizer lives) and the pc's ELF
 * vaddr there (*vaddr: the pc's own, is_return not applied). Every
 * field of the frame but mapping is the same for two pcs (of any processes)
 * with the same file, vaddr and is_return. Returns 1, 0 when no mapping of
 * a module covers the pc (resolve it by pid), or -ENOMEM.
 */
int symbolizer_file_pc(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		       const void **file, uint64_t *vaddr);

/*
 * Whether frame i of a backtrace record with bt_flags is a return address:
 * the is_return to pass symbolizer_resolve() for each frame of a backtrace.
 */
static inline bool symbolizer_frame_is_return(unsigned i, unsigned bt_flags)
{
	return i > 0 || (bt_flags & FXT_BT_FLAG_PC_IS_RETURN);
}

/*
 * Call fn for every module file the symbolizer tried and could not use, with
 * the reason: -ENOENT (not found), -ESTALE (its build id differs from the
 * recorded one), another -errno. Unordered.
 */
typedef void (*symbolizer_failure_fn)(void *ctx, const char *path, int err);
void symbolizer_for_each_failure(const struct symbolizer *s, symbolizer_failure_fn fn, void *ctx);

/*
 * Call fn for every module whose debug info was asked of debuginfod and could
 * not be fetched, with its build id (hex) and the -errno. Unordered.
 */
typedef void (*symbolizer_fetch_failure_fn)(void *ctx, const char *path, const char *build_id,
					    int err);
void symbolizer_for_each_fetch_failure(const struct symbolizer *s, symbolizer_fetch_failure_fn fn,
				       void *ctx);

/*
 * Why libdebuginfod could not be loaded, when a fetch tried to
 * (fetch failures of DEBUGINFOD_NO_LIBRARY); else NULL.
 */
const char *symbolizer_debuginfod_error(const struct symbolizer *s);

#endif /* FXS_DAEMON_SYMBOLIZER_H */
