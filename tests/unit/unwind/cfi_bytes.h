/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * For the unwind unit tests: .eh_frame and .debug_frame bytes written by
 * hand, little-endian, one CIE or FDE at a time, so that each test says the
 * exact bytes it feeds the parser.
 */
#ifndef FXS_TESTS_UNIT_UNWIND_CFI_BYTES_H
#define FXS_TESTS_UNIT_UNWIND_CFI_BYTES_H

#include <check.h>
#include <stdint.h>
#include <string.h>

struct bytes {
	uint8_t b[1 << 16];
	size_t n;
};

static inline void put(struct bytes *w, const void *p, size_t n)
{
	ck_assert(w->n + n <= sizeof(w->b));
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static inline void put_u(struct bytes *w, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++) {
		uint8_t c = (uint8_t)(v >> (8 * i));

		put(w, &c, 1);
	}
}

static inline void put_uleb(struct bytes *w, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		if (v)
			c |= 0x80;
		put(w, &c, 1);
	} while (v);
}

static inline void put_sleb(struct bytes *w, int64_t v)
{
	for (;;) {
		uint8_t c = v & 0x7f;

		v >>= 7;
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
			put(w, &c, 1);
			return;
		}
		put(w, &(uint8_t){c | 0x80}, 1);
	}
}

/* Patch the 32-bit length of the entry that starts at start (its length field). */
static inline void end_entry(struct bytes *w, size_t start)
{
	uint32_t len = (uint32_t)(w->n - start - 4);

	/* Entries are padded to 8 bytes with DW_CFA_nop, as the linkers do. */
	while ((w->n - start) % 8) {
		put(w, &(uint8_t){0}, 1);
		len++;
	}
	memcpy(w->b + start, &len, 4);
}

/*
 * An .eh_frame CIE with augmentation "zR" (fde_enc) plus extra letters
 * (e.g. "S"), code/data alignment and RA column, then insns. Returns its
 * offset.
 */
static inline size_t eh_cie(struct bytes *w, const char *extra, uint64_t code_align,
			    int64_t data_align, uint64_t ra, uint8_t fde_enc, const uint8_t *insns,
			    size_t ninsns)
{
	size_t start = w->n;
	char aug[16];

	snprintf(aug, sizeof(aug), "zR%s", extra);
	put_u(w, 0, 4); /* length, patched */
	put_u(w, 0, 4); /* CIE id */
	put_u(w, 1, 1); /* version */
	put(w, aug, strlen(aug) + 1);
	put_uleb(w, code_align);
	put_sleb(w, data_align);
	put_u(w, ra, 1);
	put_uleb(w, 1); /* augmentation data: the R byte */
	put_u(w, fde_enc, 1);
	put(w, insns, ninsns);
	end_entry(w, start);
	return start;
}

/* An .eh_frame FDE of cie with pc_begin/range as udata4 absolute (fde_enc 0x03). */
static inline size_t eh_fde(struct bytes *w, size_t cie, uint32_t begin, uint32_t range,
			    const uint8_t *insns, size_t ninsns)
{
	size_t start = w->n;

	put_u(w, 0, 4);
	put_u(w, (uint32_t)(w->n - cie), 4); /* back to the CIE */
	put_u(w, begin, 4);
	put_u(w, range, 4);
	put_uleb(w, 0); /* no augmentation data */
	put(w, insns, ninsns);
	end_entry(w, start);
	return start;
}

#define INSNS(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

/* x86-64's usual CIE program: CFA = rsp + 8, return address at CFA - 8. */
#define X86_CIE_INSNS INSNS(0x0c, 7, 8, 0x90, 1)

#endif /* FXS_TESTS_UNIT_UNWIND_CFI_BYTES_H */
