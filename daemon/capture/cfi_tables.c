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
#include "capture/cfi_extents.h"
#include "capture/cfi_tables.h"
#include "capture/cfi_tables_internal.h"

/* A process's ranges: what its entry can hold (more would not be published). */
#define PROC_MAX_RANGES (1U << FXS_CFI_RANGES_LOG)

static void ranges_clear(struct cfi_tables *t, struct cproc *p)
{
	t->nr_ranges -= rangemap_count(&p->ranges);
	rangemap_clear(&p->ranges);
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
		    !cfi_extents_free(h->rows ? &t->free_rows : &t->free_ranges, h->e))
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
	if (cfi_rules_init(&t->rules, ops->rules, ops->nr_rules)) {
		free(t);
		errno = EINVAL;
		return NULL;
	}
	if (cfi_extents_init(&t->free_rows, ops->nr_words) ||
	    cfi_extents_init(&t->free_ranges, ops->nr_ranges)) {
		cfi_tables__free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->stats.cap_bytes = (uint64_t)ops->nr_words * sizeof(uint32_t);
	return t;
}

void cfi_tables__free(struct cfi_tables *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_mods; i++) {
		if (t->mods[i].fd >= 0)
			close(t->mods[i].fd);
		free(t->mods[i].ready);
		free(t->mods[i].name);
	}
	for (size_t i = 0; i < t->nr_procs; i++)
		ranges_clear(t, &t->procs[i]);
	free(t->dirty);
	free(t->mods);
	free(t->procs);
	free(t->free_rows.e);
	free(t->free_ranges.e);
	free(t->held);
	cfi_rules_free(&t->rules);
	free(t);
}

static int add_module(struct cfi_tables *t, const void *key, size_t key_len, int fd,
		      bool reopenable)
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
	reopenable = reopenable && t->ops.reopen;
	if (fd >= 0 && (t->nr_fds < CFI_TABLES_MAX_FDS || !reopenable)) {
		dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (dup < 0)
			return -errno;
		t->nr_fds++;
	}
	m = &t->mods[t->nr_mods];
	*m = (struct mod){.key_len = key_len,
			  .fd = dup,
			  .reopenable = reopenable,
			  .reopen = fd >= 0 && dup < 0};
	memcpy(m->key, key, key_len);
	m->state = fd >= 0 ? CFI_MOD_QUEUED : CFI_MOD_FAILED;
	m->err = fd >= 0 ? 0 : -EBADF;
	t->stats.tables++;
	if (fd < 0)
		t->stats.failed++;
	return (int)t->nr_mods++;
}

int cfi_tables_module(struct cfi_tables *t, const void *key, size_t key_len, int fd)
{
	return add_module(t, key, key_len, fd, false);
}

int cfi_tables_module_reopenable(struct cfi_tables *t, const void *key, size_t key_len, int fd)
{
	return add_module(t, key, key_len, fd, true);
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
	first = n <= (1U << FXS_CFI_RANGES_LOG) ? cfi_extents_alloc(&t->free_ranges, n) : -ENOSPC;
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
		cfi_extents_free(&t->free_ranges, (struct extent){(uint32_t)first, (uint32_t)n});
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

/* Table id's slice from first (nr_rows 0: none), geometry g (NULL: none). */
static void set_table(struct cfi_tables *t, uint32_t id, uint32_t first, const struct cfi_pages *g)
{
	struct fxs_cfi_table v = {first, 0, 0, 0};

	if (g)
		v = (struct fxs_cfi_table){first, g->nr_rows, g->first_page, g->nr_pages};
	t->ops.set_table(t->ops.ctx, id, &v);
}

/*
 * Which modules a process of the capture maps now (its ranges, published or
 * about to be): those a walk may need at any moment. Dropped processes have
 * none. used[] has nr_mods entries.
 */
void cfi_tables_mark_in_use(const struct cfi_tables *t, bool *used)
{
	memset(used, 0, t->nr_mods * sizeof(*used));
	for (size_t i = 0; i < t->nr_procs; i++) {
		const struct rangemap *m = &t->procs[i].ranges;

		for (struct rangemap_entry *e = rangemap_first(m); e; e = rangemap_next(m, e)) {
			const struct fxs_cfi_range *r = rangemap_value(e);

			if (r->kind == FXS_CFI_RANGE_TABLE && r->table < t->nr_mods)
				used[r->table] = true;
		}
	}
}

uint64_t cfi_tables_rows_coming(const struct cfi_tables *t)
{
	uint64_t coming = 0;

	for (size_t i = 0; i < t->nr_held; i++)
		if (t->held[i].rows)
			coming += t->held[i].e.len;
	return coming;
}

void cfi_tables_unload(struct cfi_tables *t, struct mod *m)
{
	set_table(t, (uint32_t)(m - t->mods), 0, NULL);
	hold(t, m->first, m->n, true);
	t->stats.row_bytes -= (uint64_t)m->n * sizeof(uint32_t);
	t->stats.loaded--;
}

void cfi_tables_evict(struct cfi_tables *t, struct mod *m)
{
	cfi_tables_unload(t, m);
	t->stats.evicted++;
	m->state = CFI_MOD_EVICTED;
}

/*
 * n rows found no room: evict the least recently used tables that no
 * process maps now until they could (at least one when nothing is on its way
 * back: the free rows are in pieces). A table in use is never evicted for
 * another: when modules in use do not fit together, the one that came last
 * is left out (its frames go by frame pointers, marked), which is better than
 * each evicting the other in turn and none being there when a walk needs it.
 * -ENOMEM; 1: room is coming; 0: not without evicting a table in use.
 */
static int evict_for(struct cfi_tables *t, uint32_t n, size_t keep)
{
	uint64_t coming = cfi_tables_rows_coming(t);
	bool first = true, *used;

	used = malloc(t->nr_mods * sizeof(*used) + 1);
	if (!used)
		return -ENOMEM;
	cfi_tables_mark_in_use(t, used);
	while (t->free_rows.total + coming < n || (first && !coming)) {
		struct mod *lru = NULL;

		for (size_t i = 0; i < t->nr_mods; i++)
			if (i != keep && t->mods[i].state == CFI_MOD_LOADED && !used[i] &&
			    (!lru || t->mods[i].last_used < lru->last_used))
				lru = &t->mods[i];
		if (!lru)
			break;
		cfi_tables_evict(t, lru);
		coming += lru->n;
		first = false;
	}
	free(used);
	return t->free_rows.total + coming >= n && coming > 0;
}

static void mod_close(struct cfi_tables *t, struct mod *m)
{
	if (m->fd >= 0) {
		close(m->fd);
		t->nr_fds--;
	}
	m->fd = -1;
}

static void mod_done(struct cfi_tables *t, struct mod *m, enum cfi_mod_state state)
{
	mod_close(t, m);
	m->reopen = false;
	m->state = state;
}

static void fail(struct cfi_tables *t, struct mod *m, int err)
{
	mod_done(t, m, CFI_MOD_FAILED);
	m->err = err;
	t->stats.failed++;
}

/* No room beside the modules in use: left out, its fd kept to try again. */
static void leave_out(struct cfi_tables *t, struct mod *m)
{
	free(m->ready);
	m->ready = NULL;
	m->state = CFI_MOD_LEFT_OUT;
	if (!m->tries++)
		t->stats.left_out++;
	if (m->tries > LEFT_OUT_TRIES || m->need > t->ops.nr_words) {
		/* larger than the whole memory, or room never came whole: it stays out */
		mod_close(t, m);
		m->reopen = false;
	} else if (t->nr_fds > CFI_TABLES_MAX_FDS && m->reopenable) {
		mod_close(t, m);
		m->reopen = true;
	}
}

/* m's fd, opened again when it was not kept; -1 when that fails (m failed). */
static int mod_fd(struct cfi_tables *t, size_t id)
{
	struct mod *m = &t->mods[id];
	int fd;

	if (m->fd >= 0 || !m->reopen)
		return m->fd;
	fd = t->ops.reopen(t->ops.gen_ctx, (uint32_t)id);
	if (fd < 0) {
		fail(t, m, fd);
		return -1;
	}
	m->fd = fd;
	m->reopen = false;
	t->nr_fds++;
	return fd;
}

/* Make one queued module's table: 1 made, 0 not (or not yet: waits for room). */
static int make_one(struct cfi_tables *t, size_t id)
{
	struct mod *m = &t->mods[id];
	struct fxs_cfi_row *rows = m->ready;
	uint64_t t0 = mono_ns(), words;
	uint32_t n = m->nready;
	int64_t first;
	int err = 0;

	if (!rows && m->started) {
		uint64_t ns = 0;

		err = t->ops.collect(t->ops.gen_ctx, (uint32_t)id, &rows, &n, &ns);
		if (err == -EINPROGRESS)
			return err;
		m->started = false;
		t->stats.gen_ns += ns;
	} else if (!rows) {
		int fd = mod_fd(t, id);

		if (fd < 0)
			return 0;
		err = t->ops.generate(t->ops.gen_ctx, fd, &rows, &n);
		t->stats.gen_ns += mono_ns() - t0;
	}
	if (err == -ENOENT || (!err && !n)) {
		/* no CFI, or no code to unwind at all (libicudata): its frames, if any, by fp */
		free(rows);
		mod_done(t, m, err ? CFI_MOD_NO_CFI : CFI_MOD_NO_CODE);
		if (err)
			t->stats.no_cfi++;
		set_table(t, (uint32_t)id, FXS_CFI_TABLE_FP, NULL);
		return 0;
	}
	words = cfi_pages_words(rows, n, NULL);
	if (!err && words > UINT32_MAX)
		err = -E2BIG;
	if (err) {
		free(rows);
		fail(t, m, err);
		return err == -ENOMEM ? err : 0;
	}
	m->need = (uint32_t)words;
	m->ready = NULL;
	first = cfi_extents_alloc(&t->free_rows, m->need);
	if (first < 0) {
		int r = m->need > t->ops.nr_words ? 0 : evict_for(t, m->need, id);

		if (r < 0) {
			free(rows);
			return r;
		}
		if (r) {
			/* the room comes when what was evicted is released */
			m->ready = rows;
			m->nready = n;
			return -EAGAIN;
		}
		free(rows);
		leave_out(t, m);
		return 0;
	}
	/* the words and the new rules written before the table is published */
	err = cfi_pages_encode(rows, n, &t->rules, &t->ops.words[first], words, &m->pages);
	free(rows);
	if (err) {
		/* never published: free at once; -ENOSPC: its rules do not fit, named */
		cfi_extents_free(&t->free_rows, (struct extent){(uint32_t)first, m->need});
		fail(t, m, err);
		return err == -ENOMEM ? err : 0;
	}
	t->stats.rules = t->rules.n;
	m->first = (uint32_t)first;
	m->n = m->need;
	mod_done(t, m, CFI_MOD_LOADED);
	set_table(t, (uint32_t)id, m->first, &m->pages);
	m->loaded_ns = t->ops.now ? t->ops.now(t->ops.ctx) : 0;
	if (!m->tries)
		t->stats.generated++;
	else
		t->stats.left_out--; /* room came: it is in after all */
	t->stats.loaded++;
	t->stats.row_bytes += (uint64_t)m->n * sizeof(uint32_t);
	return 1;
}

/*
 * Modules left out for want of room go back in the queue once the rows free,
 * coming back, or held by tables no process maps now would hold them.
 */
static int retry_left_out(struct cfi_tables *t)
{
	uint64_t room = t->free_rows.total + cfi_tables_rows_coming(t);
	bool *used = NULL, any = false;

	for (size_t i = 0; i < t->nr_mods; i++) {
		const struct mod *m = &t->mods[i];

		/* one let in again waits for the room made for it: none goes before */
		if (m->state == CFI_MOD_QUEUED && m->need)
			return 0;
		any |= m->state == CFI_MOD_LEFT_OUT && (m->fd >= 0 || m->reopen);
	}
	if (!any)
		return 0;
	used = malloc(t->nr_mods * sizeof(*used) + 1);
	if (!used)
		return -ENOMEM;
	cfi_tables_mark_in_use(t, used);
	for (size_t i = 0; i < t->nr_mods; i++)
		if (t->mods[i].state == CFI_MOD_LOADED && !used[i])
			room += t->mods[i].n;
	for (size_t i = 0; i < t->nr_mods; i++) {
		struct mod *m = &t->mods[i];

		if (m->state != CFI_MOD_LEFT_OUT || (m->fd < 0 && !m->reopen) || m->need > room ||
		    !used[i])
			continue;
		m->state = CFI_MOD_QUEUED;
		m->started = false;
		room -= m->need;
		if (i < t->next_queued)
			t->next_queued = i;
	}
	free(used);
	return 0;
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
	if (retry_left_out(t) || cfi_tables_rebalance(t))
		return -ENOMEM;
	/* Workers make the first CFI_TABLES_MAX_STARTED queued tables (ops.start), in order. */
	for (size_t i = t->next_queued, started = 0;
	     t->ops.start && i < t->nr_mods && started < CFI_TABLES_MAX_STARTED; i++) {
		struct mod *m = &t->mods[i];

		if (m->state != CFI_MOD_QUEUED || m->ready)
			continue;
		if (!m->started && mod_fd(t, i) >= 0) {
			m->started = t->ops.start(t->ops.gen_ctx, (uint32_t)i, m->fd);
			/* the worker has its own fd: ours is opened again if room must be waited
			 * for */
			if (m->started && m->reopenable) {
				mod_close(t, m);
				m->reopen = true;
			}
		}
		started += m->started;
	}
	for (size_t i = t->next_queued; i < t->nr_mods; i++) {
		if (t->mods[i].state != CFI_MOD_QUEUED) {
			t->next_queued = i + 1;
			continue;
		}
		if (made && mono_ns() >= until)
			break;
		r = make_one(t, i);
		/*
		 * A worker is still making it: the ones after it wait, made or
		 * not. Tables are let in in the order their modules were mapped,
		 * whichever worker ends first, so which one is left out when
		 * room runs short does not depend on a race: clang's own
		 * libclang-cpp and libLLVM (mapped first) stay in, and libz3
		 * (mapped by libLLVM) is left out at --cfi-memory 16M. In the
		 * order made, a CI run left libclang-cpp out (the small ones
		 * came first) and no stack of the compile was whole.
		 */
		if (r == -EINPROGRESS || r == -EAGAIN)
			break;
		if (r < 0)
			return r;
		made += r;
		if (t->mods[i].state != CFI_MOD_QUEUED)
			t->next_queued = i + 1;
	}
	return made;
}

bool cfi_tables_pending(const struct cfi_tables *t)
{
	for (size_t i = t->next_queued; i < t->nr_mods; i++)
		if (t->mods[i].state == CFI_MOD_QUEUED)
			return true;
	return false;
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

enum cfi_lost_had cfi_tables_had(const struct cfi_tables *t, pid_t pid, uint64_t look, uint64_t ts,
				 uint32_t *ret_id)
{
	struct cproc *p = get_proc((struct cfi_tables *)t, pid, false);
	struct rangemap_entry *e = p ? rangemap_find(&p->ranges, look) : NULL;
	const struct fxs_cfi_range *r = e ? rangemap_value(e) : NULL;
	const struct mod *m;

	if (!r)
		return CFI_HAD_NO_MODULE;
	if (r->kind == FXS_CFI_RANGE_FP)
		return CFI_HAD_TABLE;
	*ret_id = r->kind == FXS_CFI_RANGE_TABLE ? r->table : UINT32_MAX;
	m = r->kind == FXS_CFI_RANGE_TABLE && r->table < t->nr_mods ? &t->mods[r->table] : NULL;
	/* no CFI, no code: walked by frame pointers, no table lost */
	if (m && (m->state == CFI_MOD_NO_CFI || m->state == CFI_MOD_NO_CODE ||
		  (m->state == CFI_MOD_LOADED && m->loaded_ns <= ts)))
		return CFI_HAD_TABLE;
	return CFI_HAD_NO_TABLE;
}
