// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <endian.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_framer.h"

/* A record's size in bytes from its header word (§1.3); 0 for a malformed one. */
static uint64_t record_bytes(uint64_t header)
{
	if ((header & 0xf) == FXT_RT_LARGE)
		return ((header >> 4) & 0xffffffff) * 8;
	return ((header >> 4) & 0xfff) * 8;
}

void fxt_framer_feed(struct fxt_framer *f, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t end = f->pos + len, header, size;
	size_t take;

	while (!f->bad && f->pos < end) {
		if (f->next) {
			/* Inside a record: skip to its end, or to the end of what we have. */
			take = f->next - f->pos < end - f->pos ? f->next - f->pos : end - f->pos;
			p += take;
			f->pos += take;
			if (f->pos == f->next) {
				f->whole = f->next;
				f->next = 0;
			}
			continue;
		}
		take = sizeof(f->hdr) - f->hdr_len;
		if (take > end - f->pos)
			take = end - f->pos;
		memcpy(f->hdr + f->hdr_len, p, take);
		f->hdr_len += take;
		p += take;
		f->pos += take;
		if (f->hdr_len < sizeof(f->hdr))
			break;
		memcpy(&header, f->hdr, sizeof(header));
		size = record_bytes(le64toh(header));
		f->hdr_len = 0;
		if (!size) {
			f->bad = 1;
			break;
		}
		f->next = f->pos - sizeof(header) + size;
		if (f->pos == f->next) {
			f->whole = f->next;
			f->next = 0;
		}
	}
	f->pos = end;
}
