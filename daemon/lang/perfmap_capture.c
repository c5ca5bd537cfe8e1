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
#include "capture/procinfo.h"
#include "util/idset.h"
#include "util/sorted.h"
#include "lang/perfmap.h"
#include "lang/perfmap_capture.h"
#include "lang/perfmap_open.h"

#define BLOB_MAX    32000 /* a payload well under Perfetto's 32 KiB record limit */
#define MAX_REFUSED 65536

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
	uint64_t start_boot_ns; /* to tell its pid reused (perfmap_capture_reap) */
	int tmp;		/* index in tmps, -1: none */
	unsigned tmp_why;	/* none: why (PERFMAP_SKIP_*) */
	bool ended;		/* seen ended by perfmap_capture_reap(): read at its next call */
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
	size_t reap_at; /* where perfmap_capture_reap() looks next */
	struct perfmap_stats st;
	void (*tell)(void *ctx, uint32_t pid, const char *text);
	void *ctx;
};

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

/*
 * The process's tmp, as it sees it: a directory of its root, not a
 * symlink. Held by an O_PATH fd, shared by every process that
 * sees the same one; -1 when it cannot be had, and *why.
 */
static int get_tmp(struct perfmap_capture *pc, const char *pid_dir, unsigned *why)
{
	struct stat st;
	int fd = perfmap_open_tmp(pid_dir);

	*why = PERFMAP_SKIP_ERROR;
	if (fd < 0) {
		*why = perfmap_tmp_skip(fd);
		return -1;
	}
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
		*why = PERFMAP_SKIP_TMPS;
		return -1;
	}
	pc->tmps[pc->nr_tmps] = (struct tmp_dir){fd, st.st_dev, st.st_ino};
	return (int)pc->nr_tmps++;
}

int perfmap_capture_follow(struct perfmap_capture *pc, pid_t pid, const char *pid_dir)
{
	struct proc_ent e = {.pid = pid, .tmp = -1};
	struct perfmap_proc info;
	size_t pos;

	if (perfmap_capture_follows(pc, pid))
		return 0;
	if (pc->nr_procs >= PERFMAP_MAX_PROCS || perfmap_proc_read(pid_dir, &info)) {
		refuse(pc, pid);
		return 0;
	}
	e.nspid = info.nspid;
	memcpy(e.uids, info.uids, sizeof(e.uids));
	e.start_real_ns = info.start_real_ns;
	e.start_boot_ns = info.start_boot_ns;
	e.tmp = get_tmp(pc, pid_dir, &e.tmp_why);
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
	/*
	 * Gone before it was followed: a short process whose stack held a pc
	 * in no file, mostly, with no map to speak of; counted, not told.
	 */
	if (why == PERFMAP_SKIP_GONE)
		return;
	if (!pc->tell || (pc->told.len < MAX_REFUSED &&
			  idset_add(&pc->told, (uint64_t)p->pid << 8 | (why + 1)) == 0))
		return;
	snprintf(text, sizeof(text),
		 "perf map of pid %d (/tmp/perf-%d.map in its namespace) not "
		 "used: %s",
		 (int)p->pid, (int)p->nspid, perfmap_skip_text(why));
	pc->tell(pc->ctx, (uint32_t)p->pid, text);
}

/* p's map, read and written; p stays. */
static int read_proc(struct perfmap_capture *pc, struct fxt_stream *s, struct proc_ent *p)
{
	struct perfmap_pick *pick;
	uint64_t *pcs;
	size_t n = p->pcs.len;
	int fd, err;

	if (!n)
		return 0;
	pc->st.pcs += n;
	if (p->tmp < 0) {
		skipped(pc, p, p->tmp_why);
		return 0;
	}
	fd = perfmap_open_map(pc->tmps[p->tmp].fd, p->nspid);
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

/*
 * Whether p's process has ended: /proc/PID gone, or another process's now.
 * Not a zombie: a leader that called pthread_exit() is one while its
 * threads run on (its parent reaps an ended one at once, mostly).
 */
static bool proc_ended(const struct proc_ent *p)
{
	char dir[32];
	uint64_t start;
	int err;

	snprintf(dir, sizeof(dir), "/proc/%d", (int)p->pid);
	err = procinfo_start_ns(dir, &start);
	return err == -ESRCH || (!err && start != p->start_boot_ns);
}

int perfmap_capture_reap(struct perfmap_capture *pc, struct fxt_stream *s, size_t max)
{
	size_t looked = 0;
	int err = 0;

	if (pc->reap_at >= pc->nr_procs)
		pc->reap_at = 0;
	while (!err && looked < max && pc->reap_at < pc->nr_procs) {
		struct proc_ent *p = &pc->procs[pc->reap_at];

		looked++;
		/*
		 * Seen ended at one call, read at the next: the samples it had
		 * in the rings by then have been read, their pcs noted.
		 */
		if (!p->ended && p->pcs.len && proc_ended(p))
			p->ended = true;
		else if (p->ended) {
			/* its entry goes: the next one moves to reap_at */
			pc->st.reaped++;
			err = perfmap_capture_flush(pc, s, p->pid);
			continue;
		}
		pc->reap_at++;
	}
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
	uint64_t looked = pc->st.maps_read + pc->st.maps_absent, later = 0;
	int err;

	for (unsigned i = 0; i < PERFMAP_SKIP_NR; i++) {
		names[6 + i] = perfmap_skip_name(i);
		values[6 + i] = pc->st.skipped[i];
		looked += pc->st.skipped[i];
		later += i >= PERFMAP_SKIP_FIRST_LATER ? pc->st.skipped[i] : 0;
	}
	if (!looked && !pc->st.procs_dropped)
		return 0;
	/* an event holds 15 arguments: the reasons added later go in a second one */
	err = fxt_stream_counter(s, ts, 0, 0, "fxsampler", "perfmap", 0, names, values,
				 6 + PERFMAP_SKIP_FIRST_LATER);
	if (!err && later)
		err = fxt_stream_counter(s, ts, 0, 0, "fxsampler", "perfmap_skipped", 0,
					 names + 6 + PERFMAP_SKIP_FIRST_LATER,
					 values + 6 + PERFMAP_SKIP_FIRST_LATER,
					 PERFMAP_SKIP_NR - PERFMAP_SKIP_FIRST_LATER);
	return err;
}
