// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/strpool.h"

/*
 * Each string is its length (a uint32_t, before it), its bytes and a NUL.
 * 64 KiB chunks: a malloc'ed copy costs 8 to 23 bytes more than its bytes,
 * which was 40 % of the report's 500,000 made-up names of a generated capture.
 */
#define CHUNK_DATA (64u << 10)

struct strpool_chunk {
	struct strpool_chunk *next;
	size_t used, size;
	char data[];
};

static size_t stored_len(const char *s)
{
	uint32_t len;

	memcpy(&len, s - sizeof(len), sizeof(len));
	return len;
}

size_t strpool_len(const char *interned)
{
	return stored_len(interned);
}

struct key {
	const void *data;
	size_t len;
};

static bool str_eq(const void *ctx, size_t pos, const void *key)
{
	const char *s = ((const struct strpool *)ctx)->strs[pos];
	const struct key *k = key;

	return stored_len(s) == k->len && !memcmp(s, k->data, k->len);
}

/* Room for need bytes: in the newest chunk, else a new one (big strings get their own). */
static char *take(struct strpool *p, size_t need)
{
	struct strpool_chunk *c = p->chunks;
	size_t size;

	if (!c || c->size - c->used < need) {
		size = need > CHUNK_DATA / 4 ? need : CHUNK_DATA;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		/* A big string's chunk goes second: the newest keeps its free room. */
		if (size != CHUNK_DATA && p->chunks) {
			c->next = p->chunks->next;
			p->chunks->next = c;
		} else {
			c->next = p->chunks;
			p->chunks = c;
		}
	}
	c->used += need;
	return c->data + c->used - need;
}

const char *strpool_intern(struct strpool *p, const void *data, size_t len)
{
	struct key k = {data, len};
	uint64_t h = fnv1a(FNV_INIT, data, len);
	uint32_t len32 = (uint32_t)len;
	size_t pos;
	char *at;

	if (hash_index_find(&p->idx, h, str_eq, p, &k, &pos))
		return p->strs[pos];
	if (len > UINT32_MAX - sizeof(len32) - 1 ||
	    array_reserve((void **)&p->strs, &p->cap, p->n, sizeof(*p->strs)))
		goto nomem;
	at = take(p, sizeof(len32) + len + 1);
	if (!at)
		goto nomem;
	memcpy(at, &len32, sizeof(len32));
	at += sizeof(len32);
	if (len)
		memcpy(at, data, len);
	at[len] = '\0';
	/* An index that cannot grow leaves the copy unreachable until strpool_free(). */
	if (hash_index_insert(&p->idx, h, p->n))
		goto nomem;
	p->strs[p->n++] = at;
	return at;
nomem:
	errno = ENOMEM;
	return NULL;
}

const char *strpool_str(struct strpool *p, const char *s)
{
	return strpool_intern(p, s, strlen(s));
}

void strpool_free(struct strpool *p)
{
	if (!p)
		return;
	while (p->chunks) {
		struct strpool_chunk *c = p->chunks;

		p->chunks = c->next;
		free(c);
	}
	free(p->strs);
	hash_index_free(&p->idx);
	*p = (struct strpool){0};
}
