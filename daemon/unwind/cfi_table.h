/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A module's unwind table for the CFI walker (include/unwind.h's rows): built
 * from its .eh_frame (found through PT_GNU_EH_FRAME in an object without
 * section headers), or from its .debug_frame where it has no .eh_frame, by
 * our own parser (daemon/unwind/eh_frame, cfa_program; no libdw, so the static
 * cross builds have it too). The architecture comes from the ELF header:
 * x86-64, arm64, riscv64 (64-bit, little-endian).
 *
 * The table is what the walker needs and nothing else: rows sorted by pc,
 * pcs unique, adjacent equal rules merged, a FXS_CFI_NONE row at every gap
 * between FDEs and after the last. Every rule the walker cannot apply exactly
 * is FXS_CFI_UNSUPPORTED, never an approximation: a CFA that is neither sp-
 * nor fp-based, a save by expression or in another register, an offset that
 * does not fit the rule's bits, a CFA program that cannot be read, FDEs that
 * overlap (their whole union).
 *
 * Untrusted input: every length is checked, rows, FDEs, CFA program bytes and
 * the remember_state stack have caps, and malformed framing is an error code.
 * Pure: no libbpf, no logging.
 */
#ifndef FXS_DAEMON_UNWIND_CFI_TABLE_H
#define FXS_DAEMON_UNWIND_CFI_TABLE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind.h"
#include "unwind/eh_frame.h"

/*
 * Default caps (cfi_table_opts 0 takes them). Debian 12's libc.so.6 has 28 k
 * rows, libLLVM-15 980 k.
 */
#define CFI_TABLE_MAX_ROWS (1u << 22) /* 32 MiB of rows */
#define CFI_TABLE_MAX_FDES (1u << 21)

struct cfi_table_opts {
	uint32_t max_rows;   /* more rows: -E2BIG; 0: CFI_TABLE_MAX_ROWS */
	uint32_t max_fdes;   /* more FDEs: -E2BIG; 0: CFI_TABLE_MAX_FDES */
	bool no_debug_frame; /* .eh_frame only */
};

struct cfi_table_stats {
	uint32_t fdes;		  /* FDEs read (zero-length ones included) */
	uint32_t fdes_empty;	  /* zero-length FDEs, skipped */
	uint32_t fdes_bad;	  /* CFA program unreadable: its range UNSUPPORTED */
	uint32_t fdes_overlap;	  /* FDEs overlapping another: the union UNSUPPORTED */
	uint32_t fdes_fp;	  /* FDEs with an fp-based CFA at some pc (frame-pointer code) */
	uint32_t rows;		  /* rows of the table, merged */
	uint32_t rows_unmerged;	  /* rows before adjacent equal rules were merged */
	uint32_t rows_by_kind[8]; /* rows by FXS_CFI_* kind */
	uint64_t bytes;		  /* rows * sizeof(struct fxs_cfi_row) */
	uint64_t text_bytes;	  /* bytes of code the FDEs cover */
	uint64_t gen_ns;	  /* CLOCK_MONOTONIC time cfi_table_from_*() took */
	uint32_t entry_end;	  /* 1: the entry point had no FDE, its code made END */
};

struct cfi_table {
	uint16_t machine;	  /* EM_X86_64, EM_AARCH64, EM_RISCV */
	bool from_debug_frame;	  /* .debug_frame (the module has no .eh_frame) */
	struct fxs_cfi_row *rows; /* sorted by pc, unique */
	uint32_t nrows;		  /* 0 when the section has no FDE (a CIE alone) */
	struct cfi_table_stats stats;
};

/*
 * Build the table of an ELF object (ET_EXEC or ET_DYN; opts may be NULL).
 * 0 and *ret (cfi_table_free() it), or:
 *   -ENOEXEC  not a 64-bit little-endian x86-64/arm64/riscv64 ELF object
 *   -ENOENT   no .eh_frame and no .debug_frame (or opts->no_debug_frame)
 *   -EBADMSG  malformed: a length, offset, CIE or pointer encoding that does
 *             not hold (a CFA program that cannot be read only makes its
 *             FDE's range UNSUPPORTED, see stats.fdes_bad)
 *   -ERANGE   code at or above 4 GiB of vaddr (rows keep 32 bits of pc)
 *   -E2BIG    more rows or FDEs than the caps
 *   -ENOMEM
 * and from_path, what elf_file_open() returns for a file it cannot open.
 */
int cfi_table_from_elf(Elf *elf, const struct cfi_table_opts *opts, struct cfi_table **ret);
/* The same for a file: opened as a regular file only and mapped (elf_file_open()). */
int cfi_table_from_path(const char *path, const struct cfi_table_opts *opts,
			struct cfi_table **ret);
/*
 * The same for a file already open (e.g. through a re-authorized /proc/PID
 * path): fd must be a regular file, it is mapped read-only and stays open.
 */
int cfi_table_from_fd(int fd, const struct cfi_table_opts *opts, struct cfi_table **ret);
/* The same for an image in memory (copied first; libelf may write to it). */
int cfi_table_from_mem(const void *data, size_t size, const struct cfi_table_opts *opts,
		       struct cfi_table **ret);
/*
 * The same from a section already in memory, for an arch's EM_* number (the
 * fuzzer and the unit tests reach the parser this way).
 */
int cfi_table_from_section(uint16_t machine, const struct cfi_section *sec,
			   const struct cfi_table_opts *opts, struct cfi_table **ret);
void cfi_table_free(struct cfi_table *t);

/*
 * The row covering vaddr pc (the last row at or below it), or NULL when pc is
 * below the first row or does not fit 32 bits: no FDE there, as FXS_CFI_NONE.
 */
const struct fxs_cfi_row *cfi_table_lookup(const struct cfi_table *t, uint64_t pc);

/* A word for an error of cfi_table_from_*(): "no .eh_frame or .debug_frame", ... */
const char *cfi_table_strerror(int err);

#endif /* FXS_DAEMON_UNWIND_CFI_TABLE_H */
