// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The FXT reader's decoder: one framed record's fields into struct
 * fxt_record, every size, ref, padding and reserved bit checked. Bit layouts:
 * shared/docs/fxt-format.md §1.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt_reader_internal.h"

/* The part of a record (or of one argument) being decoded. */
struct cursor {
	struct fxt_reader *r;
	const uint64_t *w;
	unsigned n;   /* words, header included */
	unsigned pos; /* next word */
	uint64_t offset;
	const char *unit; /* "record" or "argument", for messages */
};

static size_t pad_words(size_t len)
{
	return (len + 7) / 8;
}

static int cur_word(struct cursor *c, const char *what, uint64_t *ret)
{
	if (c->pos >= c->n)
		return fxt_reader_fail(c->r, c->offset, "%s overruns the %u-word %s", what, c->n,
				       c->unit);
	*ret = le64toh(c->w[c->pos++]);
	return 0;
}

/* A padded stream of len bytes: its bytes stay in the record buffer. */
static int cur_stream(struct cursor *c, size_t len, const char *what, const uint8_t **ret)
{
	size_t words = pad_words(len), i;
	const uint8_t *p;

	if (words > c->n - c->pos)
		return fxt_reader_fail(c->r, c->offset, "%s of %zu bytes overruns the %u-word %s",
				       what, len, c->n, c->unit);
	p = (const uint8_t *)(c->w + c->pos);
	for (i = len; i < words * 8; i++)
		if (p[i])
			return fxt_reader_fail(c->r, c->offset, "non-zero padding after %s", what);
	c->pos += words;
	*ret = p;
	return 0;
}

static char *arena_copy(struct fxt_reader *r, const uint8_t *s, size_t len)
{
	char *p;

	/* next() sized the arena for every inline byte of the record. */
	if (r->arena_len + len + 1 > r->arena_cap)
		return NULL;
	p = r->arena + r->arena_len;
	memcpy(p, s, len);
	p[len] = '\0';
	r->arena_len += len + 1;
	return p;
}

static int cur_inline(struct cursor *c, size_t len, const char *what, const char **ret)
{
	const uint8_t *p = NULL;
	char *copy;
	int err;

	err = cur_stream(c, len, what, &p);
	if (err)
		return err;
	copy = arena_copy(c->r, p, len);
	if (!copy)
		return fxt_reader_fail(c->r, c->offset, "too many strings in one record");
	*ret = copy;
	return 0;
}

/* Resolve a string ref (§1.5), reading its stream when inline. */
static int cur_sref(struct cursor *c, uint16_t ref, const char *what, const char **ret)
{
	struct fxt_provider *p = c->r->cur;

	if (!ref) {
		*ret = "";
		return 0;
	}
	if (ref & 0x8000)
		return cur_inline(c, ref & 0x7fff, what, ret);
	if (!p->strings || !p->strings[ref].s)
		return fxt_reader_fail(c->r, c->offset, "%s refers to undefined string index %u",
				       what, ref);
	*ret = p->strings[ref].s;
	return 0;
}

/* Resolve a thread ref (§1.5), reading process and thread koid when inline. */
static int cur_tref(struct cursor *c, unsigned ref, struct fxt_record *rec)
{
	struct fxt_rd_thread *t = &c->r->cur->threads[ref];
	int err;

	if (!ref) {
		err = cur_word(c, "process koid", &rec->pid);
		if (!err)
			err = cur_word(c, "thread koid", &rec->tid);
		return err;
	}
	if (!t->defined)
		return fxt_reader_fail(c->r, c->offset, "undefined thread index %u", ref);
	rec->pid = t->pid;
	rec->tid = t->tid;
	return 0;
}

static int check_zero(struct cursor *c, uint64_t header, uint64_t mask, const char *what)
{
	if (header & mask)
		return fxt_reader_fail(c->r, c->offset,
				       "reserved bits 0x%016" PRIx64 " of %s are not zero",
				       header & mask, what);
	return 0;
}

/* Bits lo..63 */
static uint64_t bits_from(unsigned lo)
{
	return ~0ULL << lo;
}

static int decode_arg(struct cursor *c, unsigned i, struct fxt_rd_arg *arg)
{
	struct cursor a = *c;
	uint64_t h = 0, size;
	bool known = true;
	int err;

	err = cur_word(c, "argument header", &h);
	if (err)
		return err;
	size = (h >> 4) & 0xfff;
	if (!size)
		return fxt_reader_fail(c->r, c->offset, "argument %u has size 0", i);
	if (size - 1 > c->n - c->pos)
		return fxt_reader_fail(c->r, c->offset,
				       "argument %u of %" PRIu64 " words overruns the record", i,
				       size);
	a.w = c->w + c->pos - 1;
	a.n = size;
	a.pos = 1;
	a.unit = "argument";
	c->pos += size - 1;

	arg->type = h & 0xf;
	err = cur_sref(&a, (h >> 16) & 0xffff, "argument name", &arg->name);
	if (err)
		return err;
	switch (arg->type) {
	case 0: /* null */
		err = check_zero(&a, h, bits_from(32), "a null argument");
		break;
	case FXT_ARG_INT32:
		arg->u = (uint64_t)(int64_t)(int32_t)(uint32_t)(h >> 32);
		break;
	case FXT_ARG_UINT32:
		arg->u = h >> 32;
		break;
	case FXT_ARG_INT64:
	case FXT_ARG_UINT64:
	case FXT_ARG_POINTER:
	case FXT_ARG_KOID:
	case FXT_ARG_DOUBLE:
		err = check_zero(&a, h, bits_from(32), "a 64-bit argument");
		if (!err)
			err = cur_word(&a, "argument value", &arg->u);
		if (!err && arg->type == FXT_ARG_DOUBLE)
			memcpy(&arg->d, &arg->u, sizeof(arg->d));
		break;
	case FXT_ARG_STRING:
		err = check_zero(&a, h, bits_from(48), "a string argument");
		if (!err)
			err = cur_sref(&a, (h >> 32) & 0xffff, "argument value", &arg->str);
		break;
	case FXT_ARG_BOOL:
		err = check_zero(&a, h, bits_from(33), "a bool argument");
		arg->u = (h >> 32) & 1;
		break;
	default:
		/* Unknown types (blob, future ones) are skipped by size. */
		known = false;
		break;
	}
	if (err)
		return err;
	if (known && a.pos != a.n)
		return fxt_reader_fail(c->r, c->offset, "argument %u is %u words, its contents %u",
				       i, a.n, a.pos);
	return 0;
}

static int decode_args(struct cursor *c, unsigned nr, struct fxt_record *rec)
{
	unsigned i;
	int err;

	for (i = 0; i < nr; i++) {
		err = decode_arg(c, i, &rec->args[i]);
		if (err)
			return err;
	}
	rec->nr_args = nr;
	return 0;
}

static int decode_metadata(struct cursor *c, struct fxt_record *rec)
{
	struct fxt_reader *r = c->r;
	uint64_t h = rec->header;
	struct fxt_provider *p;
	const char *name;
	char *copy;
	int err;

	rec->subtype = (h >> 16) & 0xf;
	switch (rec->subtype) {
	case FXT_META_PROVIDER_INFO:
		rec->provider_id = (h >> 20) & 0xffffffff;
		err = check_zero(c, h, bits_from(60), "a provider info record");
		if (!err)
			err = cur_inline(c, (h >> 52) & 0xff, "provider name", &name);
		if (err)
			return err;
		copy = strdup(name);
		p = fxt_reader_provider(r, rec->provider_id, true);
		if (!copy || !p) {
			free(copy);
			return fxt_reader_fail_errno(r, -ENOMEM, "provider info");
		}
		/* A provider info record starts the provider's context afresh. */
		fxt_provider_reset(p);
		free(p->name);
		p->name = copy;
		r->cur = p;
		rec->name = p->name;
		return 0;
	case FXT_META_PROVIDER_SECTION:
		rec->provider_id = (h >> 20) & 0xffffffff;
		err = check_zero(c, h, bits_from(52), "a provider section record");
		if (err)
			return err;
		p = fxt_reader_provider(r, rec->provider_id, false);
		if (!p)
			return fxt_reader_fail(r, c->offset,
					       "provider section for unannounced provider %" PRIu32,
					       rec->provider_id);
		r->cur = p;
		rec->name = p->name ? p->name : "";
		return 0;
	case FXT_META_PROVIDER_EVENT:
		rec->provider_id = (h >> 20) & 0xffffffff;
		rec->provider_event = (h >> 52) & 0xf;
		return check_zero(c, h, bits_from(56), "a provider event record");
	case FXT_META_TRACE_INFO:
		/* The magic record is trace info type 0 and not extensible. */
		if (((h >> 20) & 0xf) == 0 && h != FXT_MAGIC_WORD)
			return fxt_reader_fail(r, c->offset, "bad magic record 0x%016" PRIx64, h);
		return 0;
	default:
		return 0;
	}
}

static int decode_string(struct cursor *c, struct fxt_record *rec)
{
	struct fxt_provider *p = c->r->cur;
	uint64_t h = rec->header;
	size_t len = (h >> 32) & 0x7fff;
	const char *s;
	char *copy;
	int err;

	rec->index = (h >> 16) & 0x7fff;
	err = check_zero(c, h, 1ULL << 31 | bits_from(47), "a string record");
	if (err)
		return err;
	if (!rec->index)
		return fxt_reader_fail(c->r, c->offset, "string record with index 0");
	err = cur_inline(c, len, "string", &s);
	if (err)
		return err;
	if (!p->strings) {
		p->strings = calloc(FXT_MAX_STRING_INDEX + 1, sizeof(*p->strings));
		if (!p->strings)
			return fxt_reader_fail_errno(c->r, -ENOMEM, "string table");
	}
	copy = malloc(len + 1);
	if (!copy)
		return fxt_reader_fail_errno(c->r, -ENOMEM, "string table");
	memcpy(copy, s, len + 1);
	free(p->strings[rec->index].s);
	p->strings[rec->index].s = copy;
	p->strings[rec->index].len = len;
	rec->name = copy;
	return 0;
}

static int decode_thread(struct cursor *c, struct fxt_record *rec)
{
	struct fxt_rd_thread *t;
	uint64_t h = rec->header;
	int err;

	rec->index = (h >> 16) & 0xff;
	err = check_zero(c, h, bits_from(24), "a thread record");
	if (err)
		return err;
	if (!rec->index)
		return fxt_reader_fail(c->r, c->offset, "thread record with index 0");
	err = cur_word(c, "process koid", &rec->pid);
	if (!err)
		err = cur_word(c, "thread koid", &rec->tid);
	if (err)
		return err;
	t = &c->r->cur->threads[rec->index];
	t->pid = rec->pid;
	t->tid = rec->tid;
	t->defined = true;
	return 0;
}

static int decode_event(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	int err;

	rec->subtype = (h >> 16) & 0xf;
	err = cur_word(c, "timestamp", &rec->ts);
	if (!err)
		err = cur_tref(c, (h >> 24) & 0xff, rec);
	if (!err)
		err = cur_sref(c, (h >> 32) & 0xffff, "category", &rec->category);
	if (!err)
		err = cur_sref(c, (h >> 48) & 0xffff, "name", &rec->name);
	if (!err)
		err = decode_args(c, (h >> 20) & 0xf, rec);
	if (err)
		return err;
	switch (rec->subtype) {
	case 1: /* counter id */
	case 4: /* end time */
	case 5: /* async and flow correlation ids */
	case 6:
	case 7:
	case 8:
	case 9:
	case 10:
		return cur_word(c, "event's final word", &rec->counter_id);
	default:
		return 0;
	}
}

static int decode_kobj(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	unsigned i;
	int err;

	rec->subtype = (h >> 16) & 0xff;
	err = check_zero(c, h, bits_from(44), "a kernel object record");
	if (!err)
		err = cur_word(c, "koid", &rec->koid);
	if (!err)
		err = cur_sref(c, (h >> 24) & 0xffff, "name", &rec->name);
	if (!err)
		err = decode_args(c, (h >> 40) & 0xf, rec);
	if (err)
		return err;
	if (rec->subtype == FXT_OBJ_PROCESS) {
		rec->pid = rec->koid;
	} else if (rec->subtype == FXT_OBJ_THREAD) {
		rec->tid = rec->koid;
		for (i = 0; i < rec->nr_args; i++)
			if (rec->args[i].type == FXT_ARG_KOID &&
			    !strcmp(rec->args[i].name, "process"))
				rec->pid = rec->args[i].u;
	}
	return 0;
}

/*
 * The inline thread ref of a module or mmap record. Writers differ: the spec
 * and Fuchsia's C++ writer (and fxsampler before it used an index) store two
 * words, pid and tid = 0; one version of Fuchsia's Rust reader expects the pid
 * alone. The fields after it have a known size, so the record's size tells
 * which form it is; a size that fits neither is an error.
 */
static int cur_inline_process(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	unsigned rest;
	int err;

	if (rec->subtype == FXT_PROF_MODULE)
		rest = pad_words((h >> 44) & 0xff) + pad_words((h >> 52) & 0xff);
	else
		rest = 3; /* start, size, vaddr */
	if (c->n == c->pos + 1 + rest) {
		rec->tid = 0;
		return cur_word(c, "process koid", &rec->pid);
	}
	if (c->n == c->pos + 2 + rest) {
		err = cur_word(c, "process koid", &rec->pid);
		if (!err)
			err = cur_word(c, "thread koid", &rec->tid);
		return err;
	}
	return fxt_reader_fail(
		c->r, c->offset,
		"%s record of %u words with an inline thread ref: %u words hold pid only, "
		"%u pid and tid",
		rec->subtype == FXT_PROF_MODULE ? "module" : "mmap", c->n, c->pos + 1 + rest,
		c->pos + 2 + rest);
}

static int decode_profiler(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header, *frames;
	const uint8_t *bid = NULL;
	unsigned i;
	int err;

	rec->subtype = (h >> 16) & 0xf;
	if (rec->subtype > FXT_PROF_BACKTRACE)
		return 0;
	err = cur_word(c, "timestamp", &rec->ts);
	if (!err && rec->subtype != FXT_PROF_BACKTRACE && !((h >> 20) & 0xff))
		err = cur_inline_process(c, rec);
	else if (!err)
		err = cur_tref(c, (h >> 20) & 0xff, rec);
	if (err)
		return err;
	switch (rec->subtype) {
	case FXT_PROF_MODULE:
		rec->module_id = (h >> 28) & 0xffff;
		rec->build_id_len = (h >> 52) & 0xff;
		err = check_zero(c, h, bits_from(60), "a module record");
		if (!err)
			err = cur_inline(c, (h >> 44) & 0xff, "module name", &rec->name);
		if (!err)
			err = cur_stream(c, rec->build_id_len, "build id", &bid);
		if (!err)
			rec->build_id = bid;
		return err;
	case FXT_PROF_MMAP:
		rec->module_id = (h >> 28) & 0xffff;
		rec->mmap_flags = (h >> 44) & 0x7;
		err = check_zero(c, h, bits_from(47), "an mmap record");
		if (!err)
			err = cur_word(c, "start", &rec->start);
		if (!err)
			err = cur_word(c, "size", &rec->size);
		if (!err)
			err = cur_word(c, "vaddr", &rec->vaddr);
		return err;
	default:
		rec->nr_frames = (h >> 28) & 0xff;
		rec->bt_flags = h >> FXT_BT_FLAGS_SHIFT;
		if (rec->nr_frames != c->n - c->pos)
			return fxt_reader_fail(c->r, c->offset,
					       "backtrace of %u frames has %u words of frames",
					       rec->nr_frames, c->n - c->pos);
		/* The record buffer is ours: convert the frames in place. */
		frames = (uint64_t *)(c->w + c->pos);
		for (i = 0; i < rec->nr_frames; i++)
			frames[i] = le64toh(frames[i]);
		rec->frames = frames;
		c->pos = c->n;
		return 0;
	}
}

/* A blob record: its name and payload (blob records name no thread). */
static int decode_blob(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	int err;

	rec->blob_len = (h >> 32) & 0x7fff;
	rec->blob_type = (h >> 48) & 0xff;
	err = check_zero(c, h, 1ULL << 47 | bits_from(56), "a blob record");
	if (!err)
		err = cur_sref(c, (h >> 16) & 0xffff, "blob name", &rec->name);
	if (!err)
		err = cur_stream(c, rec->blob_len, "blob payload", &rec->blob);
	return err;
}

/* Context switches and wakeups; the legacy context switch is skipped. */
static int decode_sched(struct cursor *c, struct fxt_record *rec)
{
	uint64_t h = rec->header;
	int err;

	rec->subtype = h >> 60;
	if (rec->subtype != FXT_SCHED_CONTEXT_SWITCH && rec->subtype != FXT_SCHED_THREAD_WAKEUP)
		return 0;
	rec->cpu = (h >> 20) & 0xffff;
	if (rec->subtype == FXT_SCHED_CONTEXT_SWITCH) {
		rec->out_state = (h >> 36) & 0xf;
		err = check_zero(c, h, bits_from(40) & ~(0xfULL << 60), "a context switch record");
		if (!err)
			err = cur_word(c, "timestamp", &rec->ts);
		if (!err)
			err = cur_word(c, "outgoing thread", &rec->out_tid);
		if (!err)
			err = cur_word(c, "incoming thread", &rec->in_tid);
	} else {
		err = check_zero(c, h, bits_from(36) & ~(0xfULL << 60), "a wakeup record");
		if (!err)
			err = cur_word(c, "timestamp", &rec->ts);
		if (!err)
			err = cur_word(c, "waking thread", &rec->in_tid);
	}
	if (!err)
		err = decode_args(c, (h >> 16) & 0xf, rec);
	return err;
}

int fxt_decode(struct fxt_reader *r, struct fxt_record *rec)
{
	struct cursor c = {
		.r = r,
		.w = r->words,
		.n = rec->words,
		.pos = 1,
		.offset = rec->offset,
		.unit = "record",
	};
	uint64_t h = rec->header;

	switch (rec->type) {
	case FXT_RT_METADATA:
		return decode_metadata(&c, rec);
	case FXT_RT_INIT:
		if (check_zero(&c, h, bits_from(16), "an initialization record") ||
		    cur_word(&c, "ticks per second", &rec->ticks_per_second))
			return r->err;
		if (!rec->ticks_per_second)
			return fxt_reader_fail(r, rec->offset, "zero ticks per second");
		r->cur->ticks_per_second = rec->ticks_per_second;
		return 0;
	case FXT_RT_STRING:
		return decode_string(&c, rec);
	case FXT_RT_THREAD:
		return decode_thread(&c, rec);
	case FXT_RT_EVENT:
		return decode_event(&c, rec);
	case FXT_RT_KOBJ:
		return decode_kobj(&c, rec);
	case FXT_RT_PROFILER:
		return decode_profiler(&c, rec);
	case FXT_RT_SCHED:
		return decode_sched(&c, rec);
	case FXT_RT_BLOB:
		return decode_blob(&c, rec);
	default:
		/* Userspace object, log, unassigned: skipped. */
		return 0;
	}
}
