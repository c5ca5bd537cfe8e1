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

#include "rotate.h"

bool rotate_due(const struct rotate_policy *p, uint64_t size, int64_t started_s, int64_t now_s)
{
	if (size >= p->max_file_size)
		return true;
	return now_s - started_s >= (int64_t)p->max_file_age_s;
}

static int cmp_age(const void *a, const void *b)
{
	const struct rotate_file *x = a, *y = b;

	if (x->partial != y->partial)
		return x->partial ? -1 : 1;
	if (x->mtime_s != y->mtime_s)
		return x->mtime_s < y->mtime_s ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t rotate_plan(const struct rotate_policy *p, struct rotate_file *files, size_t nr,
		   uint64_t reserve)
{
	uint64_t total = reserve;
	size_t i, del;

	if (!nr)
		return 0;
	qsort(files, nr, sizeof(*files), cmp_age);
	for (i = 0; i < nr; i++) {
		if (!files[i].partial)
			total += files[i].size;
	}
	for (del = 0; del < nr && files[del].partial; del++)
		;
	while (del < nr && total > p->max_total_size) {
		total -= files[del].size;
		del++;
	}
	return del;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

bool rotate_is_ours(const char *name, bool *ret_partial)
{
	size_t len = strlen(name), plen = strlen(ROTATE_PREFIX);
	bool partial = false;

	if (strncmp(name, ROTATE_PREFIX, plen))
		return false;
	if (ends_with(name, len, ROTATE_PARTIAL)) {
		partial = true;
		len -= strlen(ROTATE_PARTIAL);
	}
	if (!ends_with(name, len, ROTATE_SUFFIX) || len <= plen + strlen(ROTATE_SUFFIX))
		return false;
	/* ours are plain names: never follow anything that could be a path */
	if (strchr(name, '/'))
		return false;
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
