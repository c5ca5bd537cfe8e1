/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Whether the running kernel preempts kernel code: a tracing program (a
 * tp_btf one, as the off-CPU rewalk's on rseq_update) runs with migration
 * off but preemptible under preempt=full, lazy and RT, and the per-CPU and
 * per-task state it shares with the sched_switch program is then not its
 * own for the length of a walk. Under none and voluntary (Debian's
 * default) kernel code is not preempted.
 */
#ifndef FXS_DAEMON_KPREEMPT_H
#define FXS_DAEMON_KPREEMPT_H

#include <stdbool.h>

enum kpreempt {
	KPREEMPT_UNKNOWN,
	KPREEMPT_NONE,
	KPREEMPT_VOLUNTARY,
	KPREEMPT_FULL, /* full, lazy or RT: kernel code may be preempted */
};

/*
 * The model from what the kernel tells, most direct first (any may be NULL):
 * debugfs' sched/preempt ("none (voluntary) full lazy"), uname -v (a kernel
 * built without PREEMPT_DYNAMIC names its model there, or none), the boot
 * command line's preempt=, and the build's default in its config.
 */
enum kpreempt kpreempt_parse(const char *debugfs, const char *uname_version, const char *cmdline,
			     const char *config);

/* The running kernel's, read from /sys/kernel/debug, uname, /proc/cmdline, its config. */
enum kpreempt kpreempt_running(void);

#endif /* FXS_DAEMON_KPREEMPT_H */
