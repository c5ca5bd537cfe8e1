/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `fxsampler dump`'s text output: one line per record the reader decoded
 * (fxt_reader.h). Pure: formats into the caller's buffer.
 */
#ifndef FXS_DAEMON_FXT_DUMP_H
#define FXS_DAEMON_FXT_DUMP_H

#include <stddef.h>

#include "fxt/fxt_reader.h"

/*
 * One line describing the record, as `fxsampler dump` prints it (no newline).
 * Returns the length of the whole line like snprintf(): a value >= size means
 * buf holds a truncated, still NUL-terminated line. -EINVAL without a record,
 * or with a NULL buf and a size; -EOVERFLOW past INT32_MAX.
 */
int fxt_record_format(const struct fxt_record *rec, char *buf, size_t size);

#endif /* FXS_DAEMON_FXT_DUMP_H */
