/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Source lines and inlined frames of ELF addresses, from DWARF through
 * elfutils' libdw: for one pc, the chain of functions inlined there, each with
 * the file:line it is executing and where it was declared. The DWARF is found
 * in the file itself, in a separate debug file (build-id directory,
 * .gnu_debuglink) or, when a debuginfod client is given, fetched by build id.
 * DWARF 4 and 5 and compressed sections are read by libdw. Pure: no libbpf,
 * no logging.
 *
 * Built without libdw (HAVE_LIBDW undefined, e.g. static cross builds), every
 * open fails with EOPNOTSUPP and the report falls back to ELF symbols only.
 */
#ifndef FXS_DAEMON_DWARF_LINES_H
#define FXS_DAEMON_DWARF_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest inline chain reported for one pc; deeper ones keep their innermost. */
#define DWARF_MAX_FRAMES 32

struct debuginfod_fetcher;

struct dwarf_lines_opts {
	/* Root of separate debug files; NULL: ELF_DEBUG_DIR. */
	const char *debug_dir;
	/* Where to fetch the debug file by build id when none is on disk; NULL: nowhere. */
	struct debuginfod_fetcher *debuginfod;
};

/* One function of the chain at a pc. Strings live as long as the dwarf_lines. */
struct dwarf_frame {
	const char *function;  /* linkage name, else name; NULL when the DIE has none */
	const char *file;      /* the source file being executed, NULL when unknown */
	unsigned line;	       /* its line, 0 when unknown */
	const char *decl_file; /* where the function is declared, NULL when unknown */
	unsigned decl_line;
};

struct dwarf_lines;

/*
 * Open the DWARF of the ELF file at path, whose build id (may be empty) was
 * recorded as build_id: the file's own sections, else its separate debug
 * file, else debuginfod. A file whose build id differs from the recorded one
 * is not used. NULL with errno: ENODATA when no debug info was found,
 * EOPNOTSUPP without libdw, ENOMEM. *ret_fetch_err (may be NULL) gets the
 * -errno of a debuginfod fetch that was tried and failed (or its
 * DEBUGINFOD_OVER_* cap: debuginfod_fetch.h), else 0.
 */
struct dwarf_lines *dwarf_lines__open(const char *path, const uint8_t *build_id,
				      size_t build_id_len, const struct dwarf_lines_opts *opts,
				      int *ret_fetch_err);
/*
 * Whether dwarf_lines__open() of the same arguments may find DWARF, without
 * reading it: 1 when the file or a separate debug file of it has debug
 * sections, or debuginfod may be asked; 0 when it cannot (no debug info on
 * disk and no fetch); -ENOMEM. Never 0 where the open would succeed.
 */
int dwarf_lines__probe(const char *path, const uint8_t *build_id, size_t build_id_len,
		       const struct dwarf_lines_opts *opts);
/* NULL-safe. */
void dwarf_lines__free(struct dwarf_lines *dl);
/* The file the DWARF was read from; owned by dl. */
const char *dwarf_lines__path(const struct dwarf_lines *dl);

/*
 * The functions executing at file_vaddr (an ELF vaddr), innermost first:
 * frames[0] holds the pc's own line; each next one is the function the
 * previous was inlined into, at the call site's line; the last is the
 * subprogram. Returns their number (at most max), 0 when no DWARF covers the
 * address, -ENOMEM.
 */
int dwarf_lines__lookup(struct dwarf_lines *dl, uint64_t file_vaddr, struct dwarf_frame *frames,
			unsigned max);

#endif /* FXS_DAEMON_DWARF_LINES_H */
