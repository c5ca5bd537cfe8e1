// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxs-capture OUT ELF ADDR...: write a capture (FXT) of one process that
 * maps ELF (any arch) at a fixed base, one mmap per PT_LOAD, with ten samples
 * of the chain ADDR... (file vaddrs in hex, innermost first; each frame is
 * taken 4 bytes into its function). tests/cross.sh reports it with each
 * arch's cross-built fxsampler.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_symbols.h"
#include "fxt/fxt_stream.h"

#define PID  4242
#define BASE 0x7f0000000000ULL

static int sink(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, ctx) == len ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	const struct elf_segment *segs;
	struct elf_symbols *es;
	const uint8_t *id;
	uint64_t frames[32];
	struct fxt_stream *s;
	size_t n, id_len = 0;
	int nr = argc - 3, err;
	FILE *f;

	if (argc < 4 || nr > 32) {
		fprintf(stderr, "usage: fxs-capture OUT ELF ADDR... (at most 32)\n");
		return 2;
	}
	es = elf_symbols__open(argv[2], NULL);
	if (!es) {
		fprintf(stderr, "fxs-capture: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	for (int i = 0; i < nr; i++)
		frames[i] = BASE + strtoull(argv[3 + i], NULL, 16) + 4;
	f = fopen(argv[1], "we");
	if (!f) {
		fprintf(stderr, "fxs-capture: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	s = fxt_stream__new(sink, f, "fxsampler", 1000000000ULL);
	if (!s)
		return 1;
	id = elf_symbols__build_id(es, &id_len);
	err = fxt_stream_process(s, PID, "target");
	if (!err)
		err = fxt_stream_thread(s, PID, PID, "target");
	if (!err)
		err = fxt_stream_module(s, 1, PID, 0, argv[2], id, id_len);
	n = elf_symbols__segments(es, &segs);
	for (size_t i = 0; !err && i < n; i++)
		err = fxt_stream_mmap(s, 1, PID, 0, segs[i].flags, BASE + segs[i].vaddr,
				      segs[i].memsz, segs[i].vaddr);
	for (int i = 0; !err && i < 10; i++)
		err = fxt_stream_backtrace(s, 1000 + i * 1000000, PID, PID, 0, frames, nr);
	if (!err)
		err = fxt_stream_flush(s);
	if (!err)
		err = fxt_stream_error(s);
	fxt_stream__free(s);
	elf_symbols__free(es);
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "fxs-capture: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
