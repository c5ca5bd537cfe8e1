/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The framing of .eh_frame and .debug_frame: CIEs and FDEs, their lengths
 * (32-bit and 64-bit), augmentations (z, R, P, L, S; "eh" of old GCC is
 * refused) and pointer encodings (absptr, udata/sdata 2/4/8, uleb128/sleb128;
 * pcrel, textrel, datarel). The CFA programs are left to cfa_program. Bytes
 * are untrusted: every read is bounded by its entry, every entry by its
 * section. Little-endian, 64-bit objects only. Pure: no libelf, no libbpf.
 */
#ifndef FXS_DAEMON_UNWIND_EH_FRAME_H
#define FXS_DAEMON_UNWIND_EH_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A section of call frame information, as loaded. */
struct cfi_section {
	const uint8_t *data;
	size_t size;
	uint64_t vaddr;	     /* of data[0]: the base of pcrel pointers */
	uint64_t text_vaddr; /* base of textrel pointers (.text), 0: none */
	uint64_t data_vaddr; /* base of datarel pointers (.got), 0: none */
	bool debug_frame;    /* .debug_frame: CIE ids and pointers differ */
	/*
	 * The ELF's entry point and the end of the executable segment that
	 * holds it (0: none): code there that no FDE covers is the process's
	 * outermost frame (cfi_table.c's end_at_entry()).
	 */
	uint64_t entry, entry_seg_end;
};

struct cfi_cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;      /* the return address column */
	uint8_t fde_enc;      /* pointer encoding of the FDEs' pc_begin (R) */
	uint8_t lsda_enc;     /* of their LSDA pointer (L) */
	bool augmented;	      /* "z": FDEs have an augmentation length */
	bool signal;	      /* "S": a signal frame */
	const uint8_t *insns; /* the initial instructions */
	size_t insns_len;
};

struct cfi_fde {
	size_t offset; /* of the FDE in its section, for messages */
	uint64_t pc_begin, pc_end;
	struct cfi_cie cie;
	const uint8_t *insns;
	size_t insns_len;
};

/*
 * The FDE at or after *pos (CIEs are skipped; 0 to start): 1 and *fde with
 * *pos past it, 0 at the end of the section (its end or a zero terminator),
 * -EBADMSG for malformed framing: a length past the section, a CIE pointer
 * that is not a CIE, an unknown augmentation or pointer encoding. The CIE is
 * re-read for each FDE (a few dozen bytes).
 */
int cfi_next_fde(const struct cfi_section *s, size_t *pos, struct cfi_fde *fde);

/*
 * Readers over [*p, end): 0 and *p advanced, or -EBADMSG past end (or a
 * LEB128 over 10 bytes or with bits beyond 64). Shared with cfa_program.
 */
int cfi_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
int cfi_read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v);
int cfi_read_u(const uint8_t **p, const uint8_t *end, unsigned size, uint64_t *v);
/*
 * A pointer in encoding enc at *p (vaddr of *p: at), applied to the
 * section's bases; indirect pointers are not followed (only their size
 * matters). -EBADMSG (*p unmoved) for an encoding we do not know or whose
 * base is missing.
 */
int cfi_read_pointer(const struct cfi_section *s, const uint8_t **p, const uint8_t *end,
		     uint8_t enc, uint64_t *v);

#endif /* FXS_DAEMON_UNWIND_EH_FRAME_H */
