// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* report_write_pprof(): a protobuf walk of the profile, and go tool pprof reading it. */
#include <check.h>

#include "pprof_reader.h"
#include "report_fixture.h"
#include "symbols/demangle.h"

START_TEST(test_pprof)
{
	struct report *r = new_report(NULL);
	struct profile pr;
	static const char *const want[] = {
		"samples",    "count",		 "cpu",		"nanoseconds", "pid",
		"tid",	      "fxs_static_leaf", "fxs_alpha",	"fxs_beta",    "main",
		"fxs_nosize", "[unknown]",	 "[truncated]", "thread",      "process"};
	bool worker = false, prog_main = false, unnamed = false;
	char hex[64];
	unsigned i, locations;
	uint64_t n;

	pprof_of(r, &pr);
	ck_assert_uint_ge(pr.nr_strings, 1);
	ck_assert_str_eq(pr.strings[0], "");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(has_string(&pr, want[i]), "no string %s", want[i]);
	ck_assert(has_string(&pr, prog));
	ck_assert(has_string(&pr, elf_build_id_hex(build_id, sizeof(build_id), hex, sizeof(hex))));

	/* As Go's CPU profiles: samples/count, cpu/nanoseconds, period cpu/nanoseconds. */
	ck_assert_uint_eq(pr.nr_sample_types, 2);
	ck_assert_str_eq(pr.strings[pr.sample_types[0][0]], "samples");
	ck_assert_str_eq(pr.strings[pr.sample_types[0][1]], "count");
	ck_assert_str_eq(pr.strings[pr.sample_types[1][0]], "cpu");
	ck_assert_str_eq(pr.strings[pr.sample_types[1][1]], "nanoseconds");
	ck_assert_str_eq(pr.strings[pr.period_type[0]], "cpu");
	ck_assert_str_eq(pr.strings[pr.period_type[1]], "nanoseconds");

	/* One sample per distinct stack, their values add up to the samples. */
	ck_assert_uint_eq(pr.nr_samples, 6);
	ck_assert_uint_eq(pr.value_sum, 8);
	/* Per-thread gaps are all 1 ms: value 2 is samples x period. */
	ck_assert_uint_eq(pr.period, MS);
	ck_assert_uint_eq(pr.cpu_sum, 8 * MS);
	ck_assert_uint_eq(pr.max_location_ids, 4);
	/*
	 * Distinct (mapping, address, function): 4 in s1, the leaf of s2, the
	 * exact alpha pc of s3, the leaf of s4, s5 and s6, plus the marker.
	 */
	ck_assert_uint_eq(pr.nr_locations, 10);
	ck_assert_uint_eq(pr.nr_functions, 7);
	check_tables(&pr);
	ck_assert_uint_eq(pr.nr_mappings, 1);
	ck_assert_uint_lt(pr.mapping_file, pr.nr_strings);
	ck_assert_str_eq(pr.strings[pr.mapping_file], prog);
	ck_assert_str_eq(pr.strings[pr.mapping_build_id], hex);
	ck_assert_uint_ge(pr.mapping_start, BASE);
	/* No clock record: the samples span 50 ms, no wall-clock time. */
	ck_assert_uint_eq(pr.duration, 50 * MS);
	ck_assert_uint_eq(pr.time_nanos, 0);

	/* Labels: thread and process names as strings, pid and tid as numbers. */
	for (i = 0; i < pr.nr_samples; i++) {
		const char *t = label_str(&pr, i, "thread", false, NULL);
		const char *p = label_str(&pr, i, "process", false, NULL);
		uint64_t pid = 0, tid = 0;

		ck_assert_ptr_nonnull(label_str(&pr, i, "pid", true, &pid));
		ck_assert_ptr_nonnull(label_str(&pr, i, "tid", true, &tid));
		if (tid == 101) {
			ck_assert_str_eq(t, "worker");
			ck_assert_str_eq(p, "prog");
			worker = true;
		} else if (tid == 100) {
			ck_assert_str_eq(t, "prog");
			ck_assert_str_eq(p, "prog");
			ck_assert_uint_eq(pid, 100);
			prog_main = true;
		} else {
			/* Process 200 has no record: its thread's name stands in. */
			ck_assert_uint_eq(tid, 201);
			ck_assert_str_eq(t, "a;b<&>");
			unnamed = true;
		}
	}
	ck_assert(worker && prog_main && unnamed);
	locations = pr.nr_locations;
	free_profile(&pr);

	/*
	 * A forked child (pid 300) with the same mapping and stack adds a
	 * sample but no mapping, location or function.
	 */
	ck_assert_int_eq(rec_module(r, 300, 0, prog), 0);
	map_prog(rec_mmap, r, 300);
	{
		const uint64_t s3[] = {BASE + a_alpha + 1, BASE + a_beta + 4, BASE + a_main + 4};

		ck_assert_int_eq(rec_backtrace(r, 51 * MS, 300, 300, 0, s3, 3), 0);
	}
	pprof_of(r, &pr);
	ck_assert_uint_eq(pr.nr_samples, 7);
	ck_assert_uint_eq(pr.nr_mappings, 1);
	ck_assert_uint_eq(pr.nr_locations, locations);
	ck_assert_uint_eq(pr.nr_functions, 7);
	check_tables(&pr);
	free_profile(&pr);
	report__free(r);

	/* No truncated stack: no "[truncated]" location, function or string. */
	r = new_report(&(struct report_opts){.has_tid = true, .tid = 100});
	pprof_of(r, &pr);
	ck_assert(!has_string(&pr, "[truncated]"));
	ck_assert_uint_eq(pr.nr_samples, 3);
	check_tables(&pr);
	n = pr.nr_functions;
	/* main, beta, alpha, leaf, nosize */
	ck_assert_uint_eq(n, 5);
	free_profile(&pr);
	report__free(r);
}
END_TEST

/*
 * A binary with no GNU build id but a Go one (the .note.go.buildid note the
 * Go linker writes): its mapping carries the Go build id.
 */
START_TEST(test_pprof_go_build_id)
{
	static const char go_id[] = "abcdEFGH1234/ijkl-5678_mn/op9Q/rstu"; /* 36 bytes */
	char bin[PATH_MAX + 16], note[PATH_MAX + 16], cmd[PATH_MAX * 6];
	uint32_t hdr[3] = {4, sizeof(go_id) - 1, 4};
	const uint64_t pc = BASE + 0x1000;
	struct report *r = report__new(NULL);
	struct profile pr;
	FILE *f;

	ck_assert_ptr_nonnull(r);
	snprintf(bin, sizeof(bin), "%s/goish", tmpdir);
	snprintf(note, sizeof(note), "%s/go.note", tmpdir);
	f = fopen(note, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(hdr, sizeof(hdr), 1, f), 1);
	ck_assert_uint_eq(fwrite("Go\0\0", 4, 1, f), 1);
	ck_assert_uint_eq(fwrite(go_id, 36, 1, f), 1);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s -O1 -Wl,--build-id=none '%s/prog.c' -o '%s' && "
		 "objcopy --add-section .note.go.buildid='%s' "
		 "--set-section-flags .note.go.buildid=alloc,readonly '%s' 2>/dev/null",
		 getenv("FXS_TEST_CC") ?: "gcc", tmpdir, bin, note, bin);
	ck_assert_int_eq(system(cmd), 0);

	ck_assert_int_eq(rec_thread(r, 400, 400, "goish"), 0);
	{
		struct fxt_record rec = {.type = FXT_RT_PROFILER, .subtype = FXT_PROF_MODULE};

		rec.pid = 400;
		rec.name = bin;
		ck_assert_int_eq(report_add(r, &rec), 0);
	}
	ck_assert_int_eq(rec_mmap(r, 400, 0, PF_R | PF_X, BASE, 1 << 20, 0), 0);
	ck_assert_int_eq(rec_backtrace(r, 0, 400, 400, 0, &pc, 1), 0);
	pprof_of(r, &pr);
	ck_assert_uint_eq(pr.nr_mappings, 1);
	ck_assert_str_eq(pr.strings[pr.mapping_build_id], go_id);
	free_profile(&pr);
	report__free(r);
}
END_TEST

/* The capture's clock event gives time_nanos and duration_nanos. */
START_TEST(test_pprof_clock)
{
	static const char *const names[] = {"start_boottime_ns", "start_realtime_ns",
					    "stop_boottime_ns"};
	struct fxt_record rec = {.type = FXT_RT_EVENT, .subtype = FXT_EVENT_INSTANT};
	struct report *r = new_report(NULL);
	const uint64_t v[3] = {5 * MS, 1700000000000000000ULL, 2005 * MS};
	struct profile pr;
	unsigned i;

	rec.category = "fxsampler";
	rec.name = "clock";
	rec.nr_args = 3;
	for (i = 0; i < 3; i++)
		rec.args[i] =
			(struct fxt_rd_arg){.type = FXT_ARG_UINT64, .name = names[i], .u = v[i]};
	ck_assert_int_eq(report_add(r, &rec), 0);
	pprof_of(r, &pr);
	ck_assert_uint_eq(pr.time_nanos, 1700000000000000000ULL);
	ck_assert_uint_eq(pr.duration, 2000 * MS);
	free_profile(&pr);
	report__free(r);
}
END_TEST

/* The output of a shell command; its exit status must be 0. */
static char *run_output(const char *cmd)
{
	size_t len = 0, cap = 4096, n;
	char *buf = malloc(cap);
	FILE *p = popen(cmd, "r");

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(p);
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
	}
	buf[len] = '\0';
	ck_assert_msg(pclose(p) == 0, "%s failed:\n%s", cmd, buf);
	return buf;
}

/* `go tool pprof` itself, when Go is installed. */
START_TEST(test_pprof_go_tool)
{
	struct report *r;
	char path[PATH_MAX + 32], cmd[PATH_MAX * 4];
	bool leaf = false, alpha = false;
	char *out, *line;

	if (system("command -v go >/dev/null 2>&1")) {
		fprintf(stderr, "SKIP: test_pprof_go_tool: no go (apt-get install golang-go)\n");
		return;
	}
	r = new_report(NULL);
	snprintf(path, sizeof(path), "%s/profile.pb.gz", tmpdir);
	{
		FILE *f = fopen(path, "we");

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(report_write_pprof(r, f), 0);
		ck_assert_int_eq(fclose(f), 0);
	}
	report__free(r);

#define GO_PPROF "HOME='%s' PPROF_BINARY_PATH=/nonexistent go tool pprof "
	snprintf(cmd, sizeof(cmd), GO_PPROF "-sample_index=samples -top '%s' 2>&1", tmpdir, path);
	out = run_output(cmd);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		/* "flat flat% sum% cum cum%" then the name */
		unsigned long flat, cum;
		char name[256];

		if (sscanf(line, " %lu %*s %*s %lu %*s %255s", &flat, &cum, name) != 3)
			continue;
		if (!strcmp(name, "fxs_static_leaf"))
			leaf = flat == 4 && cum == 4;
		if (!strcmp(name, "fxs_alpha"))
			alpha = flat == 2 && cum == 6;
	}
	free(out);
	ck_assert(leaf);
	ck_assert(alpha);

	/* cpu/nanoseconds: samples x the 1 ms period, a CPU profile as Go's are. */
	snprintf(cmd, sizeof(cmd), GO_PPROF "-sample_index=cpu -top '%s' 2>&1", tmpdir, path);
	out = run_output(cmd);
	ck_assert_msg(strstr(out, "Type: cpu\n"), "%s", out);
	ck_assert_msg(strstr(out, "Total samples = 8ms"), "%s", out);
	ck_assert_msg(strstr(out, "       4ms 50.00% 50.00%        4ms 50.00%  fxs_static_leaf\n"),
		      "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), GO_PPROF "-traces '%s' 2>&1", tmpdir, path);
	out = run_output(cmd);
	ck_assert_msg(strstr(out,
			     "    thread:  worker\n   process:  prog\n       pid:  100\n"
			     "       tid:  101\n       2ms   fxs_alpha\n             fxs_beta\n"
			     "             main\n"),
		      "%s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), GO_PPROF "-tags '%s' 2>&1", tmpdir, path);
	out = run_output(cmd);
	ck_assert_msg(strstr(out, " thread: Total 8.0ms\n"), "%s", out);
	ck_assert_msg(strstr(out, "3.0ms (37.50%): worker\n"), "%s", out);
	ck_assert_msg(strstr(out, " tid: Total 8.0ms\n"), "%s", out);
	free(out);
#undef GO_PPROF
}
END_TEST

/* The function named name in pr: its system_name, or NULL when there is none. */
static const char *system_name_of(const struct profile *pr, const char *name)
{
	unsigned i;

	for (i = 0; i < pr->nr_functions; i++)
		if (!strcmp(pr->strings[pr->function_names[i]], name))
			return pr->strings[pr->function_system_names[i]];
	return NULL;
}

/*
 * Functions under a C++ and a Rust legacy symbol (the fixture's fxs_cxx and
 * fxs_rust): in pprof, the demangled name in name and the symbol in
 * system_name, as Go's profiles have them; demangled in the top view and
 * folded stacks; the symbols with no_demangle; and in a window of
 * fxsamplerd's endpoint, through the caller's demangler, each name once.
 */
START_TEST(test_pprof_demangle)
{
	const uint64_t pcs[] = {BASE + nm_addr("_ZN3fxs5alphaEi") + 1,
				BASE + nm_addr("_ZN3fxs4beta17h0123456789abcdefE") + 4,
				BASE + a_main + 4};
	struct report_opts raw = {.no_demangle = true}, wo = {0};
	struct report_pprof_window w = {.time_nanos = 1, .duration_nanos = 1000000};
	struct profile pr = {0};
	struct demangler *d;
	struct capture c;
	struct report *r;
	uint8_t *unz;
	size_t len;

	if (!demangle_available()) {
		fprintf(stderr, "SKIP: test_pprof_demangle: built without libiberty; NOT RUN\n");
		return;
	}
	ck_assert_uint_gt(pcs[0], BASE + 1);
	ck_assert_uint_gt(pcs[1], BASE + 4);
	r = new_report(NULL);
	ck_assert_int_eq(rec_backtrace(r, 15 * MS, 100, 101, 0, pcs, 3), 0);
	pprof_of(r, &pr);
	check_tables(&pr);
	ck_assert_str_eq(system_name_of(&pr, "fxs::alpha(int)"), "_ZN3fxs5alphaEi");
	ck_assert_str_eq(system_name_of(&pr, "fxs::beta"), "_ZN3fxs4beta17h0123456789abcdefE");
	ck_assert_str_eq(system_name_of(&pr, "main"), "main");
	free_profile(&pr);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_ptr_nonnull(
		strstr(capture_text(&c), "\nprog;worker;main;fxs::beta;fxs::alpha(int) 1\n"));
	free(c.buf);
	ck_assert_int_eq(report_write_top(r, capture_open(&c), 0), 0);
	ck_assert_ptr_nonnull(strstr(capture_text(&c), "  fxs::alpha(int) [prog]\n"));
	free(c.buf);
	report__free(r);

	r = new_report(&raw);
	ck_assert_int_eq(rec_backtrace(r, 15 * MS, 100, 101, 0, pcs, 3), 0);
	ck_assert_int_eq(report_write_folded(r, capture_open(&c)), 0);
	ck_assert_ptr_nonnull(strstr(capture_text(&c), "\nprog;worker;main;"
						       "_ZN3fxs4beta17h0123456789abcdefE;"
						       "_ZN3fxs5alphaEi 1\n"));
	free(c.buf);
	pprof_of(r, &pr);
	ck_assert_str_eq(system_name_of(&pr, "_ZN3fxs5alphaEi"), "_ZN3fxs5alphaEi");
	free_profile(&pr);
	report__free(r);

	d = demangler__new();
	ck_assert_ptr_nonnull(d);
	wo.demangler = d;
	for (int round = 0; round < 2; round++) {
		r = new_report(&wo);
		ck_assert_int_eq(rec_backtrace(r, 15 * MS, 100, 101, 0, pcs, 3), 0);
		ck_assert_int_eq(report_write_pprof_window(r, capture_open(&c), &w), 0);
		capture_text(&c);
		unz = gunzip(c.buf, c.len, &len);
		memset(&pr, 0, sizeof(pr));
		parse_profile(unz, len, &pr);
		ck_assert_str_eq(system_name_of(&pr, "fxs::alpha(int)"), "_ZN3fxs5alphaEi");
		free_profile(&pr);
		free(unz);
		free(c.buf);
		report__free(r);
		/* the second window finds both names demangled by the first */
		ck_assert_uint_eq(demangler_demangled(d), 2);
	}
	demangler__free(d);
}
END_TEST

/*
 * A pc in two mappings one after the other (a library closed and another
 * opened at its address): two locations, one per mapping, each with its own
 * function, and `go tool pprof` (when installed) reads them so.
 */
START_TEST(test_pprof_remapped)
{
	struct report *r = new_remapped_report(NULL);
	char path[PATH_MAX + 32], cmd[PATH_MAX * 4];
	struct profile pr;
	char *out;
	FILE *f;

	pprof_of(r, &pr);
	ck_assert_uint_eq(pr.nr_samples, 2);
	ck_assert_uint_eq(pr.nr_locations, 2);
	ck_assert_uint_eq(pr.nr_functions, 2);
	ck_assert_uint_eq(pr.nr_mappings, 2);
	ck_assert_uint_eq(pr.value_sum, 5);
	ck_assert(has_string(&pr, "fxs_alpha"));
	ck_assert(has_string(&pr, "fxs_beta"));
	check_tables(&pr);
	free_profile(&pr);
	if (system("command -v go >/dev/null 2>&1")) {
		fprintf(stderr, "SKIP: test_pprof_remapped: go tool pprof: no go "
				"(apt-get install golang-go)\n");
		report__free(r);
		return;
	}
	snprintf(path, sizeof(path), "%s/remapped.pb.gz", tmpdir);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(report_write_pprof(r, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	report__free(r);
	snprintf(cmd, sizeof(cmd),
		 "HOME='%s' PPROF_BINARY_PATH=/nonexistent go tool pprof -sample_index=samples "
		 "-top '%s' 2>&1",
		 tmpdir, path);
	out = run_output(cmd);
	ck_assert_msg(strstr(out, "         3 60.00% 60.00%          3 60.00%  fxs_beta\n"), "%s",
		      out);
	ck_assert_msg(strstr(out, "         2 40.00%   100%          2 40.00%  fxs_alpha\n"), "%s",
		      out);
	free(out);
}
END_TEST

static Suite *report_pprof_suite(void)
{
	Suite *s = suite_create("report-pprof");
	TCase *formats = tcase_create("formats");

	tcase_add_test(formats, test_pprof);
	tcase_add_test(formats, test_pprof_clock);
	tcase_add_test(formats, test_pprof_go_build_id);
	tcase_add_test(formats, test_pprof_go_tool);
	tcase_add_test(formats, test_pprof_remapped);
	tcase_add_test(formats, test_pprof_demangle);
	/* go tool pprof starts slowly the first time; valgrind slows everything. */
	tcase_set_timeout(formats, 120);
	suite_add_tcase(s, formats);
	return s;
}

int main(void)
{
	return report_fixture_main(report_pprof_suite);
}
