// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A capture's side of perf maps (lang/perfmap_capture.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/containers.h"
#include "util/idset.h"
#include "util/sorted.h"
#include "capture/procinfo.h"
#include "lang/perfmap.h"
#include "lang/perfmap_capture.h"

/* A file's mtime is the coarse clock's, a process's start a tick's floor: this much slack. */
#define STALE_SLACK_NS 50000000ULL
#define BLOB_MAX       32000 /* a payload well under Perfetto's 32 KiB record limit */
#define MAX_REFUSED    65536

struct tmp_dir {
	int fd;
	dev_t dev;
	ino_t ino;
};

struct proc_ent {
	pid_t pid;
	pid_t nspid;	  /* its pid in its own namespace: the map's name */
	uint32_t uids[4]; /* real, effective, saved, fs */
	uint64_t start_real_ns;
	int tmp; /* index in tmps, -1: none */
	struct idset pcs;
};

struct perfmap_capture {
	struct proc_ent *procs; /* sorted by pid */
	size_t nr_procs, cap_procs;
	struct tmp_dir tmps[PERFMAP_MAX_TMPS];
	unsigned nr_tmps;
	struct idset refused; /* pids not followed (over the bound, or gone), up to MAX_REFUSED */
	struct idset told;    /* (pid, reason) told already: an exec reads a map twice */
	uint64_t nr_pcs;
	struct perfmap_stats st;
	void (*tell)(void *ctx, uint32_t pid, const char *text);
	void *ctx;
};

static const char *const skip_names[PERFMAP_SKIP_NR] = {
	"skipped_symlink",   "skipped_not_regular", "skipped_owner",
	"skipped_links",     "skipped_stale",	    "skipped_too_large",
	"skipped_long_line", "skipped_no_tmp",	    "skipped_error",
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
};

const char *perfmap_skip_name(unsigned why)
{
	return why < PERFMAP_SKIP_NR ? skip_names[why] : "?";
}

struct perfmap_capture *
perfmap_capture__new(void (*tell)(void *ctx, uint32_t pid, const char *text), void *ctx)
{
	struct perfmap_capture *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	pc->tell = tell;
	pc->ctx = ctx;
	return pc;
}

void perfmap_capture__free(struct perfmap_capture *pc)
{
	if (!pc)
		return;
	for (size_t i = 0; i < pc->nr_procs; i++)
		idset_free(&pc->procs[i].pcs);
	for (unsigned i = 0; i < pc->nr_tmps; i++)
		close(pc->tmps[i].fd);
	idset_free(&pc->refused);
	idset_free(&pc->told);
	free(pc->procs);
	free(pc);
}

static int cmp_pid(const void *key, const void *elem)
{
	pid_t k = *(const pid_t *)key, e = ((const struct proc_ent *)elem)->pid;

	return (k > e) - (k < e);
}

static struct proc_ent *find_proc(const struct perfmap_capture *pc, pid_t pid, size_t *pos)
{
	return sorted_find(pc->procs, pc->nr_procs, sizeof(*pc->procs), &pid, cmp_pid, pos);
}

bool perfmap_capture_follows(const struct perfmap_capture *pc, pid_t pid)
{
	return find_proc(pc, pid, NULL) || idset_has(&pc->refused, (uint64_t)pid) > 0;
}

static void refuse(struct perfmap_capture *pc, pid_t pid)
{
	pc->st.procs_dropped++;
	if (pc->refused.len < MAX_REFUSED)
		idset_add(&pc->refused, (uint64_t)pid);
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

/*
 * One path component under dirfd, never a symlink (O_NOFOLLOW on the only
 * component: nothing to traverse, no ".." in a name we make), as an O_PATH fd.
 */
static int open_component(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | flags);

	return fd < 0 ? -errno : fd;
}

/*
 * The process's tmp, as it sees it: a directory of its root, not a
 * symlink. Held by an O_PATH fd, shared by every process that
 * sees the same one; -1 when it cannot be had.
 */
static int get_tmp(struct perfmap_capture *pc, const char *pid_dir)
{
	char path[128];
	struct stat st;
	int root, fd;

	snprintf(path, sizeof(path), "%s/root", pid_dir);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -1;
	fd = open_component(root, "tmp", O_DIRECTORY);
	close(root);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	for (unsigned i = 0; i < pc->nr_tmps; i++) {
		if (pc->tmps[i].dev == st.st_dev && pc->tmps[i].ino == st.st_ino) {
			close(fd);
			return (int)i;
		}
	}
	if (pc->nr_tmps >= PERFMAP_MAX_TMPS) {
		close(fd);
		return -1;
	}
	pc->tmps[pc->nr_tmps] = (struct tmp_dir){fd, st.st_dev, st.st_ino};
	return (int)pc->nr_tmps++;
}

int perfmap_capture_follow(struct perfmap_capture *pc, pid_t pid, const char *pid_dir)
{
	struct proc_ent e = {.pid = pid, .tmp = -1};
	char path[128], status[4096];
	uint64_t start_boot;
	size_t pos;

	if (perfmap_capture_follows(pc, pid))
		return 0;
	snprintf(path, sizeof(path), "%s/status", pid_dir);
	if (pc->nr_procs >= PERFMAP_MAX_PROCS || read_small(path, status, sizeof(status)) ||
	    parse_status(status, e.uids, &e.nspid) || procinfo_start_ns(pid_dir, &start_boot)) {
		refuse(pc, pid);
		return 0;
	}
	e.start_real_ns = start_boot + (clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME));
	e.tmp = get_tmp(pc, pid_dir);
	find_proc(pc, pid, &pos);
	if (array_reserve((void **)&pc->procs, &pc->cap_procs, pc->nr_procs, sizeof(*pc->procs)))
		return -ENOMEM;
	memmove(&pc->procs[pos + 1], &pc->procs[pos], (pc->nr_procs - pos) * sizeof(*pc->procs));
	pc->procs[pos] = e;
	pc->nr_procs++;
	return 0;
}

int perfmap_capture_note(struct perfmap_capture *pc, pid_t pid, uint64_t addr)
{
	struct proc_ent *p = find_proc(pc, pid, NULL);
	int added;

	if (!p || !addr)
		return 0;
	if (p->pcs.len >= PERFMAP_MAX_PROC_PCS || pc->nr_pcs >= PERFMAP_MAX_PCS) {
		if (idset_has(&p->pcs, addr) <= 0)
			pc->st.pcs_dropped++;
		return 0;
	}
	added = idset_add(&p->pcs, addr);
	if (added < 0)
		return added;
	pc->nr_pcs += (uint64_t)added;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int perfmap_read_fd(int fd, const uint32_t uids[4], uint64_t start_real_ns, const uint64_t *pcs,
		    size_t nr_pcs, struct perfmap_pick *ret_pick)
{
	static char buf[1 << 16];
	struct stat st, st2;
	uint64_t mtime, total = 0;
	char path[64];
	bool owner = false;
	ssize_t n;
	int rfd, err;

	if (fstat(fd, &st))
		return PERFMAP_SKIP_ERROR + 1;
	if (S_ISLNK(st.st_mode))
		return PERFMAP_SKIP_SYMLINK + 1;
	if (!S_ISREG(st.st_mode))
		return PERFMAP_SKIP_NOT_REGULAR + 1;
	for (int i = 0; i < 4; i++)
		owner |= st.st_uid == uids[i];
	if (!owner)
		return PERFMAP_SKIP_OWNER + 1;
	if (st.st_nlink != 1)
		return PERFMAP_SKIP_LINKS + 1;
	mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec;
	if (mtime + STALE_SLACK_NS < start_real_ns)
		return PERFMAP_SKIP_STALE + 1;
	if ((uint64_t)st.st_size > PERFMAP_MAX_FILE)
		return PERFMAP_SKIP_TOO_LARGE + 1;
	/* the very inode checked, now for reading; never blocks (a FIFO was refused) */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rfd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (rfd < 0)
		return PERFMAP_SKIP_ERROR + 1;
	if (fstat(rfd, &st2) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(rfd);
		return PERFMAP_SKIP_ERROR + 1;
	}
	err = perfmap_pick_init(ret_pick, pcs, nr_pcs);
	while (!err && (n = read(rfd, buf, sizeof(buf))) > 0) {
		total += (uint64_t)n;
		err = total > PERFMAP_MAX_FILE ? PERFMAP_SKIP_TOO_LARGE + 1
					       : perfmap_pick_feed(ret_pick, buf, (size_t)n);
	}
	if (!err && n < 0)
		err = PERFMAP_SKIP_ERROR + 1;
	if (!err)
		err = perfmap_pick_end(ret_pick);
	close(rfd);
	if (err == -E2BIG)
		err = PERFMAP_SKIP_LONG_LINE + 1;
	if (err)
		perfmap_pick_free(ret_pick);
	return err;
}

static int write_entries(struct perfmap_capture *pc, struct fxt_stream *s, pid_t pid,
			 const struct perfmap_pick *pick)
{
	static char buf[BLOB_MAX];
	const struct perfmap_kept *k;
	size_t i = 0, len = 0;
	int err = 0;

	while (!err && perfmap_pick_get(pick, &i, &k)) {
		size_t name_len = strlen(k->name);

		if (!perfmap_blob_add(buf, sizeof(buf), &len, (uint64_t)pid, k->start, k->size,
				      k->name, name_len)) {
			err = fxt_stream_blob(s, FXT_PERFMAP_BLOB, buf, len);
			len = 0;
			if (!err && !perfmap_blob_add(buf, sizeof(buf), &len, (uint64_t)pid,
						      k->start, k->size, k->name, name_len))
				err = -EINVAL;
		}
		pc->st.entries++;
	}
	if (!err && len)
		err = fxt_stream_blob(s, FXT_PERFMAP_BLOB, buf, len);
	return err;
}

static void skipped(struct perfmap_capture *pc, const struct proc_ent *p, unsigned why)
{
	char text[200];

	pc->st.skipped[why]++;
	if (!pc->tell || (pc->told.len < MAX_REFUSED &&
			  idset_add(&pc->told, (uint64_t)p->pid << 8 | (why + 1)) == 0))
		return;
	snprintf(text, sizeof(text),
		 "perf map of pid %d (/tmp/perf-%d.map in its namespace) not "
		 "used: %s",
		 (int)p->pid, (int)p->nspid, skip_texts[why]);
	pc->tell(pc->ctx, (uint32_t)p->pid, text);
}

/* p's map, read and written; p stays. */
static int read_proc(struct perfmap_capture *pc, struct fxt_stream *s, struct proc_ent *p)
{
	struct perfmap_pick *pick;
	uint64_t *pcs;
	char name[64];
	size_t n = p->pcs.len;
	int fd, err;

	if (!n)
		return 0;
	pc->st.pcs += n;
	if (p->tmp < 0) {
		skipped(pc, p, PERFMAP_SKIP_NO_TMP);
		return 0;
	}
	snprintf(name, sizeof(name), "perf-%d.map", (int)p->nspid);
	fd = open_component(pc->tmps[p->tmp].fd, name, 0);
	if (fd == -ENOENT) {
		pc->st.maps_absent++;
		return 0;
	}
	if (fd < 0) {
		skipped(pc, p, fd == -ELOOP ? PERFMAP_SKIP_SYMLINK : PERFMAP_SKIP_ERROR);
		return 0;
	}
	pcs = malloc(n * sizeof(*pcs));
	pick = malloc(sizeof(*pick));
	if (!pcs || !pick) {
		free(pcs);
		free(pick);
		close(fd);
		return -ENOMEM;
	}
	memcpy(pcs, p->pcs.ids, n * sizeof(*pcs));
	qsort(pcs, n, sizeof(*pcs), cmp_u64);
	err = perfmap_read_fd(fd, p->uids, p->start_real_ns, pcs, n, pick);
	close(fd);
	if (err > 0) {
		skipped(pc, p, (unsigned)err - 1);
		err = 0;
	} else if (!err) {
		pc->st.maps_read++;
		err = write_entries(pc, s, p->pid, pick);
		perfmap_pick_free(pick);
	}
	free(pick);
	free(pcs);
	return err;
}

int perfmap_capture_flush(struct perfmap_capture *pc, struct fxt_stream *s, pid_t pid)
{
	struct proc_ent *p = find_proc(pc, pid, NULL);
	size_t pos;
	int err;

	if (!p)
		return 0;
	pos = (size_t)(p - pc->procs);
	err = read_proc(pc, s, p);
	pc->nr_pcs -= p->pcs.len;
	idset_free(&p->pcs);
	memmove(p, p + 1, (pc->nr_procs - pos - 1) * sizeof(*p));
	pc->nr_procs--;
	return err;
}

int perfmap_capture_finish(struct perfmap_capture *pc, struct fxt_stream *s)
{
	int err = 0;

	for (size_t i = 0; !err && i < pc->nr_procs; i++)
		err = read_proc(pc, s, &pc->procs[i]);
	for (size_t i = 0; i < pc->nr_procs; i++)
		idset_free(&pc->procs[i].pcs);
	pc->nr_procs = 0;
	pc->nr_pcs = 0;
	return err;
}

void perfmap_capture_stats(const struct perfmap_capture *pc, struct perfmap_stats *ret)
{
	*ret = pc->st;
}

int perfmap_capture_write_counters(const struct perfmap_capture *pc, struct fxt_stream *s,
				   uint64_t ts)
{
	const char *names[6 + PERFMAP_SKIP_NR] = {"maps_read", "maps_absent", "entries",
						  "pcs",       "pcs_dropped", "procs_dropped"};
	uint64_t values[6 + PERFMAP_SKIP_NR] = {pc->st.maps_read,   pc->st.maps_absent,
						pc->st.entries,	    pc->st.pcs,
						pc->st.pcs_dropped, pc->st.procs_dropped};
	uint64_t looked = pc->st.maps_read + pc->st.maps_absent;

	for (unsigned i = 0; i < PERFMAP_SKIP_NR; i++) {
		names[6 + i] = skip_names[i];
		values[6 + i] = pc->st.skipped[i];
		looked += pc->st.skipped[i];
	}
	if (!looked && !pc->st.procs_dropped)
		return 0;
	return fxt_stream_counter(s, ts, 0, 0, "fxsampler", "perfmap", 0, names, values,
				  6 + PERFMAP_SKIP_NR);
}
