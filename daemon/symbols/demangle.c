// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* C++ and Rust names demangled by libiberty, each distinct name once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

#include "util/containers.h"
#include "util/hash.h"
#include "symbols/demangle.h"

bool demangle_available(void)
{
#ifdef HAVE_LIBIBERTY
	return true;
#else
	return false;
#endif
}

#ifdef HAVE_LIBIBERTY
/*
 * DMGL_PARAMS | DMGL_ANSI as perf and gdb pass them, without DMGL_VERBOSE
 * (c++filt's default, which spells std::string out and keeps the hash of a
 * Rust legacy name). No style bit: libiberty's default, auto, tries Rust
 * (legacy "_ZN...17h<hash>E" and v0 "_R...") first, then the Itanium ABI.
 */
static char *library_demangle(const char *name)
{
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}
#endif

char *demangle(const char *name)
{
#ifdef HAVE_LIBIBERTY
	const char *at;
	char *head, *out, *both;
	size_t n;

	errno = 0;
	/* Every mangling libiberty's auto style reads starts with '_'. */
	if (name[0] != '_')
		return NULL;
	out = library_demangle(name);
	if (out)
		return out;
	/*
	 * A versioned dynamic symbol, "_ZNSo3putEc@@GLIBCXX_3.4": the name
	 * before the version, and the version kept, as c++filt reads a line.
	 */
	at = strchr(name, '@');
	if (!at || at == name)
		return NULL;
	n = (size_t)(at - name);
	head = strndup(name, n);
	if (!head) {
		errno = ENOMEM;
		return NULL;
	}
	out = library_demangle(head);
	free(head);
	if (!out)
		return NULL;
	both = malloc(strlen(out) + strlen(at) + 1);
	if (both) {
		strcpy(both, out);
		strcat(both, at);
	} else {
		errno = ENOMEM;
	}
	free(out);
	return both;
#else
	(void)name;
	errno = 0;
	return NULL;
#endif
}

struct demangled {
	char *raw;
	char *shown; /* NULL: raw is not mangled */
};

struct demangler {
	struct demangled *v;
	size_t n, cap;
	size_t nr_demangled;
	struct hash_index idx;
};

struct demangler *demangler__new(void)
{
	struct demangler *d = calloc(1, sizeof(*d));

	if (!d)
		errno = ENOMEM;
	return d;
}

void demangler__free(struct demangler *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n; i++) {
		free(d->v[i].raw);
		free(d->v[i].shown);
	}
	free(d->v);
	hash_index_free(&d->idx);
	free(d);
}

static bool raw_eq(const void *ctx, size_t pos, const void *key)
{
	return !strcmp(((const struct demangler *)ctx)->v[pos].raw, key);
}

const char *demangler_name(struct demangler *d, const char *raw)
{
	uint64_t h = fnv1a(FNV_INIT, raw, strlen(raw));
	struct demangled *e;
	size_t pos;

	if (hash_index_find(&d->idx, h, raw_eq, d, raw, &pos))
		return d->v[pos].shown ?: raw;
	if (array_reserve((void **)&d->v, &d->cap, d->n, sizeof(*d->v)))
		return NULL;
	e = &d->v[d->n];
	e->raw = strdup(raw);
	if (!e->raw)
		return NULL;
	e->shown = demangle(raw);
	if ((!e->shown && errno == ENOMEM) || hash_index_insert(&d->idx, h, d->n)) {
		free(e->raw);
		free(e->shown);
		return NULL;
	}
	d->n++;
	if (e->shown)
		d->nr_demangled++;
	return e->shown ?: raw;
}

size_t demangler_seen(const struct demangler *d)
{
	return d->n;
}

size_t demangler_demangled(const struct demangler *d)
{
	return d->nr_demangled;
}
