/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Perfetto's trace format, the part `report --perfetto` writes: TracePackets
 * (protos/perfetto/trace/trace_packet.proto) of one packet sequence, holding
 * interned data (function names, mapping paths, build ids, mappings, frames,
 * callstacks) and one PerfSample per sample, the packets framed as Perfetto's
 * Trace message, and that byte stream cut into FXT blob records of type 3
 * (FXT_BLOB_PERFETTO), which Perfetto's FXT importer joins and parses as its
 * own trace. Perfetto v58.2's trace processor turns them into perf_sample
 * rows with their callsites (stack_profile_callsite, stack_profile_frame,
 * stack_profile_mapping).
 *
 * Pure: encoding into buffers only, no report model, no I/O.
 */
#ifndef FXS_DAEMON_REPORT_PERFETTO_TRACE_H
#define FXS_DAEMON_REPORT_PERFETTO_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/pbuf.h"

struct fxt_buf;

/* InternedData's string tables (InternedString {iid = 1, str = 2}). */
#define PERFETTO_FUNCTION_NAMES 5
#define PERFETTO_BUILD_IDS	16
#define PERFETTO_MAPPING_PATHS	17
#define PERFETTO_SOURCE_PATHS	18

/* Frame.kind */
#define PERFETTO_KIND_NATIVE 1
#define PERFETTO_KIND_KERNEL 2

/*
 * The payload bytes of each FXT blob record: under FXT_MAX_BLOB_LEN, and a
 * record of 1 + 3 + 4000 words stays under the 12-bit size (and far under the
 * 32 KiB at which Perfetto's importer fails a whole file).
 */
#define PERFETTO_BLOB_CHUNK 32000
/* The name of those blob records. */
#define PERFETTO_BLOB_NAME "perfetto"

struct perfetto_mapping {
	uint64_t iid; /* 1.. */
	uint64_t build_id_iid;
	uint64_t path_iid;
	uint64_t start, end; /* end = start: no range (a kernel or a made-up mapping) */
	uint64_t start_offset;
};

struct perfetto_frame {
	uint64_t iid; /* 1.. */
	uint64_t function_name_iid;
	uint64_t mapping_iid;	  /* 0: no mapping (a "dummy" frame, name only) */
	uint64_t rel_pc;	  /* the pc from the mapping's start */
	uint64_t source_path_iid; /* 0: none */
	unsigned line;		  /* 0: none */
	unsigned kind;		  /* PERFETTO_KIND_*, 0: not said */
};

struct perfetto_sample {
	uint64_t ts_ns; /* BOOTTIME, as FXT's timestamps are to Perfetto */
	uint32_t pid, tid;
	bool has_cpu;
	uint32_t cpu;
	uint64_t callstack_iid;
	bool kernel_mode; /* the leaf frame is the kernel's */
};

/* Into an InternedData message being built (interned). */
void perfetto_intern_string(struct pbuf *interned, unsigned table, uint64_t iid, const char *s);
/* The same with bytes (a raw build id). */
void perfetto_intern_bytes(struct pbuf *interned, unsigned table, uint64_t iid, const void *data,
			   size_t len);
void perfetto_intern_mapping(struct pbuf *interned, const struct perfetto_mapping *m);
void perfetto_intern_frame(struct pbuf *interned, const struct perfetto_frame *f);
/* frames: frame iids root first (Perfetto's "bottom frame first"). */
void perfetto_intern_callstack(struct pbuf *interned, uint64_t iid, const uint64_t *frames,
			       size_t nr);

/*
 * One TracePacket into trace (as Trace.packet, field 1) on sequence seq
 * carrying interned (emptied). The first packet of a sequence clears its
 * incremental state; later ones need it.
 */
void perfetto_packet_interned(struct pbuf *trace, uint32_t seq, bool first, struct pbuf *interned);
/* One PerfSample packet; scratch is a buffer to reuse (emptied). */
void perfetto_packet_sample(struct pbuf *trace, uint32_t seq, const struct perfetto_sample *s,
			    struct pbuf *scratch);

/*
 * data as FXT blob records of type 3, PERFETTO_BLOB_CHUNK bytes each, appended
 * to out (the provider context of the file they are appended to stays).
 * 0, -ENOMEM.
 */
int perfetto_fxt_blobs(struct fxt_buf *out, const uint8_t *data, size_t len);

#endif /* FXS_DAEMON_REPORT_PERFETTO_TRACE_H */
