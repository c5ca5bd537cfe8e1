/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Threads that make CFI tables (daemon/unwind/cfi_table) off the capture's
 * loop, for capture/cfi_tables' start() and collect(): a new program's big
 * libraries (clang++'s libclang-cpp and libLLVM, 80 ms or more each) are
 * made side by side, and the loop goes on draining meanwhile.
 */
#ifndef FXS_DAEMON_CFI_WORKERS_H
#define FXS_DAEMON_CFI_WORKERS_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind.h"

struct cfi_workers;

/*
 * The rows of the file behind fd, as cfi_tables' generate() op gives them;
 * ctx is cfi_workers__new()'s, and make runs on several threads at once.
 */
typedef int (*cfi_make_fn)(void *ctx, int fd, struct fxs_cfi_row **ret_rows, uint32_t *ret_n);

/* nr threads (1..8), started at the first job. NULL with errno set. */
struct cfi_workers *cfi_workers__new(unsigned nr, cfi_make_fn make, void *ctx);
/* Waits for the jobs being made, drops the others. NULL-safe. */
void cfi_workers__free(struct cfi_workers *w);
/* Queue table id's rows from fd (dup'ed). false: not queued (no memory, no thread). */
bool cfi_workers_start(struct cfi_workers *w, uint32_t id, int fd);
/*
 * id's result once made: make's return, *ret_rows (the caller's to free),
 * *ret_n and the time it took; -EINPROGRESS before; -ENOENT... as make.
 */
int cfi_workers_collect(struct cfi_workers *w, uint32_t id, struct fxs_cfi_row **ret_rows,
			uint32_t *ret_n, uint64_t *ret_ns);

#endif /* FXS_DAEMON_CFI_WORKERS_H */
