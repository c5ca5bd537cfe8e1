// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the CFI table generator (daemon/unwind/) on untrusted
 * bytes. An input that starts with the ELF magic is a whole module
 * (cfi_table_from_mem); any other is a bare section: byte 0 picks the arch
 * (x86-64, arm64, riscv64), byte 1's low bit .debug_frame instead of
 * .eh_frame, and the rest is the section, at vaddr 0x1000, .text at 0x2000
 * and .got at 0x8000 (so pcrel, textrel and datarel pointers all resolve).
 * Whatever is built must hold the table's promises: pcs sorted and unique,
 * no two neighbours with the same rule, NONE last, known kinds, lookups that
 * agree with the rows.
 */
#include <assert.h>
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unwind/cfi_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct cfi_table *t)
{
	assert(t->nrows >= 1 || t->stats.fdes == t->stats.fdes_empty);
	assert(t->stats.rows == t->nrows);
	assert(t->stats.bytes == (uint64_t)t->nrows * sizeof(struct fxs_cfi_row));
	for (uint32_t i = 0; i < t->nrows; i++) {
		const struct fxs_cfi_row *r = &t->rows[i];

		/* NONE and UNSUPPORTED carry no fields: nothing for the walker to misread. */
		if (FXS_CFI_RULE_KIND(r->rule) == FXS_CFI_NONE ||
		    FXS_CFI_RULE_KIND(r->rule) == FXS_CFI_UNSUPPORTED)
			assert(r->rule == FXS_CFI_RULE_KIND(r->rule));
		if (i) {
			assert(r->pc > t->rows[i - 1].pc);
			assert(r->rule != t->rows[i - 1].rule);
		}
		assert(cfi_table_lookup(t, r->pc) == r);
		if (r->pc)
			assert(cfi_table_lookup(t, r->pc - 1) == (i ? r - 1 : NULL));
	}
	if (t->nrows)
		assert(t->rows[t->nrows - 1].rule == FXS_CFI_NONE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t machines[] = {EM_X86_64, EM_AARCH64, EM_RISCV};
	struct cfi_table_opts opts = {.max_rows = 1 << 16, .max_fdes = 1 << 14};
	struct cfi_table *t = NULL;
	int err;

	if (size >= 4 && !memcmp(data, ELFMAG, SELFMAG)) {
		err = cfi_table_from_mem(data, size, &opts, &t);
	} else {
		struct cfi_section sec = {
			.vaddr = 0x1000, .text_vaddr = 0x2000, .data_vaddr = 0x8000};

		if (size < 2)
			return 0;
		sec.data = data + 2;
		sec.size = size - 2;
		sec.debug_frame = data[1] & 1;
		err = cfi_table_from_section(machines[data[0] % 3], &sec, &opts, &t);
	}
	if (err) {
		assert(!t);
		assert(err < 0 && cfi_table_strerror(err));
		return 0;
	}
	check(t);
	cfi_table_free(t);
	return 0;
}
