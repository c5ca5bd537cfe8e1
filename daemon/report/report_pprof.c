// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The pprof output: profile.proto encoded by hand, gzipped with zlib. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/containers.h"
#include "symbols/elf_symbols.h"
#include "report/report_internal.h"
#include "symbols/symbolizer.h"
#include "util/pbuf.h"

/* ---- pprof: profile.proto by hand (util/pbuf.h) ---- */

/*
 * The string table: index 0 is "". Strings are the report's (names, paths),
 * alive while the profile is encoded, and not copied; str_index_copy() keeps
 * a copy of a passing one.
 */
struct strtab {
	const char **v;
	size_t n, cap;
	struct hash_index idx;
	char **copies;
	size_t nr_copies, cap_copies;
	int err;
};

static bool str_eq(const void *ctx, size_t pos, const void *key)
{
	return !strcmp(((const struct strtab *)ctx)->v[pos], key);
}

static uint64_t str_add(struct strtab *t, const char *s, bool copy)
{
	uint64_t h = fnv1a(FNV_INIT, s, strlen(s));
	size_t pos;
	char *dup = NULL;

	if (t->err)
		return 0;
	if (hash_index_find(&t->idx, h, str_eq, t, s, &pos))
		return pos;
	if (copy && (!(dup = strdup(s)) || array_reserve((void **)&t->copies, &t->cap_copies,
							 t->nr_copies, sizeof(*t->copies)))) {
		free(dup);
		t->err = -ENOMEM;
		return 0;
	}
	if (array_reserve((void **)&t->v, &t->cap, t->n, sizeof(*t->v)) ||
	    hash_index_insert(&t->idx, h, t->n)) {
		free(dup);
		t->err = -ENOMEM;
		return 0;
	}
	if (dup)
		t->copies[t->nr_copies++] = dup;
	t->v[t->n] = dup ? dup : s;
	return t->n++;
}

static uint64_t str_index(struct strtab *t, const char *s)
{
	return str_add(t, s, false);
}

static uint64_t str_index_copy(struct strtab *t, const char *s)
{
	return str_add(t, s, true);
}

static void strtab_free(struct strtab *t)
{
	size_t i;

	for (i = 0; i < t->nr_copies; i++)
		free(t->copies[i]);
	free(t->copies);
	free(t->v);
	hash_index_free(&t->idx);
}

/*
 * The gzip stream the profile goes out through as it is encoded: the
 * encoder's buffer is drained into it whenever it holds GZ_DRAIN bytes, so
 * the profile is never whole in memory.
 */
#define GZ_DRAIN (256 << 10)

struct gz_sink {
	z_stream zs;
	FILE *out;
	int err;
};

static int gz_init(struct gz_sink *g, FILE *out)
{
	memset(g, 0, sizeof(*g));
	g->out = out;
	/* windowBits 15 + 16: a gzip wrapper, which pprof expects. */
	return deflateInit2(&g->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			    Z_DEFAULT_STRATEGY) == Z_OK
		       ? 0
		       : -ENOMEM;
}

/* Deflate what b holds (finish: and end the stream), then empty b. */
static void gz_put(struct gz_sink *g, struct pbuf *b, bool finish)
{
	unsigned char chunk[65536];
	int zerr;

	if (!g->err && b->err)
		g->err = b->err;
	if (g->err)
		return;
	g->zs.next_in = b->data;
	g->zs.avail_in = (uInt)b->len;
	do {
		g->zs.next_out = chunk;
		g->zs.avail_out = sizeof(chunk);
		zerr = deflate(&g->zs, finish ? Z_FINISH : Z_NO_FLUSH);
		if (zerr == Z_STREAM_ERROR) {
			g->err = -EIO;
			break;
		}
		if (fwrite(chunk, 1, sizeof(chunk) - g->zs.avail_out, g->out) !=
		    sizeof(chunk) - g->zs.avail_out) {
			g->err = -EIO;
			break;
		}
	} while (finish ? zerr != Z_STREAM_END : g->zs.avail_out == 0);
	b->len = 0;
}

static void gz_drain(struct gz_sink *g, struct pbuf *b)
{
	if (b->len >= GZ_DRAIN)
		gz_put(g, b, false);
}

/* Mappings with the same contents (forked processes, one binary) are one pprof mapping. */
static int mapping_content_order(const void *pa, const void *pb)
{
	const struct symbolizer_mapping *a = *(const struct symbolizer_mapping *const *)pa;
	const struct symbolizer_mapping *b = *(const struct symbolizer_mapping *const *)pb;
	int c;

	/* The kernel's (id 0) last: pprof takes the first mapping for the program. */
	if (!a->id != !b->id)
		return !a->id ? 1 : -1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	if (a->file_offset != b->file_offset)
		return a->file_offset < b->file_offset ? -1 : 1;
	c = strcmp(a->path ?: "", b->path ?: "");
	if (c)
		return c;
	if (a->build_id_len != b->build_id_len)
		return a->build_id_len < b->build_id_len ? -1 : 1;
	c = a->build_id_len ? memcmp(a->build_id, b->build_id, a->build_id_len) : 0;
	if (c)
		return c;
	return strcmp(a->go_build_id ?: "", b->go_build_id ?: "");
}

/*
 * What pprof calls a location: one address in one mapping, resolved to one
 * function. loc is the first report loc of it (its inline chain and lines are
 * those of every equal one: same contents, same address); NO_LOC for the
 * cut-off marker. 24 bytes: a whole-host capture has one for each distinct
 * pc of each process (the report's locations, by stacks' 32-bit ids, and
 * its functions are under 2^32, and so are the mappings it numbers).
 */
struct ploc_key {
	uint64_t address;
	uint32_t mapping;
	uint32_t func;
	uint32_t loc;
};

#define NO_LOC UINT32_MAX

struct ptables {
	/* pprof ids: 0 for none */
	uint32_t *map_of_sym; /* by symbolizer mapping id: 106,656 of them on a whole host */
	size_t cap_map_of_sym;
	const struct symbolizer_mapping **maps; /* pprof mapping id - 1 -> one of its mappings */
	size_t nr_maps;
	struct ploc_key *plocs; /* pprof location id - 1 */
	size_t nr_plocs, cap_plocs;
	struct hash_index ploc_idx;
	uint64_t *func_of; /* by report func */
	size_t *funcs;	   /* pprof function id - 1 -> report func */
	size_t nr_funcs;
	uint64_t truncated_loc; /* the "[truncated]" location, when a stack uses it */
};

static void ptables_free(struct ptables *t)
{
	free(t->map_of_sym);
	free(t->maps);
	free(t->plocs);
	hash_index_free(&t->ploc_idx);
	free(t->func_of);
	free(t->funcs);
}

static bool ploc_eq(const void *ctx, size_t pos, const void *key)
{
	const struct ploc_key *a = &((const struct ptables *)ctx)->plocs[pos], *b = key;

	return a->mapping == b->mapping && a->address == b->address && a->func == b->func;
}

static uint64_t pfunc(struct ptables *t, size_t func)
{
	if (!t->func_of[func]) {
		t->funcs[t->nr_funcs] = func;
		t->func_of[func] = ++t->nr_funcs;
	}
	return t->func_of[func];
}

static int ploc(struct ptables *t, const struct loc *locs, uint64_t mapping, uint64_t address,
		size_t func, uint32_t loc, uint64_t *ret)
{
	struct ploc_key k = {.address = address,
			     .mapping = (uint32_t)mapping,
			     .func = (uint32_t)func,
			     .loc = loc};
	unsigned j;
	uint64_t h = hash_u64(hash_u64(hash_u64(FNV_INIT, mapping), address), func);
	size_t pos;

	if (hash_index_find(&t->ploc_idx, h, ploc_eq, t, &k, &pos)) {
		*ret = pos + 1;
		return 0;
	}
	if (array_reserve((void **)&t->plocs, &t->cap_plocs, t->nr_plocs, sizeof(*t->plocs)) ||
	    hash_index_insert(&t->ploc_idx, h, t->nr_plocs))
		return -ENOMEM;
	t->plocs[t->nr_plocs++] = k;
	if (loc != NO_LOC)
		for (j = 0; j < locs[loc].nr_inl; j++)
			pfunc(t, locs[loc].inl[j].func);
	pfunc(t, func);
	*ret = t->nr_plocs;
	return 0;
}

/* Mark the mapping of position j of stack s as used (build_ptables()). */
static int use_mapping(struct report *r, struct ptables *t, const struct stack *s, unsigned j,
		       const struct symbolizer_mapping ***sorted, size_t *n, size_t *cap)
{
	const struct symbolizer_mapping *mp;
	int err = report_frame_mapping(r, s, j, &mp);

	if (err || !mp)
		return err;
	if (mp->id >= t->cap_map_of_sym) {
		size_t grown = t->cap_map_of_sym, old = grown;
		uint32_t *tmp;

		while (grown <= mp->id)
			grown = grown ? grown * 2 : 64;
		tmp = reallocarray(t->map_of_sym, grown, sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		memset(tmp + old, 0, (grown - old) * sizeof(*tmp));
		t->map_of_sym = tmp;
		t->cap_map_of_sym = grown;
	}
	if (t->map_of_sym[mp->id])
		return 0;
	if (array_reserve((void **)sorted, cap, *n, sizeof(**sorted)))
		return -ENOMEM;
	t->map_of_sym[mp->id] = 1;
	(*sorted)[(*n)++] = mp;
	return 0;
}

/*
 * The pprof location of position j of stack s: one address in one pprof
 * mapping resolved to one function. Added in the order the samples first
 * use them, then found.
 */
static int frame_ploc(struct report *r, struct ptables *t, const struct stack *s, unsigned j,
		      uint64_t *ret)
{
	const struct loc *locs = T(r->locs, struct loc);
	const struct loc *l = &locs[s->locs[j]];
	const struct symbolizer_mapping *mp;
	unsigned frame;
	uint64_t pc = report_frame_pc(r, s, j, &frame);
	int err = report_frame_mapping(r, s, j, &mp);

	/* A kernel location has no address: its function is all there is. */
	return err ? err
		   : ploc(t, locs, mp ? t->map_of_sym[mp->id] : 0,
			  pc & (KFRAME_TAG | PYFRAME_TAG) ? 0 : pc, l->func, s->locs[j], ret);
}

/*
 * Number the pprof mappings from the report's: only what the samples use,
 * each distinct one once. The locations and functions are numbered as the
 * samples are written (frame_ploc()).
 */
static int build_ptables(struct report *r, struct ptables *t)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct symbolizer_mapping **sorted = NULL;
	size_t i, n = 0, cap = 0;
	unsigned j;
	int err = 0;

	t->func_of = calloc(r->funcs.n + 1, sizeof(*t->func_of));
	t->funcs = calloc(r->funcs.n + 1, sizeof(*t->funcs));
	if (!t->func_of || !t->funcs)
		return -ENOMEM;
	/* Mappings: one entry per symbolizer mapping, then runs of equal contents. */
	for (i = 0; i < r->stacks.n && !err; i++)
		for (j = 0; j < stacks[i].nr_locs && !err; j++)
			err = use_mapping(r, t, &stacks[i], j, &sorted, &n, &cap);
	t->maps = calloc(n + 1, sizeof(*t->maps));
	if (!err && !t->maps)
		err = -ENOMEM;
	if (err)
		goto out;
	if (n) /* none used: sorted is NULL, which qsort may not take */
		qsort(sorted, n, sizeof(*sorted), mapping_content_order);
	for (i = 0; i < n; i++) {
		if (!i || mapping_content_order(&sorted[i - 1], &sorted[i]))
			t->maps[t->nr_maps++] = sorted[i];
		t->map_of_sym[sorted[i]->id] = t->nr_maps;
	}
out:
	free(sorted);
	return err;
}

/* A label: a string (str) or a number (num) under key. */
static void pb_label(struct pbuf *p, struct pbuf *sub, uint64_t key, uint64_t str, uint64_t num)
{
	pb_uint(sub, 1, key);
	pb_uint(sub, 2, str);
	pb_uint(sub, 3, num);
	pb_msg(p, 3, sub);
}

/* w: a scraper's window (report_write_pprof_window()), NULL for report's file. */
static int encode_profile(struct report *r, const struct report_pprof_window *w, struct pbuf *p,
			  struct gz_sink *gz)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct loc *locs = T(r->locs, struct loc);
	const struct func *funcs = T(r->funcs, struct func);
	struct pbuf m = {}, sub = {}, packed = {};
	struct ptables t = {};
	struct strtab st = {};
	size_t i;
	uint64_t key_pid, key_tid, key_thread, key_process, period, start, stop, comment;
	const char *off_name;
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	unsigned j;
	int err = 0;

	err = build_ptables(r, &t);
	if (err)
		goto out;
	period = report_period_ns(r);
	str_index(&st, "");
	/*
	 * sample_type = 1: as Go's CPU profiles, samples/count and
	 * cpu/nanoseconds; off-cpu/nanoseconds or wall/nanoseconds alone in those
	 * views, whose counts are ns already.
	 */
	/* a scraper's off-CPU window is named as the fleet's backends spell types */
	off_name = w ? "off_cpu" : "off-cpu";
	if (r->time_mode) {
		pb_uint(&sub, 1, str_index(&st, r->time_mode == REPORT_OFFCPU ? off_name : "wall"));
		pb_uint(&sub, 2, str_index(&st, "nanoseconds"));
		pb_msg(p, 1, &sub);
	} else {
		pb_uint(&sub, 1, str_index(&st, "samples"));
		pb_uint(&sub, 2, str_index(&st, "count"));
		pb_msg(p, 1, &sub);
		pb_uint(&sub, 1, str_index(&st, "cpu"));
		pb_uint(&sub, 2, str_index(&st, "nanoseconds"));
		pb_msg(p, 1, &sub);
	}

	/* sample = 2: location ids leaf first, the cut-off marker outermost. */
	key_pid = str_index(&st, "pid");
	key_tid = str_index(&st, "tid");
	key_thread = str_index(&st, "thread");
	/* A scraper's series are per executable; report's file has "process". */
	key_process = str_index(&st, w ? "executable" : "process");
	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];
		const char *tn = report_thread_name(r, s->tid),
			   *pn = report_process_name(r, s->pid);

		/* Locations and functions are numbered in the order the samples first use them. */
		for (j = 0; j < s->nr_locs; j++) {
			uint64_t id;

			err = frame_ploc(r, &t, s, j, &id);
			if (err)
				goto out;
			pb_varint(&packed, id);
		}
		/* Function 0 is the cut-off marker (report_prepare()). */
		if ((s->flags & FXT_BT_FLAG_TRUNCATED) && !t.truncated_loc) {
			err = ploc(&t, locs, 0, 0, 0, NO_LOC, &t.truncated_loc);
			if (err)
				goto out;
		}
		if (s->flags & FXT_BT_FLAG_TRUNCATED)
			pb_varint(&packed, t.truncated_loc);
		pb_msg(&m, 1, &packed);
		pb_varint(&packed, s->count);
		if (!r->time_mode)
			pb_varint(&packed, s->count * period);
		pb_msg(&m, 2, &packed);
		if (tn)
			pb_label(&m, &sub, key_thread, str_index(&st, tn), 0);
		if (pn)
			pb_label(&m, &sub, key_process, str_index(&st, pn), 0);
		if (!w) {
			pb_label(&m, &sub, key_pid, 0, s->pid);
			pb_label(&m, &sub, key_tid, 0, s->tid);
		}
		pb_msg(p, 2, &m);
		gz_drain(gz, p);
	}

	/* mapping = 3 */
	for (i = 0; i < t.nr_maps; i++) {
		const struct symbolizer_mapping *mp = t.maps[i];

		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, mp->start);
		pb_uint(&m, 3, mp->start + mp->size);
		pb_uint(&m, 4, mp->file_offset);
		pb_uint(&m, 5, str_index(&st, mp->path ?: ""));
		/* The GNU build id, else Go's (go tool pprof takes either). */
		if (mp->build_id_len)
			pb_uint(&m, 6,
				str_index_copy(&st, elf_build_id_hex(mp->build_id, mp->build_id_len,
								     hex, sizeof(hex))));
		else if (mp->go_build_id)
			pb_uint(&m, 6, str_index(&st, mp->go_build_id));
		/*
		 * has_functions = 7, has_filenames = 8, has_line_numbers = 9: every
		 * location carries what the symbolizer found (source lines where DWARF
		 * had them), so go tool pprof neither symbolizes again nor asks a
		 * server's /debug/pprof/symbol.
		 */
		pb_uint(&m, 7, 1);
		pb_uint(&m, 8, 1);
		pb_uint(&m, 9, 1);
		pb_msg(p, 3, &m);
	}

	/* location = 4 */
	for (i = 0; i < t.nr_plocs; i++) {
		const struct ploc_key *k = &t.plocs[i];
		const struct loc *l = k->loc == NO_LOC ? NULL : &locs[k->loc];

		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, k->mapping);
		pb_uint(&m, 3, k->address);
		/* line = 4: the inlined functions innermost first, then the one they are in. */
		for (j = 0; l && j < l->nr_inl; j++) {
			pb_uint(&sub, 1, t.func_of[l->inl[j].func]);
			pb_uint(&sub, 2, l->inl[j].line);
			pb_msg(&m, 4, &sub);
		}
		pb_uint(&sub, 1, t.func_of[k->func]);
		pb_uint(&sub, 2, l ? l->line : 0);
		pb_msg(&m, 4, &sub);
		pb_msg(p, 4, &m);
		gz_drain(gz, p);
	}

	/* function = 5 */
	for (i = 0; i < t.nr_funcs; i++) {
		const struct func *f = &funcs[t.funcs[i]];
		uint64_t name = str_index(&st, f->name);

		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, name);
		/* system_name = 3: the mangled name, as Go's pprof keeps it */
		pb_uint(&m, 3, f->system_name ? str_index(&st, f->system_name) : name);
		/* filename = 4, start_line = 5: the source when DWARF gave it. */
		pb_uint(&m, 4, str_index(&st, f->file ?: f->module ?: ""));
		pb_uint(&m, 5, f->start_line);
		pb_msg(p, 5, &m);
		gz_drain(gz, p);
	}

	/*
	 * time_nanos = 9, duration_nanos = 10: the capture's, when the file has
	 * its clock record, else from its first to its last sample.
	 */
	start = r->have_clock ? r->clock_start_boot_ns : report_ticks_to_ns(r, r->first_ts);
	stop = r->have_clock ? r->clock_stop_boot_ns : report_ticks_to_ns(r, r->last_ts);
	if (w) {
		pb_uint(p, 9, w->time_nanos);
		pb_uint(p, 10, w->duration_nanos);
	} else {
		if (r->have_clock)
			pb_uint(p, 9, r->clock_start_real_ns);
		if ((r->have_clock || r->have_ts) && stop > start)
			pb_uint(p, 10, stop - start);
	}
	/* period_type = 11, period = 12: an off-CPU window's values are its own type's */
	pb_uint(&sub, 1, str_index(&st, w && r->time_mode == REPORT_OFFCPU ? off_name : "cpu"));
	pb_uint(&sub, 2, str_index(&st, "nanoseconds"));
	pb_msg(p, 11, &sub);
	pb_uint(p, 12, period);
	/* comment = 13: string table indices. */
	for (j = 0; w && j < w->nr_comments; j++) {
		comment = str_index_copy(&st, w->comments[j]);
		pb_tag(p, 13, PB_VARINT);
		pb_varint(p, comment);
	}

	/* string_table = 6, last: every string is known by now. */
	err = st.err;
	for (i = 0; !err && i < st.n; i++) {
		pb_len(p, 6, st.v[i], strlen(st.v[i]));
		gz_drain(gz, p);
	}
	if (!err)
		err = m.err ? m.err : sub.err ? sub.err : packed.err ? packed.err : p->err;
out:
	ptables_free(&t);
	free(m.data);
	free(sub.data);
	free(packed.data);
	strtab_free(&st);
	return err;
}

static int write_pprof(struct report *r, const struct report_pprof_window *w, FILE *out)
{
	struct pbuf p = {};
	struct gz_sink gz;
	int err;

	err = report_prepare(r);
	if (!err)
		err = gz_init(&gz, out);
	if (err)
		return err;
	err = encode_profile(r, w, &p, &gz);
	gz_put(&gz, &p, true);
	if (!err)
		err = gz.err;
	deflateEnd(&gz.zs);
	if (!err && ferror(out))
		err = -EIO;
	free(p.data);
	return err;
}

int report_write_pprof(struct report *r, FILE *out)
{
	return write_pprof(r, NULL, out);
}

int report_write_pprof_window(struct report *r, FILE *out, const struct report_pprof_window *w)
{
	return w ? write_pprof(r, w, out) : -EINVAL;
}
