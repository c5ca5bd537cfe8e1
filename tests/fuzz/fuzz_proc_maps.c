// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the /proc/PID/maps parser, one line at a time and as a
 * whole file through fmemopen(). Whatever it accepts must be a consistent
 * mapping (start < end... as the parser promises), and a lookup in the parsed
 * array must stay inside it.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/proc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_map(const struct proc_map *m)
{
	assert(strlen(m->perms) == 4);
	if (m->path)
		(void)strlen(m->path);
	(void)proc_map_elf_flags(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_map one, *maps = NULL;
	size_t n = 0, bad = 0;
	char *copy;
	FILE *f;
	int err;

	/* One line, exactly size bytes long (no NUL terminator after it). */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	err = proc_map_parse_line(copy, size, &one);
	assert(err == 0 || err == -EBADMSG || err == -ENOMEM);
	if (!err) {
		check_map(&one);
		proc_map_clear(&one);
	}
	free(copy);

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	err = proc_maps_parse(f, &maps, &n, &bad);
	fclose(f);
	assert(err == 0 || err == -EBADMSG || err == -ENOMEM || err < 0);
	if (!err) {
		for (size_t i = 0; i < n; i++)
			check_map(&maps[i]);
		if (n) {
			const struct proc_map *m;

			m = proc_maps_find(maps, n, maps[n / 2].start);
			assert(!m || (m >= maps && m < maps + n));
			m = proc_maps_find(maps, n, UINT64_MAX);
			assert(!m || (m >= maps && m < maps + n));
		}
		proc_maps_free(maps, n);
	} else if (err == -EBADMSG) {
		assert(bad >= 1);
	}
	return 0;
}
