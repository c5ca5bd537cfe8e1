// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/containers.h"
#include "util/hash.h"
#include "util/idset.h"
#include "util/rangemap.h"
#include "util/sorted.h"
#include "symbols/elf_symbols.h"
#include "capture/mapped_file.h"
#include "capture/modules.h"
#include "capture/proc_maps.h"

/* A file (or the vdso) as every process maps it. */
struct module_file {
	char *key;  /* "dev:inode:path", then ":build id" when the kernel gave one */
	char *path; /* as the module record names it */
	uint16_t id;
	bool usable; /* an ELF we could read */
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	struct elf_symbols *elf;		/* for offset -> vaddr */
	int listener_id[MODULES_MAX_LISTENERS]; /* what each listener's file() returned */
};

/* One mapping written for a process: what a fork copies to the child. */
struct range {
	uint64_t start, end;
	uint64_t vaddr;
	unsigned flags; /* ELF p_flags */
	uint16_t module;
	uint8_t source; /* enum modules_source */
	bool written;	/* its mmap record is in the file */
	uint32_t image; /* the process's image it was added in (proc_ranges.image) */
};

struct proc_ranges {
	pid_t pid;
	struct rangemap ranges; /* of struct range, apart */
	struct idset modules;	/* module ids + 1 already written for this process */
	/*
	 * Its image: bumped at an exec's comm record (modules_exec_begin), so
	 * that the exec record drops every mapping of the images before.
	 */
	uint32_t image;
	bool exec_begun;
	uint64_t last_scan_ns; /* CLOCK_MONOTONIC */
	uint64_t rescan_ns;    /* the least time between two rescans */
	bool scanned;
	/*
	 * Sampled: its mappings are written as they come. Until then they are
	 * only kept (a whole-host capture sees every exec of the host, and most
	 * of those processes are never sampled).
	 */
	bool emitted;
	/* The kernel ended its mapping events (a secure exec): /proc is all there is. */
	bool no_events;
	/* Which process on the pid: new at each entry and fork (modules_generation()). */
	uint32_t generation;
};

struct modules {
	char proc_root[64];
	bool lazy; /* modules_keep_until_sampled() */
	struct module_file *files;
	size_t nr_files, cap_files;
	/* files by key, and by path and build id: a lookup is O(1), not one per file */
	struct hash_index by_key, by_path_id;
	struct proc_ranges *procs; /* sorted by pid */
	size_t nr_procs, cap_procs;
	struct modules_listener listener[MODULES_MAX_LISTENERS];
	unsigned nr_listeners;
	bool has_listener;
	size_t nr_ranges;     /* over every process: MODULES_MAX_RANGES */
	uint32_t generations; /* the last proc_ranges.generation given */
	uint64_t dropped;     /* mappings not kept for the caps */
};

int modules_add_listener(struct modules *m, const struct modules_listener *l)
{
	if (m->nr_listeners >= MODULES_MAX_LISTENERS)
		return -ENOSPC;
	m->listener[m->nr_listeners++] = *l;
	m->has_listener = true;
	return 0;
}

/* Every listener learns of pid's mapping of the file whose listener ids are ids. */
static int tell_mapping(struct modules *m, pid_t pid, uint64_t start, uint64_t end, uint64_t bias,
			const int *ids)
{
	int err = 0;

	for (unsigned i = 0; i < m->nr_listeners && !err; i++)
		err = m->listener[i].mapping(m->listener[i].ctx, pid, start, end, bias, ids[i]);
	return err;
}

static int tell_scanned(struct modules *m, pid_t pid)
{
	int err = 0;

	for (unsigned i = 0; i < m->nr_listeners && !err; i++)
		if (m->listener[i].scanned)
			err = m->listener[i].scanned(m->listener[i].ctx, pid);
	return err;
}

struct modules *modules__new(const char *proc_root)
{
	struct modules *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	snprintf(m->proc_root, sizeof(m->proc_root), "%s", proc_root ? proc_root : "/proc");
	return m;
}

static void proc_ranges_clear(struct modules *m, struct proc_ranges *p)
{
	m->nr_ranges -= rangemap_count(&p->ranges);
	rangemap_clear(&p->ranges);
	idset_free(&p->modules);
	p->exec_begun = false;
	p->scanned = false;
	p->rescan_ns = 0;
	p->emitted = false;
	p->no_events = false;
}

void modules__free(struct modules *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_files; i++) {
		free(m->files[i].key);
		free(m->files[i].path);
		elf_symbols__free(m->files[i].elf);
	}
	for (size_t i = 0; i < m->nr_procs; i++)
		proc_ranges_clear(m, &m->procs[i]);
	free(m->files);
	hash_index_free(&m->by_key);
	hash_index_free(&m->by_path_id);
	free(m->procs);
	free(m);
}

static int cmp_pid(const void *key, const void *elem)
{
	pid_t k = *(const pid_t *)key, e = ((const struct proc_ranges *)elem)->pid;

	return (k > e) - (k < e);
}

/* m->procs is sorted by pid: pid's entry, or NULL and where it would go. */
static struct proc_ranges *find_proc(const struct modules *m, pid_t pid, size_t *ret_pos)
{
	return sorted_find(m->procs, m->nr_procs, sizeof(*m->procs), &pid, cmp_pid, ret_pos);
}

static struct proc_ranges *get_proc(struct modules *m, pid_t pid)
{
	struct proc_ranges *p;
	size_t pos;

	p = find_proc(m, pid, &pos);
	if (p)
		return p;
	if (array_reserve((void **)&m->procs, &m->cap_procs, m->nr_procs, sizeof(*m->procs)))
		return NULL;
	memmove(&m->procs[pos + 1], &m->procs[pos], (m->nr_procs - pos) * sizeof(*m->procs));
	m->nr_procs++;
	m->procs[pos] = (struct proc_ranges){.pid = pid, .generation = ++m->generations};
	rangemap_init(&m->procs[pos].ranges, sizeof(struct range), MODULES_MAX_PROC_RANGES);
	return &m->procs[pos];
}

/* The range of p holding addr, or NULL. */
static struct range *find_range(const struct proc_ranges *p, uint64_t addr)
{
	struct rangemap_entry *e = rangemap_find(&p->ranges, addr);

	return e ? rangemap_value(e) : NULL;
}

bool modules_covers(const struct modules *m, pid_t pid, uint64_t pc)
{
	const struct proc_ranges *p = find_proc(m, pid, NULL);

	return p && find_range(p, pc);
}

bool modules_in_file(const struct modules *m, pid_t pid, uint64_t pc)
{
	const struct proc_ranges *p = find_proc(m, pid, NULL);
	const struct range *r = p ? find_range(p, pc) : NULL;

	return r && r->module < m->nr_files && m->files[r->module].usable;
}

void modules_forget(struct modules *m, pid_t pid)
{
	struct proc_ranges *p = find_proc(m, pid, NULL);
	bool emitted, no_events;

	if (!p)
		return;
	/* the same process: what it maps next goes out as it comes, or does not come */
	emitted = p->emitted;
	no_events = p->no_events;
	proc_ranges_clear(m, p);
	p->emitted = emitted;
	p->no_events = no_events;
}

uint32_t modules_generation(const struct modules *m, pid_t pid)
{
	const struct proc_ranges *p = find_proc(m, pid, NULL);

	return p ? p->generation : 0;
}

void modules_exited(struct modules *m, pid_t pid, uint32_t generation)
{
	struct proc_ranges *p = find_proc(m, pid, NULL);
	size_t pos;

	if (!p || p->generation != generation)
		return;
	proc_ranges_clear(m, p);
	pos = (size_t)(p - m->procs);
	m->nr_procs--;
	memmove(&m->procs[pos], &m->procs[pos + 1], (m->nr_procs - pos) * sizeof(*m->procs));
}

int modules_events_ended(struct modules *m, pid_t pid)
{
	struct proc_ranges *p = get_proc(m, pid);

	if (!p)
		return -ENOMEM;
	p->no_events = true;
	return 0;
}

bool modules_without_events(const struct modules *m, pid_t pid)
{
	const struct proc_ranges *p = find_proc(m, pid, NULL);

	return p && p->no_events;
}

void modules_exec_begin(struct modules *m, pid_t pid)
{
	struct proc_ranges *p = find_proc(m, pid, NULL);

	/*
	 * The old image's mappings stay until the exec record: a sample taken
	 * inside execve() still has the old image's user registers.
	 */
	if (p) {
		p->image++;
		p->exec_begun = true;
	}
}

uint64_t modules_dropped(const struct modules *m)
{
	return m->dropped;
}

/*
 * A new mapping replaces whatever it overlaps (the kernel unmapped that part
 * first, or changed its protection), so that the ranges stay apart; past a
 * cap it is dropped and counted.
 */
static int add_range(struct modules *m, struct proc_ranges *p, const struct range *r)
{
	size_t before = rangemap_count(&p->ranges);
	struct range copy = *r;
	int err;

	copy.image = p->image;
	r = &copy;
	if (m->nr_ranges >= MODULES_MAX_RANGES && !rangemap_find(&p->ranges, r->start)) {
		m->dropped++;
		return 0;
	}
	err = rangemap_set(&p->ranges, r->start, r->end, r, RANGEMAP_REPLACE);
	m->nr_ranges = m->nr_ranges - before + rangemap_count(&p->ranges);
	if (err == 1)
		m->dropped++;
	return err < 0 ? err : 0;
}

static void hex(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/*
 * The file map names, read once per capture. kernel_id (kernel_id_len bytes,
 * may be 0) is the build id the kernel read at the mapping: it is the file's
 * even when the file is replaced or deleted since, so it wins over the one
 * read now, and a file under the same key with another build id is another.
 */
struct path_id {
	const char *path;
	const uint8_t *id;
	size_t len;
};

static uint64_t path_id_hash(const char *path, const uint8_t *id, size_t len)
{
	return fnv1a(fnv1a(FNV_INIT, path, strlen(path) + 1), id, len);
}

static bool key_eq(const void *ctx, size_t pos, const void *key)
{
	return !strcmp(((const struct modules *)ctx)->files[pos].key, key);
}

static bool path_id_eq(const void *ctx, size_t pos, const void *key)
{
	const struct module_file *f = &((const struct modules *)ctx)->files[pos];
	const struct path_id *k = key;

	return f->path && !strcmp(f->path, k->path) && f->build_id_len == k->len &&
	       !memcmp(f->build_id, k->id, k->len);
}

static struct module_file *file_by_key(struct modules *m, const char *key)
{
	size_t pos;

	return hash_index_find(&m->by_key, fnv1a(FNV_INIT, key, strlen(key)), key_eq, m, key, &pos)
		       ? &m->files[pos]
		       : NULL;
}

/*
 * The file map names, read once per capture. kernel_id (kernel_id_len bytes,
 * may be 0) is the build id the kernel read at the mapping: it is the file's
 * even when the file is replaced or deleted since, so it wins over the one
 * read now, and a file under the same key with another build id is another.
 */
static struct module_file *get_file(struct modules *m, const char *dir, const struct proc_map *map,
				    const uint8_t *kernel_id, size_t kernel_id_len)
{
	/* a capture names no function: the build id and segments alone */
	const struct elf_symbols_opts opts = {.no_debug_file = true, .no_symbols = true};
	char fd_path[64];
	int fd;
	struct module_file *f;
	char key[4300], id_hex[2 * ELF_BUILD_ID_MAX + 1] = "";
	bool vdso = !strcmp(map->path, "[vdso]");
	const uint8_t *id;
	size_t pos;

	if (kernel_id_len > ELF_BUILD_ID_MAX)
		kernel_id_len = 0;
	snprintf(key, sizeof(key), "%u:%u:%llu:%s", map->dev_major, map->dev_minor,
		 (unsigned long long)map->inode, map->path);
	/* perf gives the build id instead of the inode: the same path and id is the file */
	if (kernel_id_len && !map->inode) {
		struct path_id k = {map->path, kernel_id, kernel_id_len};

		if (hash_index_find(&m->by_path_id,
				    path_id_hash(map->path, kernel_id, kernel_id_len), path_id_eq,
				    m, &k, &pos))
			return &m->files[pos];
	}
	f = file_by_key(m, key);
	if (f && (!kernel_id_len || (f->build_id_len == kernel_id_len &&
				     !memcmp(f->build_id, kernel_id, kernel_id_len))))
		return f;
	if (kernel_id_len) {
		hex(id_hex, kernel_id, kernel_id_len);
		snprintf(key + strlen(key), sizeof(key) - strlen(key), ":%s", id_hex);
		f = file_by_key(m, key);
		if (f)
			return f;
	}
	if (m->nr_files > UINT16_MAX)
		return NULL;
	if (array_reserve((void **)&m->files, &m->cap_files, m->nr_files, sizeof(*m->files)))
		return NULL;
	f = &m->files[m->nr_files];
	*f = (struct module_file){.id = (uint16_t)m->nr_files};
	f->key = strdup(key);
	f->path = strdup(map->path);
	if (!f->key || !f->path) {
		free(f->key);
		free(f->path);
		return NULL;
	}
	m->nr_files++;
	fd = vdso ? -1
		  : mapped_file_open(dir, map, kernel_id_len && !map->inode && !map->dev_major);
	if (vdso) {
		f->elf = mapped_vdso_open(dir, map, m->has_listener ? &fd : NULL);
	} else if (fd >= 0) {
		snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
		f->elf = elf_symbols__open(fd_path, &opts);
	}
	f->usable = f->elf != NULL;
	id = f->elf ? elf_symbols__build_id(f->elf, &f->build_id_len) : NULL;
	if (kernel_id_len) {
		/* the file at the path now may be another: the kernel's id is the mapped one's */
		if (f->elf && (!id || f->build_id_len != kernel_id_len ||
			       memcmp(id, kernel_id, kernel_id_len))) {
			elf_symbols__free(f->elf);
			f->elf = NULL;
		}
		id = kernel_id;
		f->build_id_len = kernel_id_len;
	}
	if (id)
		memcpy(f->build_id, id, f->build_id_len);
	else
		f->build_id_len = 0;
	for (unsigned k = 0; k < MODULES_MAX_LISTENERS; k++)
		f->listener_id[k] = k < m->nr_listeners
					    ? m->listener[k].file(m->listener[k].ctx, f->build_id,
								  f->build_id_len, f->key, fd)
					    : -1;
	if (fd >= 0)
		close(fd);
	/* unindexed (no memory), it is only read again: not wrong */
	hash_index_insert(&m->by_key, fnv1a(FNV_INIT, f->key, strlen(f->key)), f->id);
	if (f->build_id_len)
		hash_index_insert(&m->by_path_id,
				  path_id_hash(f->path, f->build_id, f->build_id_len), f->id);
	return f;
}

/* Write f's module record for p's process unless it was written already. */
static int write_module(struct fxt_stream *s, uint64_t ts, struct proc_ranges *p,
			const struct module_file *f)
{
	int err;

	if (idset_has(&p->modules, (uint64_t)f->id + 1))
		return 0;
	err = fxt_stream_module(s, ts, p->pid, f->id, f->path, f->build_id, f->build_id_len);
	if (err)
		return err;
	err = idset_add(&p->modules, (uint64_t)f->id + 1);
	return err < 0 ? err : 0;
}

/* r's module and mmap records, for p's process. */
static int write_range(struct modules *m, struct fxt_stream *s, uint64_t ts, struct proc_ranges *p,
		       struct range *r)
{
	int err = write_module(s, ts, p, &m->files[r->module]);

	if (!err)
		err = fxt_stream_mmap(s, ts, p->pid, r->module, r->flags, r->start,
				      r->end - r->start, r->vaddr);
	if (!err)
		r->written = true;
	return err;
}

/* Add r to p, and write it if p's mappings go out as they come (or now). */
static int keep_range(struct modules *m, struct fxt_stream *s, uint64_t ts, struct proc_ranges *p,
		      struct range *r, bool now)
{
	int err = 0;

	if (now || p->emitted)
		err = write_range(m, s, ts, p, r);
	return err ? err : add_range(m, p, r);
}

static int write_mapping(struct modules *m, struct fxt_stream *s, uint64_t ts, const char *dir,
			 bool from_event, struct proc_ranges *p, const struct proc_map *map,
			 const uint8_t *kernel_id, size_t kernel_id_len)
{
	struct module_file *f = get_file(m, dir, map, kernel_id, kernel_id_len);
	struct range r = {.start = map->start, .end = map->end, .vaddr = map->offset};

	if (!f)
		return -ENOMEM;
	r.module = f->id;
	r.source = from_event ? MODULES_FROM_EVENT : MODULES_FROM_PROC;
	r.flags = proc_map_elf_flags(map);
	/* Without the ELF, the file offset is the best guess of the module address. */
	if (f->elf)
		elf_symbols__offset_to_vaddr(f->elf, map->offset, r.flags, &r.vaddr);
	/* The CFI walker learns of a mapping as soon as it is known, written or not. */
	if (m->has_listener) {
		int err = tell_mapping(m, p->pid, map->start, map->end, map->start - r.vaddr,
				       f->listener_id);

		if (err)
			return err;
	}
	return keep_range(m, s, ts, p, &r, !m->lazy);
}

/* An executable mapping of a file, or the vdso: what a scan tells of. */
static bool is_code(const struct proc_map *map)
{
	return map->perms[2] == 'x' && map->path &&
	       (map->path[0] != '[' || !strcmp(map->path, "[vdso]"));
}

int modules_scan_dir(struct modules *m, struct fxt_stream *s, uint64_t ts, pid_t pid,
		     const char *pid_dir)
{
	struct proc_map *maps = NULL;
	struct proc_ranges *p;
	char path[96], dir[80];
	size_t n = 0, first_x = 0;
	int err, written = 0;

	if (pid_dir)
		snprintf(dir, sizeof(dir), "%s", pid_dir);
	else
		snprintf(dir, sizeof(dir), "%s/%d", m->proc_root, (int)pid);
	snprintf(path, sizeof(path), "%s/maps", dir);
	err = proc_maps_read(path, &maps, &n);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	p = get_proc(m, pid);
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	p->scanned = true;
	p->last_scan_ns = mono_ns();
	while (first_x < n && !is_code(&maps[first_x]))
		first_x++;
	/*
	 * In the order they were mapped, as far as the maps show it: the lowest
	 * (the program, below the mmap area) first, then from the top down, as
	 * mmap hands out addresses: ld.so's first are the program's own
	 * DT_NEEDED, clang's libclang-cpp and libLLVM. That is the order their
	 * tables are let in (capture/cfi_tables.h): in address order libLLVM's
	 * small libraries came first, and at --cfi-memory 8M a CI run left
	 * libclang-cpp out and none of clang's stacks was whole.
	 */
	for (size_t k = 0; k < n; k++) {
		size_t i = k ? n - k : first_x;
		const struct proc_map *map;

		/* first_x once, first (n when the maps hold no code) */
		if (i >= n || (k && i == first_x))
			continue;
		map = &maps[i];
		if (!is_code(map) || find_range(p, map->start))
			continue;
		err = write_mapping(m, s, ts, dir, false, p, map, NULL, 0);
		if (err)
			goto out;
		written++;
	}
	err = written;
	if (written && m->has_listener) {
		int e = tell_scanned(m, pid);

		if (e)
			err = e;
	}
out:
	proc_maps_free(maps, n);
	return err;
}

bool modules_refresh_due(const struct modules *m, pid_t pid)
{
	const struct proc_ranges *p = find_proc(m, pid, NULL);

	return !(p && p->scanned && mono_ns() - p->last_scan_ns < p->rescan_ns);
}

int modules_refresh_dir(struct modules *m, struct fxt_stream *s, uint64_t ts, pid_t pid,
			const char *pid_dir)
{
	struct proc_ranges *p = find_proc(m, pid, NULL);
	int written;

	/*
	 * Code in no file (a JIT) or a garbage return address is outside every
	 * mapping for good: each rescan that finds nothing new doubles the wait
	 * before the next, up to MODULES_RESCAN_MAX_NS; one that finds a new
	 * mapping (a dlopen) resets it.
	 */
	if (!modules_refresh_due(m, pid))
		return 0;
	written = modules_scan_dir(m, s, ts, pid, pid_dir);
	p = find_proc(m, pid, NULL);
	if (p && written >= 0) {
		if (written || !p->rescan_ns)
			p->rescan_ns = MODULES_RESCAN_NS;
		else if (p->rescan_ns < MODULES_RESCAN_MAX_NS)
			p->rescan_ns *= 2;
	}
	return written;
}

void modules_renamed(struct modules *m, pid_t pid)
{
	struct proc_ranges *p = find_proc(m, pid, NULL);

	if (p)
		idset_free(&p->modules);
}

void modules_keep_until_sampled(struct modules *m)
{
	m->lazy = true;
}

bool modules_known(const struct modules *m, pid_t pid)
{
	const struct proc_ranges *p = find_proc(m, pid, NULL);

	return p && (p->scanned || rangemap_count(&p->ranges));
}

int modules_add_event(struct modules *m, struct fxt_stream *s, uint64_t ts, pid_t pid,
		      const struct modules_event *ev)
{
	struct proc_map map = {
		.start = ev->start,
		.end = ev->start + ev->len,
		.offset = ev->pgoff,
		.dev_major = ev->maj,
		.dev_minor = ev->min,
		.inode = ev->ino,
	};
	static const char deleted[] = " (deleted)";
	size_t len = strlen(ev->path), dl = sizeof(deleted) - 1;
	struct proc_ranges *p;
	int err;

	if (!ev->len || map.end < map.start)
		return -EINVAL;
	p = get_proc(m, pid);
	if (!p)
		return -ENOMEM;
	map.perms[0] = ev->prot & PROT_READ ? 'r' : '-';
	map.perms[1] = ev->prot & PROT_WRITE ? 'w' : '-';
	map.perms[2] = ev->prot & PROT_EXEC ? 'x' : '-';
	map.perms[3] = ev->flags & MAP_SHARED ? 's' : 'p';
	/* The kernel's d_path marks a file unlinked before the mapping. */
	map.path = strdup(ev->path);
	if (!map.path)
		return -ENOMEM;
	if (len > dl && !strcmp(map.path + len - dl, deleted)) {
		map.path[len - dl] = '\0';
		map.deleted = true;
	}
	err = write_mapping(m, s, ts, ev->dir, true, p, &map, ev->build_id, ev->build_id_len);
	free(map.path);
	/* A mapping from the kernel completes the process's set as it is now: the walker gets it.
	 */
	if (!err && m->has_listener)
		err = tell_scanned(m, pid);
	return err ? err : p->emitted;
}

int modules_fork(struct modules *m, pid_t ppid, pid_t cpid)
{
	struct proc_ranges *parent, *child;
	int err = 0, copied = 0;

	if (!find_proc(m, ppid, NULL))
		return 0;
	child = get_proc(m, cpid);
	if (!child)
		return -ENOMEM;
	/* a new process: what was known of its pid was a dead one's */
	proc_ranges_clear(m, child);
	child->generation = ++m->generations;
	/* get_proc may have moved the parent's entry */
	parent = find_proc(m, ppid, NULL);
	/* a task without events has none for its children to inherit */
	child->no_events = parent->no_events;
	for (struct rangemap_entry *e = rangemap_first(&parent->ranges); e && !err;
	     e = rangemap_next(&parent->ranges, e)) {
		struct range r = *(struct range *)rangemap_value(e);

		r.source = MODULES_FROM_FORK;
		r.written = false;
		err = add_range(m, child, &r);
		copied += !err;
	}
	return err ? err : copied;
}

int modules_emit(struct modules *m, struct fxt_stream *s, uint64_t ts, pid_t pid,
		 unsigned ret_written[MODULES_NR_SOURCES])
{
	struct proc_ranges *p = get_proc(m, pid);
	int err = 0;

	if (!p)
		return -ENOMEM;
	if (p->emitted)
		return 0;
	p->emitted = true;
	for (struct rangemap_entry *e = rangemap_first(&p->ranges); e && !err;
	     e = rangemap_next(&p->ranges, e)) {
		struct range *r = rangemap_value(e);

		if (r->written)
			continue;
		err = write_range(m, s, ts, p, r);
		if (!err && r->source < MODULES_NR_SOURCES)
			ret_written[r->source]++;
	}
	return err;
}

void modules_exec(struct modules *m, pid_t pid)
{
	struct proc_ranges *p = find_proc(m, pid, NULL);
	struct rangemap_entry *e, *next;
	bool by_image = false;

	if (!p)
		return;
	/*
	 * After the exec's comm record, the new image's mappings came from the
	 * kernel: every one from before goes. None came (a secure exec ends the
	 * events; /proc is read next): only the copies from the parent or /proc.
	 */
	for (e = rangemap_first(&p->ranges); p->exec_begun && e && !by_image;
	     e = rangemap_next(&p->ranges, e))
		by_image = ((struct range *)rangemap_value(e))->image == p->image;
	for (e = rangemap_first(&p->ranges); e; e = next) {
		const struct range *r = rangemap_value(e);

		next = rangemap_next(&p->ranges, e);
		if (by_image ? r->image != p->image : r->source != MODULES_FROM_EVENT) {
			rangemap_remove(&p->ranges, e);
			m->nr_ranges--;
		}
	}
	p->exec_begun = false;
}

int modules_replay(struct modules *m, pid_t pid)
{
	struct proc_ranges *p = find_proc(m, pid, NULL);
	int err = 0;

	if (!p || !m->has_listener)
		return 0;
	for (struct rangemap_entry *e = rangemap_first(&p->ranges); e && !err;
	     e = rangemap_next(&p->ranges, e)) {
		const struct range *r = rangemap_value(e);
		static const int none[MODULES_MAX_LISTENERS] = {-1, -1};
		/* a file's id is its index */
		const int *ids = r->module < m->nr_files ? m->files[r->module].listener_id : none;

		err = tell_mapping(m, pid, r->start, r->end, r->start - r->vaddr, ids);
	}
	return err ? err : tell_scanned(m, pid);
}
