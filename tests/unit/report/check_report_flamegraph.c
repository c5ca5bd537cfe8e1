// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* report_write_svg(): the frames, their geometry, merged slivers, cut labels. */
#include <check.h>

#include "report_fixture.h"

START_TEST(test_svg)
{
	struct report *r = new_report(&split);
	struct capture c;
	const char *svg;

	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);
	ck_assert_ptr_eq(strstr(svg, "<?xml "), svg);
	ck_assert_ptr_nonnull(strstr(svg, "<svg "));
	ck_assert_str_eq(svg + strlen(svg) - 7, "</svg>\n");
	/* No external resource of any kind. */
	ck_assert_ptr_null(strstr(svg, "href"));
	ck_assert_ptr_null(strstr(svg, "@import"));

	ck_assert_ptr_nonnull(strstr(svg, "<title>all (8 samples, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>fxs_static_leaf (3 samples, 37.50%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>fxs_static_leaf (1 sample, 12.50%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>main (2 samples, 25.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>[truncated] (1 sample, 12.50%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>prog (7 samples, 87.50%)</title>"));
	/* Escaped, and the ';' a folded line cannot hold is gone here too. */
	ck_assert_ptr_nonnull(
		strstr(svg, "<title>a:b&lt;&amp;&gt;-201 (1 sample, 12.50%)</title>"));
	ck_assert_ptr_null(strstr(svg, "<&>"));
	/* 18 frames, each a <g> with a title, a rect and its text. */
	ck_assert_uint_eq(count_of(svg, "<g><title>"), 18);
	ck_assert_uint_eq(count_of(svg, "</title><rect "), 18);
	ck_assert_uint_eq(count_of(svg, "<rect "), 19);
	ck_assert_uint_eq(count_of(svg, "<text x="), 18 + 1);
	free(c.buf);
	report__free(r);
}
END_TEST

/*
 * By default a process or thread frame holds every process and thread of its
 * name, and its details line says how many when that is more than one.
 */
START_TEST(test_svg_merged)
{
	const uint64_t pc[] = {0x1234};
	struct report *r = new_report(NULL);
	struct capture c;
	const char *svg;

	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);
	/* A process frame of one process, a thread frame of one thread: nothing more. */
	ck_assert_ptr_nonnull(strstr(svg, "<title>prog (7 samples, 87.50%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>worker (3 samples, 37.50%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>a:b&lt;&amp;&gt; (1 sample, 12.50%)</title>"));
	ck_assert_ptr_null(strstr(svg, "-201 ("));
	free(c.buf);

	/* A second "prog" with two "worker" threads: now both frames are merged. */
	ck_assert_int_eq(rec_process(r, 400, "prog"), 0);
	ck_assert_int_eq(rec_thread(r, 400, 401, "worker"), 0);
	ck_assert_int_eq(rec_thread(r, 400, 402, "worker"), 0);
	ck_assert_int_eq(rec_backtrace(r, 20 * MS, 400, 401, 0, pc, 1), 0);
	ck_assert_int_eq(rec_backtrace(r, 21 * MS, 400, 402, 0, pc, 1), 0);
	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);
	ck_assert_ptr_nonnull(
		strstr(svg, "<title>prog (9 samples, 90.00%; 2 processes, 4 threads)</title>"));
	ck_assert_ptr_nonnull(
		strstr(svg, "<title>worker (5 samples, 50.00%; 3 threads in 2 processes)</title>"));
	free(c.buf);
	report__free(r);
}
END_TEST

/* The width of a frame follows its samples; its text is cut to fit. */
START_TEST(test_svg_geometry)
{
	struct report *r = report__new(NULL);
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_BACKTRACE};
	const uint64_t wide[] = {0x10}, narrow[] = {0x20};
	struct fxt_record name = {.type = FXT_RT_KOBJ, .subtype = FXT_OBJ_THREAD};
	struct capture c;
	const char *svg, *p;
	double w_all = 0, w_thread = 0;
	unsigned i;

	ck_assert_ptr_nonnull(r);
	name.koid = 1;
	name.pid = 1;
	name.name = "a-thread-name-much-too-long-for-a-frame-of-one-sample-in-a-thousand";
	ck_assert_int_eq(report_add(r, &name), 0);
	rec.pid = 1;
	rec.tid = 1;
	rec.nr_frames = 1;
	for (i = 0; i < 1000; i++) {
		rec.frames = i ? wide : narrow;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);
	p = strstr(svg, "<title>all (1000 samples");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(strstr(p, "width=\""), "width=\"%lf\"", &w_all), 1);
	ck_assert_double_eq_tol(w_all, 1180, 0.01);
	p = strstr(svg,
		   "<title>a-thread-name-much-too-long-for-a-frame-of-one-sample-in-a-thousand "
		   "(1000 samples");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(strstr(p, "width=\""), "width=\"%lf\"", &w_thread), 1);
	ck_assert_double_eq_tol(w_thread, 1180, 0.01);
	/* The one-sample "[unknown]" frames of 0x10 and 0x20 merge: one frame of 1000. */
	ck_assert_ptr_nonnull(strstr(svg, "<title>[unknown] (1000 samples, 100.00%)</title>"));
	free(c.buf);
	report__free(r);
}
END_TEST

/* 100k distinct stacks: siblings under a pixel merge, the file stays small. */
START_TEST(test_svg_many_stacks)
{
	struct report *r = report__new(NULL);
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_BACKTRACE};
	struct fxt_record mod = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_MODULE};
	uint64_t frames[3];
	struct capture c;
	const char *svg, *p;
	uint64_t merged = 0, n;
	unsigned i;

	ck_assert_ptr_nonnull(r);
	/* A module that is not on disk: every pc is its own "libgone.so+0x..." frame. */
	mod.pid = 1;
	mod.module_id = 1;
	mod.name = "/nonexistent/libgone.so";
	ck_assert_int_eq(report_add(r, &mod), 0);
	mod.subtype = FXT_PROF_MMAP;
	mod.mmap_flags = PF_R | PF_X;
	mod.start = 0x100000;
	mod.size = 0x10000000;
	ck_assert_int_eq(report_add(r, &mod), 0);
	rec.pid = rec.tid = 1;
	rec.frames = frames;
	rec.nr_frames = 3;
	for (i = 0; i < 100000; i++) {
		frames[0] = 0x200000 + (uint64_t)i * 16; /* 100000 leaves */
		frames[1] = 0x110000 + (uint64_t)(i % 100) * 16;
		frames[2] = 0x100010;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);
	ck_assert_uint_lt(strlen(svg), 2 * 1024 * 1024);
	/* Each of the 100 middle frames holds its 1000 leaves as one merged frame. */
	for (p = svg; (p = strstr(p, "<title>[1000 frames, each under a pixel] (")); p++) {
		ck_assert_int_eq(
			sscanf(p, "<title>[1000 frames, each under a pixel] (%" SCNu64, &n), 1);
		merged += n;
	}
	ck_assert_uint_eq(merged, 100000);
	ck_assert_uint_eq(count_of(svg, "<title>libgone.so+0x10 (100000 samples, 100.00%)"), 1);
	free(c.buf);
	report__free(r);
}
END_TEST

START_TEST(test_svg_cut_labels)
{
	struct report *r = report__new(NULL);
	struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_BACKTRACE};
	struct fxt_record name = {.type = FXT_RT_KOBJ, .subtype = FXT_OBJ_PROCESS};
	static const char *const names[] = {"long-process-name", "other-process-with-a-long-name",
					    "tiny-process"};
	const uint64_t frames[] = {0x10};
	struct capture c;
	const char *svg, *p;
	double w;
	char text[512];
	unsigned i;

	ck_assert_ptr_nonnull(r);
	for (i = 0; i < 3; i++) {
		name.koid = i + 1;
		name.name = names[i];
		ck_assert_int_eq(report_add(r, &name), 0);
	}
	/* Of 1000 samples over 1180 px: 100 for pid 1, 895 for pid 2, 5 for pid 3. */
	rec.frames = frames;
	rec.nr_frames = 1;
	for (i = 0; i < 1000; i++) {
		rec.pid = rec.tid = i < 100 ? 1 : i < 995 ? 2 : 3;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
	ck_assert_int_eq(report_write_svg(r, capture_open(&c)), 0);
	svg = capture_text(&c);

	/* 118 px, 112 for the text: 15 glyphs of 7.2 px, so 13 and "..". */
	p = strstr(svg, "<title>long-process-name (100 samples, 10.00%)</title>");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(strstr(p, "width=\""), "width=\"%lf\"", &w), 1);
	ck_assert_double_eq_tol(w, 118, 0.01);
	ck_assert_int_eq(
		sscanf(strstr(p, "<text"), "<text x=\"%*[^\"]\" y=\"%*[^\"]\">%511[^<]", text), 1);
	ck_assert_str_eq(text, "long-process-..");

	p = strstr(svg, "<title>other-process-with-a-long-name (895 samples, 89.50%)</title>");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(
		sscanf(strstr(p, "<text"), "<text x=\"%*[^\"]\" y=\"%*[^\"]\">%511[^<]", text), 1);
	ck_assert_str_eq(text, "other-process-with-a-long-name");

	/* 5.9 px: too narrow for 3 glyphs, so no text in that frame. */
	p = strstr(svg, "<title>tiny-process (5 samples, 0.50%)</title>");
	ck_assert_ptr_nonnull(p);
	ck_assert((uintptr_t)strstr(p, "</g>") < (uintptr_t)(strstr(p, "<text") ?: p + strlen(p)));
	free(c.buf);
	report__free(r);
}
END_TEST

static Suite *report_flamegraph_suite(void)
{
	Suite *s = suite_create("report-flamegraph");
	TCase *formats = tcase_create("formats");

	tcase_add_test(formats, test_svg);
	tcase_add_test(formats, test_svg_merged);
	tcase_add_test(formats, test_svg_geometry);
	tcase_add_test(formats, test_svg_cut_labels);
	tcase_add_test(formats, test_svg_many_stacks);
	/* valgrind slows everything. */
	tcase_set_timeout(formats, 120);
	suite_add_tcase(s, formats);
	return s;
}

int main(void)
{
	return report_fixture_main(report_flamegraph_suite);
}
