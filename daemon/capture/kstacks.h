/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A capture's kernel stacks (record --kernel) into the .fxt as
 * fxt/fxt_kstack.h lays them out: each distinct kernel PC gets an id, each
 * stack goes out as ids, and at the end the ids' function names, from
 * /proc/kallsyms, go into the file. No kernel address leaves this module.
 */
#ifndef FXS_DAEMON_CAPTURE_KSTACKS_H
#define FXS_DAEMON_CAPTURE_KSTACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt/fxt_stream.h"

struct kstacks;

/* NULL with errno set (ENOMEM). kallsyms: the symbol file (NULL: /proc/kallsyms). */
struct kstacks *kstacks__new(const char *kallsyms);
void kstacks__free(struct kstacks *k);

/* The kernel's release and build id (FXT_KERNEL_BLOB): once, before the first stack. */
int kstacks_write_kernel(struct kstacks *k, struct fxt_stream *s);
/*
 * The kernel stack of the backtrace (ts, tid) about to be written: nr PCs,
 * innermost first; the first is where the thread was interrupted when
 * first_exact, a return address otherwise. 0 or a negative errno.
 */
int kstacks_write_stack(struct kstacks *k, struct fxt_stream *s, uint64_t ts, uint64_t tid,
			const uint64_t *pcs, unsigned nr, bool first_exact);
/*
 * At the end: the names of every location written (FXT_KSYMS_BLOB records).
 * *ret_unresolved (may be NULL): how many no symbol covered (kallsyms not
 * readable with addresses, for one).
 */
int kstacks_write_symbols(struct kstacks *k, struct fxt_stream *s, uint64_t *ret_unresolved);

#endif /* FXS_DAEMON_CAPTURE_KSTACKS_H */
