// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report --perfetto: a copy of the .fxt with the samples added as Perfetto's
 * own packets (report/perfetto_trace.h) in FXT blob records of type 3 at its
 * end. Perfetto's FXT importer reads the copy's processes, threads and
 * context switches (sched, thread_state) as it reads the original, and the
 * packets give it what it cannot read from FXT: every sample, symbolized here
 * as report names it, with its thread, CPU and time (perf_sample) and its
 * callstack. The copy stays FXT that every reader reads record by record,
 * report and dump included.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt.h"
#include "util/containers.h"
#include "util/io.h"
#include "report/perfetto_trace.h"
#include "report/report_internal.h"
#include "symbols/symbolizer.h"
#include "util/pbuf.h"

/* The one sequence of packets; Perfetto's interning is per sequence. */
#define SEQ 1
/* Interned data goes out in packets of about this size. */
#define INTERNED_FLUSH (256 * 1024)
/* The name of the mapping Perfetto takes for the kernel's ("/kernel", no range). */
#define KERNEL_MAPPING "kernel"

struct pf_frame {
	struct frame_key k;
	uint64_t base;
};

struct pf_state {
	struct report *r;
	struct pbuf trace, interned;
	bool first;
	/* Each distinct frame (report_frame_key()) and its frame iid; its inlined ones follow. */
	struct pf_frame *frames;
	size_t nr_frames, cap_frames;
	struct hash_index frame_idx;
	uint64_t *map_iid; /* by symbolizer mapping id */
	size_t nr_map_iid;
	uint64_t *name_iid; /* by report func: its name's iid; [n + f]: the "[inlined]" one */
	uint64_t kernel_map_iid;
	uint64_t truncated_frame;
	uint64_t next_iid;
};

static void flush_interned(struct pf_state *p, bool force)
{
	if (!p->interned.len || (!force && p->interned.len < INTERNED_FLUSH))
		return;
	perfetto_packet_interned(&p->trace, SEQ, p->first, &p->interned);
	p->first = false;
}

static uint64_t name_iid(struct pf_state *p, size_t func, bool inlined)
{
	const struct func *funcs = T(p->r->funcs, struct func);
	size_t slot = inlined ? p->r->funcs.n + func : func;
	char *label;

	if (p->name_iid[slot])
		return p->name_iid[slot];
	p->name_iid[slot] = p->next_iid++;
	if (!inlined) {
		perfetto_intern_string(&p->interned, PERFETTO_FUNCTION_NAMES, p->name_iid[slot],
				       funcs[func].name);
		return p->name_iid[slot];
	}
	/* As folded stacks and the SVG name it. */
	label = malloc(strlen(funcs[func].name) + sizeof(INLINED_SUFFIX));
	if (!label) {
		p->interned.err = -ENOMEM;
		return p->name_iid[slot];
	}
	strcpy(label, funcs[func].name);
	strcat(label, INLINED_SUFFIX);
	perfetto_intern_string(&p->interned, PERFETTO_FUNCTION_NAMES, p->name_iid[slot], label);
	free(label);
	return p->name_iid[slot];
}

/* A user mapping: the symbolizer's, with its range, path and build id. */
static uint64_t user_mapping(struct pf_state *p, const struct symbolizer_mapping *mp)
{
	struct perfetto_mapping m = {0};

	if (p->map_iid[mp->id])
		return p->map_iid[mp->id];
	m.iid = p->map_iid[mp->id] = p->next_iid++;
	if (mp->path && *mp->path) {
		m.path_iid = p->next_iid++;
		perfetto_intern_string(&p->interned, PERFETTO_MAPPING_PATHS, m.path_iid, mp->path);
	}
	if (mp->build_id_len) {
		m.build_id_iid = p->next_iid++;
		perfetto_intern_bytes(&p->interned, PERFETTO_BUILD_IDS, m.build_id_iid,
				      mp->build_id, mp->build_id_len);
	}
	m.start = mp->start;
	m.end = mp->start + mp->size;
	m.start_offset = mp->file_offset;
	perfetto_intern_mapping(&p->interned, &m);
	return m.iid;
}

/*
 * The kernel's frames have no address (KASLR stays the kernel's): one
 * mapping without a range, named as Perfetto names the kernel's, and each
 * frame marked kind kernel.
 */
static uint64_t kernel_mapping(struct pf_state *p)
{
	struct perfetto_mapping m = {0};

	if (p->kernel_map_iid)
		return p->kernel_map_iid;
	m.iid = p->kernel_map_iid = p->next_iid++;
	m.path_iid = p->next_iid++;
	perfetto_intern_string(&p->interned, PERFETTO_MAPPING_PATHS, m.path_iid, KERNEL_MAPPING);
	perfetto_intern_mapping(&p->interned, &m);
	return m.iid;
}

/*
 * Where a frame's function runs, from DWARF (Perfetto's stack_profile_symbol:
 * the UI shows it beside the frame). A path per frame: the symbolizer's
 * strings are not deduplicated here, and Perfetto's string pool is.
 */
static void source_line(struct pf_state *p, struct perfetto_frame *fr, const char *file,
			unsigned line)
{
	fr->source_path_iid = 0;
	fr->line = file ? line : 0;
	if (!file)
		return;
	fr->source_path_iid = p->next_iid++;
	perfetto_intern_string(&p->interned, PERFETTO_SOURCE_PATHS, fr->source_path_iid, file);
}

static bool frame_eq(const void *ctx, size_t pos, const void *key)
{
	const struct frame_key *a = &((const struct pf_state *)ctx)->frames[pos].k, *b = key;

	return a->pid == b->pid && a->pc == b->pc && a->is_return == b->is_return &&
	       a->mapping == b->mapping;
}

/*
 * The frame iid of position j of stack st, interned when new: its function,
 * then what was inlined into it, innermost first. 0: -ENOMEM.
 */
static uint64_t frame_iid(struct pf_state *p, const struct stack *st, unsigned j)
{
	const struct loc *l = &T(p->r->locs, struct loc)[st->locs[j]];
	const struct func *f = &T(p->r->funcs, struct func)[l->func];
	const struct symbolizer_mapping *mp;
	struct perfetto_frame fr = {0};
	struct frame_key k;
	unsigned i, frame;
	uint64_t h, pc;
	size_t pos;

	report_frame_key(p->r, st, j, &k);
	h = hash_u64(hash_u64(hash_u64(hash_u64(FNV_INIT, k.pid), k.pc), k.is_return), k.mapping);
	if (hash_index_find(&p->frame_idx, h, frame_eq, p, &k, &pos))
		return p->frames[pos].base;
	if (array_reserve((void **)&p->frames, &p->cap_frames, p->nr_frames, sizeof(*p->frames)) ||
	    hash_index_insert(&p->frame_idx, h, p->nr_frames) ||
	    report_frame_mapping(p->r, st, j, &mp))
		return 0;
	pc = report_frame_pc(p->r, st, j, &frame);
	if (f->kernel) {
		fr.mapping_iid = kernel_mapping(p);
		fr.kind = PERFETTO_KIND_KERNEL;
	} else if (mp) {
		fr.mapping_iid = user_mapping(p, mp);
		fr.rel_pc = pc - mp->start;
		fr.kind = PERFETTO_KIND_NATIVE;
	}
	p->frames[p->nr_frames++] = (struct pf_frame){k, p->next_iid};
	fr.iid = p->next_iid;
	p->next_iid += 1 + l->nr_inl;
	fr.function_name_iid = name_iid(p, l->func, false);
	source_line(p, &fr, l->file, l->line);
	perfetto_intern_frame(&p->interned, &fr);
	for (i = 0; i < l->nr_inl; i++) {
		fr.iid++;
		fr.function_name_iid = name_iid(p, l->inl[i].func, true);
		source_line(p, &fr, l->inl[i].file, l->inl[i].line);
		perfetto_intern_frame(&p->interned, &fr);
	}
	return p->frames[p->nr_frames - 1].base;
}

/* Stack s as callstack iid s + 1: root first, "[truncated]" at the root of a cut one. */
static int intern_stack(struct pf_state *p, size_t s, uint64_t **buf, size_t *cap)
{
	const struct stack *st = &T(p->r->stacks, struct stack)[s];
	const struct loc *locs = T(p->r->locs, struct loc);
	size_t n = 0, need = 1, i;
	unsigned k;

	for (i = 0; i < st->nr; i++)
		need += 1 + locs[st->locs[i]].nr_inl;
	if (need > *cap) {
		uint64_t *tmp = realloc(*buf, need * sizeof(**buf));

		if (!tmp)
			return -ENOMEM;
		*buf = tmp;
		*cap = need;
	}
	if (st->flags & FXT_BT_FLAG_TRUNCATED) {
		if (!p->truncated_frame) {
			struct perfetto_frame fr = {.iid = p->next_iid++};

			/* report's function 0 is TRUNCATED_FRAME (report_prepare()) */
			fr.function_name_iid = name_iid(p, 0, false);
			p->truncated_frame = fr.iid;
			perfetto_intern_frame(&p->interned, &fr);
		}
		(*buf)[n++] = p->truncated_frame;
	}
	for (i = st->nr; i-- > 0;) {
		uint64_t base = frame_iid(p, st, (unsigned)i);

		if (!base)
			return -ENOMEM;
		(*buf)[n++] = base;
		for (k = locs[st->locs[i]].nr_inl; k-- > 0;)
			(*buf)[n++] = base + 1 + k;
	}
	perfetto_intern_callstack(&p->interned, s + 1, *buf, n);
	flush_interned(p, false);
	return 0;
}

/* Every sample's packet after the interned data it names. */
static int encode_trace(struct pf_state *p)
{
	struct report *r = p->r;
	const struct stack *stacks = T(r->stacks, struct stack);
	struct pbuf scratch = {0};
	uint64_t *buf = NULL;
	size_t i, cap = 0;
	int err = 0;

	p->map_iid = calloc(symbolizer_max_mapping_id(r->sym) + 1, sizeof(*p->map_iid));
	p->name_iid = calloc(2 * r->funcs.n + 1, sizeof(*p->name_iid));
	if (!p->map_iid || !p->name_iid)
		return -ENOMEM;
	/* Callstack iids are the stacks' indices + 1; the rest come after them. */
	p->next_iid = r->stacks.n + 1;
	p->first = true;
	for (i = 0; i < r->stacks.n && !err; i++)
		err = intern_stack(p, i, &buf, &cap);
	flush_interned(p, true);
	for (i = 0; i < r->nr_samples && !err; i++) {
		const struct sample *sm = &r->samples_v[i];
		struct perfetto_sample ps = {
			.ts_ns = report_ticks_to_ns(r, sm->ts),
			.pid = (uint32_t)stacks[sm->stack].pid,
			.tid = (uint32_t)stacks[sm->stack].tid,
			.has_cpu = sm->bt_flags & FXT_BT_FLAG_HAS_CPU,
			.cpu = FXT_BT_GET_CPU(sm->bt_flags),
			.callstack_iid = sm->stack + 1,
			.kernel_mode = report_kernel_count(&stacks[sm->stack]) > 0,
		};

		perfetto_packet_sample(&p->trace, SEQ, &ps, &scratch);
	}
	free(buf);
	pbuf_free(&scratch);
	if (!err)
		err = p->interned.err ? p->interned.err : scratch.err ? scratch.err : p->trace.err;
	return err;
}

/*
 * The source's whole records, in order, but those Perfetto must not see: the
 * Perfetto blobs of an earlier --perfetto (the new ones replace them), and
 * large records of 32 KiB or more, which fail Perfetto's whole load
 * (fxsampler writes none; another writer's file may have them).
 */
static int copy_records(FILE *out, const uint8_t *data, size_t len, uint64_t limit)
{
	size_t pos = 0;

	if (limit < len)
		len = (size_t)limit;
	while (pos + 8 <= len) {
		uint64_t h, words;
		unsigned type;
		bool keep = true;

		memcpy(&h, data + pos, 8);
		type = h & 0xf;
		words = type == FXT_RT_LARGE ? (h >> 4) & 0xffffffff : (h >> 4) & 0xfff;
		if (!words || words > (len - pos) / 8)
			break;
		if (type == FXT_RT_BLOB && ((h >> 48) & 0xff) == FXT_BLOB_PERFETTO)
			keep = false;
		if (type == FXT_RT_LARGE && words > FXT_MAX_RECORD_WORDS)
			keep = false;
		if (keep && fwrite(data + pos, 8, words, out) != words)
			return -EIO;
		pos += words * 8;
	}
	return 0;
}

int report_write_perfetto(struct report *r, FILE *out)
{
	struct pf_state p = {.r = r};
	struct fxt_buf blobs = {0};
	char *src = NULL;
	size_t src_len = 0;
	int err;

	if (!r->keep_samples || !r->src_path)
		return -EINVAL;
	err = report_prepare(r);
	if (!err)
		err = encode_trace(&p);
	if (!err)
		err = perfetto_fxt_blobs(&blobs, p.trace.data, p.trace.len);
	if (!err)
		err = read_whole(r->src_path, 0, &src, &src_len);
	if (!err)
		err = copy_records(out, (const uint8_t *)src, src_len, r->src_bytes);
	if (!err && blobs.len && fwrite(blobs.data, 1, blobs.len, out) != blobs.len)
		err = -EIO;
	if (!err && ferror(out))
		err = -EIO;
	free(src);
	fxt_buf_free(&blobs);
	pbuf_free(&p.trace);
	pbuf_free(&p.interned);
	free(p.frames);
	hash_index_free(&p.frame_idx);
	free(p.map_iid);
	free(p.name_iid);
	return err;
}
