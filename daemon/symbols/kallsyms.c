// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's symbols from /proc/kallsyms, and its build id (symbols/kallsyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/containers.h"
#include "util/sorted.h"
#include "symbols/kallsyms.h"

struct kallsyms {
	struct ksym *v;
	size_t n, cap;
	char *text; /* the names and modules, NUL-terminated in place */
};

static int ksym_order(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* One line "ADDR TYPE NAME[\t[MODULE]]" of buf, cut in place; false: not a text symbol. */
static bool parse_line(char *line, struct ksym *ret)
{
	char *end, *name, *mod;
	unsigned long long addr;

	addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return false;
	if (!strchr("tTwW", end[1]))
		return false;
	name = end + 3;
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = '\0';
		if (*mod != '[' || !strchr(mod, ']'))
			return false;
		mod++;
		*strchr(mod, ']') = '\0';
	}
	if (!*name)
		return false;
	ret->addr = addr;
	ret->name = name;
	ret->module = mod ? mod : "vmlinux";
	return true;
}

struct kallsyms *kallsyms__parse(const char *text, size_t len)
{
	struct kallsyms *k = calloc(1, sizeof(*k));
	bool any_addr = false;
	char *p, *nl;

	if (!k || !(k->text = malloc(len + 1))) {
		free(k);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(k->text, text, len);
	k->text[len] = '\0';
	for (p = k->text; *p; p = nl + 1) {
		struct ksym s;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		else
			*nl = '\0';
		if (!parse_line(p, &s))
			continue;
		any_addr |= s.addr != 0;
		if (array_reserve((void **)&k->v, &k->cap, k->n, sizeof(*k->v))) {
			kallsyms__free(k);
			errno = ENOMEM;
			return NULL;
		}
		k->v[k->n++] = s;
	}
	/* Addresses hidden from this reader: nothing can be looked up. */
	if (!any_addr)
		k->n = 0;
	qsort(k->v, k->n, sizeof(*k->v), ksym_order);
	return k;
}

struct kallsyms *kallsyms__load(const char *path)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	struct kallsyms *k;
	int fd, saved;
	ssize_t n;

	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		free(buf);
		errno = saved;
		return NULL;
	}
	/* A /proc file has no size: read until the end, growing the buffer. */
	for (;;) {
		if (len == cap) {
			char *more = realloc(buf, cap * 2);

			if (!more) {
				n = -1;
				errno = ENOMEM;
				break;
			}
			buf = more;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	saved = errno;
	close(fd);
	k = n < 0 ? NULL : kallsyms__parse(buf, len);
	if (n < 0)
		errno = saved;
	free(buf);
	return k;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->text);
	free(k);
}

size_t kallsyms_count(const struct kallsyms *k)
{
	return k ? k->n : 0;
}

static int addr_cmp(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = ((const struct ksym *)elem)->addr;

	return a < b ? -1 : a > b;
}

const struct ksym *kallsyms_find(const struct kallsyms *k, uint64_t addr)
{
	size_t i;

	if (!k || !k->n)
		return NULL;
	i = sorted_upper(k->v, k->n, sizeof(*k->v), &addr, addr_cmp);
	return i ? &k->v[i - 1] : NULL;
}

bool kallsyms_is_tracing(const struct kallsyms *k, uint64_t addr)
{
	static const char *const prefixes[] = {"bpf_prog_", "bpf_trace_run", "__bpf_trace_",
					       "__traceiter_"};
	const struct ksym *s = kallsyms_find(k, addr);

	if (!s)
		return false;
	if (!strcmp(s->module, "bpf"))
		return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(s->name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

size_t kallsyms_notes_build_id(const uint8_t *notes, size_t len, uint8_t *id, size_t size)
{
	size_t off = 0;

	/* Elf_Nhdr: namesz, descsz, type; then name and desc, each 4-aligned. */
	while (len - off >= 12) {
		uint32_t namesz = u32_at(notes + off), descsz = u32_at(notes + off + 4);
		uint32_t type = u32_at(notes + off + 8);
		size_t name_off = off + 12, desc_off, next;

		if (namesz > len || descsz > len)
			return 0;
		desc_off = name_off + ((namesz + 3) & ~3u);
		next = desc_off + ((descsz + 3) & ~3u);
		if (next > len)
			return 0;
		if (type == 3 && namesz == 4 && !memcmp(notes + name_off, "GNU", 4)) {
			if (descsz > size)
				return 0;
			memcpy(id, notes + desc_off, descsz);
			return descsz;
		}
		off = next;
	}
	return 0;
}
