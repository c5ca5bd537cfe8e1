/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record's summary of the CFI walker (--unwind=auto|cfi), read back from the
 * file's counters: how the walks ended, the tables' memory, and each module
 * whose frames went without a table, named once with the reason and what to
 * do (unwind/cfi_status.h).
 */
#ifndef FXS_CLI_RECORD_UNWIND_H
#define FXS_CLI_RECORD_UNWIND_H

#include <stdbool.h>

#include "capture/capture.h"
#include "fxt/fxt_reader.h"
#include "unwind/cfi_status.h"

/*
 * A counter event of the file: true when it is the walker's ("unwind",
 * "unwind_offcpu", "cfi_tables", "cfi_module"), taken into *st (the named
 * modules are kept here until record_unwind_print()).
 */
bool record_unwind_read(const struct fxt_record *rec, struct capture_stats *st);
/* A module to name (from the capture itself, when the file is not read back). */
void record_unwind_module(const struct cfi_mod_info *m);
/* The summary's lines (none under --unwind=fp); forgets the named modules. */
void record_unwind_print(const struct capture_stats *st);

#endif /* FXS_CLI_RECORD_UNWIND_H */
