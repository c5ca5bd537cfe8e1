// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * /proc/PID/maps parser. The kernel prints each line in show_map_vma() as
 * "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu " then pads with spaces and
 * appends the path, so every field up to the inode has a fixed shape and the
 * path is the rest of the line: it may hold spaces but never a newline (the
 * kernel escapes those as "\012").
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/proc_maps.h"
#include "util/sorted.h"
#include "util/units.h"

#define DELETED_SUFFIX " (deleted)"

/* A cursor over one line; no field may run past end. */
struct cursor {
	const char *p;
	const char *end;
};

/* 1 to max_digits hex digits; more would overflow the field. */
static int parse_hex(struct cursor *c, unsigned max_digits, uint64_t *ret)
{
	uint64_t v = 0;
	unsigned n = 0;
	int d;

	while (c->p < c->end && (d = units_hex_digit(*c->p)) >= 0) {
		if (++n > max_digits)
			return -EBADMSG;
		v = v << 4 | (uint64_t)d;
		c->p++;
	}
	if (!n)
		return -EBADMSG;
	*ret = v;
	return 0;
}

static int parse_dec(struct cursor *c, uint64_t *ret)
{
	uint64_t v = 0;
	unsigned n = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EBADMSG;
		v = v * 10 + d;
		c->p++;
		n++;
	}
	if (!n)
		return -EBADMSG;
	*ret = v;
	return 0;
}

static int expect(struct cursor *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return -EBADMSG;
	c->p++;
	return 0;
}

static int parse_perms(struct cursor *c, char *perms)
{
	static const char allowed[4][2] = {{'r', '-'}, {'w', '-'}, {'x', '-'}, {'p', 's'}};
	int i;

	if (c->end - c->p < 4)
		return -EBADMSG;
	for (i = 0; i < 4; i++) {
		if (c->p[i] != allowed[i][0] && c->p[i] != allowed[i][1])
			return -EBADMSG;
		perms[i] = c->p[i];
	}
	perms[4] = '\0';
	c->p += 4;
	return 0;
}

int proc_map_parse_line(const char *line, size_t len, struct proc_map *ret)
{
	struct proc_map m = {};
	struct cursor c;
	uint64_t major, minor;
	size_t path_len;

	if (!line)
		return -EBADMSG;
	/* Only now: line + len on a NULL line is undefined behaviour. */
	c = (struct cursor){line, line + len};
	/* A NUL inside the line would silently cut the path short. */
	if (memchr(line, '\0', len))
		return -EBADMSG;
	if (len && line[len - 1] == '\n')
		c.end--;
	if (memchr(c.p, '\n', (size_t)(c.end - c.p)))
		return -EBADMSG;

	if (parse_hex(&c, 16, &m.start) || expect(&c, '-') || parse_hex(&c, 16, &m.end) ||
	    expect(&c, ' ') || parse_perms(&c, m.perms) || expect(&c, ' ') ||
	    parse_hex(&c, 16, &m.offset) || expect(&c, ' ') || parse_hex(&c, 8, &major) ||
	    expect(&c, ':') || parse_hex(&c, 8, &minor) || expect(&c, ' ') ||
	    parse_dec(&c, &m.inode))
		return -EBADMSG;
	if (m.end < m.start)
		return -EBADMSG;
	m.dev_major = (uint32_t)major;
	m.dev_minor = (uint32_t)minor;

	/* Anonymous mappings end at the inode, possibly followed by padding. */
	if (c.p < c.end && *c.p != ' ')
		return -EBADMSG;
	while (c.p < c.end && *c.p == ' ')
		c.p++;
	path_len = (size_t)(c.end - c.p);
	if (path_len) {
		const size_t sfx = sizeof(DELETED_SUFFIX) - 1;

		if (path_len > sfx && !memcmp(c.end - sfx, DELETED_SUFFIX, sfx)) {
			m.deleted = true;
			path_len -= sfx;
		}
		m.path = strndup(c.p, path_len);
		if (!m.path)
			return -ENOMEM;
	}
	*ret = m;
	return 0;
}

void proc_map_clear(struct proc_map *map)
{
	if (!map)
		return;
	free(map->path);
	map->path = NULL;
}

void proc_maps_free(struct proc_map *maps, size_t n)
{
	size_t i;

	if (!maps)
		return;
	for (i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

int proc_maps_parse(FILE *f, struct proc_map **ret, size_t *ret_n, size_t *ret_bad_line)
{
	struct proc_map *maps = NULL, *tmp;
	size_t n = 0, cap = 0, line_cap = 0, lineno = 0;
	char *line = NULL;
	ssize_t len;
	int err = 0;

	errno = 0;
	while ((len = getline(&line, &line_cap, f)) >= 0) {
		lineno++;
		if (n == cap) {
			size_t new_cap = cap ? cap * 2 : 64;

			tmp = reallocarray(maps, new_cap, sizeof(*maps));
			if (!tmp) {
				err = -ENOMEM;
				goto out;
			}
			maps = tmp;
			cap = new_cap;
		}
		err = proc_map_parse_line(line, (size_t)len, &maps[n]);
		if (err) {
			if (err == -EBADMSG && ret_bad_line)
				*ret_bad_line = lineno;
			goto out;
		}
		n++;
		errno = 0;
	}
	if (ferror(f)) {
		err = errno ? -errno : -EIO;
		goto out;
	}
	/* getline() fails with ENOMEM rather than setting the error indicator. */
	if (errno == ENOMEM) {
		err = -ENOMEM;
		goto out;
	}
	if (!n) {
		free(maps);
		maps = NULL;
	}
	*ret = maps;
	*ret_n = n;
	maps = NULL;
	n = 0;
out:
	free(line);
	proc_maps_free(maps, n);
	return err;
}

int proc_maps_read(const char *path, struct proc_map **ret, size_t *ret_n)
{
	FILE *f;
	int err;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = proc_maps_parse(f, ret, ret_n, NULL);
	fclose(f);
	return err;
}

/* An address against a mapping: before it, in it (0), or past it. */
static int cmp_addr_in_map(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key;
	const struct proc_map *m = elem;

	return a < m->start ? -1 : a >= m->end ? 1 : 0;
}

const struct proc_map *proc_maps_find(const struct proc_map *maps, size_t n, uint64_t addr)
{
	return sorted_find(maps, n, sizeof(*maps), &addr, cmp_addr_in_map, NULL);
}

unsigned proc_map_elf_flags(const struct proc_map *map)
{
	unsigned flags = 0;

	if (map->perms[0] == 'r')
		flags |= PF_R;
	if (map->perms[1] == 'w')
		flags |= PF_W;
	if (map->perms[2] == 'x')
		flags |= PF_X;
	return flags;
}
