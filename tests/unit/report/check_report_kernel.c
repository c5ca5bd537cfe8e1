// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel frames in the report: a kstack blob puts its frames above the user
 * frames of the backtrace right after it (same time and thread only), the
 * ksyms blobs at the end name them, marked [k] in the top view, _[k] in
 * folded stacks, in the kernel's mapping in pprof, "[kernel.kallsyms]" in
 * perf script; --no-kernel leaves them out. A user pc with a tag's bit
 * set is no kernel (nor Python) frame.
 */
#include <check.h>

#include "fxt/fxt_kstack.h"
#include "report_fixture.h"
#include "pprof_reader.h"

static const char ksyms[] = "1 0x40 pipe_read vmlinux\n"
			    "2 0x1f ksys_read vmlinux\n"
			    "3 0x8 do_syscall_64 vmlinux\n"
			    "4 0x0 nft_do_chain nf_tables\n"
			    "5 0x0 [unknown] -\n";

static void put_kstack(struct fxt_stream *s, uint64_t ts, uint64_t tid, const uint32_t *ids,
		       unsigned nr)
{
	uint8_t buf[FXT_KSTACK_HDR + 4 * 8];

	ck_assert_int_eq(
		fxt_stream_blob(s, FXT_KSTACK_BLOB, buf, fxt_kstack_encode(buf, ts, tid, ids, nr)),
		0);
}

/*
 * Thread 100: two samples under pipe_read, one under nft_do_chain (a
 * module) and an unnamed id, one without kernel frames; a kstack blob of
 * another thread and one of another time are not taken.
 */
static void write_kernel_fxt(const char *path)
{
	const uint32_t k1[] = {1, 2, 3}, k2[] = {4, 5, 3}, other[] = {1};
	const uint64_t user[] = {BASE + a_leaf + 2, BASE + a_alpha + 5};
	FILE *f;
	struct fxt_stream *s = fxt_file_open(path, &f);

	ck_assert_int_eq(fxt_stream_process(s, 100, "prog"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 100, 100, "prog"), 0);
	ck_assert_int_eq(fxt_stream_blob(s, FXT_KERNEL_BLOB, "release 6.18\nbuild_id 00aa11\n", 29),
			 0);
	put_kstack(s, 1 * MS, 100, k1, 3);
	ck_assert_int_eq(
		fxt_stream_backtrace(s, 1 * MS, 100, 100, FXT_BT_FLAG_PC_IS_RETURN, user, 2), 0);
	put_kstack(s, 2 * MS, 100, k1, 3);
	ck_assert_int_eq(
		fxt_stream_backtrace(s, 2 * MS, 100, 100, FXT_BT_FLAG_PC_IS_RETURN, user, 2), 0);
	put_kstack(s, 3 * MS, 100, k2, 3);
	ck_assert_int_eq(
		fxt_stream_backtrace(s, 3 * MS, 100, 100, FXT_BT_FLAG_PC_IS_RETURN, user, 2), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 4 * MS, 100, 100, 0, user, 2), 0);
	put_kstack(s, 5 * MS, 999, other, 1);
	ck_assert_int_eq(fxt_stream_backtrace(s, 5 * MS, 100, 100, 0, user, 2), 0);
	put_kstack(s, 6 * MS, 100, other, 1);
	ck_assert_int_eq(fxt_stream_backtrace(s, 7 * MS, 100, 100, 0, user, 2), 0);
	stream_prog(s, 100);
	/* The names come last, as a capture writes them. */
	ck_assert_int_eq(fxt_stream_blob(s, FXT_KSYMS_BLOB, ksyms, strlen(ksyms)), 0);
	fxt_file_close(s, f);
}

START_TEST(test_kernel_frames)
{
	char path[PATH_MAX + 16], *out, *data;
	struct report_opts o = {.folded = true};
	struct profile pr;

	snprintf(path, sizeof(path), "%s/k.fxt", tmpdir);
	write_kernel_fxt(path);

	out = report_text(path, &o);
	ck_assert_str_eq(out, "prog;prog;fxs_alpha;fxs_static_leaf 3\n"
			      "prog;prog;fxs_alpha;fxs_static_leaf;do_syscall_64_[k];"
			      "[unknown]_[k];nft_do_chain_[k] 1\n"
			      "prog;prog;fxs_alpha;fxs_static_leaf;do_syscall_64_[k];"
			      "ksys_read_[k];pipe_read_[k] 2\n");
	free(out);

	o.no_kernel = true;
	out = report_text(path, &o);
	ck_assert_str_eq(out, "prog;prog;fxs_alpha;fxs_static_leaf 6\n");
	free(out);

	o = (struct report_opts){.top = 4};
	out = report_text(path, &o);
	ck_assert_msg(strstr(out, "pipe_read [k]\n") &&
			      strstr(out, "nft_do_chain [k] [nf_tables]\n"),
		      "%s", out);
	ck_assert_msg(strstr(out, "       2  33.33%        2  33.33%  pipe_read [k]\n"), "%s", out);
	free(out);

	data = report_pprof_perf_script(path, &pr);
	/* the program's mapping and the kernel's, with the kernel's build id */
	ck_assert_uint_eq(pr.nr_mappings, 2);
	ck_assert(has_string(&pr, "[kernel.kallsyms]") && has_string(&pr, "00aa11"));
	ck_assert(has_string(&pr, "pipe_read") && has_string(&pr, "nft_do_chain"));
	ck_assert(!has_string(&pr, "pipe_read [k]") && !has_string(&pr, "pipe_read_[k]"));
	free_profile(&pr);
	ck_assert_msg(strstr(data, "\t               0 pipe_read ([kernel.kallsyms])\n"
				   "\t               0 ksys_read ([kernel.kallsyms])\n"
				   "\t               0 do_syscall_64 ([kernel.kallsyms])\n"),
		      "%s", data);
	ck_assert_msg(strstr(data, "\t               0 nft_do_chain ([nf_tables])\n"), "%s", data);
	free(data);
}
END_TEST

/*
 * A walk gone astray: user "pcs" with bit 62 (a Python frame's tag), bit 63
 * (a kernel frame's) or bit 57 set end the user stack there, with what came
 * after them; none reads as a Python or kernel frame.
 */
START_TEST(test_astray_user_pcs)
{
	const uint64_t astray[][4] = {
		{BASE + a_leaf + 2, BASE + a_alpha + 5, 1ULL << 62 | 5ULL << 32,
		 BASE + a_alpha + 5},
		{BASE + a_leaf + 2, BASE + a_alpha + 5, 1ULL << 63 | 1, BASE + a_alpha + 5},
		{BASE + a_leaf + 2, BASE + a_alpha + 5, 1ULL << 57, 1ULL << 62},
	};
	char path[PATH_MAX + 16], *out;
	struct report_opts o = {.folded = true};
	FILE *f;
	struct fxt_stream *s;

	snprintf(path, sizeof(path), "%s/astray.fxt", tmpdir);
	s = fxt_file_open(path, &f);
	ck_assert_int_eq(fxt_stream_process(s, 100, "prog"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 100, 100, "prog"), 0);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_int_eq(fxt_stream_backtrace(s, (i + 1) * MS, 100, 100,
						      FXT_BT_FLAG_PC_IS_RETURN, astray[i], 4),
				 0);
	stream_prog(s, 100);
	ck_assert_int_eq(fxt_stream_blob(s, FXT_KSYMS_BLOB, ksyms, strlen(ksyms)), 0);
	fxt_file_close(s, f);

	out = report_text(path, &o);
	ck_assert_str_eq(out, "prog;prog;fxs_alpha;fxs_static_leaf 3\n");
	free(out);
}
END_TEST

static Suite *report_kernel_suite(void)
{
	Suite *s = suite_create("report_kernel");
	TCase *tc = tcase_create("kernel");

	tcase_add_test(tc, test_kernel_frames);
	tcase_add_test(tc, test_astray_user_pcs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return report_fixture_main(report_kernel_suite);
}
