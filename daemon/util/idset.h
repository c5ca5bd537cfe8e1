/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A growable set of non-zero 64-bit ids (pids, tids, keys), open addressing. */
#ifndef FXS_DAEMON_IDSET_H
#define FXS_DAEMON_IDSET_H

#include <stddef.h>
#include <stdint.h>

struct idset {
	uint64_t *slots; /* 0 = empty */
	size_t cap;	 /* a power of two, or 0 */
	size_t len;
};

/* 1 if id was added, 0 if it was there, -ENOMEM, -EINVAL for id 0. */
int idset_add(struct idset *s, uint64_t id);
int idset_has(const struct idset *s, uint64_t id);
void idset_free(struct idset *s);

#endif /* FXS_DAEMON_IDSET_H */
