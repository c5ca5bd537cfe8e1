/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Fuchsia Trace Format records: the format's constants, and fxt_put_*(),
 * which encode one record into a struct fxt_buf with the refs the caller
 * gives (what the golden-byte tests pin down). Pure: no libbpf, no I/O.
 * A writer that keeps the string and thread tables is fxt/fxt_stream.h.
 */
#ifndef FXS_DAEMON_FXT_H
#define FXS_DAEMON_FXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FXT_MAGIC_WORD	      0x0016547846040010ULL
#define FXT_MAX_RECORD_WORDS  4095
#define FXT_MAX_STRING_INDEX  0x7fff
#define FXT_MAX_THREAD_INDEX  255
#define FXT_MAX_INLINE_STRING 0x7fff
/* The longest provider name, module name or build id: an 8-bit length field. */
#define FXT_MAX_SHORT_NAME 255

enum fxt_record_type {
	FXT_RT_METADATA = 0,
	FXT_RT_INIT = 1,
	FXT_RT_STRING = 2,
	FXT_RT_THREAD = 3,
	FXT_RT_EVENT = 4,
	FXT_RT_BLOB = 5,
	FXT_RT_USEROBJ = 6,
	FXT_RT_KOBJ = 7,
	FXT_RT_SCHED = 8,
	FXT_RT_LOG = 9,
	FXT_RT_PROFILER = 10,
	FXT_RT_LARGE = 15,
};

#define FXT_META_PROVIDER_INFO	   1
#define FXT_META_PROVIDER_SECTION  2
#define FXT_META_PROVIDER_EVENT	   3
#define FXT_META_TRACE_INFO	   4
#define FXT_PROVIDER_EVENT_DROPPED 0 /* "buffer overflowed, records dropped" */

#define FXT_OBJ_PROCESS 1
#define FXT_OBJ_THREAD	2

#define FXT_EVENT_INSTANT 0
#define FXT_EVENT_COUNTER 1
/*
 * The instant event "clock" (category "fxsampler") a capture ends with:
 * start_boottime_ns, start_realtime_ns, stop_boottime_ns. Not a counter:
 * readers take the counters for the capture's accounting.
 */
#define FXT_CLOCK_EVENT "clock"

#define FXT_ARG_INT32	1
#define FXT_ARG_UINT32	2
#define FXT_ARG_INT64	3
#define FXT_ARG_UINT64	4
#define FXT_ARG_DOUBLE	5
#define FXT_ARG_STRING	6
#define FXT_ARG_POINTER 7
#define FXT_ARG_KOID	8
#define FXT_ARG_BOOL	9

#define FXT_PROF_MODULE	   0
#define FXT_PROF_MMAP	   1
#define FXT_PROF_BACKTRACE 2

/*
 * fxsampler's use of the backtrace header's bits 36..63, which the spec leaves
 * reserved and Fuchsia's Rust parser exposes as "flags". Readers that ignore
 * them lose nothing but these hints.
 */
#define FXT_BT_FLAG_TRUNCATED	 0x1 /* the walk hit max_frames: the stack is cut */
#define FXT_BT_FLAG_PC_IS_RETURN 0x2 /* frame 0 is a return address, not an exact pc */
#define FXT_BT_FLAGS_SHIFT	 36
/*
 * An off-CPU interval's stack, not a sample: the user stack the thread left
 * the CPU in, stamped with the time it left. Its length is the interval of
 * the context-switch records beside it (see report and fxsampler-format(5));
 * bits 3..5 hold the thread's state then (FXT_OFFCPU_*, enum fxs_offcpu_state).
 */
#define FXT_BT_FLAG_OFFCPU	  0x4
#define FXT_BT_OFFCPU_STATE_SHIFT 3
#define FXT_BT_OFFCPU_STATE_MASK  0x7
#define FXT_BT_OFFCPU_STATE(flags)                                                                 \
	(((flags) >> FXT_BT_OFFCPU_STATE_SHIFT) & FXT_BT_OFFCPU_STATE_MASK)
/*
 * The CFI walker (record --unwind=auto) lacked this process's tables for some
 * frame and went on by the frame-pointer chain: in code without frame
 * pointers, the frames past that point may be wrong.
 */
#define FXT_BT_FLAG_FP_FALLBACK 0x40
/*
 * The CPU the sample was taken on (the CPU an off-CPU interval began on) is in
 * bits 8..27: a timeline viewer (Perfetto's perf_sample.cpu) places each
 * sample on its CPU. Older files have no such bit.
 */
#define FXT_BT_FLAG_HAS_CPU 0x80
#define FXT_BT_CPU_SHIFT    8
#define FXT_BT_CPU_MASK	    0xfffff
#define FXT_BT_CPU(cpu)                                                                            \
	(FXT_BT_FLAG_HAS_CPU | ((unsigned)(cpu)&FXT_BT_CPU_MASK) << FXT_BT_CPU_SHIFT)
#define FXT_BT_GET_CPU(flags) (((flags) >> FXT_BT_CPU_SHIFT) & FXT_BT_CPU_MASK)
/* Every bit above: a backtrace with any other flag is refused (-EINVAL). */
#define FXT_BT_FLAGS_KNOWN                                                                         \
	(FXT_BT_FLAG_TRUNCATED | FXT_BT_FLAG_PC_IS_RETURN | FXT_BT_FLAG_OFFCPU |                   \
	 FXT_BT_OFFCPU_STATE_MASK << FXT_BT_OFFCPU_STATE_SHIFT | FXT_BT_FLAG_FP_FALLBACK |         \
	 FXT_BT_FLAG_HAS_CPU | FXT_BT_CPU_MASK << FXT_BT_CPU_SHIFT)

/* Blob records (type 5): the blob types; a payload holds at most 32767 bytes. */
#define FXT_BLOB_RAW	  1
#define FXT_BLOB_PERFETTO 3 /* Perfetto's Trace protobuf, parsed by its FXT importer */
#define FXT_MAX_BLOB_LEN  0x7fff

/*
 * A stack deeper than a backtrace record holds (its frame count is 8 bits):
 * the record holds the innermost FXT_BT_MAX_FRAMES, and a raw blob named
 * FXT_FRAMES_BLOB right before it (other records may come between, no other
 * backtrace) the rest: the backtrace's timestamp and thread koid (u64 each),
 * then the outer frames, u64, in the record's order (innermost first).
 * fxt_reader joins them into one backtrace of all the frames; a reader that
 * does not know the blob skips it and sees the innermost 255 frames.
 * FXT_MAX_FRAMES: the deepest stack fxsampler writes or reads so.
 */
#define FXT_BT_MAX_FRAMES 255
#define FXT_FRAMES_BLOB	  "fxsampler.frames"
#define FXT_FRAMES_HDR	  16
#define FXT_MAX_FRAMES	  1024

/* Scheduling records (type 8): the subtypes, and the FXT thread states. */
#define FXT_SCHED_CONTEXT_SWITCH 1
#define FXT_SCHED_THREAD_WAKEUP	 2
#define FXT_THREAD_NEW		 0
#define FXT_THREAD_RUNNING	 1
#define FXT_THREAD_SUSPENDED	 2
#define FXT_THREAD_BLOCKED	 3
#define FXT_THREAD_DYING	 4
#define FXT_THREAD_DEAD		 5
/* The weight of the idle thread, which is how a context switch names it. */
#define FXT_IDLE_WEIGHT INT32_MIN

/* A growable byte buffer. err latches the first allocation failure (-ENOMEM). */
struct fxt_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int err;
};

void fxt_buf_free(struct fxt_buf *b);

/*
 * A string ref as the encoders take it: index 1..0x7fff into the string
 * table, or inline (index 0 and s non-NULL), or empty (index 0, s NULL).
 */
struct fxt_sref {
	uint16_t index;
	const char *s;
	size_t len;
};

/* A thread ref: index 1..255 into the thread table, or 0 for inline pid/tid. */
struct fxt_tref {
	uint8_t index;
	uint64_t pid;
	uint64_t tid;
};

/* One argument; only the fields its type uses are read. */
struct fxt_arg {
	unsigned type; /* FXT_ARG_* */
	struct fxt_sref name;
	uint64_t u; /* uint32/uint64/pointer/koid/bool, int32/int64 as two's complement */
	double d;
	struct fxt_sref str;
};

/* Each returns 0 or a negative errno (-EINVAL for a field out of range). */
int fxt_put_magic(struct fxt_buf *b);
int fxt_put_provider_info(struct fxt_buf *b, uint32_t id, const char *name);
/*
 * A stream writes one provider and never needs a section record; the encoder
 * has one so that a trace of several providers (which the reader must take:
 * each has its own string and thread tables) can be written, as the reader's
 * tests do.
 */
int fxt_put_provider_section(struct fxt_buf *b, uint32_t id);
int fxt_put_provider_event(struct fxt_buf *b, uint32_t id, unsigned event);
int fxt_put_init(struct fxt_buf *b, uint64_t ticks_per_second);
int fxt_put_string(struct fxt_buf *b, uint16_t index, const char *s, size_t len);
int fxt_put_thread(struct fxt_buf *b, uint8_t index, uint64_t pid, uint64_t tid);
int fxt_put_kobj(struct fxt_buf *b, unsigned obj_type, uint64_t koid, struct fxt_sref name,
		 const struct fxt_arg *args, unsigned nr_args);
/*
 * counter_id is the word the event type appends after the arguments: the
 * counter id, a duration-complete end time or an async/flow correlation id.
 */
int fxt_put_event(struct fxt_buf *b, unsigned event_type, uint64_t ts, struct fxt_tref thread,
		  struct fxt_sref category, struct fxt_sref name, const struct fxt_arg *args,
		  unsigned nr_args, uint64_t counter_id);
int fxt_put_module(struct fxt_buf *b, uint64_t ts, struct fxt_tref thread, uint16_t module_id,
		   const char *name, size_t name_len, const uint8_t *build_id, size_t build_id_len);
int fxt_put_mmap(struct fxt_buf *b, uint64_t ts, struct fxt_tref thread, uint16_t module_id,
		 unsigned flags, uint64_t start, uint64_t size, uint64_t vaddr);
int fxt_put_backtrace(struct fxt_buf *b, uint64_t ts, struct fxt_tref thread, unsigned bt_flags,
		      const uint64_t *frames, unsigned nr_frames);
/*
 * The FXT_FRAMES_BLOB record (named name) of a backtrace at ts of thread tid
 * whose frames beyond the first FXT_BT_MAX_FRAMES are frames[0..nr).
 */
int fxt_put_frames_blob(struct fxt_buf *b, struct fxt_sref name, uint64_t ts, uint64_t tid,
			const uint64_t *frames, unsigned nr);
/* An FXT_FRAMES_BLOB payload's fields (frame i: fxt_get_le(data + FXT_FRAMES_HDR + 8 * i, 8)). */
bool fxt_frames_blob_decode(const uint8_t *data, size_t len, uint64_t *ts, uint64_t *tid,
			    unsigned *nr);
/* A blob record: name, blob type (FXT_BLOB_*), len payload bytes. */
int fxt_put_blob(struct fxt_buf *b, struct fxt_sref name, unsigned blob_type, const void *data,
		 size_t len);

/*
 * A context switch (scheduling record type 8, subtype 1): at ts on cpu,
 * out_tid leaves in out_state (FXT_THREAD_*) and in_tid comes in. Thread
 * koids, not refs. args: the conventional incoming_weight/outgoing_weight.
 */
int fxt_put_context_switch(struct fxt_buf *b, uint64_t ts, unsigned cpu, unsigned out_state,
			   uint64_t out_tid, uint64_t in_tid, const struct fxt_arg *args,
			   unsigned nr_args);

/* v's low bytes into p, little-endian: the blob payloads' fixed-width fields. */
static inline void fxt_put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A little-endian field of bytes bytes at p. */
static inline uint64_t fxt_get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif /* FXS_DAEMON_FXT_H */
