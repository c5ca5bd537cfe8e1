// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* CPython 3.13's _Py_DebugOffsets (lang/python_debug_offsets.h). */
#include <string.h>

#include "lang/python_debug_offsets.h"

/*
 * Word indices in 3.13's struct (each member a uint64_t): cookie 0, version
 * 1, free_threaded 2; runtime_state {size, finalizing, interpreters_head}
 * 3-5; interpreter_state {size, id, next, threads_head, gc, imports_modules,
 * sysdict, builtins, ceval_gil, gil_runtime_state, ..._enabled, ..._locked,
 * ..._holder} 6-18; thread_state {size, prev, next, interp, current_frame,
 * thread_id, native_thread_id, datastack_chunk, status} 19-27;
 * interpreter_frame {size, previous, executable, instr_ptr, localsplus,
 * owner} 28-33; code_object {size, filename, name, qualname, linetable,
 * firstlineno, argcount, localsplusnames, localspluskinds, co_code_adaptive}
 * 34-43; pyobject {size, ob_type} 44-45; type_object 46-49; tuple 50-52;
 * list 53-55; dict 56-58; float 59-60; long 61-63; bytes {size, ob_size,
 * ob_sval} 64-66; unicode {size, state, length, asciiobject_size} 67-70;
 * gc 71-72.
 */
enum {
	W_VERSION = 1,
	W_FREE_THREADED = 2,
	W_INTERPRETERS_HEAD = 5,
	W_THREADS_HEAD = 9,
	W_TS_NEXT = 21,
	W_TS_CURRENT_FRAME = 23,
	W_TS_NATIVE_TID = 25,
	W_FRAME_PREVIOUS = 29,
	W_FRAME_EXECUTABLE = 30,
	W_FRAME_INSTR_PTR = 31,
	W_FRAME_OWNER = 33,
	W_CODE_SIZE = 34,
	W_CODE_FILENAME = 35,
	W_CODE_QUALNAME = 37,
	W_CODE_LINETABLE = 38,
	W_CODE_FIRSTLINENO = 39,
	W_CODE_ADAPTIVE = 43,
	W_OB_TYPE = 45,
	W_BYTES_OB_SIZE = 65,
	W_BYTES_OB_SVAL = 66,
	W_UNICODE_STATE = 68,
	W_UNICODE_LENGTH = 69,
	W_ASCII_SIZE = 70,
};

static uint64_t word(const uint8_t *blob, unsigned i)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < 8; k++)
		v |= (uint64_t)blob[8 * i + k] << (8 * k);
	return v;
}

enum py_debug_result py_debug_offsets_313(const uint8_t *blob, size_t len,
					  struct py_debug_offsets *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (len < PY_DEBUG_OFFSETS_313_LEN)
		return PY_DEBUG_SHORT;
	if (memcmp(blob, PY_DEBUG_COOKIE, 8))
		return PY_DEBUG_NO_COOKIE;
	ret->version = word(blob, W_VERSION);
	/* PY_VERSION_HEX: 0x030d.... is 3.13; the layout of another minor differs */
	if ((ret->version >> 16) != 0x030d)
		return PY_DEBUG_VERSION;
	ret->free_threaded = word(blob, W_FREE_THREADED);
	ret->interpreters_head = word(blob, W_INTERPRETERS_HEAD);
	ret->threads_head = word(blob, W_THREADS_HEAD);
	ret->ts_next = word(blob, W_TS_NEXT);
	ret->ts_current_frame = word(blob, W_TS_CURRENT_FRAME);
	ret->ts_native_tid = word(blob, W_TS_NATIVE_TID);
	ret->frame_previous = word(blob, W_FRAME_PREVIOUS);
	ret->frame_executable = word(blob, W_FRAME_EXECUTABLE);
	ret->frame_instr_ptr = word(blob, W_FRAME_INSTR_PTR);
	ret->frame_owner = word(blob, W_FRAME_OWNER);
	ret->code_size = word(blob, W_CODE_SIZE);
	ret->code_filename = word(blob, W_CODE_FILENAME);
	ret->code_qualname = word(blob, W_CODE_QUALNAME);
	ret->code_linetable = word(blob, W_CODE_LINETABLE);
	ret->code_firstlineno = word(blob, W_CODE_FIRSTLINENO);
	ret->code_adaptive = word(blob, W_CODE_ADAPTIVE);
	ret->ob_type = word(blob, W_OB_TYPE);
	ret->bytes_ob_size = word(blob, W_BYTES_OB_SIZE);
	ret->bytes_ob_sval = word(blob, W_BYTES_OB_SVAL);
	ret->unicode_state = word(blob, W_UNICODE_STATE);
	ret->unicode_length = word(blob, W_UNICODE_LENGTH);
	ret->ascii_size = word(blob, W_ASCII_SIZE);
	return PY_DEBUG_OK;
}

bool py_debug_offsets_agree(const struct py_layout *l, const struct py_debug_offsets *d,
			    const char **ret_field)
{
	const struct {
		const char *name;
		uint64_t table, file;
	} f[] = {
		{"free_threaded", 0, d->free_threaded},
		{"interpreters_head", l->runtime_interp_head, d->interpreters_head},
		{"threads_head", l->walk.interp_threads, d->threads_head},
		{"thread_state.next", l->walk.ts_next, d->ts_next},
		{"thread_state.current_frame", l->walk.ts_frame, d->ts_current_frame},
		{"thread_state.native_thread_id", l->walk.ts_native_tid, d->ts_native_tid},
		{"interpreter_frame.previous", l->walk.f_previous, d->frame_previous},
		{"interpreter_frame.executable", l->walk.f_code, d->frame_executable},
		{"interpreter_frame.instr_ptr", l->walk.f_instr, d->frame_instr_ptr},
		{"interpreter_frame.owner", l->walk.f_owner, d->frame_owner},
		{"code_object.size", l->code_size, d->code_size},
		{"code_object.filename", l->code_filename, d->code_filename},
		{"code_object.qualname", l->code_qualname, d->code_qualname},
		{"code_object.linetable", l->code_linetable, d->code_linetable},
		{"code_object.firstlineno", l->code_firstlineno, d->code_firstlineno},
		{"code_object.co_code_adaptive", l->walk.code_adaptive, d->code_adaptive},
		{"pyobject.ob_type", 8, d->ob_type},
		{"bytes_object.ob_size", l->bytes_size, d->bytes_ob_size},
		{"bytes_object.ob_sval", l->bytes_data, d->bytes_ob_sval},
		{"unicode_object.state", l->unicode_state, d->unicode_state},
		{"unicode_object.length", 16, d->unicode_length},
		{"unicode_object.asciiobject_size", l->ascii_size, d->ascii_size},
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].table != f[i].file) {
			*ret_field = f[i].name;
			return false;
		}
	}
	*ret_field = NULL;
	return true;
}
