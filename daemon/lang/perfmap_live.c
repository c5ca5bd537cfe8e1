// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Perf maps of live processes, for fxsamplerd's HTTP scrapes (lang/perfmap_live.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/containers.h"
#include "util/sorted.h"
#include "lang/perfmap.h"
#include "lang/perfmap_live.h"
#include "lang/perfmap_open.h"

/* What a map's file was when it was looked at. */
struct map_ident {
	dev_t dev;
	ino_t ino;
	mode_t mode;
	off_t size;
	struct timespec mtime;
};

#define STATE_NONE   (-1) /* nothing read yet */
#define STATE_ABSENT (-2) /* no map, counted */

struct live_ent {
	uint64_t start, size;
	char *name;
};

struct live_proc {
	pid_t pid;
	uint64_t start_boot_ns; /* with pid, the process */
	bool have_ident;
	struct map_ident ident;
	/* 0: the map was read (pcs hold its answers); > 0: refused, PERFMAP_SKIP_* + 1; or STATE_*
	 */
	int state;
	uint64_t *pcs;	  /* sorted */
	uint32_t *ent_of; /* per pc: index in ents + 1, 0: no entry */
	size_t n, cap, cap_ent_of;
	struct live_ent *ents;
	size_t nr_ents, cap_ents;
	uint64_t used; /* the lookup it was asked last */
};

struct perfmap_live {
	char proc[64];
	struct live_proc *procs; /* sorted by pid */
	size_t nr_procs, cap_procs;
	size_t nr_pcs; /* kept, over every process */
	uint64_t clock;
	struct perfmap_live_stats st;
	void (*tell)(void *ctx, uint32_t pid, const char *text);
	void *ctx;
};

struct perfmap_live *perfmap_live__new(const char *proc,
				       void (*tell)(void *ctx, uint32_t pid, const char *text),
				       void *ctx)
{
	struct perfmap_live *pl = calloc(1, sizeof(*pl));

	if (!pl)
		return NULL;
	snprintf(pl->proc, sizeof(pl->proc), "%s", proc ? proc : "/proc");
	pl->tell = tell;
	pl->ctx = ctx;
	return pl;
}

/* What p knows of its map, forgotten (p stays). */
static void proc_reset(struct perfmap_live *pl, struct live_proc *p)
{
	for (size_t i = 0; i < p->nr_ents; i++)
		free(p->ents[i].name);
	pl->nr_pcs -= p->n;
	p->n = p->nr_ents = 0;
	p->have_ident = false;
	p->state = STATE_NONE;
}

static void proc_free(struct perfmap_live *pl, struct live_proc *p)
{
	proc_reset(pl, p);
	free(p->pcs);
	free(p->ent_of);
	free(p->ents);
}

void perfmap_live__free(struct perfmap_live *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->nr_procs; i++)
		proc_free(pl, &pl->procs[i]);
	free(pl->procs);
	free(pl);
}

void perfmap_live_stats(const struct perfmap_live *pl, struct perfmap_live_stats *ret)
{
	*ret = pl->st;
	ret->procs_kept = pl->nr_procs;
	ret->pcs_kept = pl->nr_pcs;
}

static int cmp_pid(const void *key, const void *elem)
{
	pid_t k = *(const pid_t *)key, e = ((const struct live_proc *)elem)->pid;

	return (k > e) - (k < e);
}

static void proc_remove(struct perfmap_live *pl, size_t pos)
{
	proc_free(pl, &pl->procs[pos]);
	memmove(&pl->procs[pos], &pl->procs[pos + 1],
		(pl->nr_procs - pos - 1) * sizeof(*pl->procs));
	pl->nr_procs--;
}

/* The process asked least recently but keep, gone; false: there is none. */
static bool evict_one(struct perfmap_live *pl, pid_t keep)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < pl->nr_procs; i++)
		if (pl->procs[i].pid != keep &&
		    (best == SIZE_MAX || pl->procs[i].used < pl->procs[best].used))
			best = i;
	if (best == SIZE_MAX)
		return false;
	proc_remove(pl, best);
	return true;
}

static struct live_proc *get_proc(struct perfmap_live *pl, pid_t pid)
{
	struct live_proc *p;
	size_t pos;

	p = sorted_find(pl->procs, pl->nr_procs, sizeof(*pl->procs), &pid, cmp_pid, &pos);
	if (p)
		return p;
	if (pl->nr_procs >= PERFMAP_LIVE_MAX_PROCS) {
		evict_one(pl, pid);
		sorted_find(pl->procs, pl->nr_procs, sizeof(*pl->procs), &pid, cmp_pid, &pos);
	}
	if (array_reserve((void **)&pl->procs, &pl->cap_procs, pl->nr_procs, sizeof(*pl->procs)))
		return NULL;
	memmove(&pl->procs[pos + 1], &pl->procs[pos], (pl->nr_procs - pos) * sizeof(*pl->procs));
	pl->procs[pos] = (struct live_proc){.pid = pid, .state = STATE_NONE};
	pl->nr_procs++;
	return &pl->procs[pos];
}

static bool same_ident(const struct map_ident *a, const struct map_ident *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->mode == b->mode && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* p's map refused for why (an index): counted and told, once for this file. */
static void refused(struct perfmap_live *pl, struct live_proc *p, pid_t nspid, unsigned why)
{
	char text[200];

	if (p->state == (int)why + 1)
		return;
	p->state = (int)why + 1;
	pl->st.skipped[why]++;
	if (!pl->tell)
		return;
	snprintf(text, sizeof(text),
		 "perf map of pid %d (/tmp/perf-%d.map in its namespace) not used: %s", (int)p->pid,
		 (int)nspid, perfmap_skip_text(why));
	pl->tell(pl->ctx, (uint32_t)p->pid, text);
}

static int give(struct perfmap_live *pl, pid_t pid, uint64_t start, uint64_t size, const char *name,
		perfmap_blob_fn fn, void *fn_ctx)
{
	struct perfmap_entry e = {start, size, name, strlen(name)};

	pl->st.entries++;
	return fn(fn_ctx, (uint64_t)pid, &e);
}

/* Room for need elements (array_reserve() makes room for one more at a time). */
static int reserve(void **arr, size_t *cap, size_t need, size_t elem)
{
	while (*cap < need)
		if (array_reserve(arr, cap, *cap, elem))
			return -ENOMEM;
	return 0;
}

/*
 * The pick of a read for pcs (sorted, none of them in p), kept in p when
 * the bounds allow: 1, 0 (not kept), or -ENOMEM.
 */
static int keep(struct perfmap_live *pl, pid_t pid, struct live_proc *p, const uint64_t *pcs,
		size_t n, const struct perfmap_pick *pick)
{
	uint32_t *ent_at; /* per slot of pick: index in p->ents + 1 */
	size_t i, j, k;

	if (p->n + n > PERFMAP_LIVE_MAX_PROC_PCS) {
		pl->st.pcs_dropped += n;
		return 0;
	}
	while (pl->nr_pcs + n > PERFMAP_LIVE_MAX_PCS && evict_one(pl, pid))
		p = sorted_find(pl->procs, pl->nr_procs, sizeof(*pl->procs), &pid, cmp_pid, NULL);
	if (pl->nr_pcs + n > PERFMAP_LIVE_MAX_PCS) {
		pl->st.pcs_dropped += n;
		return 0;
	}
	ent_at = calloc(pick->nr_kept + 1, sizeof(*ent_at));
	if (!ent_at)
		return -ENOMEM;
	if (reserve((void **)&p->pcs, &p->cap, p->n + n, sizeof(*p->pcs)) ||
	    reserve((void **)&p->ent_of, &p->cap_ent_of, p->n + n, sizeof(*p->ent_of))) {
		free(ent_at);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		uint32_t slot = pick->entry_of[i];

		if (!slot || ent_at[slot - 1])
			continue;
		if (array_reserve((void **)&p->ents, &p->cap_ents, p->nr_ents, sizeof(*p->ents))) {
			free(ent_at);
			return -ENOMEM;
		}
		p->ents[p->nr_ents] =
			(struct live_ent){pick->kept[slot - 1].start, pick->kept[slot - 1].size,
					  strdup(pick->kept[slot - 1].name)};
		if (!p->ents[p->nr_ents].name) {
			free(ent_at);
			return -ENOMEM;
		}
		ent_at[slot - 1] = (uint32_t)++p->nr_ents;
	}
	/* merge, from the end: both are sorted, and none of pcs is in p */
	i = p->n;
	j = n;
	k = p->n + n;
	while (j) {
		if (i && p->pcs[i - 1] > pcs[j - 1]) {
			p->pcs[--k] = p->pcs[--i];
			p->ent_of[k] = p->ent_of[i];
		} else {
			--j;
			p->pcs[--k] = pcs[j];
			p->ent_of[k] = pick->entry_of[j] ? ent_at[pick->entry_of[j] - 1] : 0;
		}
	}
	p->n += n;
	pl->nr_pcs += n;
	free(ent_at);
	return 1;
}

/*
 * Read p's map at fd for pcs (sorted, none of them in p) and keep what it
 * gives: 1 (kept), 0 (refused or not kept: its entries given now), -ENOMEM.
 */
static int read_map(struct perfmap_live *pl, pid_t pid, int fd, const struct perfmap_proc *info,
		    const uint64_t *pcs, size_t n, perfmap_blob_fn fn, void *fn_ctx)
{
	struct perfmap_pick *pick = malloc(sizeof(*pick));
	const struct perfmap_kept *k;
	struct live_proc *p;
	size_t i = 0;
	int err;

	if (!pick)
		return -ENOMEM;
	p = sorted_find(pl->procs, pl->nr_procs, sizeof(*pl->procs), &pid, cmp_pid, NULL);
	err = perfmap_read_fd(fd, info->uids, info->start_real_ns, pcs, n, pick);
	if (err > 0) {
		refused(pl, p, info->nspid, (unsigned)err - 1);
		free(pick);
		return 0;
	}
	if (err) {
		free(pick);
		return err;
	}
	pl->st.maps_read++;
	p->state = 0;
	err = keep(pl, pid, p, pcs, n, pick);
	while (!err && perfmap_pick_get(pick, &i, &k))
		err = give(pl, pid, k->start, k->size, k->name, fn, fn_ctx);
	perfmap_pick_free(pick);
	free(pick);
	return err < 0 ? err : 0;
}

/*
 * The kept answers of p for pcs, given (fn not NULL), each entry once; the
 * pcs it has no answer for into new_pcs (not NULL), their number returned.
 */
static int from_cache(struct perfmap_live *pl, struct live_proc *p, const uint64_t *pcs, size_t n,
		      uint64_t *new_pcs, size_t *ret_new, perfmap_blob_fn fn, void *fn_ctx)
{
	bool *given = calloc(p->nr_ents + 1, sizeof(*given));
	const struct live_ent *last = NULL;
	size_t i = 0, j = 0, m = 0;
	int err = 0;

	if (!given)
		return -ENOMEM;
	for (; !err && j < n; j++) {
		while (i < p->n && p->pcs[i] < pcs[j])
			i++;
		if (i == p->n || p->pcs[i] != pcs[j]) {
			if (new_pcs)
				new_pcs[m++] = pcs[j];
			continue;
		}
		if (fn && p->ent_of[i] && !given[p->ent_of[i]]) {
			const struct live_ent *e = &p->ents[p->ent_of[i] - 1];

			given[p->ent_of[i]] = true;
			/* two reads may each keep the entry (pcs sorted: they are neighbours) */
			if (last && last->start == e->start && last->size == e->size &&
			    !strcmp(last->name, e->name))
				continue;
			last = e;
			err = give(pl, p->pid, e->start, e->size, e->name, fn, fn_ctx);
		}
	}
	free(given);
	*ret_new = m;
	return err;
}

int perfmap_live_lookup(struct perfmap_live *pl, pid_t pid, uint64_t first_boot_ns,
			const uint64_t *pcs, size_t nr_pcs, perfmap_blob_fn fn, void *fn_ctx)
{
	struct perfmap_proc info;
	struct map_ident id;
	struct live_proc *p;
	struct stat st;
	char dir[96];
	uint64_t *new_pcs;
	size_t nr_new;
	int tmp, fd, err;

	if (!nr_pcs)
		return 0;
	pl->st.pcs += nr_pcs;
	snprintf(dir, sizeof(dir), "%s/%d", pl->proc, (int)pid);
	p = sorted_find(pl->procs, pl->nr_procs, sizeof(*pl->procs), &pid, cmp_pid, NULL);
	/* gone, or a pid reused since the first sample: not the process sampled */
	if (perfmap_proc_read(dir, &info) || info.start_boot_ns > first_boot_ns) {
		pl->st.procs_gone++;
		if (p)
			proc_remove(pl, (size_t)(p - pl->procs));
		return 0;
	}
	if (p && p->start_boot_ns != info.start_boot_ns)
		proc_reset(pl, p);
	p = get_proc(pl, pid);
	if (!p)
		return -ENOMEM;
	p->start_boot_ns = info.start_boot_ns;
	p->used = ++pl->clock;
	tmp = perfmap_open_tmp(dir);
	fd = tmp < 0 ? tmp : perfmap_open_map(tmp, info.nspid);
	if (tmp >= 0)
		close(tmp);
	if (fd >= 0 && fstat(fd, &st)) {
		close(fd);
		fd = -EIO;
	}
	if (fd < 0) {
		unsigned why = tmp < 0 ? perfmap_tmp_skip(tmp) : PERFMAP_SKIP_ERROR;

		if (fd == -ENOENT && p->state != STATE_ABSENT) {
			proc_reset(pl, p);
			p->state = STATE_ABSENT;
			pl->st.maps_absent++;
		} else if (fd != -ENOENT && p->state != (int)why + 1) {
			proc_reset(pl, p);
			refused(pl, p, info.nspid, why);
		}
		return 0;
	}
	id = (struct map_ident){st.st_dev, st.st_ino, st.st_mode, st.st_size, st.st_mtim};
	if (!p->have_ident || !same_ident(&p->ident, &id)) {
		/* a new or changed map: whatever it said before may be overwritten now */
		proc_reset(pl, p);
		p->have_ident = true;
		p->ident = id;
	} else if (p->state > 0) {
		/* refused, counted and told already: the same file is not read again */
		close(fd);
		return 0;
	}
	new_pcs = malloc(nr_pcs * sizeof(*new_pcs));
	if (!new_pcs) {
		close(fd);
		return -ENOMEM;
	}
	err = from_cache(pl, p, pcs, nr_pcs, new_pcs, &nr_new, NULL, NULL);
	if (!err && !nr_new)
		pl->st.maps_cached++;
	else if (!err)
		err = read_map(pl, pid, fd, &info, new_pcs, nr_new, fn, fn_ctx);
	/* p may have moved (others evicted): each entry once, from what is kept */
	p = sorted_find(pl->procs, pl->nr_procs, sizeof(*pl->procs), &pid, cmp_pid, NULL);
	if (!err && p && !p->state)
		err = from_cache(pl, p, pcs, nr_pcs, NULL, &nr_new, fn, fn_ctx);
	close(fd);
	free(new_pcs);
	return err;
}
