/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Fuchsia Trace Format record encoders (the stream over them is fxt_stream.c).
 * The bit layouts are those of shared/docs/fxt-format.md §1; the section
 * numbers below refer to it.
 *
 * Every fxt_put_*() sizes and validates its record completely before it writes
 * a byte, so a record is either appended whole or not at all.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"

static size_t pad_words(size_t len)
{
	return (len + 7) / 8;
}

void fxt_buf_free(struct fxt_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->err = 0;
}

/* Make room for a whole record up front so the put_*() below cannot fail. */
static int buf_reserve(struct fxt_buf *b, size_t words)
{
	size_t need, cap;
	uint8_t *tmp;

	if (b->err)
		return b->err;
	need = b->len + words * 8;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap *= 2;
	tmp = realloc(b->data, cap);
	if (!tmp) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->data = tmp;
	b->cap = cap;
	return 0;
}

static void put_word(struct fxt_buf *b, uint64_t w)
{
	w = htole64(w);
	memcpy(b->data + b->len, &w, sizeof(w));
	b->len += sizeof(w);
}

/* A stream is its bytes zero-padded to the next word boundary (§1.1). */
static void put_stream(struct fxt_buf *b, const void *data, size_t len)
{
	size_t padded = pad_words(len) * 8;

	if (len)
		memcpy(b->data + b->len, data, len);
	memset(b->data + b->len + len, 0, padded - len);
	b->len += padded;
}

static bool sref_is_inline(const struct fxt_sref *r)
{
	return !r->index && r->s && r->len;
}

/*
 * The 16-bit header field of a string ref (§1.5). An inline string of length 0
 * is written as the empty ref 0: both mean "", and 0 stores nothing.
 */
static int sref_field(const struct fxt_sref *r, uint16_t *ret_field)
{
	if (r->index) {
		if (r->index > FXT_MAX_STRING_INDEX)
			return -EINVAL;
		*ret_field = r->index;
		return 0;
	}
	if (!sref_is_inline(r)) {
		*ret_field = 0;
		return 0;
	}
	if (r->len > FXT_MAX_INLINE_STRING)
		return -EINVAL;
	*ret_field = 0x8000 | r->len;
	return 0;
}

static size_t sref_words(const struct fxt_sref *r)
{
	return sref_is_inline(r) ? pad_words(r->len) : 0;
}

static void put_sref(struct fxt_buf *b, const struct fxt_sref *r)
{
	if (sref_is_inline(r))
		put_stream(b, r->s, r->len);
}

/* An inline thread ref stores process koid then thread koid in the body (§1.5). */
static size_t tref_words(const struct fxt_tref *t)
{
	return t->index ? 0 : 2;
}

static void put_tref(struct fxt_buf *b, const struct fxt_tref *t)
{
	if (t->index)
		return;
	put_word(b, t->pid);
	put_word(b, t->tid);
}

/* The argument header (§1.11) and the argument's size in words. */
static int arg_header(const struct fxt_arg *a, uint64_t *ret_header, size_t *ret_words)
{
	uint16_t name, str;
	uint64_t value = 0;
	size_t words;
	int err;

	err = sref_field(&a->name, &name);
	if (err)
		return err;
	words = 1 + sref_words(&a->name);
	switch (a->type) {
	case 0: /* null */
		break;
	case FXT_ARG_INT32:
		if ((int64_t)a->u < INT32_MIN || (int64_t)a->u > INT32_MAX)
			return -EINVAL;
		value = a->u & 0xffffffff;
		break;
	case FXT_ARG_UINT32:
		if (a->u > UINT32_MAX)
			return -EINVAL;
		value = a->u;
		break;
	case FXT_ARG_INT64:
	case FXT_ARG_UINT64:
	case FXT_ARG_DOUBLE:
	case FXT_ARG_POINTER:
	case FXT_ARG_KOID:
		words++;
		break;
	case FXT_ARG_STRING:
		err = sref_field(&a->str, &str);
		if (err)
			return err;
		value = str;
		words += sref_words(&a->str);
		break;
	case FXT_ARG_BOOL:
		value = a->u ? 1 : 0;
		break;
	default:
		return -EINVAL;
	}
	if (words > FXT_MAX_RECORD_WORDS)
		return -EINVAL;
	*ret_header = a->type | (uint64_t)words << 4 | (uint64_t)name << 16 | value << 32;
	*ret_words = words;
	return 0;
}

static int args_words(const struct fxt_arg *args, unsigned nr_args, size_t *ret_words)
{
	size_t words = 0, w;
	uint64_t header;
	unsigned i;
	int err;

	/* The argument count is a 4-bit field in every record that has one. */
	if (nr_args > 15 || (nr_args && !args))
		return -EINVAL;
	for (i = 0; i < nr_args; i++) {
		err = arg_header(&args[i], &header, &w);
		if (err)
			return err;
		words += w;
	}
	*ret_words = words;
	return 0;
}

static void put_args(struct fxt_buf *b, const struct fxt_arg *args, unsigned nr_args)
{
	uint64_t header = 0, bits;
	unsigned i;
	size_t w;

	for (i = 0; i < nr_args; i++) {
		const struct fxt_arg *a = &args[i];

		/* Cannot fail: args_words() checked every argument. */
		arg_header(a, &header, &w);
		put_word(b, header);
		put_sref(b, &a->name);
		switch (a->type) {
		case FXT_ARG_INT64:
		case FXT_ARG_UINT64:
		case FXT_ARG_POINTER:
		case FXT_ARG_KOID:
			put_word(b, a->u);
			break;
		case FXT_ARG_DOUBLE:
			memcpy(&bits, &a->d, sizeof(bits));
			put_word(b, bits);
			break;
		case FXT_ARG_STRING:
			put_sref(b, &a->str);
			break;
		default:
			break;
		}
	}
}

/* Sizes every record shares: the 12-bit size field holds at most 4095. */
static int record_begin(struct fxt_buf *b, size_t words)
{
	if (words > FXT_MAX_RECORD_WORDS)
		return -EINVAL;
	return buf_reserve(b, words);
}

int fxt_put_magic(struct fxt_buf *b)
{
	int err = record_begin(b, 1);

	if (err)
		return err;
	put_word(b, FXT_MAGIC_WORD);
	return 0;
}

int fxt_put_provider_info(struct fxt_buf *b, uint32_t id, const char *name)
{
	size_t len = name ? strlen(name) : 0, words = 1 + pad_words(len);
	int err;

	if (len > FXT_MAX_SHORT_NAME)
		return -EINVAL;
	err = record_begin(b, words);
	if (err)
		return err;
	put_word(b, FXT_RT_METADATA | words << 4 | (uint64_t)FXT_META_PROVIDER_INFO << 16 |
			    (uint64_t)id << 20 | (uint64_t)len << 52);
	put_stream(b, name, len);
	return 0;
}

int fxt_put_provider_section(struct fxt_buf *b, uint32_t id)
{
	int err = record_begin(b, 1);

	if (err)
		return err;
	put_word(b, FXT_RT_METADATA | 1 << 4 | (uint64_t)FXT_META_PROVIDER_SECTION << 16 |
			    (uint64_t)id << 20);
	return 0;
}

int fxt_put_provider_event(struct fxt_buf *b, uint32_t id, unsigned event)
{
	int err;

	if (event > 15)
		return -EINVAL;
	err = record_begin(b, 1);
	if (err)
		return err;
	put_word(b, FXT_RT_METADATA | 1 << 4 | (uint64_t)FXT_META_PROVIDER_EVENT << 16 |
			    (uint64_t)id << 20 | (uint64_t)event << 52);
	return 0;
}

int fxt_put_init(struct fxt_buf *b, uint64_t ticks_per_second)
{
	int err;

	if (!ticks_per_second)
		return -EINVAL;
	err = record_begin(b, 2);
	if (err)
		return err;
	put_word(b, FXT_RT_INIT | 2 << 4);
	put_word(b, ticks_per_second);
	return 0;
}

int fxt_put_string(struct fxt_buf *b, uint16_t index, const char *s, size_t len)
{
	size_t words = 1 + pad_words(len);
	int err;

	if (!index || index > FXT_MAX_STRING_INDEX || len > FXT_MAX_INLINE_STRING || (len && !s))
		return -EINVAL;
	err = record_begin(b, words);
	if (err)
		return err;
	put_word(b, FXT_RT_STRING | words << 4 | (uint64_t)index << 16 | (uint64_t)len << 32);
	put_stream(b, s, len);
	return 0;
}

int fxt_put_thread(struct fxt_buf *b, uint8_t index, uint64_t pid, uint64_t tid)
{
	int err;

	if (!index)
		return -EINVAL;
	err = record_begin(b, 3);
	if (err)
		return err;
	put_word(b, FXT_RT_THREAD | 3 << 4 | (uint64_t)index << 16);
	put_word(b, pid);
	put_word(b, tid);
	return 0;
}

int fxt_put_kobj(struct fxt_buf *b, unsigned obj_type, uint64_t koid, struct fxt_sref name,
		 const struct fxt_arg *args, unsigned nr_args)
{
	size_t words, argw;
	uint16_t nref;
	int err;

	if (obj_type > 0xff)
		return -EINVAL;
	err = sref_field(&name, &nref);
	if (err)
		return err;
	err = args_words(args, nr_args, &argw);
	if (err)
		return err;
	words = 2 + sref_words(&name) + argw;
	err = record_begin(b, words);
	if (err)
		return err;
	put_word(b, FXT_RT_KOBJ | words << 4 | (uint64_t)obj_type << 16 | (uint64_t)nref << 24 |
			    (uint64_t)nr_args << 40);
	put_word(b, koid);
	put_sref(b, &name);
	put_args(b, args, nr_args);
	return 0;
}

/* Words after the arguments, by event type (§1.10); -1 for an unassigned type. */
static int event_tail_words(unsigned event_type)
{
	switch (event_type) {
	case 0: /* instant */
	case 2: /* duration begin */
	case 3: /* duration end */
		return 0;
	case 1: /* counter: id */
	case 4: /* duration complete: end time */
	case 5: /* async begin, instant, end: correlation id */
	case 6:
	case 7:
	case 8: /* flow begin, step, end: correlation id */
	case 9:
	case 10:
		return 1;
	default:
		return -1;
	}
}

int fxt_put_event(struct fxt_buf *b, unsigned event_type, uint64_t ts, struct fxt_tref thread,
		  struct fxt_sref category, struct fxt_sref name, const struct fxt_arg *args,
		  unsigned nr_args, uint64_t counter_id)
{
	int tail = event_tail_words(event_type), err;
	uint16_t cref, nref;
	size_t words, argw;

	if (tail < 0)
		return -EINVAL;
	err = sref_field(&category, &cref);
	if (!err)
		err = sref_field(&name, &nref);
	if (!err)
		err = args_words(args, nr_args, &argw);
	if (err)
		return err;
	words = 2 + tref_words(&thread) + sref_words(&category) + sref_words(&name) + argw + tail;
	err = record_begin(b, words);
	if (err)
		return err;
	put_word(b, FXT_RT_EVENT | words << 4 | (uint64_t)event_type << 16 |
			    (uint64_t)nr_args << 20 | (uint64_t)thread.index << 24 |
			    (uint64_t)cref << 32 | (uint64_t)nref << 48);
	put_word(b, ts);
	put_tref(b, &thread);
	put_sref(b, &category);
	put_sref(b, &name);
	put_args(b, args, nr_args);
	if (tail)
		put_word(b, counter_id);
	return 0;
}

int fxt_put_module(struct fxt_buf *b, uint64_t ts, struct fxt_tref thread, uint16_t module_id,
		   const char *name, size_t name_len, const uint8_t *build_id, size_t build_id_len)
{
	size_t words;
	int err;

	if (name_len > FXT_MAX_SHORT_NAME || build_id_len > FXT_MAX_SHORT_NAME ||
	    (name_len && !name) || (build_id_len && !build_id))
		return -EINVAL;
	words = 2 + tref_words(&thread) + pad_words(name_len) + pad_words(build_id_len);
	err = record_begin(b, words);
	if (err)
		return err;
	put_word(b, FXT_RT_PROFILER | words << 4 | (uint64_t)FXT_PROF_MODULE << 16 |
			    (uint64_t)thread.index << 20 | (uint64_t)module_id << 28 |
			    (uint64_t)name_len << 44 | (uint64_t)build_id_len << 52);
	put_word(b, ts);
	put_tref(b, &thread);
	put_stream(b, name, name_len);
	put_stream(b, build_id, build_id_len);
	return 0;
}

int fxt_put_mmap(struct fxt_buf *b, uint64_t ts, struct fxt_tref thread, uint16_t module_id,
		 unsigned flags, uint64_t start, uint64_t size, uint64_t vaddr)
{
	size_t words = 5 + tref_words(&thread);
	int err;

	/* Three bits: ELF p_flags PF_X/PF_W/PF_R (§3.5). */
	if (flags > 7)
		return -EINVAL;
	err = record_begin(b, words);
	if (err)
		return err;
	put_word(b, FXT_RT_PROFILER | words << 4 | (uint64_t)FXT_PROF_MMAP << 16 |
			    (uint64_t)thread.index << 20 | (uint64_t)module_id << 28 |
			    (uint64_t)flags << 44);
	put_word(b, ts);
	put_tref(b, &thread);
	put_word(b, start);
	put_word(b, size);
	put_word(b, vaddr);
	return 0;
}

int fxt_put_backtrace(struct fxt_buf *b, uint64_t ts, struct fxt_tref thread, unsigned bt_flags,
		      const uint64_t *frames, unsigned nr_frames)
{
	size_t words;
	unsigned i;
	int err;

	/*
	 * The count is 8 bits and readers derive it from the size too: a record
	 * with more frames than the field holds would be misread (§2).
	 */
	if (!nr_frames || nr_frames > 255 || !frames || (bt_flags & ~FXT_BT_FLAGS_KNOWN))
		return -EINVAL;
	words = 2 + tref_words(&thread) + nr_frames;
	err = record_begin(b, words);
	if (err)
		return err;
	put_word(b, FXT_RT_PROFILER | words << 4 | (uint64_t)FXT_PROF_BACKTRACE << 16 |
			    (uint64_t)thread.index << 20 | (uint64_t)nr_frames << 28 |
			    (uint64_t)bt_flags << FXT_BT_FLAGS_SHIFT);
	put_word(b, ts);
	put_tref(b, &thread);
	for (i = 0; i < nr_frames; i++)
		put_word(b, frames[i]);
	return 0;
}

/* A blob record's header and name, room made for its len bytes of payload. */
static int blob_begin(struct fxt_buf *b, struct fxt_sref *name, unsigned blob_type, size_t len)
{
	uint16_t nfield;
	size_t words;
	int err;

	err = sref_field(name, &nfield);
	if (err)
		return err;
	words = 1 + sref_words(name) + pad_words(len);
	err = record_begin(b, words);
	if (err)
		return err;
	put_word(b, FXT_RT_BLOB | words << 4 | (uint64_t)nfield << 16 | (uint64_t)len << 32 |
			    (uint64_t)blob_type << 48);
	put_sref(b, name);
	return 0;
}

int fxt_put_blob(struct fxt_buf *b, struct fxt_sref name, unsigned blob_type, const void *data,
		 size_t len)
{
	int err;

	if (len > FXT_MAX_BLOB_LEN || blob_type > 0xff || (len && !data))
		return -EINVAL;
	err = blob_begin(b, &name, blob_type, len);
	if (err)
		return err;
	put_stream(b, data, len);
	return 0;
}

int fxt_put_frames_blob(struct fxt_buf *b, struct fxt_sref name, uint64_t ts, uint64_t tid,
			const uint64_t *frames, unsigned nr)
{
	size_t len = FXT_FRAMES_HDR + (size_t)nr * 8;
	int err;

	if (!nr || !frames || nr > FXT_MAX_FRAMES - FXT_BT_MAX_FRAMES)
		return -EINVAL;
	err = blob_begin(b, &name, FXT_BLOB_RAW, len);
	if (err)
		return err;
	/* The payload is whole words: put_word's little-endian words are its bytes. */
	put_word(b, ts);
	put_word(b, tid);
	for (unsigned i = 0; i < nr; i++)
		put_word(b, frames[i]);
	return 0;
}

bool fxt_frames_blob_decode(const uint8_t *data, size_t len, uint64_t *ts, uint64_t *tid,
			    unsigned *nr)
{
	if (!data || len < FXT_FRAMES_HDR + 8 || (len - FXT_FRAMES_HDR) % 8 ||
	    (len - FXT_FRAMES_HDR) / 8 > FXT_MAX_FRAMES - FXT_BT_MAX_FRAMES)
		return false;
	*ts = fxt_get_le(data, 8);
	*tid = fxt_get_le(data + 8, 8);
	*nr = (unsigned)((len - FXT_FRAMES_HDR) / 8);
	return true;
}

int fxt_put_context_switch(struct fxt_buf *b, uint64_t ts, unsigned cpu, unsigned out_state,
			   uint64_t out_tid, uint64_t in_tid, const struct fxt_arg *args,
			   unsigned nr_args)
{
	size_t words, argw;
	int err;

	if (cpu > 0xffff || out_state > 0xf || nr_args > 0xf)
		return -EINVAL;
	err = args_words(args, nr_args, &argw);
	if (err)
		return err;
	words = 4 + argw;
	err = record_begin(b, words);
	if (err)
		return err;
	put_word(b, FXT_RT_SCHED | words << 4 | (uint64_t)nr_args << 16 | (uint64_t)cpu << 20 |
			    (uint64_t)out_state << 36 | (uint64_t)FXT_SCHED_CONTEXT_SWITCH << 60);
	put_word(b, ts);
	put_word(b, out_tid);
	put_word(b, in_tid);
	put_args(b, args, nr_args);
	return 0;
}
