/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CPython's objects as bytes: the layout of each supported version (the
 * offsets the BPF walk follows and those of the code object user space reads),
 * a code object's fields, its strings, and the 3.11+ location table that turns
 * an instruction offset into a line. Pure: no process is read here (the
 * caller hands in the bytes), so every rule is unit-tested on bytes.
 */
#ifndef FXS_DAEMON_LANG_PYTHON_CODE_H
#define FXS_DAEMON_LANG_PYTHON_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampler.h"

/* What a code object's record needs, and where it is in one version's objects. */
struct py_layout {
	unsigned minor;		      /* 11, 13 */
	uint64_t runtime_interp_head; /* _PyRuntime.interpreters.head */
	struct fxs_py_proc walk;      /* the BPF walk's offsets (interp_head unset) */
	/* PyCodeObject */
	size_t code_size; /* the bytes read of a code object: every field below lies in them */
	size_t code_firstlineno, code_filename, code_qualname, code_linetable;
	size_t code_type_basicsize; /* PyCode_Type.tp_basicsize: checks the table against a file */
	/* str and bytes */
	size_t ascii_size;   /* sizeof(PyASCIIObject): a compact ASCII string's data */
	size_t compact_size; /* sizeof(PyCompactUnicodeObject): other compact strings' data */
	size_t unicode_state;
	bool str_ready_bit;	       /* 3.11's state has a ready bit (7); 3.12+ dropped it */
	size_t bytes_size, bytes_data; /* PyBytesObject: ob_size, ob_sval */
};

/* The layout of 3.MINOR, or NULL when this build knows none. */
const struct py_layout *py_layout_for(unsigned minor);

/* A code object's pointers and first line, from its code_size bytes. */
struct py_code_refs {
	uint64_t qualname, filename, linetable;
	int firstlineno;
};
void py_code_refs(const struct py_layout *l, const uint8_t *obj, struct py_code_refs *ret);
/* The check the BPF walk took of the code object (fxs_py_frame.check, no entry bit). */
uint32_t py_code_check(const struct py_layout *l, const uint8_t *obj);

/*
 * A str object's header (its first compact_size bytes): how many bytes of
 * data follow at which offset, and how wide a character is (1, 2 or 4).
 * false: not a compact, ready string (the caller names it "?").
 */
bool py_str_header(const struct py_layout *l, const uint8_t *hdr, size_t *ret_off, size_t *ret_len,
		   unsigned *ret_kind);
/*
 * A str's characters (len of them, kind bytes each) as UTF-8 into out (size
 * bytes, NUL-terminated, cut at a character): the bytes written.
 */
size_t py_str_utf8(const uint8_t *data, size_t len, unsigned kind, char *out, size_t size);

/*
 * The source line of instruction lasti (code units) in a 3.11+ location
 * table; firstlineno for lasti < 0 (not started yet); -1 when the table
 * gives the instruction no line or ends before it.
 */
int py_line_of(const uint8_t *table, size_t len, int firstlineno, int lasti);

#endif /* FXS_DAEMON_LANG_PYTHON_CODE_H */
