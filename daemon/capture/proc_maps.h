/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * /proc/PID/maps parser. Pure: reads from a path or a FILE * it is given, so
 * the tests feed it fixtures. Malformed input is rejected with -EBADMSG, never
 * guessed at: the capture side must not emit an mmap record from half a line.
 */
#ifndef FXS_DAEMON_PROC_MAPS_H
#define FXS_DAEMON_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One mapping, i.e. one line of the maps file. */
struct proc_map {
	uint64_t start;
	uint64_t end;	 /* exclusive */
	uint64_t offset; /* file offset of start */
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	char perms[5]; /* "r-xp": [r-][w-][x-][ps], NUL-terminated */
	bool deleted;  /* the path ended in " (deleted)", which path no longer has */
	/*
	 * Owned by the map: the pathname, "[vdso]"-style pseudo names included,
	 * or NULL for an anonymous mapping.
	 */
	char *path;
};

/*
 * Parse one line (with or without its trailing '\n') into *ret. Returns 0,
 * -EBADMSG for a malformed line (ret untouched), -ENOMEM. On success the
 * caller owns ret->path and releases it with proc_map_clear(). Logs nothing.
 * What proc_maps_parse() does for each line; public so that the fuzz target
 * (tests/fuzz/fuzz_proc_maps.c) and the unit tests feed it single lines,
 * embedded NULs and all, which a maps file cannot carry.
 */
int proc_map_parse_line(const char *line, size_t len, struct proc_map *ret);
/* Frees the path of a map filled by proc_map_parse_line(). NULL-safe. */
void proc_map_clear(struct proc_map *map);

/*
 * Parse a whole maps file. On success *ret is a calloc'ed array of *ret_n
 * maps (NULL when there are none) that the caller frees with
 * proc_maps_free(). Returns 0, -EBADMSG when any line is malformed (then
 * *ret_bad_line, if not NULL, gets its 1-based number), -ENOMEM, or the
 * -errno of a read error. Logs nothing.
 */
int proc_maps_parse(FILE *f, struct proc_map **ret, size_t *ret_n, size_t *ret_bad_line);
/* The same, from a path such as "/proc/1234/maps"; -errno when it cannot be opened. */
int proc_maps_read(const char *path, struct proc_map **ret, size_t *ret_n);
/* Frees an array returned by proc_maps_parse()/proc_maps_read(). NULL-safe. */
void proc_maps_free(struct proc_map *maps, size_t n);

/*
 * The map covering addr, or NULL. maps must be sorted by start and not
 * overlap, which the kernel guarantees for a maps file.
 */
const struct proc_map *proc_maps_find(const struct proc_map *maps, size_t n, uint64_t addr);

/* The ELF p_flags (PF_R | PF_W | PF_X) equivalent of map->perms. */
unsigned proc_map_elf_flags(const struct proc_map *map);

#endif /* FXS_DAEMON_PROC_MAPS_H */
