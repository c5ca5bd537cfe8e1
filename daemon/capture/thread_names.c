// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "capture/thread_names.h"

static bool eq_tid(const void *ctx, size_t pos, const void *key)
{
	const struct thread_names *t = ctx;

	return t->v[pos].tid == *(const uint32_t *)key;
}

static const struct thread_name *find(const struct thread_names *t, uint32_t tid)
{
	size_t pos;

	if (!hash_index_find(&t->idx, hash_u64(FNV_INIT, tid), eq_tid, t, &tid, &pos))
		return NULL;
	return &t->v[pos];
}

/* The kernel's comm may fill all 16 bytes without a NUL; what follows one is noise. */
static void pad(char *dst, const char *src)
{
	size_t len = strnlen(src, FXS_COMM_LEN);

	memset(dst, 0, FXS_COMM_LEN);
	memcpy(dst, src, len);
}

bool thread_names_news(const struct thread_names *t, uint32_t tid, const struct fxs_comm *comm,
		       uint64_t ns)
{
	const struct thread_name *last = find(t, tid);

	if (!last)
		return true;
	if (!strncmp(last->comm.thread, comm->thread, FXS_COMM_LEN) &&
	    !strncmp(last->comm.process, comm->process, FXS_COMM_LEN))
		return false;
	return ns >= last->ns;
}

int thread_names_set(struct thread_names *t, uint32_t tid, const struct fxs_comm *comm, uint64_t ns)
{
	struct thread_name *e = (struct thread_name *)find(t, tid);
	uint64_t h = hash_u64(FNV_INIT, tid);

	if (!e) {
		if (array_reserve((void **)&t->v, &t->cap, t->len, sizeof(*t->v)))
			return -ENOMEM;
		if (hash_index_insert(&t->idx, h, t->len))
			return -ENOMEM;
		e = &t->v[t->len++];
		e->tid = tid;
	}
	e->ns = ns;
	pad(e->comm.thread, comm->thread);
	pad(e->comm.process, comm->process);
	return 0;
}

void thread_names_free(struct thread_names *t)
{
	if (!t)
		return;
	free(t->v);
	hash_index_free(&t->idx);
	memset(t, 0, sizeof(*t));
}
