/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The FXT stream: the string and thread tables over the fxt_put_*() encoders
 * of fxt.c, and the buffer it hands to a sink.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt_stream.h"
#include "util/containers.h"

/* Hand the buffer to the sink once it holds more than this. */
#define FXT_STREAM_FLUSH_BYTES (64 * 1024)
/* The longest string a string record can carry: 4094 words after the header. */
#define FXT_MAX_STRING_RECORD_LEN ((FXT_MAX_RECORD_WORDS - 1) * 8)
#define FXT_STR_BUCKETS		  16384 /* power of two */
#define FXT_THREAD_BUCKETS	  64	/* power of two */
#define FXT_STREAM_PROVIDER_ID	  1

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
	uint64_t budget;	    /* fxt_stream_set_budget(); 0: none */
	uint64_t over[FXT_OVER_NR]; /* records the budget dropped */
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

void fxt_stream_set_budget(struct fxt_stream *s, uint64_t budget)
{
	s->budget = budget;
}

uint64_t fxt_stream_over(const struct fxt_stream *s, unsigned kind)
{
	return kind < FXT_OVER_NR ? s->over[kind] : 0;
}

/*
 * Whether a record of kind is dropped for the budget (and counted). A failed
 * stream drops nothing: its calls return the error.
 */
static bool over_budget(struct fxt_stream *s, unsigned kind)
{
	if (!s->budget || fxt_stream_error(s) || fxt_stream_bytes(s) < s->budget)
		return false;
	s->over[kind]++;
	return true;
}

/*
 * A kernel object record named name, with one argument arg_name = *arg
 * (none when arg is NULL); the strings are interned in that order.
 */
static int stream_kobj(struct fxt_stream *s, unsigned obj_type, uint64_t koid, const char *name,
		       const char *arg_name, struct fxt_arg *arg)
{
	struct fxt_sref nref;
	int err;

	if (over_budget(s, FXT_OVER_OTHER))
		return 0;
	err = stream_begin(s);
	if (!err)
		err = stream_sref(s, name, &nref);
	if (!err && arg)
		err = stream_sref(s, arg_name, &arg->name);
	if (!err)
		err = fxt_put_kobj(&s->buf, obj_type, koid, nref, arg, arg ? 1 : 0);
	return stream_end(s, err);
}

int fxt_stream_process(struct fxt_stream *s, uint64_t pid, const char *name)
{
	return stream_kobj(s, FXT_OBJ_PROCESS, pid, name, NULL, NULL);
}

int fxt_stream_process_cmdline(struct fxt_stream *s, uint64_t pid, const char *name,
			       const char *cmdline)
{
	struct fxt_arg arg = {.type = FXT_ARG_STRING};
	size_t len = cmdline ? strnlen(cmdline, FXT_CMDLINE_MAX) : 0;

	if (!len)
		return fxt_stream_process(s, pid, name);
	arg.str.s = cmdline;
	arg.str.len = len;
	return stream_kobj(s, FXT_OBJ_PROCESS, pid, name, "cmdline", &arg);
}

int fxt_stream_thread(struct fxt_stream *s, uint64_t pid, uint64_t tid, const char *name)
{
	struct fxt_arg arg = {.type = FXT_ARG_KOID, .u = pid};

	return stream_kobj(s, FXT_OBJ_THREAD, tid, name, "process", &arg);
}

int fxt_stream_backtrace(struct fxt_stream *s, uint64_t ts, uint64_t pid, uint64_t tid,
			 unsigned bt_flags, const uint64_t *frames, unsigned nr_frames)
{
	unsigned in_record = nr_frames < FXT_BT_MAX_FRAMES ? nr_frames : FXT_BT_MAX_FRAMES;
	struct fxt_sref nref;
	struct fxt_tref tref;
	int err;

	err = stream_begin(s);
	if (err)
		return err;
	/* Check first so that a rejected sample costs no thread record. */
	if (!nr_frames || nr_frames > FXT_MAX_FRAMES || !frames || (bt_flags & ~FXT_BT_FLAGS_KNOWN))
		return -EINVAL;
	if (over_budget(s, FXT_OVER_SAMPLES))
		return 0;
	err = stream_thread_ref(s, pid, tid, &tref);
	/* A deeper stack's outer frames go first, in their blob (fxt.h). */
	if (!err && nr_frames > in_record)
		err = stream_sref(s, FXT_FRAMES_BLOB, &nref);
	if (!err && nr_frames > in_record)
		err = fxt_put_frames_blob(&s->buf, nref, ts, tid, frames + in_record,
					  nr_frames - in_record);
	if (!err)
		err = fxt_put_backtrace(&s->buf, ts, tref, bt_flags, frames, in_record);
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
	if (over_budget(s, FXT_OVER_MAPPINGS))
		return 0;
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
	if (over_budget(s, FXT_OVER_MAPPINGS))
		return 0;
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
	if (over_budget(s, FXT_OVER_OTHER))
		return 0;
	return stream_event(s, FXT_EVENT_INSTANT, ts, pid, tid, category, name, 0, names, values,
			    nr);
}

int fxt_stream_blob(struct fxt_stream *s, const char *name, const void *data, size_t len)
{
	struct fxt_sref nref;
	int err;

	err = stream_begin(s);
	if (err)
		return err;
	if (len > FXT_MAX_BLOB_LEN)
		return -EINVAL;
	/* a kernel stack goes with the backtrace after it */
	if (over_budget(s, name && !strcmp(name, "fxsampler.kstack") ? FXT_OVER_SAMPLES
								     : FXT_OVER_OTHER))
		return 0;
	err = stream_sref(s, name, &nref);
	if (!err)
		err = fxt_put_blob(&s->buf, nref, FXT_BLOB_RAW, data, len);
	return stream_end(s, err);
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
	if (over_budget(s, FXT_OVER_OTHER))
		return 0;
	err = stream_sref(s, out_idle ? "outgoing_weight" : "incoming_weight", &arg.name);
	if (!err)
		err = fxt_put_context_switch(&s->buf, ts, cpu, out_state, out_idle ? 0 : out_tid,
					     out_idle ? in_tid : 0, &arg, 1);
	return stream_end(s, err);
}
