// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Protocol buffers by hand: the wire format's varints and length-delimited fields. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/pbuf.h"

void pb_bytes(struct pbuf *b, const void *p, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *tmp;

		while (cap < b->len + n)
			cap *= 2;
		tmp = realloc(b->data, cap);
		if (!tmp) {
			b->err = -ENOMEM;
			return;
		}
		b->data = tmp;
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

void pb_varint(struct pbuf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_bytes(b, tmp, n);
}

void pb_tag(struct pbuf *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pbuf *b, unsigned field, uint64_t v)
{
	if (v)
		pb_uint_always(b, field, v);
}

void pb_uint_always(struct pbuf *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_len(struct pbuf *b, unsigned field, const void *p, size_t n)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, n);
	pb_bytes(b, p, n);
}

void pb_str(struct pbuf *b, unsigned field, const char *s)
{
	pb_len(b, field, s, strlen(s));
}

void pb_msg(struct pbuf *b, unsigned field, struct pbuf *sub)
{
	if (sub->err && !b->err)
		b->err = sub->err;
	pb_len(b, field, sub->data, sub->len);
	sub->len = 0;
}

void pbuf_free(struct pbuf *b)
{
	if (!b)
		return;
	free(b->data);
	*b = (struct pbuf){};
}
