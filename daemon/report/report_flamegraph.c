// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The flame graph SVG: a tree of the stacks' labels, drawn as frames. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "util/idset.h"
#include "util/sorted.h"
#include "report/report_internal.h"
#include "report/report_paths.h"
#include "report/report_svg.h"

/* ---- flame graph SVG ---- */

/*
 * The tree of the stacks' labels, in preorder: a node's children follow it,
 * each after the previous child's subtree. Built from the paths sorted frame
 * by frame (report_paths_tree_order()), so siblings come sorted by label and
 * only the path being walked is open; 16 bytes a node, the labels interned
 * (a generated capture of 10^5 samples makes 2 million nodes).
 */
#define ROOT_LABEL UINT32_MAX

struct node {
	uint32_t label; /* report_paths id; ROOT_LABEL: "all" */
	uint32_t size;	/* nodes in its subtree, itself included */
	uint64_t count;
};

/* A process or thread frame: how many processes and threads it holds. */
struct held_count {
	uint32_t node; /* its index in the tree */
	uint32_t nr_pids, nr_tids;
};

struct tree {
	struct report_paths paths;
	struct node *v;
	size_t n, cap;
	unsigned depth; /* levels below the root, which is level 0 */
	/* One per process and thread frame, few: sorted by node once built. */
	struct held_count *held;
	size_t nr_held, cap_held;
};

/* The open path's process and thread frames: the ids they hold. */
struct held {
	struct idset pids, tids;
};

static int held_close(struct tree *t, struct held *h, size_t node)
{
	int err = array_reserve((void **)&t->held, &t->cap_held, t->nr_held, sizeof(*t->held));

	if (!err)
		t->held[t->nr_held++] = (struct held_count){.node = (uint32_t)node,
							    .nr_pids = (uint32_t)h->pids.len,
							    .nr_tids = (uint32_t)h->tids.len};
	idset_free(&h->pids);
	idset_free(&h->tids);
	return err ? -ENOMEM : 0;
}

static int cmp_held(const void *a, const void *b)
{
	uint32_t x = ((const struct held_count *)a)->node, y = ((const struct held_count *)b)->node;

	return (x > y) - (x < y);
}

/* The counts of node n, a process or thread frame's; NULL when none were kept. */
static const struct held_count *held_of(const struct tree *t, const struct node *n)
{
	struct held_count key = {.node = (uint32_t)(n - t->v)};

	return sorted_find(t->held, t->nr_held, sizeof(*t->held), &key, cmp_held, NULL);
}

/* The stack's process and thread, in the frame that holds them. */
static int held_add(struct held *h, const struct stack *s)
{
	/* idset refuses id 0, which no sampled process or thread has. */
	return (s->pid && idset_add(&h->pids, s->pid) < 0) ||
	       (s->tid && idset_add(&h->tids, s->tid) < 0);
}

static void tree_free(struct tree *t)
{
	report_paths_free(&t->paths);
	free(t->v);
	free(t->held);
}

static enum report_label_kind node_kind(const struct tree *t, const struct node *n)
{
	return n->label == ROOT_LABEL ? LABEL_ROOT : t->paths.labels[n->label].kind;
}

static const char *node_label(const struct tree *t, const struct node *n)
{
	return n->label == ROOT_LABEL ? "all" : t->paths.labels[n->label].text;
}

/* Close the open nodes from level `from` down; held[] is per level. 0 or -ENOMEM. */
static int close_levels(struct tree *t, size_t *open, unsigned *nr_open, unsigned from,
			struct held *held)
{
	int err = 0;

	while (*nr_open > from) {
		struct node *n = &t->v[open[--*nr_open]];
		enum report_label_kind kind = node_kind(t, n);

		n->size = (uint32_t)(t->n - open[*nr_open]);
		if ((kind == LABEL_PROCESS || kind == LABEL_THREAD) &&
		    held_close(t, &held[*nr_open], open[*nr_open]))
			err = -ENOMEM;
	}
	return err;
}

static int build_tree(struct report *r, struct tree *t)
{
	const struct stack *stacks = T(r->stacks, struct stack);
	struct held *held = NULL;
	size_t *order = NULL, *open = NULL, i, k;
	unsigned nr_open = 0;
	int err;

	err = report_paths_build(r, &t->paths);
	if (err)
		return err;
	t->depth = t->paths.max_len;
	err = report_paths_tree_order(&t->paths, &order);
	open = calloc(t->depth + 1, sizeof(*open));
	held = calloc(t->depth + 1, sizeof(*held));
	if (err || !open || !held || array_reserve((void **)&t->v, &t->cap, t->n, sizeof(*t->v))) {
		err = -ENOMEM;
		goto out;
	}
	t->v[t->n] = (struct node){.label = ROOT_LABEL};
	open[nr_open++] = t->n++;
	for (i = 0; i < t->paths.nr; i++) {
		const struct stack *s = &stacks[order[i]];
		const uint32_t *ids = report_path(&t->paths, order[i]);
		size_t nr = report_path_len(&t->paths, order[i]);

		/* Level k + 1 holds frame k: keep the levels this path shares. */
		for (k = 0; k + 1 < nr_open && k < nr && t->v[open[k + 1]].label == ids[k]; k++)
			;
		if (close_levels(t, open, &nr_open, (unsigned)k + 1, held)) {
			err = -ENOMEM;
			goto out;
		}
		for (; k < nr; k++) {
			if (t->n >= UINT32_MAX ||
			    array_reserve((void **)&t->v, &t->cap, t->n, sizeof(*t->v))) {
				err = -ENOMEM;
				goto out;
			}
			t->v[t->n] = (struct node){.label = ids[k]};
			open[nr_open++] = t->n++;
		}
		for (k = 0; k < nr_open; k++) {
			struct node *n = &t->v[open[k]];
			enum report_label_kind kind = node_kind(t, n);

			n->count += s->count;
			if ((kind == LABEL_PROCESS || kind == LABEL_THREAD) &&
			    held_add(&held[k], s)) {
				err = -ENOMEM;
				goto out;
			}
		}
	}
	if (close_levels(t, open, &nr_open, 0, held))
		err = -ENOMEM;
	else if (t->nr_held)
		qsort(t->held, t->nr_held, sizeof(*t->held), cmp_held);
out:
	if (held)
		for (k = 0; k <= t->depth; k++) {
			idset_free(&held[k].pids);
			idset_free(&held[k].tids);
		}
	free(held);
	free(open);
	free(order);
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
	const struct tree *tree;
	uint64_t total;
	double scale; /* pixels per sample */
	unsigned height;
	bool inverted;	  /* an icicle: the root on top */
	const char *unit; /* what a count is: ns; NULL: samples */
};

static void label_color(const char *label, enum report_label_kind kind, unsigned *r, unsigned *g,
			unsigned *b)
{
	uint64_t h = fnv1a(FNV_INIT, label, strlen(label));

	switch (kind) {
	case LABEL_ROOT:
	case LABEL_SPECIAL:
		*r = *g = *b = 160 + (unsigned)(h % 40);
		break;
	case LABEL_PROCESS:
	case LABEL_THREAD:
		*r = 80 + (unsigned)(h % 60);
		*g = 160 + (unsigned)((h >> 8) % 60);
		*b = 200 + (unsigned)((h >> 16) % 55);
		break;
	case LABEL_INLINED:
		*r = 60 + (unsigned)(h % 60);
		*g = 180 + (unsigned)((h >> 8) % 50);
		*b = 150 + (unsigned)((h >> 16) % 50);
		break;
	case LABEL_UNRESOLVED:
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
static void svg_frame(struct svg *s, const char *label, enum report_label_kind kind, uint64_t count,
		      uint64_t offset, unsigned depth, const struct node *held)
{
	const struct held_count *hc = held ? held_of(s->tree, held) : NULL;
	double x = SVG_PAD + (double)offset * s->scale, w = (double)count * s->scale;
	double y = s->inverted ? SVG_HEADER + (double)depth * SVG_FRAME_H
			       : s->height - SVG_FOOTER - (double)(depth + 1) * SVG_FRAME_H;
	unsigned r, g, b;
	size_t chars;

	label_color(label, kind, &r, &g, &b);
	fputs("<g><title>", s->out);
	xml_text(s->out, label);
	fprintf(s->out, " (%" PRIu64 " %s, %.2f%%", count, svg_unit(s, count),
		report_pct(count, s->total));
	if (hc && kind == LABEL_PROCESS && hc->nr_pids > 1)
		fprintf(s->out, "; %" PRIu32 " processes, %" PRIu32 " thread%s", hc->nr_pids,
			hc->nr_tids, hc->nr_tids == 1 ? "" : "s");
	else if (hc && kind == LABEL_THREAD && hc->nr_tids > 1)
		fprintf(s->out, "; %" PRIu32 " threads in %" PRIu32 " process%s", hc->nr_tids,
			hc->nr_pids, hc->nr_pids == 1 ? "" : "es");
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
	const struct node *c = n + 1, *end = n + n->size, *run = NULL;
	uint64_t off = offset, run_off = 0, run_count = 0;
	size_t run_nr = 0;

	if ((double)n->count * s->scale < SVG_MIN_W)
		return;
	svg_frame(s, node_label(s->tree, n), node_kind(s->tree, n), n->count, offset, depth, n);
	for (;; c += c->size) {
		bool narrow = c < end && (double)c->count * s->scale < SVG_MERGE_W;

		/* A run of narrow siblings ends: one frame for all of them. */
		if (!narrow && run_nr > 1 && (double)run_count * s->scale >= SVG_MIN_W) {
			char label[64];

			snprintf(label, sizeof(label), "[%zu frames, each under a pixel]", run_nr);
			svg_frame(s, label, LABEL_SPECIAL, run_count, run_off, depth + 1, NULL);
		} else if (!narrow && run_nr == 1) {
			svg_node(s, run, run_off, depth + 1);
		}
		if (c >= end)
			break;
		if (narrow) {
			if (!run_nr++) {
				run = c;
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
	struct tree t = {};
	struct svg s = {.out = out,
			.tree = &t,
			.inverted = r->svg_inverted,
			.unit = r->time_mode ? "ns" : NULL};
	const struct node *root;
	unsigned depth;
	int err;

	err = report_prepare(r);
	if (!err)
		err = build_tree(r, &t);
	if (err)
		goto out;
	root = &t.v[0];
	depth = t.depth + 1;
	s.total = root->count;
	s.scale = root->count ? (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)root->count : 0;
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
		SVG_FRAME_H, root->count, SVG_FONT, SVG_WIDTH, s.height, SVG_WIDTH / 2, root->count,
		svg_unit(&s, root->count), s.inverted ? " (inverted)" : "", SVG_PAD,
		SVG_WIDTH - SVG_PAD, SVG_WIDTH - SVG_PAD - 70, SVG_PAD, s.height - 9,
		SVG_WIDTH - SVG_PAD, s.height - 9);
	if (root->count)
		svg_node(&s, root, 0, 0);
	fputs(report_svg_script, out);
	fputs("</svg>\n", out);
	if (ferror(out))
		err = -EIO;
out:
	tree_free(&t);
	return err;
}
