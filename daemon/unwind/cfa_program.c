// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The DW_CFA interpreter (DWARF 5 section 6.4.2, plus the GNU and AArch64
 * extensions GCC and binutils emit).
 */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "unwind/cfa_program.h"

enum {
	DW_CFA_nop = 0x00,
	DW_CFA_set_loc = 0x01,
	DW_CFA_advance_loc1 = 0x02,
	DW_CFA_advance_loc2 = 0x03,
	DW_CFA_advance_loc4 = 0x04,
	DW_CFA_offset_extended = 0x05,
	DW_CFA_restore_extended = 0x06,
	DW_CFA_undefined = 0x07,
	DW_CFA_same_value = 0x08,
	DW_CFA_register = 0x09,
	DW_CFA_remember_state = 0x0a,
	DW_CFA_restore_state = 0x0b,
	DW_CFA_def_cfa = 0x0c,
	DW_CFA_def_cfa_register = 0x0d,
	DW_CFA_def_cfa_offset = 0x0e,
	DW_CFA_def_cfa_expression = 0x0f,
	DW_CFA_expression = 0x10,
	DW_CFA_offset_extended_sf = 0x11,
	DW_CFA_def_cfa_sf = 0x12,
	DW_CFA_def_cfa_offset_sf = 0x13,
	DW_CFA_val_offset = 0x14,
	DW_CFA_val_offset_sf = 0x15,
	DW_CFA_val_expression = 0x16,
	DW_CFA_GNU_window_save = 0x2d, /* DW_CFA_AARCH64_negate_ra_state on arm64 */
	DW_CFA_GNU_args_size = 0x2e,
	DW_CFA_GNU_negative_offset_extended = 0x2f,
	DW_CFA_advance_loc = 0x40,
	DW_CFA_offset = 0x80,
	DW_CFA_restore = 0xc0,
};

static const struct cfa_arch arches[] = {
	{.machine = EM_X86_64, .sp = 7, .fp = 6, .lr = 0xff, .name = "x86-64"},
	{.machine = EM_AARCH64, .sp = 31, .fp = 29, .lr = 30, .name = "arm64"},
	{.machine = EM_RISCV, .sp = 2, .fp = 8, .lr = 1, .name = "riscv64"},
};

/*
 * The CFA expression binutils and GCC give x86-64's lazy .plt entries:
 * rsp + 8 + ((rip & 15) >= 11 ? 8 : 0), i.e. 8 more once "push $index" (bytes
 * 6..10 of the 16-byte entry) has run.
 */
static const uint8_t plt_expr[] = {
	0x77, 0x08,	  /* DW_OP_breg7 (rsp) 8 */
	0x80, 0x00,	  /* DW_OP_breg16 (rip) 0 */
	0x3f, 0x1a,	  /* DW_OP_lit15, DW_OP_and */
	0x3b, 0x2a,	  /* DW_OP_lit11, DW_OP_ge */
	0x33, 0x24, 0x22, /* DW_OP_lit3, DW_OP_shl, DW_OP_plus */
};

const struct cfa_arch *cfa_arch_of(uint16_t machine)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].machine == machine)
			return &arches[i];
	return NULL;
}

struct interp {
	const struct cfa_arch *arch;
	const struct cfi_section *s;
	const struct cfi_fde *fde;
	struct cfa_state st, initial;
	struct cfa_state stack[CFA_MAX_STATES];
	unsigned depth;
	uint64_t loc;
	bool in_cie;
	cfa_row_fn fn;
	void *ctx;
};

/* The kept rule of DWARF column reg, or NULL for a column we drop. */
static struct cfa_reg_rule *column(struct cfa_state *st, const struct interp *in, uint64_t reg)
{
	if (reg == in->fde->cie.ra_reg)
		return &st->ra;
	if (reg == in->arch->fp)
		return &st->fp;
	if (reg == in->arch->sp)
		return &st->sp;
	return NULL;
}

static void set_rule(struct interp *in, uint64_t reg, uint8_t how, int64_t off)
{
	struct cfa_reg_rule *r = column(&in->st, in, reg);

	if (r) {
		r->how = how;
		r->off = off;
	}
}

static void restore_rule(struct interp *in, uint64_t reg)
{
	struct cfa_reg_rule *r = column(&in->st, in, reg);

	if (r)
		*r = *column(&in->initial, in, reg);
}

/* Offsets are factored by the CIE's data alignment. */
static int factored(const struct interp *in, int64_t n, int64_t *ret)
{
	return __builtin_mul_overflow(n, in->fde->cie.data_align, ret) ? -EBADMSG : 0;
}

static int factored_u(const struct interp *in, uint64_t n, int64_t *ret)
{
	if (n > INT64_MAX)
		return -EBADMSG;
	return factored(in, (int64_t)n, ret);
}

/* Move to loc: the rules so far hold from the current loc up to it. */
static int advance_to(struct interp *in, uint64_t loc)
{
	int err;

	if (in->in_cie || loc < in->loc)
		return -EBADMSG;
	if (loc == in->loc)
		return 0;
	if (in->loc < in->fde->pc_end) {
		err = in->fn(in->ctx, in->loc, &in->st);
		if (err)
			return err;
	}
	in->loc = loc;
	return 0;
}

static int advance_by(struct interp *in, uint64_t delta)
{
	uint64_t d;

	if (__builtin_mul_overflow(delta, in->fde->cie.code_align, &d) || in->loc + d < in->loc)
		return -EBADMSG;
	return advance_to(in, in->loc + d);
}

/* Skip a DWARF expression block: ULEB length, then its bytes. */
static int read_block(const uint8_t **p, const uint8_t *end, const uint8_t **block, uint64_t *len)
{
	if (cfi_read_uleb(p, end, len) || *len > (uint64_t)(end - *p))
		return -EBADMSG;
	*block = *p;
	*p += *len;
	return 0;
}

static int def_cfa_expression(struct interp *in, const uint8_t *block, uint64_t len)
{
	in->st.cfa_kind = CFA_CFA_EXPR;
	if (in->arch->machine == EM_X86_64 && len == sizeof(plt_expr) &&
	    !memcmp(block, plt_expr, sizeof(plt_expr)))
		in->st.cfa_kind = CFA_CFA_PLT;
	return 0;
}

/* One op of the extended (low six bits zero) set at *p. */
static int extended_op(struct interp *in, uint8_t op, const uint8_t **p, const uint8_t *end)
{
	uint64_t reg, u, len;
	const uint8_t *block;
	int64_t s, off;

	switch (op) {
	case DW_CFA_nop:
		return 0;
	case DW_CFA_set_loc:
		if (cfi_read_pointer(in->s, p, end, in->fde->cie.fde_enc, &u))
			return -EBADMSG;
		return advance_to(in, u);
	case DW_CFA_advance_loc1:
	case DW_CFA_advance_loc2:
	case DW_CFA_advance_loc4:
		if (cfi_read_u(p, end,
			       op == DW_CFA_advance_loc1   ? 1
			       : op == DW_CFA_advance_loc2 ? 2
							   : 4,
			       &u))
			return -EBADMSG;
		return advance_by(in, u);
	case DW_CFA_offset_extended:
	case DW_CFA_val_offset:
		if (cfi_read_uleb(p, end, &reg) || cfi_read_uleb(p, end, &u) ||
		    factored_u(in, u, &off))
			return -EBADMSG;
		set_rule(in, reg, op == DW_CFA_val_offset ? CFA_RULE_VAL_OFFSET : CFA_RULE_OFFSET,
			 off);
		return 0;
	case DW_CFA_offset_extended_sf:
	case DW_CFA_val_offset_sf:
		if (cfi_read_uleb(p, end, &reg) || cfi_read_sleb(p, end, &s) ||
		    factored(in, s, &off))
			return -EBADMSG;
		set_rule(in, reg,
			 op == DW_CFA_val_offset_sf ? CFA_RULE_VAL_OFFSET : CFA_RULE_OFFSET, off);
		return 0;
	case DW_CFA_GNU_negative_offset_extended:
		if (cfi_read_uleb(p, end, &reg) || cfi_read_uleb(p, end, &u) ||
		    factored_u(in, u, &off) || off == INT64_MIN)
			return -EBADMSG;
		set_rule(in, reg, CFA_RULE_OFFSET, -off);
		return 0;
	case DW_CFA_restore_extended:
		if (cfi_read_uleb(p, end, &reg) || in->in_cie)
			return -EBADMSG;
		restore_rule(in, reg);
		return 0;
	case DW_CFA_undefined:
	case DW_CFA_same_value:
		if (cfi_read_uleb(p, end, &reg))
			return -EBADMSG;
		set_rule(in, reg, op == DW_CFA_undefined ? CFA_RULE_UNDEF : CFA_RULE_SAME, 0);
		return 0;
	case DW_CFA_register:
		if (cfi_read_uleb(p, end, &reg) || cfi_read_uleb(p, end, &u) || u > INT64_MAX)
			return -EBADMSG;
		set_rule(in, reg, CFA_RULE_REGISTER, (int64_t)u);
		return 0;
	case DW_CFA_remember_state:
		if (in->depth >= CFA_MAX_STATES)
			return -E2BIG;
		in->stack[in->depth++] = in->st;
		return 0;
	case DW_CFA_restore_state:
		if (!in->depth)
			return -EBADMSG;
		/* arm64's RA-signing state too, as libgcc keeps it among the registers. */
		in->st = in->stack[--in->depth];
		return 0;
	case DW_CFA_def_cfa:
		if (cfi_read_uleb(p, end, &reg) || cfi_read_uleb(p, end, &u) || u > INT64_MAX)
			return -EBADMSG;
		in->st.cfa_kind = CFA_CFA_REG;
		in->st.cfa_reg = reg;
		in->st.cfa_off = (int64_t)u;
		return 0;
	case DW_CFA_def_cfa_sf:
		if (cfi_read_uleb(p, end, &reg) || cfi_read_sleb(p, end, &s) ||
		    factored(in, s, &off))
			return -EBADMSG;
		in->st.cfa_kind = CFA_CFA_REG;
		in->st.cfa_reg = reg;
		in->st.cfa_off = off;
		return 0;
	case DW_CFA_def_cfa_register:
		if (cfi_read_uleb(p, end, &reg))
			return -EBADMSG;
		/*
		 * DWARF allows it only after a register rule; after an expression
		 * (libgcrypt's asm) libgcc and binutils take the offset from before
		 * the expression, which is still in cfa_off.
		 */
		in->st.cfa_kind = CFA_CFA_REG;
		in->st.cfa_reg = reg;
		return 0;
	case DW_CFA_def_cfa_offset:
		if (cfi_read_uleb(p, end, &u) || u > INT64_MAX || in->st.cfa_kind != CFA_CFA_REG)
			return -EBADMSG;
		in->st.cfa_off = (int64_t)u;
		return 0;
	case DW_CFA_def_cfa_offset_sf:
		if (cfi_read_sleb(p, end, &s) || factored(in, s, &off) ||
		    in->st.cfa_kind != CFA_CFA_REG)
			return -EBADMSG;
		in->st.cfa_off = off;
		return 0;
	case DW_CFA_def_cfa_expression:
		if (read_block(p, end, &block, &len))
			return -EBADMSG;
		return def_cfa_expression(in, block, len);
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		if (cfi_read_uleb(p, end, &reg) || read_block(p, end, &block, &len))
			return -EBADMSG;
		set_rule(in, reg, op == DW_CFA_expression ? CFA_RULE_EXPR : CFA_RULE_VAL_EXPR, 0);
		return 0;
	case DW_CFA_GNU_args_size:
		/* The bytes of outgoing arguments pushed: the CFA rule already counts them. */
		return cfi_read_uleb(p, end, &u) ? -EBADMSG : 0;
	case DW_CFA_GNU_window_save:
		/* Only arm64's meaning (negate_ra_state) is a thing on our arches. */
		if (in->arch->machine != EM_AARCH64)
			return -EBADMSG;
		in->st.ra_signed = !in->st.ra_signed;
		return 0;
	default:
		return -EBADMSG;
	}
}

static int run_program(struct interp *in, const uint8_t *p, size_t len)
{
	const uint8_t *end = len ? p + len : p;

	while (p < end) {
		uint8_t op = *p++, low = op & 0x3f;
		int64_t off;
		uint64_t u;
		int err;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			err = advance_by(in, low);
			break;
		case DW_CFA_offset:
			if (cfi_read_uleb(&p, end, &u) || factored_u(in, u, &off))
				return -EBADMSG;
			set_rule(in, low, CFA_RULE_OFFSET, off);
			err = 0;
			break;
		case DW_CFA_restore:
			if (in->in_cie)
				return -EBADMSG;
			restore_rule(in, low);
			err = 0;
			break;
		default:
			err = extended_op(in, op, &p, end);
			break;
		}
		if (err)
			return err;
	}
	return 0;
}

int cfa_run(const struct cfa_arch *arch, const struct cfi_section *s, const struct cfi_fde *fde,
	    cfa_row_fn fn, void *ctx)
{
	struct interp *in, local;
	int err;

	if (fde->cie.insns_len > CFA_MAX_PROGRAM ||
	    fde->insns_len > CFA_MAX_PROGRAM - fde->cie.insns_len)
		return -E2BIG;
	in = &local;
	memset(in, 0, sizeof(*in));
	in->arch = arch;
	in->s = s;
	in->fde = fde;
	in->fn = fn;
	in->ctx = ctx;
	in->loc = fde->pc_begin;
	/*
	 * Until a CIE says otherwise the CFA is register "none" + 0: riscv64's
	 * CIEs start with def_cfa_register sp alone, keeping that 0.
	 */
	in->st.cfa_kind = CFA_CFA_REG;
	in->st.cfa_reg = UINT64_MAX;
	in->in_cie = true;
	err = run_program(in, fde->cie.insns, fde->cie.insns_len);
	if (err)
		return err;
	/* remember_state in a CIE would leak into every FDE: not a thing compilers emit. */
	if (in->depth)
		return -EBADMSG;
	in->initial = in->st;
	in->in_cie = false;
	err = run_program(in, fde->insns, fde->insns_len);
	if (err)
		return err;
	if (in->loc < fde->pc_end)
		return fn(ctx, in->loc, &in->st);
	return 0;
}
