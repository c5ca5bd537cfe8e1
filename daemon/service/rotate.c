// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fxt/fxt.h"
#include "util/outfile.h"
#include "service/rotate.h"

bool rotate_due(const struct rotate_policy *p, uint64_t size, uint64_t reserve, int64_t started_s,
		int64_t now_s)
{
	/* A reserve of half the file or more would make every file small: cap it there. */
	if (reserve > p->max_file_size / 2)
		reserve = p->max_file_size / 2;
	if (size + reserve >= p->max_file_size)
		return true;
	return now_s - started_s >= (int64_t)p->max_file_age_s;
}

static int cmp_age(const void *a, const void *b)
{
	const struct rotate_file *x = a, *y = b;

	if (x->mtime_s != y->mtime_s)
		return x->mtime_s < y->mtime_s ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t rotate_plan(const struct rotate_policy *p, struct rotate_file *files, size_t nr,
		   uint64_t reserve, const char *keep)
{
	uint64_t total = reserve;
	size_t i, del, end = nr;
	struct rotate_file k;

	if (!nr)
		return 0;
	qsort(files, nr, sizeof(*files), cmp_age);
	/*
	 * The file just completed goes last whatever its mtime says (a clock
	 * step, a file from the future): it is what the budget is for.
	 */
	for (i = 0; keep && i < nr; i++) {
		if (strcmp(files[i].name, keep))
			continue;
		k = files[i];
		memmove(files + i, files + i + 1, (nr - i - 1) * sizeof(*files));
		files[nr - 1] = k;
		end = nr - 1;
		break;
	}
	for (i = 0; i < nr; i++)
		total += files[i].size;
	for (del = 0; del < end && total > p->max_total_size; del++)
		total -= files[del].size;
	return del;
}

static uint64_t le_word(const uint8_t *p)
{
	uint64_t w = 0;

	for (int i = 7; i >= 0; i--)
		w = w << 8 | p[i];
	return w;
}

void rotate_salvage_scan(const void *data, uint64_t len, struct rotate_salvage *ret)
{
	const uint8_t *p = data;
	uint64_t off = 0, h, words;
	bool header = true;
	unsigned type;

	ret->keep = 0;
	ret->records = 0;
	if (len < 8 || le_word(p) != FXT_MAGIC_WORD)
		return;
	while (len - off >= 8) {
		h = le_word(p + off);
		type = h & 0xf;
		words = type == FXT_RT_LARGE ? (h >> 4) & 0xffffffff : (h >> 4) & 0xfff;
		if (!words || words > (len - off) / 8)
			break;
		off += words * 8;
		/* The header is what a stream writes first: metadata and init records. */
		if (header && (type == FXT_RT_METADATA || type == FXT_RT_INIT))
			continue;
		header = false;
		ret->records++;
	}
	ret->keep = off;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* A complete name of ours: "fxsampler-*.fxt", a plain name. */
static bool complete_ours(const char *name)
{
	size_t len = strlen(name), plen = strlen(ROTATE_PREFIX);

	if (strncmp(name, ROTATE_PREFIX, plen))
		return false;
	if (!ends_with(name, len, ROTATE_SUFFIX) || len <= plen + strlen(ROTATE_SUFFIX))
		return false;
	/* ours are plain names: never follow anything that could be a path */
	return !strchr(name, '/');
}

int rotate_complete_name(const char *partial, char *buf, size_t len)
{
	size_t n = strlen(partial), plen = strlen(ROTATE_PARTIAL);
	char done[NAME_MAX + 1];

	/* outfile's temporary name (outfile.h) */
	if (!outfile_temp_target(partial, done, sizeof(done))) {
		if (!complete_ours(done) || strlen(done) >= len)
			return -EINVAL;
		strcpy(buf, done);
		return 0;
	}
	/* the name of a daemon before continuous mode used outfile */
	if (!ends_with(partial, n, ROTATE_PARTIAL) || n - plen >= len || n - plen > NAME_MAX)
		return -EINVAL;
	memcpy(done, partial, n - plen);
	done[n - plen] = '\0';
	if (!complete_ours(done))
		return -EINVAL;
	strcpy(buf, done);
	return 0;
}

bool rotate_is_ours(const char *name, bool *ret_partial)
{
	char done[NAME_MAX + 1];
	bool partial = false;

	if (!complete_ours(name)) {
		if (rotate_complete_name(name, done, sizeof(done)))
			return false;
		partial = true;
	}
	if (ret_partial)
		*ret_partial = partial;
	return true;
}

int rotate_file_name(char *buf, size_t len, int64_t t_s, unsigned seq)
{
	time_t t = (time_t)t_s;
	struct tm tm;
	char stamp[32];
	int n;

	if (!gmtime_r(&t, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		return -EINVAL;
	n = snprintf(buf, len, ROTATE_PREFIX "%s-%04u" ROTATE_SUFFIX, stamp, seq % 10000);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int rotate_list(const char *dir, struct rotate_file **ret, size_t *ret_nr)
{
	struct rotate_file *files = NULL, *tmp;
	size_t nr = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	bool partial;
	DIR *d = NULL;
	int dfd, err;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		err = -errno;
		close(dfd);
		return err;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			err = -errno;
			break;
		}
		if (!rotate_is_ours(de->d_name, &partial) || strlen(de->d_name) > NAME_MAX)
			continue;
		/* lstat: a symlink planted here is not ours to follow or delete */
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 16;
			tmp = realloc(files, cap * sizeof(*files));
			if (!tmp) {
				err = -ENOMEM;
				break;
			}
			files = tmp;
		}
		strcpy(files[nr].name, de->d_name);
		files[nr].size = (uint64_t)st.st_size;
		files[nr].mtime_s = st.st_mtim.tv_sec;
		files[nr].partial = partial;
		nr++;
	}
	closedir(d);
	if (err) {
		free(files);
		return err;
	}
	*ret = files;
	*ret_nr = nr;
	return 0;
}
