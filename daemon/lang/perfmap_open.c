// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Finding, checking and reading a process's perf map (lang/perfmap_open.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "capture/procinfo.h"
#include "lang/perfmap.h"
#include "lang/perfmap_open.h"

/* A file's mtime is the coarse clock's, a process's start a tick's floor: this much slack. */
#define STALE_SLACK_NS 50000000ULL

static const char *const skip_names[PERFMAP_SKIP_NR] = {
	"skipped_symlink", "skipped_not_regular", "skipped_owner",     "skipped_links",
	"skipped_stale",   "skipped_too_large",	  "skipped_long_line", "skipped_no_tmp",
	"skipped_error",   "skipped_gone",	  "skipped_tmps",
};

static const char *const skip_texts[PERFMAP_SKIP_NR] = {
	"a symbolic link",
	"not a regular file",
	"owned by none of the process's uids",
	"a file of more than one link",
	"stale: older than the process",
	"larger than 256 MiB",
	"a line longer than 8192 bytes",
	"the process's root has no plain tmp directory",
	"could not be opened or read",
	"the process had exited before its root could be opened",
	"more tmp directories than are held at once (64)",
};

const char *perfmap_skip_name(unsigned why)
{
	return why < PERFMAP_SKIP_NR ? skip_names[why] : "?";
}

const char *perfmap_skip_text(unsigned why)
{
	return why < PERFMAP_SKIP_NR ? skip_texts[why] : "?";
}

/* "Uid:" (four uids) and "NSpid:" (its last field) of a /proc/PID/status text. */
static int parse_status(const char *text, uint32_t uids[4], pid_t *nspid)
{
	const char *u = strstr(text, "\nUid:"), *ns = strstr(text, "\nNSpid:");
	unsigned v[4];

	if (!u || sscanf(u + 5, "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]) != 4)
		return -EBADMSG;
	for (int i = 0; i < 4; i++)
		uids[i] = v[i];
	*nspid = 0;
	if (ns) {
		const char *p = ns + 7, *eol = strchr(p, '\n');
		long last = 0;
		char *e;

		while (p && (!eol || p < eol)) {
			long x = strtol(p, &e, 10);

			if (e == p)
				break;
			last = x;
			p = e;
		}
		*nspid = (pid_t)last;
	}
	return *nspid > 0 ? 0 : -EBADMSG;
}

static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

int perfmap_proc_read(const char *pid_dir, struct perfmap_proc *ret)
{
	char path[128], status[4096];
	int err;

	snprintf(path, sizeof(path), "%s/status", pid_dir);
	err = read_small(path, status, sizeof(status));
	if (!err)
		err = parse_status(status, ret->uids, &ret->nspid);
	if (!err)
		err = procinfo_start_ns(pid_dir, &ret->start_boot_ns);
	if (err)
		return err;
	ret->start_real_ns =
		ret->start_boot_ns + (clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME));
	return 0;
}

/*
 * One path component under dirfd, never a symlink (O_NOFOLLOW on the only
 * component: nothing to traverse, no ".." in a name we make), as an O_PATH fd.
 */
static int open_component(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | flags);

	return fd < 0 ? -errno : fd;
}

int perfmap_open_tmp(const char *pid_dir)
{
	char path[128];
	int root, fd;

	snprintf(path, sizeof(path), "%s/root", pid_dir);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* a process past its exit (a zombie, or reaped) has no root to open */
	if (root < 0)
		return -ESRCH;
	fd = open_component(root, "tmp", O_DIRECTORY);
	close(root);
	return fd == -ESRCH ? -EIO : fd;
}

unsigned perfmap_tmp_skip(int err)
{
	if (err == -ESRCH)
		return PERFMAP_SKIP_GONE;
	if (err == -ENOENT || err == -ENOTDIR || err == -ELOOP)
		return PERFMAP_SKIP_NO_TMP;
	return PERFMAP_SKIP_ERROR;
}

int perfmap_open_map(int tmp_fd, pid_t nspid)
{
	char name[64];

	snprintf(name, sizeof(name), "perf-%d.map", (int)nspid);
	return open_component(tmp_fd, name, 0);
}

int perfmap_check_fd(int fd, const uint32_t uids[4], uint64_t start_real_ns, struct stat *ret)
{
	struct stat *st = ret;
	uint64_t mtime;
	bool owner = false;

	if (fstat(fd, st))
		return PERFMAP_SKIP_ERROR + 1;
	if (S_ISLNK(st->st_mode))
		return PERFMAP_SKIP_SYMLINK + 1;
	if (!S_ISREG(st->st_mode))
		return PERFMAP_SKIP_NOT_REGULAR + 1;
	for (int i = 0; i < 4; i++)
		owner |= st->st_uid == uids[i];
	if (!owner)
		return PERFMAP_SKIP_OWNER + 1;
	if (st->st_nlink != 1)
		return PERFMAP_SKIP_LINKS + 1;
	mtime = (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + (uint64_t)st->st_mtim.tv_nsec;
	if (mtime + STALE_SLACK_NS < start_real_ns)
		return PERFMAP_SKIP_STALE + 1;
	if ((uint64_t)st->st_size > PERFMAP_MAX_FILE)
		return PERFMAP_SKIP_TOO_LARGE + 1;
	return 0;
}

int perfmap_read_fd(int fd, const uint32_t uids[4], uint64_t start_real_ns, const uint64_t *pcs,
		    size_t nr_pcs, struct perfmap_pick *ret_pick)
{
	const size_t buf_size = 1 << 16;
	struct stat st, st2;
	char *buf;
	uint64_t total = 0;
	char path[64];
	ssize_t n;
	int rfd, err;

	err = perfmap_check_fd(fd, uids, start_real_ns, &st);
	if (err)
		return err;
	/* the very inode checked, now for reading; never blocks (a FIFO was refused) */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rfd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (rfd < 0)
		return PERFMAP_SKIP_ERROR + 1;
	if (fstat(rfd, &st2) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(rfd);
		return PERFMAP_SKIP_ERROR + 1;
	}
	/* not static: the capture and fxsamplerd's scrapes read maps each on its own */
	buf = malloc(buf_size);
	if (!buf) {
		close(rfd);
		return -ENOMEM;
	}
	err = perfmap_pick_init(ret_pick, pcs, nr_pcs);
	while (!err && (n = read(rfd, buf, buf_size)) > 0) {
		total += (uint64_t)n;
		err = total > PERFMAP_MAX_FILE ? PERFMAP_SKIP_TOO_LARGE + 1
					       : perfmap_pick_feed(ret_pick, buf, (size_t)n);
	}
	if (!err && n < 0)
		err = PERFMAP_SKIP_ERROR + 1;
	if (!err)
		err = perfmap_pick_end(ret_pick);
	close(rfd);
	free(buf);
	if (err == -E2BIG)
		err = PERFMAP_SKIP_LONG_LINE + 1;
	if (err)
		perfmap_pick_free(ret_pick);
	return err;
}
