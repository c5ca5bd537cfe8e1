/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Fuchsia Trace Format reader: the input (a file, gzip or not, or memory),
 * framing records by their size words, large records skipped, and each
 * provider's string and thread tables; fxt_decode.c decodes a framed record.
 * Bit layouts: shared/docs/fxt-format.md §1.
 *
 * Strict where fxsampler writes (sizes, refs, padding, reserved bits of the
 * records it produces), tolerant where the format is meant to be extended:
 * unknown record types, subtypes and argument types are skipped by size, and
 * records may be longer than their known fields.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fxt/fxt_reader_internal.h"

#define FXT_READER_GZ_BUFFER (128 * 1024)

static int fail_at(struct fxt_reader *r, uint64_t offset, bool truncated, const char *fmt,
		   va_list ap)
{
	int n = snprintf(r->msg, sizeof(r->msg), "offset %" PRIu64 ": ", offset);

	vsnprintf(r->msg + n, sizeof(r->msg) - n, fmt, ap);
	r->err = -EBADMSG;
	r->truncated = truncated;
	return -EBADMSG;
}

int fxt_reader_fail(struct fxt_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = fail_at(r, offset, false, fmt, ap);
	va_end(ap);
	return err;
}

/* The stream ends inside the record at offset: a file cut short. */
__attribute__((format(printf, 3, 4))) static int cut_short(struct fxt_reader *r, uint64_t offset,
							   const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = fail_at(r, offset, true, fmt, ap);
	va_end(ap);
	return err;
}

int fxt_reader_fail_errno(struct fxt_reader *r, int err, const char *what)
{
	snprintf(r->msg, sizeof(r->msg), "offset %" PRIu64 ": %s: %s", r->pos, what,
		 strerror(-err));
	r->err = err;
	return err;
}

struct fxt_provider *fxt_reader_provider(struct fxt_reader *r, uint32_t id, bool create)
{
	struct fxt_provider *p, **tmp;
	size_t i;

	for (i = 0; i < r->nr_providers; i++)
		if (r->providers[i]->id == id)
			return r->providers[i];
	if (!create)
		return NULL;
	tmp = realloc(r->providers, (r->nr_providers + 1) * sizeof(*tmp));
	if (!tmp)
		return NULL;
	r->providers = tmp;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->id = id;
	r->providers[r->nr_providers++] = p;
	return p;
}

void fxt_provider_reset(struct fxt_provider *p)
{
	size_t i;

	if (p->strings) {
		for (i = 0; i <= FXT_MAX_STRING_INDEX; i++)
			free(p->strings[i].s);
		free(p->strings);
		p->strings = NULL;
	}
	memset(p->threads, 0, sizeof(p->threads));
	p->ticks_per_second = 0;
}

static void provider_free(struct fxt_provider *p)
{
	if (!p)
		return;
	fxt_provider_reset(p);
	free(p->name);
	free(p);
}

static struct fxt_reader *reader_new(void)
{
	struct fxt_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	/* Records before any provider info belong to provider 0, as in Perfetto. */
	r->cur = fxt_reader_provider(r, 0, true);
	if (!r->cur) {
		fxt_reader__free(r);
		return NULL;
	}
	return r;
}

struct fxt_reader *fxt_reader__open(const char *path)
{
	struct fxt_reader *r;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	r = reader_new();
	if (!r) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	/* gzread() passes a file without a gzip header through unchanged. */
	r->gz = gzdopen(fd, "rb");
	if (!r->gz) {
		err = errno ? errno : ENOMEM;
		close(fd);
		fxt_reader__free(r);
		errno = err;
		return NULL;
	}
	gzbuffer(r->gz, FXT_READER_GZ_BUFFER);
	return r;
}

struct fxt_reader *fxt_reader__open_mem(const void *data, size_t len)
{
	struct fxt_reader *r;

	if (!data && len) {
		errno = EINVAL;
		return NULL;
	}
	r = reader_new();
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->mem = data;
	r->mem_len = len;
	return r;
}

struct fxt_reader *fxt_reader__open_stream(void)
{
	struct fxt_reader *r = reader_new();

	if (!r)
		errno = ENOMEM;
	return r;
}

int fxt_reader_feed(struct fxt_reader *r, const void *data, size_t len)
{
	if (r->gz || (!data && len))
		return -EINVAL;
	if (r->pos != r->mem_base + r->mem_len)
		return -EBUSY;
	r->mem_base = r->pos;
	r->mem = data;
	r->mem_len = len;
	return 0;
}

void fxt_reader__free(struct fxt_reader *r)
{
	size_t i;

	if (!r)
		return;
	if (r->gz)
		gzclose(r->gz);
	for (i = 0; i < r->nr_providers; i++)
		provider_free(r->providers[i]);
	free(r->providers);
	free(r->words);
	free(r->arena);
	free(r);
}

const char *fxt_reader_error(const struct fxt_reader *r)
{
	return r->err ? r->msg : NULL;
}

uint64_t fxt_reader_offset(const struct fxt_reader *r)
{
	return r->offset;
}

bool fxt_reader_truncated(const struct fxt_reader *r)
{
	return r->err && r->truncated;
}

/* Up to len bytes into buf (or dropped when buf is NULL): the count, or -errno. */
static ssize_t read_bytes(struct fxt_reader *r, void *buf, size_t len)
{
	uint8_t scratch[4096];
	size_t done = 0, chunk;
	const char *msg;
	int n, zerr;

	if (!r->gz) {
		uint64_t at = r->pos - r->mem_base;

		if (at >= r->mem_len)
			return 0;
		if (len > r->mem_len - at)
			len = r->mem_len - at;
		if (buf)
			memcpy(buf, r->mem + at, len);
		r->pos += len;
		return len;
	}
	while (done < len) {
		chunk = len - done;
		if (!buf && chunk > sizeof(scratch))
			chunk = sizeof(scratch);
		else if (chunk > (1U << 30))
			chunk = 1U << 30;
		n = gzread(r->gz, buf ? (uint8_t *)buf + done : scratch, chunk);
		if (n < 0) {
			msg = gzerror(r->gz, &zerr);
			if (zerr == Z_ERRNO)
				return fxt_reader_fail_errno(r, errno ? -errno : -EIO, "read");
			/* A gzip stream cut short: what came before it is whole. */
			if (zerr == Z_BUF_ERROR)
				return cut_short(r, r->offset, "gzip: %s", msg);
			return fxt_reader_fail(r, r->pos, "gzip: %s", msg);
		}
		if (!n)
			break;
		done += n;
		r->pos += n;
	}
	return done;
}

static int reserve(struct fxt_reader *r, size_t words)
{
	uint64_t *w;
	char *a;
	/* Inline strings are at most the record's bytes, plus their NULs. */
	size_t arena = words * 8 + FXT_READER_MAX_STRINGS;

	if (words > r->words_cap) {
		w = realloc(r->words, words * sizeof(*w));
		if (!w)
			return -ENOMEM;
		r->words = w;
		r->words_cap = words;
	}
	if (arena > r->arena_cap) {
		a = realloc(r->arena, arena);
		if (!a)
			return -ENOMEM;
		r->arena = a;
		r->arena_cap = arena;
	}
	return 0;
}

/* Drop the rest of a large record (§1.3): this reader does not decode them. */
static int skip_large(struct fxt_reader *r, struct fxt_record *rec, uint64_t header)
{
	uint64_t words = (header >> 4) & 0xffffffff;
	uint64_t left;
	ssize_t n;

	if (!words)
		return fxt_reader_fail(r, rec->offset, "record size 0");
	left = (words - 1) * 8;
	while (left) {
		n = read_bytes(r, NULL, left > (1U << 20) ? (1U << 20) : left);
		if (n < 0)
			return n;
		if (!n)
			return cut_short(r, rec->offset,
					 "large record of %" PRIu64
					 " words truncated at end of file",
					 words);
		left -= n;
	}
	rec->words = words;
	return 0;
}

/*
 * A deep stack's two records (fxt.h's FXT_FRAMES_BLOB): the blob's frames
 * are kept, and the backtrace of the same time and thread that follows gets
 * them after its own, as one backtrace. The blob record is returned as it
 * is (readers skip it); any other backtrace drops what was kept.
 */
static void join_frames(struct fxt_reader *r, struct fxt_record *rec)
{
	uint64_t ts, tid;
	unsigned nr;

	if (rec->type == FXT_RT_BLOB && rec->name && !strcmp(rec->name, FXT_FRAMES_BLOB)) {
		r->have_more = fxt_frames_blob_decode(rec->blob, rec->blob_len, &ts, &tid, &nr);
		if (!r->have_more)
			return;
		r->more_ts = ts;
		r->more_tid = tid;
		r->nr_more = nr;
		for (unsigned i = 0; i < nr; i++)
			r->more[i] = fxt_get_le(rec->blob + FXT_FRAMES_HDR + 8 * (size_t)i, 8);
		return;
	}
	if (rec->type != FXT_RT_PROFILER || rec->subtype != FXT_PROF_BACKTRACE)
		return;
	if (r->have_more && rec->ts == r->more_ts && rec->tid == r->more_tid &&
	    rec->nr_frames == FXT_BT_MAX_FRAMES) {
		memcpy(r->joined, rec->frames, FXT_BT_MAX_FRAMES * sizeof(*r->joined));
		memcpy(r->joined + FXT_BT_MAX_FRAMES, r->more, r->nr_more * sizeof(*r->more));
		rec->frames = r->joined;
		rec->nr_frames = FXT_BT_MAX_FRAMES + r->nr_more;
	}
	r->have_more = false;
}

int fxt_reader_next(struct fxt_reader *r, struct fxt_record *ret)
{
	uint64_t start = r->pos, header;
	unsigned words;
	ssize_t n;
	int err;

	if (r->err)
		return r->err;
	r->arena_len = 0;
	n = read_bytes(r, &header, sizeof(header));
	if (n < 0)
		return n;
	if (!n) {
		if (!start)
			return fxt_reader_fail(r, 0, "empty file: no magic record");
		return 0;
	}
	if (n < (ssize_t)sizeof(header))
		return cut_short(r, start, "truncated record header (%zd of 8 bytes)", n);
	header = le64toh(header);
	if (!start && header != FXT_MAGIC_WORD)
		return fxt_reader_fail(r, 0, "missing magic record (first word 0x%016" PRIx64 ")",
				       header);

	memset(ret, 0, sizeof(*ret));
	ret->offset = start;
	ret->header = header;
	ret->type = header & 0xf;
	if (ret->type == FXT_RT_LARGE) {
		err = skip_large(r, ret, header);
		if (err)
			return err;
		r->offset = r->pos;
		return 1;
	}

	words = (header >> 4) & 0xfff;
	if (!words)
		return fxt_reader_fail(r, start, "record size 0");
	err = reserve(r, words);
	if (err)
		return fxt_reader_fail_errno(r, err, "record buffer");
	r->words[0] = htole64(header);
	n = read_bytes(r, r->words + 1, (words - 1) * 8);
	if (n < 0)
		return n;
	if (n < (ssize_t)(words - 1) * 8)
		return cut_short(r, start, "record of %u words truncated at end of file", words);
	ret->words = words;
	err = fxt_decode(r, ret);
	if (err)
		return err;
	join_frames(r, ret);
	r->offset = r->pos;
	return 1;
}
