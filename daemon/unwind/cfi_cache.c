// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* CFI tables kept on disk between captures (unwind/cfi_cache.h). */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "util/io.h"
#include "unwind/cfi_cache.h"

#define MAGIC	"FXSCFI\0"
#define STALE_S 600 /* a temporary file older is no writer's */

/* What a file holds before its rows: the module file's identity and the format's. */
struct head {
	char magic[8];
	uint32_t version, row_size;
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
	/* the module's ctime when it has no build id, else 0 */
	int64_t ctime_sec, ctime_nsec;
	uint32_t build_id_len, n, crc, zero;
	uint8_t build_id[CFI_CACHE_BUILD_ID_MAX];
};
/* compared with memcmp(): no padding */
_Static_assert(sizeof(struct head) == 88 + CFI_CACHE_BUILD_ID_MAX, "struct head has padding");

static struct head head_of(const struct cfi_cache_key *key, uint32_t n, uint32_t crc)
{
	const struct stat *st = &key->st;
	bool by_id = key->build_id_len && key->build_id_len <= CFI_CACHE_BUILD_ID_MAX;
	struct head h = {
		.version = CFI_CACHE_VERSION,
		.row_size = sizeof(struct fxs_cfi_row),
		.dev = (uint64_t)st->st_dev,
		.ino = (uint64_t)st->st_ino,
		.size = (uint64_t)st->st_size,
		.mtime_sec = (int64_t)st->st_mtim.tv_sec,
		.mtime_nsec = (int64_t)st->st_mtim.tv_nsec,
		.ctime_sec = by_id ? 0 : (int64_t)st->st_ctim.tv_sec,
		.ctime_nsec = by_id ? 0 : (int64_t)st->st_ctim.tv_nsec,
		.build_id_len = by_id ? key->build_id_len : 0,
		.n = n,
		.crc = crc,
	};

	memcpy(h.magic, MAGIC, sizeof(h.magic));
	if (by_id)
		memcpy(h.build_id, key->build_id, key->build_id_len);
	return h;
}

/* One name per module file: written again, its rows take its old ones' place. */
static void name_of(const struct stat *st, char *buf, size_t len)
{
	snprintf(buf, len, "%llx-%llx-%llx-%llx.%lx.rows", (unsigned long long)st->st_dev,
		 (unsigned long long)st->st_ino, (unsigned long long)st->st_size,
		 (unsigned long long)st->st_mtim.tv_sec, (unsigned long)st->st_mtim.tv_nsec);
}

static uint32_t crc_of(const struct fxs_cfi_row *rows, uint32_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	const Bytef *p = (const Bytef *)rows;
	size_t left = (size_t)n * sizeof(*rows);

	/* zlib takes at most a uInt at once */
	while (left) {
		uInt chunk = left > (1U << 30) ? 1U << 30 : (uInt)left;

		crc = crc32(crc, p, chunk);
		p += chunk;
		left -= chunk;
	}
	return (uint32_t)crc;
}

static bool ours_alone(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int cfi_cache_open(const char *dir)
{
	char parent[4096];
	char *slash;
	struct stat st;
	int fd;

	if (snprintf(parent, sizeof(parent), "%s", dir) >= (int)sizeof(parent))
		return -ENAMETOOLONG;
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if (mkdir(parent, 0755) && errno != EEXIST)
			return -errno;
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
	if (fstat(fd, &st) || !ours_alone(&st)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int cfi_cache_get(int dirfd, const struct cfi_cache_key *key, struct fxs_cfi_row **ret_rows,
		  uint32_t *ret_n)
{
	struct fxs_cfi_row *rows = NULL;
	struct head h, want;
	struct stat fst;
	char name[160];
	int fd, err = -ENOENT;

	name_of(&key->st, name, sizeof(name));
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &fst) || !S_ISREG(fst.st_mode) || !ours_alone(&fst) ||
	    pread_all(fd, &h, sizeof(h), 0))
		goto out;
	want = head_of(key, h.n, h.crc);
	if (memcmp(&h, &want, sizeof(h)) ||
	    (uint64_t)fst.st_size != sizeof(h) + (uint64_t)h.n * sizeof(*rows) || !h.n)
		goto out;
	rows = malloc((size_t)h.n * sizeof(*rows));
	if (!rows) {
		err = -ENOMEM;
		goto out;
	}
	if (pread_all(fd, rows, (size_t)h.n * sizeof(*rows), sizeof(h)) ||
	    crc_of(rows, h.n) != h.crc)
		goto out;
	/* used now: the last the cap removes */
	futimens(fd, NULL);
	*ret_rows = rows;
	*ret_n = h.n;
	rows = NULL;
	err = 0;
out:
	free(rows);
	close(fd);
	return err;
}

struct kept {
	char name[160];
	struct timespec used;
	uint64_t bytes;
};

static int by_use(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
}

/* The least recently used files go until what is left is at most cap bytes. */
static int trim(int dirfd, uint64_t cap)
{
	struct kept *v = NULL;
	size_t nr = 0, alloc = 0;
	uint64_t total = 0;
	struct dirent *de;
	/* a descriptor of its own: a dup's offset would be shared by the workers' trims */
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct stat st;

		if (len >= sizeof(v->name) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		/* a file a capture that ended mid-write left */
		if (strstr(de->d_name, ".tmp.") && st.st_mtim.tv_sec + STALE_S < time(NULL)) {
			unlinkat(dirfd, de->d_name, 0);
			continue;
		}
		if (len < 6 || strcmp(de->d_name + len - 5, ".rows"))
			continue;
		if (nr == alloc) {
			struct kept *nv = realloc(v, (alloc ? alloc * 2 : 64) * sizeof(*v));

			if (!nv) {
				err = -ENOMEM;
				break;
			}
			v = nv;
			alloc = alloc ? alloc * 2 : 64;
		}
		memcpy(v[nr].name, de->d_name, len + 1);
		v[nr].used = st.st_mtim;
		v[nr].bytes = (uint64_t)st.st_size;
		total += v[nr++].bytes;
	}
	closedir(d);
	if (!err && total > cap) {
		qsort(v, nr, sizeof(*v), by_use);
		for (size_t i = 0; i < nr && total > cap; i++)
			if (!unlinkat(dirfd, v[i].name, 0) || errno == ENOENT)
				total -= v[i].bytes;
	}
	free(v);
	return err;
}

int cfi_cache_put(int dirfd, const struct cfi_cache_key *key, const struct fxs_cfi_row *rows,
		  uint32_t n, uint64_t cap)
{
	struct head h = head_of(key, n, crc_of(rows, n));
	char name[160], tmp[192];
	int fd, err;

	if (!n || sizeof(h) + (uint64_t)n * sizeof(*rows) > cap)
		return -E2BIG;
	name_of(&key->st, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", name, (long)gettid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = write_all(fd, &h, sizeof(h));
	if (!err)
		err = write_all(fd, rows, (size_t)n * sizeof(*rows));
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, name))
		err = -errno;
	if (err) {
		unlinkat(dirfd, tmp, 0);
		return err;
	}
	return trim(dirfd, cap);
}
