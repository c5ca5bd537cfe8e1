/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A capture's side of the Python walk (record --python, bpf/python.bpf.h):
 * it learns of each file a process maps (a modules listener), tells the BPF
 * program which processes run a CPython it can walk, and with which offsets;
 * then for each sample's Python section it reads every code object it has
 * not met (once per process and content, while the process lives), writes it
 * as a pycode record, and writes the sample's pystack record
 * (fxt/fxt_python.h) right before its backtrace.
 */
#ifndef FXS_DAEMON_CAPTURE_PYTHON_CAPTURE_H
#define FXS_DAEMON_CAPTURE_PYTHON_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/bpf_sampler.h"
#include "capture/modules.h"
#include "fxt/fxt_stream.h"

struct python_capture;

/* What the walk did, for the summary and the .fxt's "python" counters. */
enum python_count {
	PY_CNT_PROCS_WALKED,	  /* processes whose interpreter the walk follows */
	PY_CNT_PROCS_UNSUPPORTED, /* interpreters of a version this build does not walk */
	PY_CNT_PROCS_MISMATCH,	  /* a known version whose objects differ from the table */
	PY_CNT_PROCS_UNREADABLE,  /* interpreter files whose values could not be read */
	PY_CNT_SAMPLES,		  /* samples with a Python section */
	PY_CNT_END_OK,		  /* ... whose walk reached the thread's first frame */
	PY_CNT_END_TRUNCATED,	  /* ... cut at FXS_PY_MAX_FRAMES */
	PY_CNT_END_NO_TSTATE,	  /* ... of a thread without a thread state */
	PY_CNT_END_FAULT,	  /* ... whose walk met an unreadable pointer */
	PY_CNT_FRAMES,		  /* Python frames written */
	PY_CNT_CODES,		  /* code objects read and written */
	PY_CNT_CODES_FAILED,	  /* code objects that could not be read (gone, changed) */
	PY_CNT_NR,
};

/*
 * On b (which must have been set up with opts.python), listening to m's
 * files and mappings; warn (may be NULL) is told once per process what was
 * found. NULL with errno set.
 */
struct python_capture *python_capture__new(struct bpf_sampler *b, struct modules *m,
					   void (*warn)(void *ctx, const char *text),
					   void *warn_ctx);
void python_capture__free(struct python_capture *pc);
/* pid execed or exited: its interpreter and code objects are forgotten. */
void python_capture_forget(struct python_capture *pc, pid_t pid);
/*
 * The Python section of sample s (len bytes at sec, past the record's other
 * parts) into records before its backtrace at ts (pid, tid). 0 or -errno of
 * the stream; a malformed section is ignored.
 */
int python_capture_sample(struct python_capture *pc, struct fxt_stream *s, uint64_t ts,
			  uint32_t pid, uint32_t tid, const void *sec, size_t len);
/*
 * The same section as its sample is read from the ring, before it waits for
 * its turn in time order: the code objects not met yet are read now, while
 * the process lives (a short-lived one is gone by its turn), and their
 * records kept for python_capture_sample() to write. 0 or -ENOMEM.
 */
int python_capture_prefetch(struct python_capture *pc, uint32_t pid, const void *sec, size_t len);
/* The counters, as an FXT counter event "python". */
int python_capture_write(struct python_capture *pc, struct fxt_stream *s, uint64_t ts);
void python_capture_counts(const struct python_capture *pc, uint64_t ret[PY_CNT_NR]);
const char *python_count_name(unsigned which);
/*
 * The summary's line of the counters into buf ("python: ..."): its length, 0
 * when no interpreter was met (nothing to say).
 */
size_t python_summary(const uint64_t counts[PY_CNT_NR], char *buf, size_t size);

#endif /* FXS_DAEMON_CAPTURE_PYTHON_CAPTURE_H */
