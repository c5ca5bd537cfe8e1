// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report --perfetto (report_perfetto.c) on the fixture's .fxt: the copy keeps
 * every record of the source, then Perfetto's packets in blob records of type
 * 3, read back here with a protobuf reader of their own (pprof_reader.h's):
 * one PerfSample per sample with its time and thread, callstacks root first
 * named as report --folded names them.
 */
#include <check.h>

#include "pprof_reader.h"

#define MAX_IDS 64

struct perfetto_read {
	unsigned nr_samples;
	uint64_t ts[16], tid[16], callstack[16];
	char *names[MAX_IDS];	      /* function name by iid */
	uint64_t frame_name[MAX_IDS]; /* by frame iid */
	uint64_t frame_kind[MAX_IDS];
	uint64_t stacks[MAX_IDS][16]; /* by callstack iid: frame iids, root first */
	unsigned stack_len[MAX_IDS];
	unsigned nr_packets, nr_blobs;
};

static void read_interned(struct perfetto_read *pr, struct pb in)
{
	struct pb sub, m;
	unsigned f, w, f2, w2;
	uint64_t v, v2, iid;

	while (pb_next(&in, &f, &w, &v, &sub)) {
		if (w != 2)
			continue;
		iid = 0;
		m = sub;
		while (pb_next(&m, &f2, &w2, &v2, &sub) && f2 != 1)
			;
		ck_assert_uint_eq(f2, 1);
		iid = v2;
		ck_assert_uint_lt(iid, MAX_IDS);
		m = (struct pb){m.p, in.p};
		while (pb_next(&m, &f2, &w2, &v2, &sub)) {
			if (f == 5 && f2 == 2)
				pr->names[iid] = strndup((const char *)sub.p, sub.end - sub.p);
			else if (f == 6 && f2 == 2)
				pr->frame_name[iid] = v2;
			else if (f == 6 && f2 == 7)
				pr->frame_kind[iid] = v2;
			else if (f == 7 && f2 == 2)
				pr->stacks[iid][pr->stack_len[iid]++] = v2;
		}
	}
}

static void read_packets(struct perfetto_read *pr, const uint8_t *data, size_t len)
{
	struct pb trace = {data, data + len}, pkt, sub, s;
	unsigned f, w;
	uint64_t v, ts;

	while (pb_next(&trace, &f, &w, &v, &pkt)) {
		ck_assert_uint_eq(f, 1);
		pr->nr_packets++;
		ts = 0;
		while (pb_next(&pkt, &f, &w, &v, &sub)) {
			if (f == 8)
				ts = v;
			if (f == 10)
				ck_assert_uint_eq(v, 1);
			if (f == 12)
				read_interned(pr, sub);
			if (f == 66) {
				unsigned i = pr->nr_samples++;

				ck_assert_uint_lt(i, 16);
				pr->ts[i] = ts;
				while (pb_next(&sub, &f, &w, &v, &s)) {
					if (f == 3)
						pr->tid[i] = v;
					if (f == 4)
						pr->callstack[i] = v;
				}
			}
		}
	}
	ck_assert_ptr_eq(trace.p, trace.end);
}

/* The copy at path: the source's bytes first, then the packets; what they hold. */
static void read_copy(const char *path, const char *src, size_t src_len, struct perfetto_read *pr)
{
	struct fxt_reader *rd = fxt_reader__open(path);
	struct fxt_record rec;
	uint8_t *payload = NULL;
	size_t len = 0, n;
	char *copy = slurp(path, &n);

	ck_assert_uint_gt(n, src_len);
	ck_assert_int_eq(memcmp(copy, src, src_len), 0);
	ck_assert_ptr_nonnull(rd);
	while (fxt_reader_next(rd, &rec) == 1) {
		if (rec.type != FXT_RT_BLOB || rec.blob_type != 3)
			continue;
		ck_assert_uint_ge(rec.offset, src_len);
		ck_assert_str_eq(rec.name, "perfetto");
		payload = realloc(payload, len + rec.blob_len);
		ck_assert_ptr_nonnull(payload);
		memcpy(payload + len, rec.blob, rec.blob_len);
		len += rec.blob_len;
		pr->nr_blobs++;
	}
	ck_assert_uint_eq(fxt_reader_offset(rd), n);
	fxt_reader__free(rd);
	read_packets(pr, payload, len);
	free(payload);
	free(copy);
}

/* Sample i's stack as "a;b;c", root first. */
static const char *stack_text(const struct perfetto_read *pr, unsigned i, char *buf, size_t size)
{
	uint64_t cs = pr->callstack[i];
	unsigned j;

	buf[0] = '\0';
	ck_assert_uint_lt(cs, MAX_IDS);
	for (j = 0; j < pr->stack_len[cs]; j++) {
		const char *name = pr->names[pr->frame_name[pr->stacks[cs][j]]];

		ck_assert_ptr_nonnull(name);
		if (j)
			strncat(buf, ";", size - strlen(buf) - 1);
		strncat(buf, name, size - strlen(buf) - 1);
	}
	return buf;
}

START_TEST(test_perfetto_copy)
{
	char fxt[PATH_MAX + 32], out[PATH_MAX + 32], again[PATH_MAX + 32], buf[256], err[256];
	struct report_opts opts = {.errbuf = err, .errbuf_size = sizeof(err)};
	struct perfetto_read pr = {0};
	size_t src_len, n1, n2;
	char *src, *c1, *c2;
	unsigned i;

	snprintf(fxt, sizeof(fxt), "%s/pf.fxt", tmpdir);
	snprintf(out, sizeof(out), "%s/pf.copy.fxt", tmpdir);
	snprintf(again, sizeof(again), "%s/pf.again.fxt", tmpdir);
	write_fxt(fxt, true);
	opts.perfetto_path = out;
	ck_assert_msg(report_run(fxt, &opts, NULL) == 0, "%s", err);
	src = slurp(fxt, &src_len);
	read_copy(out, src, src_len, &pr);
	ck_assert_uint_eq(pr.nr_blobs, 1);
	ck_assert_uint_eq(pr.nr_samples, 8);
	/* in the file's order, BOOTTIME ns (the file's ticks are ns) */
	ck_assert_uint_eq(pr.ts[0], 0);
	ck_assert_uint_eq(pr.ts[4], 10 * MS);
	ck_assert_uint_eq(pr.tid[4], 101);
	ck_assert_uint_eq(pr.tid[7], 201);
	ck_assert_str_eq(stack_text(&pr, 0, buf, sizeof(buf)),
			 "main;fxs_beta;fxs_alpha;fxs_static_leaf");
	ck_assert_str_eq(stack_text(&pr, 4, buf, sizeof(buf)), "main;fxs_beta;fxs_alpha");
	ck_assert_str_eq(stack_text(&pr, 6, buf, sizeof(buf)),
			 "[truncated];fxs_alpha;fxs_static_leaf");
	ck_assert_str_eq(stack_text(&pr, 7, buf, sizeof(buf)), "[unknown]");
	/* user frames are native; none of the kernel's */
	for (i = 1; i < MAX_IDS; i++)
		ck_assert_uint_ne(pr.frame_kind[i], 2);
	/* a copy of the copy replaces its packets: the same file again */
	opts.perfetto_path = again;
	ck_assert_msg(report_run(out, &opts, NULL) == 0, "%s", err);
	c1 = slurp(out, &n1);
	c2 = slurp(again, &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert_int_eq(memcmp(c1, c2, n1), 0);
	for (i = 0; i < MAX_IDS; i++)
		free(pr.names[i]);
	free(src);
	free(c1);
	free(c2);
}
END_TEST

/* A source cut short: the copy keeps its whole records and is whole FXT itself. */
START_TEST(test_perfetto_cut_source)
{
	char fxt[PATH_MAX + 32], out[PATH_MAX + 32], err[256];
	struct report_opts opts = {.errbuf = err, .errbuf_size = sizeof(err)};
	struct fxt_reader *rd;
	struct fxt_record rec;
	size_t len, n;
	char *src, *copy;
	unsigned blobs = 0;
	int ret;

	snprintf(fxt, sizeof(fxt), "%s/pfcut.fxt", tmpdir);
	snprintf(out, sizeof(out), "%s/pfcut.copy.fxt", tmpdir);
	write_fxt(fxt, true);
	src = slurp(fxt, &len);
	ck_assert_int_eq(truncate(fxt, (off_t)len - 3), 0);
	opts.perfetto_path = out;
	ck_assert_msg(report_run(fxt, &opts, NULL) == 0, "%s", err);
	copy = slurp(out, &n);
	rd = fxt_reader__open(out);
	ck_assert_ptr_nonnull(rd);
	while ((ret = fxt_reader_next(rd, &rec)) == 1)
		blobs += rec.type == FXT_RT_BLOB && rec.blob_type == 3;
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(fxt_reader_offset(rd), n);
	ck_assert_uint_eq(blobs, 1);
	/* the cut record is the last one (the drop event, one word): all before it kept */
	ck_assert_int_eq(memcmp(copy, src, len - 8), 0);
	fxt_reader__free(rd);
	free(src);
	free(copy);
}
END_TEST

/* Without report_run()'s source and samples there is nothing to copy. */
START_TEST(test_perfetto_needs_run)
{
	struct report *r = new_report(NULL);
	struct capture c;

	ck_assert_int_eq(report_write_perfetto(r, capture_open(&c)), -EINVAL);
	capture_text(&c);
	free(c.buf);
	report__free(r);
}
END_TEST

static Suite *report_perfetto_suite(void)
{
	Suite *s = suite_create("report-perfetto");
	TCase *tc = tcase_create("copy");

	tcase_add_test(tc, test_perfetto_copy);
	tcase_add_test(tc, test_perfetto_cut_source);
	tcase_add_test(tc, test_perfetto_needs_run);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return report_fixture_main(report_perfetto_suite);
}
