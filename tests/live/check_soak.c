// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Soak (root): one fxsamplerd serves FXS_SOAK_SESSIONS (default 500)
 * sessions back to back, every tenth client SIGKILLed mid-session. After
 * the warm-up the daemon's open fds, its VmRSS and the BPF objects of our
 * names on the host must not grow, and every session that ended normally
 * must have streamed a complete FXT file.
 *
 * FXS_BIN: the fxsampler binary (fxsamplerd is taken from beside it, or from
 * $FXSAMPLERD). The unprivileged-user and malformed-message cases are in
 * check_daemon.c; this file only soaks.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/client.h"
#include "fxt/fxt_reader.h"
#include "live.h"
#include "live_daemon.h"
#include "service/protocol.h"
#include "check_main.h"

static struct live_suite suite = {.name = "check_soak",
				  .needs = "it runs fxsamplerd",
				  .dir = "/tmp/fxs-soak.XXXXXX",
				  .dir_mode = 0700};

static struct fxs_msg_status status(void)
{
	struct fxs_msg_status st;
	char err[256];

	ck_assert_msg(!client_query_status(suite.daemon.sock, &st, err, sizeof(err)), "%s", err);
	return st;
}

static bool wait_idle(unsigned ms)
{
	for (; ms; ms -= ms < 20 ? ms : 20) {
		if (status().session == FXS_SESSION_NONE)
			return true;
		live_msleep(20);
	}
	return false;
}

static pid_t spinner(void)
{
	pid_t pid = fork();
	volatile unsigned long x = 0;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;)
		x++;
}

/* --- what the daemon holds --- */

/* The number of open fds of pid, and (if list) what they are: "3:socket:[123] 4:...". */
static long fd_count(pid_t pid, char *list, size_t size)
{
	char path[64], link[128], fd_path[384];
	struct dirent *de;
	long n = 0;
	DIR *d;

	if (list)
		list[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		n++;
		if (!list)
			continue;
		snprintf(fd_path, sizeof(fd_path), "%s/%s", path, de->d_name);
		len = readlink(fd_path, link, sizeof(link) - 1);
		link[len > 0 ? len : 0] = '\0';
		len = (ssize_t)strlen(list);
		snprintf(list + len, size - (size_t)len, " %s:%s", de->d_name, link);
	}
	closedir(d);
	return n;
}

/*
 * The fds of an idle daemon: the least of a few readings 20 ms apart, since
 * the connection of the last status query may still be closing; a leaked fd
 * stays in every reading.
 */
static long settled_fd_count(pid_t pid, char *list, size_t size)
{
	static char tmp[4096];
	long best = -1;

	for (int i = 0; i < 5; i++) {
		long n = fd_count(pid, tmp, sizeof(tmp));

		if (best < 0 || n < best) {
			best = n;
			if (list)
				snprintf(list, size, "%s", tmp);
		}
		live_msleep(20);
	}
	return best;
}

static long vm_rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *in;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	in = fopen(path, "re");
	ck_assert_ptr_nonnull(in);
	while (fgets(line, sizeof(line), in))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(in);
	return kib;
}

/*
 * The daemon's fds that are BPF programs, maps or links, or perf events (the
 * kernel objects a session holds). Counted through its own fd table, so that
 * other tests loading their own BPF on the host meanwhile do not count.
 */
static long bpf_fd_count(pid_t pid)
{
	char path[64], link[128];
	struct dirent *de;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char fd_path[384];
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fd_path, sizeof(fd_path), "%s/%s", path, de->d_name);
		len = readlink(fd_path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		n += !strncmp(link, "anon_inode:bpf", 14) ||
		     !strcmp(link, "anon_inode:[perf_event]");
	}
	closedir(d);
	return n;
}

/* --- sessions --- */

static struct capture_opts opts_for(pid_t target)
{
	struct capture_opts o = {.freq_hz = 499, .buffer_size = 1 << 16, .max_frames = 64};

	o.pids[0] = (uint32_t)target;
	o.nr_pids = 1;
	return o;
}

/* A whole session through the daemon; the file must be one complete FXT stream. */
static void normal_session(unsigned i, pid_t target, uint64_t ns, bool want_samples)
{
	struct capture_opts o = opts_for(target);
	struct client_result res;
	struct fxt_reader *r;
	struct fxt_record rec;
	char out[300], msg[256];
	long samples = 0;
	int fd, err, n;

	snprintf(out, sizeof(out), "%s/session.fxt", tmpdir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	err = client_record(suite.daemon.sock, &o, fd, NULL, ns, NULL, &res, msg, sizeof(msg));
	close(fd);
	ck_assert_msg(!err, "session %u: %s", i, msg);
	r = fxt_reader__open(out);
	ck_assert_ptr_nonnull(r);
	while ((n = fxt_reader_next(r, &rec)) > 0)
		samples += rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_BACKTRACE;
	ck_assert_msg(n == 0, "session %u: %s", i, fxt_reader_error(r));
	fxt_reader__free(r);
	if (want_samples)
		ck_assert_msg(samples > 0, "session %u: no sample of the spinner", i);
}

/* A client SIGKILLed while its session runs: the daemon destroys the session. */
static void killed_session(unsigned i, pid_t target)
{
	pid_t client = fork();
	int k;

	ck_assert_int_ge(client, 0);
	if (!client) {
		struct capture_opts o = opts_for(target);
		struct client_result res;
		char msg[256];
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		_exit(-client_record(suite.daemon.sock, &o, fd, NULL, 0, NULL, &res, msg,
				     sizeof(msg)));
	}
	for (k = 0; k < 250; k++) {
		struct fxs_msg_status st = status();

		if (st.session == FXS_SESSION_RUNNING && st.holder_pid == (uint32_t)client)
			break;
		live_msleep(20);
	}
	ck_assert_msg(k < 250, "session %u: the client's capture never ran", i);
	/* Vary where in the session it dies. */
	live_msleep(10 * (i % 7));
	kill(client, SIGKILL);
	waitpid(client, NULL, 0);
	ck_assert_msg(wait_idle(5000), "session %u: the killed client's session stayed", i);
}

START_TEST(test_soak)
{
	const char *env = getenv("FXS_SOAK_SESSIONS");
	unsigned sessions = env ? (unsigned)strtoul(env, NULL, 10) : 500;
	unsigned warmup = sessions / 10 ? sessions / 10 : 1, killed = 0;
	long fds0 = -1, rss0 = -1, bpf0 = -1, fds, rss, bpf, peak_fds = 0;
	static char list0[4096], list[4096];
	pid_t target = spinner();
	time_t t0 = time(NULL);

	ck_assert_uint_ge(sessions, 20);
	for (unsigned i = 0; i < sessions; i++) {
		if (i % 10 == 9) {
			killed_session(i, target);
			killed++;
		} else {
			/* Most sessions are short; every 25th runs long enough to sample. */
			bool sample = i % 25 == 0;

			normal_session(i, target, sample ? 300000000ULL : 20000000ULL, sample);
		}
		ck_assert_msg(wait_idle(5000), "session %u did not end", i);
		fds = fd_count(suite.daemon.pid, NULL, 0);
		if (fds > peak_fds)
			peak_fds = fds;
		if (i + 1 == warmup) {
			fds0 = settled_fd_count(suite.daemon.pid, list0, sizeof(list0));
			rss0 = vm_rss_kib(suite.daemon.pid);
			bpf0 = bpf_fd_count(suite.daemon.pid);
		}
	}
	fds = settled_fd_count(suite.daemon.pid, list, sizeof(list));
	rss = vm_rss_kib(suite.daemon.pid);
	bpf = bpf_fd_count(suite.daemon.pid);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	printf("soak: %u sessions (%u clients killed) in %lds; daemon fds %ld -> %ld (peak %ld), "
	       "VmRSS %ld -> %ld KiB, BPF/perf fds %ld -> %ld\n",
	       sessions, killed, (long)(time(NULL) - t0), fds0, fds, peak_fds, rss0, rss, bpf0,
	       bpf);
	fflush(stdout);
	/* Idle after each session: exactly the fds it had idle after the warm-up. */
	ck_assert_msg(fds == fds0, "daemon fds grew from %ld to %ld: from%s to%s", fds0, fds, list0,
		      list);
	/*
	 * 90% of the sessions ran after the warm-up point: 450 by default. 1 MiB
	 * over them is ~2 KiB a session; any per-session leak of a ring, a
	 * skeleton, a module table or a connection buffer is bigger.
	 */
	ck_assert_msg(rss - rss0 <= 1024, "daemon VmRSS grew from %ld to %ld KiB", rss0, rss);
	ck_assert_msg(bpf >= 0 && bpf == bpf0,
		      "BPF objects of our names: %ld after warm-up, %ld "
		      "at the end",
		      bpf0, bpf);
	ck_assert_int_eq(kill(suite.daemon.pid, 0), 0);
}
END_TEST

static Suite *soak_suite(void)
{
	Suite *s = suite_create("soak");
	TCase *tc = tcase_create("sessions");

	tcase_set_timeout(tc, 1800);
	tcase_add_test(tc, test_soak);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return live_suite_main(&suite, soak_suite);
}
