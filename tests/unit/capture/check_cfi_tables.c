// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * capture/cfi_tables against arrays and maps of its own: tables shared by
 * build id, each process's ranges sorted and published, the memory cap with
 * LRU eviction, slices reused only two works after they were freed (and
 * after every record before the free was read), forks. A slice is the
 * module's page index and 4-byte rows (unwind/cfi_pages.h): NR_ROWS words.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/cfi_tables.h"
#include "unwind/cfi_pages.h"
#include "check_main.h"

#define NR_ROWS	  64
#define NR_RANGES 16

struct fake {
	uint32_t words[NR_ROWS];
	uint32_t rules[FXS_CFI_RULES_MAX];
	uint32_t nr_rules; /* the rules array's size: FXS_CFI_RULES_MAX when 0 */
	uint32_t gen_salt; /* added to the rules generate() makes */
	struct fxs_cfi_range ranges[NR_RANGES];
	struct fxs_cfi_table tables[FXS_CFI_MAX_TABLES];
	struct fxs_cfi_proc procs[64];
	bool has_proc[64];
	/* what generate() gives: rows, two rules alternating (1 and 2, + gen_salt) */
	uint32_t gen_rows;
	int gen_err;
	unsigned generated;
	uint64_t now; /* the records' clock */
	unsigned reopened;
	int reopen_err; /* what reopen() gives instead of an fd */
};

static struct fake fk;

static int set_table(void *ctx, uint32_t id, const struct fxs_cfi_table *t)
{
	(void)ctx;
	fk.tables[id] = *t;
	return 0;
}

static int set_proc(void *ctx, uint32_t pid, const struct fxs_cfi_proc *p)
{
	(void)ctx;
	if (pid >= 64)
		return -E2BIG;
	fk.has_proc[pid] = p != NULL;
	if (p)
		fk.procs[pid] = *p;
	return 0;
}

static bool has_proc(void *ctx, uint32_t pid)
{
	(void)ctx;
	return pid < 64 && fk.has_proc[pid];
}

/* BPF_EXIST: only an entry the kernel (or a publish) made. */
static int replace_proc(void *ctx, uint32_t pid, const struct fxs_cfi_proc *p)
{
	(void)ctx;
	if (pid >= 64)
		return -E2BIG;
	if (!fk.has_proc[pid])
		return -ENOENT;
	fk.procs[pid] = *p;
	return 0;
}

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	return fk.now;
}

static int generate(void *ctx, int fd, struct fxs_cfi_row **ret_rows, uint32_t *ret_n)
{
	(void)ctx;
	ck_assert_int_ge(fd, 0);
	fk.generated++;
	if (fk.gen_err)
		return fk.gen_err;
	*ret_rows = calloc(fk.gen_rows, sizeof(**ret_rows));
	for (uint32_t i = 0; i < fk.gen_rows; i++)
		(*ret_rows)[i] = (struct fxs_cfi_row){
			.pc = i * 16, .rule = FXS_CFI_SP | ((1 + fk.gen_salt + i % 2) << 8)};
	*ret_n = fk.gen_rows;
	return 0;
}

static int devnull(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

static int reopen(void *ctx, uint32_t id)
{
	(void)ctx;
	(void)id;
	fk.reopened++;
	return fk.reopen_err ? fk.reopen_err : devnull();
}

/* Tables over the fake's arrays, made on the loop (generate) unless start is given. */
static struct cfi_tables *make_with(bool (*start)(void *, uint32_t, int),
				    int (*collect)(void *, uint32_t, struct fxs_cfi_row **,
						   uint32_t *, uint64_t *))
{
	struct cfi_tables_ops ops = {
		.words = fk.words,
		.nr_words = NR_ROWS,
		.rules = fk.rules,
		.nr_rules = fk.nr_rules ? fk.nr_rules : FXS_CFI_RULES_MAX,
		.ranges = fk.ranges,
		.nr_ranges = NR_RANGES,
		.set_table = set_table,
		.set_proc = set_proc,
		.has_proc = has_proc,
		.replace_proc = replace_proc,
		.now = fake_now,
		.generate = generate,
		.start = start,
		.collect = collect,
		.reopen = reopen,
	};
	struct cfi_tables *t;
	uint32_t nr_rules = fk.nr_rules;

	memset(&fk, 0, sizeof(fk));
	fk.nr_rules = nr_rules;
	t = cfi_tables__new(&ops);
	ck_assert_ptr_nonnull(t);
	return t;
}

static struct cfi_tables *make(void)
{
	return make_with(NULL, NULL);
}

START_TEST(test_shared_by_build_id)
{
	struct cfi_tables *t = make();
	int fd = devnull(), a, b, c;
	struct cfi_tables_stats st;

	a = cfi_tables_module(t, "libc-id", 7, fd);
	b = cfi_tables_module(t, "libc-id", 7, fd);
	c = cfi_tables_module(t, "python-id", 9, fd);
	ck_assert_int_eq(a, b);
	ck_assert_int_ne(a, c);
	ck_assert(cfi_tables_pending(t));
	fk.gen_rows = 10;
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 2);
	ck_assert(!cfi_tables_pending(t));
	ck_assert_uint_eq(fk.generated, 2);
	/* each table its own slice, published */
	ck_assert_uint_eq(fk.tables[a].nr_rows, 10);
	ck_assert_uint_eq(fk.tables[c].nr_rows, 10);
	ck_assert_uint_ne(fk.tables[a].first, fk.tables[c].first);
	/* one page: 2 words of page index, 10 rows of 4 bytes; the rules each once */
	ck_assert_uint_eq(fk.tables[a].first_page, 0);
	ck_assert_uint_eq(fk.tables[a].nr_pages, 1);
	for (uint32_t i = 0; i < 10; i++) {
		struct cfi_pages g = {0, 1, 10};
		const uint32_t *w = &fk.words[fk.tables[a].first];
		struct cfi_rules r = {.rules = fk.rules, .cap = FXS_CFI_RULES_MAX, .n = 2};
		struct fxs_cfi_row row = cfi_pages_row(w, &g, &r, i);

		ck_assert_int_eq(cfi_pages_lookup(w, &g, i * 16 + 3), i);
		ck_assert_uint_eq(row.pc, i * 16);
		ck_assert_uint_eq(row.rule, FXS_CFI_SP | ((1 + i % 2) << 8));
	}
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.tables, 2);
	ck_assert_uint_eq(st.loaded, 2);
	ck_assert_uint_eq(st.rules, 2);
	ck_assert_uint_eq(st.row_bytes, 2 * 12 * sizeof(uint32_t));
	close(fd);
	cfi_tables__free(t);
}
END_TEST

START_TEST(test_ranges_sorted_and_republished)
{
	struct cfi_tables *t = make();
	int fd = devnull(), id = cfi_tables_module(t, "x", 1, fd);
	uint32_t first;

	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x7000, 0x8000, 0x6000, id), 0);
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x1000, 0x2000, 0x0, id), 0);
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x3000, 0x4000, 0x1000, -1), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 5), 0);
	ck_assert(fk.has_proc[5]);
	ck_assert_uint_eq(fk.procs[5].nr_ranges, 3);
	first = fk.procs[5].first_range;
	ck_assert_uint_eq(fk.ranges[first].start, 0x1000);
	ck_assert_uint_eq(fk.ranges[first + 1].start, 0x3000);
	ck_assert_uint_eq(fk.ranges[first + 1].kind, FXS_CFI_RANGE_NONE);
	ck_assert_uint_eq(fk.ranges[first + 2].start, 0x7000);
	ck_assert_uint_eq(fk.ranges[first + 2].bias, 0x6000);
	ck_assert_uint_eq(fk.ranges[first + 2].kind, FXS_CFI_RANGE_TABLE);
	/* a dlopen: a new slice, the old one not reused while a walk may read it */
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x9000, 0xa000, 0x9000, id), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 5), 0);
	ck_assert_uint_eq(fk.procs[5].nr_ranges, 4);
	ck_assert_uint_ne(fk.procs[5].first_range, first);
	cfi_tables_forget(t, 5);
	ck_assert(!fk.has_proc[5]);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/*
 * A new mapping replaces what it covers, as the kernel's does: the range it
 * covers goes, one it cuts keeps its pieces outside; each mapping learned
 * has a serial of its own (what the walker's stale ranges name).
 */
START_TEST(test_new_mapping_replaces_what_it_covers)
{
	struct cfi_tables *t = make();
	int fd = devnull(), id = cfi_tables_module(t, "x", 1, fd);
	const struct fxs_cfi_range *r;
	uint64_t old;

	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x1000, 0x2000, 0x0, id), 0);
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x4000, 0x8000, 0x4000, id), 0);
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x9000, 0xa000, 0x9000, id), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 5), 0);
	old = fk.ranges[fk.procs[5].first_range].serial;
	/* at the first's address: a library dlopened where a closed one was */
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x1000, 0x2000, 0x1000, -1), 0);
	/* in the middle of the second: two pieces stay */
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x5000, 0x6000, 0x5000, id), 0);
	/* over the third's head */
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x8800, 0x9800, 0x8800, id), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 5), 0);
	ck_assert_uint_eq(fk.procs[5].nr_ranges, 6);
	r = &fk.ranges[fk.procs[5].first_range];
	ck_assert_uint_eq(r[0].start, 0x1000);
	ck_assert_uint_eq(r[0].kind, FXS_CFI_RANGE_NONE);
	ck_assert_uint_ne(r[0].serial, old);
	ck_assert(r[1].start == 0x4000 && r[1].end == 0x5000 && r[1].bias == 0x4000);
	ck_assert(r[2].start == 0x5000 && r[2].end == 0x6000 && r[2].bias == 0x5000);
	ck_assert(r[3].start == 0x6000 && r[3].end == 0x8000 && r[3].bias == 0x4000);
	ck_assert(r[4].start == 0x8800 && r[4].end == 0x9800);
	ck_assert(r[5].start == 0x9800 && r[5].end == 0xa000 && r[5].bias == 0x9000);
	/* the pieces are still the mapping they were */
	ck_assert_uint_eq(r[1].serial, r[3].serial);
	for (int i = 0; i < 6; i++)
		for (int j = i + 1; j < 6; j++)
			if (!(i == 1 && j == 3))
				ck_assert_uint_ne(r[i].serial, r[j].serial);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/* Slices freed are reused two works later, never at once. */
START_TEST(test_freed_ranges_held)
{
	struct cfi_tables *t = make();
	uint32_t seen[8];

	for (int round = 0; round < 8; round++) {
		/* every record before the frees is read by the works */
		fk.now = round;
		/* 16 ranges in all: two processes of 4, twice over, fit only if freed slices come
		 * back */
		for (pid_t pid = 1; pid <= 2; pid++) {
			cfi_tables_forget(t, pid);
			for (int i = 0; i < 4; i++)
				ck_assert_int_eq(cfi_tables_mapping(t, pid, i * 0x1000,
								    i * 0x1000 + 0x1000, 0, -1),
						 0);
			ck_assert_int_eq(cfi_tables_publish(t, pid), 0);
		}
		seen[round] = fk.procs[1].first_range;
		ck_assert(fk.has_proc[1] && fk.has_proc[2]);
		cfi_tables_handed(t, round + 1);
		cfi_tables_work(t, 0);
		cfi_tables_work(t, 0);
	}
	/* the slice of the round before was never handed out again at once */
	for (int round = 1; round < 8; round++)
		ck_assert_uint_ne(seen[round], seen[round - 1]);
	cfi_tables__free(t);
}
END_TEST

START_TEST(test_cap_evicts_least_recent)
{
	struct cfi_tables *t = make();
	int fd = devnull(), a, b, c;
	struct cfi_tables_stats st;
	struct cfi_mod_info info[4];

	fk.gen_rows = 30;
	a = cfi_tables_module(t, "a", 1, fd);
	b = cfi_tables_module(t, "b", 1, fd);
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 2);
	/* b is used after a; then a's process exits: a is in use no more */
	cfi_tables_mapping(t, 1, 0x1000, 0x2000, 0, a);
	cfi_tables_publish(t, 1);
	cfi_tables_mapping(t, 2, 0x1000, 0x2000, 0, b);
	cfi_tables_publish(t, 2);
	cfi_tables_forget(t, 1);
	/* 64 words: a third table of 30 rows (32 words) evicts a, and loads once a's come back */
	c = cfi_tables_module(t, "c", 1, fd);
	cfi_tables_name(t, a, "/lib/a.so");
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 0);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 0);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 30);
	ck_assert(cfi_tables_pending(t));
	cfi_tables_work(t, 1000000000ULL);
	cfi_tables_work(t, 1000000000ULL);
	ck_assert(!cfi_tables_pending(t));
	ck_assert_uint_eq(fk.tables[c].nr_rows, 30);
	/* made once: its rows waited for the room, they were not made again */
	ck_assert_uint_eq(fk.generated, 3);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.evicted, 1);
	ck_assert_uint_eq(st.loaded, 2);
	ck_assert_uint_eq(cfi_tables_modules(t, info, 4), 1);
	ck_assert_str_eq(info[0].name, "/lib/a.so");
	ck_assert_int_eq(info[0].state, CFI_MOD_EVICTED);
	/* larger than the whole cap: no table, left out, nothing evicted for it */
	fk.gen_rows = NR_ROWS + 1;
	cfi_tables_module(t, "huge", 4, fd);
	cfi_tables_work(t, 1000000000ULL);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.left_out, 1);
	ck_assert_uint_eq(st.failed, 0);
	ck_assert_uint_eq(st.evicted, 1);
	ck_assert_uint_eq(cfi_tables_modules(t, info, 4), 2);
	ck_assert_int_eq(info[1].state, CFI_MOD_LEFT_OUT);
	ck_assert_uint_eq(info[1].bytes, (NR_ROWS + 3) * sizeof(uint32_t));
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/*
 * Issue 37: two modules in use that do not fit together never evict each
 * other over and over. The one that came last is left out (no table: by frame
 * pointers, marked), the other stays loaded; when a process that mapped the
 * first exits, the one left out is made.
 */
START_TEST(test_in_use_never_evicted)
{
	struct cfi_tables *t = make();
	int fd = devnull(), a, b;
	struct cfi_tables_stats st;
	struct cfi_mod_info info[2];

	fk.gen_rows = 40;
	a = cfi_tables_module(t, "a", 1, fd);
	b = cfi_tables_module(t, "b", 1, fd);
	cfi_tables_name(t, b, "/usr/lib/libclang-cpp.so.14");
	cfi_tables_mapping(t, 1, 0x1000, 0x2000, 0, a);
	cfi_tables_mapping(t, 1, 0x3000, 0x4000, 0, b);
	cfi_tables_publish(t, 1);
	for (int i = 0; i < 10; i++) {
		cfi_tables_work(t, 1000000000ULL);
		/* a later process maps both too: still nothing evicted */
		cfi_tables_mapping(t, 2 + i, 0x1000, 0x2000, 0, a);
		cfi_tables_mapping(t, 2 + i, 0x3000, 0x4000, 0, b);
		cfi_tables_publish(t, 2 + i);
	}
	ck_assert_uint_eq(fk.tables[a].nr_rows, 40);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 0);
	ck_assert_uint_eq(fk.generated, 2);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.evicted, 0);
	ck_assert_uint_eq(st.left_out, 1);
	ck_assert_uint_eq(cfi_tables_modules(t, info, 2), 1);
	ck_assert_str_eq(info[0].name, "/usr/lib/libclang-cpp.so.14");
	ck_assert_int_eq(info[0].state, CFI_MOD_LEFT_OUT);
	ck_assert_uint_eq(info[0].bytes, 42 * sizeof(uint32_t));

	/* every process that mapped a goes, b's process stays: b comes in */
	for (int pid = 1; pid < 12; pid++)
		cfi_tables_forget(t, pid);
	cfi_tables_mapping(t, 20, 0x3000, 0x4000, 0, b);
	cfi_tables_publish(t, 20);
	for (int i = 0; i < 4; i++)
		cfi_tables_work(t, 1000000000ULL);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 40);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 0);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.evicted, 1);
	ck_assert_uint_eq(st.left_out, 0);
	ck_assert_uint_eq(st.loaded, 1);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/*
 * Two modules in use, a (loaded) and b (left out: the two do not fit), both
 * files that can be opened again; 0 when set up.
 */
static struct cfi_tables *make_a_in_b_out(int fd, int *a, int *b, bool a_reopenable)
{
	struct cfi_tables *t = make();

	fk.gen_rows = 40;
	*a = a_reopenable ? cfi_tables_module_reopenable(t, "a", 1, fd)
			  : cfi_tables_module(t, "a", 1, fd);
	*b = cfi_tables_module_reopenable(t, "b", 1, fd);
	cfi_tables_name(t, *a, "/usr/lib/libLLVM-14.so.1");
	cfi_tables_name(t, *b, "/usr/lib/libclang-cpp.so.14");
	cfi_tables_mapping(t, 1, 0x1000, 0x2000, 0, *a);
	cfi_tables_mapping(t, 1, 0x3000, 0x4000, 0, *b);
	cfi_tables_publish(t, 1);
	ck_assert(!cfi_tables_short(t));
	cfi_tables_work(t, 1000000000ULL);
	ck_assert_uint_eq(fk.tables[*a].nr_rows, 40);
	ck_assert_uint_eq(fk.tables[*b].nr_rows, 0);
	ck_assert(cfi_tables_short(t));
	return t;
}

/*
 * A window of 128 stacks: lost of them lost their table in module `lost`,
 * `first` of those walked by `walked` first; `only` more walked by `walked`
 * and whole. Then works enough for a table let in to be loaded.
 */
static void stacks(struct cfi_tables *t, uint32_t lost, unsigned nr_lost, uint32_t walked,
		   unsigned first, unsigned only)
{
	for (unsigned i = 0; i < nr_lost; i++)
		cfi_tables_demand(t, &walked, i < first, lost);
	for (unsigned i = 0; i < only; i++)
		cfi_tables_demand(t, &walked, 1, UINT32_MAX);
	for (unsigned i = nr_lost + only; i < 128; i++)
		cfi_tables_demand(t, NULL, 0, UINT32_MAX);
	for (int i = 0; i < 4; i++)
		cfi_tables_work(t, 1000000000ULL);
}

/*
 * Issue 37: which of two tables in use gets the room is for the stacks to
 * say. A CI run left libclang-cpp out for libLLVM (mapped first in the maps'
 * address order), and as every stack of clang passes through libclang-cpp,
 * none was whole. The one most stacks lost their table in is let in, the one
 * fewer walked by is left out in its place, and they do not take each
 * other's room in turn: back only for twice the stacks again, and at most
 * four moves each.
 */
START_TEST(test_room_to_the_stacks_need)
{
	int fd = devnull(), a, b;
	struct cfi_tables *t = make_a_in_b_out(fd, &a, &b, true);
	struct cfi_tables_stats st;
	struct cfi_mod_info info[2];

	/* 112 of 128 stacks lost their table in b, 16 whole by a */
	stacks(t, (uint32_t)b, 112, (uint32_t)a, 0, 16);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 40);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 0);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.swapped, 1);
	ck_assert_uint_eq(st.left_out, 1);
	ck_assert_uint_eq(st.evicted, 0);
	ck_assert_uint_eq(st.loaded, 1);
	ck_assert_uint_eq(fk.generated, 3); /* b made again from its file */
	ck_assert_uint_eq(cfi_tables_modules(t, info, 2), 1);
	ck_assert_str_eq(info[0].name, "/usr/lib/libLLVM-14.so.1");
	ck_assert_int_eq(info[0].state, CFI_MOD_LEFT_OUT);

	/* a quarter lost in a, but b walked them all: b stays */
	stacks(t, (uint32_t)a, 32, (uint32_t)b, 0, 96);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 40);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.swapped, 1);

	/* the program's phases change, all its stacks each way in turn: four moves, then still */
	for (int i = 0; i < 10; i++) {
		bool want_a = i % 2 == 0;

		stacks(t, (uint32_t)(want_a ? a : b), 128, 0, 0, 0);
	}
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.swapped, 4);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 40);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 0);
	ck_assert_uint_eq(st.left_out, 1);
	ck_assert_uint_eq(st.loaded, 1);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/*
 * A table's rows are one stretch: the room made for b is, though leaving out
 * a (walked by no stack) would free as many rows as leaving out c (walked by
 * some), as a's rows are not beside the free ones. c goes, a stays.
 */
START_TEST(test_room_in_one_stretch)
{
	struct cfi_tables *t = make();
	int fd = devnull(), a, b, c;
	uint32_t walked;
	struct cfi_tables_stats st;

	fk.gen_rows = 20;
	a = cfi_tables_module_reopenable(t, "a", 1, fd);
	c = cfi_tables_module_reopenable(t, "c", 1, fd);
	cfi_tables_mapping(t, 1, 0x1000, 0x2000, 0, a);
	cfi_tables_mapping(t, 1, 0x3000, 0x4000, 0, c);
	cfi_tables_publish(t, 1);
	cfi_tables_work(t, 1000000000ULL);
	fk.gen_rows = 40;
	b = cfi_tables_module_reopenable(t, "b", 1, fd);
	cfi_tables_mapping(t, 1, 0x5000, 0x6000, 0, b);
	cfi_tables_publish(t, 1);
	cfi_tables_work(t, 1000000000ULL);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 20);
	ck_assert_uint_eq(fk.tables[c].nr_rows, 20);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 0);
	walked = (uint32_t)c;
	for (int i = 0; i < 128; i++)
		cfi_tables_demand(t, &walked, i < 8, i < 8 ? UINT32_MAX : (uint32_t)b);
	for (int i = 0; i < 4; i++)
		cfi_tables_work(t, 1000000000ULL);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 40);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 20);
	ck_assert_uint_eq(fk.tables[c].nr_rows, 0);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.swapped, 1);
	ck_assert_uint_eq(st.left_out, 1);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/*
 * No move: fewer than a quarter of the stacks lost their table in b; the
 * table in its way walked more than half as many as lost theirs in b; the
 * table in its way is on stacks that lost theirs in b (walked first: both
 * are needed, as clang's libLLVM and libclang-cpp); the table in its way
 * could not be made again (its file not reopenable).
 */
START_TEST(test_room_kept_without_demand)
{
	int fd = devnull(), a, b;
	struct cfi_tables *t = make_a_in_b_out(fd, &a, &b, true);
	struct cfi_tables_stats st;

	stacks(t, (uint32_t)b, 31, 0, 0, 0);
	stacks(t, (uint32_t)b, 64, (uint32_t)a, 0, 33);
	stacks(t, (uint32_t)b, 128, (uint32_t)a, 1, 0);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 40);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 0);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.swapped, 0);
	/* 128 stacks, fewer than the window: nothing looked at yet */
	for (int i = 0; i < 127; i++)
		cfi_tables_demand(t, NULL, 0, (uint32_t)b);
	cfi_tables_work(t, 1000000000ULL);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 0);
	cfi_tables_demand(t, NULL, 0, (uint32_t)b);
	cfi_tables_work(t, 1000000000ULL);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.swapped, 1);
	cfi_tables__free(t);

	t = make_a_in_b_out(fd, &a, &b, false);
	stacks(t, (uint32_t)b, 128, 0, 0, 0);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 40);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.swapped, 0);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/*
 * Tables made off the loop (ops.start/collect) are let in in the order their
 * modules came, whichever is made first: which one is left out when room runs
 * short is no race between the workers.
 */
static bool async_done[8];
static uint32_t async_rows[8];
static bool fake_start(void *ctx, uint32_t id, int fd)
{
	(void)ctx;
	(void)fd;
	return id < 8;
}

static int fake_collect(void *ctx, uint32_t id, struct fxs_cfi_row **ret_rows, uint32_t *ret_n,
			uint64_t *ret_ns)
{
	if (!async_done[id])
		return -EINPROGRESS;
	*ret_ns = 1000;
	fk.gen_rows = async_rows[id];
	return generate(ctx, 3, ret_rows, ret_n);
}

static struct cfi_tables *make_async(void)
{
	memset(async_done, 0, sizeof(async_done));
	return make_with(fake_start, fake_collect);
}

START_TEST(test_made_off_the_loop_in_order)
{
	struct cfi_tables *t = make_async();
	int fd = devnull(), a, b;

	a = cfi_tables_module(t, "a", 1, fd);
	b = cfi_tables_module(t, "b", 1, fd);
	async_rows[a] = async_rows[b] = 10;
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 0);
	ck_assert(cfi_tables_pending(t));
	/* b is made before a: it waits for a */
	async_done[b] = true;
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 0);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 0);
	ck_assert(cfi_tables_pending(t));
	async_done[a] = true;
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 2);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 10);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 10);
	ck_assert(!cfi_tables_pending(t));
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/* Room for one of two: the first mapped is in, though the second was made first. */
START_TEST(test_short_room_by_order_mapped)
{
	struct cfi_tables *t = make_async();
	int fd = devnull(), a, b;
	struct cfi_tables_stats st;

	a = cfi_tables_module(t, "a", 1, fd);
	b = cfi_tables_module(t, "b", 1, fd);
	/* one process maps both: neither is evicted for the other */
	cfi_tables_mapping(t, 1, 0x1000, 0x2000, 0, a);
	cfi_tables_mapping(t, 1, 0x3000, 0x4000, 0, b);
	cfi_tables_publish(t, 1);
	async_rows[a] = async_rows[b] = NR_ROWS / 2 + 8;
	async_done[b] = true;
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 0);
	async_done[a] = true;
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 1);
	ck_assert_uint_eq(fk.tables[a].nr_rows, NR_ROWS / 2 + 8);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 0);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.left_out, 1);
	ck_assert_uint_eq(st.loaded, 1);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/* A module without any FDE (libicudata: data, no code) is no failure. */
START_TEST(test_no_code_is_no_failure)
{
	struct cfi_tables *t = make();
	int fd = devnull(), a;
	struct cfi_tables_stats st;
	struct cfi_mod_info info[1];

	fk.gen_rows = 0;
	a = cfi_tables_module(t, "icudata", 7, fd);
	cfi_tables_work(t, 1000000000ULL);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.failed, 0);
	ck_assert_uint_eq(fk.tables[a].first, FXS_CFI_TABLE_FP);
	ck_assert_uint_eq(cfi_tables_modules(t, info, 1), 0);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/*
 * The rules every table shares are full: a module with new ones gets no
 * table (failed, named, its words given back); one with known rules still
 * loads, and the rules already written stay as they were.
 */
START_TEST(test_rules_full)
{
	struct cfi_tables *t;
	int fd = devnull(), a, b, c;
	struct cfi_tables_stats st;
	struct cfi_mod_info info[2];

	fk.nr_rules = 3;
	t = make();
	fk.gen_rows = 10;
	a = cfi_tables_module(t, "a", 1, fd);
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 1);
	/* b's two rules: one new fits, the next does not */
	fk.gen_salt = 2;
	b = cfi_tables_module(t, "b", 1, fd);
	cfi_tables_name(t, b, "/usr/lib/libmany-rules.so");
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 0);
	ck_assert_uint_eq(fk.tables[b].nr_rows, 0);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.failed, 1);
	ck_assert_uint_eq(st.rules, 2);
	ck_assert_uint_eq(st.row_bytes, 12 * sizeof(uint32_t));
	ck_assert_uint_eq(cfi_tables_modules(t, info, 2), 1);
	ck_assert_str_eq(info[0].name, "/usr/lib/libmany-rules.so");
	ck_assert_int_eq(info[0].state, CFI_MOD_FAILED);
	ck_assert_int_eq(info[0].err, -ENOSPC);
	/* one new rule fits; its words go where b's would have */
	fk.gen_salt = 1;
	c = cfi_tables_module(t, "c", 1, fd);
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 1);
	ck_assert_uint_eq(fk.tables[c].nr_rows, 10);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 10);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.rules, 3);
	ck_assert_uint_eq(fk.rules[0], FXS_CFI_SP | (1 << 8));
	ck_assert_uint_eq(fk.rules[1], FXS_CFI_SP | (2 << 8));
	ck_assert_uint_eq(fk.rules[2], FXS_CFI_SP | (3 << 8));
	fk.nr_rules = 0;
	close(fd);
	cfi_tables__free(t);
}
END_TEST

START_TEST(test_no_cfi_is_frame_pointers)
{
	struct cfi_tables *t = make();
	int fd = devnull(), a, v;
	struct cfi_tables_stats st;

	fk.gen_err = -ENOENT;
	a = cfi_tables_module(t, "go", 2, fd);
	/* nothing to read (the vdso of a process gone): no table, never queued */
	v = cfi_tables_module(t, "vdso", 4, -1);
	cfi_tables_work(t, 1000000000ULL);
	ck_assert_uint_eq(fk.tables[a].first, FXS_CFI_TABLE_FP);
	ck_assert_uint_eq(fk.tables[a].nr_rows, 0);
	ck_assert_uint_eq(fk.tables[v].nr_rows, 0);
	ck_assert_uint_ne(fk.tables[v].first, FXS_CFI_TABLE_FP);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.no_cfi, 1);
	ck_assert_uint_eq(st.failed, 1);
	ck_assert_uint_eq(fk.generated, 1);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/* The kernel dropped a process's ranges (an exec, its pid reused): never published again. */
START_TEST(test_dropped_by_the_kernel)
{
	struct cfi_tables *t = make();

	ck_assert_int_eq(cfi_tables_mapping(t, 7, 0x1000, 0x2000, 0, -1), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 7), 0);
	ck_assert(fk.has_proc[7]);
	fk.has_proc[7] = false;
	ck_assert_int_eq(cfi_tables_mapping(t, 7, 0x5000, 0x6000, 0, -1), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 7), 0);
	ck_assert(!fk.has_proc[7]);
	/* its maps read anew after the exec: published */
	cfi_tables_forget(t, 7);
	ck_assert_int_eq(cfi_tables_mapping(t, 7, 0x5000, 0x6000, 0, -1), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 7), 0);
	ck_assert(fk.has_proc[7]);
	ck_assert_uint_eq(fk.procs[7].nr_ranges, 1);
	cfi_tables__free(t);
}
END_TEST

/* pid gets n ranges of no table, and is published. */
static void give_ranges(struct cfi_tables *t, pid_t pid, unsigned n, uint64_t base)
{
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(cfi_tables_mapping(t, pid, base + i * 0x1000,
						    base + i * 0x1000 + 0x1000, 0, -1),
				 0);
	ck_assert_int_eq(cfi_tables_publish(t, pid), 0);
}

/*
 * A fork: the kernel gave the child the parent's entry; the child gets its
 * own slice with the parent's ranges, and its later mappings add to them.
 */
START_TEST(test_fork_inherits)
{
	struct cfi_tables *t = make();

	give_ranges(t, 3, 2, 0x1000);
	/* the kernel's copy at the fork */
	fk.has_proc[9] = true;
	fk.procs[9] = fk.procs[3];
	ck_assert_int_eq(cfi_tables_fork(t, 3, 9, true), 0);
	ck_assert_uint_eq(fk.procs[9].nr_ranges, 2);
	ck_assert_uint_ne(fk.procs[9].first_range, fk.procs[3].first_range);
	ck_assert_uint_eq(fk.ranges[fk.procs[9].first_range].start, 0x1000);
	/* a dlopen in the child: the parent keeps its two */
	ck_assert_int_eq(cfi_tables_mapping(t, 9, 0x9000, 0xa000, 0, -1), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 9), 0);
	ck_assert_uint_eq(fk.procs[9].nr_ranges, 3);
	ck_assert_uint_eq(fk.procs[3].nr_ranges, 2);
	/* a later process on the pid: what the dead one had goes */
	fk.procs[9] = fk.procs[3];
	ck_assert_int_eq(cfi_tables_fork(t, 3, 9, true), 0);
	ck_assert_uint_eq(fk.procs[9].nr_ranges, 2);
	cfi_tables__free(t);
}
END_TEST

/*
 * The child execed before its fork record was read: the kernel dropped its
 * entry, and the parent's ranges are not published for its new image.
 */
START_TEST(test_fork_then_exec)
{
	struct cfi_tables *t = make();

	give_ranges(t, 3, 2, 0x1000);
	fk.has_proc[9] = false;
	ck_assert_int_eq(cfi_tables_fork(t, 3, 9, true), 0);
	ck_assert(!fk.has_proc[9]);
	/* its new image's mappings, read before its exec record: still not */
	ck_assert_int_eq(cfi_tables_mapping(t, 9, 0x9000, 0xa000, 0, -1), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 9), 0);
	ck_assert(!fk.has_proc[9]);
	/* the exec record: its maps anew, published */
	cfi_tables_forget(t, 9);
	ck_assert_int_eq(cfi_tables_mapping(t, 9, 0x9000, 0xa000, 0, -1), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 9), 0);
	ck_assert(fk.has_proc[9]);
	ck_assert_uint_eq(fk.procs[9].nr_ranges, 1);
	cfi_tables__free(t);
}
END_TEST

/* A child of a parent that is not the session's: the kernel's copy goes. */
START_TEST(test_fork_without_inherit)
{
	struct cfi_tables *t = make();

	give_ranges(t, 3, 2, 0x1000);
	fk.has_proc[9] = true;
	ck_assert_int_eq(cfi_tables_fork(t, 3, 9, false), 0);
	ck_assert(!fk.has_proc[9]);
	cfi_tables__free(t);
}
END_TEST

/*
 * A slice freed while a child forked before may use it (its fork record not
 * read yet) waits for every record before the free, however many works.
 */
START_TEST(test_freed_ranges_wait_for_records)
{
	struct cfi_tables *t = make();
	struct cfi_tables_stats st;

	fk.now = 100;
	give_ranges(t, 1, 4, 0x1000);
	/* a dlopen: 5 ranges in a new slice, the old 4 held at 100 */
	give_ranges(t, 1, 1, 0x20000);
	ck_assert_uint_eq(fk.procs[1].nr_ranges, 5);
	cfi_tables_handed(t, 99);
	for (int i = 0; i < 4; i++)
		cfi_tables_work(t, 0);
	/* 16 in all: 7 free, the 4 held are not */
	give_ranges(t, 2, 7, 0x1000);
	give_ranges(t, 3, 4, 0x1000);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.proc_dropped, 1);
	ck_assert(!fk.has_proc[3]);
	/* every record up to 101 read: the 4 come back */
	cfi_tables_handed(t, 101);
	cfi_tables_work(t, 0);
	ck_assert_int_eq(cfi_tables_publish(t, 3), 0);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.proc_dropped, 1);
	ck_assert(fk.has_proc[3]);
	ck_assert_uint_eq(fk.procs[3].nr_ranges, 4);
	cfi_tables__free(t);
}
END_TEST

/*
 * A process exits (the kernel drops its entry): a work's sweep gives its
 * slice back, publishes nothing more for the pid until every record from
 * before is read, then forgets it.
 */
START_TEST(test_sweep_exited)
{
	struct cfi_tables *t = make();
	struct cfi_tables_stats st;

	fk.now = 10;
	give_ranges(t, 4, 8, 0x1000);
	give_ranges(t, 5, 8, 0x1000);
	fk.has_proc[4] = false;
	cfi_tables_handed(t, 9);
	cfi_tables_work(t, 0);
	cfi_tables_work(t, 0);
	/* a late record of the dead process (before its exit): not published */
	fk.now = 20;
	ck_assert_int_eq(cfi_tables_mapping(t, 4, 0x9000, 0xa000, 0, -1), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 4), 0);
	ck_assert(!fk.has_proc[4]);
	/* its 8 ranges came back (16 in all, 8 of pid 5) */
	cfi_tables_handed(t, 21);
	cfi_tables_work(t, 0);
	give_ranges(t, 6, 8, 0x1000);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(st.proc_dropped, 0);
	ck_assert(fk.has_proc[6]);
	/* every record from before read: the pid is forgotten, a new process on it published */
	fk.has_proc[6] = false;
	cfi_tables_work(t, 0);
	cfi_tables_handed(t, 31);
	cfi_tables_work(t, 0);
	cfi_tables_work(t, 0);
	give_ranges(t, 4, 2, 0x1000);
	ck_assert(fk.has_proc[4]);
	ck_assert_uint_eq(fk.procs[4].nr_ranges, 2);
	cfi_tables__free(t);
}
END_TEST

/*
 * Issue 40: mappings made between two drains publish once; past the cap of
 * a process, mappings are dropped (counted) and still cut what they cover.
 */
START_TEST(test_exec_begin_publish_soon_caps)
{
	struct cfi_tables *t = make();
	int fd = devnull(), id = cfi_tables_module(t, "x", 1, fd);
	uint32_t first;

	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x1000, 0x2000, 0, id), 0);
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x3000, 0x4000, 0, id), 0);
	ck_assert_int_eq(cfi_tables_publish(t, 5), 0);
	ck_assert_uint_eq(fk.procs[5].nr_ranges, 2);
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x1000, 0x4000, 0x9000, -1), 0);
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0x9000, 0xa000, 0x9000, id), 0);
	ck_assert_int_eq(cfi_tables_publish_soon(t, 5), 0);
	ck_assert_int_eq(cfi_tables_mapping(t, 5, 0xb000, 0xc000, 0x9000, id), 0);
	ck_assert_int_eq(cfi_tables_publish_soon(t, 5), 0);
	/* not yet: at the next drain's work, once */
	ck_assert_uint_eq(fk.procs[5].nr_ranges, 2);
	first = fk.procs[5].first_range;
	ck_assert_int_eq(cfi_tables_publish_pending(t), 0);
	ck_assert_uint_eq(fk.procs[5].nr_ranges, 3);
	ck_assert_uint_ne(fk.procs[5].first_range, first);
	ck_assert_uint_eq(fk.ranges[fk.procs[5].first_range].start, 0x1000);
	ck_assert_uint_eq(fk.ranges[fk.procs[5].first_range + 1].start, 0x9000);
	ck_assert_uint_eq(fk.ranges[fk.procs[5].first_range + 2].start, 0xb000);
	first = fk.procs[5].first_range;
	ck_assert_int_eq(cfi_tables_publish_pending(t), 0);
	ck_assert_uint_eq(fk.procs[5].first_range, first);
	/* the cap: what one entry holds */
	ck_assert_uint_eq(cfi_tables_ranges_dropped(t), 0);
	for (uint64_t i = 0; i < (1U << FXS_CFI_RANGES_LOG) + 3; i++)
		if (cfi_tables_mapping(t, 6, 0x100000 + i * 0x2000, 0x101000 + i * 0x2000, 0, id))
			ck_abort_msg("mapping %llu refused", (unsigned long long)i);
	/* a cap of each process's own */
	ck_assert_uint_eq(cfi_tables_ranges_dropped(t), 3);
	cfi_tables_forget(t, 5);
	cfi_tables_forget(t, 6);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

/* Workers given every table: the first CFI_TABLES_MAX_STARTED, and the next as each is taken. */
static unsigned started;
static bool start_all(void *ctx, uint32_t id, int fd)
{
	(void)ctx;
	(void)id;
	(void)fd;
	started++;
	return true;
}

START_TEST(test_started_capped)
{
	struct cfi_tables *t;
	int fd = devnull();
	char key[32];

	memset(async_done, 0, sizeof(async_done));
	t = make_with(start_all, fake_collect);
	for (int i = 0; i < 100; i++) {
		snprintf(key, sizeof(key), "lib%d.so", i);
		ck_assert_int_eq(cfi_tables_module(t, key, strlen(key), fd), i);
	}
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 0);
	ck_assert_uint_eq(started, CFI_TABLES_MAX_STARTED);
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 0);
	ck_assert_uint_eq(started, CFI_TABLES_MAX_STARTED);
	/* the first is made: one more starts */
	async_rows[0] = 1;
	async_done[0] = true;
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 1);
	ck_assert_int_eq(cfi_tables_work(t, 1000000000ULL), 0);
	ck_assert_uint_eq(started, CFI_TABLES_MAX_STARTED + 1);
	close(fd);
	cfi_tables__free(t);
}
END_TEST

static unsigned open_fds(void)
{
	unsigned n = 0;
	char path[64];

	for (int fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += !access(path, F_OK);
	}
	return n;
}

/*
 * A process mapping thousands of files: past CFI_TABLES_MAX_FDS queued, a
 * module's fd is not kept but opened again at its turn, and every one is
 * closed once its table is made. A file that cannot be opened again fails,
 * counted. A module that cannot be reopened (the vdso's memfd) keeps its fd.
 */
START_TEST(test_fds_capped)
{
	enum { N = 1000 };
	struct cfi_mod_info info[4];
	struct cfi_tables_stats st;
	unsigned before = open_fds();
	struct cfi_tables *t = make();
	int fd = devnull();
	char key[32];

	fk.gen_err = -ENOENT; /* no CFI: no rows, no room needed */
	for (int i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "lib%d.so", i);
		ck_assert_int_eq(cfi_tables_module_reopenable(t, key, strlen(key), fd), i);
	}
	ck_assert_uint_le(open_fds(), before + 1 + CFI_TABLES_MAX_FDS);
	while (cfi_tables_pending(t))
		ck_assert_int_ge(cfi_tables_work(t, 1000000000), 0);
	ck_assert_uint_eq(fk.generated, N);
	ck_assert_uint_eq(fk.reopened, N - CFI_TABLES_MAX_FDS);
	ck_assert_uint_eq(open_fds(), before + 1);
	cfi_tables__free(t);

	t = make();
	fk.gen_err = -ENOENT;
	fk.reopen_err = -ENOENT;
	for (int i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "lib%d.so", i);
		ck_assert_int_eq(cfi_tables_module_reopenable(t, key, strlen(key), fd), i);
	}
	/* the vdso's fd is kept past the cap */
	ck_assert_int_eq(cfi_tables_module(t, "[vdso]", 6, fd), N);
	ck_assert_uint_le(open_fds(), before + 2 + CFI_TABLES_MAX_FDS);
	while (cfi_tables_pending(t))
		ck_assert_int_ge(cfi_tables_work(t, 1000000000), 0);
	cfi_tables_stats(t, &st);
	ck_assert_uint_eq(fk.generated, CFI_TABLES_MAX_FDS + 1);
	ck_assert_uint_eq(st.failed, N - CFI_TABLES_MAX_FDS);
	ck_assert_uint_eq(cfi_tables_modules(t, info, 4), N + 1);
	ck_assert_int_eq(info[0].state, CFI_MOD_NO_CFI);
	ck_assert_uint_eq(open_fds(), before + 1);
	cfi_tables__free(t);
	close(fd);
}
END_TEST

static Suite *cfi_tables_suite(void)
{
	Suite *s = suite_create("cfi_tables");
	TCase *tc = tcase_create("tables");

	tcase_add_test(tc, test_shared_by_build_id);
	tcase_add_test(tc, test_ranges_sorted_and_republished);
	tcase_add_test(tc, test_new_mapping_replaces_what_it_covers);
	tcase_add_test(tc, test_freed_ranges_held);
	tcase_add_test(tc, test_cap_evicts_least_recent);
	tcase_add_test(tc, test_in_use_never_evicted);
	tcase_add_test(tc, test_room_to_the_stacks_need);
	tcase_add_test(tc, test_room_kept_without_demand);
	tcase_add_test(tc, test_room_in_one_stretch);
	tcase_add_test(tc, test_rules_full);
	tcase_add_test(tc, test_no_code_is_no_failure);
	tcase_add_test(tc, test_made_off_the_loop_in_order);
	tcase_add_test(tc, test_short_room_by_order_mapped);
	tcase_add_test(tc, test_no_cfi_is_frame_pointers);
	tcase_add_test(tc, test_dropped_by_the_kernel);
	tcase_add_test(tc, test_fork_inherits);
	tcase_add_test(tc, test_fork_then_exec);
	tcase_add_test(tc, test_fork_without_inherit);
	tcase_add_test(tc, test_freed_ranges_wait_for_records);
	tcase_add_test(tc, test_sweep_exited);
	tcase_add_test(tc, test_exec_begin_publish_soon_caps);
	tcase_add_test(tc, test_fds_capped);
	tcase_add_test(tc, test_started_capped);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(cfi_tables_suite)
