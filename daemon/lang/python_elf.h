/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A CPython interpreter in an ELF file: the python executable (Debian links
 * libpython in) or a libpython3.X.so an embedding program maps. Known by its
 * dynamic symbols _PyRuntime and Py_Version; its version from Py_Version's
 * static value, its layout from lang/python_code.h's table, checked against
 * the file (PyCode_Type.tp_basicsize; from 3.13 also every offset the file
 * publishes in _Py_DebugOffsets at _PyRuntime). Reads the file only.
 */
#ifndef FXS_DAEMON_LANG_PYTHON_ELF_H
#define FXS_DAEMON_LANG_PYTHON_ELF_H

#include <stdint.h>

#include "lang/python_code.h"

/* What a file is, for the Python walk. */
enum py_image_kind {
	PY_IMAGE_NONE = 0,	  /* not an interpreter */
	PY_IMAGE_OK = 1,	  /* a supported interpreter: layout set */
	PY_IMAGE_UNSUPPORTED = 2, /* an interpreter of a version this build does not walk */
	PY_IMAGE_MISMATCH = 3,	  /* a supported version whose objects differ from the table */
	PY_IMAGE_UNREADABLE = 4,  /* its symbols named it, its values could not be read */
};

struct py_image {
	enum py_image_kind kind;
	unsigned major, minor, micro;
	uint64_t runtime;   /* _PyRuntime's address in the file (its st_value) */
	uint64_t code_type; /* PyCode_Type's: every code object's ob_type, once mapped */
	uint64_t none;	    /* _Py_NoneStruct's (3.13: a shim frame's f_executable), or 0 */
	const char *why;    /* MISMATCH: the first field that differs (static), or NULL */
	const struct py_layout *layout;
};

/* The interpreter in the ELF file open on fd (borrowed): 0 and *ret set, or -errno. */
int py_image_detect(int fd, struct py_image *ret);
/* A one-word reason for the summary ("ok", "unsupported version", ...). */
const char *py_image_kind_name(enum py_image_kind k);

#endif /* FXS_DAEMON_LANG_PYTHON_ELF_H */
