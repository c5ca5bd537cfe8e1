/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Which CPUs are online, from sysfs. */
#ifndef FXS_DAEMON_CPUS_H
#define FXS_DAEMON_CPUS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Parse a kernel CPU list ("0-3,5\n") into mask[0..n): 0 or -EINVAL for a
 * malformed list or a CPU >= n.
 */
int cpus_parse_list(const char *list, bool *mask, size_t n);
/* The online CPUs from /sys/devices/system/cpu/online into mask[0..n). */
int cpus_online(bool *mask, size_t n);
/* Reads /sys/devices/system/cpu/online; a CPU it cannot tell about is online. */
bool cpu_is_online(int cpu);

#endif /* FXS_DAEMON_CPUS_H */
