// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "util/io.h"

int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int pread_all(int fd, void *buf, size_t len, off_t at)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, at);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
		at += n;
	}
	return 0;
}

int read_whole(const char *path, size_t max, char **ret, size_t *ret_len)
{
	char *data = NULL, *tmp;
	size_t len = 0, cap = 0;
	gzFile gz;
	int n, err = 0;

	*ret = NULL;
	gz = gzopen(path, "rb");
	if (!gz)
		return errno ? -errno : -ENOMEM;
	for (;;) {
		/* room for a read and the NUL */
		if (cap - len <= 65536) {
			cap = cap ? cap * 2 : 1 << 16;
			tmp = realloc(data, cap);
			if (!tmp) {
				err = -ENOMEM;
				break;
			}
			data = tmp;
		}
		n = gzread(gz, data + len, 65536);
		if (n < 0) {
			err = -EIO;
			break;
		}
		if (!n)
			break;
		len += (size_t)n;
		if (max && len > max) {
			err = -EFBIG;
			break;
		}
	}
	gzclose(gz);
	if (err) {
		free(data);
		return err;
	}
	data[len] = '\0';
	*ret = data;
	*ret_len = len;
	return 0;
}
