// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel frames in the report: the kstack blob before a backtrace puts its
 * location ids in front of the user frames (tagged KFRAME_TAG), the ksyms
 * blobs at the end of the file name them, and the kernel blob gives pprof's
 * kernel mapping its build id. Names come from the file alone: a report on
 * another machine, or with kallsyms hidden, names the same functions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/containers.h"
#include "fxt/fxt_kstack.h"
#include "report/report_internal.h"
#include "util/units.h"
#include "symbols/symbolizer.h"

void report_kernel_free(struct report_kernel *k)
{
	for (size_t i = 0; i < k->nr_syms; i++) {
		free(k->syms[i].name);
		free(k->syms[i].module);
	}
	free(k->syms);
	free(k->frames);
	free(k->map);
	memset(k, 0, sizeof(*k));
}

static int frames_reserve(struct report_kernel *k, size_t n)
{
	uint64_t *f;

	if (n <= k->cap_frames)
		return 0;
	f = realloc(k->frames, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	k->frames = f;
	k->cap_frames = n;
	return 0;
}

static int add_kstack(struct report_kernel *k, const struct fxt_record *rec)
{
	unsigned nr;

	k->have_pend = false;
	if (!fxt_kstack_decode(rec->blob, rec->blob_len, &k->pend_ts, &k->pend_tid, &nr))
		return 0;
	if (frames_reserve(k, nr + 256))
		return -ENOMEM;
	for (unsigned i = 0; i < nr; i++)
		k->frames[i] = KFRAME_TAG | fxt_kstack_id(rec->blob, i);
	k->nr_pend = nr;
	k->have_pend = true;
	return 0;
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* One named location; a later line for the same id replaces it. */
static int add_sym(struct report_kernel *k, const struct fxt_ksym_line *l)
{
	struct kernel_sym *e;
	char *name, *mod;
	size_t need = l->id;

	if (!l->id || l->id > (1u << 30))
		return 0;
	if (need > k->nr_syms) {
		e = realloc(k->syms, need * sizeof(*e));
		if (!e)
			return -ENOMEM;
		memset(e + k->nr_syms, 0, (need - k->nr_syms) * sizeof(*e));
		k->syms = e;
		k->nr_syms = need;
	}
	e = &k->syms[l->id - 1];
	if (l->name_len == 9 && !memcmp(l->name, "[unknown]", 9))
		return 0;
	name = dup_n(l->name, l->name_len);
	if (l->module_len == strlen(FXT_KSYMS_VMLINUX) &&
	    !memcmp(l->module, FXT_KSYMS_VMLINUX, l->module_len)) {
		mod = strdup(KERNEL_MODULE_NAME);
	} else {
		mod = malloc(l->module_len + 3);
		if (mod)
			snprintf(mod, l->module_len + 3, "[%.*s]", (int)l->module_len, l->module);
	}
	if (!name || !mod) {
		free(name);
		free(mod);
		return -ENOMEM;
	}
	free(e->name);
	free(e->module);
	e->name = name;
	e->module = mod;
	return 0;
}

static int add_ksyms(struct report_kernel *k, const struct fxt_record *rec)
{
	const char *p = (const char *)rec->blob, *end = p + rec->blob_len;
	struct fxt_ksym_line l;
	int err;

	/* A malformed line ends what this record names; the frames stay unnamed. */
	while (p < end && fxt_ksym_parse(&p, end, &l)) {
		err = add_sym(k, &l);
		if (err)
			return err;
	}
	return 0;
}

/* "build_id HEX" of the kernel blob, for pprof's kernel mapping. */
static void add_kernel(struct report_kernel *k, const struct fxt_record *rec)
{
	const char *p = (const char *)rec->blob, *end = p + rec->blob_len, *key = "build_id ";
	size_t n = 0;

	for (; p < end; p++) {
		if ((p == (const char *)rec->blob || p[-1] == '\n') &&
		    (size_t)(end - p) > strlen(key) && !memcmp(p, key, strlen(key)))
			break;
	}
	if (p >= end)
		return;
	for (p += strlen(key); p + 1 < end && n < sizeof(k->build_id); p += 2) {
		int hi = units_hex_digit(p[0]), lo = units_hex_digit(p[1]);

		if (hi < 0 || lo < 0)
			break;
		k->build_id[n++] = (uint8_t)(hi << 4 | lo);
	}
	k->build_id_len = n;
}

int report_kernel_add(struct report *r, const struct fxt_record *rec)
{
	if (rec->type != FXT_RT_BLOB || !rec->name || !rec->blob)
		return 0;
	if (!strcmp(rec->name, FXT_KSTACK_BLOB))
		return add_kstack(&r->kern, rec);
	if (!strcmp(rec->name, FXT_KSYMS_BLOB)) {
		r->prepared = false;
		return add_ksyms(&r->kern, rec);
	}
	if (!strcmp(rec->name, FXT_KERNEL_BLOB))
		add_kernel(&r->kern, rec);
	return 0;
}

int report_kernel_frames(struct report *r, const struct fxt_record *rec, const uint64_t **ret,
			 unsigned *ret_nr)
{
	struct report_kernel *k = &r->kern;
	unsigned nr = rec->frames ? rec->nr_frames : 0;
	bool mine = k->have_pend && k->pend_ts == rec->ts && k->pend_tid == rec->tid;

	k->have_pend = false;
	*ret = rec->frames;
	*ret_nr = nr;
	if (!mine || k->hide || !k->nr_pend)
		return 0;
	if (frames_reserve(k, k->nr_pend + nr))
		return -ENOMEM;
	if (nr)
		memcpy(k->frames + k->nr_pend, rec->frames, nr * sizeof(*rec->frames));
	*ret = k->frames;
	*ret_nr = (unsigned)k->nr_pend + nr;
	return 0;
}

unsigned report_kernel_count(const struct stack *s)
{
	unsigned n = 0;

	while (n < s->nr && (s->frames[n] & KFRAME_TAG))
		n++;
	return n;
}

void report_kernel_resolve(const struct report *r, uint64_t frame, const char **name,
			   const char **module, bool *resolved)
{
	uint64_t id = frame & ~KFRAME_TAG;
	const struct kernel_sym *e = id && id <= r->kern.nr_syms ? &r->kern.syms[id - 1] : NULL;

	*resolved = e && e->name;
	*name = *resolved ? e->name : SYMBOLIZER_UNKNOWN;
	*module = *resolved ? e->module : KERNEL_MODULE_NAME;
}

const struct symbolizer_mapping *report_kernel_mapping(struct report *r)
{
	struct report_kernel *k = &r->kern;

	if (!k->map) {
		k->map = calloc(1, sizeof(*k->map));
		if (!k->map)
			return NULL;
		/* Id 0: no symbolizer mapping has it, so pprof's tables keep it apart. */
		k->map->path = KERNEL_MODULE_NAME;
	}
	k->map->build_id = k->build_id;
	k->map->build_id_len = k->build_id_len;
	return k->map;
}
