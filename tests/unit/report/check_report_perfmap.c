// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JIT frames in the report: a pc that no ELF file names is named by the
 * file's perf-map entries of its process (fxsampler.perfmap blobs, written
 * at the end as a capture writes them): "NAME [JIT]" in the top view, the
 * name in folded stacks, "(JIT)" in perf script, a pprof function; the later
 * of two overlapping entries wins; another process's entries and a pc no
 * entry covers are not named.
 */
#include <check.h>

#include "lang/perfmap.h"
#include "report_fixture.h"
#include "pprof_reader.h"

#define JIT 0x7f0000001000ULL

static const char blob100[] = "pid 100\n"
			      "1000 100 JS:*old /x/spin.js:1:1\n"
			      "7f0000001000 100 JS:~stale /x/spin.js:9:9\n"
			      "7f0000001000 80 JS:*spinA /x/spin.js:1:15\n";
static const char blob200[] = "pid 200\n"
			      "7f0000002000 100 JS:*other /x/other.js:1:1\n";

static void write_jit_fxt(const char *path)
{
	const uint64_t a[] = {JIT + 0x10, BASE + a_alpha + 5};
	const uint64_t b[] = {JIT + 0x1010, BASE + a_alpha + 5};
	FILE *f;
	struct fxt_stream *s = fxt_file_open(path, &f);

	ck_assert_int_eq(fxt_stream_process(s, 100, "node"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 100, 100, "node"), 0);
	stream_prog(s, 100);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(fxt_stream_backtrace(s, (1 + i) * MS, 100, 100, 0, a, 2), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 5 * MS, 100, 100, 0, b, 2), 0);
	/* the entries come at the end, as a capture writes them */
	ck_assert_int_eq(fxt_stream_blob(s, FXT_PERFMAP_BLOB, blob100, strlen(blob100)), 0);
	ck_assert_int_eq(fxt_stream_blob(s, FXT_PERFMAP_BLOB, blob200, strlen(blob200)), 0);
	ck_assert_int_eq(fxt_stream_blob(s, FXT_PERFMAP_BLOB, "pid x\n", 6), 0);
	fxt_file_close(s, f);
}

START_TEST(test_jit_frames)
{
	char path[PATH_MAX + 16], *out, *data;
	struct report_opts o = {.folded = true};
	struct profile pr;

	snprintf(path, sizeof(path), "%s/j.fxt", tmpdir);
	write_jit_fxt(path);

	out = report_text(path, &o);
	ck_assert_str_eq(out, "node;node;fxs_alpha;JS:*spinA /x/spin.js:1:15 3\n"
			      "node;node;fxs_alpha;[unknown] 1\n");
	free(out);

	o = (struct report_opts){.top = 4};
	out = report_text(path, &o);
	ck_assert_msg(
		strstr(out, "      3  75.00%        3  75.00%  JS:*spinA /x/spin.js:1:15 [JIT]\n"),
		"%s", out);
	ck_assert_msg(!strstr(out, "other") && !strstr(out, "stale"), "%s", out);
	free(out);

	data = report_pprof_perf_script(path, &pr);
	ck_assert(has_string(&pr, "JS:*spinA /x/spin.js:1:15"));
	free_profile(&pr);
	ck_assert_msg(strstr(data, " JS:*spinA /x/spin.js:1:15 (JIT)\n"), "%s", data);
	free(data);
}
END_TEST

static Suite *report_perfmap_suite(void)
{
	Suite *s = suite_create("report_perfmap");
	TCase *tc = tcase_create("jit");

	tcase_add_test(tc, test_jit_frames);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return report_fixture_main(report_perfmap_suite);
}
