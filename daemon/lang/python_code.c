// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* CPython's objects as bytes (lang/python_code.h). */
#include <string.h>

#include "lang/python_code.h"

/*
 * CPython 3.11 (x86_64, arm64, riscv64: LP64), from Include/internal/
 * pycore_{runtime,interp,frame}.h, Include/cpython/{pystate,code,
 * unicodeobject,bytesobject}.h; checked on Debian 12's 3.11.2 with gdb's
 * ptype/o on python3.11-dbg (docs/interpreters.md) and by reading live
 * processes. PyCode_Type.tp_basicsize is offsetof(co_code_adaptive): a file
 * whose value differs has another layout and is not walked.
 */
static const struct py_layout py311 = {
	.minor = 11,
	.runtime_interp_head = 40,
	.walk =
		{
			.interp_threads = 16,
			.ts_next = 8,
			.ts_native_tid = 160,
			.ts_frame = 56,
			.cframe_frame = 8,
			.f_code = 32,
			.f_previous = 48,
			.f_instr = 56,
			.f_entry = 68,
			.f_owner = 69,
			.code_adaptive = 184,
			.code_check = 72, /* co_firstlineno, co_nlocalsplus */
			.version = 11,
		},
	.code_size = 184,
	.code_firstlineno = 72,
	.code_filename = 112,
	.code_qualname = 128,
	.code_linetable = 136,
	.code_type_basicsize = 184,
	.ascii_size = 48,
	.compact_size = 72,
	.unicode_state = 32,
	.str_ready_bit = true,
	.bytes_size = 16,
	.bytes_data = 32,
};

/*
 * CPython 3.13, from the same headers of the 3.13 branch; checked on
 * Debian 13's 3.13.5 (python3.13 3.13.5-2+deb13u5) against the file's own
 * _Py_DebugOffsets (lang/python_debug_offsets.h), which a file must agree
 * with to be walked. The thread state has current_frame (no _PyCFrame); the
 * frame names its code object f_executable, which is Py_None in the shim
 * frame an eval-loop invocation starts with (no is_entry: user space marks
 * the frame above a shim as the entry); instr_ptr is the instruction now
 * executing, as 3.11's prev_instr. The code check is co_firstlineno and
 * co_nlocalsplus, as in 3.11, 4 bytes earlier. Strings lost their ready bit
 * and wstr: PyASCIIObject is 40 bytes, PyCompactUnicodeObject 56.
 */
static const struct py_layout py313 = {
	.minor = 13,
	.runtime_interp_head = 632,
	.walk =
		{
			.interp_threads = 7344,
			.ts_next = 8,
			.ts_native_tid = 160,
			.ts_frame = 72,
			.cframe_frame = FXS_PY_NO_FIELD,
			.f_code = 0,
			.f_previous = 8,
			.f_instr = 56,
			.f_entry = FXS_PY_NO_FIELD,
			.f_owner = 70,
			.code_adaptive = 200,
			.code_check = 68, /* co_firstlineno, co_nlocalsplus */
			.version = 13,
		},
	.code_size = 208,
	.code_firstlineno = 68,
	.code_filename = 112,
	.code_qualname = 128,
	.code_linetable = 136,
	.code_type_basicsize = 200,
	.ascii_size = 40,
	.compact_size = 56,
	.unicode_state = 32,
	.str_ready_bit = false,
	.bytes_size = 16,
	.bytes_data = 32,
};

const struct py_layout *py_layout_for(unsigned minor)
{
	return minor == 11 ? &py311 : minor == 13 ? &py313 : NULL;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

void py_code_refs(const struct py_layout *l, const uint8_t *obj, struct py_code_refs *ret)
{
	ret->qualname = le(obj + l->code_qualname, 8);
	ret->filename = le(obj + l->code_filename, 8);
	ret->linetable = le(obj + l->code_linetable, 8);
	ret->firstlineno = (int)(int32_t)le(obj + l->code_firstlineno, 4);
}

uint32_t py_code_check(const struct py_layout *l, const uint8_t *obj)
{
	uint32_t lo = (uint32_t)le(obj + l->walk.code_check, 4);
	uint32_t hi = (uint32_t)le(obj + l->walk.code_check + 4, 4);

	return FXS_PY_CHECK(lo, hi);
}

/*
 * 3.11's PyASCIIObject.state: interned:2, kind:3, compact:1, ascii:1,
 * ready:1 (bit 0 first, as GCC lays out bit-fields on little-endian); 3.13's
 * the same up to ascii, then statically_allocated:1 where ready was.
 */
bool py_str_header(const struct py_layout *l, const uint8_t *hdr, size_t *ret_off, size_t *ret_len,
		   unsigned *ret_kind)
{
	uint64_t len = le(hdr + 16, 8);
	unsigned state = (unsigned)le(hdr + l->unicode_state, 4);
	unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	unsigned ready = (state >> 7) & 1;

	if (!compact || (l->str_ready_bit && !ready) || (kind != 1 && kind != 2 && kind != 4) ||
	    len > (1u << 20))
		return false;
	if (ascii && kind != 1)
		return false;
	*ret_off = ascii ? l->ascii_size : l->compact_size;
	*ret_len = (size_t)len * kind;
	*ret_kind = kind;
	return true;
}

size_t py_str_utf8(const uint8_t *data, size_t len, unsigned kind, char *out, size_t size)
{
	size_t o = 0;

	if (!size)
		return 0;
	for (size_t i = 0; i + kind <= len; i += kind) {
		uint32_t c = (uint32_t)le(data + i, kind);
		char b[4];
		size_t n;

		if (c < 0x80) {
			b[0] = (char)c;
			n = 1;
		} else if (c < 0x800) {
			b[0] = (char)(0xc0 | c >> 6);
			b[1] = (char)(0x80 | (c & 0x3f));
			n = 2;
		} else if (c < 0x10000) {
			b[0] = (char)(0xe0 | c >> 12);
			b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			b[2] = (char)(0x80 | (c & 0x3f));
			n = 3;
		} else if (c < 0x110000) {
			b[0] = (char)(0xf0 | c >> 18);
			b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			b[3] = (char)(0x80 | (c & 0x3f));
			n = 4;
		} else {
			b[0] = '?';
			n = 1;
		}
		/* NUL stays out: names are C strings. */
		if (c == 0)
			b[0] = '?';
		if (o + n >= size)
			break;
		memcpy(out + o, b, n);
		o += n;
	}
	out[o] = '\0';
	return o;
}

/* A varint of the location table: 6 bits a byte, bit 6 says more follow. */
static bool varint(const uint8_t **p, const uint8_t *end, uint32_t *ret)
{
	uint32_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (*p >= end || shift > 30)
			return false;
		b = *(*p)++;
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	*ret = v;
	return true;
}

static bool svarint(const uint8_t **p, const uint8_t *end, int *ret)
{
	uint32_t u;

	if (!varint(p, end, &u))
		return false;
	*ret = u & 1 ? -(int)(u >> 1) : (int)(u >> 1);
	return true;
}

/*
 * Objects/locations.md: each entry's first byte has bit 7 set, its code in
 * bits 3..6 and (length - 1) code units in bits 0..2. Codes 0-9: the short
 * form (line unchanged, one byte of columns); 10-12: the line moves by
 * code - 10 (two bytes of columns); 13: a signed varint line delta; 14: the
 * long form (line delta, end line, two columns, all varints); 15: no location.
 */
int py_line_of(const uint8_t *table, size_t len, int firstlineno, int lasti)
{
	const uint8_t *p = table, *end;
	int line = firstlineno, addr = 0, delta;
	uint32_t skip;

	if (lasti < 0)
		return firstlineno;
	if (!table)
		return -1;
	end = table + len;
	while (p < end) {
		uint8_t first = *p++;
		unsigned code = (first >> 3) & 15, length = (first & 7) + 1;

		if (!(first & 0x80))
			return -1;
		delta = 0;
		if (code == 15) {
			/* no location */
		} else if (code == 14) {
			if (!svarint(&p, end, &delta) || !varint(&p, end, &skip) ||
			    !varint(&p, end, &skip) || !varint(&p, end, &skip))
				return -1;
		} else if (code == 13) {
			if (!svarint(&p, end, &delta))
				return -1;
		} else if (code >= 10) {
			delta = (int)code - 10;
			p += 2;
		} else {
			p += 1;
		}
		if (p > end)
			return -1;
		line += delta;
		if (lasti < addr + (int)length)
			return code == 15 ? -1 : line;
		addr += (int)length;
	}
	return -1;
}
