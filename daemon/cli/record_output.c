// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/io.h"
#include "cli/record_output.h"

__attribute__((format(printf, 3, 4))) static int out_fail(char *msg, size_t len, const char *fmt,
							  ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -1;
}

int out_open(struct out_file *o, const char *path, bool compress, char *msg, size_t len)
{
	int err, fd2;

	o->gz = NULL;
	o->bytes = 0;
	o->err = 0;
	err = outfile_open(&o->f, path, OUTFILE_DASH_STDOUT | OUTFILE_NO_TTY);
	if (err == -OUTFILE_ETTY && o->f.is_stdout)
		return out_fail(msg, len,
				"refusing to write a capture to a terminal "
				"(-o - is for a pipe or a file)");
	if (err == -OUTFILE_ETTY)
		return out_fail(msg, len, "refusing to write a capture to the terminal '%s'", path);
	if (err)
		return out_fail(msg, len, "cannot write '%s': %s", path,
				outfile_strerror(&o->f, err));
	if (compress) {
		fd2 = dup(o->f.fd);
		o->gz = fd2 < 0 ? NULL : gzdopen(fd2, "wb6");
		if (!o->gz) {
			if (fd2 >= 0)
				close(fd2);
			outfile_abort(&o->f);
			return out_fail(msg, len, "cannot compress: %s", strerror(ENOMEM));
		}
	}
	return 0;
}

int out_sink(void *ctx, const void *data, size_t len)
{
	struct out_file *o = ctx;

	if (o->gz) {
		if (len && gzwrite(o->gz, data, len) != (int)len) {
			int zerr;

			gzerror(o->gz, &zerr);
			o->err = zerr == Z_ERRNO && errno ? -errno : -EIO;
			return o->err;
		}
		o->bytes += len;
		return 0;
	}
	o->err = write_all(o->f.fd, data, len);
	if (!o->err)
		o->bytes += len;
	return o->err;
}

int out_commit(struct out_file *o)
{
	if (o->gz) {
		int zerr = gzclose(o->gz);

		o->gz = NULL;
		if (zerr != Z_OK)
			return errno ? -errno : -EIO;
	}
	return outfile_commit(&o->f);
}

void out_discard(struct out_file *o)
{
	if (o->gz)
		gzclose(o->gz);
	o->gz = NULL;
	outfile_abort(&o->f);
}

const char *out_name(const struct out_file *o)
{
	return o->f.is_stdout ? "standard output" : o->f.name;
}
