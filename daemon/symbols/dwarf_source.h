/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The DWARF answers (source lines, inline chains) of the symbolizer's module
 * files, one module's DWARF open at a time when the addresses come in a batch.
 *
 * Looked up one pc at a time, a file's DWARF (symbols/dwarf_lines) is opened
 * on its first lookup and stays open: libdw inflates a debug file's
 * compressed sections whole (Debian's libc6-dbg: 10 MB) and builds line
 * tables beside them, so a report that resolved pcs of several files held
 * every file's DWARF at once, with its own tables growing beside them. A
 * batch instead takes the (file, vaddr) pairs first (dwarf_sources_want()),
 * then resolves them file by file (dwarf_sources_resolve()): each file's
 * DWARF is opened, its wanted addresses are looked up and their answers kept
 * with their strings interned, and the DWARF is closed before the next
 * file's is opened. A later lookup of a kept address is answered from what
 * was kept; of another address, the file's DWARF is opened again.
 *
 * Pure: no libbpf, no logging.
 */
#ifndef FXS_DAEMON_DWARF_SOURCE_H
#define FXS_DAEMON_DWARF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/dwarf_lines.h"
#include "util/hash.h"

struct strpool;
struct frame_chunk;
struct dwarf_want;

/* An address of the file and the answer kept for it (n 0: no DWARF covers it). */
struct dwarf_kept {
	uint64_t vaddr;
	const struct dwarf_frame *frames;
	unsigned n;
};

/* The DWARF side of one module file. A zeroed one, with its file set, is new. */
struct dwarf_source {
	/* The file: what dwarf_lines__open() is given; owned by the caller. */
	const char *path;
	const uint8_t *build_id;
	size_t build_id_len;
	bool no_dwarf;		 /* never looked for ("[vdso]") */
	struct dwarf_lines *dl;	 /* open, or NULL */
	bool tried;		 /* dl was opened, or could not be (or a probe found it cannot) */
	bool probed;		 /* dwarf_lines__probe() found it may have DWARF */
	bool closed;		 /* a batch closed dl: kept answers its addresses */
	unsigned batch_seq;	 /* in the batch: 1 + its order among the files wanted; else 0 */
	int fetch_err;		 /* a debuginfod fetch that failed, else 0 */
	struct dwarf_kept *kept; /* sorted by vaddr */
	size_t nr_kept, cap_kept;
};

/* What every file's answers share: the options, the strings, the frames handed out. */
struct dwarf_sources {
	struct dwarf_lines_opts opts;
	struct strpool *pool;	    /* the caller's: interned copies of kept strings */
	const char *unknown;	    /* the name of an inlined function DWARF does not name */
	struct frame_chunk *chunks; /* frames handed out, never moved */
	struct dwarf_want *wants;   /* the batch */
	size_t nr_wants, cap_wants;
	struct hash_index want_idx;
	unsigned nr_batch_files;
};

/*
 * The functions executing at vaddr of src's file, as dwarf_lines__lookup()
 * gives them (innermost first, the subprogram last): their number n (0 when
 * no DWARF covers it, or the file has none), or -ENOMEM. *outer gets the
 * last; *inlined the n - 1 before it (NULL when none), each with a function
 * (ss->unknown when DWARF names none), living as long as ss. The strings
 * live as long as ss when the answer was kept, else as long as the file's
 * DWARF stays open: a batch closes only the DWARF it opened itself.
 */
int dwarf_source_lookup(struct dwarf_sources *ss, struct dwarf_source *src, uint64_t vaddr,
			struct dwarf_frame *outer, const struct dwarf_frame **inlined);

/*
 * Add (src, vaddr) to the batch (once however often it is wanted). A file's
 * first want probes it (dwarf_lines__probe()): the addresses of a file with
 * no DWARF to open (most of a whole host's) are never kept in the batch.
 * 0 or -ENOMEM.
 */
int dwarf_sources_want(struct dwarf_sources *ss, struct dwarf_source *src, uint64_t vaddr);
/*
 * Resolve the batch file by file, in the order the files were first wanted:
 * open, look up and keep, close; the batch is then empty. 0 or -ENOMEM.
 */
int dwarf_sources_resolve(struct dwarf_sources *ss);

/* What src holds (its DWARF, its kept answers). NULL-safe. */
void dwarf_source_free(struct dwarf_source *src);
/* What ss holds: every frame handed out is invalid. */
void dwarf_sources_free(struct dwarf_sources *ss);

#endif /* FXS_DAEMON_DWARF_SOURCE_H */
