// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPU hotplug during a capture (root): a CPU offline at start is picked up
 * when it comes online, one that goes offline stops cleanly and is re-armed
 * when it returns, an idle one is sampled all along. Every CPU is put back
 * online at the end, pass or fail.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fxt/fxt_reader.h"
#include "sampler.h"
#include "check_main.h"

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

static const char *bin, *progs;
static char tmpdir[256], out[300];

static int set_cpu1(int on)
{
	int fd = open(CPU1_ONLINE, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, on ? "1" : "0", 1);
	close(fd);
	return n == 1 ? 0 : -errno;
}

static void all_online(void)
{
	set_cpu1(1);
}

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/fxs-hotplug-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(out, sizeof(out), "%s/hp.fxt", tmpdir);
}

static void teardown(void)
{
	char cmd[300];

	all_online();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		char path[300];
		int err;

		snprintf(path, sizeof(path), "%s/stderr", tmpdir);
		err = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dup2(err, 2);
		dup2(devnull, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Run the demo pinned to CPU 1 for secs of CPU time; returns its pid once done. */
static pid_t busy_on_cpu1(const char *secs)
{
	char path[512];
	char *argv[] = {
		(char *)"/usr/bin/taskset", (char *)"-c", (char *)"1", path, (char *)secs, NULL};
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/demo", progs);
	pid = spawn(argv);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "taskset demo failed");
	/* taskset execs the demo in place: the pid is the demo's. */
	return pid;
}

/* Start a host-wide capture and return once its program is loaded and armed. */
static pid_t start_record(const char *duration)
{
	char *argv[] = {(char *)bin,  (char *)"record", (char *)"-q", (char *)"-a",
			(char *)"-d", (char *)duration, (char *)"-o", out,
			NULL};
	pid_t pid = spawn(argv);

	for (int i = 0; i < 200; i++) {
		if (!system("bpftool prog show name fxs_sample >/dev/null 2>&1"))
			break;
		usleep(50000);
	}
	/* Loaded: the events are armed right after. */
	usleep(200000);
	return pid;
}

static void wait_record(pid_t pid)
{
	char path[300], text[4096] = "";
	int status;
	FILE *f;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	snprintf(path, sizeof(path), "%s/stderr", tmpdir);
	f = fopen(path, "r");
	if (f) {
		text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
		fclose(f);
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "record failed (%d): %s",
		      status, text);
}

struct result {
	uint64_t cpu1_ns, cpu0_ns;
	size_t samples_of[4]; /* samples of pids[i] */
	uint64_t written;
	bool invariant_ok;
};

static uint64_t arg(const struct fxt_record *rec, const char *name)
{
	for (unsigned i = 0; i < rec->nr_args; i++)
		if (!strcmp(rec->args[i].name, name))
			return rec->args[i].u;
	ck_abort_msg("counter %s lacks %s", rec->name, name);
	return 0;
}

static void read_result(const pid_t *pids, unsigned nr_pids, struct result *res)
{
	struct fxt_reader *r = fxt_reader__open(out);
	struct fxt_record rec;
	size_t samples = 0;
	int n;

	memset(res, 0, sizeof(*res));
	res->invariant_ok = true;
	ck_assert_ptr_nonnull(r);
	while ((n = fxt_reader_next(r, &rec)) > 0) {
		if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_BACKTRACE) {
			samples++;
			for (unsigned i = 0; i < nr_pids; i++)
				res->samples_of[i] += rec.pid == (uint64_t)pids[i];
		}
		/*
		 * The samples' counters: the total and each CPU's (the mapping
		 * events', the walker's and the tables' have sums of their own).
		 */
		if (rec.type != FXT_RT_EVENT || rec.subtype != FXT_EVENT_COUNTER ||
		    (strcmp(rec.name, "samples") && strncmp(rec.name, "cpu", 3)))
			continue;
		if (arg(&rec, "fired") !=
		    arg(&rec, "written") + arg(&rec, "filtered") +
			    arg(&rec, "dropped_not_running") + arg(&rec, "dropped_ring_full") +
			    arg(&rec, "dropped_no_regs") + arg(&rec, "skipped_kernel_thread") +
			    arg(&rec, "filtered_creds"))
			res->invariant_ok = false;
		if (!strcmp(rec.name, "cpu0"))
			res->cpu0_ns = arg(&rec, "sampled_ns");
		if (!strcmp(rec.name, "cpu1"))
			res->cpu1_ns = arg(&rec, "sampled_ns");
		if (!strcmp(rec.name, "samples"))
			res->written = arg(&rec, "written");
	}
	ck_assert_msg(n == 0, "reader: %s", fxt_reader_error(r));
	fxt_reader__free(r);
	ck_assert_uint_eq(samples, res->written);
}

START_TEST(test_offline_at_start)
{
	struct result res;
	pid_t rec, busy;

	ck_assert_int_eq(set_cpu1(0), 0);
	rec = start_record("4");
	sleep(1);
	ck_assert_int_eq(set_cpu1(1), 0);
	usleep(300000);
	busy = busy_on_cpu1("1");
	wait_record(rec);
	read_result(&busy, 1, &res);
	ck_assert_msg(res.invariant_ok, "counters do not add up");
	ck_assert_msg(res.samples_of[0] > 200, "%zu samples of the program on cpu 1",
		      res.samples_of[0]);
	ck_assert_msg(res.cpu1_ns > 1000000000ULL && res.cpu1_ns + 400000000ULL < res.cpu0_ns,
		      "cpu1 sampled %llu ns, cpu0 %llu ns", (unsigned long long)res.cpu1_ns,
		      (unsigned long long)res.cpu0_ns);
}
END_TEST

START_TEST(test_offline_online_cycles)
{
	struct result res;
	pid_t rec, busy[2];

	rec = start_record("6");
	usleep(300000);
	busy[0] = busy_on_cpu1("0.5");
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(set_cpu1(0), 0);
		usleep(400000);
		ck_assert_int_eq(set_cpu1(1), 0);
		usleep(400000);
	}
	/* Sampling on CPU 1 resumed after the last cycle. */
	busy[1] = busy_on_cpu1("0.5");
	wait_record(rec);
	read_result(busy, 2, &res);
	ck_assert_msg(res.invariant_ok, "counters do not add up");
	ck_assert_msg(res.samples_of[0] > 100, "%zu samples before the cycles", res.samples_of[0]);
	ck_assert_msg(res.samples_of[1] > 100, "%zu samples after the cycles", res.samples_of[1]);
	ck_assert_msg(res.cpu1_ns + 1000000000ULL < res.cpu0_ns, "cpu1 %llu ns, cpu0 %llu ns",
		      (unsigned long long)res.cpu1_ns, (unsigned long long)res.cpu0_ns);
}
END_TEST

/* Off and on again faster than the drain loop looks: the dead event is re-armed. */
START_TEST(test_quick_cycle)
{
	struct result res;
	pid_t rec, busy;

	rec = start_record("4");
	usleep(500000);
	ck_assert_int_eq(set_cpu1(0), 0);
	ck_assert_int_eq(set_cpu1(1), 0);
	usleep(800000);
	busy = busy_on_cpu1("1");
	wait_record(rec);
	read_result(&busy, 1, &res);
	ck_assert_msg(res.invariant_ok, "counters do not add up");
	ck_assert_msg(res.samples_of[0] > 200, "%zu samples after a quick cycle",
		      res.samples_of[0]);
}
END_TEST

/*
 * CPU 1 goes offline mid-capture and stays so: its sampled time ends there.
 * Nothing of ours runs on it before: an idle CPU's clock event does not fire
 * (6.18), and its time must count all the same until it goes.
 */
START_TEST(test_offline_until_the_end)
{
	struct result res;
	pid_t rec;

	rec = start_record("3");
	usleep(500000);
	ck_assert_int_eq(set_cpu1(0), 0);
	wait_record(rec);
	all_online();
	read_result(NULL, 0, &res);
	ck_assert_msg(res.invariant_ok, "counters do not add up");
	ck_assert_msg(res.cpu1_ns > 400000000ULL && res.cpu1_ns + 1000000000ULL < res.cpu0_ns,
		      "cpu1 sampled %llu ns, cpu0 %llu ns", (unsigned long long)res.cpu1_ns,
		      (unsigned long long)res.cpu0_ns);
}
END_TEST

/* The seconds the summary line "sampled: cpu0 2.00s, cpu1 2.00s" gives cpu, or -1. */
static double summary_seconds(unsigned cpu)
{
	char path[300], text[8192] = "", key[16];
	const char *line, *at;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stderr", tmpdir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
	fclose(f);
	line = strstr(text, "sampled: ");
	snprintf(key, sizeof(key), "cpu%u ", cpu);
	at = line ? strstr(line, key) : NULL;
	return at ? strtod(at + strlen(key), NULL) : -1;
}

/*
 * A CPU that stays online and idle (nothing of ours runs there) is sampled
 * for the whole capture: its event fires seldom or never, and is not taken
 * for one that hotplug turned off.
 */
START_TEST(test_idle_cpu)
{
	struct result res;
	double cpu1_s;

	wait_record(start_record("2"));
	read_result(NULL, 0, &res);
	cpu1_s = summary_seconds(1);
	ck_assert_msg(res.invariant_ok, "counters do not add up");
	ck_assert_msg(cpu1_s > 1.8 && cpu1_s < 2.2,
		      "the summary gives cpu1 %.2f s of a 2 s capture", cpu1_s);
	ck_assert_msg(res.cpu1_ns > 1800000000ULL && res.cpu1_ns < 2200000000ULL,
		      "the file gives cpu1 %llu ns of a 2 s capture",
		      (unsigned long long)res.cpu1_ns);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hotplug");
	TCase *tc = tcase_create("cycles");
	int status;

	bin = getenv("FXS_BIN");
	progs = getenv("FXS_PROGS");
	if (geteuid() != 0) {
		printf("SKIP: hotplug tests need root; NOT RUN\n");
		return EXIT_SUCCESS;
	}
	if (access(CPU1_ONLINE, W_OK)) {
		printf("SKIP: CPU 1 cannot be taken offline here (%s); NOT RUN\n", CPU1_ONLINE);
		return EXIT_SUCCESS;
	}
	if (!bin || !progs) {
		fprintf(stderr, "FXS_BIN and FXS_PROGS must be set\n");
		return EXIT_FAILURE;
	}
	/* Whatever happens, the machine keeps both CPUs. */
	atexit(all_online);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_offline_at_start);
	tcase_add_test(tc, test_offline_online_cycles);
	tcase_add_test(tc, test_quick_cycle);
	tcase_add_test(tc, test_offline_until_the_end);
	tcase_add_test(tc, test_idle_cpu);
	suite_add_tcase(s, tc);
	status = check_run(s);
	all_online();
	return status;
}
