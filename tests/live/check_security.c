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
 *
 * What a user's capture may hold of a process that stops being fully the
 * user's after the session was authorized (issue 16):
 *   - a target that execs a set-user-ID root program, or one with file
 *     capabilities: no sample, name, module or mapping of the new image; the
 *     user is told on stderr; the samples count as filtered_creds;
 *   - a target that exits, its pid then taken by a root process: no sample
 *     of that process, no module of it.
 * Who may sample what, malformed messages and connection limits are in
 * check_daemon.c.
 *
 * FXS_BIN: the fxsampler binary (fxsamplerd beside it, or $FXSAMPLERD);
 * FXS_PROGS: the test programs (demo is the mapped file).
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
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/authz.h"
#include "cli/client.h"
#include "symbols/elf_symbols.h"
#include "fxt/fxt_reader.h"
#include "live.h"
#include "live_daemon.h"
#include "capture/proc_maps.h"
#include "service/protocol.h"
#include "check_main.h"

#define TEST_USER "fxs-sec-user"

static void need_setpriv(void)
{
	if (access("/usr/bin/setpriv", X_OK)) {
		fprintf(stderr, "check_security: setpriv (util-linux) is needed to drop the "
				"daemon's capabilities\n");
		exit(EXIT_FAILURE);
	}
}

/* fxsamplerd without the capabilities that open /proc/PID/map_files. */
static const char *const no_map_files[] = {"/usr/bin/setpriv", "--bounding-set",
					   "-sys_admin,-checkpoint_restore", NULL};

/* progs and tmpdir are live.h's */
static struct live_suite suite = {.name = "check_security",
				  .needs = "fxsamplerd",
				  .user = TEST_USER,
				  .dir = "/tmp/fxs-security.XXXXXX",
				  .dir_mode = 0755,
				  .check = need_setpriv,
				  .daemon = {.wrap = no_map_files}};

static void copy_file(const char *from, const char *to, uid_t uid, mode_t mode)
{
	char cmd[2 * PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	ck_assert_int_eq(live_run_cmd(cmd), 0);
	ck_assert_int_eq(chown(to, uid, uid ? suite.gid : 0), 0);
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
		live_become(suite.uid, suite.gid);
		/* setuid cleared it; without it /proc/self/uid_map stays root's. */
		prctl(PR_SET_DUMPABLE, 1);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			_exit(120);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)suite.uid);
		write_file("/proc/self/uid_map", map);
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)suite.gid);
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

/* The test user's capture of target through the daemon at freq_hz for ns, into out. */
static pid_t start_user_client(pid_t target, const char *out, unsigned freq_hz, uint64_t ns,
			       int *ret_fd)
{
	struct capture_opts o = {.freq_hz = freq_hz, .buffer_size = 1 << 20, .max_frames = 64};

	o.pids[0] = (uint32_t)target;
	o.nr_pids = 1;
	return live_client_start(suite.daemon.sock, suite.uid, suite.gid, &o, out, ns, ret_fd);
}

/* The exit status of a capture's child; fails the test after secs (a hung daemon). */
static int wait_record(pid_t pid, unsigned secs)
{
	int st = 0;
	unsigned i;

	for (i = 0; i < secs * 10 && waitpid(pid, &st, WNOHANG) != pid; i++)
		live_msleep(100);
	if (i == secs * 10) {
		reap(pid);
		ck_abort_msg("the capture did not end in %u s: the daemon hangs", secs);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The test user's capture of target through the daemon for 500 ms, into out. */
static void record_as_user(pid_t target, const char *out)
{
	struct live_client r;
	int fd;
	pid_t pid = start_user_client(target, out, 199, 500000000ULL, &fd);

	ck_assert_msg(!live_client_wait(pid, fd, 20, &r), "the user's capture failed: %s", r.msg);
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
	char secret_dir[300], secret[PATH_MAX], out[PATH_MAX], demo[PATH_MAX];
	const struct elf_symbols_opts no_debug = {.no_debug_file = true};
	struct elf_symbols *es;
	const uint8_t *id;
	bool has_id, any_id;
	size_t id_len = 0;
	int count;
	pid_t target;

	snprintf(demo, sizeof(demo), "%s/demo", progs);
	/* A root-only ELF file with a build id of its own, in a directory anyone may cross. */
	snprintf(secret_dir, sizeof(secret_dir), "%s/root-only", tmpdir);
	ck_assert_int_eq(mkdir(secret_dir, 0711), 0);
	snprintf(secret, sizeof(secret), "%s/secret.elf", secret_dir);
	copy_file(bin, secret, 0, 0600);
	es = elf_symbols__open(secret, &no_debug);
	ck_assert_ptr_nonnull(es);
	id = elf_symbols__build_id(es, &id_len);
	ck_assert_ptr_nonnull(id);
	target = mapper_in_ns(demo, secret_dir, "secret.elf");

	snprintf(out, sizeof(out), "%s/secret.fxt", tmpdir);
	record_as_user(target, out);
	reap(target);
	modules_of(out, secret, id, id_len, &count, &has_id, &any_id);
	elf_symbols__free(es);
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
	char user_dir[300], fifo[PATH_MAX], out[PATH_MAX], demo[PATH_MAX];
	bool has_id, any_id;
	uint8_t none = 0;
	int count;
	pid_t target;

	snprintf(demo, sizeof(demo), "%s/demo", progs);
	snprintf(user_dir, sizeof(user_dir), "%s/user-fifo", tmpdir);
	ck_assert_int_eq(mkdir(user_dir, 0755), 0);
	ck_assert_int_eq(chown(user_dir, suite.uid, suite.gid), 0);
	snprintf(fifo, sizeof(fifo), "%s/lib.elf", user_dir);
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	ck_assert_int_eq(chown(fifo, suite.uid, suite.gid), 0);
	target = mapper_in_ns(demo, user_dir, "lib.elf");

	snprintf(out, sizeof(out), "%s/fifo.fxt", tmpdir);
	record_as_user(target, out);
	reap(target);
	modules_of(out, fifo, &none, 1, &count, &has_id, &any_id);
	ck_assert_msg(count == 1, "%d module records for %s", count, fifo);
	ck_assert(!has_id);
	ck_assert_msg(live_daemon_status(suite.daemon.sock, NULL), "the daemon stopped answering");
}
END_TEST

/* --- credentials that change after authorization --- */

/* The executable mappings of a running process, read as root. */
struct ranges {
	uint64_t start[256], end[256];
	bool of_file[256]; /* a mapping of the file asked for */
	size_t n;
};

static void exec_ranges(pid_t pid, const char *file, struct ranges *r)
{
	struct proc_map *maps = NULL;
	size_t n = 0;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	ck_assert_int_eq(proc_maps_read(path, &maps, &n), 0);
	r->n = 0;
	for (size_t i = 0; i < n && r->n < 256; i++) {
		if (maps[i].perms[2] != 'x')
			continue;
		r->start[r->n] = maps[i].start;
		r->end[r->n] = maps[i].end;
		r->of_file[r->n] = maps[i].path && !strcmp(maps[i].path, file);
		r->n++;
	}
	proc_maps_free(maps, n);
}

static bool in_ranges(const struct ranges *r, uint64_t pc, bool file_only)
{
	for (size_t i = 0; i < r->n; i++)
		if ((!file_only || r->of_file[i]) && pc >= r->start[i] && pc < r->end[i])
			return true;
	return false;
}

/* The samples of pid in f with a frame in r; all of pid's in *ret_of_pid. */
static size_t samples_in(const struct capture_file *f, pid_t pid, const struct ranges *r,
			 size_t *ret_of_pid)
{
	size_t in = 0;

	*ret_of_pid = 0;
	for (size_t i = 0; i < f->nr_samples; i++) {
		const struct sample *s = &f->samples[i];

		if (s->pid != (uint32_t)pid)
			continue;
		(*ret_of_pid)++;
		for (unsigned k = 0; k < s->n; k++)
			if (in_ranges(r, s->frames[k], true)) {
				in++;
				break;
			}
	}
	return in;
}

/* The process running path, within 10 s; 0 when none does. */
static pid_t wait_for_exe(const char *path)
{
	char link[300], target[PATH_MAX];
	struct dirent *de;
	ssize_t n;
	DIR *d;

	for (int i = 0; i < 1000; i++) {
		d = opendir("/proc");
		ck_assert_ptr_nonnull(d);
		while ((de = readdir(d))) {
			if (de->d_name[0] < '1' || de->d_name[0] > '9')
				continue;
			snprintf(link, sizeof(link), "/proc/%s/exe", de->d_name);
			n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if (!strcmp(target, path)) {
				pid_t pid = atoi(de->d_name);

				closedir(d);
				return pid;
			}
		}
		closedir(d);
		live_msleep(10);
	}
	return 0;
}

/* A directory the test user may write its captures into. */
static void user_dir(char *ret, size_t len)
{
	snprintf(ret, len, "%s/user-out", tmpdir);
	if (mkdir(ret, 0755) && errno != EEXIST)
		ck_abort_msg("mkdir %s: %s", ret, strerror(errno));
	ck_assert_int_eq(chown(ret, suite.uid, suite.gid), 0);
}

/* A root-owned copy of suidspin as tmpdir/bin/name, with mode, and caps for setcap. */
static void install_spinner(const char *name, mode_t mode, const char *caps, char *ret, size_t len)
{
	char dir[300], cmd[2 * PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/bin", tmpdir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		ck_abort_msg("mkdir %s: %s", dir, strerror(errno));
	snprintf(ret, len, "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "%s/suidspin", progs);
	copy_file(cmd, ret, 0, mode);
	if (caps) {
		snprintf(cmd, sizeof(cmd), "/usr/sbin/setcap %s '%s'", caps, ret);
		ck_assert_msg(live_run_cmd(cmd) == 0, "%s failed", cmd);
	}
}

/*
 * `fxsampler record --socket S -o out -- sh -c script` as the test user, its
 * stderr into err_path.
 */
static pid_t start_record_cmd(const char *out, const char *script, const char *err_path,
			      const char *opt)
{
	int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	pid = LIVE_RECORD(suite.daemon.sock, suite.uid, suite.gid, -2, fd, "-q", "-o", out, opt,
			  "--", "/bin/sh", "-c", script);
	close(fd);
	return pid;
}

static void slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

static bool named(const struct named *objs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(objs[i].name, name))
			return true;
	return false;
}

/*
 * A target of the user's capture execs a privileged copy of suidspin (set up
 * by setup_spinner), which spins for a second: nothing of it may come back.
 */
static void check_priv_exec(const char *name, mode_t mode, const char *caps, const char *why,
			    bool in_child)
{
	char path[PATH_MAX], dir[300], out[PATH_MAX], errp[PATH_MAX], script[PATH_MAX + 64];
	char err[4096], want[256];
	struct capture_file *f;
	struct authz_owner o;
	struct ranges r;
	size_t of_pid, leaked;
	pid_t rec, pid;

	install_spinner(name, mode, caps, path, sizeof(path));
	user_dir(dir, sizeof(dir));
	snprintf(out, sizeof(out), "%s/%s.fxt", dir, name);
	snprintf(errp, sizeof(errp), "%s/%s.err", tmpdir, name);
	/* the shell itself execs it, or a child the shell forks does (issue 29) */
	snprintf(script, sizeof(script),
		 in_child ? "sleep 0.3; %s 1; exit 0" : "sleep 0.3; exec %s 1", path);
	/* Off-CPU too: it waits in secret_root_work as well as spinning there. */
	rec = start_record_cmd(out, script, errp, "--off-cpu=0");
	pid = wait_for_exe(path);
	ck_assert_msg(pid > 0, "%s never ran", path);
	/* The test means nothing unless the program did get its privileges. */
	ck_assert_int_eq(authz_proc_owner("/proc", pid, &o), 0);
	if (mode & S_ISUID)
		ck_assert_msg(o.euid == 0, "%s runs as uid %u: is %s mounted nosuid?", path,
			      (unsigned)o.euid, tmpdir);
	else
		ck_assert_msg(o.euid == suite.uid && o.cap_prm, "%s has no capabilities (%llx)",
			      path, (unsigned long long)o.cap_prm);
	exec_ranges(pid, path, &r);
	ck_assert_int_eq(wait_record(rec, 30), 0);
	slurp(errp, err, sizeof(err));

	snprintf(want, sizeof(want),
		 "fxsampler: pid %d changed credentials (%s): no longer sampled", (int)pid, why);
	ck_assert_msg(strstr(err, want), "stderr of record lacks \"%s\":\n%s", want, err);
	ck_assert_msg(strstr(err, want) == strrchr(err, '\n') - strlen(want) ||
			      !strstr(strstr(err, want) + 1, want),
		      "told more than once:\n%s", err);

	f = load(out);
	ck_assert_msg(f->read_result == 0, "%s: %s", out, f->error);
	check_accounting(f);
	/* It spun for a second while the capture ran: counted, not written. */
	ck_assert_msg(total(f, "filtered_creds") > 100, "filtered_creds %llu",
		      (unsigned long long)total(f, "filtered_creds"));
	leaked = samples_in(f, pid, &r, &of_pid);
	ck_assert_msg(!leaked, "%zu samples of %s in the user's capture", leaked, path);
	for (size_t i = 0; i < f->nr_offcpu; i++)
		for (unsigned k = 0; f->offcpu[i].pid == (uint32_t)pid && k < f->offcpu[i].n; k++)
			ck_assert_msg(!in_ranges(&r, f->offcpu[i].frames[k], true),
				      "an off-CPU stack of %s in the user's capture", path);
	ck_assert_msg(counter_value(counter(f, "offcpu"), "filtered_creds") > 10,
		      "off-CPU filtered_creds %llu",
		      (unsigned long long)counter_value(counter(f, "offcpu"), "filtered_creds"));
	/* The shell before its exec: a few at most. */
	ck_assert_msg(of_pid < 20, "%zu samples of pid %d", of_pid, (int)pid);
	for (size_t i = 0; i < MAX_ITEMS; i++)
		ck_assert_msg(strcmp(f->modules[i], path), "a module record of %s", path);
	for (size_t i = 0; i < f->nr_maps; i++)
		for (size_t k = 0; k < r.n; k++)
			ck_assert_msg(f->maps[i].pid != (uint32_t)pid ||
					      f->maps[i].start != r.start[k],
				      "an mmap record of %s's image at %#llx", name,
				      (unsigned long long)r.start[k]);
	ck_assert_msg(!named(f->threads, f->nr_threads, name) &&
			      !named(f->processes, f->nr_processes, name),
		      "the name %s is in the user's capture", name);
	unload(f);
}

START_TEST(test_exec_setuid)
{
	check_priv_exec("suidspin", 04755, NULL, "exec of a set-user-ID program", false);
}
END_TEST

/* A target forks a child, which execs the set-user-ID program: no mapping of it either. */
START_TEST(test_fork_exec_setuid)
{
	check_priv_exec("suidspin2", 04755, NULL, "exec of a set-user-ID program", true);
}
END_TEST

START_TEST(test_exec_file_caps)
{
	check_priv_exec("capspin", 0755, "cap_net_raw+ep",
			"exec of a program with file capabilities", false);
}
END_TEST

static volatile unsigned long root_sink;

/* What the root process on the reused pid does: its frames lie in this binary. */
__attribute__((noinline)) static void root_spin(double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			root_sink += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

/* A root process on pid (which must be free): its pid, or 0 when another took it first. */
static pid_t root_on_pid(pid_t want)
{
	char text[32];
	pid_t pid;
	int fd;

	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	snprintf(text, sizeof(text), "%d", (int)want - 1);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (getpid() != want)
			_exit(0);
		root_spin(1.0);
		_exit(0);
	}
	if (pid == want)
		return pid;
	waitpid(pid, NULL, 0);
	return 0;
}

static bool runs_sleep(pid_t pid)
{
	char link[64], exe[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	return strstr(exe, "sleep") != NULL;
}

static bool session_running(void)
{
	struct fxs_msg_status st;

	return live_daemon_status(suite.daemon.sock, &st) && st.session == FXS_SESSION_RUNNING;
}

/*
 * The user's target exits and a root process is started on its pid while the
 * capture runs: none of the root process may come back.
 */
START_TEST(test_pid_reuse)
{
	char dir[300], out[PATH_MAX], self[PATH_MAX];
	struct capture_file *f;
	struct ranges mine;
	size_t of_pid, leaked;
	struct live_client r;
	const __u64 *v = r.res.stats.counters.v;
	pid_t target, rec, root = 0;
	int st, i, rec_fd;

	/* Frames in this binary are the root process's: it is a fork of us. */
	ck_assert_int_gt(readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
	self[readlink("/proc/self/exe", self, sizeof(self) - 1)] = '\0';
	exec_ranges(getpid(), self, &mine);
	user_dir(dir, sizeof(dir));
	snprintf(out, sizeof(out), "%s/reuse.fxt", dir);
	target = fork();
	ck_assert_int_ge(target, 0);
	if (!target) {
		live_become(suite.uid, suite.gid);
		execl("/bin/sleep", "sleep", "1", (char *)NULL);
		_exit(127);
	}
	/* Authorized as the user's only once it is: after its exec. */
	for (i = 0; i < 500 && !runs_sleep(target); i++)
		live_msleep(2);
	ck_assert_msg(i < 500, "the target never ran sleep");
	rec = start_user_client(target, out, 999, 3000000000ULL, &rec_fd);
	for (i = 0; i < 500 && !session_running(); i++)
		live_msleep(10);
	ck_assert_msg(i < 500, "the user's capture did not start");
	ck_assert_int_eq(waitpid(target, &st, 0), target);
	ck_assert_msg(WIFEXITED(st) && !WEXITSTATUS(st), "the target failed (%d)", st);
	/* Right away, before the daemon may notice: others fork too, so try again. */
	for (i = 0; i < 50 && !root; i++)
		root = root_on_pid(target);
	ck_assert_msg(root, "no root process got pid %d in 50 tries", (int)target);
	waitpid(root, NULL, 0);
	ck_assert_msg(!live_client_wait(rec, rec_fd, 30, &r), "record as %s: %s", TEST_USER, r.msg);
	/* what `fxsampler status` and the summary show adds up too */
	ck_assert_uint_eq(v[FXS_CNT_FIRED],
			  v[FXS_CNT_WRITTEN] + v[FXS_CNT_FILTERED] + v[FXS_CNT_DROP_NOT_RUNNING] +
				  v[FXS_CNT_DROP_RING_FULL] + v[FXS_CNT_DROP_NO_REGS] +
				  v[FXS_CNT_DROP_KTHREAD] + v[FXS_CNT_FILTERED_CREDS]);

	f = load(out);
	ck_assert_msg(f->read_result == 0, "%s: %s", out, f->error);
	check_accounting(f);
	leaked = samples_in(f, target, &mine, &of_pid);
	ck_assert_msg(!leaked, "%zu samples of the root process on pid %d", leaked, (int)target);
	/* sleep starting up: a few at most; the root process spun for a second */
	ck_assert_msg(of_pid < 20, "%zu samples of pid %d", of_pid, (int)target);
	for (size_t k = 0; k < MAX_ITEMS; k++)
		ck_assert_msg(strcmp(f->modules[k], self), "a module record of %s", self);
	unload(f);
}
END_TEST

static Suite *security_suite(void)
{
	Suite *s;
	TCase *tc;

	s = suite_create("security");
	tc = tcase_create("mapped-paths");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_path_of_root_file);
	tcase_add_test(tc, test_path_of_fifo);
	suite_add_tcase(s, tc);
	tc = tcase_create("changed-credentials");
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_exec_setuid);
	tcase_add_test(tc, test_fork_exec_setuid);
	tcase_add_test(tc, test_exec_file_caps);
	tcase_add_test(tc, test_pid_reuse);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return live_suite_main(&suite, security_suite);
}
