// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of symbols/mappings, the symbolizer's mappings of a process
 * (issue 40): a repeat is not kept (unless another began over it since),
 * a mapping of another file or bias over an older one is a change (the
 * newer of the two, whichever order they come in), a pc resolves to the
 * newest mapping begun by its time, else the oldest; random mappings
 * against a linear scan; and 125,000 of them, as a program mapping and
 * unmapping regions makes, added and looked up in a bound a list with
 * linear inserts could not meet (it took 61 s in report).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "symbols/mappings.h"
#include "check_main.h"

static uint64_t seq;

static struct mapping_entry *mk(uint64_t start, uint64_t size, uint64_t vaddr, uint16_t module,
				uint64_t ts)
{
	struct mapping_entry *m = calloc(1, sizeof(*m));

	ck_assert_ptr_nonnull(m);
	m->node.start = start;
	m->size = size;
	m->vaddr = vaddr;
	m->module_id = module;
	m->flags = 5;
	m->ts = ts;
	m->node.end = start + size;
	m->node.seq = ++seq;
	return m;
}

/* 0 kept, 1 a repeat (freed); *ret_change */
static int add(struct mappings *ms, struct mapping_entry *m, bool *ret_change)
{
	bool change;
	int r = mappings_add(ms, m, &change);

	if (r)
		free(m);
	if (ret_change)
		*ret_change = change;
	return r;
}

START_TEST(test_repeat_change_lookup)
{
	struct mappings ms = {0};
	struct mapping_entry *a = mk(0x1000, 0x1000, 0, 1, 10), *b, *a2, *c;
	bool change;

	ck_assert_int_eq(add(&ms, a, &change), 0);
	ck_assert(!change);
	/* the same again: a repeat */
	ck_assert_int_eq(add(&ms, mk(0x1000, 0x1000, 0, 1, 12), &change), 1);
	/* another file over it: a change from its time */
	b = mk(0x1800, 0x1000, 0, 2, 20);
	ck_assert_int_eq(add(&ms, b, &change), 0);
	ck_assert(change && b->is_change && !a->is_change);
	ck_assert_ptr_eq(mappings_find(&ms, 0x1900, 15), a);
	ck_assert_ptr_eq(mappings_find(&ms, 0x1900, 25), b);
	ck_assert_ptr_eq(mappings_find(&ms, 0x1100, 25), a);
	/* before any began: the oldest */
	ck_assert_ptr_eq(mappings_find(&ms, 0x1900, 1), a);
	ck_assert_ptr_null(mappings_find(&ms, 0x2800, 25));
	ck_assert_uint_eq(mappings_epoch(&ms, 15), 0);
	ck_assert_uint_eq(mappings_epoch(&ms, 25), 21);
	/* a again, after b began over it: no repeat, the file mapped anew */
	a2 = mk(0x1000, 0x1000, 0, 1, 30);
	ck_assert_int_eq(add(&ms, a2, &change), 0);
	ck_assert(change);
	ck_assert_ptr_eq(mappings_find(&ms, 0x1900, 35), a2);
	/* the same file at the same bias is no change */
	ck_assert_int_eq(add(&ms, mk(0x1000, 0x800, 0, 1, 40), &change), 0);
	ck_assert(!change);
	/* one recorded late, older than a: a is the change */
	c = mk(0x1000, 0x10, 0x500, 3, 5);
	ck_assert_int_eq(add(&ms, c, &change), 0);
	ck_assert(change && a->is_change && !c->is_change);
	ck_assert_ptr_eq(mappings_find(&ms, 0x1008, 7), c);
	mappings_free(&ms);
}
END_TEST

#define NR 300
START_TEST(test_find_against_scan)
{
	struct mappings ms = {0};
	struct mapping_entry *kept[NR];
	unsigned seed = 11, n = 0;

	for (unsigned i = 0; i < NR; i++) {
		uint64_t start = (rand_r(&seed) % 64) * 0x100;
		struct mapping_entry *m =
			mk(start, 0x100 * (1 + rand_r(&seed) % 4), (rand_r(&seed) % 2) * 0x100,
			   1 + rand_r(&seed) % 2, rand_r(&seed) % 1000);
		bool change;

		if (mappings_add(&ms, m, &change)) {
			free(m);
			continue;
		}
		kept[n++] = m;
	}
	for (uint64_t pc = 0; pc < 64 * 0x100 + 0x400; pc += 0x40) {
		for (uint64_t ts = 0; ts < 1000; ts += 37) {
			struct mapping_entry *best = NULL, *oldest = NULL;

			for (unsigned i = 0; i < n; i++) {
				struct mapping_entry *m = kept[i];
				bool older;

				if (pc < m->node.start || pc >= m->node.end)
					continue;
				older = !oldest || m->ts < oldest->ts ||
					(m->ts == oldest->ts && m->node.seq < oldest->node.seq);
				if (older)
					oldest = m;
				if (m->ts <= ts &&
				    (!best || m->ts > best->ts ||
				     (m->ts == best->ts && m->node.seq > best->node.seq)))
					best = m;
			}
			if (mappings_find(&ms, pc, ts) != (best ? best : oldest))
				ck_abort_msg("pc %#llx at %llu: not the scan's mapping",
					     (unsigned long long)pc, (unsigned long long)ts);
		}
	}
	mappings_free(&ms);
}
END_TEST

/* 125,000 as bench/fxtgen makes them (every other one over the one before, another file). */
START_TEST(test_many_linear)
{
	const uint64_t top = 0x7f0000000000ULL, page = 4096, n = 125000;
	struct mappings ms = {0};
	struct timespec a, b;
	double took;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (uint64_t i = 0; i < n; i++) {
		struct mapping_entry *m = mk(top - (i / 2 + 1) * page, page, (i % 2) * page,
					     (uint16_t)(1 + i % 2), 1000 + i);
		bool change;

		/* one check each: check's asserts are slow in a loop this long */
		if (mappings_add(&ms, m, &change) ||
		    mappings_find(&ms, m->node.start + 16, m->ts) != m)
			ck_abort_msg("mapping %llu not added or not found", (unsigned long long)i);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	took = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	fprintf(stderr, "125,000 mappings added and looked up in %.3f s\n", took);
	/* does not hang: the lists took minutes; this takes a tenth of a second */
	ck_assert_msg(took < 20, "%.1f s", took);
	ck_assert_uint_eq(ms.nr_changes, n / 2);
	mappings_free(&ms);
}
END_TEST

static Suite *mappings_suite(void)
{
	Suite *s = suite_create("mappings");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_repeat_change_lookup);
	tcase_add_test(tc, test_find_against_scan);
	tcase_add_test(tc, test_many_linear);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(mappings_suite)
