// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report's default grouping on a busy capture (issue 28): progs/kinds
 * starts 200 short child processes ("alpha", "beta") and 100 short threads
 * ("gamma"), each kind with one known chain. By default the folded stacks
 * have one root per (process name, thread name) and one line per chain; the
 * split options give a root per thread again; go tool pprof -top shows the
 * three leaves with a third of the samples each, and its tags keep pid and tid.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"

static const char *const leaves[] = {"alpha_leaf", "beta_leaf", "gamma_leaf"};
static const char *const works[] = {";alpha_work;", ";beta_work;", ";gamma_work;"};

static void setup(void)
{
	live_make_dir("/tmp/fxs-group-XXXXXX");
}

static void teardown(void)
{
	live_remove_dir();
}

/* Each line of folded text, without its count; count in *ret_count. */
static const char *next_line(const char *p, char *line, size_t size, unsigned long *ret_count)
{
	const char *nl = strchr(p, '\n'), *sp;
	size_t n = nl ? (size_t)(nl - p) : strlen(p);

	if (n >= size)
		n = size - 1;
	memcpy(line, p, n);
	line[n] = '\0';
	sp = strrchr(line, ' ');
	*ret_count = sp ? strtoul(sp + 1, NULL, 10) : 0;
	if (sp)
		line[sp - line] = '\0';
	return nl ? nl + 1 : p + strlen(p);
}

/* Whether the folded line's last frame is fn. */
static bool ends_with_frame(const char *line, const char *fn)
{
	size_t n = strlen(line), m = strlen(fn);

	return n > m && line[n - m - 1] == ';' && !strcmp(line + n - m, fn);
}

/* How many distinct "process;thread" roots the folded text has (at most 1024 counted). */
static unsigned count_roots(const char *folded)
{
	static char roots[1024][160];
	char line[4096];
	unsigned long count;
	unsigned n = 0, i;

	for (const char *p = folded; *p;) {
		char *semi;

		p = next_line(p, line, sizeof(line), &count);
		semi = strchr(line, ';');
		semi = semi ? strchr(semi + 1, ';') : NULL;
		if (!semi)
			continue;
		*semi = '\0';
		for (i = 0; i < n && strcmp(roots[i], line); i++)
			;
		if (i == n && n < 1024)
			snprintf(roots[n++], sizeof(roots[0]), "%.159s", line);
	}
	return n;
}

static void record_kinds(void)
{
	struct run r;

	/* kinds sleeps 500 ms first: its own exec's first samples go by frame pointers */
	RUN(&r, "record", "-q", "-F", "999", "-o", out_path("kinds.fxt"), "--", prog("kinds"),
	    "200", "100", "8", "500");
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
}

START_TEST(test_default_grouping)
{
	char line[4096];
	unsigned long count, all = 0;
	unsigned roots;
	struct run r;

	record_kinds();
	RUN(&r, "report", "--folded", out_path("kinds.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report --folded failed: %s", r.err);
	roots = count_roots(r.out);
	printf("default: %u roots\n", roots);
	/* alpha;alpha, beta;beta, kinds;gamma, and kinds;kinds where the parent was sampled. */
	ck_assert_msg(roots >= 3 && roots <= 6, "%u roots, not 3 to 6", roots);
	for (unsigned k = 0; k < 3; k++) {
		unsigned long chain = 0, in_work = 0;
		unsigned lines = 0;

		for (const char *p = r.out; *p;) {
			p = next_line(p, line, sizeof(line), &count);
			if (k == 0)
				all += count;
			/*
			 * Under its work function, but not in cpu_ms, the clock the
			 * loop reads: a VM's clock reads alone took 5 % of it once.
			 */
			if (strstr(line, works[k]) && !strstr(line, ";cpu_ms"))
				in_work += count;
			/*
			 * Its leaf is the line's last frame: a sample in leaf_done, which
			 * the leaf calls, is another chain (CFI keeps the leaf in it).
			 */
			if (ends_with_frame(line, leaves[k])) {
				lines++;
				chain += count;
			}
		}
		printf("%s: %lu samples on %u line(s), %lu under its work function\n", leaves[k],
		       chain, lines, in_work);
		/* One line holds the chain's every sample in its leaf. */
		ck_assert_msg(lines == 1, "%s on %u lines:\n%s", leaves[k], lines, r.out);
		ck_assert_msg(chain * 100 >= in_work * 95, "%s: %lu of %lu", leaves[k], chain,
			      in_work);
		/* A third of the samples each, give or take. */
		ck_assert_msg(chain * 100 >= all * 20, "%s: %lu of %lu samples", leaves[k], chain,
			      all);
	}

	/* Split again: a root per thread, as before the default changed. */
	RUN(&r, "report", "--folded", "--split-threads", "--split-processes",
	    out_path("kinds.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report --split-*: %s", r.err);
	roots = count_roots(r.out);
	printf("--split-threads --split-processes: %u roots\n", roots);
	ck_assert_msg(roots > 100, "%u roots when split", roots);
}
END_TEST

/* go tool pprof's top rows: the three leaves, a third of the samples each. */
START_TEST(test_pprof_leaves)
{
	char cmd[1200], line[512];
	unsigned found = 0, rows = 0;
	bool tags_pid = false, tags_tid = false;
	struct run r;
	FILE *p;

	if (system("command -v go >/dev/null 2>&1"))
		ck_abort_msg("go is not installed: run 'make deps' (golang-go)");
	record_kinds();
	RUN(&r, "report", "--pprof", out_path("kinds.pb.gz"), out_path("kinds.fxt"));
	ck_assert_msg(exit_code(&r) == 0, "report --pprof failed: %s", r.err);
	snprintf(cmd, sizeof(cmd), "HOME=%s GOCACHE=%s/go go tool pprof -top '%s' 2>&1", tmpdir,
		 tmpdir, out_path("kinds.pb.gz"));
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		double flat, pct;
		char fn[256];

		if (strstr(line, "flat%")) {
			rows = 1;
			continue;
		}
		if (!rows || rows++ > 3)
			continue;
		/* "  840.10ms 31.85% 31.85%   840.10ms 31.85%  alpha_leaf" */
		if (sscanf(line, "%lf%*s %lf%% %*s %*s %*s %255s", &flat, &pct, fn) != 3)
			continue;
		printf("pprof -top: %s %.2f%%\n", fn, pct);
		for (unsigned k = 0; k < 3; k++)
			if (!strcmp(fn, leaves[k]) && pct >= 20 && pct <= 45)
				found |= 1u << k;
	}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(found == 7, "the three leaves are not go tool pprof's top rows (%#x)", found);

	/* The labels still carry pid and tid, for -tagfocus. */
	snprintf(cmd, sizeof(cmd), "HOME=%s GOCACHE=%s/go go tool pprof -tags '%s' 2>&1", tmpdir,
		 tmpdir, out_path("kinds.pb.gz"));
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		tags_pid |= strstr(line, " pid: Total") != NULL;
		tags_tid |= strstr(line, " tid: Total") != NULL;
	}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(tags_pid && tags_tid, "pprof -tags has no pid or no tid label");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("grouping");
	TCase *tc = tcase_create("kinds");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_default_grouping);
	tcase_add_test(tc, test_pprof_leaves);
	suite_add_tcase(s, tc);
	return live_main(s);
}
