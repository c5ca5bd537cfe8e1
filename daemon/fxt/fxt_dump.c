// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `fxsampler dump`'s text: a decoded record (fxt_reader.h) as one line, its
 * offset first, strings quoted and escaped, every field the reader decoded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include <string.h>

#include "fxt/fxt_dump.h"
#include "fxt/fxt_kstack.h"

struct out {
	char *buf;
	size_t size;
	size_t len; /* as if size were unlimited */
};

__attribute__((format(printf, 2, 3))) static void out_printf(struct out *o, const char *fmt, ...)
{
	size_t room = o->len < o->size ? o->size - o->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += n;
}

/* Printable ASCII as is, backslash and quote escaped, anything else as \xNN. */
static void out_escaped(struct out *o, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			out_printf(o, "\\%c", *p);
		else if (*p >= 0x20 && *p < 0x7f)
			out_printf(o, "%c", *p);
		else
			out_printf(o, "\\x%02x", *p);
	}
}

static void out_quoted(struct out *o, const char *key, const char *s)
{
	out_printf(o, " %s=\"", key);
	out_escaped(o, s);
	out_printf(o, "\"");
}

static void out_args(struct out *o, const struct fxt_record *rec)
{
	const struct fxt_rd_arg *a;
	unsigned i;

	for (i = 0; i < rec->nr_args; i++) {
		a = &rec->args[i];
		out_printf(o, " ");
		out_escaped(o, a->name);
		switch (a->type) {
		case 0:
			out_printf(o, "=null");
			break;
		case FXT_ARG_INT32:
		case FXT_ARG_INT64:
			out_printf(o, "=%" PRId64, (int64_t)a->u);
			break;
		case FXT_ARG_UINT32:
		case FXT_ARG_UINT64:
		case FXT_ARG_KOID:
			out_printf(o, "=%" PRIu64, a->u);
			break;
		case FXT_ARG_DOUBLE:
			out_printf(o, "=%g", a->d);
			break;
		case FXT_ARG_STRING:
			out_printf(o, "=\"");
			out_escaped(o, a->str);
			out_printf(o, "\"");
			break;
		case FXT_ARG_POINTER:
			out_printf(o, "=0x%" PRIx64, a->u);
			break;
		case FXT_ARG_BOOL:
			out_printf(o, "=%s", a->u ? "true" : "false");
			break;
		default:
			out_printf(o, "=<type %u>", a->type);
			break;
		}
	}
}

static void format_metadata(struct out *o, const struct fxt_record *rec)
{
	switch (rec->subtype) {
	case FXT_META_PROVIDER_INFO:
		out_printf(o, "provider id=%" PRIu32, rec->provider_id);
		out_quoted(o, "name", rec->name);
		break;
	case FXT_META_PROVIDER_SECTION:
		out_printf(o, "provider_section id=%" PRIu32, rec->provider_id);
		break;
	case FXT_META_PROVIDER_EVENT:
		out_printf(o, "provider_event id=%" PRIu32 " event=%u%s", rec->provider_id,
			   rec->provider_event,
			   rec->provider_event == FXT_PROVIDER_EVENT_DROPPED ? " (records dropped)"
									     : "");
		break;
	case FXT_META_TRACE_INFO:
		if (rec->header == FXT_MAGIC_WORD)
			out_printf(o, "magic");
		else
			out_printf(o, "trace_info type=%u", (unsigned)(rec->header >> 20) & 0xf);
		break;
	default:
		out_printf(o, "metadata type=%u", rec->subtype);
		break;
	}
}

static void format_event(struct out *o, const struct fxt_record *rec)
{
	static const char *const names[] = {
		"instant",	     "counter",	    "duration_begin", "duration_end",
		"duration_complete", "async_begin", "async_instant",  "async_end",
		"flow_begin",	     "flow_step",   "flow_end",
	};

	if (rec->subtype < sizeof(names) / sizeof(names[0]))
		out_printf(o, "%s", names[rec->subtype]);
	else
		out_printf(o, "event type=%u", rec->subtype);
	out_printf(o, " ts=%" PRIu64 " pid=%" PRIu64 " tid=%" PRIu64, rec->ts, rec->pid, rec->tid);
	out_quoted(o, "category", rec->category);
	out_quoted(o, "name", rec->name);
	switch (rec->subtype) {
	case FXT_EVENT_COUNTER:
		out_printf(o, " id=%" PRIu64, rec->counter_id);
		break;
	case 4:
		out_printf(o, " end=%" PRIu64, rec->counter_id);
		break;
	case 5:
	case 6:
	case 7:
	case 8:
	case 9:
	case 10:
		out_printf(o, " id=%" PRIu64, rec->counter_id);
		break;
	}
	out_args(o, rec);
}

static void format_kobj(struct out *o, const struct fxt_record *rec)
{
	if (rec->subtype == FXT_OBJ_PROCESS)
		out_printf(o, "kobj process");
	else if (rec->subtype == FXT_OBJ_THREAD)
		out_printf(o, "kobj thread");
	else
		out_printf(o, "kobj type=%u", rec->subtype);
	out_printf(o, " koid=%" PRIu64, rec->koid);
	out_quoted(o, "name", rec->name);
	out_args(o, rec);
}

static void format_profiler(struct out *o, const struct fxt_record *rec)
{
	size_t i;

	switch (rec->subtype) {
	case FXT_PROF_MODULE:
		out_printf(o, "module ts=%" PRIu64 " pid=%" PRIu64 " id=%u", rec->ts, rec->pid,
			   rec->module_id);
		out_quoted(o, "name", rec->name);
		out_printf(o, " build_id=");
		for (i = 0; i < rec->build_id_len; i++)
			out_printf(o, "%02x", rec->build_id[i]);
		break;
	case FXT_PROF_MMAP:
		out_printf(o,
			   "mmap ts=%" PRIu64 " pid=%" PRIu64 " id=%u start=0x%" PRIx64
			   " size=0x%" PRIx64 " vaddr=0x%" PRIx64 " flags=0x%x",
			   rec->ts, rec->pid, rec->module_id, rec->start, rec->size, rec->vaddr,
			   rec->mmap_flags);
		break;
	case FXT_PROF_BACKTRACE:
		out_printf(o,
			   "backtrace ts=%" PRIu64 " pid=%" PRIu64 " tid=%" PRIu64
			   " frames=%u flags=0x%x",
			   rec->ts, rec->pid, rec->tid, rec->nr_frames, rec->bt_flags);
		if (rec->bt_flags & FXT_BT_FLAG_HAS_CPU)
			out_printf(o, " cpu=%u", FXT_BT_GET_CPU(rec->bt_flags));
		for (i = 0; i < rec->nr_frames; i++)
			out_printf(o, " 0x%" PRIx64, rec->frames[i]);
		break;
	default:
		out_printf(o, "profiler type=%u words=%u", rec->subtype, rec->words);
		break;
	}
}

static void format_sched(struct out *o, const struct fxt_record *rec)
{
	if (rec->subtype == FXT_SCHED_CONTEXT_SWITCH)
		out_printf(o, "cswitch ts=%" PRIu64 " cpu=%u out=%" PRIu64 " state=%u in=%" PRIu64,
			   rec->ts, rec->cpu, rec->out_tid, rec->out_state, rec->in_tid);
	else if (rec->subtype == FXT_SCHED_THREAD_WAKEUP)
		out_printf(o, "wakeup ts=%" PRIu64 " cpu=%u tid=%" PRIu64, rec->ts, rec->cpu,
			   rec->in_tid);
	else
		out_printf(o, "sched type=%u words=%u (skipped)", rec->subtype, rec->words);
	out_args(o, rec);
}

/* A blob; fxsampler's kernel stacks decoded, its text blobs by their line count. */
static void format_blob(struct out *o, const struct fxt_record *rec)
{
	uint64_t ts, tid;
	unsigned nr, i, lines = 0;

	out_printf(o, "blob");
	out_quoted(o, "name", rec->name);
	out_printf(o, " type=%u bytes=%zu", rec->blob_type, rec->blob_len);
	if (!rec->name || !rec->blob)
		return;
	if (!strcmp(rec->name, FXT_KSTACK_BLOB) &&
	    fxt_kstack_decode(rec->blob, rec->blob_len, &ts, &tid, &nr)) {
		out_printf(o, " kstack ts=%" PRIu64 " tid=%" PRIu64 " kframes=%u", ts, tid, nr);
		for (i = 0; i < nr; i++)
			out_printf(o, " k%" PRIu32, fxt_kstack_id(rec->blob, i));
	} else if (!strcmp(rec->name, FXT_KSYMS_BLOB) || !strcmp(rec->name, FXT_KERNEL_BLOB)) {
		for (i = 0; i < rec->blob_len; i++)
			lines += rec->blob[i] == '\n';
		out_printf(o, " lines=%u", lines);
	}
}

int fxt_record_format(const struct fxt_record *rec, char *buf, size_t size)
{
	struct out o = {.buf = buf, .size = size};

	if (!rec || (!buf && size))
		return -EINVAL;
	if (size)
		buf[0] = '\0';
	out_printf(&o, "0x%08" PRIx64 " ", rec->offset);
	switch (rec->type) {
	case FXT_RT_METADATA:
		format_metadata(&o, rec);
		break;
	case FXT_RT_INIT:
		out_printf(&o, "init ticks_per_second=%" PRIu64, rec->ticks_per_second);
		break;
	case FXT_RT_STRING:
		out_printf(&o, "string index=%u \"", rec->index);
		out_escaped(&o, rec->name);
		out_printf(&o, "\"");
		break;
	case FXT_RT_THREAD:
		out_printf(&o, "thread index=%u pid=%" PRIu64 " tid=%" PRIu64, rec->index, rec->pid,
			   rec->tid);
		break;
	case FXT_RT_EVENT:
		format_event(&o, rec);
		break;
	case FXT_RT_KOBJ:
		format_kobj(&o, rec);
		break;
	case FXT_RT_PROFILER:
		format_profiler(&o, rec);
		break;
	case FXT_RT_SCHED:
		format_sched(&o, rec);
		break;
	case FXT_RT_BLOB:
		format_blob(&o, rec);
		break;
	case FXT_RT_LARGE:
		out_printf(&o, "large type=%u words=%u (skipped)",
			   (unsigned)(rec->header >> 36) & 0xf, rec->words);
		break;
	default:
		out_printf(&o, "record type=%u words=%u (skipped)", rec->type, rec->words);
		break;
	}
	return o.len > INT32_MAX ? -EOVERFLOW : (int)o.len;
}
