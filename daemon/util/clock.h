/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The clocks, in nanoseconds: the one place that turns a timespec into a count. */
#ifndef FXS_DAEMON_CLOCK_H
#define FXS_DAEMON_CLOCK_H

#include <stdint.h>
#include <time.h>

/* clock id's time in ns; 0 if the clock cannot be read. */
uint64_t clock_ns(clockid_t id);

/* CLOCK_MONOTONIC in ns: for timeouts, rates and intervals within a process. */
static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CLOCK_MONOTONIC in ms, for poll()/epoll_wait() timeouts. */
static inline uint64_t mono_ms(void)
{
	return mono_ns() / 1000000;
}

/* CLOCK_MONOTONIC in whole seconds, for continuous mode's file ages. */
static inline int64_t mono_s(void)
{
	return (int64_t)(mono_ns() / 1000000000);
}

#endif /* FXS_DAEMON_CLOCK_H */
