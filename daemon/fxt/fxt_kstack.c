// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The payloads of the kernel-stack blob records (fxt/fxt_kstack.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_kstack.h"

size_t fxt_kstack_encode(uint8_t *buf, uint64_t ts, uint64_t tid, const uint32_t *ids, unsigned nr)
{
	fxt_put_le(buf, ts, 8);
	fxt_put_le(buf + 8, tid, 8);
	for (unsigned i = 0; i < nr; i++)
		fxt_put_le(buf + FXT_KSTACK_HDR + 4 * i, ids[i], 4);
	return FXT_KSTACK_HDR + 4 * (size_t)nr;
}

bool fxt_kstack_decode(const uint8_t *data, size_t len, uint64_t *ts, uint64_t *tid, unsigned *nr)
{
	if (!data || len < FXT_KSTACK_HDR || (len - FXT_KSTACK_HDR) % 4)
		return false;
	*ts = fxt_get_le(data, 8);
	*tid = fxt_get_le(data + 8, 8);
	*nr = (unsigned)((len - FXT_KSTACK_HDR) / 4);
	return true;
}

uint32_t fxt_kstack_id(const uint8_t *data, unsigned i)
{
	return (uint32_t)fxt_get_le(data + FXT_KSTACK_HDR + 4 * (size_t)i, 4);
}

size_t fxt_ksym_format(char *buf, size_t size, uint32_t id, uint64_t offset, const char *name,
		       const char *module)
{
	int n;

	if (strpbrk(name, " \t\n") || strpbrk(module, " \t\n") || !name[0] || !module[0])
		return 0;
	n = snprintf(buf, size, "%" PRIu32 " 0x%" PRIx64 " %s %s\n", id, offset, name, module);
	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

/* The next blank-separated field of [*p, end) on this line. */
static bool field(const char **p, const char *end, const char **ret, size_t *len)
{
	const char *s = *p;

	while (s < end && *s != ' ' && *s != '\n')
		s++;
	if (s == *p)
		return false;
	*ret = *p;
	*len = (size_t)(s - *p);
	*p = s;
	return true;
}

static bool number(const char *s, size_t len, int base, uint64_t *ret)
{
	char tmp[24], *e;

	if (!len || len >= sizeof(tmp) || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	*ret = strtoull(tmp, &e, base);
	return *e == '\0';
}

bool fxt_ksym_parse(const char **p, const char *end, struct fxt_ksym_line *ret)
{
	const char *s = *p, *f;
	size_t len;
	uint64_t v;

	if (!field(&s, end, &f, &len) || !number(f, len, 10, &v) || v > UINT32_MAX)
		return false;
	ret->id = (uint32_t)v;
	if (s >= end || *s++ != ' ' || !field(&s, end, &f, &len) || len < 3 || memcmp(f, "0x", 2) ||
	    !number(f + 2, len - 2, 16, &ret->offset))
		return false;
	if (s >= end || *s++ != ' ' || !field(&s, end, &ret->name, &ret->name_len))
		return false;
	if (s >= end || *s++ != ' ' || !field(&s, end, &ret->module, &ret->module_len))
		return false;
	if (s >= end || *s != '\n')
		return false;
	*p = s + 1;
	return true;
}

uint64_t fxt_ksyms_unnamed(const void *data, size_t len)
{
	const char *p = data, *end;
	struct fxt_ksym_line l;
	uint64_t n = 0;

	if (!p)
		return 0;
	end = p + len;
	while (p < end && fxt_ksym_parse(&p, end, &l))
		n += l.name_len == 9 && !memcmp(l.name, "[unknown]", 9) && l.module_len == 1 &&
		     l.module[0] == '-';
	return n;
}
