// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a demanding user and a hostile local user did (issue 18), for real
 * (root): output that is a device, a FIFO, a symlink, stdout or a file with
 * a mode to keep; exit codes; targets that cannot be sampled; commands that
 * must not hang.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "live_daemon.h"

#define NOBODY 65534

static void setup(void)
{
	live_make_dir("/tmp/fxs-hardening-XXXXXX");
}

static void teardown(void)
{
	live_remove_dir();
}

__attribute__((unused)) static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Only the names given (and . and ..) are in dir: no temporary file is left. */
static void assert_only(const char *dir, const char *const *names)
{
	char cmd[512], out[4096] = "";
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	pclose(p);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		bool known = false;

		for (const char *const *k = names; *k; k++)
			known |= !strcmp(line, *k);
		ck_assert_msg(known, "unexpected '%s' in %s", line, dir);
	}
}

/* A short capture of demo into path: its run. */
static void record_demo(struct run *r, uid_t uid, const char *path)
{
	run_as(r, uid,
	       (const char *const[]){"record", "-q", "-d", "300ms", "-o", path, "--", prog("demo"),
				     "0.3", NULL});
}

static void assert_fxt(const char *path)
{
	struct capture_file *f = load(path);

	ck_assert_msg(f->read_result == 0, "%s: %s", path, f->error);
	ck_assert_msg(counter(f, "samples"), "%s has no counters: incomplete", path);
	unload(f);
}

/* --- output --- */

/* -o NODE of a character device: written through, still that device afterwards. */
START_TEST(test_output_char_device)
{
	char *node = out_path("null"), *link = out_path("link");
	struct stat st;
	struct run r;

	ck_assert_int_eq(mknod(node, S_IFCHR | 0666, makedev(1, 3)), 0);
	ck_assert_int_eq(symlink("null", link), 0);
	record_demo(&r, 0, node);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(stat(node, &st), 0);
	ck_assert_msg(S_ISCHR(st.st_mode), "%s is no longer a character device", node);
	ck_assert_uint_eq(st.st_rdev, makedev(1, 3));
	/* through a symlink: the link and the device stay */
	record_demo(&r, 0, link);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert_msg(S_ISLNK(st.st_mode), "the symlink was replaced");
	ck_assert_int_eq(stat(node, &st), 0);
	ck_assert_msg(S_ISCHR(st.st_mode), "%s is no longer a character device", node);
	assert_only(tmpdir, (const char *const[]){"null", "link", NULL});
}
END_TEST

/* -o FIFO: the reader gets a whole capture, the FIFO stays; no reader: refused at once. */
START_TEST(test_output_fifo)
{
	char *fifo = out_path("fifo"), *copy = out_path("copy.fxt");
	struct stat st;
	struct run r;
	pid_t reader, ready;
	int rst;

	ck_assert_int_eq(mkfifo(fifo, 0666), 0);
	record_demo(&r, 0, fifo);
	ck_assert_int_eq(exit_code(&r), 1);
	ck_assert_msg(strstr(r.err, "no reader") && strstr(r.err, fifo), "%s", r.err);
	ready = fork();
	ck_assert_int_ge(ready, 0);
	if (!ready) {
		/* the reader: there before the writer, until the writer is done */
		int in = open(fifo, O_RDONLY | O_NONBLOCK),
		    fd = open(copy, O_WRONLY | O_CREAT, 0644);
		char buf[65536];
		bool got = false;

		for (int i = 0; in >= 0 && fd >= 0 && i < 2000; i++) {
			ssize_t n = read(in, buf, sizeof(buf));

			if (n > 0 && write(fd, buf, (size_t)n) == n)
				got = true;
			else if (!n && got)
				_exit(0);
			else if (n <= 0)
				live_msleep(5);
		}
		_exit(1);
	}
	reader = ready;
	/* until the reader holds the FIFO open: then writing succeeds */
	live_msleep(200);
	record_demo(&r, 0, fifo);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(waitpid(reader, &rst, 0), reader);
	ck_assert_msg(WIFEXITED(rst) && !WEXITSTATUS(rst), "the reader got nothing");
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	assert_fxt(copy);
}
END_TEST

/* A new file honours the umask; a replaced one keeps its mode and owner. */
START_TEST(test_output_modes)
{
	char *path = out_path("m.fxt"), cmd[1200];
	struct stat st;
	struct run r;
	int fd;

	snprintf(cmd, sizeof(cmd), "umask 077; exec '%s' record -q -d 300ms -o '%s' -- '%s' 0.3",
		 bin, path, prog("demo"));
	ck_assert_int_eq(live_run_cmd(cmd), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 0777) == 0600, "umask 077 gave %o", st.st_mode & 0777);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "umask 027; exec '%s' record -q -d 300ms -o '%s' -- '%s' 0.3",
		 bin, path, prog("demo"));
	ck_assert_int_eq(live_run_cmd(cmd), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 0777) == 0640, "umask 027 gave %o", st.st_mode & 0777);

	/* a 0600 profile of another owner stays 0600 and theirs */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchown(fd, NOBODY, NOBODY), 0);
	ck_assert_int_eq(fchmod(fd, 0600), 0);
	close(fd);
	record_demo(&r, 0, path);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0600, "replacing a 0600 file gave %o",
		      st.st_mode & 07777);
	ck_assert_uint_eq(st.st_uid, NOBODY);
	ck_assert_uint_gt(st.st_size, 0);
	assert_fxt(path);
	assert_only(tmpdir, (const char *const[]){"m.fxt", NULL});
}
END_TEST

/* A symlink to a regular file: the target is replaced, the link stays a link. */
START_TEST(test_output_symlink_to_file)
{
	char *target = out_path("real.fxt"), *link = out_path("link.fxt");
	struct stat st;
	struct run r;
	int fd;

	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0640);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(symlink("real.fxt", link), 0);
	record_demo(&r, 0, link);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert_msg(S_ISLNK(st.st_mode), "the symlink was replaced by a file");
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640);
	assert_fxt(target);
	assert_only(tmpdir, (const char *const[]){"real.fxt", "link.fxt", NULL});
}
END_TEST

/* -o - streams to stdout; refused on a terminal, with no file named "-". */
START_TEST(test_output_stdout)
{
	char *copy = out_path("stdout.fxt");
	char *argv[] = {(char *)bin,	 (char *)"record", (char *)"-q", (char *)"-d",
			(char *)"300ms", (char *)"-o",	   (char *)"-",	 (char *)"--",
			prog("demo"),	 (char *)"0.3",	   NULL};
	int out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), err = temp_fd();
	int master, slave, st;
	struct run r;
	pid_t pid;

	ck_assert_int_ge(out, 0);
	collect(spawn_io(argv, out, err), err, &r);
	close(out);
	ck_assert_msg(exit_code(&r) == 0, "exit %d: %s", exit_code(&r), r.err);
	ck_assert_msg(strstr(r.err, "wrote standard output"), "%s", r.err);
	assert_fxt(copy);
	ck_assert_int_ne(access(out_path("-"), F_OK), 0);

	/* stdout a terminal: a pty of our own */
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(master, 0);
	ck_assert_int_eq(grantpt(master), 0);
	ck_assert_int_eq(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(slave, 0);
	err = temp_fd();
	pid = spawn_io(argv, slave, err);
	close(slave);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	read_fd(err, r.err, sizeof(r.err));
	close(err);
	close(master);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d: %s", st, r.err);
	ck_assert_msg(strstr(r.err, "terminal"), "%s", r.err);
	ck_assert_int_ne(access(out_path("-"), F_OK), 0);
}
END_TEST

static Suite *hardening_suite(void)
{
	Suite *s = suite_create("hardening");
	TCase *tc;

	tc = tcase_create("output");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_output_char_device);
	tcase_add_test(tc, test_output_fifo);
	tcase_add_test(tc, test_output_modes);
	tcase_add_test(tc, test_output_symlink_to_file);
	tcase_add_test(tc, test_output_stdout);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return live_main(hardening_suite());
}
