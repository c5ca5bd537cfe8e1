// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/containers.h"
#include "util/rangemap.h"
#include "util/sorted.h"
#include "capture/cfi_tables.h"

#define KEY_MAX 64

enum mod_state {
	MOD_QUEUED,  /* its table is to be made (fd open) */
	MOD_LOADED,  /* rows [first, first + n) */
	MOD_NO_CFI,  /* frame pointers */
	MOD_FAILED,  /* no table: unreadable, malformed, larger than the cap */
	MOD_EVICTED, /* its rows went for the cap */
};

struct mod {
	uint8_t key[KEY_MAX];
	size_t key_len;
	enum mod_state state;
	int fd;
	uint32_t first, n;
	uint64_t last_used;
};

/* A free stretch of one of the arrays. */
struct extent {
	uint32_t start, len;
};

/*
 * Stretches freed while a walk may still read them, reused two works later;
 * a slice of ranges also only once every record before its free was read:
 * a child forked before it may walk by it until its fork record is read.
 */
struct held {
	struct extent e;
	uint64_t gen;
	uint64_t at; /* ops.now() when freed (ranges only) */
	bool rows;   /* of the rows array, else of the ranges array */
};

struct free_list {
	struct extent *e; /* sorted by start, apart */
	size_t n, cap;
	uint64_t total;
};

struct cproc {
	pid_t pid;
	struct rangemap ranges; /* of struct fxs_cfi_range (start, end: the node's) */
	bool dirty;		/* to publish at the next cfi_tables_publish_pending() */
	uint32_t first, nr;	/* the published slice (nr 0: none) */
	bool published;
	bool dropped;	     /* the kernel dropped the published slice: publish no more */
	bool inherited;	     /* the kernel made its entry at the fork: replace it only */
	uint64_t dropped_at; /* ops.now() when found dropped */
};

struct cfi_tables {
	struct cfi_tables_ops ops;
	struct mod *mods; /* index: table id */
	size_t nr_mods, cap_mods;
	size_t next_queued;  /* mods before it are not MOD_QUEUED */
	struct cproc *procs; /* sorted by pid */
	size_t nr_procs, cap_procs;
	size_t sweep_at; /* where the next sweep() looks */
	struct free_list free_rows, free_ranges;
	struct held *held;
	size_t nr_held, cap_held;
	uint64_t gen, tick;
	uint64_t handed; /* every record before it was read (cfi_tables_handed) */
	uint64_t serial; /* the last mapping's (struct fxs_cfi_range's serial) */
	struct cfi_tables_stats stats;
	pid_t *dirty; /* processes to publish (cfi_tables_publish_soon) */
	size_t nr_dirty, cap_dirty;
	size_t nr_ranges;	 /* over every process: CFI_TABLES_MAX_RANGES */
	uint64_t ranges_dropped; /* mappings not kept for the caps */
};

/* A process's ranges: what its entry can hold (more would not be published). */
#define PROC_MAX_RANGES (1U << FXS_CFI_RANGES_LOG)

static void ranges_clear(struct cfi_tables *t, struct cproc *p)
{
	t->nr_ranges -= rangemap_count(&p->ranges);
	rangemap_clear(&p->ranges);
}

static int fl_init(struct free_list *fl, uint32_t len)
{
	fl->n = fl->cap = 0;
	fl->e = NULL;
	fl->total = 0;
	if (!len)
		return 0;
	if (array_reserve((void **)&fl->e, &fl->cap, 0, sizeof(*fl->e)))
		return -ENOMEM;
	fl->e[0] = (struct extent){0, len};
	fl->n = 1;
	fl->total = len;
	return 0;
}

/* First fit: the start of len free entries, or -ENOSPC. */
static int64_t fl_alloc(struct free_list *fl, uint32_t len)
{
	for (size_t i = 0; i < fl->n; i++) {
		struct extent *e = &fl->e[i];
		uint32_t start = e->start;

		if (e->len < len)
			continue;
		e->start += len;
		e->len -= len;
		if (!e->len) {
			memmove(e, e + 1, (fl->n - i - 1) * sizeof(*e));
			fl->n--;
		}
		fl->total -= len;
		return start;
	}
	return -ENOSPC;
}

static int fl_free(struct free_list *fl, struct extent x)
{
	size_t i = 0;

	if (!x.len)
		return 0;
	while (i < fl->n && fl->e[i].start < x.start)
		i++;
	fl->total += x.len;
	/* joins the one before, the one after, or both */
	if (i > 0 && fl->e[i - 1].start + fl->e[i - 1].len == x.start) {
		fl->e[i - 1].len += x.len;
		if (i < fl->n && x.start + x.len == fl->e[i].start) {
			fl->e[i - 1].len += fl->e[i].len;
			memmove(&fl->e[i], &fl->e[i + 1], (fl->n - i - 1) * sizeof(*fl->e));
			fl->n--;
		}
		return 0;
	}
	if (i < fl->n && x.start + x.len == fl->e[i].start) {
		fl->e[i].start = x.start;
		fl->e[i].len += x.len;
		return 0;
	}
	if (array_reserve((void **)&fl->e, &fl->cap, fl->n, sizeof(*fl->e)))
		return -ENOMEM;
	memmove(&fl->e[i + 1], &fl->e[i], (fl->n - i) * sizeof(*fl->e));
	fl->e[i] = x;
	fl->n++;
	return 0;
}

/* A slice the walker may still be reading: free it two works from now. */
static int hold(struct cfi_tables *t, uint32_t start, uint32_t len, bool rows)
{
	if (!len)
		return 0;
	if (array_reserve((void **)&t->held, &t->cap_held, t->nr_held, sizeof(*t->held)))
		return -ENOMEM;
	t->held[t->nr_held++] = (struct held){
		{start, len}, t->gen, !rows && t->ops.now ? t->ops.now(t->ops.ctx) : 0, rows};
	return 0;
}

static void release_held(struct cfi_tables *t)
{
	size_t kept = 0;

	for (size_t i = 0; i < t->nr_held; i++) {
		struct held *h = &t->held[i];

		if (h->gen + 2 <= t->gen && (h->rows || !t->ops.now || h->at < t->handed) &&
		    !fl_free(h->rows ? &t->free_rows : &t->free_ranges, h->e))
			continue;
		t->held[kept++] = *h;
	}
	t->nr_held = kept;
}

struct cfi_tables *cfi_tables__new(const struct cfi_tables_ops *ops)
{
	struct cfi_tables *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ops = *ops;
	if (fl_init(&t->free_rows, ops->nr_rows) || fl_init(&t->free_ranges, ops->nr_ranges)) {
		cfi_tables__free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->stats.cap_bytes = (uint64_t)ops->nr_rows * sizeof(struct fxs_cfi_row);
	return t;
}

void cfi_tables__free(struct cfi_tables *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_mods; i++)
		if (t->mods[i].fd >= 0)
			close(t->mods[i].fd);
	for (size_t i = 0; i < t->nr_procs; i++)
		ranges_clear(t, &t->procs[i]);
	free(t->dirty);
	free(t->mods);
	free(t->procs);
	free(t->free_rows.e);
	free(t->free_ranges.e);
	free(t->held);
	free(t);
}

int cfi_tables_module(struct cfi_tables *t, const void *key, size_t key_len, int fd)
{
	struct mod *m;
	int dup = -1;

	if (key_len > KEY_MAX)
		key_len = KEY_MAX;
	for (size_t i = 0; i < t->nr_mods; i++)
		if (t->mods[i].key_len == key_len && !memcmp(t->mods[i].key, key, key_len))
			return (int)i;
	if (t->nr_mods >= FXS_CFI_MAX_TABLES)
		return -ENOSPC;
	if (array_reserve((void **)&t->mods, &t->cap_mods, t->nr_mods, sizeof(*t->mods)))
		return -ENOMEM;
	if (fd >= 0) {
		dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (dup < 0)
			return -errno;
	}
	m = &t->mods[t->nr_mods];
	*m = (struct mod){.key_len = key_len, .fd = dup};
	memcpy(m->key, key, key_len);
	m->state = dup >= 0 ? MOD_QUEUED : MOD_FAILED;
	t->stats.tables++;
	if (dup < 0)
		t->stats.failed++;
	return (int)t->nr_mods++;
}

static int cmp_pid(const void *key, const void *elem)
{
	pid_t k = *(const pid_t *)key, e = ((const struct cproc *)elem)->pid;

	return (k > e) - (k < e);
}

static struct cproc *get_proc(struct cfi_tables *t, pid_t pid, bool create)
{
	size_t pos;
	struct cproc *p =
		sorted_find(t->procs, t->nr_procs, sizeof(*t->procs), &pid, cmp_pid, &pos);

	if (p || !create)
		return p;
	if (array_reserve((void **)&t->procs, &t->cap_procs, t->nr_procs, sizeof(*t->procs)))
		return NULL;
	memmove(&t->procs[pos + 1], &t->procs[pos], (t->nr_procs - pos) * sizeof(*t->procs));
	t->nr_procs++;
	t->procs[pos] = (struct cproc){.pid = pid};
	rangemap_init(&t->procs[pos].ranges, sizeof(struct fxs_cfi_range), PROC_MAX_RANGES);
	return &t->procs[pos];
}

/*
 * A new mapping: what p's ranges had at [start, end) is gone, as the kernel
 * unmaps what a new mapping covers (a range it cuts keeps its pieces
 * outside; util/rangemap, O(log n)). Past the caps it is dropped, counted.
 */
int cfi_tables_mapping(struct cfi_tables *t, pid_t pid, uint64_t start, uint64_t end, uint64_t bias,
		       int id)
{
	struct cproc *p = get_proc(t, pid, true);
	struct fxs_cfi_range r = {
		.bias = bias,
		.table = id >= 0 ? (uint32_t)id : 0,
		.kind = id >= 0 ? FXS_CFI_RANGE_TABLE : FXS_CFI_RANGE_NONE,
		.serial = ++t->serial,
	};
	size_t before;
	int err;

	if (!p)
		return -ENOMEM;
	before = rangemap_count(&p->ranges);
	if (t->nr_ranges >= CFI_TABLES_MAX_RANGES) {
		err = rangemap_unset(&p->ranges, start, end);
		err = err ? err : 1;
	} else {
		err = rangemap_set(&p->ranges, start, end, &r, RANGEMAP_CUT);
	}
	t->nr_ranges = t->nr_ranges - before + rangemap_count(&p->ranges);
	if (err == 1)
		t->ranges_dropped++;
	return err < 0 ? err : 0;
}

/*
 * The kernel dropped p's entry (an exec or an exit): its slice goes once no
 * walk reads it, and its mappings are published no more. The struct stays
 * (dropped) until every record before now was read: a late record of the
 * pid must not publish a dead image's mappings over a new process's entry.
 */
static void drop(struct cfi_tables *t, struct cproc *p)
{
	if (p->published)
		hold(t, p->first, p->nr, false);
	p->published = false;
	p->inherited = false;
	p->dropped = true;
	p->dropped_at = t->ops.now ? t->ops.now(t->ops.ctx) : 0;
	p->nr = 0;
	ranges_clear(t, p);
}

int cfi_tables_publish(struct cfi_tables *t, pid_t pid)
{
	struct cproc *p = get_proc(t, pid, false);
	struct fxs_cfi_proc out;
	struct rangemap_entry *e;
	int64_t first;
	size_t n;
	int err;

	bool replace;

	if (p)
		p->dirty = false;
	n = p ? rangemap_count(&p->ranges) : 0;
	if (!n || p->dropped)
		return 0;
	/* An entry the kernel has (or had): an exec drops it, and it stays dropped. */
	replace = p->published || p->inherited;
	if (replace && !t->ops.replace_proc && t->ops.has_proc &&
	    !t->ops.has_proc(t->ops.ctx, (uint32_t)pid)) {
		drop(t, p);
		return 0;
	}
	t->tick++;
	first = n <= (1U << FXS_CFI_RANGES_LOG) ? fl_alloc(&t->free_ranges, n) : -ENOSPC;
	if (first < 0) {
		t->stats.proc_dropped++;
		return 0;
	}
	/* in order of address, as the walker's binary search wants them */
	e = rangemap_first(&p->ranges);
	for (size_t i = 0; e; i++, e = rangemap_next(&p->ranges, e)) {
		struct fxs_cfi_range *r = &t->ops.ranges[first + i];

		*r = *(struct fxs_cfi_range *)rangemap_value(e);
		r->start = e->node.start;
		r->end = e->node.end;
		if (r->kind == FXS_CFI_RANGE_TABLE && r->table < t->nr_mods)
			t->mods[r->table].last_used = t->tick;
	}
	out = (struct fxs_cfi_proc){(uint32_t)first, (uint32_t)n};
	if (replace && t->ops.replace_proc)
		err = t->ops.replace_proc(t->ops.ctx, (uint32_t)pid, &out);
	else
		err = t->ops.set_proc(t->ops.ctx, (uint32_t)pid, &out);
	if (err) {
		/* never visible to a walk: free at once */
		fl_free(&t->free_ranges, (struct extent){(uint32_t)first, (uint32_t)n});
		if (replace && err == -ENOENT) {
			drop(t, p);
			return 0;
		}
		t->stats.proc_dropped++;
		return err == -E2BIG || err == -ENOSPC ? 0 : err;
	}
	if (p->published)
		hold(t, p->first, p->nr, false);
	p->first = (uint32_t)first;
	p->nr = (uint32_t)n;
	p->published = true;
	p->inherited = false;
	return 0;
}

void cfi_tables_forget(struct cfi_tables *t, pid_t pid)
{
	struct cproc *p = get_proc(t, pid, false);
	size_t i;

	if (!p)
		return;
	if (p->published || p->inherited)
		t->ops.set_proc(t->ops.ctx, (uint32_t)pid, NULL);
	if (p->published)
		hold(t, p->first, p->nr, false);
	ranges_clear(t, p);
	i = p - t->procs;
	memmove(p, p + 1, (t->nr_procs - i - 1) * sizeof(*p));
	t->nr_procs--;
}

int cfi_tables_fork(struct cfi_tables *t, pid_t ppid, pid_t cpid, bool inherit)
{
	struct cproc *c = get_proc(t, cpid, true), *p;
	size_t before;
	int err;

	if (!c)
		return -ENOMEM;
	/* a dead process's: the kernel replaced its entry at the fork */
	if (c->published)
		hold(t, c->first, c->nr, false);
	ranges_clear(t, c);
	c->nr = 0;
	c->published = false;
	c->dropped = false;
	c->inherited = true;
	if (!inherit)
		return t->ops.set_proc(t->ops.ctx, (uint32_t)cpid, NULL);
	p = ppid != cpid ? get_proc(t, ppid, false) : NULL;
	if (!p || !rangemap_count(&p->ranges))
		return 0;
	/* get_proc(cpid) may have moved the parent's entry: c is looked up again */
	c = get_proc(t, cpid, false);
	before = c->ranges.dropped;
	if (t->nr_ranges + rangemap_count(&p->ranges) > CFI_TABLES_MAX_RANGES) {
		t->ranges_dropped += rangemap_count(&p->ranges);
		return 0;
	}
	err = rangemap_copy(&c->ranges, &p->ranges);
	t->nr_ranges += rangemap_count(&c->ranges);
	t->ranges_dropped += c->ranges.dropped - before;
	return err ? err : cfi_tables_publish(t, cpid);
}

void cfi_tables_handed(struct cfi_tables *t, uint64_t ns)
{
	if (ns > t->handed)
		t->handed = ns;
}

static void set_table(struct cfi_tables *t, uint32_t id, uint32_t first, uint32_t n)
{
	struct fxs_cfi_table v = {first, n};

	t->ops.set_table(t->ops.ctx, id, &v);
}

/*
 * n rows found no room: evict least recently used tables until they could
 * (at least one when nothing is on its way back: the free rows are in
 * pieces). false: they never will.
 */
static bool evict_for(struct cfi_tables *t, uint32_t n, size_t keep)
{
	uint64_t coming = 0;
	bool first = true;

	if (n > t->ops.nr_rows)
		return false;
	for (size_t i = 0; i < t->nr_held; i++)
		if (t->held[i].rows)
			coming += t->held[i].e.len;
	while (t->free_rows.total + coming < n || (first && !coming)) {
		struct mod *lru = NULL;

		for (size_t i = 0; i < t->nr_mods; i++)
			if (i != keep && t->mods[i].state == MOD_LOADED &&
			    (!lru || t->mods[i].last_used < lru->last_used))
				lru = &t->mods[i];
		if (!lru)
			return coming > 0;
		set_table(t, (uint32_t)(lru - t->mods), 0, 0);
		hold(t, lru->first, lru->n, true);
		coming += lru->n;
		t->stats.row_bytes -= (uint64_t)lru->n * sizeof(struct fxs_cfi_row);
		t->stats.loaded--;
		t->stats.evicted++;
		lru->state = MOD_EVICTED;
		first = false;
	}
	return true;
}

static void mod_done(struct cfi_tables *t, struct mod *m, enum mod_state state)
{
	close(m->fd);
	m->fd = -1;
	m->state = state;
}

/* Make one queued module's table: 1 made, 0 not (or not yet: waits for room). */
static int make_one(struct cfi_tables *t, size_t id)
{
	struct mod *m = &t->mods[id];
	struct fxs_cfi_row *rows = NULL;
	uint64_t t0 = mono_ns();
	uint32_t n = 0;
	int64_t first;
	int err;

	err = t->ops.generate(t->ops.ctx, m->fd, &rows, &n);
	t->stats.gen_ns += mono_ns() - t0;
	if (err == -ENOENT) {
		mod_done(t, m, MOD_NO_CFI);
		t->stats.no_cfi++;
		set_table(t, (uint32_t)id, FXS_CFI_TABLE_FP, 0);
		return 0;
	}
	if (err || !n) {
		free(rows);
		mod_done(t, m, MOD_FAILED);
		t->stats.failed++;
		return err == -ENOMEM ? err : 0;
	}
	first = fl_alloc(&t->free_rows, n);
	if (first < 0) {
		free(rows);
		if (evict_for(t, n, id))
			return -EAGAIN; /* the room comes when what was evicted is released */
		mod_done(t, m, MOD_FAILED);
		t->stats.failed++;
		return 0;
	}
	memcpy(&t->ops.rows[first], rows, (size_t)n * sizeof(*rows));
	free(rows);
	m->first = (uint32_t)first;
	m->n = n;
	mod_done(t, m, MOD_LOADED);
	set_table(t, (uint32_t)id, m->first, n);
	t->stats.generated++;
	t->stats.loaded++;
	t->stats.row_bytes += (uint64_t)n * sizeof(struct fxs_cfi_row);
	return 1;
}

/*
 * Processes whose entry the kernel dropped (at their exit, or an exec whose
 * record comes later) give their slices back: at most SWEEP_PER_WORK looked
 * at a work. A host-wide capture sees every process of the host come and go.
 */
#define SWEEP_PER_WORK 256
static void sweep(struct cfi_tables *t)
{
	size_t looked = 0;

	if (!t->ops.has_proc)
		return;
	while (looked++ < SWEEP_PER_WORK && looked <= t->nr_procs) {
		struct cproc *p;

		if (t->sweep_at >= t->nr_procs)
			t->sweep_at = 0;
		p = &t->procs[t->sweep_at];
		if (p->dropped && t->ops.now && p->dropped_at < t->handed) {
			/* no record from before the drop is left: forget it */
			ranges_clear(t, p);
			memmove(p, p + 1, (t->nr_procs - t->sweep_at - 1) * sizeof(*p));
			t->nr_procs--;
			continue;
		}
		t->sweep_at++;
		if ((p->published || p->inherited) &&
		    !t->ops.has_proc(t->ops.ctx, (uint32_t)p->pid))
			drop(t, p);
	}
}

int cfi_tables_work(struct cfi_tables *t, uint64_t budget_ns)
{
	uint64_t until = mono_ns() + budget_ns;
	int made = 0, r;

	t->gen++;
	sweep(t);
	release_held(t);
	while (t->next_queued < t->nr_mods) {
		if (t->mods[t->next_queued].state != MOD_QUEUED) {
			t->next_queued++;
			continue;
		}
		if (made && mono_ns() >= until)
			break;
		r = make_one(t, t->next_queued);
		if (r == -EAGAIN)
			break;
		if (r < 0)
			return r;
		made += r;
	}
	return made;
}

bool cfi_tables_pending(const struct cfi_tables *t)
{
	for (size_t i = t->next_queued; i < t->nr_mods; i++)
		if (t->mods[i].state == MOD_QUEUED)
			return true;
	return false;
}

void cfi_tables_stats(const struct cfi_tables *t, struct cfi_tables_stats *ret)
{
	*ret = t->stats;
}

int cfi_tables_publish_soon(struct cfi_tables *t, pid_t pid)
{
	struct cproc *p = get_proc(t, pid, false);

	if (!p || p->dirty)
		return 0;
	/* a process's first ranges go out at once: its children copy them at their fork */
	if (!p->published)
		return cfi_tables_publish(t, pid);
	if (array_reserve((void **)&t->dirty, &t->cap_dirty, t->nr_dirty, sizeof(*t->dirty)))
		return -ENOMEM;
	t->dirty[t->nr_dirty++] = pid;
	p->dirty = true;
	return 0;
}

int cfi_tables_publish_pending(struct cfi_tables *t)
{
	int err = 0, e;

	/* each process once, whatever number of mappings it made since; one failing stops none */
	for (size_t i = 0; i < t->nr_dirty; i++) {
		struct cproc *p = get_proc(t, t->dirty[i], false);

		e = p && p->dirty ? cfi_tables_publish(t, t->dirty[i]) : 0;
		if (e && !err)
			err = e;
	}
	t->nr_dirty = 0;
	return err;
}

uint64_t cfi_tables_ranges_dropped(const struct cfi_tables *t)
{
	return t->ranges_dropped;
}
