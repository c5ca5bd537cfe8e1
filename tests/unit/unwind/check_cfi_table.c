// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests: the CFI tables of real objects against binutils. Every row
 * readelf --debug-dump=frames-interp prints is turned into the rule it means
 * (here, from readelf's text alone) and looked up in our table, at the row's
 * first and last byte; every byte no FDE covers must be NONE. Objects: a
 * program built here with -O2 -fomit-frame-pointer, a library built with
 * frame pointers, the same program with .debug_frame only, Debian's libc,
 * ld.so and python3.11, and the committed arm64 and riscv64 fixtures.
 * FXS_CFI_OBJECTS="PATH:PATH..." checks more objects the same way (e.g.
 * Debian's arm64 libc from libc6-arm64-cross, or every module of a host).
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/cfi_table.h"

#include "cfi_bytes.h"
#include "fixture.h"
#include "check_main.h"

#define RULE(kind, cfa, ra, fp)                                                                    \
	((uint32_t)(kind) | (uint32_t)(cfa) << FXS_CFI_CFA_SHIFT |                                 \
	 (uint32_t)(uint8_t)(int8_t)(ra) << FXS_CFI_RA_SHIFT |                                     \
	 (uint32_t)(uint8_t)(int8_t)(fp) << FXS_CFI_FP_SHIFT)
#define LIBC  "/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO  "/lib64/ld-linux-x86-64.so.2"
#define PY311 "/usr/bin/python3.11"

static const char fixture_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"__attribute__((noinline)) long leaf(long *v, long n) {\n"
	"	long s = 0; for (long i = 0; i < n; i++) s += v[i] * i; return s; }\n"
	"__attribute__((noinline)) long mid(long n) {\n"
	"	long *v = __builtin_alloca(n * sizeof(long));\n"
	"	for (long i = 0; i < n; i++) v[i] = i ^ n;\n"
	"	return leaf(v, n) + (n > 3 ? mid(n - 1) : 0); }\n"
	"__attribute__((noinline)) long big(long n) {\n"
	"	char buf[100000]; memset(buf, (int)n, sizeof(buf));\n"
	"	return buf[n % sizeof(buf)] + mid(n); }\n"
	"int main(int argc, char **argv) {\n"
	"	printf(\"%ld\\n\", big(argc + 10)); return 0; }\n";

/* One row of readelf's table: a location and the text of its columns. */
struct re_row {
	uint64_t loc;
	char cfa[32], ra[16], fp[16], sp[16];
};

struct re_fde {
	uint64_t begin, end;
	bool signal;
	unsigned ra_col;   /* the CIE's return address column */
	unsigned first, n; /* rows in re_table.rows */
};

struct re_table {
	struct re_fde *fdes;
	unsigned nfdes;
	struct re_row *rows;
	unsigned nrows, caprows, capfdes;
};

/* A CIE's initial row: what an FDE without instructions inherits. */
#define MAX_CIES 1024

struct re_cie {
	unsigned long off;
	bool signal;
	unsigned ra_col;
	struct re_row row;
	bool has_row;
};

static bool is_fp_name(const char *n)
{
	return !strcmp(n, "rbp") || !strcmp(n, "x29") || !strcmp(n, "s0") || !strcmp(n, "fp");
}

static bool is_sp_name(const char *n)
{
	return !strcmp(n, "rsp") || !strcmp(n, "sp");
}

static struct re_row *new_row(struct re_table *t)
{
	if (t->nrows == t->caprows) {
		t->caprows = t->caprows ? t->caprows * 2 : 4096;
		t->rows = realloc(t->rows, t->caprows * sizeof(*t->rows));
		ck_assert(t->rows);
	}
	memset(&t->rows[t->nrows], 0, sizeof(t->rows[0]));
	return &t->rows[t->nrows++];
}

/* Parse a row line under the column names cols[]. */
static void parse_row(const char *line, char cols[][16], int ncols, struct re_row *r)
{
	char buf[512], *save = NULL, *tok;
	int i = -1;

	snprintf(buf, sizeof(buf), "%s", line);
	strcpy(r->ra, "u");
	strcpy(r->fp, "u");
	strcpy(r->sp, "u");
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save), i++) {
		if (i < 0) {
			r->loc = strtoull(tok, NULL, 16);
			continue;
		}
		/* "r9 (r9)": a register rule names the register twice. */
		if (tok[0] == '(') {
			i--;
			continue;
		}
		ck_assert_msg(i < ncols, "readelf row with too many columns: %s", line);
		if (!strcmp(cols[i], "CFA"))
			snprintf(r->cfa, sizeof(r->cfa), "%s", tok);
		else if (!strcmp(cols[i], "ra"))
			snprintf(r->ra, sizeof(r->ra), "%s", tok);
		else if (is_fp_name(cols[i]))
			snprintf(r->fp, sizeof(r->fp), "%s", tok);
		else if (is_sp_name(cols[i]))
			snprintf(r->sp, sizeof(r->sp), "%s", tok);
	}
}

/* readelf's frames-interp of section (".eh_frame" or ".debug_frame") of path. */
static void readelf_frames(const char *path, const char *section, struct re_table *t)
{
	static struct re_cie cies[MAX_CIES];
	char cmd[PATH_MAX + 64], line[1024], cols[48][16];
	unsigned ncies = 0;
	int ncols = 0;
	bool in_section = false, in_cie = false;
	struct re_cie *cie = NULL;
	struct re_fde *fde = NULL;
	FILE *p;

	memset(t, 0, sizeof(*t));
	snprintf(cmd, sizeof(cmd), "readelf -W -wN --debug-dump=frames-interp '%s' 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	ck_assert(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long off, cieoff;
		uint64_t a, b;
		char aug[32];

		if (!strncmp(line, "Contents of the ", 16)) {
			char name[64];

			in_section = sscanf(line, "Contents of the %63s", name) == 1 &&
				     !strcmp(name, section);
			fde = NULL;
			cie = NULL;
			continue;
		}
		if (!in_section)
			continue;
		if (strstr(line, " CIE \"") && sscanf(line, "%lx", &off) == 1) {
			aug[0] = 0;
			sscanf(strstr(line, " CIE \""), " CIE \"%31[^\"]", aug);
			ck_assert(ncies < MAX_CIES);
			cie = &cies[ncies++];
			memset(cie, 0, sizeof(*cie));
			cie->off = off;
			cie->signal = strchr(aug, 'S') != NULL;
			ck_assert(strstr(line, " ra=") &&
				  sscanf(strstr(line, " ra="), " ra=%u", &cie->ra_col) == 1);
			in_cie = true;
			fde = NULL;
			continue;
		}
		if (sscanf(line, "%lx %*x %*x FDE cie=%lx pc=%" SCNx64 "..%" SCNx64, &off, &cieoff,
			   &a, &b) == 4) {
			struct re_cie *c = NULL;

			for (unsigned i = 0; i < ncies; i++)
				if (cies[i].off == cieoff)
					c = &cies[i];
			ck_assert_msg(c, "FDE at %lx: CIE %lx not seen", off, cieoff);
			if (t->nfdes == t->capfdes) {
				t->capfdes = t->capfdes ? t->capfdes * 2 : 1024;
				t->fdes = realloc(t->fdes, t->capfdes * sizeof(*t->fdes));
				ck_assert(t->fdes);
			}
			fde = &t->fdes[t->nfdes++];
			*fde = (struct re_fde){.begin = a,
					       .end = b,
					       .signal = c->signal,
					       .ra_col = c->ra_col,
					       .first = t->nrows};
			/* No instructions, no table printed: the CIE's row holds. */
			if (c->has_row) {
				struct re_row *r = new_row(t);

				*r = c->row;
				r->loc = a;
				fde->n = 1;
			}
			in_cie = false;
			continue;
		}
		if (!strncmp(line, "   LOC", 6)) {
			char buf[512], *save = NULL, *tok;

			snprintf(buf, sizeof(buf), "%s", line);
			ncols = 0;
			tok = strtok_r(buf, " \t\n", &save); /* LOC */
			while ((tok = strtok_r(NULL, " \t\n", &save)) && ncols < 48)
				snprintf(cols[ncols++], sizeof(cols[0]), "%s", tok);
			/* An FDE with its own table does not start from the CIE's copy. */
			if (fde && fde->n == 1 && t->nrows == fde->first + 1) {
				t->nrows--;
				fde->n = 0;
			}
			continue;
		}
		if (line[0] >= '0' && line[0] <= '9' && strlen(line) > 17 && line[16] == ' ') {
			if (in_cie && cie) {
				parse_row(line, cols, ncols, &cie->row);
				cie->has_row = true;
			} else if (fde) {
				parse_row(line, cols, ncols, new_row(t));
				fde->n++;
			}
		}
	}
	ck_assert_int_eq(pclose(p), 0);
}

/* "c-16" -> -16; false when not of that form. */
static bool parse_c(const char *s, int64_t *off)
{
	char *end;

	if (s[0] != 'c' || (s[1] != '-' && s[1] != '+'))
		return false;
	*off = strtoll(s + 1, &end, 10);
	return *end == 0;
}

static bool word8(int64_t off, uint32_t *w)
{
	if (off % 8 || off == 0 || off < -1024 || off > 1016)
		return false;
	*w = (uint8_t)(int8_t)(off / 8);
	return true;
}

enum ra_expect { RA_EXACT, RA_END, RA_END_OR_LR, RA_END_OR_UNSUPPORTED };

/*
 * The rule readelf's row means. On arm64 and riscv64 readelf prints "u" both
 * for a return address still in its register and for DW_CFA_undefined:
 * *how says which answers are right.
 */
static uint32_t expected_rule(const struct re_row *r, uint16_t machine, bool signal,
			      unsigned ra_col, uint64_t plt_lo, uint64_t plt_hi,
			      enum ra_expect *how)
{
	uint32_t kind, cfa = 0, ra = 0, fp = 0;
	int64_t from = 0;
	char base[16];
	long long off;
	int64_t o;
	int n = 0;

	*how = RA_EXACT;
	if (signal)
		return FXS_CFI_SIGNAL;
	if (!strcmp(r->ra, "u")) {
		if (machine == EM_X86_64) {
			*how = RA_END;
			return FXS_CFI_END;
		}
		/* In a register that is not the link register (arm64 rawmemchr: x15). */
		if (ra_col != (machine == EM_AARCH64 ? 30u : 1u)) {
			*how = RA_END_OR_UNSUPPORTED;
			return FXS_CFI_UNSUPPORTED;
		}
		*how = RA_END_OR_LR;
	}
	if (!strcmp(r->cfa, "exp")) {
		if (machine == EM_X86_64 && r->loc >= plt_lo && r->loc < plt_hi)
			return FXS_CFI_PLT | 1 << FXS_CFI_CFA_SHIFT | 0xffu << FXS_CFI_RA_SHIFT;
		return FXS_CFI_UNSUPPORTED;
	}
	if (sscanf(r->cfa, "%15[a-z0-9]+%lld%n", base, &off, &n) != 2 || r->cfa[n] || off < 0 ||
	    off % 8 || off / 8 > FXS_CFI_CFA_MAX)
		return FXS_CFI_UNSUPPORTED;
	if (is_sp_name(base))
		kind = FXS_CFI_SP;
	else if (is_fp_name(base))
		kind = FXS_CFI_FP;
	else
		return FXS_CFI_UNSUPPORTED;
	cfa = (uint32_t)(off / 8);
	/*
	 * Saves over 1 KiB below the CFA are counted from its base register
	 * - 8 instead (FXS_CFI_LOW), when that fits.
	 */
	if (kind == FXS_CFI_SP || kind == FXS_CFI_FP) {
		int64_t o2;
		uint32_t w;
		bool far = (parse_c(r->ra, &o) && !word8(o, &w)) ||
			   (parse_c(r->fp, &o2) && !word8(o2, &w));

		if (far && (!parse_c(r->ra, &o) || word8(o + off + 8, &w)) &&
		    (!parse_c(r->fp, &o2) || word8(o2 + off + 8, &w))) {
			/* its offset has 12 bits: bit 15 is its base */
			if (cfa > FXS_CFI_LOW_CFA_MAX)
				return FXS_CFI_UNSUPPORTED;
			kind = FXS_CFI_LOW | (kind == FXS_CFI_FP ? FXS_CFI_LOW_FP : 0);
			from = off + 8;
		}
	}
	if (parse_c(r->ra, &o)) {
		if (!word8(o + from, &ra))
			return FXS_CFI_UNSUPPORTED;
	} else if (!(machine != EM_X86_64 && (!strcmp(r->ra, "u") || !strcmp(r->ra, "s")))) {
		return FXS_CFI_UNSUPPORTED;
	}
	if (parse_c(r->fp, &o)) {
		if (!word8(o + from, &fp))
			return FXS_CFI_UNSUPPORTED;
	} else if (strcmp(r->fp, "u") && strcmp(r->fp, "s")) {
		return FXS_CFI_UNSUPPORTED;
	}
	if (strcmp(r->sp, "u") && strcmp(r->sp, "s"))
		return FXS_CFI_UNSUPPORTED;
	return kind | cfa << FXS_CFI_CFA_SHIFT | ra << FXS_CFI_RA_SHIFT | fp << FXS_CFI_FP_SHIFT;
}

static uint32_t rule_at(const struct cfi_table *t, uint64_t pc)
{
	const struct fxs_cfi_row *row = cfi_table_lookup(t, pc);

	return row ? row->rule : FXS_CFI_NONE;
}

static void check_rule(const char *path, uint64_t pc, uint32_t got, uint32_t want,
		       enum ra_expect how, const struct re_row *r)
{
	bool ok;

	switch (how) {
	case RA_END:
		ok = FXS_CFI_RULE_KIND(got) == FXS_CFI_END;
		break;
	case RA_END_OR_LR:
	case RA_END_OR_UNSUPPORTED:
		ok = FXS_CFI_RULE_KIND(got) == FXS_CFI_END || got == want;
		break;
	default:
		ok = FXS_CFI_RULE_KIND(want) == FXS_CFI_SIGNAL ? FXS_CFI_RULE_KIND(got) == want
							       : got == want;
	}
	ck_assert_msg(ok, "%s: pc %#" PRIx64 " (readelf: CFA %s ra %s fp %s): rule %#x, want %#x",
		      path, pc, r->cfa, r->ra, r->fp, got, want);
}

static void section_range(const char *path, const char *name, uint64_t *lo, uint64_t *hi)
{
	char cmd[PATH_MAX + 128], line[512];
	FILE *p;

	*lo = *hi = 0;
	snprintf(cmd, sizeof(cmd), "readelf -SW '%s'", path);
	p = popen(cmd, "r");
	ck_assert(p);
	while (fgets(line, sizeof(line), p)) {
		char *b = strchr(line, ']'), sname[64], type[32];
		uint64_t addr, off, size;

		if (b &&
		    sscanf(b + 1, "%63s %31s %" SCNx64 " %" SCNx64 " %" SCNx64, sname, type, &addr,
			   &off, &size) == 5 &&
		    !strcmp(sname, name)) {
			*lo = addr;
			*hi = addr + size;
		}
	}
	pclose(p);
}

/* The ELF's entry point (readelf -h). */
static uint64_t entry_of(const char *path)
{
	char cmd[PATH_MAX + 64], line[256];
	uint64_t addr = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -hW '%s'", path);
	p = popen(cmd, "r");
	ck_assert(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " Entry point address: %" SCNx64, &addr) == 1)
			break;
	pclose(p);
	return addr;
}

/*
 * Build path's table and check every readelf row and every gap; returns the
 * table for more checks.
 */
static struct cfi_table *check_against_readelf(const char *path, const char *section)
{
	struct cfi_table *t = NULL;
	struct re_table re;
	uint64_t plt_lo, plt_hi, covered = 0;
	uint32_t fdes_fp = 0;
	int err;

	err = cfi_table_from_path(path, NULL, &t);
	ck_assert_msg(!err, "%s: %s (%d)", path, cfi_table_strerror(err), err);
	ck_assert_int_eq(t->from_debug_frame, !strcmp(section, ".debug_frame"));
	readelf_frames(path, section, &re);
	section_range(path, ".plt", &plt_lo, &plt_hi);
	/* A CIE alone (libnss_files' stub): an empty table, which the walker reads as NONE. */
	if (!re.nfdes) {
		ck_assert_uint_eq(t->stats.fdes, 0);
		ck_assert_uint_eq(t->nrows, 0);
		free(re.fdes);
		free(re.rows);
		return t;
	}

	/* The table's own shape: sorted, unique, merged, NONE last. */
	ck_assert_uint_gt(t->nrows, 1);
	for (uint32_t i = 1; i < t->nrows; i++) {
		ck_assert_uint_gt(t->rows[i].pc, t->rows[i - 1].pc);
		ck_assert_uint_ne(t->rows[i].rule, t->rows[i - 1].rule);
	}
	ck_assert_uint_eq(t->rows[t->nrows - 1].rule, FXS_CFI_NONE);
	ck_assert_uint_eq(t->stats.fdes_bad, 0);
	ck_assert_uint_eq(t->stats.fdes_overlap, 0);
	ck_assert_uint_eq(t->stats.bytes, t->nrows * 8ull);

	for (unsigned f = 0; f < re.nfdes; f++) {
		const struct re_fde *fde = &re.fdes[f];
		bool fp_counted = false;

		if (fde->begin == fde->end)
			continue;
		covered += fde->end - fde->begin;
		for (unsigned k = 0; k < fde->n; k++) {
			const struct re_row *r = &re.rows[fde->first + k];
			uint64_t last = k + 1 < fde->n ? re.rows[fde->first + k + 1].loc : fde->end;
			enum ra_expect how;
			uint32_t want;
			char base[16];

			if (sscanf(r->cfa, "%15[a-z0-9]+", base) == 1 && is_fp_name(base) &&
			    r->loc < fde->end && !fp_counted) {
				fdes_fp++;
				fp_counted = true;
			}
			if (r->loc >= fde->end || last <= r->loc)
				continue;
			if (last > fde->end)
				last = fde->end;
			want = expected_rule(r, t->machine, fde->signal, fde->ra_col, plt_lo,
					     plt_hi, &how);
			check_rule(path, r->loc, rule_at(t, r->loc), want, how, r);
			check_rule(path, last - 1, rule_at(t, last - 1), want, how, r);
		}
		/* The byte after the FDE is NONE unless another FDE starts there. */
		if (!(f + 1 < re.nfdes && re.fdes[f + 1].begin == fde->end)) {
			bool next = false;

			for (unsigned g = 0; g < re.nfdes; g++)
				if (re.fdes[g].begin <= fde->end && fde->end < re.fdes[g].end)
					next = true;
			/* or the entry point's END (end_at_entry()) */
			if (!next && !(t->stats.entry_end && fde->end == entry_of(path)))
				ck_assert_msg(rule_at(t, fde->end) == FXS_CFI_NONE,
					      "%s: pc %#" PRIx64 " after an FDE is not NONE", path,
					      fde->end);
		}
	}
	ck_assert_uint_eq(t->stats.text_bytes, covered);
	ck_assert_uint_eq(t->stats.fdes_fp, fdes_fp);
	ck_assert_uint_eq(t->stats.fdes - t->stats.fdes_empty,
			  (uint32_t)re.nfdes - t->stats.fdes_empty);
	free(re.fdes);
	free(re.rows);
	return t;
}

/* The address of a symbol (readelf -s or --dyn-syms), 0 when none. */
static uint64_t symbol(const char *path, const char *name)
{
	char cmd[PATH_MAX + 128], line[512];
	uint64_t addr = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -sW --dyn-syms '%s'", path);
	p = popen(cmd, "r");
	ck_assert(p);
	while (fgets(line, sizeof(line), p)) {
		char n[256];
		uint64_t a;

		if (sscanf(line, "%*s %" SCNx64 " %*s %*s %*s %*s %*s %255s", &a, n) == 2 &&
		    !strcmp(n, name))
			addr = a;
	}
	pclose(p);
	return addr;
}

/*
 * ld.so's entry, _start, ends the stack: on x86-64 glibc's RTLD_START has
 * no FDE there (end_at_entry() makes it END: stats.entry_end), on arm64 its
 * FDE says the return address is undefined (after its first instruction).
 */
static void check_ldso_entry(const struct cfi_table *t, const char *path)
{
	uint64_t e = entry_of(path);

	ck_assert_msg(e, "%s: no entry point", path);
	ck_assert_msg(FXS_CFI_RULE_KIND(rule_at(t, e + 8)) == FXS_CFI_END,
		      "%s: entry %#" PRIx64 " + 8: rule %#x, not END", path, e, rule_at(t, e + 8));
	printf("%s: entry %#" PRIx64 ", %s\n", path, e,
	       t->stats.entry_end ? "no FDE: END from it" : "its FDE ends the stack");
	if (t->machine == EM_X86_64)
		ck_assert_msg(t->stats.entry_end && rule_at(t, e) == FXS_CFI_END,
			      "%s: entry %#" PRIx64 ": rule %#x, not END", path, e, rule_at(t, e));
}

static void build_fixtures(void)
{
	const char *cc = getenv("FXS_TEST_CC") ?: "gcc";
	FILE *f;
	int err = 0;

	snprintf(tmpdir, sizeof(tmpdir), "%s/fxs_cfi.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(EXIT_FAILURE);
	}
	f = fopen(fx("prog.c"), "we");
	if (!f || fputs(fixture_src, f) < 0 || fclose(f)) {
		perror("prog.c");
		exit(EXIT_FAILURE);
	}
	err |= run("cd %s && %s -O2 -fomit-frame-pointer -o omitfp prog.c", tmpdir, cc);
	/* The same with no section headers: e_shoff, e_shnum and e_shstrndx zeroed. */
	err |= run("cd %s && cp omitfp noshdr && printf '\\0\\0\\0\\0\\0\\0\\0\\0' | "
		   "dd of=noshdr bs=1 seek=40 conv=notrunc status=none && "
		   "printf '\\0\\0\\0\\0' | dd of=noshdr bs=1 seek=60 conv=notrunc status=none",
		   tmpdir);
	err |= run("cd %s && %s -O2 -fno-omit-frame-pointer -fPIC -shared -o fp.so prog.c", tmpdir,
		   cc);
	/* .debug_frame only: no unwind tables, and crt's .eh_frame removed. */
	err |= run("cd %s && %s -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables "
		   "-o dbgframe prog.c && objcopy -R .eh_frame -R .eh_frame_hdr dbgframe",
		   tmpdir, cc);
	err |= run("cd %s && objcopy -R .debug_frame dbgframe noframe && "
		   "objcopy --compress-debug-sections=zlib dbgframe dbgframe_z",
		   tmpdir);
	/* Frame pointers everywhere but in leaves, as Fedora and Ubuntu 24.04 build. */
	err |= run("cd %s && %s -O2 -fno-omit-frame-pointer -momit-leaf-frame-pointer -o leafomit "
		   "prog.c",
		   tmpdir, cc);
	if (err) {
		fprintf(stderr, "cannot build the fixtures in %s\n", tmpdir);
		exit(EXIT_FAILURE);
	}
}

static void remove_fixtures(void)
{
	if (tmpdir[0] && !getenv("FXS_KEEP_FIXTURES"))
		run("rm -rf '%s'", tmpdir);
}

static void check_end_at(const struct cfi_table *t, const char *path, const char *sym)
{
	uint64_t a = symbol(path, sym);

	ck_assert_msg(a, "%s: no symbol %s", path, sym);
	/* arm64's _start says so after its first instruction (bti c). */
	a += 4;
	ck_assert_msg(FXS_CFI_RULE_KIND(rule_at(t, a)) == FXS_CFI_END,
		      "%s: %s at %#" PRIx64 ": rule %#x, not END", path, sym, a, rule_at(t, a));
}

START_TEST(test_omit_frame_pointer)
{
	struct cfi_table *t = check_against_readelf(fx("omitfp"), ".eh_frame"), *u;

	ck_assert_uint_eq(t->machine, EM_X86_64);
	/* mid()'s alloca keeps rbp as a frame pointer even so. */
	ck_assert_uint_eq(t->stats.fdes_fp, 1);
	ck_assert_uint_gt(t->stats.rows_by_kind[FXS_CFI_SP], 3);
	check_end_at(t, fx("omitfp"), "_start");
	/* Without section headers (sstrip): .eh_frame through PT_GNU_EH_FRAME, the same rows. */
	ck_assert_int_eq(cfi_table_from_path(fx("noshdr"), NULL, &u), 0);
	ck_assert_uint_eq(u->nrows, t->nrows);
	ck_assert(!memcmp(u->rows, t->rows, t->nrows * sizeof(t->rows[0])));
	cfi_table_free(u);
	cfi_table_free(t);
}
END_TEST

START_TEST(test_frame_pointer_library)
{
	struct cfi_table *t = check_against_readelf(fx("fp.so"), ".eh_frame");

	/* mid, big and main keep rbp: their CFA becomes rbp + 16. */
	ck_assert_uint_ge(t->stats.fdes_fp, 3);
	ck_assert_uint_gt(t->stats.rows_by_kind[FXS_CFI_FP], 0);
	cfi_table_free(t);
}
END_TEST

START_TEST(test_debug_frame)
{
	struct cfi_table *t = check_against_readelf(fx("dbgframe"), ".debug_frame");
	struct cfi_table *z = check_against_readelf(fx("dbgframe_z"), ".debug_frame");
	int fd;

	ck_assert(t->from_debug_frame);
	/* Compressed (SHF_COMPRESSED), the same rows. */
	ck_assert_uint_eq(z->nrows, t->nrows);
	ck_assert(!memcmp(z->rows, t->rows, t->nrows * sizeof(t->rows[0])));
	cfi_table_free(z);
	/* From an open file: the same rows again, the fd left open. */
	fd = open(fx("dbgframe_z"), O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(cfi_table_from_fd(fd, NULL, &z), 0);
	ck_assert_uint_eq(z->nrows, t->nrows);
	ck_assert(!memcmp(z->rows, t->rows, t->nrows * sizeof(t->rows[0])));
	ck_assert_int_eq(fcntl(fd, F_GETFD), FD_CLOEXEC);
	close(fd);
	cfi_table_free(z);
	cfi_table_free(t);
	fd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(cfi_table_from_fd(fd, NULL, &z), -EMEDIUMTYPE);
	close(fd);
	fd = open(fx("prog.c"), O_RDONLY);
	ck_assert_int_eq(cfi_table_from_fd(fd, NULL, &z), -ENOEXEC);
	close(fd);
	ck_assert_int_eq(cfi_table_from_fd(-1, NULL, &z), -EBADF);
	ck_assert_ptr_null(z);
}
END_TEST

START_TEST(test_omit_leaf_frame_pointer)
{
	struct cfi_table *t = check_against_readelf(fx("leafomit"), ".eh_frame");
	uint64_t leaf = symbol(fx("leafomit"), "leaf"), mid = symbol(fx("leafomit"), "mid");

	/* leaf() keeps no frame: its caller comes from rsp, not rbp. */
	ck_assert(leaf && mid);
	ck_assert_uint_eq(rule_at(t, leaf), RULE(FXS_CFI_SP, 1, -1, 0));
	ck_assert_uint_eq(FXS_CFI_RULE_KIND(rule_at(t, mid + 32)), FXS_CFI_FP);
	cfi_table_free(t);
}
END_TEST

static const char *const debian_x86[] = {LIBC, LDSO, PY311};

START_TEST(test_debian_objects)
{
	const char *path = debian_x86[_i];
	struct cfi_table *t = check_against_readelf(path, ".eh_frame");

	ck_assert_uint_gt(t->stats.fdes, 200);
	if (!strcmp(path, LDSO))
		check_ldso_entry(t, path);
	/* Issue 22: libc's table is at most 256 KiB. */
	if (!strcmp(path, LIBC)) {
		ck_assert_uint_le(t->stats.bytes, 256 << 10);
		ck_assert_uint_gt(t->stats.rows_by_kind[FXS_CFI_PLT], 0);
		/* __restore_rt, the sigreturn trampoline ("zRS"). */
		ck_assert_uint_gt(t->stats.rows_by_kind[FXS_CFI_SIGNAL], 0);
	}
	cfi_table_free(t);
}
END_TEST

static const char *const cross_objects[] = {"elf/arm64/exe", "elf/arm64/lib.so", "elf/riscv64/exe",
					    "elf/riscv64/lib.so", "elf/riscv64/vdso.so"};

START_TEST(test_cross_objects)
{
	const char *path = test_data(cross_objects[_i]);
	struct cfi_table *t = check_against_readelf(path, ".eh_frame");

	ck_assert_uint_eq(t->machine, strstr(path, "arm64") ? EM_AARCH64 : EM_RISCV);
	if (strstr(path, "/exe"))
		check_end_at(t, path, "_start");
	cfi_table_free(t);
}
END_TEST

/* Debian 12's arm64 and riscv64 libc and ld.so (make deps: libc6-ARCH-cross). */
static const char *const debian_cross[] = {
	"/usr/aarch64-linux-gnu/lib/libc.so.6",
	"/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1",
	"/usr/riscv64-linux-gnu/lib/libc.so.6",
	"/usr/riscv64-linux-gnu/lib/ld-linux-riscv64-lp64d.so.1",
};

START_TEST(test_debian_cross_objects)
{
	const char *path = debian_cross[_i];
	struct cfi_table *t;

	if (access(path, R_OK)) {
		printf("SKIP: %s: not installed (make deps installs libc6-arm64-cross and "
		       "libc6-riscv64-cross): NOT RUN\n",
		       path);
		return;
	}
	t = check_against_readelf(path, ".eh_frame");
	ck_assert_uint_gt(t->stats.fdes, 10);
	/* Both arches' libc: a few rows the walker cannot apply, not whole functions. */
	ck_assert_uint_lt(t->stats.rows_by_kind[FXS_CFI_UNSUPPORTED], 10);
	if (strstr(path, "/ld-linux"))
		check_ldso_entry(t, path);
	if (strstr(path, "aarch64") && strstr(path, "libc.so"))
		ck_assert_uint_gt(t->stats.rows_by_kind[FXS_CFI_LOW], 50);
	cfi_table_free(t);
}
END_TEST

/* The objects named by $FXS_CFI_OBJECTS, if any: the same checks. */
START_TEST(test_more_objects)
{
	char *list = strdup(getenv("FXS_CFI_OBJECTS") ?: ""), *save = NULL, *path;
	unsigned n = 0;

	ck_assert(list);
	for (path = strtok_r(list, ":", &save); path; path = strtok_r(NULL, ":", &save), n++) {
		struct cfi_table *t = check_against_readelf(path, ".eh_frame");

		printf("%s: %u FDEs, %u rows, %llu bytes, fdes_fp %u, unsupported rows %u\n", path,
		       t->stats.fdes, t->nrows, (unsigned long long)t->stats.bytes,
		       t->stats.fdes_fp, t->stats.rows_by_kind[FXS_CFI_UNSUPPORTED]);
		cfi_table_free(t);
	}
	free(list);
}
END_TEST

START_TEST(test_errors)
{
	static const char not_elf[] = "#!/bin/sh\necho hi\n";
	struct cfi_table *t = (struct cfi_table *)1;
	struct cfi_table_opts few = {.max_rows = 4};

	ck_assert_int_eq(cfi_table_from_mem(not_elf, sizeof(not_elf), NULL, &t), -ENOEXEC);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(cfi_table_from_path(fx("noframe"), NULL, &t), -ENOENT);
	ck_assert_int_eq(cfi_table_from_path(fx("dbgframe"),
					     &(struct cfi_table_opts){.no_debug_frame = true}, &t),
			 -ENOENT);
	ck_assert_int_eq(cfi_table_from_path(fx("missing"), NULL, &t), -ENOENT);
	ck_assert_int_eq(cfi_table_from_path(LIBC, &few, &t), -E2BIG);
	ck_assert_int_eq(cfi_table_from_path(LIBC, &(struct cfi_table_opts){.max_fdes = 10}, &t),
			 -E2BIG);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(cfi_table_strerror(-ENOENT), "no .eh_frame or .debug_frame");
}
END_TEST

/* --- tables of sections written by hand ----------------------------------------- */

static struct bytes w;

#define X86_ENTRY RULE(FXS_CFI_SP, 1, -1, 0)

static struct cfi_table *table_of(uint16_t machine, int want_err)
{
	struct cfi_section sec = {.data = w.b, .size = w.n, .vaddr = 0x10000};
	struct cfi_table *t = NULL;

	ck_assert_int_eq(cfi_table_from_section(machine, &sec, NULL, &t), want_err);
	return t;
}

static void expect_rows(const struct cfi_table *t, const struct fxs_cfi_row *want, unsigned n)
{
	for (unsigned i = 0; i < n && i < t->nrows; i++)
		ck_assert_msg(t->rows[i].pc == want[i].pc && t->rows[i].rule == want[i].rule,
			      "row %u: %#x %#x, want %#x %#x", i, t->rows[i].pc, t->rows[i].rule,
			      want[i].pc, want[i].rule);
	ck_assert_uint_eq(t->nrows, n);
}

START_TEST(test_gaps_merges_overlaps)
{
	struct cfi_table *t;
	size_t cie;

	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	/* Out of order on purpose: the table sorts them. */
	eh_fde(&w, cie, 0x1020, 0x10, INSNS(0x41, 0x0e, 16, 0x86, 2));
	eh_fde(&w, cie, 0x1000, 0x10, INSNS(0));
	eh_fde(&w, cie, 0x1010, 0x8, INSNS(0)); /* adjacent, same rule: merged */
	eh_fde(&w, cie, 0x1040, 0, INSNS(0));	/* empty */
	eh_fde(&w, cie, 0x1050, 0x10, INSNS(0));
	eh_fde(&w, cie, 0x1058, 0x10, INSNS(0));    /* overlaps the one before */
	eh_fde(&w, cie, 0x1070, 0x10, INSNS(0x3f)); /* a program we cannot read */
	eh_fde(&w, cie, 0x1080, 0x10, INSNS(0));
	t = table_of(EM_X86_64, 0);
	expect_rows(t,
		    (const struct fxs_cfi_row[]){
			    {0x1000, X86_ENTRY},
			    {0x1018, FXS_CFI_NONE},
			    {0x1020, X86_ENTRY},
			    {0x1021, RULE(FXS_CFI_SP, 2, -1, -2)},
			    {0x1030, FXS_CFI_NONE},
			    {0x1050, FXS_CFI_UNSUPPORTED},
			    {0x1068, FXS_CFI_NONE},
			    {0x1070, FXS_CFI_UNSUPPORTED},
			    {0x1080, X86_ENTRY},
			    {0x1090, FXS_CFI_NONE},
		    },
		    10);
	ck_assert_uint_eq(t->stats.fdes, 8);
	ck_assert_uint_eq(t->stats.fdes_empty, 1);
	ck_assert_uint_eq(t->stats.fdes_overlap, 2);
	ck_assert_uint_eq(t->stats.fdes_bad, 1);
	ck_assert_ptr_null(cfi_table_lookup(t, 0xfff));
	ck_assert_uint_eq(cfi_table_lookup(t, 0x1017)->rule, X86_ENTRY);
	ck_assert_uint_eq(cfi_table_lookup(t, 0x1025)->pc, 0x1021);
	ck_assert_uint_eq(cfi_table_lookup(t, 0xffffffff)->rule, FXS_CFI_NONE);
	ck_assert_ptr_null(cfi_table_lookup(t, 0x100000000ull));
	cfi_table_free(t);
}
END_TEST

/* The table of w's section with the ELF's entry at entry, in a segment ending at seg_end. */
static struct cfi_table *table_with_entry(uint64_t entry, uint64_t seg_end)
{
	struct cfi_section sec = {.data = w.b,
				  .size = w.n,
				  .vaddr = 0x10000,
				  .entry = entry,
				  .entry_seg_end = seg_end};
	struct cfi_table *t = NULL;

	ck_assert_int_eq(cfi_table_from_section(EM_X86_64, &sec, NULL, &t), 0);
	return t;
}

/*
 * An entry point no FDE covers (ld.so's _start) is END to the next FDE or
 * its segment's end; one an FDE covers, or none, leaves the table as it was.
 */
START_TEST(test_entry_without_fde)
{
	static const uint64_t same[][2] = {
		{0x1008, 0x2000}, {0, 0}, {0x1020, 0x1020}, {0x1020, 1ull << 33}};
	struct cfi_table *t;
	size_t cie;

	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	eh_fde(&w, cie, 0x1000, 0x10, INSNS(0));
	eh_fde(&w, cie, 0x1040, 0x10, INSNS(0));
	/* in the gap between the two: END from the entry to the second FDE */
	t = table_with_entry(0x1020, 0x2000);
	expect_rows(t,
		    (const struct fxs_cfi_row[]){
			    {0x1000, X86_ENTRY},
			    {0x1010, FXS_CFI_NONE},
			    {0x1020, FXS_CFI_END},
			    {0x1040, X86_ENTRY},
			    {0x1050, FXS_CFI_NONE},
		    },
		    5);
	ck_assert_uint_eq(t->stats.entry_end, 1);
	ck_assert_uint_eq(t->stats.rows_by_kind[FXS_CFI_END], 1);
	ck_assert_uint_eq(t->stats.bytes, 5 * 8);
	cfi_table_free(t);
	/* at the gap's first byte: that NONE row becomes END */
	t = table_with_entry(0x1010, 0x2000);
	expect_rows(t,
		    (const struct fxs_cfi_row[]){
			    {0x1000, X86_ENTRY},
			    {0x1010, FXS_CFI_END},
			    {0x1040, X86_ENTRY},
			    {0x1050, FXS_CFI_NONE},
		    },
		    4);
	cfi_table_free(t);
	/* past the last FDE: END to the segment's end, NONE after */
	t = table_with_entry(0x1060, 0x1800);
	expect_rows(t,
		    (const struct fxs_cfi_row[]){
			    {0x1000, X86_ENTRY},
			    {0x1010, FXS_CFI_NONE},
			    {0x1040, X86_ENTRY},
			    {0x1050, FXS_CFI_NONE},
			    {0x1060, FXS_CFI_END},
			    {0x1800, FXS_CFI_NONE},
		    },
		    6);
	cfi_table_free(t);
	/* below the first FDE */
	t = table_with_entry(0x800, 0x2000);
	ck_assert_uint_eq(t->rows[0].pc, 0x800);
	ck_assert_uint_eq(t->rows[0].rule, FXS_CFI_END);
	ck_assert_uint_eq(t->rows[1].pc, 0x1000);
	ck_assert_uint_eq(t->nrows, 5);
	ck_assert_ptr_null(cfi_table_lookup(t, 0x7ff));
	cfi_table_free(t);
	/*
	 * before an FDE that ends the stack too (its return address undefined,
	 * as a program's own _start says): one END row, not two in a row (the
	 * fuzzer's crash of 8de76f8, seed crash-entry-before-end-fde)
	 */
	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	eh_fde(&w, cie, 0x1000, 0x10, INSNS(0));
	eh_fde(&w, cie, 0x1040, 0x10, INSNS(0x0e, 0, 0x07, 16)); /* CFA rsp + 0: rule 0x3 */
	t = table_with_entry(0x1020, 0x2000);
	expect_rows(t,
		    (const struct fxs_cfi_row[]){
			    {0x1000, X86_ENTRY},
			    {0x1010, FXS_CFI_NONE},
			    {0x1020, FXS_CFI_END},
			    {0x1050, FXS_CFI_NONE},
		    },
		    4);
	ck_assert_uint_eq(t->stats.entry_end, 1);
	cfi_table_free(t);
	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	eh_fde(&w, cie, 0x1000, 0x10, INSNS(0));
	eh_fde(&w, cie, 0x1040, 0x10, INSNS(0));
	/* covered by an FDE, no entry, or outside its segment: as before */
	for (unsigned k = 0; k < 4; k++) {
		t = table_with_entry(same[k][0], same[k][1]);
		expect_rows(t,
			    (const struct fxs_cfi_row[]){
				    {0x1000, X86_ENTRY},
				    {0x1010, FXS_CFI_NONE},
				    {0x1040, X86_ENTRY},
				    {0x1050, FXS_CFI_NONE},
			    },
			    4);
		ck_assert_uint_eq(t->stats.entry_end, 0);
		cfi_table_free(t);
	}
}
END_TEST

START_TEST(test_rules)
{
	struct cfi_table *t;
	size_t cie, sig;

	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	sig = eh_cie(&w, "S", 1, -8, 16, 0x03, X86_CIE_INSNS);
	eh_fde(&w, cie, 0x1000, 0x100,
	       INSNS(0x0e, 12, 0x41,		    /* rsp + 12: not 8-aligned */
		     0x0c, 10, 8, 0x41,		    /* r10 + 8 */
		     0x0c, 7, 0x80, 0x80, 4, 0x41,  /* rsp + 0x10000: over 0x1fff words */
		     0x0c, 6, 16, 0x41,		    /* rbp + 16 */
		     0x86, 2, 0x41,		    /* rbp at CFA - 16 */
		     0x09, 6, 3, 0x41,		    /* rbp in rbx */
		     0x11, 16, 0x80, 0x02, 0x41,    /* ra at CFA - 2048 */
		     0x11, 16, 0x7f, 0x06, 6, 0x41, /* ra at CFA + 8; rbp restored */
		     0x08, 16, 0x41,		    /* ra "same value" on x86-64 */
		     0x07, 16, 0x41,		    /* ra undefined: the outermost frame */
		     0x0f, 1, 0x30, 0x41,	    /* def_cfa_expression, ra still undefined */
		     0x0c, 7, 8, 0x90, 1, 0x10, 7, 1, 0x77, 0x41, /* rsp's rule an expression */
		     0x0c, 7, 8, 0x14, 7, 0)); /* rsp = CFA + 0: what the walker does */
	eh_fde(&w, sig, 0x2000, 0x10, INSNS(0));
	t = table_of(EM_X86_64, 0);
	expect_rows(t,
		    (const struct fxs_cfi_row[]){
			    {0x1000, FXS_CFI_UNSUPPORTED},
			    {0x1003, RULE(FXS_CFI_FP, 2, -1, 0)},
			    {0x1004, RULE(FXS_CFI_FP, 2, -1, -2)},
			    {0x1005, FXS_CFI_UNSUPPORTED},
			    {0x1007, RULE(FXS_CFI_FP, 2, 1, 0)},
			    {0x1008, FXS_CFI_UNSUPPORTED},
			    {0x1009, RULE(FXS_CFI_END, 2, 0, 0)},
			    {0x100a, RULE(FXS_CFI_END, 0, 0, 0)},
			    {0x100b, FXS_CFI_UNSUPPORTED},
			    {0x100c, X86_ENTRY},
			    {0x1100, FXS_CFI_NONE},
			    {0x2000, RULE(FXS_CFI_SIGNAL, 1, -1, 0)},
			    {0x2010, FXS_CFI_NONE},
		    },
		    13);
	cfi_table_free(t);

	/* arm64: the return address still in x30 is a rule (ra 0); riscv64 the same in ra. */
	w.n = 0;
	cie = eh_cie(&w, "", 4, -8, 30, 0x03, INSNS(0x0c, 31, 0));
	eh_fde(&w, cie, 0x1000, 0x20, INSNS(0x41, 0x0e, 16, 0x9d, 2, 0x9e, 1, 0x41, 0x0c, 29, 16));
	/*
	 * A large frame: sub sp, sp, 1088; stp x29, x30, [sp]; add x29, sp, 0
	 * with CFA x29 + 2400: the frame record at the bottom, counted from
	 * the base register - 8 (FXS_CFI_LOW).
	 */
	eh_fde(&w, cie, 0x2000, 0x20,
	       INSNS(0x41, 0x0e, 0xc0, 0x08, 0x41, 0x9d, 0x88, 0x01, 0x9e, 0x87, 0x01, 0x41, 0x0c,
		     29, 0xe0, 0x12, 0x9d, 0xac, 0x02, 0x9e, 0xab, 0x02, 0x41, 0x9d, 0x80, 0x01));
	t = table_of(EM_AARCH64, 0);
	expect_rows(t,
		    (const struct fxs_cfi_row[]){
			    {0x1000, RULE(FXS_CFI_SP, 0, 0, 0)},
			    {0x1004, RULE(FXS_CFI_SP, 2, -1, -2)},
			    {0x1008, RULE(FXS_CFI_FP, 2, -1, -2)},
			    {0x1020, FXS_CFI_NONE},
			    {0x2000, RULE(FXS_CFI_SP, 0, 0, 0)},
			    {0x2004, RULE(FXS_CFI_SP, 136, 0, 0)},
			    {0x2008, RULE(FXS_CFI_LOW, 136, 2, 1)},
			    {0x200c, RULE(FXS_CFI_LOW, 300, 2, 1) | FXS_CFI_LOW_FP},
			    /* x29 at CFA - 1024, x30 at CFA - 2392: neither form fits both. */
			    {0x2010, FXS_CFI_UNSUPPORTED},
			    {0x2020, FXS_CFI_NONE},
		    },
		    10);
	ck_assert(t->rows[7].rule & FXS_CFI_LOW_FP);
	ck_assert_uint_eq(FXS_CFI_RULE_CFA(t->rows[7].rule), 2400);
	ck_assert_int_eq(FXS_CFI_RULE_RA(t->rows[7].rule), 16);
	cfi_table_free(t);
	/* A CIE whose return address column is not the link register. */
	w.n = 0;
	cie = eh_cie(&w, "", 4, -8, 17, 0x03, INSNS(0x0c, 31, 0));
	eh_fde(&w, cie, 0x1000, 0x20, INSNS(0));
	t = table_of(EM_AARCH64, 0);
	ck_assert_uint_eq(t->rows[0].rule, FXS_CFI_UNSUPPORTED);
	cfi_table_free(t);

	/*
	 * Frames up to 64 KiB: libLLVM-14's optimizer has CFA rsp + 33264, over
	 * 12 bits of words (bit 15 is the 13th). An arm64 frame record 40000
	 * bytes below the CFA fits neither form: FXS_CFI_LOW's offset stays 12
	 * bits, its bit 15 being its base.
	 */
	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	eh_fde(&w, cie, 0x1000, 0x20, INSNS(0x41, 0x0e, 0xf0, 0x83, 0x02));
	t = table_of(EM_X86_64, 0);
	ck_assert_uint_eq(t->rows[1].rule, RULE(FXS_CFI_SP, 4158, -1, 0));
	ck_assert_uint_eq(FXS_CFI_RULE_KIND(t->rows[1].rule), FXS_CFI_SP);
	ck_assert_uint_eq(FXS_CFI_RULE_CFA(t->rows[1].rule), 33264);
	ck_assert_int_eq(FXS_CFI_RULE_RA(t->rows[1].rule), -8);
	cfi_table_free(t);
	w.n = 0;
	cie = eh_cie(&w, "", 4, -8, 30, 0x03, INSNS(0x0c, 31, 0));
	eh_fde(&w, cie, 0x1000, 0x20,
	       INSNS(0x41, 0x0c, 29, 0xc0, 0xb8, 0x02, 0x9d, 0x88, 0x27, 0x9e, 0x87, 0x27));
	t = table_of(EM_AARCH64, 0);
	ck_assert_uint_eq(t->rows[1].rule, FXS_CFI_UNSUPPORTED);
	cfi_table_free(t);
}
END_TEST

START_TEST(test_crafted_errors)
{
	struct cfi_section sec;
	struct cfi_table *t;
	size_t cie;

	/* Found by fuzz_cfi_table: a CIE and no FDE made an empty, valid table. */
	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	t = table_of(EM_X86_64, 0);
	ck_assert_uint_eq(t->nrows, 0);
	ck_assert_ptr_null(cfi_table_lookup(t, 0x1000));
	cfi_table_free(t);
	/* Code at 4 GiB. */
	eh_fde(&w, cie, 0xfffffff0, 0x10, INSNS(0));
	t = table_of(EM_X86_64, -ERANGE);
	ck_assert_ptr_null(t);
	/* Malformed framing fails the table; an unknown arch too. */
	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	eh_fde(&w, cie, 0x1000, 0x10, INSNS(0));
	w.b[0] = 0xff;
	t = table_of(EM_X86_64, -EBADMSG);
	sec = (struct cfi_section){.data = w.b, .size = w.n};
	ck_assert_int_eq(cfi_table_from_section(EM_386, &sec, NULL, &t), -ENOEXEC);
	/* The row cap. */
	w.n = 0;
	cie = eh_cie(&w, "", 1, -8, 16, 0x03, X86_CIE_INSNS);
	for (unsigned i = 0; i < 2000; i++)
		eh_fde(&w, cie, 0x1000 + 32 * i, 16, INSNS(0));
	sec = (struct cfi_section){.data = w.b, .size = w.n, .vaddr = 0x10000};
	ck_assert_int_eq(cfi_table_from_section(EM_X86_64, &sec,
						&(struct cfi_table_opts){.max_rows = 4000}, &t),
			 0);
	ck_assert_uint_eq(t->nrows, 4000);
	cfi_table_free(t);
	ck_assert_int_eq(cfi_table_from_section(EM_X86_64, &sec,
						&(struct cfi_table_opts){.max_rows = 3999}, &t),
			 -E2BIG);
	ck_assert_ptr_null(t);
}
END_TEST

static Suite *cfi_table_suite(void)
{
	Suite *s = suite_create("cfi_table");
	TCase *tc = tcase_create("readelf");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_omit_frame_pointer);
	tcase_add_test(tc, test_frame_pointer_library);
	tcase_add_test(tc, test_debug_frame);
	tcase_add_test(tc, test_omit_leaf_frame_pointer);
	tcase_add_loop_test(tc, test_debian_objects, 0, 3);
	tcase_add_loop_test(tc, test_cross_objects, 0, 5);
	tcase_add_loop_test(tc, test_debian_cross_objects, 0, 4);
	tcase_add_test(tc, test_errors);
	if (getenv("FXS_CFI_OBJECTS"))
		tcase_add_test(tc, test_more_objects);
	suite_add_tcase(s, tc);
	tc = tcase_create("crafted");
	tcase_add_test(tc, test_gaps_merges_overlaps);
	tcase_add_test(tc, test_entry_without_fde);
	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_crafted_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int status;

	build_fixtures();
	status = check_run(cfi_table_suite());
	remove_fixtures();
	return status;
}
