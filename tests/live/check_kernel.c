// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live tests of kernel stacks (record --kernel): dd's time in its system
 * calls against perf record -g's on the same workload; off-CPU intervals of
 * a thread blocked on a pipe and of one in nanosleep, named by the kernel
 * functions they waited in; a report made when kallsyms can no longer be
 * read; and, through fxsamplerd as an ordinary user, no kernel frame with
 * perf_event_paranoid 2 and names only with 1: no kernel address anywhere in
 * the file, byte by byte.
 */
#include <check.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fxt/fxt_kstack.h"
#include "live.h"
#include "live_daemon.h"

#define TEST_USER      "fxs-live-user"
#define PARANOID       "/proc/sys/kernel/perf_event_paranoid"
#define KPTR_RESTRICT  "/proc/sys/kernel/kptr_restrict"
#define DD	       "dd if=/dev/zero of=/dev/null bs=512"
#define MAX_KSTACK_BTS 50000
#define MAX_KLOCATIONS 65536

/* The sysctls a test changes, put back by the teardown whatever happened. */
static char saved_paranoid[16], saved_kptr[16];

static void read_sysctl(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, (int)size, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static void write_sysctl(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_gt(fprintf(f, "%s\n", value), 0);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	live_make_dir("/tmp/fxs-live-kernel-XXXXXX");
	read_sysctl(PARANOID, saved_paranoid, sizeof(saved_paranoid));
	read_sysctl(KPTR_RESTRICT, saved_kptr, sizeof(saved_kptr));
}

static void teardown(void)
{
	write_sysctl(PARANOID, saved_paranoid);
	write_sysctl(KPTR_RESTRICT, saved_kptr);
	live_remove_dir();
}

/* --- a capture's backtraces with their kernel frames, and the frames' names --- */

struct kbt {
	uint64_t tid;
	unsigned flags;
	unsigned nk;
	uint32_t ids[FXS_MAX_KFRAMES];
};

struct kfile {
	struct kbt bt[MAX_KSTACK_BTS];
	size_t n;
	char *names[MAX_KLOCATIONS]; /* by id - 1 */
	struct named threads[MAX_ITEMS];
	size_t nr_threads;
	size_t kstack_blobs, ksyms_blobs, kernel_blobs;
};

static void kfile_free(struct kfile *f)
{
	for (size_t i = 0; i < MAX_KLOCATIONS; i++)
		free(f->names[i]);
	free(f);
}

static void add_ksyms(struct kfile *f, const struct fxt_record *rec)
{
	const char *p = (const char *)rec->blob, *end = p + rec->blob_len;
	struct fxt_ksym_line l;

	while (p < end) {
		ck_assert_msg(fxt_ksym_parse(&p, end, &l), "a malformed ksyms line");
		ck_assert_uint_gt(l.id, 0);
		if (l.id <= MAX_KLOCATIONS && !f->names[l.id - 1])
			f->names[l.id - 1] = strndup(l.name, l.name_len);
	}
}

/*
 * Every backtrace, with the kernel frames of the kstack blob right before
 * it (which must name the same time and thread).
 */
static struct kfile *kload(const char *path)
{
	struct kfile *f = calloc(1, sizeof(*f));
	struct fxt_reader *r = fxt_reader__open(path);
	uint8_t pend[FXT_KSTACK_HDR + 4 * 256];
	size_t pend_len = 0;
	struct fxt_record rec;
	int err;

	ck_assert_ptr_nonnull(f);
	ck_assert_msg(r != NULL, "%s: cannot open", path);
	while ((err = fxt_reader_next(r, &rec)) == 1) {
		if (rec.type == FXT_RT_BLOB && rec.name && !strcmp(rec.name, FXT_KSTACK_BLOB)) {
			ck_assert_uint_le(rec.blob_len, sizeof(pend));
			memcpy(pend, rec.blob, rec.blob_len);
			pend_len = rec.blob_len;
			f->kstack_blobs++;
			continue;
		}
		if (rec.type == FXT_RT_BLOB && rec.name && !strcmp(rec.name, FXT_KSYMS_BLOB)) {
			add_ksyms(f, &rec);
			f->ksyms_blobs++;
		} else if (rec.type == FXT_RT_BLOB && rec.name &&
			   !strcmp(rec.name, FXT_KERNEL_BLOB)) {
			f->kernel_blobs++;
		} else if (rec.type == FXT_RT_KOBJ && rec.subtype == FXT_OBJ_THREAD &&
			   f->nr_threads < MAX_ITEMS) {
			f->threads[f->nr_threads].koid = rec.koid;
			snprintf(f->threads[f->nr_threads++].name, 64, "%s", rec.name ?: "");
		} else if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_BACKTRACE &&
			   f->n < MAX_KSTACK_BTS) {
			struct kbt *b = &f->bt[f->n++];
			uint64_t ts, tid;
			unsigned nr = 0;

			b->tid = rec.tid;
			b->flags = rec.bt_flags;
			if (pend_len) {
				ck_assert(fxt_kstack_decode(pend, pend_len, &ts, &tid, &nr));
				ck_assert_uint_eq(ts, rec.ts);
				ck_assert_uint_eq(tid, rec.tid);
				ck_assert_uint_le(nr, FXS_MAX_KFRAMES);
				for (unsigned i = 0; i < nr; i++)
					b->ids[i] = fxt_kstack_id(pend, i);
			}
			b->nk = nr;
		}
		/* The backtrace's thread and string records may come between. */
		if (rec.type != FXT_RT_STRING && rec.type != FXT_RT_THREAD)
			pend_len = 0;
	}
	ck_assert_msg(err == 0, "%s: %s", path, fxt_reader_error(r));
	fxt_reader__free(r);
	return f;
}

static const char *kname(const struct kfile *f, uint32_t id)
{
	return id && id <= MAX_KLOCATIONS && f->names[id - 1] ? f->names[id - 1] : "";
}

/* Whether backtrace b's kernel frames hold one of the functions in fns (NULL-terminated). */
static bool kbt_has(const struct kfile *f, const struct kbt *b, const char *const *fns)
{
	for (unsigned i = 0; i < b->nk; i++)
		for (const char *const *fn = fns; *fn; fn++)
			if (!strcmp(kname(f, b->ids[i]), *fn))
				return true;
	return false;
}

static const char *kthread_name(const struct kfile *f, uint64_t tid)
{
	const char *name = "";

	for (size_t i = 0; i < f->nr_threads; i++)
		if (f->threads[i].koid == tid)
			name = f->threads[i].name;
	return name;
}

/*
 * Among thread name's backtraces (off-CPU ones, or samples), how many hold
 * one of fns; *ret_all: how many there are.
 */
static size_t count_under(const struct kfile *f, const char *thread, bool offcpu,
			  const char *const *fns, size_t *ret_all)
{
	size_t hit = 0, all = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct kbt *b = &f->bt[i];

		if (!(b->flags & FXT_BT_FLAG_OFFCPU) != !offcpu ||
		    strcmp(kthread_name(f, b->tid), thread))
			continue;
		all++;
		hit += kbt_has(f, b, fns);
	}
	*ret_all = all;
	return hit;
}

/* --- perf, the reference --- */

/*
 * perf script's samples of comm: how many, and how many hold a frame named
 * one of fns (a line "ADDR SYMBOL" or "ADDR SYMBOL+OFF").
 */
static void perf_share(const char *script, const char *comm, const char *const *fns,
		       size_t *ret_hit, size_t *ret_all)
{
	FILE *f = fopen(script, "r");
	char line[1024], sym[512];
	bool in_comm = false, hit = false;
	size_t all = 0, hits = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] != '\t' && line[0] != ' ' && line[0] != '\n') {
			hits += in_comm && hit;
			in_comm = !strncmp(line, comm, strlen(comm)) &&
				  (line[strlen(comm)] == ' ' || line[strlen(comm)] == '\t');
			all += in_comm;
			hit = false;
			continue;
		}
		if (!in_comm || sscanf(line, " %*x %511s", sym) != 1)
			continue;
		sym[strcspn(sym, "+")] = '\0';
		for (const char *const *fn = fns; *fn; fn++)
			hit |= !strcmp(sym, *fn);
	}
	hits += in_comm && hit;
	fclose(f);
	*ret_hit = hits;
	*ret_all = all;
}

static const char *const syscall_fns[] = {"ksys_write", "ksys_read", NULL};

/* --- the tests --- */

/*
 * dd for 3 s under each profiler: the share of its samples under ksys_write
 * or ksys_read is within 10 points of perf's.
 */
START_TEST(test_dd_against_perf)
{
	const char *path = out_path("dd.fxt");
	struct run *r = calloc(1, sizeof(*r));
	char cmd[1024], script[300];
	size_t fx_hit, fx_all, perf_hit, perf_all;
	double fx, perf;
	struct kfile *f;

	ck_assert_ptr_nonnull(r);
	snprintf(script, sizeof(script), "%s/perf.txt", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && { perf record -q -e cpu-clock -F 999 -g -o perf.data -- timeout 3 " DD
		 " 2>/dev/null; test -s perf.data; } && perf script -i perf.data -F comm,ip,sym "
		 "> '%s' 2>/dev/null",
		 tmpdir, script);
	ck_assert_msg(live_run_cmd(cmd) == 0, "perf record -g failed: %s", cmd);
	perf_share(script, "dd", syscall_fns, &perf_hit, &perf_all);

	RUN(r, "record", "-q", "--kernel", "-F", "999", "-o", path, "--", "timeout", "3", "dd",
	    "if=/dev/zero", "of=/dev/null", "bs=512");
	ck_assert_msg(exit_code(r) == 0, "record: %s", r->err);
	f = kload(path);
	ck_assert_uint_eq(f->kernel_blobs, 1);
	ck_assert_uint_gt(f->ksyms_blobs, 0);
	fx_hit = count_under(f, "dd", false, syscall_fns, &fx_all);
	kfile_free(f);

	ck_assert_uint_gt(perf_all, 1000);
	ck_assert_uint_gt(fx_all, 1000);
	fx = (double)fx_hit / (double)fx_all;
	perf = (double)perf_hit / (double)perf_all;
	printf("dd under ksys_write/ksys_read: fxsampler %.1f%% (%zu of %zu), perf %.1f%% (%zu "
	       "of %zu)\n",
	       100 * fx, fx_hit, fx_all, 100 * perf, perf_hit, perf_all);
	ck_assert_msg(perf > 0.1, "perf saw dd in its system calls %.1f%% of the time", 100 * perf);
	ck_assert_msg(fx > perf - 0.1 && fx < perf + 0.1,
		      "fxsampler %.1f%% under ksys_write/ksys_read, perf %.1f%%", 100 * fx,
		      100 * perf);
	free(r);
}
END_TEST

/*
 * Off-CPU with kernel stacks: the thread blocked in read() on a pipe waits
 * in pipe_read, the one in nanosleep in hrtimer_nanosleep or do_nanosleep;
 * and report --off-cpu shows them above the user frames, marked.
 */
START_TEST(test_offcpu_kernel_stacks)
{
	/* pipe_read became anon_pipe_read in 6.16 */
	static const char *const pipe_fns[] = {"pipe_read", "anon_pipe_read", NULL};
	static const char *const sleep_fns[] = {"hrtimer_nanosleep", "do_nanosleep", NULL};
	const char *path = out_path("off.fxt");
	struct run *r = calloc(1, sizeof(*r));
	const char *line;
	size_t hit, all;
	struct kfile *f;

	ck_assert_ptr_nonnull(r);
	RUN(r, "record", "-q", "--kernel", "--off-cpu", "-o", path, "--", prog("offcpu"), "2");
	ck_assert_msg(exit_code(r) == 0, "record: %s", r->err);
	f = kload(path);
	hit = count_under(f, "piper", true, pipe_fns, &all);
	printf("piper: %zu of %zu intervals in pipe_read\n", hit, all);
	ck_assert_uint_ge(all, 10);
	ck_assert_msg(hit * 10 >= all * 9, "piper: %zu of %zu intervals in pipe_read", hit, all);
	hit = count_under(f, "sleeper", true, sleep_fns, &all);
	printf("sleeper: %zu of %zu intervals in hrtimer_nanosleep or do_nanosleep\n", hit, all);
	ck_assert_uint_ge(all, 5);
	ck_assert_msg(hit * 10 >= all * 9, "sleeper: %zu of %zu intervals in nanosleep", hit, all);
	kfile_free(f);

	RUN(r, "report", "--off-cpu", "--folded", "--merge-threads", path);
	ck_assert_msg(exit_code(r) == 0, "report: %s", r->err);
	ck_assert_msg(strstr(r->out, ";piper;") && strstr(r->out, "pipe_read_[k];"),
		      "no piper;..;pipe_read_[k] in:\n%.2000s", r->out);
	/* The profiler's own frames are not the thread's. */
	ck_assert_msg(!strstr(r->out, "bpf_prog_") && !strstr(r->out, "bpf_trace_run"),
		      "BPF frames in:\n%.2000s", r->out);
	/* The kernel frames sit above the user ones: b_mid, read, then ksys_read. */
	line = strstr(r->out, ";piper;");
	ck_assert_ptr_nonnull(line);
	line = strstr(line, "pipe_read_[k]");
	while (line > r->out && line[-1] != '\n')
		line--;
	ck_assert_msg(strstr(line, ";b_mid;") &&
			      strstr(line, ";b_mid;") < strstr(line, "ksys_read_[k]"),
		      "no b_mid;..;ksys_read_[k] in:\n%.2000s", line);
	free(r);
}
END_TEST

/*
 * The names are in the file: with kptr_restrict=2 (kallsyms shows no
 * address, even to root) report still names every kernel frame it named
 * before, and --no-kernel leaves them out.
 */
START_TEST(test_report_without_kallsyms)
{
	const char *path = out_path("k.fxt");
	struct run *r = calloc(1, sizeof(*r));
	char *before;
	char line[256];
	FILE *k;

	ck_assert_ptr_nonnull(r);
	RUN(r, "record", "-q", "--kernel", "-o", path, "--", "timeout", "1", "dd", "if=/dev/zero",
	    "of=/dev/null", "bs=512");
	ck_assert_msg(exit_code(r) == 0, "record: %s", r->err);
	RUN(r, "report", "--folded", path);
	ck_assert_msg(exit_code(r) == 0, "report: %s", r->err);
	before = strdup(r->out);
	ck_assert_ptr_nonnull(before);
	ck_assert_msg(strstr(before, "ksys_read_[k]"), "no ksys_read_[k] in:\n%.2000s", before);

	write_sysctl(KPTR_RESTRICT, "2");
	k = fopen("/proc/kallsyms", "r");
	ck_assert_ptr_nonnull(k);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), k));
	fclose(k);
	ck_assert_msg(!strncmp(line, "0000000000000000 ", 17), "kallsyms still readable: %s", line);
	RUN(r, "report", "--folded", path);
	write_sysctl(KPTR_RESTRICT, saved_kptr);
	ck_assert_msg(exit_code(r) == 0, "report: %s", r->err);
	ck_assert_str_eq(r->out, before);

	RUN(r, "report", "--folded", "--no-kernel", path);
	ck_assert_msg(exit_code(r) == 0, "report: %s", r->err);
	ck_assert_msg(!strstr(r->out, "_[k]"), "--no-kernel kept:\n%.2000s", r->out);
	ck_assert_msg(strstr(r->out, "dd"), "no dd in:\n%.2000s", r->out);
	free(before);
	free(r);
}
END_TEST

/* The lowest and highest address kallsyms gives (as root, kptr_restrict 0). */
static void kernel_range(uint64_t *lo, uint64_t *hi)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];

	ck_assert_ptr_nonnull(f);
	*lo = UINT64_MAX;
	*hi = 0;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a = strtoull(line, NULL, 16);

		if (!a)
			continue;
		*lo = a < *lo ? a : *lo;
		*hi = a > *hi ? a : *hi;
	}
	fclose(f);
	ck_assert_msg(*lo < *hi, "kallsyms gave no addresses");
}

/*
 * Where buf holds a kernel address in [lo, hi]: 8 bytes at any offset read
 * as a little-endian u64, or 16 hex digits as text. -1: nowhere.
 */
static long find_kernel_address(const uint8_t *buf, long len, uint64_t lo, uint64_t hi)
{
	for (long i = 0; i + 8 <= len; i++) {
		uint64_t v = 0;
		char hex[17];

		for (int b = 7; b >= 0; b--)
			v = v << 8 | buf[i + b];
		if (v >= lo && v <= hi)
			return i;
		if (i + 16 <= len) {
			memcpy(hex, buf + i, 16);
			hex[16] = '\0';
			if (strspn(hex, "0123456789abcdefABCDEF") == 16) {
				v = strtoull(hex, NULL, 16);
				if (v >= lo && v <= hi)
					return i;
			}
		}
	}
	return -1;
}

static void assert_no_kernel_address(const char *path, uint64_t lo, uint64_t hi)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf, planted[24] = {0};
	long len, at;
	char text[17];

	/* The scan finds what it looks for: an address at an odd offset, and as text. */
	for (int b = 0; b < 8; b++)
		planted[3 + b] = (uint8_t)(lo >> (8 * b));
	ck_assert_int_eq(find_kernel_address(planted, sizeof(planted), lo, hi), 3);
	snprintf(text, sizeof(text), "%016" PRIx64, hi);
	ck_assert_int_eq(find_kernel_address((const uint8_t *)text, 16, lo, hi), 0);

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)len, f), len);
	fclose(f);
	at = find_kernel_address(buf, len, lo, hi);
	ck_assert_msg(at < 0,
		      "%s: a kernel address at byte %ld (kernel 0x%" PRIx64 "..0x%" PRIx64 ")",
		      path, at, lo, hi);
	free(buf);
}

static uid_t test_user(void)
{
	struct passwd *pw = getpwnam(TEST_USER);

	if (!pw) {
		ck_assert_int_eq(live_run_cmd("useradd --system --no-create-home --shell "
					      "/usr/sbin/nologin " TEST_USER),
				 0);
		pw = getpwnam(TEST_USER);
	}
	ck_assert_ptr_nonnull(pw);
	return pw->pw_uid;
}

/*
 * An ordinary user through fxsamplerd: with perf_event_paranoid 2 told so
 * and given no kernel frame; with 1 given the names. Neither file holds a
 * kernel address.
 */
START_TEST(test_daemon_user)
{
	char sock[300];
	const char *p2 = out_path("p2.fxt"), *p1 = out_path("p1.fxt");
	struct run *r = calloc(1, sizeof(*r));
	uid_t uid = test_user();
	uint64_t lo, hi;
	size_t hit, all;
	struct kfile *f;
	pid_t d;
	int st;

	ck_assert_ptr_nonnull(r);
	kernel_range(&lo, &hi);
	d = live_start_tmp_daemon(sock, sizeof(sock));
	ck_assert_int_gt(d, 0);

	write_sysctl(PARANOID, "2");
	run_as(r, uid,
	       (const char *const[]){"record", "-q", "--daemon", "--socket", sock, "--kernel", "-o",
				     p2, "--", "timeout", "1", "dd", "if=/dev/zero", "of=/dev/null",
				     "bs=512", NULL});
	ck_assert_msg(exit_code(r) == 0, "record as a user: %s", r->err);
	ck_assert_msg(strstr(r->err, "no kernel stacks: perf_event_paranoid is 2"), "not told: %s",
		      r->err);
	f = kload(p2);
	ck_assert_uint_gt(f->n, 100);
	ck_assert_uint_eq(f->kstack_blobs, 0);
	ck_assert_uint_eq(f->ksyms_blobs, 0);
	ck_assert_uint_eq(f->kernel_blobs, 0);
	kfile_free(f);
	assert_no_kernel_address(p2, lo, hi);

	write_sysctl(PARANOID, "1");
	run_as(r, uid,
	       (const char *const[]){"record", "-q", "--daemon", "--socket", sock, "--kernel", "-o",
				     p1, "--", "timeout", "1", "dd", "if=/dev/zero", "of=/dev/null",
				     "bs=512", NULL});
	write_sysctl(PARANOID, saved_paranoid);
	kill(d, SIGTERM);
	waitpid(d, &st, 0);
	ck_assert_msg(exit_code(r) == 0, "record as a user: %s", r->err);
	ck_assert_msg(!strstr(r->err, "no kernel stacks"), "refused: %s", r->err);
	f = kload(p1);
	hit = count_under(f, "dd", false, syscall_fns, &all);
	ck_assert_uint_gt(f->kstack_blobs, 100);
	ck_assert_uint_gt(f->ksyms_blobs, 0);
	/*
	 * Kernel stacks reach the user: dd's share under its syscalls is 12 to
	 * 53 % here (root's own test compares it with perf's, which was 14.5 %
	 * in the CI run where this one saw 12.1 %); 1/20 tells kernel stacks
	 * from none (0 %) without failing a loaded host's run.
	 */
	ck_assert_msg(hit * 20 > all, "%zu of %zu samples under ksys_read/ksys_write", hit, all);
	kfile_free(f);
	assert_no_kernel_address(p1, lo, hi);
	free(r);
}
END_TEST

/* How many locations of f's ksyms no symbol named. */
static size_t unnamed_in(const struct kfile *f)
{
	size_t n = 0;

	for (size_t i = 0; i < MAX_KLOCATIONS; i++)
		n += f->names[i] && !strcmp(f->names[i], "[unknown]");
	return n;
}

/*
 * kptr_restrict=2 and perf_event_paranoid=1 (issue 40): the kernel frames of
 * a user's record through fxsamplerd stay unnamed, and the user's summary
 * says how many, as root's own record does (fxsampler-record(1)): the very
 * number of unnamed locations the file holds.
 */
START_TEST(test_daemon_user_unnamed)
{
	char sock[300], want[96];
	const char *path = out_path("unnamed.fxt");
	struct run *r = calloc(1, sizeof(*r));
	uid_t uid = test_user();
	struct kfile *f;
	size_t unnamed;
	pid_t d;
	int st;

	ck_assert_ptr_nonnull(r);
	d = live_start_tmp_daemon(sock, sizeof(sock));
	ck_assert_int_gt(d, 0);
	write_sysctl(PARANOID, "1");
	write_sysctl(KPTR_RESTRICT, "2");
	run_as(r, uid,
	       (const char *const[]){"record", "-q", "--daemon", "--socket", sock, "--kernel", "-o",
				     path, "--", "timeout", "1", "dd", "if=/dev/zero",
				     "of=/dev/null", "bs=512", NULL});
	write_sysctl(KPTR_RESTRICT, saved_kptr);
	write_sysctl(PARANOID, saved_paranoid);
	kill(d, SIGTERM);
	waitpid(d, &st, 0);
	ck_assert_msg(exit_code(r) == 0, "record as a user: %s", r->err);
	f = kload(path);
	ck_assert_uint_gt(f->kstack_blobs, 100);
	unnamed = unnamed_in(f);
	kfile_free(f);
	ck_assert_uint_gt(unnamed, 0);
	snprintf(want, sizeof(want), "warning: %zu kernel locations left unnamed", unnamed);
	printf("through the daemon, kptr_restrict=2: '%s'\n", want);
	ck_assert_msg(strstr(r->err, want), "no '%s' in:\n%s", want, r->err);
	free(r);
}
END_TEST

static Suite *kernel_suite(void)
{
	Suite *s = suite_create("kernel-live");
	TCase *tc = tcase_create("kernel");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_dd_against_perf);
	tcase_add_test(tc, test_offcpu_kernel_stacks);
	tcase_add_test(tc, test_report_without_kallsyms);
	tcase_add_test(tc, test_daemon_user);
	tcase_add_test(tc, test_daemon_user_unnamed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (access("/usr/bin/perf", X_OK) && geteuid() == 0) {
		printf("FAIL: check_kernel compares with perf, which is missing (apt-get install "
		       "linux-perf, in make deps)\n");
		return EXIT_FAILURE;
	}
	return live_main(kernel_suite());
}
