// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/procinfo.h"

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

int procinfo_parse_start(const char *stat, uint64_t *ret_ticks)
{
	/* the comm in parentheses may hold anything, ')' and spaces too */
	const char *p = strrchr(stat, ')');
	unsigned long long v;
	char *end;
	int field;

	if (!p)
		return -EBADMSG;
	p++;
	/* after ")": field 3 (state) .. field 22 (starttime) */
	for (field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -EBADMSG;
		if (field == 22)
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (*p < '0' || *p > '9')
		return -EBADMSG;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || (*end && *end != ' ' && *end != '\n'))
		return -EBADMSG;
	*ret_ticks = v;
	return 0;
}

int procinfo_start_ns(const char *pid_dir, uint64_t *ret_ns)
{
	char path[128], buf[1024];
	uint64_t ticks;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "%s/stat", pid_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	err = procinfo_parse_start(buf, &ticks);
	if (err)
		return err;
	if (hz <= 0)
		return -EINVAL;
	*ret_ns = ticks * (1000000000ULL / (uint64_t)hz);
	return 0;
}

int procinfo_not_dumpable(const char *pid_dir)
{
	char path[128], line[256];
	unsigned long ruid;
	struct stat st;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", pid_dir);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Uid: %lu", &ruid) == 1;
	fclose(f);
	if (!found)
		return -EBADMSG;
	/* the directory after the status: a process dumpable again in between reads as before */
	if (stat(pid_dir, &st))
		return errno == ENOENT ? -ESRCH : -errno;
	return st.st_uid != (uid_t)ruid;
}

int procinfo_cmdline_at(const char *pid_dir, char *buf, size_t size)
{
	char path[128];
	size_t n, i;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/cmdline", pid_dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	while (n && buf[n - 1] == '\0')
		n--;
	buf[n] = '\0';
	/* The arguments are NUL-separated. */
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	return (int)n;
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
