/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The capture's side of the CFI walker (record --unwind=auto|cfi): hears of
 * the modules capture/modules reads, has their tables made between drains
 * (capture/cfi_tables, daemon/unwind/cfi_table), and counts how the written
 * records' walks ended, for the file's counters and record's summary.
 */
#ifndef FXS_DAEMON_CFI_CAPTURE_H
#define FXS_DAEMON_CFI_CAPTURE_H

#include <stdint.h>
#include <sys/types.h>

#include "capture/bpf_sampler.h"
#include "capture/cfi_tables.h"
#include "capture/modules.h"
#include "fxt/fxt_stream.h"
#include "sampler.h"

/*
 * One slot per FXS_UE_* reason, then the walks that fell back to frame
 * pointers, and those that found a module by its file (FXS_UE_BY_FILE).
 */
#define CFI_COUNT_FP_FALLBACK FXS_UE_NR
#define CFI_COUNT_BY_FILE     (FXS_UE_NR + 1)
#define CFI_COUNT_NR	      (FXS_UE_NR + 2)

struct cfi_counts {
	uint64_t samples[CFI_COUNT_NR];
	uint64_t offcpu[CFI_COUNT_NR];
};

struct cfi_capture;

/*
 * The tables' memory when none is given: 1/256 of the machine's memory,
 * at least 32 MiB and at most 128 MiB. clang++ (Debian 12's clang 14) needs
 * 16.2 MB of rows (libclang-cpp 8.0 MB, libLLVM 7.6 MB), gcc's cc1plus 4.1 MB:
 * the floor holds a compiler's with room for the host's; the memory is the
 * kernel's, allocated at load, once per capture.
 */
#define CFI_MEMORY_FLOOR (32ULL << 20)
#define CFI_MEMORY_CEIL	 (128ULL << 20)
uint64_t cfi_capture_default_memory(void);

/* After the sampler's setup; listens to m. NULL with errno set. */
struct cfi_capture *cfi_capture__new(struct bpf_sampler *b, struct modules *m);
void cfi_capture__free(struct cfi_capture *cc);

/* Count how a written record's walk ended. */
void cfi_capture_count(struct cfi_capture *cc, const struct fxs_sample *s);
/*
 * Make queued tables, between drains; every record up to handed_ns (boot
 * time) has been read.
 */
int cfi_capture_work(struct cfi_capture *cc, uint64_t handed_ns);
/* Whether tables are queued (cfi_capture_work() has more to make). */
bool cfi_capture_pending(const struct cfi_capture *cc);
/* Mappings the walker's ranges did not keep for the caps. */
uint64_t cfi_capture_ranges_dropped(const struct cfi_capture *cc);
/* pid execed or is gone. */
void cfi_capture_forget(struct cfi_capture *cc, pid_t pid);
/*
 * cpid was forked by ppid (its fork record): it walks by a copy of ppid's
 * ranges, or, without inherit (ppid is not the session's), by none.
 */
int cfi_capture_fork(struct cfi_capture *cc, pid_t ppid, pid_t cpid, bool inherit);
/* The counter events "unwind" (samples), "unwind_offcpu" and "cfi_tables". */
int cfi_capture_write(struct cfi_capture *cc, struct fxt_stream *s, uint64_t ts);
void cfi_capture_counts(const struct cfi_capture *cc, struct cfi_counts *ret);
void cfi_capture_table_stats(const struct cfi_capture *cc, struct cfi_tables_stats *ret);
/* cfi_tables_modules() of the capture's tables. */
size_t cfi_capture_modules(const struct cfi_capture *cc, struct cfi_mod_info *out, size_t max);
/* Why --unwind=auto walks by frame pointers (enum bpf_cfi_cause), in words. */
const char *cfi_fallback_text(unsigned cause);
/*
 * Say once (through warn, may be NULL) that --unwind=auto walks by frame
 * pointers, and why; and write the counter event "cfi_fallback"
 * (no_bpf_loop, jit_off, rejected: 1 on the cause) so the file says it too.
 */
int cfi_capture_write_fallback(struct fxt_stream *s, unsigned cause,
			       void (*warn)(void *ctx, const char *text), void *warn_ctx);
/* The cause the counter event "cfi_fallback"'s argument name stands for, or 0. */
unsigned cfi_fallback_cause(const char *arg_name);
/* The name of a counter slot ("end", "no_table", ..., "fp_fallback"). */
const char *cfi_count_name(unsigned slot);

#endif /* FXS_DAEMON_CFI_CAPTURE_H */
