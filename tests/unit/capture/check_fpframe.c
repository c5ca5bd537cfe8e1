// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * include/fpframe.h: the BPF walkers' decision for riscv64's first frame, on
 * stack bytes recorded from a real program (tests/data/fpframe/record.sh:
 * tests/progs/leafchain built by Debian's riscv64-linux-gnu-gcc-12, stopped
 * under qemu-riscv64-static in its GCC leaf spin_leaf, and in leaf_caller).
 * A small walker here applies the decision the way bpf/walk.bpf.h's walkers
 * do, to the recorded image, and names the frames from the program's symbols.
 */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpframe.h"
#include "check_main.h"
#include "fixture.h"

#define MAX_WORDS 512
#define MAX_SYMS  16
#define MAX_DEPTH 16

/* One recorded stop: the registers and the stack words from sp up. */
struct image {
	uint64_t pc, sp, s0, ra;
	uint64_t base;
	uint64_t w[MAX_WORDS];
	size_t n;
};

struct sym {
	uint64_t addr, size;
	char name[64];
};

static struct sym syms[MAX_SYMS];
static size_t nsyms;

static void load_image(const char *name, struct image *im)
{
	const char *path = test_data(name);
	FILE *f = fopen(path, "re");
	char line[256], reg[8];
	uint64_t a, v;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	memset(im, 0, sizeof(*im));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "reg %7s %" SCNx64, reg, &v) == 2) {
			if (!strcmp(reg, "pc"))
				im->pc = v;
			else if (!strcmp(reg, "sp"))
				im->sp = v;
			else if (!strcmp(reg, "s0"))
				im->s0 = v;
			else if (!strcmp(reg, "ra"))
				im->ra = v;
		} else if (sscanf(line, "%" SCNx64 " %" SCNx64, &a, &v) == 2) {
			if (!im->n)
				im->base = a;
			ck_assert_uint_eq(a, im->base + im->n * 8);
			ck_assert_uint_lt(im->n, MAX_WORDS);
			im->w[im->n++] = v;
		}
	}
	fclose(f);
	ck_assert_msg(im->sp && im->s0 && im->pc && im->ra && im->n > 64, "%s: incomplete", path);
	ck_assert_uint_eq(im->base, im->sp);
}

static void load_syms(void)
{
	const char *path = test_data("fpframe/riscv64-symbols.txt");
	FILE *f = fopen(path, "re");

	ck_assert_msg(f != NULL, "cannot open %s", path);
	nsyms = 0;
	while (nsyms < MAX_SYMS && fscanf(f, "%" SCNx64 " %" SCNu64 " %63s", &syms[nsyms].addr,
					  &syms[nsyms].size, syms[nsyms].name) == 3)
		nsyms++;
	fclose(f);
	ck_assert_uint_ge(nsyms, 7);
}

/* The function holding pc, "?" for none (report's [unmapped]). */
static const char *sym_name(uint64_t pc)
{
	for (size_t i = 0; i < nsyms; i++)
		if (pc >= syms[i].addr && pc < syms[i].addr + syms[i].size)
			return syms[i].name;
	return "?";
}

/* The word at addr, if the image holds it. */
static bool word_at(const struct image *im, uint64_t addr, uint64_t *v)
{
	if (addr < im->base || addr - im->base >= im->n * 8 || (addr & 7))
		return false;
	*v = im->w[(addr - im->base) / 8];
	return true;
}

/*
 * walk_simple on the image: the record at fp - 16, the first frame by
 * fxs_rv_first_frame (leaf_rule), every later one by the record; the same
 * stops (fp 0 or unaligned, a word outside the image, pc 0, an fp that does
 * not grow). Frames into pcs (pcs[0] = pc); returns their count.
 */
static size_t walk(const struct image *im, bool leaf_rule, uint64_t *pcs)
{
	uint64_t fp = im->s0, rec[2];
	__u64 ret, next;
	size_t n = 1;

	pcs[0] = im->pc;
	for (int i = 1; i < MAX_DEPTH; i++) {
		if (fp == 0 || (fp & 7))
			break;
		if (!word_at(im, fp - 16, &rec[0]) || !word_at(im, fp - 8, &rec[1]))
			break;
		if (i == 1 && leaf_rule) {
			fxs_rv_first_frame(im->sp, fp, im->ra, rec[0], rec[1], &ret, &next);
		} else {
			ret = rec[1];
			next = rec[0];
		}
		if (ret == 0)
			break;
		pcs[n++] = ret;
		if (next != 0 && next <= fp)
			break;
		fp = next;
	}
	return n;
}

/* The frames' functions, innermost first, ";"-joined (a return address names its call's). */
static const char *chain(const uint64_t *pcs, size_t n)
{
	static char buf[512];
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ";" : "",
				sym_name(i ? pcs[i] - 1 : pcs[i]));
	return buf;
}

/* What the walk gives up to main (the frames of libc's start beyond it vary). */
static const char *chain_to_main(const struct image *im, bool leaf_rule)
{
	uint64_t pcs[MAX_DEPTH];
	size_t n = walk(im, leaf_rule, pcs);
	const char *c = chain(pcs, n), *m = strstr(c, ";main");
	static char buf[512];

	snprintf(buf, sizeof(buf), "%.*s", m ? (int)(m - c + 5) : (int)strlen(c), c);
	return buf;
}

START_TEST(leaf_frame_takes_ra_and_the_saved_s0)
{
	struct image im;
	uint64_t slot;

	load_syms();
	load_image("fpframe/riscv64-leaf.txt", &im);
	ck_assert_str_eq(sym_name(im.pc), "spin_leaf");
	/* GCC 12's leaf frame: s0 = sp + 16, [s0-8] the caller's s0, above. */
	ck_assert_uint_eq(im.s0, im.sp + 16);
	ck_assert(word_at(&im, im.s0 - 8, &slot));
	ck_assert(fxs_rv_leaf_frame(im.sp, im.s0, slot));
	ck_assert_str_eq(chain_to_main(&im, true),
			 "spin_leaf;leaf_caller;chain_c;chain_b;chain_a;main");
	/*
	 * Without the rule the saved s0 is taken for a pc ("?", report's
	 * [unmapped]) and [s0-16], whatever the stack held (0 here), for the
	 * next frame pointer: the caller is lost, and here the rest too.
	 */
	ck_assert_str_eq(chain_to_main(&im, false), "spin_leaf;?");
}
END_TEST

START_TEST(nonleaf_frame_walks_its_record)
{
	struct image im;
	uint64_t slot;

	load_syms();
	load_image("fpframe/riscv64-nonleaf.txt", &im);
	ck_assert_str_eq(sym_name(im.pc), "leaf_caller");
	ck_assert(word_at(&im, im.s0 - 8, &slot));
	ck_assert_str_eq(sym_name(slot - 1), "chain_c");
	ck_assert(!fxs_rv_leaf_frame(im.sp, im.s0, slot));
	ck_assert_str_eq(chain_to_main(&im, true), "leaf_caller;chain_c;chain_b;chain_a;main");
	ck_assert_str_eq(chain_to_main(&im, true), chain_to_main(&im, false));
}
END_TEST

/*
 * The leaf's image with its ra slot overwritten: a word that is no frame
 * address above s0 is not followed; the walk takes it for a return address,
 * as for any frame, and goes on from [s0-16] (0 here: it stops).
 */
START_TEST(garbage_ra_slot_is_not_followed)
{
	struct image im;
	uint64_t pcs[MAX_DEPTH], garbage[7];
	size_t slot, n;

	load_image("fpframe/riscv64-leaf.txt", &im);
	slot = (im.s0 - 8 - im.base) / 8;
	garbage[0] = im.w[slot] + 4;		      /* unaligned */
	garbage[1] = im.s0 - 32;		      /* below s0 */
	garbage[2] = im.s0 + 8;			      /* above, but closer than a record */
	garbage[3] = im.s0;			      /* s0 itself */
	garbage[4] = im.s0 + FXS_RV_LEAF_MAX_GAP + 8; /* further than the stack limit */
	garbage[5] = 0xffffffff80001000ULL;	      /* a kernel address */
	garbage[6] = im.ra;			      /* a code address */
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		im.w[slot] = garbage[i];
		ck_assert_msg(!fxs_rv_leaf_frame(im.sp, im.s0, garbage[i]), "followed %#" PRIx64,
			      garbage[i]);
		n = walk(&im, true, pcs);
		ck_assert_uint_eq(n, 2);
		ck_assert_uint_eq(pcs[1], garbage[i]);
	}
}
END_TEST

START_TEST(bounds_of_a_frame_address)
{
	uint64_t sp = 0x4000800580, s0 = sp + 16;

	ck_assert(fxs_rv_leaf_frame(sp, s0, s0 + 16));
	ck_assert(fxs_rv_leaf_frame(sp, s0, s0 + FXS_RV_LEAF_MAX_GAP));
	ck_assert(!fxs_rv_leaf_frame(sp, s0, s0 + FXS_RV_LEAF_MAX_GAP + 8));
	/* s0 below sp + 16 is no frame pointer of this frame: nothing is taken from it. */
	ck_assert(!fxs_rv_leaf_frame(sp, sp + 8, sp + 64));
	ck_assert(!fxs_rv_leaf_frame(sp, sp - 16, sp + 64));
}
END_TEST

static Suite *fpframe_suite(void)
{
	Suite *s = suite_create("fpframe");
	TCase *tc = tcase_create("riscv64");

	tcase_add_test(tc, leaf_frame_takes_ra_and_the_saved_s0);
	tcase_add_test(tc, nonleaf_frame_walks_its_record);
	tcase_add_test(tc, garbage_ra_slot_is_not_followed);
	tcase_add_test(tc, bounds_of_a_frame_address);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(fpframe_suite)
