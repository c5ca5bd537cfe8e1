/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The names last written for each thread of a capture, with the time they
 * held, so a rename is written once and an older name, drained late from
 * another CPU's ring, does not undo a newer one. Pure: no I/O. A zeroed
 * struct thread_names is empty.
 */
#ifndef FXS_DAEMON_THREAD_NAMES_H
#define FXS_DAEMON_THREAD_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "util/hash.h"
#include "sampler.h"

struct thread_name {
	uint32_t tid;
	uint64_t ns;	      /* when these names held (the record's time) */
	struct fxs_comm comm; /* NUL-padded */
};

struct thread_names {
	struct thread_name *v;
	size_t len, cap;
	struct hash_index idx;
};

/*
 * Whether comm, as tid's names at ns, is news: tid has none yet, or they
 * differ from the last ones set and are not older. Names compare as strings
 * of at most FXS_COMM_LEN bytes (what follows a NUL does not count).
 */
bool thread_names_news(const struct thread_names *t, uint32_t tid, const struct fxs_comm *comm,
		       uint64_t ns);
/* tid's names are comm from ns on: 0 or -ENOMEM. */
int thread_names_set(struct thread_names *t, uint32_t tid, const struct fxs_comm *comm,
		     uint64_t ns);
/* Leaves it empty and reusable. NULL-safe. */
void thread_names_free(struct thread_names *t);

#endif /* FXS_DAEMON_THREAD_NAMES_H */
