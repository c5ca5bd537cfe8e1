/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Frames resolved once, for a symbolizer that outlives many reports
 * (fxsamplerd's HTTP scrapes: each window is a report, and most of a
 * window's addresses were in the window before). A pc of a module file is
 * keyed by the file and the pc's vaddr in it (symbolizer_file_pc()), shared
 * by every process that maps the file: a host's short processes (a build's
 * compilers, a shell's commands) hit what the ones before them resolved.
 * Those entries point only into what the symbolizer keeps for its life (its
 * files, DWARF and interned names); the frame's mapping is the asking pc's
 * own. Any other pc with a mapping (a module record gave it no file) is
 * keyed by (pid, pc, is_return, the symbolizer's mapping id at the sample's
 * time), so it names what the mapping of its sample's time holds; what that
 * key cannot see, a module record that gives a process's module id another
 * file (a pid reused, a capture restarted with other ids) or the same file
 * again, is watched: each makes that process's entries stale, resolved
 * again when next asked for.
 *
 * Bounded: entries unused for SYM_CACHE_MAX_AGE_NS go at each tick, and past
 * SYM_CACHE_MAX entries the ones unused since the last tick go too (all of
 * them, at worst). The frames hold the symbolizer's pointers: clear the
 * cache when it forgets its processes. Pure: no I/O, no logging.
 */
#ifndef FXS_SYMBOLS_SYM_CACHE_H
#define FXS_SYMBOLS_SYM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symbolizer.h"

#define SYM_CACHE_MAX	     32768
#define SYM_CACHE_MAX_AGE_NS (10 * 60 * 1000000000ULL)

struct sym_cache;
struct fxt_record;

struct sym_cache_stats {
	uint64_t hits, misses, evicted;
	size_t entries;
};

/* NULL with errno set. s: the symbolizer it asks, which outlives it. */
struct sym_cache *sym_cache__new(struct symbolizer *s);
/* NULL-safe. */
void sym_cache__free(struct sym_cache *c);

/*
 * symbolizer_resolve(), from the cache when the same pc of pid in the same
 * mapping was resolved before. Returns 0 or -ENOMEM.
 */
int sym_cache_resolve(struct sym_cache *c, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		      struct sym_frame *ret);

/*
 * A record the symbolizer is fed, before it is: a module record makes its
 * process's entries stale. Others are ignored. 0 or -ENOMEM.
 */
int sym_cache_note_record(struct sym_cache *c, const struct fxt_record *rec);

/* The time is now (any monotonic ns): entries unused for SYM_CACHE_MAX_AGE_NS go. */
void sym_cache_tick(struct sym_cache *c, uint64_t now);

/* Forget every entry (the symbolizer forgot its processes). */
void sym_cache_clear(struct sym_cache *c);

void sym_cache_stats(const struct sym_cache *c, struct sym_cache_stats *ret);

#endif /* FXS_SYMBOLS_SYM_CACHE_H */
