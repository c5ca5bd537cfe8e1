/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CPython 3.13's _Py_DebugOffsets: the offsets an out-of-process reader
 * needs, published by the interpreter itself as the first member of
 * _PyRuntime (a static initializer, so in the ELF file's .PyRuntime section
 * too). The struct is stable within a minor version only: this reads the
 * 3.13 layout (Include/internal/pycore_runtime.h of the 3.13 branch), 73
 * words, and says whether a version's built-in table (lang/python_code.h)
 * agrees with what the file publishes. Pure: bytes in, fields out.
 */
#ifndef FXS_DAEMON_LANG_PYTHON_DEBUG_OFFSETS_H
#define FXS_DAEMON_LANG_PYTHON_DEBUG_OFFSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/python_code.h"

#define PY_DEBUG_COOKIE		 "xdebugpy"
#define PY_DEBUG_OFFSETS_313_LEN (73 * 8) /* sizeof(_Py_DebugOffsets) in 3.13 */

/* The fields of 3.13's _Py_DebugOffsets the walk and the code reader use. */
struct py_debug_offsets {
	uint64_t version; /* PY_VERSION_HEX of the build */
	uint64_t free_threaded;
	uint64_t interpreters_head;			   /* _PyRuntime */
	uint64_t threads_head;				   /* PyInterpreterState */
	uint64_t ts_next, ts_current_frame, ts_native_tid; /* PyThreadState */
	uint64_t frame_previous, frame_executable, frame_instr_ptr, frame_owner;
	uint64_t code_size, code_filename, code_qualname, code_linetable, code_firstlineno;
	uint64_t code_adaptive;
	uint64_t ob_type;
	uint64_t bytes_ob_size, bytes_ob_sval;
	uint64_t unicode_state, unicode_length, ascii_size;
};

enum py_debug_result {
	PY_DEBUG_OK = 0,
	PY_DEBUG_SHORT = 1,	/* fewer bytes than the struct */
	PY_DEBUG_NO_COOKIE = 2, /* not "xdebugpy": no debug offsets there */
	PY_DEBUG_VERSION = 3,	/* the cookie, but not a 3.13 build */
};

/* The 3.13 struct's fields from its len bytes at blob (the file's, little-endian). */
enum py_debug_result py_debug_offsets_313(const uint8_t *blob, size_t len,
					  struct py_debug_offsets *ret);
/*
 * Whether the layout l (a built-in table) agrees with d on every field the
 * walk and the code reader take from it, and the build is not free-threaded
 * (3.13t lays objects out otherwise). The first field that differs is named
 * in *ret_field (a static string), for the summary.
 */
bool py_debug_offsets_agree(const struct py_layout *l, const struct py_debug_offsets *d,
			    const char **ret_field);

#endif /* FXS_DAEMON_LANG_PYTHON_DEBUG_OFFSETS_H */
