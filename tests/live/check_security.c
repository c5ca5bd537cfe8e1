// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What an unprivileged user can make fxsamplerd read (root). The daemon reads
 * the ELF files its targets map. A user's process in a mount namespace of its
 * own (any user may make one) maps a file whose path, in the daemon's
 * namespace, names another file. The daemon runs as the service does, without
 * CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE, so /proc/PID/map_files is closed
 * to it and it falls back to the path of the maps line:
 *   - a symlink to a file only root may read: its contents (the build id)
 *     must not reach the user's capture;
 *   - a FIFO: open() would block the daemon forever; the capture must end
 *     and the daemon keep serving.
 * Who may sample what, malformed messages and connection limits are in
 * check_daemon.c.
 *
 * FXS_BIN: the fxsampler binary (fxsamplerd beside it, or $FXSAMPLERD);
 * FXS_PROGS: the test programs (demo is the mapped file).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "elf_symbols.h"
#include "fxt_reader.h"
#include "live_daemon.h"
#include "protocol.h"

#define TEST_USER "fxs-sec-user"

static char daemon_bin[PATH_MAX];
static char fxs_bin[PATH_MAX];
static const char *progs;
static char tmpdir[64];
static char sock[128];
static pid_t daemon_pid;
static uid_t user_uid;
static gid_t user_gid;
static bool user_created;

static void become_user(void)
{
	if (setgroups(0, NULL) || setresgid(user_gid, user_gid, user_gid) ||
	    setresuid(user_uid, user_uid, user_uid))
		_exit(125);
}

static bool daemon_answers(void)
{
	struct fxs_msg_status st;
	char err[256];

	return !client_query_status(sock, &st, err, sizeof(err));
}

/* fxsamplerd without the capabilities that open /proc/PID/map_files. */
static pid_t start_daemon(const char *log)
{
	char *argv[] = {(char *)"/usr/bin/setpriv",
			(char *)"--bounding-set",
			(char *)"-sys_admin,-checkpoint_restore",
			daemon_bin,
			(char *)"--socket",
			sock,
			(char *)"--config",
			(char *)"/dev/null",
			NULL};

	return live_start_daemon(argv, sock, log);
}

static void copy_file(const char *from, const char *to, uid_t uid, mode_t mode)
{
	char cmd[2 * PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	ck_assert_int_eq(live_run_cmd(cmd), 0);
	ck_assert_int_eq(chown(to, uid, uid ? user_gid : 0), 0);
	ck_assert_int_eq(chmod(to, mode), 0);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		_exit(121);
	close(fd);
}

/*
 * A process of the test user, in a user and mount namespace of its own (what
 * any user may make), with a tmpfs mounted on dir and a copy of src there as
 * dir/name, mapped executable; then it spins. Its maps line names
 * dir/name, which in the daemon's namespace is another file, or a FIFO.
 * Returns once the mapping exists.
 */
static pid_t mapper_in_ns(const char *src, const char *dir, const char *name)
{
	int pfd[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		volatile unsigned long x = 0;
		char path[PATH_MAX], map[64], buf[65536];
		int in, out;
		ssize_t n;
		void *p;

		close(pfd[0]);
		in = open(src, O_RDONLY | O_CLOEXEC);
		if (in < 0)
			_exit(124);
		become_user();
		/* setuid cleared it; without it /proc/self/uid_map stays root's. */
		prctl(PR_SET_DUMPABLE, 1);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			_exit(120);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)user_uid);
		write_file("/proc/self/uid_map", map);
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)user_gid);
		write_file("/proc/self/gid_map", map);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tmpfs", dir, "tmpfs", 0, NULL))
			_exit(119);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		out = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0755);
		if (out < 0)
			_exit(118);
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				_exit(117);
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, out, 0);
		if (p == MAP_FAILED)
			_exit(123);
		close(out);
		if (write(pfd[1], "r", 1) != 1)
			_exit(122);
		for (;;)
			x++;
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1) {
		int st = 0;

		waitpid(pid, &st, 0);
		ck_abort_msg("the namespaced mapper failed: exit %d", WEXITSTATUS(st));
	}
	close(pfd[0]);
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * Record target through the daemon as the test user for 500 ms, into out.
 * Fails the test if the capture has not ended after 20 s (a hung daemon).
 */
static void record_as_user(pid_t target, const char *out)
{
	pid_t pid;
	int st = 0, fd, i;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchown(fd, user_uid, user_gid), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct capture_opts o = {.freq_hz = 199, .buffer_size = 1 << 20, .max_frames = 64};
		struct client_result res;
		char msg[256];

		become_user();
		o.pids[0] = (uint32_t)target;
		o.nr_pids = 1;
		if (client_record(sock, &o, fd, NULL, 500000000ULL, NULL, &res, msg, sizeof(msg))) {
			fprintf(stderr, "record as %s: %s\n", TEST_USER, msg);
			_exit(1);
		}
		_exit(0);
	}
	close(fd);
	for (i = 0; i < 200 && waitpid(pid, &st, WNOHANG) != pid; i++)
		live_msleep(100);
	if (i == 200) {
		reap(pid);
		ck_abort_msg("the capture did not end in 20 s: the daemon hangs");
	}
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the user's capture failed (%d)", st);
}

/* The module records of path in a capture: how many, and whether one carries id. */
static void modules_of(const char *fxt, const char *path, const uint8_t *id, size_t id_len,
		       int *ret_count, bool *ret_has_id, bool *ret_any_id)
{
	struct fxt_reader *r = fxt_reader__open(fxt);
	struct fxt_record rec;
	int n;

	ck_assert_ptr_nonnull(r);
	*ret_count = 0;
	*ret_has_id = false;
	*ret_any_id = false;
	while ((n = fxt_reader_next(r, &rec)) > 0) {
		if (rec.type != FXT_RT_PROFILER || rec.subtype != FXT_PROF_MODULE)
			continue;
		/* The secret's build id, under whatever name. */
		if (rec.build_id_len == id_len && !memcmp(rec.build_id, id, id_len))
			*ret_any_id = true;
		if (strcmp(rec.name, path))
			continue;
		(*ret_count)++;
		*ret_has_id |= rec.build_id_len > 0;
	}
	ck_assert_msg(n == 0, "%s: %s", fxt, fxt_reader_error(r));
	fxt_reader__free(r);
}

/*
 * The user's process maps its own file at the path of a root-only file (a
 * tmpfs over that directory, in its mount namespace): the daemon must not
 * read the root-only file in its place.
 */
START_TEST(test_path_of_root_file)
{
	char secret_dir[128], secret[160], out[160], demo[PATH_MAX];
	uint8_t id[ELF_BUILD_ID_MAX];
	bool has_id, any_id;
	int id_len, count;
	pid_t target;

	snprintf(demo, sizeof(demo), "%s/demo", progs);
	/* A root-only ELF file with a build id of its own, in a directory anyone may cross. */
	snprintf(secret_dir, sizeof(secret_dir), "%s/root-only", tmpdir);
	ck_assert_int_eq(mkdir(secret_dir, 0711), 0);
	snprintf(secret, sizeof(secret), "%s/secret.elf", secret_dir);
	copy_file(fxs_bin, secret, 0, 0600);
	id_len = elf_read_build_id(secret, id, sizeof(id));
	ck_assert_int_gt(id_len, 0);
	target = mapper_in_ns(demo, secret_dir, "secret.elf");

	snprintf(out, sizeof(out), "%s/secret.fxt", tmpdir);
	record_as_user(target, out);
	reap(target);
	modules_of(out, secret, id, (size_t)id_len, &count, &has_id, &any_id);
	ck_assert_msg(count == 1, "%d module records for %s", count, secret);
	ck_assert_msg(!any_id, "the root-only file's build id is in the user's capture");
	ck_assert_msg(!has_id, "a build id read from a file other than the mapped one");
}
END_TEST

/*
 * The same with a FIFO at that path in the daemon's namespace: opening it
 * would block the daemon for good. The capture ends and the daemon serves on.
 */
START_TEST(test_path_of_fifo)
{
	char user_dir[128], fifo[160], out[160], demo[PATH_MAX];
	bool has_id, any_id;
	uint8_t none = 0;
	int count;
	pid_t target;

	snprintf(demo, sizeof(demo), "%s/demo", progs);
	snprintf(user_dir, sizeof(user_dir), "%s/user-fifo", tmpdir);
	ck_assert_int_eq(mkdir(user_dir, 0755), 0);
	ck_assert_int_eq(chown(user_dir, user_uid, user_gid), 0);
	snprintf(fifo, sizeof(fifo), "%s/lib.elf", user_dir);
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	ck_assert_int_eq(chown(fifo, user_uid, user_gid), 0);
	target = mapper_in_ns(demo, user_dir, "lib.elf");

	snprintf(out, sizeof(out), "%s/fifo.fxt", tmpdir);
	record_as_user(target, out);
	reap(target);
	modules_of(out, fifo, &none, 1, &count, &has_id, &any_id);
	ck_assert_msg(count == 1, "%d module records for %s", count, fifo);
	ck_assert(!has_id);
	ck_assert_msg(daemon_answers(), "the daemon stopped answering");
}
END_TEST

static void die(const char *what)
{
	fprintf(stderr, "check_security: %s\n", what);
	exit(EXIT_FAILURE);
}

static void suite_setup(void)
{
	const char *bin = getenv("FXS_BIN");
	char tmp[PATH_MAX], log[192];
	struct passwd *pw;

	progs = getenv("FXS_PROGS");
	if (!bin || !*bin || !progs)
		die("FXS_BIN and FXS_PROGS must name the binary and the test programs");
	snprintf(fxs_bin, sizeof(fxs_bin), "%s", bin);
	snprintf(tmp, sizeof(tmp), "%s", bin);
	if (getenv("FXSAMPLERD"))
		snprintf(daemon_bin, sizeof(daemon_bin), "%s", getenv("FXSAMPLERD"));
	else
		snprintf(daemon_bin, sizeof(daemon_bin), "%s/fxsamplerd", dirname(tmp));
	if (access(daemon_bin, X_OK))
		die("no fxsamplerd beside FXS_BIN (or at $FXSAMPLERD)");
	if (access("/usr/bin/setpriv", X_OK))
		die("setpriv (util-linux) is needed to drop the daemon's capabilities");
	if (!getpwnam(TEST_USER)) {
		if (live_run_cmd("useradd --system --no-create-home --shell "
				 "/usr/sbin/nologin " TEST_USER))
			die("useradd " TEST_USER " failed");
		user_created = true;
	}
	pw = getpwnam(TEST_USER);
	if (!pw)
		die("no user " TEST_USER);
	user_uid = pw->pw_uid;
	user_gid = pw->pw_gid;
	strcpy(tmpdir, "/tmp/fxs-security.XXXXXX");
	if (!mkdtemp(tmpdir))
		die("mkdtemp failed");
	chmod(tmpdir, 0755);
	snprintf(sock, sizeof(sock), "%s/control.sock", tmpdir);
	snprintf(log, sizeof(log), "%s/daemon.log", tmpdir);
	daemon_pid = start_daemon(log);
	if (daemon_pid <= 0) {
		fprintf(stderr, "check_security: fxsamplerd did not start, see %s\n", log);
		exit(EXIT_FAILURE);
	}
}

static void suite_teardown(void)
{
	char cmd[128];
	int i;

	/* A daemon stuck in open() on a FIFO does not get to its SIGTERM handler. */
	kill(daemon_pid, SIGTERM);
	for (i = 0; i < 50 && waitpid(daemon_pid, NULL, WNOHANG) != daemon_pid; i++)
		live_msleep(100);
	if (i == 50) {
		fprintf(stderr, "check_security: fxsamplerd ignored SIGTERM, killing it\n");
		kill(daemon_pid, SIGKILL);
		waitpid(daemon_pid, NULL, 0);
	}
	if (user_created)
		live_run_cmd("userdel " TEST_USER);
	if (getenv("FXS_KEEP")) {
		fprintf(stderr, "kept %s\n", tmpdir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	live_run_cmd(cmd);
}

int main(void)
{
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed;

	if (geteuid() != 0) {
		printf("SKIP: the security tests need root (they run fxsamplerd); NOT RUN\n");
		return EXIT_SUCCESS;
	}
	suite_setup();
	s = suite_create("security");
	tc = tcase_create("mapped-paths");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_path_of_root_file);
	tcase_add_test(tc, test_path_of_fifo);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	suite_teardown();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
