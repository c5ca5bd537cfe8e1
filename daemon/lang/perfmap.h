/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Perf maps (/tmp/perf-PID.map, perf's tools/perf/Documentation/
 * jit-interface.txt): one "START SIZE NAME" line per piece of JIT code, START
 * and SIZE in hex, with "0x" (the JDK) or without (Node, CPython). A capture
 * keeps only the lines that its sampled pcs fall in, and writes them into the
 * .fxt as FXT_PERFMAP_BLOB records (raw-data blobs, each under 32 KiB):
 *
 *   "pid PID\n" then one "START SIZE NAME\n" per entry, hex without "0x",
 *
 * the entries of one process, as many records as it takes, each starting
 * with its "pid" line. Pure: parsing, picking, encoding; no I/O.
 */
#ifndef FXS_DAEMON_LANG_PERFMAP_H
#define FXS_DAEMON_LANG_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FXT_PERFMAP_BLOB "fxsampler.perfmap"
/* A longer line refuses the whole map (a file made to exhaust memory, not a map). */
#define PERFMAP_MAX_LINE 8192
/* Names are kept up to this many bytes (a blob line must fit in a record). */
#define PERFMAP_MAX_NAME 1024

/* One line of a map; name points into the line, not NUL-terminated. */
struct perfmap_entry {
	uint64_t start, size;
	const char *name;
	size_t name_len;
};

/* Parse line [s, s + len) (no newline): true and *ret, or false (not a map line). */
bool perfmap_parse_line(const char *s, size_t len, struct perfmap_entry *ret);

/*
 * The entries that sampled pcs fall in, from a map read line by line: for each
 * pc, the last line that covers it (a JIT reuses its code space; the last
 * line is the code there at the end). Memory is bounded by the pcs: at most
 * one kept entry per pc.
 */
struct perfmap_kept {
	uint64_t start, size;
	char *name; /* NULL: a free slot */
	uint32_t refs;
};

struct perfmap_pick {
	const uint64_t *pcs; /* sorted, distinct: the caller's */
	size_t nr_pcs;
	uint32_t *entry_of; /* per pc: slot + 1 in kept, 0 for none */
	struct perfmap_kept *kept;
	size_t nr_kept, cap_kept;
	uint32_t *free_slots;
	size_t nr_free, cap_free;
	/* The line splitter's state. */
	char line[PERFMAP_MAX_LINE];
	size_t len;
	uint64_t lines, bad_lines;
};

/* Start picking for pcs (sorted, distinct, borrowed). 0 or -ENOMEM. */
int perfmap_pick_init(struct perfmap_pick *p, const uint64_t *pcs, size_t nr_pcs);
void perfmap_pick_free(struct perfmap_pick *p);
/* One parsed line. 0 or -ENOMEM. */
int perfmap_pick_entry(struct perfmap_pick *p, const struct perfmap_entry *e);
/*
 * The map's bytes, in any chunks: 0, -E2BIG (a line over PERFMAP_MAX_LINE:
 * stop, the map is refused), -ENOMEM. perfmap_pick_end() after the last.
 */
int perfmap_pick_feed(struct perfmap_pick *p, const char *buf, size_t n);
int perfmap_pick_end(struct perfmap_pick *p);
/* The distinct entries kept, one at a time: i from 0 while true. */
bool perfmap_pick_get(const struct perfmap_pick *p, size_t *i, const struct perfmap_kept **ret);

/*
 * A blob payload: "pid PID\n" into buf when *len is 0, then the entry line if
 * it fits in size. true: added; false: buf is full (write it, *len = 0, and
 * add again), or the line could never fit (its name is cut to fit first).
 */
bool perfmap_blob_add(char *buf, size_t size, size_t *len, uint64_t pid, uint64_t start,
		      uint64_t size_, const char *name, size_t name_len);

/* Called for each entry of a blob payload; nonzero stops. */
typedef int (*perfmap_blob_fn)(void *ctx, uint64_t pid, const struct perfmap_entry *e);
/* Parse a payload: 0, the callback's value, or -EINVAL (malformed; entries before it were given).
 */
int perfmap_blob_parse(const char *data, size_t len, perfmap_blob_fn fn, void *ctx);

#endif /* FXS_DAEMON_LANG_PERFMAP_H */
