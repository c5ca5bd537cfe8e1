// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Bench generator for report throughput (issue 5 g): writes a .fxt of N
 * samples through the FXT stream (daemon/fxt/fxt_stream.h): one process of
 * 4 threads, one module mapped, stacks of 8..40 frames drawn from a few
 * hundred call paths, 10 kHz timestamps.
 *
 *   fxtgen FILE [N [MAPS | host]]        (N defaults to 1000000)
 *
 * With MAPS (issue 40), also MAPS mmap records of one-page mappings, as a
 * program that maps and unmaps regions makes them: every other one at a
 * fresh address, the others over the one before with another module (a
 * change of what the pcs there name), the samples spread among them in time
 * and each with a frame in the newest mapping.
 *
 * "host" draws the samples as a busy host's would be (report at scale, issue
 * 39): a new process every 500 samples with 1-4 threads, stacks of 8..60
 * frames whose outer half comes from 64 call paths and whose inner frames
 * from 20,000 functions, so most stacks differ, as a C++ build's do.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt/fxt_stream.h"

static int sink(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, ctx) == len ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	static const uint8_t build_id[20] = {0xfe, 0xed};
	const uint64_t pid = 4242, base = 0x555555554000ULL;
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
	int host = argc > 3 && !strcmp(argv[3], "host");
	unsigned long maps = argc > 3 && !host ? strtoul(argv[3], NULL, 0) : 0, mapped = 0;
	const uint64_t top = 0x7f0000000000ULL, page = 4096;
	uint64_t frames[64], seed = 88172645463325252ULL;
	struct fxt_stream *s;
	FILE *f;
	int err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: fxtgen FILE [N [MAPS | host]]\n");
		return 2;
	}
	f = fopen(argv[1], "we");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	s = fxt_stream__new(sink, f, "fxsampler", 1000000000ULL);
	if (!s) {
		perror("fxt_stream__new");
		return 1;
	}
	err = fxt_stream_process(s, pid, "fxtgen-target");
	for (int t = 0; !err && t < 4; t++) {
		char name[16];

		snprintf(name, sizeof(name), "worker-%d", t);
		err = fxt_stream_thread(s, pid, pid + t, name);
	}
	if (!err)
		err = fxt_stream_module(s, 1, pid, 0, "/usr/bin/fxtgen-target", build_id,
					sizeof(build_id));
	if (!err)
		err = fxt_stream_mmap(s, 1, pid, 0, 5, base + 0x1000, 0x100000, 0x1000);
	for (uint16_t m = 1; !err && maps && m <= 2; m++)
		err = fxt_stream_module(s, 1, pid, m, m == 1 ? "/tmp/region-a" : "/tmp/region-b",
					NULL, 0);
	for (unsigned long i = 0; !err && !host && i < n; i++) {
		unsigned nr, path;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		path = seed % 300;
		nr = 8 + path % 33;
		for (unsigned k = 0; k < nr; k++)
			frames[k] = base + 0x1000 + ((path * 7919 + k * 104729) % 0xff000);
		/* the mappings due by this sample's time, then a frame in the newest */
		for (; !err && mapped < maps && mapped * n <= i * maps; mapped++) {
			uint64_t at = top - (mapped / 2 + 1) * page;

			err = fxt_stream_mmap(s, 1000 + i * 100000, pid, (uint16_t)(1 + mapped % 2), 5,
					      at, page, (mapped % 2) * page);
		}
		if (mapped)
			frames[0] = top - ((mapped - 1) / 2 + 1) * page + 16;
		err = err ? err
			  : fxt_stream_backtrace(s, 1000 + i * 100000, pid, pid + i % 4, 0, frames,
						 nr);
	}
	for (unsigned long i = 0; !err && host && i < n; i++) {
		uint64_t hpid = 10000 + (i / 500) * 8, tid;
		unsigned nr, outer, path, k;

		if (i % 500 == 0) {
			char name[16];

			snprintf(name, sizeof(name), "cc1plus-%lu", (i / 500) % 7);
			err = fxt_stream_process(s, hpid, name);
			for (unsigned t = 0; !err && t < 1 + (i / 500) % 4; t++)
				err = fxt_stream_thread(s, hpid, hpid + t, name);
			if (!err)
				err = fxt_stream_module(s, 1, hpid, 0, "/usr/bin/fxtgen-target",
							build_id, sizeof(build_id));
			if (!err)
				err = fxt_stream_mmap(s, 1, hpid, 0, 5, base + 0x1000, 0x1000000,
						      0x1000);
		}
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		nr = 8 + seed % 53;
		path = (seed >> 8) % 64;
		outer = nr / 2;
		/* Innermost first: the inner frames vary, the outer ones follow a path. */
		for (k = 0; k < nr - outer; k++)
			frames[k] = base + 0x1000 + ((seed >> (k % 40)) % 20000) * 0x200 + k;
		for (; k < nr; k++)
			frames[k] = base + 0x1000 + (path * 131 + (nr - k) * 977) % 20000 * 0x200;
		tid = hpid + (seed >> 20) % (1 + (i / 500) % 4);
		err = fxt_stream_backtrace(s, 1000 + i * 100000, hpid, tid, 0, frames, nr);
	}
	for (; !err && mapped < maps; mapped++)
		err = fxt_stream_mmap(s, 1000 + n * 100000, pid, (uint16_t)(1 + mapped % 2), 5,
				      top - (mapped / 2 + 1) * page, page, (mapped % 2) * page);
	if (!err)
		err = fxt_stream_flush(s);
	if (!err)
		err = fxt_stream_error(s);
	fxt_stream__free(s);
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "fxtgen: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
