// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The flame graph SVG: a tree of the stacks' labels, drawn as frames. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/idset.h"
#include "report/report_internal.h"
#include "report/report_svg.h"

/* ---- flame graph SVG ---- */

enum node_kind {
	NODE_ROOT,
	NODE_PROCESS,
	NODE_THREAD,
	NODE_SPECIAL,
	NODE_FUNC,
	NODE_INLINED,
	NODE_UNRESOLVED,
};

struct node {
	char *label;
	enum node_kind kind;
	uint64_t count;
	struct node *children;
	size_t nr, cap;
	/* A process or thread frame: the processes and threads it holds. */
	struct idset pids, tids;
};

static void node_free(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		node_free(&n->children[i]);
	free(n->children);
	free(n->label);
	idset_free(&n->pids);
	idset_free(&n->tids);
}

static struct node *node_child(struct node *n, const char *label, enum node_kind kind)
{
	struct node *c;
	size_t i;

	/* The last child is the likeliest: stacks of one thread come together. */
	for (i = n->nr; i-- > 0;)
		if (!strcmp(n->children[i].label, label))
			return &n->children[i];
	if (array_reserve((void **)&n->children, &n->cap, n->nr, sizeof(*n->children)))
		return NULL;
	c = &n->children[n->nr];
	memset(c, 0, sizeof(*c));
	c->label = strdup(label);
	if (!c->label)
		return NULL;
	c->kind = kind;
	n->nr++;
	return c;
}

/* A process or thread frame holds the stack's process and thread. */
static int node_hold(struct node *n, const struct stack *s)
{
	/* idset refuses id 0, which no sampled process or thread has. */
	return (s->pid && idset_add(&n->pids, s->pid) < 0) ||
	       (s->tid && idset_add(&n->tids, s->tid) < 0);
}

static int node_order(const void *pa, const void *pb)
{
	return strcmp(((const struct node *)pa)->label, ((const struct node *)pb)->label);
}

static unsigned node_depth(struct node *n)
{
	unsigned d = 0, c;
	size_t i;

	if (n->nr)
		qsort(n->children, n->nr, sizeof(*n->children), node_order);
	for (i = 0; i < n->nr; i++) {
		c = node_depth(&n->children[i]);
		if (c > d)
			d = c;
	}
	return d + 1;
}

static int build_tree(struct report *r, struct node *root)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	const struct func *funcs = T(r->funcs, struct func);
	const struct loc *locs = T(r->locs, struct loc);
	struct sbuf b = {};
	size_t i, k, nr;
	int err = 0;

	root->label = strdup("all");
	if (!root->label)
		return -ENOMEM;
	root->kind = NODE_ROOT;
	for (i = 0; i < r->stacks.n; i++) {
		const struct stack *s = &stacks[i];
		struct node *n = root;
		const char *label;
		unsigned roots = report_root_frames(r);
		size_t fixed = roots + !!(s->flags & FXT_BT_FLAG_TRUNCATED);
		unsigned j = s->nr_locs, ki = 0;

		nr = report_stack_path(r, s, &b);
		if (b.err) {
			err = b.err;
			break;
		}
		root->count += s->count;
		for (k = 0, label = b.s; k < nr; k++, label += strlen(label) + 1) {
			enum node_kind kind;

			if (k == 0 && roots >= 1)
				kind = NODE_PROCESS;
			else if (k == 1 && roots >= 2)
				kind = NODE_THREAD;
			else if (k < fixed)
				kind = NODE_SPECIAL;
			else if (ki) {
				/* stack_path's order: a frame, then its inlined ones. */
				ki--;
				kind = NODE_INLINED;
			} else {
				const struct loc *l = &locs[s->locs[--j]];
				const struct func *f = &funcs[l->func];

				kind = f->resolved ? NODE_FUNC
				       : f->module ? NODE_UNRESOLVED
						   : NODE_SPECIAL;
				ki = l->nr_inl;
			}
			n = node_child(n, label, kind);
			if (!n) {
				err = -ENOMEM;
				goto out;
			}
			n->count += s->count;
			if ((kind == NODE_PROCESS || kind == NODE_THREAD) && node_hold(n, s)) {
				err = -ENOMEM;
				goto out;
			}
		}
	}
out:
	free(b.s);
	return err;
}

/* XML-escape s; bytes that are not valid UTF-8 or control characters become '?'. */
static void xml_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned char c = *p;
		size_t len = 0, i;

		if (c < 0x80)
			len = 1;
		else if ((c & 0xe0) == 0xc0 && c >= 0xc2)
			len = 2;
		else if ((c & 0xf0) == 0xe0)
			len = 3;
		else if ((c & 0xf8) == 0xf0 && c <= 0xf4)
			len = 4;
		for (i = 1; i < len; i++)
			if ((p[i] & 0xc0) != 0x80)
				len = 0;
		if (!len || (len == 1 && c < 0x20 && c != '\t')) {
			fputc('?', out);
			p++;
			continue;
		}
		switch (c) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fwrite(p, 1, len, out);
		}
		p += len;
	}
}

#define SVG_WIDTH   1200
#define SVG_PAD	    10
#define SVG_FRAME_H 16
#define SVG_HEADER  36
#define SVG_FOOTER  26 /* room for the details line */
#define SVG_FONT    12
#define SVG_CHAR_W  7.2 /* monospace at 12px: 0.6 em */
#define SVG_MIN_W   0.1 /* narrower frames are not drawn */
/*
 * Siblings narrower than a pixel are drawn as one frame, as flamegraph.pl
 * does, so that 100k distinct stacks still make a file of a few MB.
 */
#define SVG_MERGE_W 1.0

struct svg {
	FILE *out;
	uint64_t total;
	double scale; /* pixels per sample */
	unsigned height;
	bool inverted;	  /* an icicle: the root on top */
	const char *unit; /* what a count is: ns; NULL: samples */
};

static void node_color(const struct node *n, unsigned *r, unsigned *g, unsigned *b)
{
	uint64_t h = fnv1a(FNV_INIT, n->label, strlen(n->label));

	switch (n->kind) {
	case NODE_ROOT:
	case NODE_SPECIAL:
		*r = *g = *b = 160 + (unsigned)(h % 40);
		break;
	case NODE_PROCESS:
	case NODE_THREAD:
		*r = 80 + (unsigned)(h % 60);
		*g = 160 + (unsigned)((h >> 8) % 60);
		*b = 200 + (unsigned)((h >> 16) % 55);
		break;
	case NODE_INLINED:
		*r = 60 + (unsigned)(h % 60);
		*g = 180 + (unsigned)((h >> 8) % 50);
		*b = 150 + (unsigned)((h >> 16) % 50);
		break;
	case NODE_UNRESOLVED:
		*r = 200 + (unsigned)(h % 55);
		*g = 150 + (unsigned)((h >> 8) % 50);
		*b = 150 + (unsigned)((h >> 16) % 50);
		break;
	default:
		/* flamegraph.pl's "hot" palette. */
		*r = 205 + (unsigned)(h % 50);
		*g = (unsigned)((h >> 8) % 230);
		*b = (unsigned)((h >> 16) % 55);
	}
}

static const char *svg_unit(const struct svg *s, uint64_t count)
{
	return s->unit ? s->unit : count == 1 ? "sample" : "samples";
}

/*
 * held: the frame's node; the title counts what a merged frame holds: the
 * processes and threads of a process frame of more than one process, the
 * threads of a thread frame of more than one thread. NULL: nothing to count.
 */
static void svg_frame(struct svg *s, const char *label, enum node_kind kind, uint64_t count,
		      uint64_t offset, unsigned depth, const struct node *held)
{
	double x = SVG_PAD + (double)offset * s->scale, w = (double)count * s->scale;
	double y = s->inverted ? SVG_HEADER + (double)depth * SVG_FRAME_H
			       : s->height - SVG_FOOTER - (double)(depth + 1) * SVG_FRAME_H;
	struct node tmp = {.label = (char *)label, .kind = kind};
	unsigned r, g, b;
	size_t chars;

	node_color(&tmp, &r, &g, &b);
	fputs("<g><title>", s->out);
	xml_text(s->out, label);
	fprintf(s->out, " (%" PRIu64 " %s, %.2f%%", count, svg_unit(s, count),
		report_pct(count, s->total));
	if (held && held->kind == NODE_PROCESS && held->pids.len > 1)
		fprintf(s->out, "; %zu processes, %zu thread%s", held->pids.len, held->tids.len,
			held->tids.len == 1 ? "" : "s");
	else if (held && held->kind == NODE_THREAD && held->tids.len > 1)
		fprintf(s->out, "; %zu threads in %zu process%s", held->tids.len, held->pids.len,
			held->pids.len == 1 ? "" : "es");
	fputs(")</title>", s->out);
	fprintf(s->out,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\" "
		"rx=\"2\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\"/>",
		x, y, w, SVG_FRAME_H - 1, r, g, b, offset, count);
	chars = (size_t)((w - 6) / SVG_CHAR_W);
	if (chars >= 3) {
		char buf[512];

		fprintf(s->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + SVG_FRAME_H - 4.5);
		xml_text(s->out,
			 report_fit(label, chars < sizeof(buf) - 1 ? chars : sizeof(buf) - 1, buf,
				    sizeof(buf)));
		fputs("</text>", s->out);
	}
	fputs("</g>\n", s->out);
}

static void svg_node(struct svg *s, const struct node *n, uint64_t offset, unsigned depth)
{
	uint64_t off = offset, run_off = 0, run_count = 0;
	size_t i, run_nr = 0;

	if ((double)n->count * s->scale < SVG_MIN_W)
		return;
	svg_frame(s, n->label, n->kind, n->count, offset, depth, n);
	for (i = 0; i <= n->nr; i++) {
		const struct node *c = i < n->nr ? &n->children[i] : NULL;
		bool narrow = c && (double)c->count * s->scale < SVG_MERGE_W;

		/* A run of narrow siblings ends: one frame for all of them. */
		if (!narrow && run_nr > 1 && (double)run_count * s->scale >= SVG_MIN_W) {
			char label[64];

			snprintf(label, sizeof(label), "[%zu frames, each under a pixel]", run_nr);
			svg_frame(s, label, NODE_SPECIAL, run_count, run_off, depth + 1, NULL);
		} else if (!narrow && run_nr == 1) {
			svg_node(s, &n->children[i - 1], run_off, depth + 1);
		}
		if (!c)
			break;
		if (narrow) {
			if (!run_nr++) {
				run_off = off;
				run_count = 0;
			}
			run_count += c->count;
		} else {
			run_nr = 0;
			svg_node(s, c, off, depth + 1);
		}
		off += c->count;
	}
}

int report_write_svg(struct report *r, FILE *out)
{
	struct node root = {};
	struct svg s = {
		.out = out, .inverted = r->svg_inverted, .unit = r->time_mode ? "ns" : NULL};
	unsigned depth;
	int err;

	err = report_prepare(r);
	if (!err)
		err = build_tree(r, &root);
	if (err)
		goto out;
	depth = node_depth(&root);
	s.total = root.count;
	s.scale = root.count ? (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)root.count : 0;
	s.height = SVG_HEADER + depth * SVG_FRAME_H + SVG_FOOTER;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-width=\"%d\" data-pad=\"%d\" "
		"data-char-w=\"%.1f\" data-frame-h=\"%d\" data-total=\"%" PRIu64 "\">\n"
		"<style>text { font-family: monospace; font-size: %dpx; fill: #000; "
		"pointer-events: none; }\n"
		"g:hover rect { stroke: #000; stroke-width: 1; } g { cursor: pointer; }\n"
		".zp rect { opacity: 0.55; } .hide { display: none; }\n"
		"text.btn { fill: #1f4e9c; pointer-events: all; cursor: pointer; "
		"text-decoration: underline; }\n"
		"#details, #matched { font-size: 13px; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"#f8f8f8\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">"
		"fxsampler: %" PRIu64 " %s%s</text>\n"
		"<text id=\"unzoom\" class=\"btn hide\" x=\"%d\" y=\"24\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\" text-anchor=\"end\">"
		"Search</text>\n"
		"<text id=\"clear\" class=\"btn hide\" x=\"%d\" y=\"24\" text-anchor=\"end\">"
		"Clear</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%u\" text-anchor=\"end\"></text>\n",
		SVG_WIDTH, s.height, SVG_WIDTH, s.height, SVG_WIDTH, SVG_PAD, SVG_CHAR_W,
		SVG_FRAME_H, root.count, SVG_FONT, SVG_WIDTH, s.height, SVG_WIDTH / 2, root.count,
		svg_unit(&s, root.count), s.inverted ? " (inverted)" : "", SVG_PAD,
		SVG_WIDTH - SVG_PAD, SVG_WIDTH - SVG_PAD - 70, SVG_PAD, s.height - 9,
		SVG_WIDTH - SVG_PAD, s.height - 9);
	if (root.count)
		svg_node(&s, &root, 0, 0);
	fputs(report_svg_script, out);
	fputs("</svg>\n", out);
	if (ferror(out))
		err = -EIO;
out:
	node_free(&root);
	return err;
}
