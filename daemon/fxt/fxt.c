/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Fuchsia Trace Format writer. The bit layouts are those of
 * shared/docs/fxt-format.md §1; the section numbers below refer to it.
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
#include "util/containers.h"

/* Hand the buffer to the sink once it holds more than this. */
#define FXT_STREAM_FLUSH_BYTES (64 * 1024)
/* The longest string a string record can carry: 4094 words after the header. */
#define FXT_MAX_STRING_RECORD_LEN ((FXT_MAX_RECORD_WORDS - 1) * 8)
#define FXT_MAX_SHORT_NAME	  255
#define FXT_STR_BUCKETS		  16384 /* power of two */
#define FXT_THREAD_BUCKETS	  64	/* power of two */
#define FXT_STREAM_PROVIDER_ID	  1
#define FXT_BT_FLAGS_KNOWN                                                                         \
	(FXT_BT_FLAG_TRUNCATED | FXT_BT_FLAG_PC_IS_RETURN | FXT_BT_FLAG_OFFCPU |                   \
	 FXT_BT_OFFCPU_STATE_MASK << FXT_BT_OFFCPU_STATE_SHIFT)

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

/* --- stream --- */

/*
 * The string and thread tables are the format's own: fixed arrays of
 * FXT_MAX_STRING_INDEX and FXT_MAX_THREAD_INDEX entries whose indices go in
 * the records, reused (round robin, least recently used) once all are taken.
 * They keep bucket chains rather than util/hash.h's index because an
 * evicted entry must leave its bucket (that index has no removal, and linear
 * probing would need tombstones), and because the thread table lives in the
 * stream without any allocation on the recording path.
 */
struct fxt_str_slot {
	char *s; /* NULL: slot never used */
	size_t len;
	uint32_t hash;
	uint16_t next; /* next index in the same bucket, 0 ends the chain */
	/* Number of the call that last used it: never evicted during that call. */
	uint64_t op;
};

struct fxt_thread_slot {
	uint64_t pid, tid;
	uint64_t last_use;
	uint8_t next; /* next index in the same bucket, 0 ends the chain */
	bool used;
};

struct fxt_stream {
	fxt_sink_fn sink;
	void *ctx;
	struct fxt_buf buf;
	uint64_t flushed;
	int err;
	uint64_t op;
	struct fxt_str_slot *strs; /* [FXT_MAX_STRING_INDEX + 1]; index 0 unused */
	uint16_t *str_buckets;	   /* [FXT_STR_BUCKETS] */
	unsigned nr_strs;
	unsigned str_victim; /* next index to reuse once all are taken */
	struct fxt_thread_slot threads[FXT_MAX_THREAD_INDEX + 1];
	uint8_t thread_buckets[FXT_THREAD_BUCKETS];
	unsigned nr_threads;
	uint64_t clock;
};

static unsigned thread_bucket(uint64_t pid, uint64_t tid)
{
	uint64_t k = (pid * 0x9e3779b97f4a7c15ULL) ^ tid;

	k *= 0xff51afd7ed558ccdULL;
	return (k >> 32) & (FXT_THREAD_BUCKETS - 1);
}

/*
 * The state of a stream may be inconsistent after a failed allocation or sink
 * call, so those latch. A call rejected for its arguments has written nothing
 * that breaks the tables and does not.
 */
static int stream_begin(struct fxt_stream *s)
{
	if (!s->err && s->buf.err)
		s->err = s->buf.err;
	s->op++;
	return s->err;
}

int fxt_stream_flush(struct fxt_stream *s)
{
	int err;

	if (s->err)
		return s->err;
	if (s->buf.err) {
		s->err = s->buf.err;
		return s->err;
	}
	if (!s->buf.len)
		return 0;
	err = s->sink(s->ctx, s->buf.data, s->buf.len);
	if (err < 0) {
		s->err = err;
		return err;
	}
	s->flushed += s->buf.len;
	s->buf.len = 0;
	return 0;
}

static int stream_end(struct fxt_stream *s, int err)
{
	if (!s->err && s->buf.err)
		s->err = s->buf.err;
	if (s->err)
		return s->err;
	if (err)
		return err;
	if (s->buf.len > FXT_STREAM_FLUSH_BYTES)
		return fxt_stream_flush(s);
	return 0;
}

static void str_unlink(struct fxt_stream *s, uint16_t index)
{
	struct fxt_str_slot *slot = &s->strs[index];
	uint16_t *p = &s->str_buckets[slot->hash & (FXT_STR_BUCKETS - 1)];

	while (*p != index)
		p = &s->strs[*p].next;
	*p = slot->next;
	free(slot->s);
	slot->s = NULL;
}

/* The table index of str, writing its string record first if it has none. */
static int stream_intern(struct fxt_stream *s, const char *str, size_t len, uint16_t *ret_index)
{
	uint32_t h;
	uint16_t *bucket, i;
	struct fxt_str_slot *slot;
	char *copy;
	int err;

	if (!str || !len) {
		*ret_index = 0;
		return 0;
	}
	if (len > FXT_MAX_STRING_RECORD_LEN)
		return -EINVAL;
	h = (uint32_t)fnv1a(FNV_INIT, str, len);
	bucket = &s->str_buckets[h & (FXT_STR_BUCKETS - 1)];
	for (i = *bucket; i; i = s->strs[i].next) {
		slot = &s->strs[i];
		if (slot->hash == h && slot->len == len && !memcmp(slot->s, str, len)) {
			slot->op = s->op;
			*ret_index = i;
			return 0;
		}
	}

	copy = malloc(len + 1);
	if (!copy) {
		s->buf.err = -ENOMEM;
		return -ENOMEM;
	}
	memcpy(copy, str, len);
	copy[len] = '\0';

	if (s->nr_strs < FXT_MAX_STRING_INDEX) {
		i = ++s->nr_strs;
	} else {
		/*
		 * Full: reuse indices round robin, skipping those the current
		 * record already refers to (at most 33 of them).
		 */
		do {
			i = s->str_victim;
			s->str_victim = s->str_victim % FXT_MAX_STRING_INDEX + 1;
		} while (s->strs[i].op == s->op);
	}
	err = fxt_put_string(&s->buf, i, copy, len);
	if (err) {
		free(copy);
		return err;
	}
	if (s->strs[i].s)
		str_unlink(s, i);
	slot = &s->strs[i];
	slot->s = copy;
	slot->len = len;
	slot->hash = h;
	slot->op = s->op;
	slot->next = *bucket;
	*bucket = i;
	*ret_index = i;
	return 0;
}

static int stream_sref(struct fxt_stream *s, const char *str, struct fxt_sref *ret_ref)
{
	uint16_t index;
	int err;

	err = stream_intern(s, str, str ? strlen(str) : 0, &index);
	if (err)
		return err;
	ret_ref->index = index;
	ret_ref->s = NULL;
	ret_ref->len = 0;
	return 0;
}

/*
 * The thread slot of (pid, tid), writing its thread record first if it has
 * none. When all 255 are taken the least recently used one is given the new
 * pair: the thread record goes out before the record that uses it, so every
 * ref names the slot's current pair.
 */
static int stream_thread_ref(struct fxt_stream *s, uint64_t pid, uint64_t tid,
			     struct fxt_tref *ret_ref)
{
	uint8_t *bucket = &s->thread_buckets[thread_bucket(pid, tid)], *p;
	struct fxt_thread_slot *t;
	unsigned i, j;
	int err;

	for (i = *bucket; i; i = s->threads[i].next) {
		t = &s->threads[i];
		if (t->pid == pid && t->tid == tid)
			goto found;
	}

	if (s->nr_threads < FXT_MAX_THREAD_INDEX) {
		i = ++s->nr_threads;
	} else {
		i = 1;
		for (j = 2; j <= FXT_MAX_THREAD_INDEX; j++)
			if (s->threads[j].last_use < s->threads[i].last_use)
				i = j;
	}
	err = fxt_put_thread(&s->buf, i, pid, tid);
	if (err)
		return err;
	t = &s->threads[i];
	if (t->used) {
		p = &s->thread_buckets[thread_bucket(t->pid, t->tid)];
		while (*p != i)
			p = &s->threads[*p].next;
		*p = t->next;
	}
	t->pid = pid;
	t->tid = tid;
	t->used = true;
	t->next = *bucket;
	*bucket = i;
found:
	t->last_use = ++s->clock;
	ret_ref->index = i;
	ret_ref->pid = pid;
	ret_ref->tid = tid;
	return 0;
}

/*
 * The thread slot of (pid, 0), which module and mmap records name. They use an
 * indexed ref, not an inline one: the spec and Fuchsia's C++ writer put two
 * words (pid, tid) in the body for an inline ref, one version of Fuchsia's Rust
 * reader (behind `ffx profiler`) reads one there and fails or panics on two,
 * and every reader agrees on an index. The slot is one of the same 255 the
 * samples use, so it is evicted and re-announced like theirs: the thread
 * record always precedes the record that names the slot.
 */
static int stream_process_ref(struct fxt_stream *s, uint64_t pid, struct fxt_tref *ret_ref)
{
	return stream_thread_ref(s, pid, 0, ret_ref);
}

struct fxt_stream *fxt_stream__new(fxt_sink_fn sink, void *ctx, const char *provider_name,
				   uint64_t ticks_per_second)
{
	struct fxt_stream *s;
	int err;

	if (!sink) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->sink = sink;
	s->ctx = ctx;
	s->str_victim = 1;
	s->strs = calloc(FXT_MAX_STRING_INDEX + 1, sizeof(*s->strs));
	s->str_buckets = calloc(FXT_STR_BUCKETS, sizeof(*s->str_buckets));
	if (!s->strs || !s->str_buckets) {
		err = -ENOMEM;
		goto err;
	}
	err = fxt_put_magic(&s->buf);
	if (!err)
		err = fxt_put_provider_info(&s->buf, FXT_STREAM_PROVIDER_ID, provider_name);
	if (!err)
		err = fxt_put_init(&s->buf, ticks_per_second);
	if (err)
		goto err;
	return s;
err:
	fxt_stream__free(s);
	errno = -err;
	return NULL;
}

void fxt_stream__free(struct fxt_stream *s)
{
	unsigned i;

	if (!s)
		return;
	if (s->strs) {
		for (i = 1; i <= FXT_MAX_STRING_INDEX; i++)
			free(s->strs[i].s);
		free(s->strs);
	}
	free(s->str_buckets);
	fxt_buf_free(&s->buf);
	free(s);
}

uint64_t fxt_stream_bytes(const struct fxt_stream *s)
{
	return s->flushed + s->buf.len;
}

int fxt_stream_error(const struct fxt_stream *s)
{
	return s->err ? s->err : s->buf.err;
}

int fxt_stream_process(struct fxt_stream *s, uint64_t pid, const char *name)
{
	struct fxt_sref nref;
	int err;

	err = stream_begin(s);
	if (!err)
		err = stream_sref(s, name, &nref);
	if (!err)
		err = fxt_put_kobj(&s->buf, FXT_OBJ_PROCESS, pid, nref, NULL, 0);
	return stream_end(s, err);
}

int fxt_stream_process_cmdline(struct fxt_stream *s, uint64_t pid, const char *name,
			       const char *cmdline)
{
	struct fxt_arg arg = {.type = FXT_ARG_STRING};
	size_t len = cmdline ? strnlen(cmdline, FXT_CMDLINE_MAX) : 0;
	struct fxt_sref nref;
	int err;

	if (!len)
		return fxt_stream_process(s, pid, name);
	err = stream_begin(s);
	if (!err)
		err = stream_sref(s, name, &nref);
	if (!err)
		err = stream_sref(s, "cmdline", &arg.name);
	if (!err) {
		arg.str.s = cmdline;
		arg.str.len = len;
		err = fxt_put_kobj(&s->buf, FXT_OBJ_PROCESS, pid, nref, &arg, 1);
	}
	return stream_end(s, err);
}

int fxt_stream_thread(struct fxt_stream *s, uint64_t pid, uint64_t tid, const char *name)
{
	struct fxt_arg arg = {.type = FXT_ARG_KOID, .u = pid};
	struct fxt_sref nref;
	int err;

	err = stream_begin(s);
	if (!err)
		err = stream_sref(s, name, &nref);
	if (!err)
		err = stream_sref(s, "process", &arg.name);
	if (!err)
		err = fxt_put_kobj(&s->buf, FXT_OBJ_THREAD, tid, nref, &arg, 1);
	return stream_end(s, err);
}

int fxt_stream_backtrace(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint64_t tid,
			 unsigned bt_flags, const uint64_t *frames, unsigned nr_frames)
{
	struct fxt_tref tref;
	int err;

	err = stream_begin(s);
	if (err)
		return err;
	/* Check first so that a rejected sample costs no thread record. */
	if (!nr_frames || nr_frames > 255 || !frames || (bt_flags & ~FXT_BT_FLAGS_KNOWN))
		return -EINVAL;
	err = stream_thread_ref(s, pid, tid, &tref);
	if (!err)
		err = fxt_put_backtrace(&s->buf, ts, tref, bt_flags, frames, nr_frames);
	return stream_end(s, err);
}

int fxt_stream_module(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint16_t module_id,
		      const char *path, const uint8_t *build_id, size_t build_id_len)
{
	struct fxt_tref tref;
	size_t len = path ? strlen(path) : 0;
	int err;

	err = stream_begin(s);
	if (err)
		return err;
	if (build_id_len > FXT_MAX_SHORT_NAME || (build_id_len && !build_id))
		return -EINVAL;
	/* The tail of a path names the file; its head is the least useful part. */
	if (len > FXT_MAX_SHORT_NAME) {
		path += len - FXT_MAX_SHORT_NAME;
		len = FXT_MAX_SHORT_NAME;
	}
	err = stream_process_ref(s, pid, &tref);
	if (!err)
		err = fxt_put_module(&s->buf, ts, tref, module_id, path, len, build_id,
				     build_id_len);
	return stream_end(s, err);
}

int fxt_stream_mmap(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint16_t module_id,
		    unsigned flags, uint64_t start, uint64_t size, uint64_t vaddr)
{
	struct fxt_tref tref;
	int err;

	err = stream_begin(s);
	if (err)
		return err;
	/* Three bits: ELF p_flags PF_X/PF_W/PF_R (§3.5). */
	if (flags > 7)
		return -EINVAL;
	err = stream_process_ref(s, pid, &tref);
	if (!err)
		err = fxt_put_mmap(&s->buf, ts, tref, module_id, flags, start, size, vaddr);
	return stream_end(s, err);
}

static int stream_event(struct fxt_stream *s, unsigned event_type, uint64_t ts, uint64_t pid,
			uint64_t tid, const char *category, const char *name, uint64_t counter_id,
			const char *const *names, const uint64_t *values, unsigned nr)
{
	struct fxt_arg args[15];
	struct fxt_sref cref, nref;
	struct fxt_tref tref;
	unsigned i;
	int err;

	err = stream_begin(s);
	if (err)
		return err;
	if (nr > 15 || (nr && (!names || !values)))
		return -EINVAL;
	memset(args, 0, sizeof(args));
	err = stream_sref(s, category, &cref);
	if (!err)
		err = stream_sref(s, name, &nref);
	for (i = 0; !err && i < nr; i++) {
		args[i].type = FXT_ARG_UINT64;
		args[i].u = values[i];
		err = stream_sref(s, names[i], &args[i].name);
	}
	if (!err)
		err = stream_thread_ref(s, pid, tid, &tref);
	if (!err)
		err = fxt_put_event(&s->buf, event_type, ts, tref, cref, nref, args, nr,
				    counter_id);
	return stream_end(s, err);
}

int fxt_stream_counter(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint64_t tid,
		       const char *category, const char *name, uint64_t counter_id,
		       const char *const *names, const uint64_t *values, unsigned nr)
{
	return stream_event(s, FXT_EVENT_COUNTER, ts, pid, tid, category, name, counter_id, names,
			    values, nr);
}

int fxt_stream_instant(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint64_t tid,
		       const char *category, const char *name, const char *const *names,
		       const uint64_t *values, unsigned nr)
{
	return stream_event(s, FXT_EVENT_INSTANT, ts, pid, tid, category, name, 0, names, values,
			    nr);
}

int fxt_stream_dropped(struct fxt_stream *s)
{
	int err;

	err = stream_begin(s);
	if (!err)
		err = fxt_put_provider_event(&s->buf, FXT_STREAM_PROVIDER_ID,
					     FXT_PROVIDER_EVENT_DROPPED);
	return stream_end(s, err);
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

int fxt_stream_context_switch(struct fxt_stream *s, uint64_t ts, unsigned cpu, unsigned out_state,
			      uint64_t out_tid, uint64_t in_tid, int out_idle)
{
	struct fxt_arg arg = {.type = FXT_ARG_INT32, .u = (uint64_t)(int64_t)FXT_IDLE_WEIGHT};
	int err;

	err = stream_begin(s);
	if (err)
		return err;
	if (cpu > 0xffff || out_state > 0xf)
		return -EINVAL;
	err = stream_sref(s, out_idle ? "outgoing_weight" : "incoming_weight", &arg.name);
	if (!err)
		err = fxt_put_context_switch(&s->buf, ts, cpu, out_state, out_idle ? 0 : out_tid,
					     out_idle ? in_tid : 0, &arg, 1);
	return stream_end(s, err);
}
