// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Python frames in the report: the pycode blobs name code objects, the
 * pystack blob before a backtrace puts its Python frames after the native
 * ones (tagged PYFRAME_TAG), and report_prepare() merges them in: each native
 * _PyEval_EvalFrameDefault frame gets the Python frames of its invocation
 * (up to and including the frame marked entry), innermost first, just inside
 * it. Where the counts do not pair up, the merge says so with a marker frame
 * and never guesses an order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt_python.h"
#include "lang/python_code.h"
#include "report/report_internal.h"
#include "util/containers.h"

#define EVAL_FRAME "_PyEval_EvalFrameDefault"

void report_python_free(struct report_python *p)
{
	for (size_t i = 0; i < p->nr_codes; i++) {
		free(p->codes[i].qualname);
		free(p->codes[i].filename);
		free(p->codes[i].table);
	}
	free(p->codes);
	free(p->pend);
	free(p->frames);
	memset(p, 0, sizeof(*p));
}

static char *dup_n(const void *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
		report_sanitize(d);
	}
	return d;
}

static int add_code(struct report_python *p, const struct fxt_record *rec)
{
	struct fxt_pycode c;
	struct py_code_ent *e;

	if (!fxt_pycode_decode(rec->blob, rec->blob_len, &c) || c.id > (1u << 28))
		return 0;
	if (c.id > p->nr_codes) {
		e = realloc(p->codes, c.id * sizeof(*e));
		if (!e)
			return -ENOMEM;
		memset(e + p->nr_codes, 0, (c.id - p->nr_codes) * sizeof(*e));
		p->codes = e;
		p->nr_codes = c.id;
	}
	e = &p->codes[c.id - 1];
	free(e->qualname);
	free(e->filename);
	free(e->table);
	e->qualname = dup_n(c.qualname, c.qualname_len);
	e->filename = dup_n(c.filename, c.filename_len);
	e->table = c.table_len ? malloc(c.table_len) : NULL;
	if (!e->qualname || !e->filename || (c.table_len && !e->table))
		return -ENOMEM;
	if (c.table_len)
		memcpy(e->table, c.table, c.table_len);
	e->table_len = c.table_len;
	e->firstlineno = c.firstlineno;
	return 0;
}

static int reserve(uint64_t **v, size_t *cap, size_t n)
{
	uint64_t *f;

	if (n <= *cap)
		return 0;
	f = realloc(*v, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	*v = f;
	*cap = n;
	return 0;
}

static int add_stack(struct report_python *p, const struct fxt_record *rec)
{
	struct fxt_pyframe f;
	uint32_t end;
	unsigned nr;

	p->have_pend = false;
	if (!fxt_pystack_decode(rec->blob, rec->blob_len, &p->pend_ts, &p->pend_tid, &end, &nr) ||
	    nr > 4096)
		return 0;
	if (reserve(&p->pend, &p->cap_pend, nr + 1))
		return -ENOMEM;
	for (unsigned i = 0; i < nr; i++) {
		uint32_t code;

		fxt_pystack_frame(rec->blob, i, &f);
		/* code 0 (unreadable) is a frame still, "[python: unknown code]", not a marker */
		code = f.code & 0x1fffffff ? f.code & 0x1fffffff : PYFRAME_CODE_UNREAD;

		p->pend[i] = PYFRAME_TAG | (f.flags & FXT_PYF_ENTRY ? PYFRAME_ENTRY : 0) |
			     (uint64_t)code << 32 | (uint32_t)f.lasti;
	}
	p->nr_pend = nr;
	/* A walk cut short ends in its marker, where the missing frames would be. */
	if (end == 1 || end == 3)
		p->pend[p->nr_pend++] =
			PYFRAME_TAG | (end == 1 ? PY_MARK_TRUNCATED : PY_MARK_FAULT);
	p->have_pend = p->nr_pend > 0;
	return 0;
}

int report_python_add(struct report *r, const struct fxt_record *rec)
{
	if (rec->type != FXT_RT_BLOB || !rec->name || !rec->blob)
		return 0;
	if (!strcmp(rec->name, FXT_PYSTACK_BLOB))
		return add_stack(&r->py, rec);
	if (!strcmp(rec->name, FXT_PYCODE_BLOB)) {
		r->prepared = false;
		return add_code(&r->py, rec);
	}
	return 0;
}

int report_python_frames(struct report *r, const struct fxt_record *rec, const uint64_t **frames,
			 unsigned *nr)
{
	struct report_python *p = &r->py;
	bool mine = p->have_pend && p->pend_ts == rec->ts && p->pend_tid == rec->tid;

	p->have_pend = false;
	if (!mine || *nr + p->nr_pend > 1024)
		return 0;
	if (reserve(&p->frames, &p->cap_frames, *nr + p->nr_pend))
		return -ENOMEM;
	/* *frames may be the kernel's buffer: copy before anything moves. */
	memmove(p->frames, *frames, *nr * sizeof(**frames));
	memcpy(p->frames + *nr, p->pend, p->nr_pend * sizeof(*p->pend));
	*frames = p->frames;
	*nr += (unsigned)p->nr_pend;
	return 0;
}

void report_python_resolve(const struct report *r, uint64_t frame, const char **name,
			   const char **file, unsigned *line, unsigned *start_line)
{
	uint32_t id = PYFRAME_CODE(frame);
	const struct py_code_ent *e = id && id <= r->py.nr_codes ? &r->py.codes[id - 1] : NULL;
	int l;

	*file = NULL;
	*line = *start_line = 0;
	if (!id) {
		uint32_t why = (uint32_t)frame;

		*name = why == PY_MARK_TRUNCATED   ? "[python: deeper frames cut]"
			: why == PY_MARK_FAULT	   ? "[python: unreadable frame]"
			: why == PY_MARK_UNMATCHED ? "[python: frames below not paired]"
						   : "[python]";
		return;
	}
	if (!e || !e->qualname) {
		*name = "[python: unknown code]";
		return;
	}
	*name = e->qualname;
	*file = e->filename;
	l = py_line_of(e->table, e->table_len, e->firstlineno, PYFRAME_LASTI(frame));
	*line = l > 0 ? (unsigned)l : 0;
	*start_line = e->firstlineno > 0 ? (unsigned)e->firstlineno : 0;
}

static bool is_eval(const struct report *r, size_t loc)
{
	const struct loc *l = &T(r->locs, struct loc)[loc];
	const char *name = T(r->funcs, struct func)[l->func].name;

	return !strncmp(name, EVAL_FRAME, strlen(EVAL_FRAME)) &&
	       (name[strlen(EVAL_FRAME)] == '\0' || name[strlen(EVAL_FRAME)] == '.');
}

int report_python_merge(struct report *r, struct stack *s,
			int (*mark)(struct report *r, unsigned reason, uint32_t *ret))
{
	unsigned np = 0, nn, j, o = 0, g = 0, nevals = 0, ngroups = 0, pairs, pi;
	bool py_cut, native_cut;
	uint32_t *out, marker;
	uint16_t *of;
	int err;

	while (np < s->nr && (s->frames[s->nr - 1 - np] & PYFRAME_TAG))
		np++;
	s->nr_locs = s->nr;
	if (!np)
		return 0;
	nn = s->nr - np;
	/* The invocations: each ends at an entry frame, or where the walk ended. */
	for (pi = nn; pi < s->nr; pi++)
		if (PYFRAME_CODE(s->frames[pi]) &&
		    ((s->frames[pi] & PYFRAME_ENTRY) || pi + 1 == s->nr ||
		     !PYFRAME_CODE(s->frames[pi + 1])))
			ngroups++;
	py_cut = !PYFRAME_CODE(s->frames[s->nr - 1]);
	native_cut = s->flags & FXT_BT_FLAG_TRUNCATED;
	for (j = 0; j < nn; j++)
		nevals += is_eval(r, s->locs[j]);
	/*
	 * Pairs from the innermost: sure when the counts agree, or when the
	 * side with more was cut (its outer part missing on the other side).
	 * Otherwise (a call caught between its frame and its eval loop) no pair
	 * is sure, and none is made.
	 */
	if (nevals == ngroups || (nevals > ngroups && py_cut) || (nevals < ngroups && native_cut))
		pairs = nevals < ngroups ? nevals : ngroups;
	else
		pairs = 0;
	out = malloc((s->nr + 2) * sizeof(*out));
	of = malloc((s->nr + 2) * sizeof(*of));
	if (!out || !of) {
		free(out);
		free(of);
		return -ENOMEM;
	}
	pi = nn;
	for (j = 0; j < nn; j++) {
		/* An eval frame: its invocation's Python frames, innermost first, inside it. */
		if (g < pairs && is_eval(r, s->locs[j])) {
			while (pi < s->nr && PYFRAME_CODE(s->frames[pi])) {
				bool last = s->frames[pi] & PYFRAME_ENTRY;

				of[o] = (uint16_t)pi;
				out[o++] = s->locs[pi++];
				if (last)
					break;
			}
			/* the walk's own marker stays with the invocation it cut */
			if (pi + 1 == s->nr && py_cut) {
				of[o] = (uint16_t)pi;
				out[o++] = s->locs[pi++];
			}
			g++;
		}
		of[o] = (uint16_t)j;
		out[o++] = s->locs[j];
	}
	/*
	 * Python frames without an eval frame of their own go outermost, as
	 * they are (a native walk cut short: they are its callers), under a
	 * marker when no pairing was sure.
	 */
	while (pi < s->nr) {
		of[o] = (uint16_t)pi;
		out[o++] = s->locs[pi++];
	}
	if (pairs < ngroups && !native_cut) {
		err = mark(r, PY_MARK_UNMATCHED, &marker);
		if (err) {
			free(out);
			free(of);
			return err;
		}
		of[o] = FRAME_MARK;
		out[o++] = marker;
		r->py.unmatched += s->count;
	}
	free(s->locs);
	free(s->frame_of);
	s->locs = out;
	s->frame_of = of;
	s->nr_locs = o;
	return 0;
}
