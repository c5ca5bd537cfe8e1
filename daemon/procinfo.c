// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procinfo.h"

int procinfo_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char dir[32];

	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	return procinfo_comm_at(dir, tid, buf, size);
}

int procinfo_comm_at(const char *pid_dir, pid_t tid, char *buf, size_t size)
{
	char path[128];
	size_t n;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/task/%d/comm", pid_dir, (int)tid);
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
