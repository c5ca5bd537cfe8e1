/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the Python live tests share (check_python.c, check_python_edges.c):
 * writing a script, recording it under Debian 12's python3.11, and reading
 * report --folded's stacks (outermost first, a count after the last blank).
 */
#ifndef FXS_TESTS_LIVE_LIVE_PYTHON_H
#define FXS_TESTS_LIVE_LIVE_PYTHON_H

#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live.h"

#define PYTHON "/usr/bin/python3.11"

static inline void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The whole of a file, NUL-terminated (the caller frees it). */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* record [extra] -o out -- python3.11 script args: its stderr kept. */
static inline void record_python(const char *out, const char *extra, const char *script,
				 const char *arg)
{
	struct run *r = calloc(1, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	if (extra)
		RUN(r, "record", extra, "-o", out, "--", PYTHON, script, arg);
	else
		RUN(r, "record", "-o", out, "--", PYTHON, script, arg);
	ck_assert_msg(exit_code(r) == 0, "record: %s", r->err);
	free(r);
}

/* report FILE --folded --no-thread-frames [--tid T] into tmpdir/name: the text. */
static inline char *folded(const char *fxt, const char *tid, const char *name)
{
	char *path = out_path(name), *argv[10];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), i = 0, st;
	pid_t p;

	ck_assert_int_ge(fd, 0);
	argv[i++] = (char *)bin;
	argv[i++] = (char *)"report";
	argv[i++] = (char *)fxt;
	argv[i++] = (char *)"--folded";
	argv[i++] = (char *)"--no-thread-frames";
	if (tid) {
		argv[i++] = (char *)"--tid";
		argv[i++] = (char *)tid;
	}
	argv[i] = NULL;
	p = spawn_io(argv, fd, -1);
	close(fd);
	ck_assert_int_gt(p, 0);
	waitpid(p, &st, 0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "report --folded failed");
	return slurp(path);
}

/* A folded line's frames and count: line is cut at its last blank. */
static inline unsigned long line_count(char *line)
{
	char *sp = strrchr(line, ' ');

	if (!sp)
		return 0;
	*sp = '\0';
	return strtoul(sp + 1, NULL, 10);
}

/* Whether the frames (';'-separated) hold frame as a whole field. */
static inline bool has_frame(const char *frames, const char *frame)
{
	size_t n = strlen(frame);

	for (const char *p = frames; (p = strstr(p, frame)); p++)
		if ((p == frames || p[-1] == ';') && (p[n] == ';' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * Three functions spinning in a designed 50/30/20 split for argv[1] seconds;
 * writes "pid alpha beta gamma other" to the file truth beside the script: the
 * main thread's own CPU time (ns, CLOCK_THREAD_CPUTIME_ID) in each function and
 * in the rest of its life. An exact reference, where an in-process sampler
 * thread was paced by the GIL's 5 ms switch interval against the functions'
 * 10 ms cycle (biased, and ~900 samples: 20 % came out 21.9).
 */
static const char split_py[] =
	"import os, sys, time\n"
	"def spin(deadline):\n"
	"    pc = time.perf_counter\n"
	"    while pc() < deadline:\n"
	"        pass\n"
	"def alpha():\n"
	"    spin(time.perf_counter() + 0.005)\n"
	"def beta():\n"
	"    spin(time.perf_counter() + 0.003)\n"
	"def gamma():\n"
	"    spin(time.perf_counter() + 0.002)\n"
	"cpu = time.thread_time_ns\n"
	"spent = [0, 0, 0]\n"
	"def work(seconds):\n"
	"    end = time.perf_counter() + seconds\n"
	"    while time.perf_counter() < end:\n"
	"        t0 = cpu()\n"
	"        alpha()\n"
	"        t1 = cpu()\n"
	"        beta()\n"
	"        t2 = cpu()\n"
	"        gamma()\n"
	"        t3 = cpu()\n"
	"        spent[0] += t1 - t0\n"
	"        spent[1] += t2 - t1\n"
	"        spent[2] += t3 - t2\n"
	"work(float(sys.argv[1]))\n"
	"with open(os.path.join(os.path.dirname(sys.argv[0]), 'truth'), 'w') as out:\n"
	"    out.write('%d %d %d %d %d\\n' % (os.getpid(), spent[0], spent[1], spent[2],\n"
	"                                   cpu() - sum(spent)))\n";

/*
 * Whether test can run here: the walk is loaded from Linux 6.1
 * (fxsampler-record(1), --python), on Debian 12's python3.11. If not, it says
 * SKIP loudly.
 */
static inline bool live_python_can_run(const char *test)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (!uname(&u) && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	    (major < 6 || (major == 6 && minor < 1))) {
		printf("SKIP: %s needs Linux 6.1 or later for the Python walk "
		       "(this is %s); NOT RUN\n",
		       test, u.release);
		return false;
	}
	if (access(PYTHON, X_OK)) {
		printf("SKIP: %s needs Debian 12's %s (make deps); NOT RUN\n", test, PYTHON);
		return false;
	}
	return true;
}

#endif /* FXS_TESTS_LIVE_LIVE_PYTHON_H */
