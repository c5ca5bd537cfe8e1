/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Python frames in an .fxt (record --python), in raw-data blob records
 * (type 5) that readers which know nothing of them skip by size:
 *
 * - FXT_PYCODE_BLOB, once per code object a sample met (before that
 *   sample's stack): id (u32, > 0, unique in the file), firstlineno (i32),
 *   pid (u64), the lengths of qualname, filename and line table (u16 each,
 *   then u16 0), then the qualname and filename (UTF-8, no NUL) and the
 *   location table (CPython 3.11+'s co_linetable, raw). A code object freed
 *   and another made at its address gets another id: older samples keep
 *   their names.
 * - FXT_PYSTACK_BLOB, right before the backtrace record it belongs to: the
 *   backtrace's timestamp and thread koid (u64 each), why the walk ended
 *   (u32, enum fxs_py_end) and the frame count (u32), then per Python frame,
 *   innermost first: code id (u32; 0: its code object could not be read),
 *   instruction offset in code units (i32, -1: not started) and flags (u32,
 *   FXT_PYF_*).
 *
 * All fields little-endian. Every record stays under FXT_MAX_BLOB_LEN.
 * Pure: encoding and parsing only.
 */
#ifndef FXS_DAEMON_FXT_FXT_PYTHON_H
#define FXS_DAEMON_FXT_FXT_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FXT_PYCODE_BLOB	 "fxsampler.pycode"
#define FXT_PYSTACK_BLOB "fxsampler.pystack"
#define FXT_PYCODE_HDR	 24
#define FXT_PYSTACK_HDR	 24
#define FXT_PYFRAME_SIZE 12
#define FXT_PYF_ENTRY	 0x1 /* the first frame of an eval-loop invocation */
/* Caps that keep a code record within a blob. */
#define FXT_PY_NAME_MAX	 1024
#define FXT_PY_FILE_MAX	 4096
#define FXT_PY_TABLE_MAX 16384

struct fxt_pycode {
	uint32_t id;
	int32_t firstlineno;
	uint64_t pid;
	const char *qualname, *filename; /* not NUL-terminated in a decoded record */
	size_t qualname_len, filename_len;
	const uint8_t *table;
	size_t table_len;
};

struct fxt_pyframe {
	uint32_t code;
	int32_t lasti;
	uint32_t flags;
};

/* A pycode payload into buf (room for FXT_MAX_BLOB_LEN): its length; 0 if over a cap. */
size_t fxt_pycode_encode(uint8_t *buf, const struct fxt_pycode *c);
/* A pycode payload's fields (pointing into data); false: not a whole one. */
bool fxt_pycode_decode(const uint8_t *data, size_t len, struct fxt_pycode *ret);

/* A pystack payload into buf (room for FXT_PYSTACK_HDR + 12 * nr): its length. */
size_t fxt_pystack_encode(uint8_t *buf, uint64_t ts, uint64_t tid, uint32_t end,
			  const struct fxt_pyframe *f, unsigned nr);
/* A pystack payload's header; frames with fxt_pystack_frame(). false: malformed. */
bool fxt_pystack_decode(const uint8_t *data, size_t len, uint64_t *ts, uint64_t *tid, uint32_t *end,
			unsigned *nr);
void fxt_pystack_frame(const uint8_t *data, unsigned i, struct fxt_pyframe *ret);

#endif /* FXS_DAEMON_FXT_FXT_PYTHON_H */
