// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A module's rows for the CFI walker: FDEs found and sorted, each FDE's CFA
 * program turned into rules, gaps filled with NONE, equal neighbours merged.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbols/elf_file.h"
#include "unwind/cfa_program.h"
#include "unwind/cfi_table.h"
#include "unwind/eh_frame.h"
#include "util/clock.h"
#include "util/safe_open.h"

/* Where an FDE is and what it covers, for sorting before its program runs. */
struct fde_ref {
	uint64_t begin, end;
	size_t pos;
};

struct builder {
	const struct cfa_arch *arch;
	const struct cfi_section *sec;
	const struct cfi_fde *fde; /* the FDE whose program runs */
	struct fxs_cfi_row *rows;
	uint32_t nrows, cap, max_rows;
	struct cfi_table_stats *stats;
	bool fde_fp; /* the running FDE has an fp-based CFA at some pc */
	int fatal;   /* an error of ours (row cap, memory) inside cfa_run's callback */
};

static int cmp_ref(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

/*
 * off + from as a signed count of 8-byte words that fits a rule's 8 bits,
 * not 0 (0 says "not saved").
 */
static bool word8(int64_t off, int64_t from, uint32_t *ret)
{
	if (__builtin_add_overflow(off, from, &off))
		return false;
	if (off % 8 || off == 0 || off < -128 * 8 || off > 127 * 8)
		return false;
	*ret = (uint8_t)(int8_t)(off / 8);
	return true;
}

/* Whether the saved RA and FP, counted from CFA - from, fit a rule. */
static bool saves_fit(const struct cfa_state *st, int64_t from)
{
	uint32_t w;

	return (st->ra.how != CFA_RULE_OFFSET || word8(st->ra.off, from, &w)) &&
	       (st->fp.how != CFA_RULE_OFFSET || word8(st->fp.off, from, &w));
}

static uint32_t make_rule(uint32_t kind, uint32_t cfa_words, uint32_t ra, uint32_t fp)
{
	return kind | cfa_words << FXS_CFI_CFA_SHIFT | ra << FXS_CFI_RA_SHIFT |
	       fp << FXS_CFI_FP_SHIFT;
}

/*
 * The rule for a state, exactly or not at all. A signal frame and an
 * undefined return address win over everything else: the walker stops there
 * either way, with a different reason. Their other fields are filled when
 * they fit, for the curious reader.
 */
static uint32_t rule_of(const struct cfa_arch *a, const struct cfi_cie *cie,
			const struct cfa_state *st)
{
	uint32_t kind = FXS_CFI_UNSUPPORTED, cfa = 0, ra = 0, fp = 0;
	int64_t from = 0; /* the saves are counted from CFA - from */
	uint32_t low_fp = 0;
	bool ok = true;

	if (st->cfa_kind == CFA_CFA_PLT) {
		/* rsp + 8 (+ 8 past the push, the walker's part), RA at CFA - 8, fp unchanged. */
		kind = FXS_CFI_PLT;
		cfa = 1;
		ra = (uint8_t)-1;
		if (st->ra.how != CFA_RULE_OFFSET || st->ra.off != -8 ||
		    st->fp.how != CFA_RULE_SAME)
			ok = false;
	} else if (st->cfa_kind == CFA_CFA_REG && (st->cfa_reg == a->sp || st->cfa_reg == a->fp) &&
		   st->cfa_off >= 0 && st->cfa_off % 8 == 0 && st->cfa_off / 8 <= FXS_CFI_CFA_MAX) {
		kind = st->cfa_reg == a->sp ? FXS_CFI_SP : FXS_CFI_FP;
		cfa = (uint32_t)(st->cfa_off / 8);
	} else {
		ok = false;
	}
	/*
	 * Saves too far below the CFA: counted from the base register - 8
	 * (arm64's frame record at the bottom of a large frame: x29 at [base]
	 * is 1, x30 at [base + 8] is 2; 0 still says "not saved").
	 */
	if ((kind == FXS_CFI_SP || kind == FXS_CFI_FP) && !saves_fit(st, 0) &&
	    saves_fit(st, st->cfa_off + 8)) {
		if (cfa > FXS_CFI_LOW_CFA_MAX)
			ok = false; /* its bit 15 says the base */
		low_fp = kind == FXS_CFI_FP ? FXS_CFI_LOW_FP : 0;
		kind = FXS_CFI_LOW;
		from = st->cfa_off + 8;
	}
	switch (st->ra.how) {
	case CFA_RULE_OFFSET:
		ok = ok && word8(st->ra.off, from, &ra);
		break;
	case CFA_RULE_SAME:
		/* Still in the link register: only where the arch has one and the CIE names it. */
		ok = ok && a->lr != 0xff && cie->ra_reg == a->lr;
		break;
	case CFA_RULE_UNDEF:
		break;
	default:
		ok = false;
	}
	switch (st->fp.how) {
	case CFA_RULE_OFFSET:
		ok = ok && word8(st->fp.off, from, &fp);
		break;
	case CFA_RULE_SAME:
		break;
	default:
		ok = false;
	}
	/* The walker takes the caller's sp to be the CFA. */
	if (st->sp.how != CFA_RULE_SAME && !(st->sp.how == CFA_RULE_VAL_OFFSET && st->sp.off == 0))
		ok = false;
	/* END and SIGNAL rows keep their fields only when counted from the CFA. */
	if (!ok || ((cie->signal || st->ra.how == CFA_RULE_UNDEF) && from))
		cfa = ra = fp = 0;
	if (cie->signal)
		return make_rule(FXS_CFI_SIGNAL, cfa, ra, fp);
	if (st->ra.how == CFA_RULE_UNDEF)
		return make_rule(FXS_CFI_END, cfa, 0, fp);
	return ok ? make_rule(kind, cfa, ra, fp) | low_fp : FXS_CFI_UNSUPPORTED;
}

/* Append a row, merged with the last when their rules are equal. */
static int add_row(struct builder *b, uint64_t pc, uint32_t rule)
{
	struct fxs_cfi_row *last = b->nrows ? &b->rows[b->nrows - 1] : NULL;

	b->stats->rows_unmerged++;
	if (last && last->pc == pc) {
		/* A later rule at the same pc wins (a NONE gap of zero width). */
		last->rule = rule;
		if (b->nrows > 1 && b->rows[b->nrows - 2].rule == rule)
			b->nrows--;
		return 0;
	}
	if (last && last->rule == rule)
		return 0;
	if (b->nrows == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 1024;
		struct fxs_cfi_row *tmp;

		if (b->nrows >= b->max_rows)
			return -E2BIG;
		if (cap > b->max_rows)
			cap = b->max_rows;
		tmp = realloc(b->rows, (size_t)cap * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		b->rows = tmp;
		b->cap = cap;
	}
	b->rows[b->nrows].pc = (uint32_t)pc;
	b->rows[b->nrows].rule = rule;
	b->nrows++;
	return 0;
}

static int on_row(void *ctx, uint64_t pc, const struct cfa_state *st)
{
	struct builder *b = ctx;
	uint32_t rule = rule_of(b->arch, &b->fde->cie, st);

	if (st->cfa_kind == CFA_CFA_REG && st->cfa_reg == b->arch->fp)
		b->fde_fp = true;
	b->fatal = add_row(b, pc, rule);
	return b->fatal;
}

/* One FDE's rows; a program we cannot read makes its whole range UNSUPPORTED. */
static int fde_rows(struct builder *b, const struct fde_ref *ref)
{
	uint32_t mark = b->nrows, mark_unmerged = b->stats->rows_unmerged;
	struct fxs_cfi_row saved = mark ? b->rows[mark - 1] : (struct fxs_cfi_row){0};
	struct cfi_fde fde;
	size_t pos = ref->pos;
	int err;

	err = cfi_next_fde(b->sec, &pos, &fde);
	if (err != 1)
		return err < 0 ? err : -EBADMSG; /* it was read before: cannot happen */
	b->fde = &fde;
	b->fde_fp = false;
	b->fatal = 0;
	err = cfa_run(b->arch, b->sec, &fde, on_row, b);
	if (b->fatal)
		return b->fatal;
	if (err) {
		/* Forget this FDE's rows, the merge into the row before included. */
		b->nrows = mark;
		if (mark)
			b->rows[mark - 1] = saved;
		b->stats->rows_unmerged = mark_unmerged;
		b->stats->fdes_bad++;
		return add_row(b, ref->begin, FXS_CFI_UNSUPPORTED);
	}
	if (b->fde_fp)
		b->stats->fdes_fp++;
	return 0;
}

/* Every FDE of the section, checked, with its range. */
static int collect_fdes(const struct cfi_section *sec, uint32_t max_fdes,
			struct cfi_table_stats *stats, struct fde_ref **ret, size_t *ret_n)
{
	struct fde_ref *refs = NULL, *tmp;
	size_t n = 0, cap = 0, pos = 0, at;
	struct cfi_fde fde;
	int err;

	for (;;) {
		at = pos;
		err = cfi_next_fde(sec, &pos, &fde);
		if (err <= 0)
			break;
		if (++stats->fdes > max_fdes) {
			err = -E2BIG;
			break;
		}
		/*
		 * Empty ones cover nothing. In .debug_frame, FDEs of functions
		 * the linker discarded keep pc_begin 0.
		 */
		if (fde.pc_end == fde.pc_begin || (sec->debug_frame && fde.pc_begin == 0)) {
			stats->fdes_empty++;
			continue;
		}
		if (fde.pc_end > UINT32_MAX) {
			err = -ERANGE;
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			tmp = realloc(refs, cap * sizeof(*refs));
			if (!tmp) {
				err = -ENOMEM;
				break;
			}
			refs = tmp;
		}
		refs[n++] = (struct fde_ref){.begin = fde.pc_begin, .end = fde.pc_end, .pos = at};
	}
	if (err < 0) {
		free(refs);
		return err;
	}
	if (n)
		qsort(refs, n, sizeof(*refs), cmp_ref);
	*ret = refs;
	*ret_n = n;
	return 0;
}

static int build_rows(struct builder *b, const struct fde_ref *refs, size_t n)
{
	uint64_t cursor = 0;
	size_t i = 0;
	int err;

	while (i < n) {
		uint64_t gend = refs[i].end;
		size_t j = i + 1;

		/* A run of FDEs that overlap: none of them can be trusted over the others. */
		while (j < n && refs[j].begin < gend) {
			if (refs[j].end > gend)
				gend = refs[j].end;
			j++;
		}
		if (i && refs[i].begin > cursor) {
			err = add_row(b, cursor, FXS_CFI_NONE);
			if (err)
				return err;
		}
		if (j - i > 1) {
			b->stats->fdes_overlap += (uint32_t)(j - i);
			err = add_row(b, refs[i].begin, FXS_CFI_UNSUPPORTED);
		} else {
			err = fde_rows(b, &refs[i]);
		}
		if (err)
			return err;
		for (size_t k = i; k < j; k++)
			b->stats->text_bytes += refs[k].end - refs[k].begin;
		cursor = gend;
		i = j;
	}
	if (n)
		return add_row(b, cursor, FXS_CFI_NONE);
	return 0;
}

/* Rows that repeat the rule of the row before them go (the fuzzer's invariant). */
static void merge_repeated_rules(struct builder *b)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < b->nrows; i++)
		if (!n || b->rows[i].rule != b->rows[n - 1].rule)
			b->rows[n++] = b->rows[i];
	b->nrows = n;
}

/* A row inserted at rows[at]; the caller has checked max_rows. */
static int insert_row(struct builder *b, uint32_t at, uint64_t pc, uint32_t rule)
{
	if (b->nrows == b->cap) {
		struct fxs_cfi_row *tmp = realloc(b->rows, (b->nrows + 1) * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		b->rows = tmp;
		b->cap = b->nrows + 1;
	}
	memmove(&b->rows[at + 1], &b->rows[at], (b->nrows - at) * sizeof(b->rows[0]));
	b->rows[at] = (struct fxs_cfi_row){.pc = (uint32_t)pc, .rule = rule};
	b->nrows++;
	return 0;
}

/*
 * The ELF's entry point when no FDE covers it: ld.so's _start (glibc's
 * RTLD_START, assembly without CFI) on Debian's x86-64, arm64 and riscv64.
 * The kernel jumps there with nothing to return to, so it is the process's
 * outermost frame, as a program's own _start says with an undefined return
 * address: END from the entry to the next FDE (or the end of its segment),
 * not NONE, which took every stack of ld.so's first milliseconds (relocating
 * the program and its libraries, before the program's _start) to the
 * frame-pointer walk, marked. Code of the gap below the entry stays NONE.
 */
static int end_at_entry(struct builder *b, uint64_t entry, uint64_t seg_end)
{
	uint32_t lo = 0, hi = b->nrows, i;
	bool at_row, last;
	int err;

	if (!entry || entry >= seg_end || seg_end > UINT32_MAX)
		return 0;
	/* i: the first row above entry; row i - 1, if any, covers it */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->rows[mid].pc <= entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	if (i && b->rows[i - 1].rule != FXS_CFI_NONE)
		return 0;
	/* the END row (unless the NONE row at entry becomes it), a NONE row at the segment's end */
	at_row = i && b->rows[i - 1].pc == entry;
	last = i == b->nrows;
	if (b->nrows + !at_row + last > b->max_rows)
		return 0; /* the cap: the entry stays NONE */
	if (at_row) {
		b->rows[i - 1].rule = FXS_CFI_END;
	} else {
		err = insert_row(b, i, entry, FXS_CFI_END);
		if (err)
			return err;
	}
	if (last) {
		err = insert_row(b, b->nrows, seg_end, FXS_CFI_NONE);
		if (err)
			return err;
	}
	/* an END row just before or after (an FDE's that ends the stack too): one row */
	merge_repeated_rules(b);
	b->stats->entry_end = 1;
	return 0;
}

static int section_of(Elf *elf, const char *name, struct cfi_section *sec)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf_find_section(elf, name, &shdr);
	Elf_Data *data;

	if (!scn || shdr.sh_type == SHT_NOBITS)
		return -ENOENT;
	data = elf_section_data(scn, &shdr);
	if (!data || !data->d_buf || !data->d_size)
		return -ENOENT;
	sec->data = data->d_buf;
	sec->size = data->d_size;
	sec->vaddr = shdr.sh_addr;
	return 0;
}

/* The file bytes of vaddr [addr, end of its PT_LOAD's file part), or NULL. */
static const uint8_t *loaded_bytes(Elf *elf, const uint8_t *file, size_t file_size, size_t phnum,
				   uint64_t addr, size_t *ret_len)
{
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr - ph.p_vaddr >= ph.p_filesz || ph.p_offset > file_size ||
		    ph.p_filesz > file_size - ph.p_offset)
			continue;
		*ret_len = (size_t)(ph.p_filesz - (addr - ph.p_vaddr));
		return file + ph.p_offset + (addr - ph.p_vaddr);
	}
	return NULL;
}

/*
 * .eh_frame found as the loader finds it, for an object without section
 * headers (sstrip): PT_GNU_EH_FRAME is .eh_frame_hdr, whose eh_frame_ptr
 * says where .eh_frame starts; it runs to its zero terminator, at most to the
 * end of its PT_LOAD.
 */
static int eh_frame_of_segments(Elf *elf, struct cfi_section *sec)
{
	const uint8_t *file, *hdr, *p;
	size_t file_size, phnum, hdr_len;
	struct cfi_section hs = {0};
	uint64_t at;

	file = (const uint8_t *)elf_rawfile(elf, &file_size);
	if (!file || elf_getphdrnum(elf, &phnum))
		return -ENOENT;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		hdr = loaded_bytes(elf, file, file_size, phnum, ph.p_vaddr, &hdr_len);
		if (!hdr || hdr_len < 4 || hdr[0] != 1)
			return -EBADMSG;
		hs = (struct cfi_section){.data = hdr,
					  .size = hdr_len,
					  .vaddr = ph.p_vaddr,
					  .data_vaddr = ph.p_vaddr};
		p = hdr + 4;
		if (cfi_read_pointer(&hs, &p, hdr + hdr_len, hdr[1], &at))
			return -EBADMSG;
		sec->data = loaded_bytes(elf, file, file_size, phnum, at, &sec->size);
		if (!sec->data)
			return -EBADMSG;
		sec->vaddr = at;
		return 0;
	}
	return -ENOENT;
}

static uint64_t section_addr(Elf *elf, const char *name)
{
	GElf_Shdr shdr;

	return elf_find_section(elf, name, &shdr) ? shdr.sh_addr : 0;
}

/* sec->entry and the end of the executable segment that holds it, if one does. */
static void entry_segment(Elf *elf, uint64_t entry, struct cfi_section *sec)
{
	size_t phnum;
	GElf_Phdr ph;

	if (!entry || elf_getphdrnum(elf, &phnum))
		return;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (entry >= ph.p_vaddr && entry - ph.p_vaddr < ph.p_memsz) {
			sec->entry = entry;
			sec->entry_seg_end = ph.p_vaddr + ph.p_memsz;
			return;
		}
	}
}

static int count_kinds(struct cfi_table *t)
{
	for (uint32_t i = 0; i < t->nrows; i++) {
		t->stats.rows_by_kind[FXS_CFI_RULE_KIND(t->rows[i].rule)]++;
		if (i && t->rows[i].pc <= t->rows[i - 1].pc)
			return -EBADMSG; /* cannot happen: the FDEs were sorted */
	}
	return 0;
}

int cfi_table_from_section(uint16_t machine, const struct cfi_section *sec,
			   const struct cfi_table_opts *opts, struct cfi_table **ret)
{
	uint64_t t0 = mono_ns();
	struct builder b = {0};
	struct fde_ref *refs = NULL;
	struct cfi_table *t;
	size_t n = 0;
	int err;

	*ret = NULL;
	b.arch = cfa_arch_of(machine);
	if (!b.arch)
		return -ENOEXEC;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->machine = machine;
	t->from_debug_frame = sec->debug_frame;
	err = collect_fdes(sec, opts && opts->max_fdes ? opts->max_fdes : CFI_TABLE_MAX_FDES,
			   &t->stats, &refs, &n);
	if (err)
		goto fail;
	b.sec = sec;
	b.stats = &t->stats;
	b.max_rows = opts && opts->max_rows ? opts->max_rows : CFI_TABLE_MAX_ROWS;
	err = build_rows(&b, refs, n);
	if (!err)
		err = end_at_entry(&b, sec->entry, sec->entry_seg_end);
	free(refs);
	t->rows = b.rows;
	t->nrows = b.nrows;
	if (!err)
		err = count_kinds(t);
	if (err)
		goto fail;
	t->stats.rows = t->nrows;
	t->stats.bytes = (uint64_t)t->nrows * sizeof(struct fxs_cfi_row);
	t->stats.gen_ns = mono_ns() - t0;
	*ret = t;
	return 0;
fail:
	cfi_table_free(t);
	return err;
}

int cfi_table_from_elf(Elf *elf, const struct cfi_table_opts *opts, struct cfi_table **ret)
{
	uint64_t t0 = mono_ns();
	struct cfi_section sec = {0};
	unsigned char *ident;
	GElf_Ehdr ehdr;
	size_t shnum;
	int err;

	*ret = NULL;
	ident = (unsigned char *)elf_getident(elf, NULL);
	if (!ident || ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB ||
	    !gelf_getehdr(elf, &ehdr) || (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) ||
	    !cfa_arch_of(ehdr.e_machine))
		return -ENOEXEC;
	err = section_of(elf, ".eh_frame", &sec);
	/* Only without any section header: objcopy -R .eh_frame leaves a stale segment. */
	if (err == -ENOENT && !elf_getshdrnum(elf, &shnum) && !shnum)
		err = eh_frame_of_segments(elf, &sec);
	if (err == -ENOENT && !(opts && opts->no_debug_frame)) {
		err = section_of(elf, ".debug_frame", &sec);
		sec.debug_frame = true;
	}
	if (err)
		return err;
	sec.text_vaddr = section_addr(elf, ".text");
	sec.data_vaddr = section_addr(elf, ".got");
	entry_segment(elf, ehdr.e_entry, &sec);
	err = cfi_table_from_section(ehdr.e_machine, &sec, opts, ret);
	if (!err)
		(*ret)->stats.gen_ns = mono_ns() - t0;
	return err;
}

int cfi_table_from_path(const char *path, const struct cfi_table_opts *opts, struct cfi_table **ret)
{
	uint64_t t0 = mono_ns();
	struct elf_file f;
	GElf_Ehdr ehdr;
	int err;

	*ret = NULL;
	err = elf_file_open(path, &f, &ehdr);
	if (err)
		return err;
	err = cfi_table_from_elf(f.elf, opts, ret);
	elf_file_close(&f);
	if (!err)
		(*ret)->stats.gen_ns = mono_ns() - t0;
	return err;
}

int cfi_table_from_fd(int fd, const struct cfi_table_opts *opts, struct cfi_table **ret)
{
	uint64_t t0 = mono_ns();
	struct stat st;
	Elf *elf;
	int err;

	*ret = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -SAFE_OPEN_ENOTREG;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	err = elf_kind(elf) == ELF_K_ELF ? cfi_table_from_elf(elf, opts, ret) : -ENOEXEC;
	elf_end(elf);
	if (!err)
		(*ret)->stats.gen_ns = mono_ns() - t0;
	return err;
}

int cfi_table_from_mem(const void *data, size_t size, const struct cfi_table_opts *opts,
		       struct cfi_table **ret)
{
	struct elf_file f;
	GElf_Ehdr ehdr;
	int err;

	*ret = NULL;
	err = elf_file_open_mem(data, size, &f, &ehdr);
	if (err)
		return err;
	err = cfi_table_from_elf(f.elf, opts, ret);
	elf_file_close(&f);
	return err;
}

void cfi_table_free(struct cfi_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

const struct fxs_cfi_row *cfi_table_lookup(const struct cfi_table *t, uint64_t pc)
{
	uint32_t lo = 0, hi = t->nrows;

	if (pc > UINT32_MAX)
		return NULL;
	/* The last row whose pc is at or below pc. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

const char *cfi_table_strerror(int err)
{
	switch (err) {
	case 0:
		return "no error";
	case -ENOEXEC:
		return "not a 64-bit little-endian x86-64, arm64 or riscv64 executable or library";
	case -ENOENT:
		return "no .eh_frame or .debug_frame";
	case -EBADMSG:
		return "malformed call frame information";
	case -ERANGE:
		return "code at or above 4 GiB of virtual address";
	case -E2BIG:
		return "more FDEs or rows than the table's cap";
	case -ENOMEM:
		return "out of memory";
	case -ENOSPC:
		return "its rules do not fit the 65,536 that all modules share";
	default:
		return "cannot read the ELF file";
	}
}
