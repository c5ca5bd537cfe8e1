// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Perf maps: parsing, picking the sampled entries, the blob payloads (lang/perfmap.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "lang/perfmap.h"
#include "util/units.h"

/* A hex number at *p (an optional "0x"), up to a blank: true and *p past it. */
static bool hex_field(const char **p, const char *end, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned digits = 0;
	int d;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end && (d = units_hex_digit(*s)) >= 0; s++, digits++) {
		if (v >> 60)
			return false; /* more than 64 bits */
		v = v << 4 | (uint64_t)d;
	}
	if (!digits || (s < end && *s != ' ' && *s != '\t'))
		return false;
	*ret = v;
	*p = s;
	return true;
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

bool perfmap_parse_line(const char *s, size_t len, struct perfmap_entry *ret)
{
	const char *end = s + len, *p = s;

	/* a CRLF file, and blanks at the end, are not part of the name */
	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	p = skip_blanks(p, end);
	if (!hex_field(&p, end, &ret->start))
		return false;
	p = skip_blanks(p, end);
	if (!hex_field(&p, end, &ret->size) || p >= end)
		return false;
	p = skip_blanks(p, end);
	if (p >= end || !ret->size || ret->start + ret->size < ret->start)
		return false;
	for (const char *q = p; q < end; q++)
		if (*q == '\0')
			return false;
	ret->name = p;
	ret->name_len = (size_t)(end - p);
	return true;
}

int perfmap_pick_init(struct perfmap_pick *p, const uint64_t *pcs, size_t nr_pcs)
{
	memset(p, 0, sizeof(*p));
	p->pcs = pcs;
	p->nr_pcs = nr_pcs;
	if (nr_pcs && !(p->entry_of = calloc(nr_pcs, sizeof(*p->entry_of))))
		return -ENOMEM;
	return 0;
}

void perfmap_pick_free(struct perfmap_pick *p)
{
	for (size_t i = 0; i < p->nr_kept; i++)
		free(p->kept[i].name);
	free(p->kept);
	free(p->free_slots);
	free(p->entry_of);
	p->kept = NULL;
	p->free_slots = NULL;
	p->entry_of = NULL;
	p->nr_kept = p->nr_free = p->cap_kept = p->cap_free = 0;
}

/* The first pc >= addr. */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void unref(struct perfmap_pick *p, uint32_t slot)
{
	struct perfmap_kept *k = &p->kept[slot];

	if (--k->refs)
		return;
	free(k->name);
	k->name = NULL;
	/* room was reserved when the slot was made */
	p->free_slots[p->nr_free++] = slot;
}

int perfmap_pick_entry(struct perfmap_pick *p, const struct perfmap_entry *e)
{
	size_t first = lower_bound(p->pcs, p->nr_pcs, e->start), i;
	size_t name_len = e->name_len < PERFMAP_MAX_NAME ? e->name_len : PERFMAP_MAX_NAME;
	struct perfmap_kept *k;
	uint32_t slot;

	if (first >= p->nr_pcs || p->pcs[first] - e->start >= e->size)
		return 0;
	if (p->nr_free) {
		slot = p->free_slots[--p->nr_free];
	} else {
		if (p->nr_kept >= UINT32_MAX - 1 ||
		    array_reserve((void **)&p->kept, &p->cap_kept, p->nr_kept, sizeof(*p->kept)) ||
		    array_reserve((void **)&p->free_slots, &p->cap_free, p->nr_kept,
				  sizeof(*p->free_slots)))
			return -ENOMEM;
		slot = (uint32_t)p->nr_kept++;
	}
	k = &p->kept[slot];
	k->name = malloc(name_len + 1);
	if (!k->name) {
		p->free_slots[p->nr_free++] = slot;
		return -ENOMEM;
	}
	memcpy(k->name, e->name, name_len);
	k->name[name_len] = '\0';
	k->start = e->start;
	k->size = e->size;
	k->refs = 0;
	for (i = first; i < p->nr_pcs && p->pcs[i] - e->start < e->size; i++) {
		uint32_t old = p->entry_of[i];

		p->entry_of[i] = slot + 1;
		k->refs++;
		if (old)
			unref(p, old - 1);
	}
	return 0;
}

static int pick_line(struct perfmap_pick *p, const char *s, size_t len)
{
	struct perfmap_entry e;

	p->lines++;
	if (!perfmap_parse_line(s, len, &e)) {
		/* blank lines and perf's own comments are no entries either */
		if (len)
			p->bad_lines++;
		return 0;
	}
	return perfmap_pick_entry(p, &e);
}

int perfmap_pick_feed(struct perfmap_pick *p, const char *buf, size_t n)
{
	const char *end = buf + n;
	int err;

	while (buf < end) {
		const char *nl = memchr(buf, '\n', (size_t)(end - buf));
		size_t take = (size_t)((nl ? nl : end) - buf);

		if (p->len + take > PERFMAP_MAX_LINE)
			return -E2BIG;
		/* a whole line in buf needs no copy */
		if (nl && !p->len) {
			err = pick_line(p, buf, take);
		} else {
			memcpy(p->line + p->len, buf, take);
			p->len += take;
			err = nl ? pick_line(p, p->line, p->len) : 0;
			if (nl)
				p->len = 0;
		}
		if (err)
			return err;
		buf += take + (nl ? 1 : 0);
	}
	return 0;
}

int perfmap_pick_end(struct perfmap_pick *p)
{
	int err = p->len ? pick_line(p, p->line, p->len) : 0;

	p->len = 0;
	return err;
}

bool perfmap_pick_get(const struct perfmap_pick *p, size_t *i, const struct perfmap_kept **ret)
{
	for (; *i < p->nr_kept; (*i)++) {
		if (p->kept[*i].name) {
			*ret = &p->kept[(*i)++];
			return true;
		}
	}
	return false;
}

bool perfmap_blob_add(char *buf, size_t size, size_t *len, uint64_t pid, uint64_t start,
		      uint64_t size_, const char *name, size_t name_len)
{
	char head[80];
	int h, n;

	if (!*len) {
		h = snprintf(buf, size, "pid %" PRIu64 "\n", pid);
		if (h < 0 || (size_t)h >= size)
			return false;
		*len = (size_t)h;
	}
	n = snprintf(head, sizeof(head), "%" PRIx64 " %" PRIx64 " ", start, size_);
	if (n < 0 || (size_t)n >= sizeof(head))
		return false;
	if (name_len > PERFMAP_MAX_NAME)
		name_len = PERFMAP_MAX_NAME;
	if (*len + (size_t)n + name_len + 1 > size)
		return false;
	memcpy(buf + *len, head, (size_t)n);
	*len += (size_t)n;
	for (size_t i = 0; i < name_len; i++)
		buf[(*len)++] = name[i] == '\n' || name[i] == '\0' ? '?' : name[i];
	buf[(*len)++] = '\n';
	return true;
}

int perfmap_blob_parse(const char *data, size_t len, perfmap_blob_fn fn, void *ctx)
{
	const char *p = data, *end = data + len, *nl;
	uint64_t pid = 0;
	struct perfmap_entry e;
	int err;

	nl = memchr(p, '\n', len);
	if (!nl || nl - p < 5 || memcmp(p, "pid ", 4))
		return -EINVAL;
	for (const char *q = p + 4; q < nl; q++) {
		if (*q < '0' || *q > '9' || pid > UINT32_MAX)
			return -EINVAL;
		pid = pid * 10 + (uint64_t)(*q - '0');
	}
	for (p = nl + 1; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || !perfmap_parse_line(p, (size_t)(nl - p), &e))
			return -EINVAL;
		err = fn(ctx, pid, &e);
		if (err)
			return err;
	}
	return 0;
}
