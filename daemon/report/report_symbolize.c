// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Symbolization of the report's stacks into locations and functions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "report/report_internal.h"
#include "symbols/demangle.h"
#include "symbols/sym_cache.h"
#include "symbols/symbolizer.h"

void report_unprepare(struct report *r)
{
	size_t i;

	for (i = 0; i < r->stacks.n; i++) {
		struct stack *s = &T(r->stacks, struct stack)[i];

		free(s->locs);
		s->locs = NULL;
		free(s->frame_of);
		s->frame_of = NULL;
	}
	for (i = 0; i < r->locs.n; i++)
		free(T(r->locs, struct loc)[i].inl);
	report_table_free(&r->locs);
	report_table_free(&r->funcs);
	r->prepared = false;
}

/* ---- symbolization into locations and functions ---- */

/*
 * A location is a pc in the mapping that was there at its stack's time: one
 * pc is two locations when two libraries were mapped there one after the
 * other. Code of a file: (code, vaddr), pid and mapping 0; else mapping is
 * the symbolizer's id; 0 for none, for kernel frames, and in a process with
 * one epoch (symbolizer_epoch()), where it names a pc alike.
 */
struct loc_key {
	const void *code;
	uint64_t pid, pc;
	bool is_return;
	unsigned mapping;
};

static bool loc_eq(const void *ctx, size_t pos, const void *key)
{
	const struct loc *l = &T(*(const struct table *)ctx, struct loc)[pos];
	const struct loc_key *k = key;

	return l->code == k->code && l->pid == k->pid && l->pc == k->pc &&
	       l->is_return == k->is_return && l->mapping_id == k->mapping;
}

struct func_key {
	const char *name, *module;
};

static bool func_eq(const void *ctx, size_t pos, const void *key)
{
	const struct func *f = &T(*(const struct table *)ctx, struct func)[pos];
	const struct func_key *k = key;

	return !strcmp(f->name, k->name) && !strcmp(f->module ?: "", k->module ?: "");
}

static int get_func(struct report *r, const char *name, const char *module, bool resolved,
		    size_t *ret)
{
	struct func_key k = {name, module};
	uint64_t h = fnv1a(FNV_INIT, name, strlen(name) + 1);
	struct func *f;

	if (module)
		h = fnv1a(h, module, strlen(module));
	if (hash_index_find(&r->funcs.idx, h, func_eq, &r->funcs, &k, ret))
		return 0;
	if (array_reserve(&r->funcs.v, &r->funcs.cap, r->funcs.n, sizeof(struct func)) ||
	    hash_index_insert(&r->funcs.idx, h, r->funcs.n))
		return -ENOMEM;
	f = &T(r->funcs, struct func)[r->funcs.n];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->system_name = name;
	f->module = module;
	f->resolved = resolved;
	*ret = r->funcs.n++;
	return 0;
}

/*
 * The function a symbol names: by its demangled name (demangled once per
 * distinct name, symbols/demangle.h), with the symbol's own as its
 * system_name. Two symbols one name demangles from (a constructor's C1 and
 * C2, two instances of a Rust generic) are one function, as in perf and pprof.
 */
static int get_symbol_func(struct report *r, const char *symbol, const char *module, bool resolved,
			   size_t *ret)
{
	const char *name = resolved && r->dm ? demangler_name(r->dm, symbol) : symbol;
	int err;

	if (!name)
		return -ENOMEM;
	err = get_func(r, name, module, resolved, ret);
	if (!err && name != symbol)
		T(r->funcs, struct func)[*ret].system_name = symbol;
	return err;
}

/* The first declaration DWARF gives a function is its pprof filename and start_line. */
static void func_set_source(struct report *r, size_t func, const char *file, unsigned line)
{
	struct func *f = &T(r->funcs, struct func)[func];

	if (!f->file && file) {
		f->file = file;
		f->start_line = line;
	}
}

/* A new location of key k in func, indexed under hash h, the rest zero; NULL: -ENOMEM. */
static struct loc *add_loc(struct report *r, uint64_t h, const struct loc_key *k, size_t func,
			   size_t *ret)
{
	struct loc *l;

	if (array_reserve(&r->locs.v, &r->locs.cap, r->locs.n, sizeof(struct loc)) ||
	    hash_index_insert(&r->locs.idx, h, r->locs.n))
		return NULL;
	l = &T(r->locs, struct loc)[r->locs.n];
	memset(l, 0, sizeof(*l));
	l->code = k->code;
	l->pid = k->pid;
	l->pc = k->pc;
	l->is_return = k->is_return;
	l->mapping_id = k->mapping;
	l->func = func;
	*ret = r->locs.n++;
	return l;
}

/* A kernel frame: named by the file's kernel symbols, in the kernel's mapping. */
static int get_kernel_loc(struct report *r, const struct loc_key *k, uint64_t h, size_t *ret)
{
	const struct symbolizer_mapping *map = report_kernel_mapping(r);
	const char *name, *module;
	bool resolved;
	size_t func;
	int err;

	report_kernel_resolve(r, k->pc, &name, &module, &resolved);
	err = map ? get_func(r, name, module, resolved, &func) : -ENOMEM;
	if (err)
		return err;
	T(r->funcs, struct func)[func].kernel = true;
	return add_loc(r, h, k, func, ret) ? 0 : -ENOMEM;
}

/* A Python frame (or marker): named by the file's code records, in no mapping. */
static int get_python_loc(struct report *r, const struct loc_key *k, uint64_t h, size_t *ret)
{
	const char *name, *file;
	unsigned line, start_line;
	struct loc *l;
	size_t func;
	int err;

	report_python_resolve(r, k->pc, &name, &file, &line, &start_line);
	err = get_func(r, name, file, PYFRAME_CODE(k->pc) != 0, &func);
	if (err)
		return err;
	func_set_source(r, func, file, start_line);
	l = add_loc(r, h, k, func, ret);
	if (!l)
		return -ENOMEM;
	l->file = file;
	l->line = line;
	return 0;
}

/*
 * The key of a pc of process pid at time ts: by its file and vaddr when it
 * is code of a module file no perf map of the process names (JIT code in a
 * file is the process's own). timed: the process mapped a file over
 * another, so what a pc keyed by pid is depends on ts; else every mapping
 * of the pc names it alike. 0 or -ENOMEM.
 */
static int loc_key_of(struct report *r, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		      bool timed, struct loc_key *k)
{
	int err;

	*k = (struct loc_key){.pid = pid, .pc = pc, .is_return = is_return};
	if (pc & (KFRAME_TAG | PYFRAME_TAG))
		return 0;
	if (!report_perfmap_find(r, pid, pc - is_return)) {
		err = symbolizer_file_pc(r->sym, pid, pc, is_return, ts, &k->code, &k->pc);
		if (err < 0)
			return err;
		if (err) {
			k->pid = 0;
			return 0;
		}
		k->pc = pc;
	}
	if (timed)
		k->mapping = symbolizer_mapping_id(r->sym, pid, pc, is_return, ts);
	return 0;
}

/* The location of a pc of process pid at time ts; timed as for loc_key_of(). */
static int get_loc(struct report *r, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		   bool timed, size_t *ret)
{
	struct loc_key k;
	uint64_t h;
	struct loc_line *inl = NULL;
	struct sym_frame sf;
	struct loc *l;
	size_t func;
	unsigned i;
	int err;

	err = loc_key_of(r, pid, pc, is_return, ts, timed, &k);
	if (err)
		return err;
	h = hash_u64(
		hash_u64(hash_u64(hash_u64(hash_u64(FNV_INIT, (uintptr_t)k.code), k.pid), k.pc),
			 is_return),
		k.mapping);
	if (hash_index_find(&r->locs.idx, h, loc_eq, &r->locs, &k, ret))
		return 0;
	if (pc & KFRAME_TAG)
		return get_kernel_loc(r, &k, h, ret);
	if (pc & PYFRAME_TAG)
		return get_python_loc(r, &k, h, ret);
	err = r->sym_cache ? sym_cache_resolve(r->sym_cache, pid, pc, is_return, ts, &sf)
			   : symbolizer_resolve(r->sym, pid, pc, is_return, ts, &sf);
	/* Code in no ELF file a perf map names: JIT code, as perf shows it. */
	if (!err && !sf.resolved) {
		const char *jit = report_perfmap_find(r, pid, pc - is_return);

		if (jit) {
			sf.function = jit;
			sf.module = JIT_MODULE;
			sf.resolved = true;
			sf.file = sf.decl_file = NULL;
			sf.line = sf.decl_line = 0;
			sf.nr_inlined = 0;
		}
	}
	if (!err)
		err = get_symbol_func(r, sf.function, sf.module, sf.resolved, &func);
	if (err)
		return err;
	func_set_source(r, func, sf.decl_file, sf.decl_line);
	if (sf.nr_inlined) {
		inl = calloc(sf.nr_inlined, sizeof(*inl));
		if (!inl)
			return -ENOMEM;
	}
	for (i = 0; i < sf.nr_inlined; i++) {
		const struct dwarf_frame *df = &sf.inlined[i];

		err = get_symbol_func(r, df->function, sf.module, true, &inl[i].func);
		if (err) {
			free(inl);
			return err;
		}
		func_set_source(r, inl[i].func, df->decl_file, df->decl_line);
		inl[i].file = df->file;
		inl[i].line = df->line;
	}
	l = add_loc(r, h, &k, func, ret);
	if (!l) {
		free(inl);
		return -ENOMEM;
	}
	l->file = sf.file;
	l->line = sf.line;
	l->inl = inl;
	l->nr_inl = sf.nr_inlined;
	return 0;
}

uint64_t report_frame_pc(const struct report *r, const struct stack *s, unsigned j, unsigned *frame)
{
	*frame = s->frame_of ? s->frame_of[j] : j;
	if (*frame == FRAME_MARK)
		return T(r->locs, struct loc)[s->locs[j]].pc;
	return s->frames[*frame];
}

int report_frame_mapping(struct report *r, const struct stack *s, unsigned j,
			 const struct symbolizer_mapping **ret)
{
	unsigned frame, nk;
	uint64_t pc = report_frame_pc(r, s, j, &frame);

	*ret = NULL;
	/* A kernel frame's id may have any bit but the top one set: tested first. */
	if (frame != FRAME_MARK && (pc & KFRAME_TAG)) {
		*ret = report_kernel_mapping(r);
		return *ret ? 0 : -ENOMEM;
	}
	if (frame == FRAME_MARK || (pc & PYFRAME_TAG))
		return 0;
	nk = report_kernel_count(s);
	return symbolizer_mapping_at(r->sym, s->pid, pc,
				     symbolizer_frame_is_return(frame - nk, s->flags), s->ts, ret);
}

void report_frame_key(struct report *r, const struct stack *s, unsigned j, struct frame_key *k)
{
	unsigned frame, nk = report_kernel_count(s);
	uint64_t pc = report_frame_pc(r, s, j, &frame);

	*k = (struct frame_key){.pc = pc};
	if (frame == FRAME_MARK || frame < nk)
		return;
	k->pid = s->pid;
	k->is_return = symbolizer_frame_is_return(frame - nk, s->flags);
	if (!(pc & (KFRAME_TAG | PYFRAME_TAG)) && symbolizer_epoch(r->sym, s->pid, UINT64_MAX))
		k->mapping = symbolizer_mapping_id(r->sym, s->pid, pc, k->is_return, s->ts);
}

/* The function executing at a location: its innermost inlined one. */
static size_t loc_leaf_func(const struct loc *l)
{
	return l->nr_inl ? l->inl[0].func : l->func;
}

/* get_loc() into a stack's 32-bit location index. */
static int get_loc32(struct report *r, uint64_t pid, uint64_t pc, bool is_return, uint64_t ts,
		     bool timed, uint32_t *ret)
{
	size_t loc = 0;
	int err = get_loc(r, pid, pc, is_return, ts, timed, &loc);

	if (!err && loc >= UINT32_MAX)
		err = -ENOMEM;
	*ret = (uint32_t)loc;
	return err;
}

/* The location of a Python marker (report_python_merge()). */
static int python_mark(struct report *r, unsigned reason, uint32_t *ret)
{
	return get_loc32(r, 0, PYFRAME_TAG | reason, false, 0, false, ret);
}

/*
 * Every user pc of the stacks, wanted by the symbolizer, then loaded: each
 * module file's DWARF is open only while its pcs are looked up, not all of
 * them at once beside the tables report_prepare() makes next (Debian's
 * libc6-dbg alone inflates to 10 MB). Only with the report's own
 * symbolizer: a borrowed one (fxsamplerd's) keeps its DWARF open between
 * scrapes.
 */
static int load_sources(struct report *r)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	size_t i;
	unsigned j, nk;
	int err;

	if (r->sym_borrowed || r->sym_cache)
		return 0;
	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];

		nk = report_kernel_count(s);
		for (j = nk; j < s->nr; j++) {
			if (s->frames[j] & (KFRAME_TAG | PYFRAME_TAG))
				continue;
			err = symbolizer_want_source(r->sym, s->pid, s->frames[j],
						     symbolizer_frame_is_return(j - nk, s->flags),
						     s->ts);
			if (err)
				return err;
		}
	}
	return symbolizer_load_sources(r->sym);
}

int report_prepare(struct report *r)
{
	struct stack *stacks = T(r->stacks, struct stack);
	size_t i, func;
	unsigned j, nk;
	bool timed;
	int err;

	if (r->prepared)
		return 0;
	if (r->frames_dropped)
		return -EINVAL; /* its frames are gone: report_prepare() cannot run again */
	report_unprepare(r);
	/* Stacks found by their frames no more: their index goes before libdw's tables come. */
	if (r->drop_frames || r->sealed)
		hash_index_free(&r->stacks.idx);
	err = load_sources(r);
	if (err)
		return err;
	/* Function 0 stands for the cut-off part of truncated stacks. */
	err = get_func(r, TRUNCATED_FRAME, NULL, false, &func);
	if (err)
		return err;
	for (i = 0; i < r->stacks.n; i++) {
		struct stack *s = &stacks[i];

		s->locs = calloc(s->nr + 1, sizeof(*s->locs));
		if (!s->locs)
			return -ENOMEM;
		/* The last epoch of a process is 0 when it has a single one. */
		timed = symbolizer_epoch(r->sym, s->pid, UINT64_MAX) != 0;
		/* Kernel frames first; the user stack's frame 0 comes after them. */
		nk = report_kernel_count(s);
		for (j = 0; j < s->nr; j++) {
			err = get_loc32(r, j < nk ? 0 : s->pid, s->frames[j],
					j >= nk && symbolizer_frame_is_return(j - nk, s->flags),
					s->ts, timed && j >= nk, &s->locs[j]);
			if (err)
				return err;
		}
		err = report_python_merge(r, s, python_mark);
		if (err)
			return err;
		if (r->drop_frames) {
			free(s->frames);
			s->frames = NULL;
			r->frames_dropped = true;
		}
	}
	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];
		struct func *funcs = T(r->funcs, struct func);
		const struct loc *locs = T(r->locs, struct loc);

		if (s->nr_locs)
			funcs[loc_leaf_func(&locs[s->locs[0]])].self += s->count;
		for (j = 0; j < s->nr_locs; j++) {
			const struct loc *l = &locs[s->locs[j]];
			unsigned k;

			/* Recursion counts once per sample; inlined functions count too. */
			for (k = 0; k <= l->nr_inl; k++) {
				struct func *f = &funcs[k < l->nr_inl ? l->inl[k].func : l->func];

				if (f->stamp != i + 1) {
					f->stamp = i + 1;
					f->total += s->count;
				}
			}
		}
	}
	/*
	 * Locations and functions are found by key only while they are made:
	 * the outputs read them by id (a report prepared again makes them anew).
	 */
	hash_index_free(&r->locs.idx);
	hash_index_free(&r->funcs.idx);
	r->prepared = true;
	return 0;
}
