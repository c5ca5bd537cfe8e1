/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Interned byte strings: one copy of each distinct string (a path, a build
 * id, a made-up function name), packed in large chunks rather than one
 * malloc each, and found again by util/hash.h's index. The copies never move
 * and live until strpool_free(): a pointer handed out may be kept (and
 * compared: two interned strings are equal exactly when their pointers are).
 * A zeroed struct strpool is empty.
 */
#ifndef FXS_DAEMON_STRPOOL_H
#define FXS_DAEMON_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct strpool_chunk;

struct strpool {
	struct strpool_chunk *chunks; /* newest first: strings are added to the first */
	const char **strs;	      /* [n], in the order they were first interned */
	size_t n, cap;
	struct hash_index idx;
};

/*
 * The pool's copy of the len bytes at data (which may hold NULs; a NUL is
 * kept after them), added when absent. NULL: out of memory (errno ENOMEM).
 */
const char *strpool_intern(struct strpool *p, const void *data, size_t len);
/* strpool_intern() of a C string. */
const char *strpool_str(struct strpool *p, const char *s);
/* The length an interned string was added with. */
size_t strpool_len(const char *interned);
/* Frees every copy: the pointers handed out are invalid. NULL-safe, reusable. */
void strpool_free(struct strpool *p);

#endif /* FXS_DAEMON_STRPOOL_H */
