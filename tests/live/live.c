// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The live tests' shared helpers: see live.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/client.h"
#include "symbols/elf_symbols.h"
#include "live.h"
#include "live_daemon.h"
#include "check_main.h"

const char *bin;
const char *progs;
char tmpdir[256];

/* --- running programs --- */

pid_t spawn_as(char *const argv[], int out_fd, int err_fd, uid_t uid)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		dup2(devnull, 0);
		dup2(out_fd >= 0 ? out_fd : devnull, 1);
		dup2(err_fd >= 0 ? err_fd : devnull, 2);
		if (uid && setuid(uid))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

pid_t spawn_io(char *const argv[], int out_fd, int err_fd)
{
	return spawn_as(argv, out_fd, err_fd, 0);
}

int temp_fd(void)
{
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/io-XXXXXX", tmpdir);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	return fd;
}

void read_fd(int fd, char *buf, size_t size)
{
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
}

void collect(pid_t pid, int err_fd, struct run *r)
{
	ck_assert_int_eq(waitpid(pid, &r->status, 0), pid);
	read_fd(err_fd, r->err, sizeof(r->err));
	close(err_fd);
}

static void build_argv(char **argv, const char *const *args)
{
	int i;

	argv[0] = (char *)bin;
	for (i = 0; args[i]; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
}

void run_as(struct run *r, uid_t uid, const char *const *args)
{
	char *argv[64];
	int fd = temp_fd(), out = temp_fd();

	build_argv(argv, args);
	collect(spawn_as(argv, out, fd, uid), fd, r);
	read_fd(out, r->out, sizeof(r->out));
	close(out);
}

pid_t start_args(int err_fd, const char *const *args)
{
	char *argv[64];

	build_argv(argv, args);
	return spawn_io(argv, -1, err_fd);
}

int exit_code(const struct run *r)
{
	return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 128 + WTERMSIG(r->status);
}

char *prog(const char *name)
{
	static char paths[8][512];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", progs, name);
	return p;
}

char *out_path(const char *name)
{
	static char paths[8][512];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", tmpdir, name);
	return p;
}

pid_t start_prog(const char *name, const char *arg1, const char *arg2)
{
	char *argv[] = {prog(name), (char *)arg1, (char *)arg2, NULL};

	return spawn_io(argv, -1, -1);
}

void stop_prog(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

pid_t spinner_as(uid_t uid, gid_t gid)
{
	volatile unsigned long x = 0;
	int ready[2];
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe2(ready, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		close(ready[0]);
		if (uid)
			live_become(uid, gid);
		if (write(ready[1], "r", 1) != 1)
			_exit(126);
		close(ready[1]);
		for (;;)
			x++;
	}
	close(ready[1]);
	ck_assert_msg(read(ready[0], &c, 1) == 1, "the spinner could not become uid %u",
		      (unsigned)uid);
	close(ready[0]);
	return pid;
}

/* --- reading a capture; every record keeps its position in the file --- */

static void add_kobj(struct capture_file *f, const struct fxt_record *rec)
{
	bool thread = rec->subtype == FXT_OBJ_THREAD;
	size_t *nr = thread ? &f->nr_threads : &f->nr_processes;
	struct named *t = thread ? &f->threads[*nr] : &f->processes[*nr];

	if (*nr >= MAX_ITEMS)
		return;
	t->koid = rec->koid;
	t->process = 0;
	snprintf(t->name, sizeof(t->name), "%s", rec->name ? rec->name : "");
	for (unsigned i = 0; i < rec->nr_args; i++)
		if (!strcmp(rec->args[i].name, "process"))
			t->process = rec->args[i].u;
	(*nr)++;
}

static void add_counter(struct capture_file *f, const struct fxt_record *rec)
{
	struct counter *c;

	if (f->nr_counters >= 64)
		return;
	c = &f->counters[f->nr_counters++];
	snprintf(c->name, sizeof(c->name), "%s", rec->name);
	c->nr = rec->nr_args < FXT_READER_MAX_ARGS ? rec->nr_args : FXT_READER_MAX_ARGS;
	for (unsigned i = 0; i < c->nr; i++) {
		snprintf(c->arg_names[i], sizeof(c->arg_names[0]), "%s", rec->args[i].name);
		c->values[i] = rec->args[i].u;
	}
}

struct capture_file *load(const char *path)
{
	struct capture_file *f = calloc(1, sizeof(*f));
	struct fxt_reader *r;
	struct fxt_record rec;
	size_t seq = 0;
	int n;

	ck_assert_ptr_nonnull(f);
	f->samples = calloc(MAX_SAMPLES, sizeof(*f->samples));
	f->offcpu = calloc(MAX_OFFCPU, sizeof(*f->offcpu));
	ck_assert_ptr_nonnull(f->samples);
	ck_assert_ptr_nonnull(f->offcpu);
	r = fxt_reader__open(path);
	ck_assert_msg(r, "cannot open %s: %s", path, strerror(errno));
	while ((n = fxt_reader_next(r, &rec)) > 0) {
		/* Off-CPU stacks are intervals, not samples: kept apart (check_offcpu pairs them).
		 */
		bool off = rec.bt_flags & FXT_BT_FLAG_OFFCPU;

		seq++;
		if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_BACKTRACE &&
		    (off ? f->nr_offcpu < MAX_OFFCPU : f->nr_samples < MAX_SAMPLES)) {
			struct sample *s =
				off ? &f->offcpu[f->nr_offcpu++] : &f->samples[f->nr_samples++];

			s->seq = seq;
			s->pid = rec.pid;
			s->tid = rec.tid;
			s->flags = rec.bt_flags;
			s->n = rec.nr_frames;
			memcpy(s->frames, rec.frames, rec.nr_frames * sizeof(uint64_t));
		} else if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_MODULE) {
			if (rec.module_id < MAX_ITEMS)
				snprintf(f->modules[rec.module_id], sizeof(f->modules[0]), "%s",
					 rec.name);
		} else if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_MMAP &&
			   f->nr_maps < MAX_ITEMS) {
			f->maps[f->nr_maps++] = (struct mapping){seq,	    rec.pid,  rec.module_id,
								 rec.start, rec.size, rec.vaddr};
		} else if (rec.type == FXT_RT_KOBJ) {
			add_kobj(f, &rec);
		} else if (rec.type == FXT_RT_EVENT && rec.subtype == FXT_EVENT_COUNTER) {
			add_counter(f, &rec);
		} else if (rec.type == FXT_RT_METADATA && rec.subtype == FXT_META_PROVIDER_EVENT) {
			f->dropped_event = true;
		}
		/* Fuchsia's readers disagree on inline thread words there: never write them. */
		if (rec.type == FXT_RT_PROFILER &&
		    (rec.subtype == FXT_PROF_MODULE || rec.subtype == FXT_PROF_MMAP))
			ck_assert_msg((rec.header >> 20) & 0xff,
				      "%s: module/mmap record at offset %" PRIu64
				      " has an inline thread ref",
				      path, rec.offset);
	}
	f->read_result = n;
	f->end_offset = fxt_reader_offset(r);
	if (n < 0)
		snprintf(f->error, sizeof(f->error), "%s", fxt_reader_error(r));
	fxt_reader__free(r);
	return f;
}

void unload(struct capture_file *f)
{
	free(f->samples);
	free(f->offcpu);
	free(f);
}

const struct counter *counter(const struct capture_file *f, const char *name)
{
	for (size_t i = 0; i < f->nr_counters; i++)
		if (!strcmp(f->counters[i].name, name))
			return &f->counters[i];
	return NULL;
}

uint64_t counter_value(const struct counter *c, const char *arg)
{
	ck_assert_ptr_nonnull(c);
	for (unsigned i = 0; i < c->nr; i++)
		if (!strcmp(c->arg_names[i], arg))
			return c->values[i];
	ck_abort_msg("counter %s has no %s", c->name, arg);
	return 0;
}

uint64_t total(const struct capture_file *f, const char *arg)
{
	const struct counter *c = counter(f, "samples");

	ck_assert_msg(c, "no totals counter in the capture");
	return counter_value(c, arg);
}

bool has_kobj(const struct named *objs, size_t n, uint64_t koid)
{
	for (size_t i = 0; i < n; i++)
		if (objs[i].koid == koid)
			return true;
	return false;
}

static const char *last_name(const struct named *objs, size_t n, uint64_t koid)
{
	const char *name = NULL;

	/* The last record wins: a rename writes the object again. */
	for (size_t i = 0; i < n; i++)
		if (objs[i].koid == koid)
			name = objs[i].name;
	return name;
}

const char *process_name(const struct capture_file *f, uint64_t pid)
{
	return last_name(f->processes, f->nr_processes, pid);
}

const char *thread_name(const struct capture_file *f, uint64_t tid)
{
	return last_name(f->threads, f->nr_threads, tid);
}

/* --- symbols --- */

struct sym_cache {
	char path[256];
	struct elf_symbols *es;
};

static struct sym_cache syms[32];

static const struct elf_symbols *symbols_of(const char *path)
{
	for (int i = 0; i < 32; i++) {
		if (!strcmp(syms[i].path, path))
			return syms[i].es;
		if (!syms[i].path[0]) {
			snprintf(syms[i].path, sizeof(syms[i].path), "%s", path);
			syms[i].es = elf_symbols__open(path, NULL);
			return syms[i].es;
		}
	}
	return NULL;
}

/*
 * The function at frame i of s, through the mmap records written before the
 * sample: after an exec the same pid maps another image, possibly at the same
 * addresses, and only the mappings seen so far apply.
 */
const char *symbolize(const struct capture_file *f, const struct sample *s, unsigned i)
{
	uint64_t pc = s->frames[i];
	bool is_return = i > 0 || (s->flags & FXT_BT_FLAG_PC_IS_RETURN);

	for (size_t m = f->nr_maps; m-- > 0;) {
		const struct mapping *map = &f->maps[m];
		const struct elf_symbols *es;

		if (map->seq > s->seq || map->pid != s->pid || pc < map->start ||
		    pc >= map->start + map->size)
			continue;
		es = symbols_of(f->modules[map->module]);
		if (!es)
			return NULL;
		return elf_symbols__lookup(
			es, elf_pc_to_vaddr(elf_lookup_pc(pc, is_return), map->start, map->vaddr),
			NULL);
	}
	return NULL;
}

bool leaf_is(const struct capture_file *f, const struct sample *s, const char *fn)
{
	const char *name = s->n ? symbolize(f, s, 0) : NULL;

	return name && !strcmp(name, fn);
}

bool has_chain(const struct capture_file *f, const struct sample *s, const char *const *chain,
	       unsigned len)
{
	if (s->n < len)
		return false;
	for (unsigned i = 0; i < len; i++) {
		const char *name = symbolize(f, s, i);

		if (!name || strcmp(name, chain[i]))
			return false;
	}
	return true;
}

/* --- accounting --- */

static void check_invariant(const struct counter *c)
{
	uint64_t fired = counter_value(c, "fired");
	uint64_t sum = counter_value(c, "written") + counter_value(c, "filtered") +
		       counter_value(c, "dropped_not_running") +
		       counter_value(c, "dropped_ring_full") + counter_value(c, "dropped_no_regs") +
		       counter_value(c, "skipped_kernel_thread") +
		       counter_value(c, "filtered_creds");

	ck_assert_msg(fired == sum, "counter %s: fired %llu != sum of outcomes %llu", c->name,
		      (unsigned long long)fired, (unsigned long long)sum);
}

/*
 * Every per-CPU counter and the total satisfy fired = written + filtered +
 * every drop; the per-CPU counters add up to the total; every sample written
 * is in the file. Returns the number of CPU counters.
 */
/*
 * The mapping events: each one the kernel reported is kept (written),
 * filtered or lost, those of sampled processes are mmap records, and every
 * mmap record in the file came from an event, a /proc read or a parent at a
 * fork.
 */
static void check_mmap_counters(const struct capture_file *f, const struct counter *m)
{
	uint64_t seen = counter_value(m, "seen");
	uint64_t parts = counter_value(m, "not_running") + counter_value(m, "filtered") +
			 counter_value(m, "filtered_creds") + counter_value(m, "written") +
			 counter_value(m, "dropped_ring_full");

	ck_assert_msg(seen == parts, "mmap: seen %llu != the sum of its outcomes %llu",
		      (unsigned long long)seen, (unsigned long long)parts);
	/* a process's mappings are written once it is sampled */
	ck_assert_uint_ge(counter_value(m, "written"), counter_value(m, "records_from_events"));
	ck_assert_msg(f->nr_maps == MAX_ITEMS ||
			      f->nr_maps == counter_value(m, "records_from_events") +
						    counter_value(m, "records_from_proc") +
						    counter_value(m, "records_inherited"),
		      "%zu mmap records, %llu from events, %llu from /proc, %llu inherited",
		      f->nr_maps, (unsigned long long)counter_value(m, "records_from_events"),
		      (unsigned long long)counter_value(m, "records_from_proc"),
		      (unsigned long long)counter_value(m, "records_inherited"));
}

unsigned check_accounting(const struct capture_file *f)
{
	uint64_t sums[FXS_CNT_NR + 1] = {0};
	const struct counter *t = counter(f, "samples");
	unsigned cpus = 0;

	ck_assert_msg(t, "no totals counter in the capture");
	for (size_t i = 0; i < f->nr_counters; i++) {
		const struct counter *c = &f->counters[i];

		if (!strcmp(c->name, "mmap")) {
			check_mmap_counters(f, c);
			continue;
		}
		/* Every sample written ends its CFI walk for exactly one reason. */
		if (!strcmp(c->name, "unwind")) {
			uint64_t ended = 0;

			for (unsigned k = 0; k < c->nr; k++)
				if (strcmp(c->arg_names[k], "fp_fallback"))
					ended += c->values[k];
			ck_assert_msg(ended == total(f, "written"),
				      "%llu CFI walks ended, %llu samples written",
				      (unsigned long long)ended,
				      (unsigned long long)total(f, "written"));
			continue;
		}
		/*
		 * The samples' counters are the total and one per CPU; the
		 * others (off-CPU, config, tables, modules, perf maps, Python)
		 * have sums of their own, checked where they are tested.
		 */
		if (strcmp(c->name, "samples") && strncmp(c->name, "cpu", 3))
			continue;
		check_invariant(c);
		if (strncmp(c->name, "cpu", 3))
			continue;
		cpus++;
		for (unsigned k = 0; k < c->nr && k <= FXS_CNT_NR; k++)
			sums[k] += c->values[k];
	}
	ck_assert_uint_gt(cpus, 0);
	for (unsigned k = 0; k < t->nr && k <= FXS_CNT_NR; k++)
		ck_assert_msg(sums[k] == t->values[k], "%s: per-CPU sum %llu != total %llu",
			      t->arg_names[k], (unsigned long long)sums[k],
			      (unsigned long long)t->values[k]);
	ck_assert_uint_eq(f->nr_samples, total(f, "written"));
	return cpus;
}

/* --- fixtures --- */

void live_make_dir(const char *template)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s", template);
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	/* Tests run commands as other users too. */
	chmod(tmpdir, 0777);
}

void live_remove_dir(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

void assert_no_output(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		/* the writer's temporary files are ".NAME.XXXXXX" */
		ck_assert_msg(de->d_name[0] != '.' || !strcmp(de->d_name, ".") ||
				      !strcmp(de->d_name, ".."),
			      "temporary file %s left behind", de->d_name);
		ck_assert_msg(!strstr(de->d_name, ".fxt"), "output %s written", de->d_name);
	}
	closedir(d);
}

int live_main(Suite *s)
{

	bin = getenv("FXS_BIN");
	progs = getenv("FXS_PROGS");
	if (geteuid() != 0) {
		printf("SKIP: live tests need root (BPF and perf_event_open); NOT RUN\n");
		return EXIT_SUCCESS;
	}
	if (!bin || !progs) {
		fprintf(stderr,
			"FXS_BIN and FXS_PROGS must name the binary and the test programs\n");
		return EXIT_FAILURE;
	}
	return check_run(s);
}

/* --- the daemon's tests --- */

void live_msleep(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int live_run_cmd(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

pid_t live_start_daemon(char *const argv[], const char *sock, const char *log)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		/* A test that fails takes its daemon with it. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (fd >= 0)
			dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	/* Ready when it answers. */
	for (int i = 0; i < 100; i++) {
		if (live_daemon_status(sock, NULL))
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		live_msleep(50);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

bool live_daemon_status(const char *sock, struct fxs_msg_status *st)
{
	struct fxs_msg_status mine;
	char err[256];

	return !client_query_status(sock, st ? st : &mine, err, sizeof(err));
}

void live_daemon_path(char *buf, size_t len)
{
	const char *env = getenv("FXSAMPLERD");
	char *slash;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	snprintf(buf, len, "%s", bin);
	slash = strrchr(buf, '/');
	snprintf(slash ? slash + 1 : buf, len - (size_t)(slash ? slash + 1 - buf : 0), "%s",
		 "fxsamplerd");
}

pid_t live_daemon_start(struct live_daemon *d)
{
	const char *name = d->name ? d->name : "s", *argv[32];
	char daemon_bin[PATH_MAX];
	size_t n = 0;

	live_daemon_path(daemon_bin, sizeof(daemon_bin));
	if (snprintf(d->sock, sizeof(d->sock), "%s/%s.sock", tmpdir, name) >= (int)sizeof(d->sock))
		return d->pid = -1;
	snprintf(d->log, sizeof(d->log), "%s/%s.log", tmpdir, name);
	for (size_t i = 0; d->wrap && d->wrap[i]; i++)
		argv[n++] = d->wrap[i];
	argv[n++] = daemon_bin;
	argv[n++] = "--socket";
	argv[n++] = d->sock;
	argv[n++] = "--config";
	argv[n++] = d->config ? d->config : "/dev/null";
	for (size_t i = 0; d->extra && d->extra[i]; i++)
		argv[n++] = d->extra[i];
	argv[n] = NULL;
	d->pid = live_start_daemon((char *const *)argv, d->sock, d->log);
	return d->pid;
}

int live_daemon_stop(pid_t pid, unsigned ms)
{
	int st;

	if (pid <= 0)
		return -1;
	kill(pid, SIGTERM);
	for (;;) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (!ms) {
			fprintf(stderr, "fxsamplerd %d ignored SIGTERM, killing it\n", (int)pid);
			kill(pid, SIGKILL);
			if (waitpid(pid, &st, 0) != pid)
				return -1;
			return 128 + SIGKILL;
		}
		live_msleep(ms < 20 ? ms : 20);
		ms -= ms < 20 ? ms : 20;
	}
}

pid_t live_start_tmp_daemon(char *sock, size_t len)
{
	struct live_daemon d = {0};
	pid_t pid = live_daemon_start(&d);

	snprintf(sock, len, "%s", d.sock);
	return pid;
}

void live_continuous_prepare(struct live_continuous *c, const char *name, mode_t dir_mode,
			     const char *more)
{
	static const char *const verbose[] = {"-v", NULL};
	FILE *f;

	memset(c, 0, sizeof(*c));
	snprintf(c->conf, sizeof(c->conf), "%s/%s.conf", tmpdir, name);
	snprintf(c->dir, sizeof(c->dir), "%s/%s", tmpdir, name);
	if (dir_mode)
		ck_assert_int_eq(mkdir(c->dir, dir_mode), 0);
	f = fopen(c->conf, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "continuous = yes\ndirectory = %s\n%s", c->dir, more);
	ck_assert_int_eq(fclose(f), 0);
	c->d.name = name;
	c->d.config = c->conf;
	c->d.extra = verbose;
}

bool live_continuous_runs(const char *sock)
{
	struct fxs_msg_status st;

	return live_daemon_status(sock, &st) && st.session == FXS_SESSION_RUNNING &&
	       (st.flags & FXS_STATUS_CONTINUOUS);
}

void live_continuous_start(struct live_continuous *c)
{
	ck_assert_msg(live_daemon_start(&c->d) > 0, "fxsamplerd did not start, see %s", c->d.log);
	for (int i = 0; i < 100 && !live_continuous_runs(c->d.sock); i++)
		live_msleep(50);
	ck_assert_msg(live_continuous_runs(c->d.sock), "no continuous session, see %s", c->d.log);
}

/* --- a suite's own daemon and test user --- */

static void suite_die(const struct live_suite *ls, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s%s\n", ls->name, what, arg ? arg : "");
	exit(EXIT_FAILURE);
}

static void suite_setup(struct live_suite *ls)
{
	char daemon_bin[PATH_MAX];
	int made;

	bin = getenv("FXS_BIN");
	progs = getenv("FXS_PROGS");
	if (!bin || !*bin || !progs || !*progs)
		suite_die(ls, "FXS_BIN and FXS_PROGS must name the binary and the test programs",
			  NULL);
	live_daemon_path(daemon_bin, sizeof(daemon_bin));
	if (access(daemon_bin, X_OK))
		suite_die(ls, "no fxsamplerd beside FXS_BIN (or at $FXSAMPLERD)", NULL);
	if (ls->check)
		ls->check();
	made = ls->user ? live_make_user(ls->user, &ls->uid, &ls->gid) : 0;
	if (made < 0)
		suite_die(ls, "cannot make the test user ", ls->user);
	ls->user_created = made;
	snprintf(tmpdir, sizeof(tmpdir), "%s", ls->dir);
	if (!mkdtemp(tmpdir))
		suite_die(ls, "mkdtemp failed: ", ls->dir);
	chmod(tmpdir, ls->dir_mode);
	if (live_daemon_start(&ls->daemon) <= 0)
		suite_die(ls, "fxsamplerd did not start, see ", ls->daemon.log);
}

static void suite_teardown(struct live_suite *ls)
{
	char cmd[PATH_MAX];
	int rc = live_daemon_stop(ls->daemon.pid, 5000);

	if (rc)
		fprintf(stderr, "%s: fxsamplerd exited with %d\n", ls->name, rc);
	if (ls->user_created) {
		snprintf(cmd, sizeof(cmd), "userdel %s", ls->user);
		live_run_cmd(cmd);
	}
	if (getenv("FXS_KEEP")) {
		fprintf(stderr, "kept %s\n", tmpdir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	live_run_cmd(cmd);
}

int live_suite_main(struct live_suite *ls, Suite *(*suite_fn)(void))
{
	int status;

	if (geteuid() != 0) {
		printf("SKIP: %s needs root (%s); NOT RUN\n", ls->name, ls->needs);
		return EXIT_SUCCESS;
	}
	suite_setup(ls);
	status = check_run(suite_fn());
	suite_teardown(ls);
	return status;
}

int live_make_user(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(name);
	char cmd[256];
	int made = 0;

	if (!pw) {
		snprintf(cmd, sizeof(cmd),
			 "useradd --system --no-create-home --shell /usr/sbin/nologin %s", name);
		if (live_run_cmd(cmd))
			return -1;
		made = 1;
		pw = getpwnam(name);
	}
	if (!pw)
		return -1;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return made;
}

pid_t live_client_start(const char *sock, uid_t uid, gid_t gid, const struct capture_opts *o,
			const char *out, uint64_t ns, int *ret_fd)
{
	int pfd[2], fd;
	pid_t pid;

	ck_assert_int_eq(pipe2(pfd, O_CLOEXEC), 0);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	if (uid)
		ck_assert_int_eq(fchown(fd, uid, gid), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct live_client r;

		memset(&r, 0, sizeof(r));
		if (uid)
			live_become(uid, gid);
		r.err = client_record(sock, o, fd, NULL, ns, NULL, &r.res, r.msg, sizeof(r.msg));
		_exit(write(pfd[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(fd);
	close(pfd[1]);
	*ret_fd = pfd[0];
	return pid;
}

int live_client_wait(pid_t pid, int fd, unsigned secs, struct live_client *rep)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	size_t got = 0;
	ssize_t n;
	int st;

	memset(rep, 0, sizeof(*rep));
	if (poll(&p, 1, (int)secs * 1000) <= 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(fd);
		ck_abort_msg("the capture did not end in %u s: the daemon hangs", secs);
	}
	while (got < sizeof(*rep) && (n = read(fd, (char *)rep + got, sizeof(*rep) - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (got != sizeof(*rep))
		rep->err = -EPIPE;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return rep->err;
}

void live_become(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		_exit(125);
}

pid_t live_record_client(const char *sock, uid_t uid, gid_t gid, int out_fd, int err_fd,
			 const char *const *args)
{
	const char *argv[64];
	size_t n = 0;
	pid_t pid;

	argv[n++] = bin;
	argv[n++] = "record";
	if (sock) {
		argv[n++] = "--socket";
		argv[n++] = sock;
	}
	for (size_t i = 0; args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

		setpgid(0, 0);
		dup2(devnull, 0);
		if (out_fd != -2)
			dup2(out_fd >= 0 ? out_fd : devnull, 1);
		if (err_fd != -2)
			dup2(err_fd >= 0 ? err_fd : devnull, 2);
		if (uid)
			live_become(uid, gid);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}
