// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * .eh_frame and .debug_frame framing: entries, CIEs, FDEs, pointers. The
 * formats: the LSB's "Exception Frames" (.eh_frame) and DWARF 4 section 6.4
 * (.debug_frame, CIE versions 1, 3 and 4).
 */
#include <errno.h>
#include <string.h>

#include "unwind/eh_frame.h"

/* DW_EH_PE_*: the pointer encodings of .eh_frame. */
#define PE_ABSPTR   0x00
#define PE_ULEB128  0x01
#define PE_UDATA2   0x02
#define PE_UDATA4   0x03
#define PE_UDATA8   0x04
#define PE_SLEB128  0x09
#define PE_SDATA2   0x0a
#define PE_SDATA4   0x0b
#define PE_SDATA8   0x0c
#define PE_PCREL    0x10
#define PE_TEXTREL  0x20
#define PE_DATAREL  0x30
#define PE_INDIRECT 0x80
#define PE_OMIT	    0xff

int cfi_read_u(const uint8_t **p, const uint8_t *end, unsigned size, uint64_t *v)
{
	uint64_t x = 0;

	if (size > 8 || (size_t)(end - *p) < size)
		return -EBADMSG;
	for (unsigned i = 0; i < size; i++)
		x |= (uint64_t)(*p)[i] << (8 * i);
	*p += size;
	*v = x;
	return 0;
}

int cfi_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t b;

		if (q >= end || shift > 63)
			return -EBADMSG;
		b = *q++;
		/* Bits that would fall off the 64th are malformed, not truncated. */
		if (shift == 63 && (b & 0x7e))
			return -EBADMSG;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	*p = q;
	*v = x;
	return 0;
}

int cfi_read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;
	unsigned shift = 0;
	uint8_t b;

	for (;;) {
		if (q >= end || shift > 63)
			return -EBADMSG;
		b = *q++;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		x |= ~0ULL << shift;
	*p = q;
	*v = (int64_t)x;
	return 0;
}

/* The value of the format (low nibble) of enc, sign-extended for sdata. */
static int read_format(const uint8_t **p, const uint8_t *end, uint8_t fmt, uint64_t *v)
{
	int64_t s;
	int err;

	switch (fmt) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		return cfi_read_u(p, end, 8, v);
	case PE_ULEB128:
		return cfi_read_uleb(p, end, v);
	case PE_SLEB128:
		err = cfi_read_sleb(p, end, &s);
		*v = (uint64_t)s;
		return err;
	case PE_UDATA2:
		return cfi_read_u(p, end, 2, v);
	case PE_UDATA4:
		return cfi_read_u(p, end, 4, v);
	case PE_SDATA2:
		err = cfi_read_u(p, end, 2, v);
		*v = (uint64_t)(int64_t)(int16_t)*v;
		return err;
	case PE_SDATA4:
		err = cfi_read_u(p, end, 4, v);
		*v = (uint64_t)(int64_t)(int32_t)*v;
		return err;
	default:
		return -EBADMSG;
	}
}

int cfi_read_pointer(const struct cfi_section *s, const uint8_t **p, const uint8_t *end,
		     uint8_t enc, uint64_t *v)
{
	uint64_t at = s->vaddr + (uint64_t)(*p - s->data), base;
	const uint8_t *q = *p;

	if (enc == PE_OMIT || read_format(&q, end, enc & 0x0f, v))
		return -EBADMSG;
	switch (enc & 0x70) {
	case 0:
		base = 0;
		break;
	case PE_PCREL:
		base = at;
		break;
	case PE_TEXTREL:
		if (!s->text_vaddr)
			return -EBADMSG;
		base = s->text_vaddr;
		break;
	case PE_DATAREL:
		if (!s->data_vaddr)
			return -EBADMSG;
		base = s->data_vaddr;
		break;
	default: /* funcrel, aligned: never in the FDEs' pc_begin of a linked object */
		return -EBADMSG;
	}
	/* Wraps as the target's address arithmetic does. */
	*v += base;
	*p = q;
	return 0;
}

/*
 * The entry at pos: its id field's position, the id and the end of the
 * entry. 0, 1 at the end (a zero terminator or the section's end), -EBADMSG.
 */
static int read_entry(const struct cfi_section *s, size_t pos, const uint8_t **id_at, uint64_t *id,
		      bool *is64, const uint8_t **entry_end)
{
	const uint8_t *p = s->data + pos, *end = s->data + s->size;
	uint64_t len;

	if (pos >= s->size)
		return 1;
	if (cfi_read_u(&p, end, 4, &len))
		return -EBADMSG;
	if (len == 0)
		return 1;
	*is64 = len == 0xffffffffu;
	if (*is64 && cfi_read_u(&p, end, 8, &len))
		return -EBADMSG;
	if (len > (uint64_t)(end - p))
		return -EBADMSG;
	*entry_end = p + len;
	*id_at = p;
	return cfi_read_u(&p, *entry_end, *is64 ? 8 : 4, id);
}

static bool is_cie_id(const struct cfi_section *s, uint64_t id, bool is64)
{
	if (!s->debug_frame)
		return id == 0;
	return is64 ? id == UINT64_MAX : id == 0xffffffffu;
}

/* The augmentation data of a "z" CIE: what each letter says, in order. */
static int read_augmentation(const struct cfi_section *s, const char *aug, const uint8_t *p,
			     const uint8_t *end, struct cfi_cie *cie)
{
	uint64_t v;

	for (const char *a = aug + 1; *a; a++) {
		uint64_t enc;

		switch (*a) {
		case 'R':
			if (cfi_read_u(&p, end, 1, &enc))
				return -EBADMSG;
			cie->fde_enc = (uint8_t)enc;
			break;
		case 'L':
			if (cfi_read_u(&p, end, 1, &enc))
				return -EBADMSG;
			cie->lsda_enc = (uint8_t)enc;
			break;
		case 'P':
			if (cfi_read_u(&p, end, 1, &enc))
				return -EBADMSG;
			/* The personality routine: only its size matters here. */
			if (enc != PE_OMIT &&
			    cfi_read_pointer(s, &p, end, (uint8_t)enc & ~PE_INDIRECT, &v))
				return -EBADMSG;
			break;
		case 'S':
			cie->signal = true;
			break;
		case 'B': /* arm64: return addresses signed with the B key */
		case 'G': /* arm64: MTE-tagged stack frames */
			break;
		default:
			return -EBADMSG;
		}
	}
	return 0;
}

static int read_cie(const struct cfi_section *s, size_t pos, struct cfi_cie *cie)
{
	const uint8_t *p, *end, *id_at;
	uint64_t id, version, v, auglen;
	const char *aug;
	bool is64;
	size_t n;
	int err;

	err = read_entry(s, pos, &id_at, &id, &is64, &end);
	if (err)
		return -EBADMSG; /* a CIE pointer to the terminator or past the end */
	if (!is_cie_id(s, id, is64))
		return -EBADMSG;
	p = id_at + (is64 ? 8 : 4);
	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = PE_ABSPTR;
	cie->lsda_enc = PE_OMIT;
	if (cfi_read_u(&p, end, 1, &version))
		return -EBADMSG;
	if (version != 1 && version != 3 && !(s->debug_frame && version == 4))
		return -EBADMSG;
	aug = (const char *)p;
	n = strnlen(aug, (size_t)(end - p));
	if (n == (size_t)(end - p))
		return -EBADMSG;
	p += n + 1;
	if (aug[0] && aug[0] != 'z')
		return -EBADMSG; /* "eh" and other pre-"z" forms: layout unknown */
	cie->augmented = aug[0] == 'z';
	if (version == 4) {
		uint64_t addr_size, seg_size;

		if (cfi_read_u(&p, end, 1, &addr_size) || cfi_read_u(&p, end, 1, &seg_size) ||
		    addr_size != 8 || seg_size != 0)
			return -EBADMSG;
	}
	if (cfi_read_uleb(&p, end, &cie->code_align) || cfi_read_sleb(&p, end, &cie->data_align))
		return -EBADMSG;
	if (version == 1) {
		if (cfi_read_u(&p, end, 1, &v))
			return -EBADMSG;
	} else if (cfi_read_uleb(&p, end, &v)) {
		return -EBADMSG;
	}
	cie->ra_reg = v;
	if (cie->augmented) {
		if (cfi_read_uleb(&p, end, &auglen) || auglen > (uint64_t)(end - p))
			return -EBADMSG;
		if (read_augmentation(s, aug, p, p + auglen, cie))
			return -EBADMSG;
		p += auglen;
	}
	cie->insns = p;
	cie->insns_len = (size_t)(end - p);
	return 0;
}

int cfi_next_fde(const struct cfi_section *s, size_t *pos, struct cfi_fde *fde)
{
	for (;;) {
		const uint8_t *p, *end, *id_at;
		uint64_t id, cie_pos, range, v;
		bool is64;
		int err;

		err = read_entry(s, *pos, &id_at, &id, &is64, &end);
		if (err)
			return err < 0 ? err : 0;
		if (is_cie_id(s, id, is64)) {
			*pos = (size_t)(end - s->data);
			continue;
		}
		if (s->debug_frame) {
			cie_pos = id;
		} else {
			/* The id of an .eh_frame FDE is the distance back to its CIE. */
			if (id > (uint64_t)(id_at - s->data))
				return -EBADMSG;
			cie_pos = (uint64_t)(id_at - s->data) - id;
		}
		if (cie_pos >= s->size)
			return -EBADMSG;
		memset(fde, 0, sizeof(*fde));
		fde->offset = *pos;
		err = read_cie(s, (size_t)cie_pos, &fde->cie);
		if (err)
			return err;
		p = id_at + (is64 ? 8 : 4);
		if (cfi_read_pointer(s, &p, end, fde->cie.fde_enc, &fde->pc_begin) ||
		    read_format(&p, end, fde->cie.fde_enc & 0x0f, &range))
			return -EBADMSG;
		if (fde->pc_begin + range < fde->pc_begin)
			return -EBADMSG;
		fde->pc_end = fde->pc_begin + range;
		if (fde->cie.augmented) {
			if (cfi_read_uleb(&p, end, &v) || v > (uint64_t)(end - p))
				return -EBADMSG;
			p += v;
		}
		fde->insns = p;
		fde->insns_len = (size_t)(end - p);
		*pos = (size_t)(end - s->data);
		return 1;
	}
}
