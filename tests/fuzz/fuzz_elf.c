// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the ELF symbol and build-id readers on an untrusted
 * image (the [vdso] of a process, or any file a profile names). Opens it,
 * looks up addresses in and around every segment and symbol, converts file
 * offsets, and reads its build id. No separate debug file is searched:
 * the target must not depend on the machine's /usr/lib/debug.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "symbols/elf_symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lookup(const struct elf_symbols *es, uint64_t addr)
{
	uint64_t off = 0, start = 0, len = 0;
	const char *name = elf_symbols__lookup(es, addr, &off);

	if (name) {
		(void)strlen(name);
		assert(elf_symbols__lookup_addr(es, addr, &start, &len) == 0);
		assert(addr - start == off);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct elf_symbols_opts opts = {.no_debug_file = true};
	const struct elf_segment *segs;
	struct elf_symbols *es;
	size_t nsegs, idlen;
	const uint8_t *bid;
	char hex[2 * ELF_BUILD_ID_MAX + 1];

	es = elf_symbols__open_mem(data, size, "fuzz", &opts);
	if (!es)
		return 0;
	bid = elf_symbols__build_id(es, &idlen);
	if (bid) {
		assert(idlen > 0 && idlen <= ELF_BUILD_ID_MAX);
		elf_build_id_hex(bid, idlen, hex, sizeof(hex));
	}
	(void)elf_symbols__count(es);
	nsegs = elf_symbols__segments(es, &segs);
	for (size_t i = 0; i < nsegs && i < 64; i++) {
		uint64_t vaddr;

		lookup(es, segs[i].vaddr);
		lookup(es, segs[i].vaddr + segs[i].memsz / 2);
		lookup(es, segs[i].vaddr + segs[i].memsz);
		lookup(es, segs[i].vaddr - 1);
		(void)elf_symbols__offset_to_vaddr(es, segs[i].offset & ~4095ull, segs[i].flags,
						   &vaddr);
		(void)elf_symbols__offset_to_vaddr(es, segs[i].offset, 0, &vaddr);
	}
	lookup(es, 0);
	lookup(es, UINT64_MAX);
	/* A few addresses taken from the input itself. */
	for (size_t off = 0; off + 8 <= size && off < 256; off += 64) {
		uint64_t a;

		memcpy(&a, data + off, 8);
		lookup(es, a);
	}
	elf_symbols__free(es);
	return 0;
}
