// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The live tests' shared helpers: see live.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* --- children that end with the test --- */

static pid_t forking; /* set in the parent just before each fork() */
static pid_t parent;  /* in a child: the process that forked it */

/* Descriptors 3 and up close at the next exec. */
static void fds_close_on_exec(void)
{
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	/* before Linux 5.11: the low ones, where flock(1)'s lock and ours are */
	for (int fd = 3; fd < 1024; fd++) {
		int flags = fcntl(fd, F_GETFD);

		if (flags >= 0)
			fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	}
}

void live_die_with_parent(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the parent died before the prctl: no signal will come */
	if (getppid() != parent)
		_exit(125);
}

static void before_fork(void)
{
	forking = getpid();
}

static void in_child(void)
{
	parent = forking;
	live_die_with_parent();
	fds_close_on_exec();
}

/*
 * Before main(), in every live binary: see live.h. A killed test left an
 * exec loop running twice, in a process group of its own that Check's kill
 * of the test's group missed, with flock(1)'s descriptor of CI's live lock:
 * the next CI run waited on the lock.
 */
__attribute__((constructor)) static void children_die_with_us(void)
{
	fds_close_on_exec();
	pthread_atfork(before_fork, NULL, in_child);
}

/* --- running programs --- */

pid_t spawn_as(char *const argv[], int out_fd, int err_fd, uid_t uid)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

		dup2(devnull, 0);
		dup2(out_fd >= 0 ? out_fd : devnull, 1);
		dup2(err_fd >= 0 ? err_fd : devnull, 2);
		if (uid && setuid(uid))
			_exit(126);
		if (uid)
			live_die_with_parent();
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
			s->n = rec.nr_frames < FXS_MAX_FRAMES ? rec.nr_frames : FXS_MAX_FRAMES;
			memcpy(s->frames, rec.frames, s->n * sizeof(uint64_t));
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
				if (strcmp(c->arg_names[k], "fp_fallback") &&
				    strcmp(c->arg_names[k], "by_file"))
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
