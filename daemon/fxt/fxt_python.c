// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The payloads of the Python blob records (fxt/fxt_python.h). */
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_python.h"

size_t fxt_pycode_encode(uint8_t *buf, const struct fxt_pycode *c)
{
	size_t n = FXT_PYCODE_HDR;

	if (c->qualname_len > FXT_PY_NAME_MAX || c->filename_len > FXT_PY_FILE_MAX ||
	    c->table_len > FXT_PY_TABLE_MAX || !c->id)
		return 0;
	fxt_put_le(buf, c->id, 4);
	fxt_put_le(buf + 4, (uint32_t)c->firstlineno, 4);
	fxt_put_le(buf + 8, c->pid, 8);
	fxt_put_le(buf + 16, c->qualname_len, 2);
	fxt_put_le(buf + 18, c->filename_len, 2);
	fxt_put_le(buf + 20, c->table_len, 2);
	fxt_put_le(buf + 22, 0, 2);
	memcpy(buf + n, c->qualname, c->qualname_len);
	n += c->qualname_len;
	memcpy(buf + n, c->filename, c->filename_len);
	n += c->filename_len;
	if (c->table_len)
		memcpy(buf + n, c->table, c->table_len);
	return n + c->table_len;
}

bool fxt_pycode_decode(const uint8_t *data, size_t len, struct fxt_pycode *ret)
{
	if (!data || len < FXT_PYCODE_HDR)
		return false;
	ret->id = (uint32_t)fxt_get_le(data, 4);
	ret->firstlineno = (int32_t)fxt_get_le(data + 4, 4);
	ret->pid = fxt_get_le(data + 8, 8);
	ret->qualname_len = fxt_get_le(data + 16, 2);
	ret->filename_len = fxt_get_le(data + 18, 2);
	ret->table_len = fxt_get_le(data + 20, 2);
	if (!ret->id ||
	    FXT_PYCODE_HDR + ret->qualname_len + ret->filename_len + ret->table_len != len)
		return false;
	ret->qualname = (const char *)data + FXT_PYCODE_HDR;
	ret->filename = ret->qualname + ret->qualname_len;
	ret->table = (const uint8_t *)ret->filename + ret->filename_len;
	return true;
}

size_t fxt_pystack_encode(uint8_t *buf, uint64_t ts, uint64_t tid, uint32_t end,
			  const struct fxt_pyframe *f, unsigned nr)
{
	fxt_put_le(buf, ts, 8);
	fxt_put_le(buf + 8, tid, 8);
	fxt_put_le(buf + 16, end, 4);
	fxt_put_le(buf + 20, nr, 4);
	for (unsigned i = 0; i < nr; i++) {
		uint8_t *p = buf + FXT_PYSTACK_HDR + FXT_PYFRAME_SIZE * i;

		fxt_put_le(p, f[i].code, 4);
		fxt_put_le(p + 4, (uint32_t)f[i].lasti, 4);
		fxt_put_le(p + 8, f[i].flags, 4);
	}
	return FXT_PYSTACK_HDR + FXT_PYFRAME_SIZE * (size_t)nr;
}

bool fxt_pystack_decode(const uint8_t *data, size_t len, uint64_t *ts, uint64_t *tid, uint32_t *end,
			unsigned *nr)
{
	if (!data || len < FXT_PYSTACK_HDR)
		return false;
	*ts = fxt_get_le(data, 8);
	*tid = fxt_get_le(data + 8, 8);
	*end = (uint32_t)fxt_get_le(data + 16, 4);
	*nr = (unsigned)fxt_get_le(data + 20, 4);
	return len == FXT_PYSTACK_HDR + FXT_PYFRAME_SIZE * (size_t)*nr;
}

void fxt_pystack_frame(const uint8_t *data, unsigned i, struct fxt_pyframe *ret)
{
	const uint8_t *p = data + FXT_PYSTACK_HDR + FXT_PYFRAME_SIZE * (size_t)i;

	ret->code = (uint32_t)fxt_get_le(p, 4);
	ret->lasti = (int32_t)fxt_get_le(p + 4, 4);
	ret->flags = (uint32_t)fxt_get_le(p + 8, 4);
}
