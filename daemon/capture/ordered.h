/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records from several per-CPU rings, handed on in time order: a process's
 * mapping (or fork) on one CPU must come before its sample on another, and a
 * drain reads ring after ring. Records are copied in as they are read; a
 * drain then hands on, oldest first, those stamped up to a horizon (a little
 * before the drain began: a record is stamped before it reaches its ring),
 * and keeps the rest for the next one. Each record starts with a struct
 * fxs_sample, whose time_ns orders it; equal times keep their reading order.
 * Pure: no libbpf, no logging.
 */
#ifndef FXS_DAEMON_ORDERED_H
#define FXS_DAEMON_ORDERED_H

#include <stddef.h>
#include <stdint.h>

#include "sampler.h"

struct ordered_rec {
	uint64_t time_ns, seq;
	size_t off, size;
};

struct ordered {
	char *buf; /* the records, each at an 8-byte aligned offset */
	size_t len, cap;
	struct ordered_rec *recs;
	size_t nr, cap_recs;
	uint64_t seq;
};

typedef int (*ordered_fn)(void *ctx, const struct fxs_sample *rec, size_t size);

/* Keep a copy of rec (size >= sizeof(struct fxs_sample)). 0, -EINVAL, -ENOMEM. */
int ordered_add(struct ordered *o, const void *rec, size_t size);
/*
 * Hand on to fn every record stamped at or before horizon, oldest first
 * (UINT64_MAX: all of them), and keep the others. fn's error stops it and is
 * returned; the records handed on before, and the one that failed, are gone.
 */
int ordered_flush(struct ordered *o, uint64_t horizon, ordered_fn fn, void *ctx);
/* Frees what it holds; o is empty and usable again. */
void ordered_free(struct ordered *o);

#endif /* FXS_DAEMON_ORDERED_H */
