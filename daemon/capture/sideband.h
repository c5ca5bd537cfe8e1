/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's own mapping events, as perf gets them: PERF_COUNT_SW_DUMMY
 * events with mmap, mmap2 and build_id set (Linux 5.12+; without build_id
 * before), timestamps by CLOCK_BOOTTIME like the BPF records, and one ring
 * per CPU. Either one event per CPU for every process (the whole host), or,
 * for sessions with targets, events that follow the targets' threads and
 * what they fork (the kernel's own filter, as perf record -p has it), all of
 * a CPU's writing into its ring. Every executable mapping they see comes out
 * as a PERF_RECORD_MMAP2 with the path and, where the kernel could read it,
 * the file's build id; here each becomes a record in the BPF rings' format
 * (struct fxs_sample of kind FXS_KIND_MMAP, struct fxs_mmap, the path), to be
 * merged with them by time. No libbpf, no logging.
 */
#ifndef FXS_DAEMON_SIDEBAND_H
#define FXS_DAEMON_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler.h"

struct sideband;

/* Called for each mapping read; non-zero stops the read and is returned. */
typedef int (*sideband_fn)(void *ctx, const struct fxs_sample *rec, size_t size);

/* For nr_cpus possible CPUs, ring_bytes per ring (a power of two, >= a page). NULL, errno set. */
/*
 * The size of each CPU's ring for nr_cpus CPUs, given the BPF rings' size:
 * 512 KiB, less with many CPUs (all of them take at most 4 MiB, half of the
 * memlock limit of a daemon without CAP_IPC_LOCK), never more than the BPF
 * rings.
 */
size_t sideband_ring_bytes(size_t buffer_size, int nr_cpus);
struct sideband *sideband__new(int nr_cpus, size_t ring_bytes);
/* Closes every event and unmaps its ring. NULL-safe. */
void sideband__free(struct sideband *sb);
/*
 * cpu's event of every process and its ring, unless cpu has a ring already:
 * 0, -ENODEV when offline, other -errno.
 */
int sideband_open_cpu(struct sideband *sb, int cpu);
/*
 * The kernel's own filter, for sessions with target pids: events that follow
 * pid's threads and, inherited, every thread and child they make from now on
 * (as perf record -p does), one per thread on each CPU in cpus, all writing
 * into that CPU's ring. No other process's mappings are copied. -ESRCH when
 * pid is gone, -E2BIG past SIDEBAND_TASK_EVENTS_MAX events in all or a
 * quarter of the soft RLIMIT_NOFILE (a fd each), other -errno (-EACCES
 * without ptrace rights on pid). On an error some events may be open: free
 * sb and start again.
 *
 * The kernel ends a task's events at an exec that leaves it not dumpable
 * (set-user-ID, set-group-ID, file capabilities; unless fs.suid_dumpable is
 * 1), after committing the credentials and before mapping the image, on
 * every kernel (begin_new_exec(), install_exec_creds() before 5.8): no
 * mapping of a privileged image, nor of what it forks, reaches this ring.
 */
#define SIDEBAND_TASK_EVENTS_MAX 1024
int sideband_open_process(struct sideband *sb, pid_t pid, const bool *cpus);
/* Read every ring to its end, oldest first per CPU. 0 or fn's error. */
int sideband_read(struct sideband *sb, sideband_fn fn, void *ctx);
/* Mapping records the kernel could not put in a full ring (PERF_RECORD_LOST). */
uint64_t sideband_lost(const struct sideband *sb);

#endif /* FXS_DAEMON_SIDEBAND_H */
