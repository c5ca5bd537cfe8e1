/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Continuous mode's file rotation: when to close a file and start the next,
 * and which old files to delete to stay within the disk budget. The policy is
 * pure logic on a list of files, and on the bytes of a partial file for
 * salvage; rotate_list() is the only function that touches the file system
 * (it reads a directory). Only files named by
 * rotate_file_name() are ever listed, so nothing else in the directory is
 * deleted. No logging.
 */
#ifndef FXS_DAEMON_ROTATE_H
#define FXS_DAEMON_ROTATE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROTATE_PREFIX "fxsampler-"
#define ROTATE_SUFFIX ".fxt"
/*
 * A file being written is named by util/outfile (".NAME.XXXXXX"). Daemons
 * before that named it NAME plus ROTATE_PARTIAL: such a leftover is still
 * salvaged. Complete files never carry either.
 */
#define ROTATE_PARTIAL ".part"

struct rotate_policy {
	uint64_t max_file_size;	 /* bytes */
	uint64_t max_file_age_s; /* seconds */
	uint64_t max_total_size; /* bytes, the current file included */
};

struct rotate_file {
	char name[NAME_MAX + 1];
	uint64_t size;
	int64_t mtime_s;
	bool partial; /* being written, or a leftover of a crash or kill */
};

/*
 * Whether the current file must be closed: it holds size bytes, reserve more
 * may come before it can close (the next drain and the records that finish
 * it; capped at half of max_file_size), and it was started at started_s;
 * now_s is the current time (a monotonic clock is best, so that wall-clock
 * steps do not rotate).
 */
bool rotate_due(const struct rotate_policy *p, uint64_t size, uint64_t reserve, int64_t started_s,
		int64_t now_s);

/*
 * Sort files oldest first (mtime, then name) and return how many of the first
 * ones to delete so that the rest, plus reserve bytes for the file about to be
 * written, fit in max_total_size. The file named keep (the one just completed;
 * NULL for none) is never deleted: it is sorted last, after the newest. Files
 * left partial count like the others. Never fails; returns 0..nr.
 */
size_t rotate_plan(const struct rotate_policy *p, struct rotate_file *files, size_t nr,
		   uint64_t reserve, const char *keep);

/* What a partial file holds, from rotate_salvage_scan(). */
struct rotate_salvage {
	uint64_t keep;	  /* bytes of whole records from the start: cut the file there */
	uint64_t records; /* whole records after the header (magic, provider, init) */
};

/*
 * Scan the first len bytes of a partial FXT file by its record headers' sizes
 * (a large record's 32-bit size too) up to the last whole record. A file that
 * does not start with the magic record keeps nothing; a header of size 0
 * (zeros a crash left) ends the scan. Pure.
 */
void rotate_salvage_scan(const void *data, uint64_t len, struct rotate_salvage *ret);

/*
 * The complete name of a partial file (outfile's temporary name of a complete
 * name of ours, or one with ROTATE_PARTIAL): 0, or -EINVAL (not a partial
 * name of ours, or buf too short).
 */
int rotate_complete_name(const char *partial, char *buf, size_t len);

/* Whether name is one of ours: complete ("fxsampler-*.fxt") or partial. */
bool rotate_is_ours(const char *name, bool *ret_partial);

/*
 * The name of a new file started at wall time t_s (UTC), with seq to keep
 * names unique within a second: "fxsampler-20250520T120000Z-0001.fxt". It is
 * written under outfile's temporary name for it. 0 or -ENAMETOOLONG.
 */
int rotate_file_name(char *buf, size_t len, int64_t t_s, unsigned seq);

/*
 * The files of ours in dir (regular files only): 0 and a malloc'ed array the
 * caller frees, or -errno.
 */
int rotate_list(const char *dir, struct rotate_file **ret, size_t *ret_nr);

#endif /* FXS_DAEMON_ROTATE_H */
