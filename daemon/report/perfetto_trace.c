// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Perfetto's TracePackets by hand (util/pbuf.h), and their FXT blob records. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fxt/fxt.h"
#include "report/perfetto_trace.h"

/* Field numbers of protos/perfetto/trace (Perfetto v58.2). */
enum {
	TRACE_PACKET = 1,
	TP_TIMESTAMP = 8,
	TP_SEQUENCE_ID = 10, /* trusted_packet_sequence_id */
	TP_INTERNED_DATA = 12,
	TP_SEQUENCE_FLAGS = 13,
	TP_PERF_SAMPLE = 66,
	TP_FIRST_PACKET_ON_SEQUENCE = 87,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,
	ID_MAPPINGS = 19,
	ID_FRAMES = 6,
	ID_CALLSTACKS = 7,
	PS_CPU = 1,
	PS_PID = 2,
	PS_TID = 3,
	PS_CALLSTACK_IID = 4,
	PS_CPU_MODE = 5,
	MODE_KERNEL = 1, /* Profiling.CpuMode */
	MODE_USER = 2,
};

void perfetto_intern_string(struct pbuf *interned, unsigned table, uint64_t iid, const char *s)
{
	perfetto_intern_bytes(interned, table, iid, s, strlen(s));
}

void perfetto_intern_bytes(struct pbuf *interned, unsigned table, uint64_t iid, const void *data,
			   size_t len)
{
	struct pbuf m = {};

	pb_uint(&m, 1, iid);
	pb_len(&m, 2, data, len);
	pb_msg(interned, table, &m);
	pbuf_free(&m);
}

void perfetto_intern_mapping(struct pbuf *interned, const struct perfetto_mapping *mp)
{
	struct pbuf m = {};

	pb_uint(&m, 1, mp->iid);
	pb_uint(&m, 2, mp->build_id_iid);
	pb_uint(&m, 3, mp->start_offset);
	pb_uint(&m, 4, mp->start);
	pb_uint(&m, 5, mp->end);
	if (mp->path_iid)
		pb_uint(&m, 7, mp->path_iid);
	pb_msg(interned, ID_MAPPINGS, &m);
	pbuf_free(&m);
}

void perfetto_intern_frame(struct pbuf *interned, const struct perfetto_frame *f)
{
	struct pbuf m = {};

	pb_uint(&m, 1, f->iid);
	pb_uint(&m, 2, f->function_name_iid);
	pb_uint(&m, 3, f->mapping_iid);
	/* rel_pc must be there when the mapping is, even 0 */
	if (f->mapping_iid)
		pb_uint_always(&m, 4, f->rel_pc);
	pb_uint(&m, 5, f->source_path_iid);
	pb_uint(&m, 6, f->line);
	pb_uint(&m, 7, f->kind);
	pb_msg(interned, ID_FRAMES, &m);
	pbuf_free(&m);
}

void perfetto_intern_callstack(struct pbuf *interned, uint64_t iid, const uint64_t *frames,
			       size_t nr)
{
	struct pbuf m = {};
	size_t i;

	pb_uint(&m, 1, iid);
	/* proto2's repeated frame_ids is not packed: Perfetto's decoder wants one field each */
	for (i = 0; i < nr; i++)
		pb_uint_always(&m, 2, frames[i]);
	pb_msg(interned, ID_CALLSTACKS, &m);
	pbuf_free(&m);
}

void perfetto_packet_interned(struct pbuf *trace, uint32_t seq, bool first, struct pbuf *interned)
{
	struct pbuf p = {};

	pb_uint(&p, TP_SEQUENCE_ID, seq);
	pb_uint(&p, TP_SEQUENCE_FLAGS,
		first ? SEQ_INCREMENTAL_STATE_CLEARED : SEQ_NEEDS_INCREMENTAL_STATE);
	if (first)
		pb_uint(&p, TP_FIRST_PACKET_ON_SEQUENCE, 1);
	pb_msg(&p, TP_INTERNED_DATA, interned);
	pb_msg(trace, TRACE_PACKET, &p);
	pbuf_free(&p);
}

void perfetto_packet_sample(struct pbuf *trace, uint32_t seq, const struct perfetto_sample *s,
			    struct pbuf *scratch)
{
	struct pbuf sample = {};

	if (s->has_cpu)
		pb_uint_always(&sample, PS_CPU, s->cpu);
	pb_uint_always(&sample, PS_PID, s->pid);
	pb_uint_always(&sample, PS_TID, s->tid);
	pb_uint(&sample, PS_CALLSTACK_IID, s->callstack_iid);
	pb_uint(&sample, PS_CPU_MODE, s->kernel_mode ? MODE_KERNEL : MODE_USER);
	scratch->len = 0;
	pb_uint_always(scratch, TP_TIMESTAMP, s->ts_ns);
	pb_uint(scratch, TP_SEQUENCE_ID, seq);
	pb_uint(scratch, TP_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	pb_msg(scratch, TP_PERF_SAMPLE, &sample);
	pb_msg(trace, TRACE_PACKET, scratch);
	pbuf_free(&sample);
}

int perfetto_fxt_blobs(struct fxt_buf *out, const uint8_t *data, size_t len)
{
	struct fxt_sref name = {.s = PERFETTO_BLOB_NAME, .len = strlen(PERFETTO_BLOB_NAME)};
	size_t off, n;
	int err = 0;

	for (off = 0; off < len && !err; off += n) {
		n = len - off < PERFETTO_BLOB_CHUNK ? len - off : PERFETTO_BLOB_CHUNK;
		err = fxt_put_blob(out, name, FXT_BLOB_PERFETTO, data + off, n);
	}
	return err ? err : out->err;
}
