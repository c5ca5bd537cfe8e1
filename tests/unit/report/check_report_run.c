// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* report_run(): the whole command on .fxt files, good, old, damaged and refused. */
#include <check.h>

#include "pprof_reader.h"
#include "report_fixture.h"

START_TEST(test_run_file)
{
	char fxt[PATH_MAX + 32], pprof[PATH_MAX + 32], svg[PATH_MAX + 32], err[256] = "x";
	struct report_opts opts = {.folded = true, .errbuf = err, .errbuf_size = sizeof(err)};
	struct capture c;
	struct profile pr;
	char *data;
	size_t len;

	snprintf(fxt, sizeof(fxt), "%s/run.fxt", tmpdir);
	snprintf(pprof, sizeof(pprof), "%s/run.pb.gz", tmpdir);
	snprintf(svg, sizeof(svg), "%s/run.svg", tmpdir);
	write_fxt(fxt, false);

	ck_assert_int_eq(report_run(fxt, &opts, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), expected_folded_merged);
	ck_assert_str_eq(err, "");
	free(c.buf);

	opts.folded = false;
	opts.pprof_path = pprof;
	opts.svg_path = svg;
	ck_assert_int_eq(report_run(fxt, &opts, capture_open(&c)), 0);
	ck_assert_str_eq(capture_text(&c), expected_top);
	free(c.buf);

	pprof_file(pprof, &pr);
	ck_assert_uint_eq(pr.value_sum, 8);
	ck_assert(has_string(&pr, "fxs_static_leaf"));
	free_profile(&pr);

	data = slurp(svg, &len);
	ck_assert_ptr_nonnull(strstr(data, "<title>fxs_alpha (2 samples, 25.00%)</title>"));
	free(data);

	/* No text output at all. */
	ck_assert_int_eq(report_run(fxt, &opts, NULL), 0);
}
END_TEST

/*
 * Files written before module and mmap records used an indexed thread ref
 * carry it inline: two words pid, tid (the spec's form, fxsampler's until
 * then) or one word pid (another writer's). The stream's records are flushed
 * to the file and the inline ones written between them.
 */
static FILE *legacy_file;
static unsigned legacy_words;

static void legacy_put(struct fxt_stream *s, struct fxt_buf *b)
{
	unsigned size;

	ck_assert_int_eq(b->err, 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	if (legacy_words == 1) {
		/* Drop the tid word (the third) and one word of the size, bits 4..15. */
		size = (unsigned)b->data[0] | (unsigned)b->data[1] << 8;
		size -= 1 << 4;
		b->data[0] = (uint8_t)size;
		b->data[1] = (uint8_t)(size >> 8);
		memmove(b->data + 24, b->data + 32, b->len - 32);
		b->len -= 8;
	}
	ck_assert_uint_eq(fwrite(b->data, 1, b->len, legacy_file), b->len);
	fxt_buf_free(b);
}

static int legacy_module(void *ctx, uint64_t pid, uint16_t id, const char *path)
{
	struct fxt_tref inl = {.pid = pid};
	struct fxt_buf b = {0};

	ck_assert_int_eq(fxt_put_module(&b, 99 * MS, inl, id, path, strlen(path), build_id,
					sizeof(build_id)),
			 0);
	legacy_put(ctx, &b);
	return 0;
}

static int legacy_mmap(void *ctx, uint64_t pid, uint16_t id, unsigned flags, uint64_t start,
		       uint64_t size, uint64_t vaddr)
{
	struct fxt_tref inl = {.pid = pid};
	struct fxt_buf b = {0};

	ck_assert_int_eq(fxt_put_mmap(&b, 99 * MS, inl, id, flags, start, size, vaddr), 0);
	legacy_put(ctx, &b);
	return 0;
}

static void write_legacy_fxt(const char *path, unsigned words)
{
	struct feeder fd = {st_process, st_thread, legacy_module, legacy_mmap, st_backtrace};
	FILE *f;
	struct fxt_stream *s = fxt_file_open(path, &f);

	legacy_file = f;
	legacy_words = words;
	fd.ctx = s;
	feed_profile(&fd);
	fxt_file_close(s, f);
}

/* Old captures (inline thread words in module/mmap) report exactly as new ones. */
START_TEST(test_run_legacy_inline_refs)
{
	char fxt[PATH_MAX + 32];
	struct fxt_reader *r;
	struct fxt_record rec;
	unsigned words, inl;
	struct capture c;
	int n;

	for (words = 1; words <= 2; words++) {
		snprintf(fxt, sizeof(fxt), "%s/legacy%u.fxt", tmpdir, words);
		write_legacy_fxt(fxt, words);
		/* The file does hold inline module and mmap records of that size. */
		r = fxt_reader__open(fxt);
		ck_assert_ptr_nonnull(r);
		inl = 0;
		while ((n = fxt_reader_next(r, &rec)) == 1)
			if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_MMAP) {
				ck_assert_uint_eq((rec.header >> 20) & 0xff, 0);
				ck_assert_uint_eq(rec.words, 5 + words);
				inl++;
			}
		ck_assert_msg(n == 0, "%s", fxt_reader_error(r));
		ck_assert_uint_gt(inl, 0);
		fxt_reader__free(r);

		ck_assert_int_eq(report_run(fxt,
					    &(struct report_opts){.folded = true,
								  .split_processes = true,
								  .split_threads = true},
					    capture_open(&c)),
				 0);
		ck_assert_str_eq(capture_text(&c), expected_folded);
		free(c.buf);
		ck_assert_int_eq(report_run(fxt, NULL, capture_open(&c)), 0);
		ck_assert_str_eq(capture_text(&c), expected_top);
		free(c.buf);
	}
}
END_TEST

START_TEST(test_run_counters)
{
	char fxt[PATH_MAX + 32];
	struct capture c;
	const char *text;

	snprintf(fxt, sizeof(fxt), "%s/counters.fxt", tmpdir);
	write_fxt(fxt, true);
	ck_assert_int_eq(report_run(fxt, NULL, capture_open(&c)), 0);
	text = capture_text(&c);
	ck_assert_ptr_eq(strstr(text, "Samples: 8  Threads: 3  Processes: 2\n"
				      "Truncated stacks: 1 (12.50%)\n"
				      "Dropped samples: 4\n"
				      "  ring_full: 3\n"
				      "  no_regs: 1\n"
				      "Warning: the capture lost records (its buffers overflowed)\n"
				      "\n"),
			 text);
	free(c.buf);
}
END_TEST

START_TEST(test_run_errors)
{
	char path[PATH_MAX + 32], out[PATH_MAX + 32], err[256];
	struct report_opts opts = {.errbuf = err, .errbuf_size = sizeof(err)};
	struct capture c;
	const char *text;
	size_t len;
	char *data;
	FILE *f;

	err[0] = '\0';
	snprintf(path, sizeof(path), "%s/missing.fxt", tmpdir);
	ck_assert_int_eq(report_run(path, &opts, stdout), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "missing.fxt"));

	/* Not an FXT file. */
	snprintf(path, sizeof(path), "%s/garbage.fxt", tmpdir);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("this is not a trace, not even close\n", f);
	fclose(f);
	err[0] = '\0';
	ck_assert_int_eq(report_run(path, &opts, stdout), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "garbage.fxt"));
	ck_assert_uint_gt(strlen(err), strlen(path) + 4);

	/*
	 * A good file cut in the middle of a record: the records before the cut
	 * are reported (with a warning on stderr); cut inside its first record
	 * after the magic, there is nothing to report.
	 */
	snprintf(path, sizeof(path), "%s/cut.fxt", tmpdir);
	write_fxt(path, false);
	data = slurp(path, &len);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len - 12, f), len - 12);
	fclose(f);
	err[0] = '\0';
	ck_assert_int_eq(report_run(path, &opts, capture_open(&c)), 0);
	text = capture_text(&c);
	ck_assert_ptr_nonnull(strstr(text, "Samples: "));
	ck_assert_ptr_null(strstr(text, "Samples: 0 "));
	free(c.buf);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, 8 + 3, f), 8 + 3);
	fclose(f);
	free(data);
	ck_assert_int_eq(report_run(path, &opts, stdout), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "offset 8: truncated record header"));

	/* An output that cannot be created. */
	snprintf(path, sizeof(path), "%s/ok.fxt", tmpdir);
	write_fxt(path, false);
	snprintf(out, sizeof(out), "%s/no/such/dir/x.svg", tmpdir);
	opts.svg_path = out;
	err[0] = '\0';
	ck_assert_int_eq(report_run(path, &opts, NULL), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "x.svg"));
}
END_TEST

static bool has_entry_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			found = true;
	closedir(d);
	return found;
}

/* Output paths are checked before any work; what was written is said, where. */
START_TEST(test_run_outputs_first)
{
	char path[PATH_MAX + 32], out[PATH_MAX + 32], bad[PATH_MAX + 32], err[256];
	char want[PATH_MAX + 128];
	struct report_opts opts = {.errbuf = err, .errbuf_size = sizeof(err)};
	struct capture c, info;
	size_t len;
	char *data;
	FILE *f;

	snprintf(path, sizeof(path), "%s/first.fxt", tmpdir);
	write_fxt(path, false);
	/* A pprof that cannot be created: the top view is not printed at all. */
	snprintf(out, sizeof(out), "%s/no/such/dir/x.pb.gz", tmpdir);
	opts.pprof_path = out;
	err[0] = '\0';
	ck_assert_int_eq(report_run(path, &opts, capture_open(&c)), -ENOENT);
	ck_assert_str_eq(capture_text(&c), "");
	free(c.buf);
	ck_assert_ptr_nonnull(strstr(err, "cannot create"));
	ck_assert_ptr_nonnull(strstr(err, "x.pb.gz"));
	/* Nor when the second of two outputs is the bad one; the first is not made. */
	snprintf(bad, sizeof(bad), "%s/first.pb.gz", tmpdir);
	opts.pprof_path = bad;
	opts.svg_path = tmpdir; /* a directory */
	ck_assert_int_eq(report_run(path, &opts, capture_open(&c)), -EISDIR);
	ck_assert_str_eq(capture_text(&c), "");
	free(c.buf);
	ck_assert_int_eq(access(bad, F_OK), -1);

	/* A bad input leaves an older output as it was, and no temporary file. */
	snprintf(out, sizeof(out), "%s/keep.svg", tmpdir);
	f = fopen(out, "we");
	ck_assert_ptr_nonnull(f);
	fputs("old", f);
	fclose(f);
	snprintf(bad, sizeof(bad), "%s/garbage2.fxt", tmpdir);
	f = fopen(bad, "we");
	ck_assert_ptr_nonnull(f);
	fputs("not a trace at all, no\n", f);
	fclose(f);
	opts.pprof_path = NULL;
	opts.svg_path = out;
	ck_assert_int_eq(report_run(bad, &opts, NULL), -EBADMSG);
	data = slurp(out, &len);
	ck_assert_str_eq(data, "old");
	free(data);
	ck_assert(!has_entry_prefix(tmpdir, ".keep.svg."));

	/* Success: the file is replaced and info says what went where. */
	opts.info = capture_open(&info);
	ck_assert_int_eq(report_run(path, &opts, NULL), 0);
	fflush(opts.info);
	data = slurp(out, &len);
	ck_assert_ptr_nonnull(strstr(data, "<svg "));
	free(data);
	snprintf(want, sizeof(want), "fxsampler: wrote %s: flame graph, %zu bytes\n", out, len);
	ck_assert_str_eq(capture_text(&info), want);
	free(info.buf);
}
END_TEST

/* Damaged files: every output is written or the damage reported, never a crash. */
START_TEST(test_run_mutated)
{
	char good[PATH_MAX + 32], bad[PATH_MAX + 32], pprof[PATH_MAX + 32], svg[PATH_MAX + 32];
	char err[256];
	struct report_opts opts = {
		.pprof_path = pprof, .svg_path = svg, .errbuf = err, .errbuf_size = sizeof(err)};
	uint64_t rng = 0x853c49e6748fea9bULL;
	unsigned i, k, ok = 0, rejected = 0;
	size_t len;
	char *data;

	snprintf(good, sizeof(good), "%s/mut_good.fxt", tmpdir);
	snprintf(bad, sizeof(bad), "%s/mut_bad.fxt", tmpdir);
	snprintf(pprof, sizeof(pprof), "%s/mut.pb.gz", tmpdir);
	snprintf(svg, sizeof(svg), "%s/mut.svg", tmpdir);
	write_fxt(good, true);
	data = slurp(good, &len);
	for (i = 0; i < 150; i++) {
		char *copy = malloc(len);
		struct capture c;
		FILE *f;
		int ret;

		ck_assert_ptr_nonnull(copy);
		memcpy(copy, data, len);
		for (k = 0; k < 1 + i % 4; k++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			copy[rng % len] ^= (char)(1u << ((rng >> 32) % 8));
		}
		f = fopen(bad, "we");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(copy, 1, len, f), len);
		ck_assert_int_eq(fclose(f), 0);
		free(copy);
		opts.folded = i % 2;
		ret = report_run(bad, &opts, capture_open(&c));
		capture_text(&c);
		free(c.buf);
		ck_assert_msg(ret == 0 || ret == -EBADMSG, "run %u: %d (%s)", i, ret, err);
		if (ret)
			rejected++;
		else
			ok++;
	}
	ck_assert_uint_gt(ok, 0);
	ck_assert_uint_gt(rejected, 0);
	free(data);
}
END_TEST

static Suite *report_run_suite(void)
{
	Suite *s = suite_create("report-run");
	TCase *run = tcase_create("run");

	tcase_add_test(run, test_run_file);
	tcase_add_test(run, test_run_counters);
	tcase_add_test(run, test_run_errors);
	tcase_add_test(run, test_run_outputs_first);
	tcase_add_test(run, test_run_mutated);
	tcase_add_test(run, test_run_legacy_inline_refs);
	/* valgrind slows everything. */
	tcase_set_timeout(run, 120);
	suite_add_tcase(s, run);
	return s;
}

int main(void)
{
	return report_fixture_main(report_run_suite);
}
