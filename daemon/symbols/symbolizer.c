// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbolization of a profile's frames from its module and mmap records.
 *
 * Records may come in any order: the Fuchsia writer emits module and mmap
 * records after the samples, so nothing is resolved until asked, and a
 * mapping finds its module by id at that point.
 *
 * A pc is named by the mapping there at its sample's time; the times a mapping
 * began over another are its process's "changes", which callers key caches by.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "util/containers.h"
#include "util/hash.h"
#include "util/sorted.h"
#include "util/strpool.h"
#include "symbols/dwarf_source.h"
#include "symbols/elf_symbols.h"
#include "fxt/fxt_reader.h"
#include "capture/proc_maps.h"
#include "symbols/mappings.h"
#include "symbols/symbolizer.h"

/* One ELF file as opened for a (path, build id) pair; es NULL when unusable. */
struct elf_entry {
	const char *path; /* interned */
	size_t build_id_len;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	struct elf_symbols *es;
	int err;
	struct dwarf_source src; /* its DWARF: source lines, inline chains */
};

/*
 * One per module record: a whole-host capture has tens of thousands (each
 * process its libraries), so the path and build id are the symbolizer's
 * interned copies (s->pool), one for every process that maps the file.
 */
struct module {
	uint16_t id;
	const char *path; /* interned */
	size_t build_id_len;
	const uint8_t *build_id; /* build_id_len bytes, interned; NULL when 0 */
	struct elf_entry *elf;	 /* NULL until a pc in the module is resolved */
};

/*
 * What a mapping hands out (symbolizer_resolve(), symbolizer_mapping_at()),
 * made the first time it is asked: a whole-host capture has 100,000 mappings
 * (every process's every library), and the report names a file's pc once for
 * every process that maps it (symbolizer_file_pc()), so few are.
 */
struct resolved_mapping {
	struct symbolizer_mapping pub;
	struct module *module;
	bool offset_done;
};

/* A mapping: the index's entry first (symbols/mappings), 104 bytes in all. */
struct mapping {
	struct mapping_entry e;
	unsigned id;  /* 1-based, unique within the symbolizer */
	bool has_res; /* link is res, which holds the module */
	union {
		struct module *module; /* NULL until looked up */
		struct resolved_mapping *res;
	} link;
};

static struct mapping *mapping_of_nullable(struct mapping_entry *e)
{
	return e ? itree_entry(e, struct mapping, e) : NULL;
}

/* Frees what a mapping handed out (mappings_free() frees the mapping itself). */
static void free_res(struct mapping_entry *e, void *ctx)
{
	struct mapping *m = mapping_of_nullable(e);

	(void)ctx;
	if (m->has_res)
		free(m->link.res);
}

struct process {
	uint64_t pid;
	struct module **modules;
	size_t nr_modules;
	size_t cap_modules;
	struct mappings maps;
};

struct symbolizer {
	struct symbolizer_opts opts;
	char *debug_dir;
	struct process **procs; /* sorted by pid */
	size_t nr_procs;
	size_t cap_procs;
	/* Each (path, build id) opened once, in the order they were first asked for. */
	struct elf_entry **elfs;
	size_t nr_elfs, cap_elfs;
	struct hash_index elf_idx;
	/* Interned strings: the names handed out stay valid until symbolizer__free(). */
	/* Module paths and build ids, and the names made up for pcs no symbol names. */
	struct strpool pool;
	unsigned next_mapping_id;
	uint64_t seq;
	bool any_changes; /* a process has changes: epochs are not all 0 */
	struct debuginfod_fetcher *debuginfod;
	/* The files' DWARF answers, and the inline chains handed out. */
	struct dwarf_sources sources;
};

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts)
{
	struct symbolizer *s;

	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	if (opts) {
		s->opts = *opts;
		if (opts->debug_dir) {
			s->debug_dir = strdup(opts->debug_dir);
			if (!s->debug_dir) {
				free(s);
				errno = ENOMEM;
				return NULL;
			}
		}
	}
	s->opts.debug_dir = s->debug_dir;
	if (s->opts.debuginfod)
		s->debuginfod = debuginfod_fetcher__new(&opts->debuginfod_limits);
	s->sources = (struct dwarf_sources){
		.opts = {.debug_dir = s->opts.debug_dir, .debuginfod = s->debuginfod},
		.pool = &s->pool,
		.unknown = SYMBOLIZER_UNKNOWN,
	};
	return s;
}

static void process_free(struct process *p)
{
	size_t i;

	for (i = 0; i < p->nr_modules; i++)
		free(p->modules[i]);
	mappings_each(&p->maps, free_res, NULL);
	mappings_free(&p->maps);
	free(p->modules);
	free(p);
}

size_t symbolizer_processes(const struct symbolizer *s)
{
	return s->nr_procs;
}

void symbolizer_forget_processes(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->nr_procs; i++)
		process_free(s->procs[i]);
	s->nr_procs = 0;
}

void symbolizer__free(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_procs; i++)
		process_free(s->procs[i]);
	free(s->procs);
	for (i = 0; i < s->nr_elfs; i++) {
		struct elf_entry *e = s->elfs[i];

		elf_symbols__free(e->es);
		dwarf_source_free(&e->src);
		free(e);
	}
	free(s->elfs);
	hash_index_free(&s->elf_idx);
	dwarf_sources_free(&s->sources);
	strpool_free(&s->pool);
	debuginfod_fetcher__free(s->debuginfod);
	free(s->debug_dir);
	free(s);
}

static int cmp_proc_pid(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, e = (*(struct process *const *)elem)->pid;

	return (k > e) - (k < e);
}

/* Index of pid in s->procs, or where it would be inserted. */
static size_t proc_index(const struct symbolizer *s, uint64_t pid)
{
	return sorted_lower(s->procs, s->nr_procs, sizeof(*s->procs), &pid, cmp_proc_pid);
}

static struct process *find_process(const struct symbolizer *s, uint64_t pid)
{
	size_t i = proc_index(s, pid);

	return i < s->nr_procs && s->procs[i]->pid == pid ? s->procs[i] : NULL;
}

static struct process *get_process(struct symbolizer *s, uint64_t pid)
{
	size_t i = proc_index(s, pid);
	struct process *p;

	if (i < s->nr_procs && s->procs[i]->pid == pid)
		return s->procs[i];
	if (array_reserve((void **)&s->procs, &s->cap_procs, s->nr_procs, sizeof(*s->procs)))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	memmove(&s->procs[i + 1], &s->procs[i], (s->nr_procs - i) * sizeof(*s->procs));
	s->procs[i] = p;
	s->nr_procs++;
	return p;
}

static struct module *find_module(const struct process *p, uint16_t id)
{
	size_t i;

	for (i = 0; i < p->nr_modules; i++)
		if (p->modules[i]->id == id)
			return p->modules[i];
	return NULL;
}

static void forget_module(struct mapping_entry *e, void *ctx)
{
	struct mapping *m = mapping_of_nullable(e);

	if (m->e.module_id != *(const uint16_t *)ctx)
		return;
	if (!m->has_res) {
		m->link.module = NULL;
	} else {
		m->link.res->module = NULL;
		m->link.res->offset_done = false;
	}
}

/*
 * Room for one more module in p: 4 at first, not array_reserve()'s 16, as a
 * compiler's process maps about 5 (13,633 processes of a whole host: 1.3 MB).
 */
static int reserve_module(struct process *p)
{
	size_t cap = p->cap_modules ? p->cap_modules * 2 : 4;
	struct module **grown;

	if (p->nr_modules < p->cap_modules)
		return 0;
	grown = reallocarray(p->modules, cap, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->modules = grown;
	p->cap_modules = cap;
	return 0;
}

int symbolizer_add_module(struct symbolizer *s, uint64_t pid, uint16_t module_id, const char *path,
			  const uint8_t *build_id, size_t build_id_len)
{
	struct process *p;
	struct module *m;
	const char *copy;
	const uint8_t *id_copy = NULL;

	if (build_id_len > ELF_BUILD_ID_MAX || (build_id_len && !build_id))
		return -EINVAL;
	p = get_process(s, pid);
	if (!p)
		return -ENOMEM;
	copy = strpool_str(&s->pool, path ? path : "");
	if (build_id_len && copy)
		id_copy = (const uint8_t *)strpool_intern(&s->pool, build_id, build_id_len);
	if (!copy || (build_id_len && !id_copy))
		return -ENOMEM;
	m = find_module(p, module_id);
	if (!m) {
		if (reserve_module(p))
			return -ENOMEM;
		m = calloc(1, sizeof(*m));
		if (!m)
			return -ENOMEM;
		m->id = module_id;
		p->modules[p->nr_modules++] = m;
	} else if (m->path == copy && m->build_id == id_copy) {
		/* written again (after an exec, a rename): nothing to look up anew */
		return 0;
	}
	m->path = copy;
	m->build_id_len = build_id_len;
	m->build_id = id_copy;
	m->elf = NULL;
	/* Mappings of a replaced module must look it up (and its ELF) again. */
	mappings_each(&p->maps, forget_module, &module_id);
	return 0;
}

int symbolizer_add_mmap(struct symbolizer *s, uint64_t pid, uint16_t module_id, unsigned flags,
			uint64_t start, uint64_t size, uint64_t vaddr, uint64_t ts)
{
	struct process *p;
	struct mapping *m;
	bool change;
	int err;

	if (!size)
		return 0;
	p = get_process(s, pid);
	if (!p)
		return -ENOMEM;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->e = (struct mapping_entry){
		.node = {.start = start,
			 .end = start + size < start ? UINT64_MAX : start + size,
			 .seq = ++s->seq},
		.size = size,
		.vaddr = vaddr,
		.ts = ts,
		.flags = flags,
		.module_id = module_id,
	};
	err = mappings_add(&p->maps, &m->e, &change);
	if (change)
		s->any_changes = true;
	if (err) {
		free(m);
		return err < 0 ? err : 0;
	}
	m->id = ++s->next_mapping_id;
	return 0;
}

int symbolizer_add_record(struct symbolizer *s, const struct fxt_record *rec)
{
	if (rec->type != FXT_RT_PROFILER)
		return 0;
	switch (rec->subtype) {
	case FXT_PROF_MODULE:
		return symbolizer_add_module(s, rec->pid, rec->module_id, rec->name, rec->build_id,
					     rec->build_id_len);
	case FXT_PROF_MMAP:
		return symbolizer_add_mmap(s, rec->pid, rec->module_id, rec->mmap_flags, rec->start,
					   rec->size, rec->vaddr, rec->ts);
	default:
		return 0;
	}
}

unsigned symbolizer_mapping_id(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return,
			       uint64_t ts)
{
	struct process *p = find_process(s, pid);
	struct mapping *m =
		p ? mapping_of_nullable(mappings_find(&p->maps, elf_lookup_pc(pc, is_return), ts))
		  : NULL;

	return m ? m->id : 0;
}

uint64_t symbolizer_epoch(const struct symbolizer *s, uint64_t pid, uint64_t ts)
{
	const struct process *p = s->any_changes ? find_process(s, pid) : NULL;

	return p ? mappings_epoch(&p->maps, ts) : 0;
}

/* This process's own vDSO, as an image: the same kernel maps the same one. */
static struct elf_symbols *open_self_vdso(const struct elf_symbols_opts *opts, int *ret_err)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct proc_map *maps = NULL;
	const struct proc_map *m;
	struct elf_symbols *es = NULL;
	size_t n = 0;
	int err;

	if (!base) {
		*ret_err = -ENOENT;
		return NULL;
	}
	err = proc_maps_read("/proc/self/maps", &maps, &n);
	if (err) {
		*ret_err = err;
		return NULL;
	}
	m = proc_maps_find(maps, n, base);
	if (!m || m->perms[0] != 'r') {
		*ret_err = -ENOENT;
	} else {
		es = elf_symbols__open_mem((const void *)base, m->end - base, "[vdso]", opts);
		*ret_err = es ? 0 : -errno;
	}
	proc_maps_free(maps, n);
	return es;
}

static bool build_id_matches(const struct elf_symbols *es, const uint8_t *id, size_t len)
{
	const uint8_t *got;
	size_t got_len = 0;

	/* Without a recorded build id there is nothing to check against. */
	if (!len)
		return true;
	got = elf_symbols__build_id(es, &got_len);
	return got && got_len == len && !memcmp(got, id, len);
}

/* Open the ELF for a module: its path, else a debug file named by its build id. */
static void open_entry(const struct symbolizer *s, struct elf_entry *e)
{
	struct elf_symbols_opts eo = {.debug_dir = s->opts.debug_dir};
	char path[4096];
	int err;

	if (!strcmp(e->path, "[vdso]")) {
		if (s->opts.no_self_vdso) {
			e->err = -ENOENT;
			return;
		}
		e->es = open_self_vdso(&eo, &err);
	} else {
		e->es = elf_symbols__open(e->path, &eo);
		err = e->es ? 0 : -errno;
	}
	if (e->es && !build_id_matches(e->es, e->build_id, e->build_id_len)) {
		elf_symbols__free(e->es);
		e->es = NULL;
		err = -ESTALE;
	}
	/*
	 * The binary is gone or was rebuilt: a debug file of the recorded build
	 * (it has the .symtab) still symbolizes it.
	 */
	if (!e->es && e->build_id_len &&
	    !elf_build_id_debug_path(s->opts.debug_dir, e->build_id, e->build_id_len, path,
				     sizeof(path))) {
		e->es = elf_symbols__open(path, &eo);
		if (e->es && (!build_id_matches(e->es, e->build_id, e->build_id_len) ||
			      !elf_symbols__count(e->es))) {
			elf_symbols__free(e->es);
			e->es = NULL;
		}
	}
	e->err = e->es ? 0 : err ? err : -ENOENT;
}

static bool elf_eq(const void *ctx, size_t pos, const void *key)
{
	const struct elf_entry *e = ((const struct symbolizer *)ctx)->elfs[pos];
	const struct module *m = key;

	return e->build_id_len == m->build_id_len &&
	       (!m->build_id_len || !memcmp(e->build_id, m->build_id, m->build_id_len)) &&
	       !strcmp(e->path, m->path);
}

static struct elf_entry *get_elf(struct symbolizer *s, const struct module *m)
{
	uint64_t h = fnv1a(FNV_INIT, m->path, strlen(m->path));
	struct elf_entry *e;
	size_t pos;

	h = fnv1a(h, m->build_id, m->build_id_len);
	if (hash_index_find(&s->elf_idx, h, elf_eq, s, m, &pos))
		return s->elfs[pos];
	if (array_reserve((void **)&s->elfs, &s->cap_elfs, s->nr_elfs, sizeof(*s->elfs)))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->path = m->path;
	e->build_id_len = m->build_id_len;
	if (m->build_id_len) /* a module without one has no array: NULL */
		memcpy(e->build_id, m->build_id, m->build_id_len);
	open_entry(s, e);
	e->src = (struct dwarf_source){.path = e->path,
				       .build_id = e->build_id,
				       .build_id_len = e->build_id_len,
				       .no_dwarf = !strcmp(e->path, "[vdso]")};
	if (hash_index_insert(&s->elf_idx, h, s->nr_elfs)) {
		elf_symbols__free(e->es);
		free(e);
		return NULL;
	}
	s->elfs[s->nr_elfs++] = e;
	return e;
}

/* The file offset a mapping starts at, from the segment whose p_vaddr it records. */
static void mapping_file_offset(struct resolved_mapping *m)
{
	const struct elf_segment *segs;
	size_t i, n;

	m->offset_done = true;
	m->pub.file_offset = 0;
	m->pub.go_build_id = NULL;
	if (!m->module || !m->module->elf || !m->module->elf->es)
		return;
	m->pub.go_build_id = elf_symbols__go_build_id(m->module->elf->es);
	n = elf_symbols__segments(m->module->elf->es, &segs);
	for (i = 0; i < n; i++) {
		if (m->pub.vaddr >= segs[i].vaddr && m->pub.vaddr < segs[i].vaddr + segs[i].memsz) {
			m->pub.file_offset = segs[i].offset + (m->pub.vaddr - segs[i].vaddr);
			return;
		}
	}
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/*
 * Source lines and inlined functions at vaddr from the module's DWARF. A pc
 * the ELF symbols do not cover gets the DWARF subprogram's name (a stripped
 * binary whose debug file came from debuginfod).
 */
static int add_source(struct symbolizer *s, struct elf_entry *e, uint64_t vaddr,
		      struct sym_frame *f, const char **name)
{
	struct dwarf_frame outer;
	const struct dwarf_frame *inlined;
	int n = dwarf_source_lookup(&s->sources, &e->src, vaddr, &outer, &inlined);

	if (n <= 0)
		return n;
	f->file = outer.file;
	f->line = outer.line;
	f->decl_file = outer.decl_file;
	f->decl_line = outer.decl_line;
	if (!*name)
		*name = outer.function;
	f->inlined = inlined;
	f->nr_inlined = (unsigned)(n - 1);
	return 0;
}

/*
 * The mapping of pid's pc at ts (*ret_m, NULL when none) and its module
 * (*ret_mod, NULL when no module record names it) with its ELF looked up.
 * 0 or -ENOMEM.
 */
static int find_mapping(struct symbolizer *s, uint64_t pid, uint64_t lookup, uint64_t ts,
			struct mapping **ret_m, struct module **ret_mod)
{
	struct process *p = find_process(s, pid);
	struct mapping *m = p ? mapping_of_nullable(mappings_find(&p->maps, lookup, ts)) : NULL;
	struct module **mod;

	*ret_m = m;
	*ret_mod = NULL;
	if (!m)
		return 0;
	mod = m->has_res ? &m->link.res->module : &m->link.module;
	if (!*mod)
		*mod = find_module(p, m->e.module_id);
	*ret_mod = *mod;
	if (*mod && !(*mod)->elf) {
		(*mod)->elf = get_elf(s, *mod);
		if (!(*mod)->elf)
			return -ENOMEM;
	}
	return 0;
}

/*
 * find_mapping(), with what the mapping hands out made (once) and every field
 * of its pub set: *ret NULL when no mapping covers the pc. 0 or -ENOMEM.
 */
static int resolve_mapping(struct symbolizer *s, uint64_t pid, uint64_t lookup, uint64_t ts,
			   struct resolved_mapping **ret)
{
	struct resolved_mapping *res;
	struct module *mod;
	struct mapping *m;
	int err = find_mapping(s, pid, lookup, ts, &m, &mod);

	*ret = NULL;
	if (err || !m)
		return err;
	if (!m->has_res) {
		res = calloc(1, sizeof(*res));
		if (!res)
			return -ENOMEM;
		res->pub = (struct symbolizer_mapping){.id = m->id,
						       .pid = pid,
						       .ts = m->e.ts,
						       .start = m->e.node.start,
						       .size = m->e.size,
						       .vaddr = m->e.vaddr,
						       .flags = m->e.flags,
						       .module_id = m->e.module_id};
		res->module = m->link.module;
		m->link.res = res;
		m->has_res = true;
	}
	res = m->link.res;
	if (mod) {
		res->pub.path = mod->path;
		res->pub.build_id = mod->build_id_len ? mod->build_id : NULL;
		res->pub.build_id_len = mod->build_id_len;
		if (!res->offset_done)
			mapping_file_offset(res);
	}
	*ret = res;
	return 0;
}

unsigned symbolizer_max_mapping_id(const struct symbolizer *s)
{
	return s->next_mapping_id;
}

int symbolizer_mapping_at(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return,
			  uint64_t ts, const struct symbolizer_mapping **ret)
{
	struct resolved_mapping *m;
	int err = resolve_mapping(s, pid, elf_lookup_pc(pc, is_return), ts, &m);

	*ret = m ? &m->pub : NULL;
	return err;
}

int symbolizer_file_pc(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		       const void **file, uint64_t *vaddr)
{
	uint64_t lookup = elf_lookup_pc(pc, is_return);
	struct module *mod;
	struct mapping *m;
	int err = find_mapping(s, pid, lookup, ts, &m, &mod);

	/* pc 0 and 1 would look the same byte up: keep the odd one by pid. */
	if (err || !m || !mod || !pc)
		return err;
	*file = mod->elf;
	*vaddr = elf_pc_to_vaddr(pc, m->e.node.start, m->e.vaddr);
	return 1;
}

int symbolizer_want_source(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return,
			   uint64_t ts)
{
	uint64_t lookup = elf_lookup_pc(pc, is_return);
	struct module *mod;
	struct mapping *m;
	int err = find_mapping(s, pid, lookup, ts, &m, &mod);

	if (err || !m || !mod)
		return err;
	return dwarf_sources_want(&s->sources, &mod->elf->src,
				  elf_pc_to_vaddr(lookup, m->e.node.start, m->e.vaddr));
}

int symbolizer_load_sources(struct symbolizer *s)
{
	return dwarf_sources_resolve(&s->sources);
}

int symbolizer_resolve(struct symbolizer *s, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		       struct sym_frame *ret)
{
	uint64_t lookup = elf_lookup_pc(pc, is_return), vaddr;
	struct sym_frame f = {.function = SYMBOLIZER_UNKNOWN};
	struct resolved_mapping *m;
	const char *name;
	char buf[512];
	int err;

	err = resolve_mapping(s, pid, lookup, ts, &m);
	if (err || !m) {
		*ret = f;
		return err;
	}
	f.mapping = &m->pub;
	f.module_offset = elf_pc_to_vaddr(pc, m->pub.start, m->pub.vaddr);
	if (m->module) {
		f.module = m->module->path;
		vaddr = elf_pc_to_vaddr(lookup, m->pub.start, m->pub.vaddr);
		name = elf_symbols__lookup(m->module->elf->es, vaddr, NULL);
		err = add_source(s, m->module->elf, vaddr, &f, &name);
		if (err)
			return err;
		if (name) {
			uint64_t start = 0;

			elf_symbols__lookup_addr(m->module->elf->es, vaddr, &start, NULL);
			f.function = name;
			f.function_offset = f.module_offset - start;
			f.resolved = true;
			*ret = f;
			return 0;
		}
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, basename_of(m->module->path),
			 f.module_offset);
	} else {
		snprintf(buf, sizeof(buf), "[module %u]+0x%" PRIx64, (unsigned)m->pub.module_id,
			 f.module_offset);
	}
	f.function = strpool_str(&s->pool, buf);
	if (!f.function)
		return -ENOMEM;
	*ret = f;
	return 0;
}

void symbolizer_for_each_failure(const struct symbolizer *s, symbolizer_failure_fn fn, void *ctx)
{
	size_t i;

	for (i = 0; i < s->nr_elfs; i++)
		if (!s->elfs[i]->es)
			fn(ctx, s->elfs[i]->path, s->elfs[i]->err);
}

void symbolizer_for_each_fetch_failure(const struct symbolizer *s, symbolizer_fetch_failure_fn fn,
				       void *ctx)
{
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	size_t i;

	for (i = 0; i < s->nr_elfs; i++) {
		const struct elf_entry *e = s->elfs[i];

		if (e->src.fetch_err)
			fn(ctx, e->path,
			   elf_build_id_hex(e->build_id, e->build_id_len, hex, sizeof(hex)),
			   e->src.fetch_err);
	}
}

const char *symbolizer_debuginfod_error(const struct symbolizer *s)
{
	return debuginfod_fetcher__library_error(s->debuginfod);
}
