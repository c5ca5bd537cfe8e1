/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Off-CPU intervals of an .fxt, for report: pairs each off-CPU backtrace with
 * the context switches of its interval, and sums each thread's time by state.
 * Pure: no libbpf, no I/O but the summary it is asked to write.
 *
 * An interval is written (daemon/capture/capture.c) as three records of one thread,
 * in this order: a context switch to idle at the start (the thread leaving),
 * a context switch from idle at the end (the thread coming back), and the
 * off-CPU backtrace stamped with the start. A backtrace pairs with its
 * thread's last interval when the start matches.
 */
#ifndef FXS_DAEMON_OFFCPU_H
#define FXS_DAEMON_OFFCPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sampler.h"

struct fxt_record;
struct offcpu;

/* NULL with errno set. */
struct offcpu *offcpu__new(void);
void offcpu__free(struct offcpu *o);

/*
 * Account one record: initialization (the tick rate), context switches,
 * backtraces (on-CPU ones count as samples of their thread) and the
 * "fxsampler" "config" counter. Others are ignored. Returns 0 or -ENOMEM.
 */
int offcpu_add(struct offcpu *o, const struct fxt_record *rec);

/*
 * After offcpu_add() of an off-CPU backtrace: the length of its interval in
 * ns, and true; false when it paired with no interval (then it weighs nothing
 * off the CPU).
 */
bool offcpu_last_interval(const struct offcpu *o, uint64_t *ret_ns);

/* The capture's sampling period from its "config" counter; 0 if it had none. */
uint64_t offcpu_period_ns(const struct offcpu *o);
/* Paired intervals. */
uint64_t offcpu_intervals(const struct offcpu *o);

/* One thread's time by state, in ns; running is its samples times the period. */
struct offcpu_thread {
	uint64_t pid, tid;
	uint64_t samples;
	uint64_t intervals;
	uint64_t state_ns[FXS_OFF_NR_STATES]; /* by enum fxs_offcpu_state */
};

/*
 * The threads seen, sorted by pid then tid, into *ret (malloc'd, the caller
 * frees). Returns how many, or -ENOMEM.
 */
long offcpu_threads(const struct offcpu *o, struct offcpu_thread **ret);

typedef const char *(*offcpu_name_fn)(void *ctx, uint64_t tid);

/*
 * The per-thread table: running (samples × period), runnable, sleeping,
 * uninterruptible and other time, each in ms, and the total. has_pid/has_tid
 * keep one process or thread. name gives a thread's label. 0 or -EIO.
 */
int offcpu_write_summary(const struct offcpu *o, FILE *out, bool has_pid, uint64_t pid,
			 bool has_tid, uint64_t tid, offcpu_name_fn name, void *ctx);

#endif /* FXS_DAEMON_OFFCPU_H */
