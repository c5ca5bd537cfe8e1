/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The Fuchsia Trace Format stream: a writer over the fxt_put_*() encoders
 * (fxt/fxt.h) that owns the string and thread tables, interns strings,
 * assigns thread slots, emits the table records on demand, and hands full
 * buffers to a sink. Pure: no libbpf, no I/O of its own.
 */
#ifndef FXS_DAEMON_FXT_STREAM_H
#define FXS_DAEMON_FXT_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "fxt/fxt.h"

/* Where a stream's bytes go: return 0 or a negative errno (which latches). */
typedef int (*fxt_sink_fn)(void *ctx, const void *data, size_t len);

struct fxt_stream;

/*
 * A stream writes the magic, provider-info (id 1, provider_name) and
 * initialization (ticks_per_second) records at once. Returns NULL with errno
 * set on failure. The sink is called whenever the buffer passes 64 KiB, and on
 * fxt_stream_flush().
 */
struct fxt_stream *fxt_stream__new(fxt_sink_fn sink, void *ctx, const char *provider_name,
				   uint64_t ticks_per_second);
/* Flushes nothing: call fxt_stream_flush() first to keep buffered records. */
void fxt_stream__free(struct fxt_stream *s);
int fxt_stream_flush(struct fxt_stream *s);
/* Bytes handed to the sink plus bytes still buffered. */
uint64_t fxt_stream_bytes(const struct fxt_stream *s);
/*
 * The first error of the stream (sink or allocation), or 0. Such errors latch:
 * every later call returns them, so a writer may check once after a run of
 * calls, as bench/fxtgen.c does. A call refused for its arguments (-EINVAL)
 * writes nothing and does not latch.
 */
int fxt_stream_error(const struct fxt_stream *s);

/*
 * A byte budget (continuous mode's max_file_size, less what the file's
 * finish will write; 0: none, the default): once the stream holds budget
 * bytes, the records that a target can multiply (samples, mappings and
 * modules, processes, threads, blobs, context switches, instants) are
 * dropped and counted by kind, and the calls return 0. Counters, the
 * dropped-records event and the string and thread tables that they need are
 * always written: the file ends with its accounting.
 */
enum fxt_over_kind {
	FXT_OVER_SAMPLES,  /* backtraces (and a kernel stack's blob) */
	FXT_OVER_MAPPINGS, /* module and mmap records */
	FXT_OVER_OTHER,	   /* processes, threads, other blobs, context switches, instants */
	FXT_OVER_NR,
};
void fxt_stream_set_budget(struct fxt_stream *s, uint64_t budget);
/* How many records of kind (enum fxt_over_kind) the budget dropped. */
uint64_t fxt_stream_over(const struct fxt_stream *s, unsigned kind);

int fxt_stream_process(struct fxt_stream *s, uint64_t pid, const char *name);
/*
 * The same with a "cmdline" string argument (left out when cmdline is NULL
 * or ""), written inline: command lines are seldom repeated and would crowd
 * the string table. At most FXT_CMDLINE_MAX bytes of it are kept.
 */
#define FXT_CMDLINE_MAX 1024
int fxt_stream_process_cmdline(struct fxt_stream *s, uint64_t pid, const char *name,
			       const char *cmdline);
/* A thread kernel object with the "process" koid argument Perfetto needs. */
int fxt_stream_thread(struct fxt_stream *s, uint64_t pid, uint64_t tid, const char *name);
/*
 * A sample's stack, 1..FXT_MAX_FRAMES frames: past FXT_BT_MAX_FRAMES, the
 * outer ones go into an FXT_FRAMES_BLOB record right before the backtrace.
 */
int fxt_stream_backtrace(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint64_t tid,
			 unsigned bt_flags, const uint64_t *frames, unsigned nr_frames);
/*
 * Module and mmap records name their process through an indexed thread ref to
 * (pid, 0), a slot of the same table as the samples' (pid, tid): no inline
 * thread words, which Fuchsia's readers disagree on.
 */
int fxt_stream_module(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint16_t module_id,
		      const char *path, const uint8_t *build_id, size_t build_id_len);
int fxt_stream_mmap(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint16_t module_id,
		    unsigned flags, uint64_t start, uint64_t size, uint64_t vaddr);
/* A counter event on (pid, tid) with uint64 arguments named names[i]. */
int fxt_stream_counter(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint64_t tid,
		       const char *category, const char *name, uint64_t counter_id,
		       const char *const *names, const uint64_t *values, unsigned nr);
int fxt_stream_dropped(struct fxt_stream *s);
/* An instant event on (pid, tid) with uint64 arguments named names[i]. */
int fxt_stream_instant(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint64_t tid,
		       const char *category, const char *name, const char *const *names,
		       const uint64_t *values, unsigned nr);
/* A raw-data blob record named name (interned), of len <= FXT_MAX_BLOB_LEN bytes. */
int fxt_stream_blob(struct fxt_stream *s, const char *name, const void *data, size_t len);
/*
 * A context switch between a thread and the idle thread, the only two a
 * profiler of some threads knows: with out_idle, in_tid comes in from idle;
 * otherwise out_tid leaves to idle in out_state.
 */
int fxt_stream_context_switch(struct fxt_stream *s, uint64_t ts, unsigned cpu, unsigned out_state,
			      uint64_t out_tid, uint64_t in_tid, int out_idle);

#endif /* FXS_DAEMON_FXT_STREAM_H */
