// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Thread refs across a wrapping thread table (root). A capture holds at most
 * 255 thread slots; module and mmap records name (pid, 0) through one of the
 * same slots the samples' (pid, tid) use. churn runs 1000 processes, each
 * execed anew so that ASLR gives it mappings of its own, and 1000 threads,
 * and logs what /proc/self/maps shows each process and which process each
 * thread belongs to while they live. Every module, mmap and backtrace record
 * of the capture must name the right process: its mmaps are that process's
 * mappings, its samples' PCs lie in them, its threads are its own.
 *
 * FXS_BIN: the fxsampler binary; FXS_PROGS: the built test programs.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"

#define MAX_PROCS    8192
#define MAX_THREADS  8192
#define MAX_MAPPINGS 32
#define MAX_MODULES  16

struct logged_proc {
	uint32_t pid;
	unsigned nr_maps;
	uint64_t start[MAX_MAPPINGS], end[MAX_MAPPINGS];
	uint16_t modules[MAX_MODULES]; /* module ids with a module record */
	unsigned nr_modules;
	bool mmapped, sampled;
};

struct logged_thread {
	uint32_t tid, pid;
	bool sampled;
};

static struct logged_proc procs[MAX_PROCS];
static struct logged_thread threads[MAX_THREADS];
static size_t nr_procs, nr_threads;

static void setup(void)
{
	live_make_dir("/tmp/fxs-refs-XXXXXX");
}

static void teardown(void)
{
	live_remove_dir();
}

static struct logged_proc *find_proc(uint32_t pid)
{
	for (size_t i = 0; i < nr_procs; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	return NULL;
}

static struct logged_thread *find_thread(uint32_t tid)
{
	for (size_t i = 0; i < nr_threads; i++)
		if (threads[i].tid == tid)
			return &threads[i];
	return NULL;
}

/*
 * churn's own process logs first. A child logs twice, as forked and as
 * execed: its mappings are the union.
 */
static void read_log(const char *path)
{
	char line[16384], *p;
	struct logged_proc *lp;
	unsigned long a, b;
	FILE *f = fopen(path, "re");
	int pid, tid, n;

	ck_assert_msg(f, "churn wrote no log %s", path);
	nr_procs = nr_threads = 0;
	while (fgets(line, sizeof(line), f)) {
		ck_assert_msg(strchr(line, '\n'), "a cut line in churn's log: %s", line);
		if (sscanf(line, "T %d %d", &tid, &pid) == 2) {
			ck_assert_uint_lt(nr_threads, MAX_THREADS);
			threads[nr_threads++] = (struct logged_thread){.tid = tid, .pid = pid};
			continue;
		}
		ck_assert_msg(sscanf(line, "P %d%n", &pid, &n) == 1, "bad log line: %s", line);
		lp = find_proc(pid);
		if (!lp) {
			ck_assert_uint_lt(nr_procs, MAX_PROCS);
			lp = &procs[nr_procs++];
			lp->pid = pid;
		}
		for (p = line + n; sscanf(p, " %lx-%lx%n", &a, &b, &n) == 2; p += n) {
			ck_assert_uint_lt(lp->nr_maps, MAX_MAPPINGS);
			lp->start[lp->nr_maps] = a;
			lp->end[lp->nr_maps++] = b;
		}
		ck_assert_msg(*p == '\n', "bad log line: %s", line);
	}
	fclose(f);
}

static bool in_maps(const struct logged_proc *lp, uint64_t pc)
{
	for (unsigned i = 0; i < lp->nr_maps; i++)
		if (pc >= lp->start[i] && pc < lp->end[i])
			return true;
	return false;
}

static bool is_mapping(const struct logged_proc *lp, uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < lp->nr_maps; i++)
		if (start == lp->start[i] && end == lp->end[i])
			return true;
	return false;
}

/* Whether some other process logged exactly this mapping. */
static bool someone_elses(const struct logged_proc *lp, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < nr_procs; i++)
		if (&procs[i] != lp && is_mapping(&procs[i], start, end))
			return true;
	return false;
}

START_TEST(test_refs_resolve_after_wrap)
{
	size_t modules = 0, mmaps = 0, samples = 0, thread_records = 0, redefined = 0;
	size_t own_mmaps = 0, mmapped = 0, sampled_pids = 0, sampled_tids = 0;
	bool defined[256] = {false};
	struct logged_proc *lp;
	struct logged_thread *lt;
	struct fxt_reader *r;
	struct fxt_record rec;
	char *log = out_path("churn.log"), *fxt = out_path("churn.fxt");
	FILE *aslr = fopen("/proc/sys/kernel/randomize_va_space", "re");
	struct run run;
	bool root_execed = false;
	int n, randomize = 0;

	/* Without ASLR every child has the same mappings and a wrong pid goes unseen. */
	ck_assert_ptr_nonnull(aslr);
	ck_assert_int_eq(fscanf(aslr, "%d", &randomize), 1);
	fclose(aslr);
	ck_assert_msg(randomize, "kernel.randomize_va_space is 0: the test cannot tell pids apart");

	RUN(&run, "record", "-q", "-F", "4999", "-o", fxt, "--", prog("churn"), "4", "250", log);
	ck_assert_msg(exit_code(&run) == 0, "record failed: %s", run.err);
	read_log(log);
	ck_assert_uint_ge(nr_procs, 1001);
	ck_assert_uint_eq(nr_threads, 1000);

	r = fxt_reader__open(fxt);
	ck_assert_ptr_nonnull(r);
	while ((n = fxt_reader_next(r, &rec)) == 1) {
		if (rec.type == FXT_RT_THREAD) {
			thread_records++;
			redefined += defined[rec.index];
			defined[rec.index] = true;
			continue;
		}
		/*
		 * churn's own pid ran fxsampler's forked child before its exec,
		 * with mappings churn never saw: its records count from the exec,
		 * which the capture marks by naming the process anew.
		 */
		if (rec.type == FXT_RT_KOBJ && rec.subtype == FXT_OBJ_PROCESS &&
		    rec.koid == procs[0].pid && !strcmp(rec.name, "churn"))
			root_execed = true;
		if (rec.type != FXT_RT_PROFILER || rec.subtype > FXT_PROF_BACKTRACE)
			continue;
		if (rec.pid == procs[0].pid && !root_execed)
			continue;
		ck_assert_msg((rec.header >> 20) & 0xff,
			      "profiler record at offset %" PRIu64 " has an inline thread ref",
			      rec.offset);
		lp = find_proc(rec.pid);
		ck_assert_msg(lp, "record at offset %" PRIu64 ": pid %" PRIu64 " never ran churn",
			      rec.offset, rec.pid);
		switch (rec.subtype) {
		case FXT_PROF_MODULE:
			modules++;
			ck_assert_uint_eq(rec.tid, 0);
			ck_assert_uint_lt(lp->nr_modules, MAX_MODULES);
			lp->modules[lp->nr_modules++] = rec.module_id;
			break;
		case FXT_PROF_MMAP: {
			bool has_module = false;

			mmaps++;
			ck_assert_uint_eq(rec.tid, 0);
			for (unsigned i = 0; i < lp->nr_modules; i++)
				has_module |= lp->modules[i] == rec.module_id;
			ck_assert_msg(has_module,
				      "mmap at offset %" PRIu64 " of pid %u: module %u has no "
				      "module record in that process",
				      rec.offset, lp->pid, rec.module_id);
			ck_assert_msg(is_mapping(lp, rec.start, rec.start + rec.size),
				      "mmap at offset %" PRIu64 " of pid %u: %" PRIx64 "-%" PRIx64
				      " is none of its mappings%s",
				      rec.offset, lp->pid, rec.start, rec.start + rec.size,
				      someone_elses(lp, rec.start, rec.start + rec.size)
					      ? " (another process's)"
					      : "");
			/* Execed: its layout is its own, not the parent's nor a sibling's. */
			own_mmaps += !someone_elses(lp, rec.start, rec.start + rec.size);
			mmapped += !lp->mmapped;
			lp->mmapped = true;
			break;
		}
		default:
			samples++;
			/*
			 * A sample inside churn's own execve can carry the new
			 * name and the old image's registers (fxsampler's):
			 * only the children, whose old image churn logged
			 * too, have every PC checked.
			 */
			ck_assert_msg(lp == &procs[0] || in_maps(lp, rec.frames[0]),
				      "sample at offset %" PRIu64 " of pid %u tid %" PRIu64
				      ": pc 0x%" PRIx64 " is in none of its mappings",
				      rec.offset, lp->pid, rec.tid, rec.frames[0]);
			sampled_pids += !lp->sampled;
			lp->sampled = true;
			if (rec.tid == rec.pid)
				break;
			lt = find_thread(rec.tid);
			ck_assert_msg(lt && lt->pid == rec.pid,
				      "sample at offset %" PRIu64 ": tid %" PRIu64
				      " is no thread of pid %" PRIu64,
				      rec.offset, rec.tid, rec.pid);
			sampled_tids += !lt->sampled;
			lt->sampled = true;
			break;
		}
	}
	ck_assert_msg(n == 0, "reader: %s", fxt_reader_error(r));
	fxt_reader__free(r);
	printf("refs: %zu thread records (%zu redefining a slot), %zu module, %zu mmap (%zu of "
	       "one process's own layout), %zu backtrace records; %zu processes mmapped, %zu "
	       "sampled, %zu threads sampled\n",
	       thread_records, redefined, modules, mmaps, own_mmaps, samples, mmapped, sampled_pids,
	       sampled_tids);
	fflush(stdout);
	/* The table wrapped many times over, and most processes and threads were seen. */
	ck_assert_uint_gt(redefined, 255);
	ck_assert_uint_gt(mmapped, 255);
	ck_assert_uint_gt(sampled_pids, 255);
	ck_assert_uint_gt(sampled_tids, 255);
	ck_assert_uint_gt(own_mmaps, 255);
}
END_TEST

static Suite *refs_suite(void)
{
	Suite *s = suite_create("threadrefs");
	TCase *tc = tcase_create("wrap");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_refs_resolve_after_wrap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return live_main(refs_suite());
}
