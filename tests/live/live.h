/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the live tests share: running fxsampler and the test programs, and
 * reading a capture back with the FXT reader, its PCs resolved against the
 * programs' own symbols through the mmap records the capture wrote.
 *
 * FXS_BIN names the fxsampler binary, FXS_PROGS the built tests/progs.
 */
#ifndef FXS_TESTS_LIVE_LIVE_H
#define FXS_TESTS_LIVE_LIVE_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fxt/fxt_reader.h"
#include "sampler.h"

#define MAX_SAMPLES 200000
#define MAX_OFFCPU  20000
#define MAX_ITEMS   8192

extern const char *bin;	  /* FXS_BIN */
extern const char *progs; /* FXS_PROGS */
extern char tmpdir[256];  /* the test's own directory, made by live_setup() */
/*
 * fxsamplerd (beside FXS_BIN) with an empty config, its socket tmpdir/s.sock
 * (the path copied into sock) and its stderr in tmpdir/s.log: its pid once it
 * answers, or -1.
 */
pid_t live_start_tmp_daemon(char *sock, size_t len);

/* --- children that end with the test --- */

/*
 * Every live binary (live.c's constructor, before main) marks the
 * descriptors it inherited close-on-exec, and every fork() after that
 * (Check's fork of each test, each child a test forks) gives its child
 * PR_SET_PDEATHSIG(SIGKILL) and all the child's descriptors above 2
 * close-on-exec. So a test killed by Check's timeout or by hand takes its
 * children with it, and no program a test runs (system() and popen() too)
 * holds the descriptor flock(1) passed the test: CI's /tmp/fxs-live.lock is
 * free once the test is gone. A descriptor a child means to pass on is
 * dup2()ed to its number after the fork (dup2 clears close-on-exec).
 */
/*
 * In a child: PR_SET_PDEATHSIG(SIGKILL) again, after a change of uid or gid
 * cleared it (the kernel does); _exit(125) when the parent is already gone.
 * A child that execs `setpriv --reuid=...` asks setpriv for it instead
 * (`setpriv --pdeathsig KILL --reuid=...`).
 */
void live_die_with_parent(void);

/* --- running programs --- */

struct run {
	int status;	  /* as from waitpid */
	char err[16384];  /* its stderr */
	char out[262144]; /* the start of its stdout */
};

/* Fork and exec argv as uid (0: as we are); stdin from /dev/null, stdout to
 * out_fd and stderr to err_fd (-1: /dev/null). */
pid_t spawn_as(char *const argv[], int out_fd, int err_fd, uid_t uid);
pid_t spawn_io(char *const argv[], int out_fd, int err_fd);
/* An unlinked temporary file in tmpdir. */
int temp_fd(void);
/* The start of what fd holds, NUL-terminated. */
void read_fd(int fd, char *buf, size_t size);
/* Wait for pid; its stderr from err_fd (closed). */
void collect(pid_t pid, int err_fd, struct run *r);
/* Run fxsampler with args (NULL-terminated) as uid; stdout and stderr kept. */
void run_as(struct run *r, uid_t uid, const char *const *args);
#define RUN(r, ...) run_as((r), 0, (const char *const[]){__VA_ARGS__, NULL})
/* Start fxsampler with args, stderr to err_fd; the caller collects it. */
pid_t start_args(int err_fd, const char *const *args);
#define START(fd, ...) start_args((fd), (const char *const[]){__VA_ARGS__, NULL})
int exit_code(const struct run *r);
/* FXS_PROGS/name and tmpdir/name; each call returns one of 8 rotating buffers. */
char *prog(const char *name);
char *out_path(const char *name);
/* Start a test program with up to two arguments, its output discarded. */
pid_t start_prog(const char *name, const char *arg1, const char *arg2);
void stop_prog(pid_t pid);

/* --- reading a capture; every record keeps its position in the file --- */

struct sample {
	size_t seq;
	uint32_t pid, tid;
	unsigned flags, n;
	uint64_t frames[FXS_MAX_FRAMES];
};

struct mapping {
	size_t seq;
	uint32_t pid;
	uint16_t module;
	uint64_t start, size, vaddr;
};

struct named {
	uint64_t koid;
	uint64_t process; /* threads: the "process" argument */
	char name[64];
};

struct counter {
	char name[32];
	uint64_t values[FXT_READER_MAX_ARGS];
	char arg_names[FXT_READER_MAX_ARGS][32];
	unsigned nr;
};

struct capture_file {
	struct sample *samples;
	size_t nr_samples;
	struct sample *offcpu; /* off-CPU stacks (FXT_BT_FLAG_OFFCPU), apart from samples */
	size_t nr_offcpu;
	struct mapping maps[MAX_ITEMS];
	size_t nr_maps;
	char modules[MAX_ITEMS][256]; /* by module id */
	struct named threads[MAX_ITEMS], processes[MAX_ITEMS];
	size_t nr_threads, nr_processes;
	struct counter counters[64];
	size_t nr_counters;
	bool dropped_event;
	int read_result;     /* 0, or the reader's error */
	uint64_t end_offset; /* of the last whole record */
	char error[256];
};

struct capture_file *load(const char *path);
void unload(struct capture_file *f);
const struct counter *counter(const struct capture_file *f, const char *name);
uint64_t counter_value(const struct counter *c, const char *arg);
/* A value of the totals counter ("samples"). */
uint64_t total(const struct capture_file *f, const char *arg);
bool has_kobj(const struct named *objs, size_t n, uint64_t koid);
/* The last name given to a process or a thread before the end of the file. */
const char *process_name(const struct capture_file *f, uint64_t pid);
const char *thread_name(const struct capture_file *f, uint64_t tid);

/* The function at frame i of s, through the mmap records written before it. */
const char *symbolize(const struct capture_file *f, const struct sample *s, unsigned i);
bool leaf_is(const struct capture_file *f, const struct sample *s, const char *fn);
/* Whether s holds the chain, innermost first, as consecutive frames from frame 0. */
bool has_chain(const struct capture_file *f, const struct sample *s, const char *const *chain,
	       unsigned len);

/*
 * Every per-CPU counter and the total satisfy fired = written + filtered +
 * every drop; the per-CPU counters add up to the total; every sample written
 * is in the file. Returns the number of CPU counters.
 */
unsigned check_accounting(const struct capture_file *f);

/* --- fixtures --- */

/* Make tmpdir from a template such as "/tmp/fxs-live-XXXXXX"; remove it again. */
void live_make_dir(const char *template);
void live_remove_dir(void);
/* No output and no temporary file left in dir. */
void assert_no_output(const char *dir);

/*
 * main() of a live test: SKIP loudly unless root, then FXS_BIN and FXS_PROGS
 * must be set; runs the suite and returns the exit status.
 */
int live_main(Suite *s);

#endif /* FXS_TESTS_LIVE_LIVE_H */
