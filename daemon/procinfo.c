// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procinfo.h"

int procinfo_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[64];
	size_t n;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

pid_t procinfo_tgid(pid_t pid)
{
	char path[64], line[256];
	pid_t tgid = -ESRCH;
	FILE *f;

	if (pid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = (pid_t)strtol(line + 5, NULL, 10);
			break;
		}
	fclose(f);
	return tgid > 0 ? tgid : -ESRCH;
}

/* PF_KTHREAD of the task's flags (include/linux/sched.h), stable since 2.6.27 */
#define PF_KTHREAD_ 0x00200000UL

int procinfo_kind_from_stat(const char *stat)
{
	/* "pid (comm) S ppid pgrp session tty_nr tpgid flags ..."; comm may hold ')' */
	const char *p = strrchr(stat, ')');
	unsigned long flags;
	char state;

	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return -EINVAL;
	if (state == 'Z' || state == 'X')
		return PROCINFO_ZOMBIE;
	if (flags & PF_KTHREAD_)
		return PROCINFO_KTHREAD;
	return PROCINFO_USER;
}

int procinfo_kind(pid_t pid)
{
	char path[64], buf[1024];
	size_t n;
	FILE *f;

	if (pid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n ? procinfo_kind_from_stat(buf) : -ESRCH;
}
