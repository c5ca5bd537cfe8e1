// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of safe_open and of report/dump on an .fxt whose module paths
 * name a FIFO, a character device and a socket: each is skipped at once with
 * one warning, its frames stay module+0xOFFSET, exit 0. alarm() turns a hang
 * into a failure. The CLI is $FXS_BIN (default ./fxsampler).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbols/elf_symbols.h"
#include "fxt/fxt_stream.h"
#include "report/report.h"
#include "util/safe_open.h"
#include "check_main.h"

#define HANG_SECONDS 5
#define BASE	     0x400000ULL

static char tmpdir[PATH_MAX];
static char fifo[PATH_MAX + 16], sock[PATH_MAX + 16], fxt[PATH_MAX + 16];
static int sock_fd = -1;
static volatile pid_t child = -1;
/* The module paths the .fxt names, and their basenames in the frames. */
static const char *mod_paths[3];
static const char *const mod_bases[3] = {"fifo", "null", "sock"};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_alarm(int sig)
{
	static const char msg[] = "check_safe_open: hung (alarm)\n";

	(void)sig;
	/* A CLI blocked on the FIFO would outlive the test. */
	if (child > 0)
		kill(child, SIGKILL);
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static void arm(void)
{
	signal(SIGALRM, on_alarm);
	alarm(HANG_SECONDS);
}

static int file_sink(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, ctx) == len ? 0 : -EIO;
}

/* One process with three modules, each mapped at its own base and sampled once. */
static void write_fxt(void)
{
	static const uint8_t id[4] = {1, 2, 3, 4};
	struct fxt_stream *s;
	FILE *f = fopen(fxt, "we");
	uint16_t i;

	ck_assert_ptr_nonnull(f);
	s = fxt_stream__new(file_sink, f, "fxsampler", 1000000000ULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(fxt_stream_process(s, 100, "prog"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 100, 100, "prog"), 0);
	for (i = 0; i < 3; i++) {
		uint64_t start = BASE + i * 0x100000ULL, pc = start + 0x10 + i;

		ck_assert_int_eq(fxt_stream_module(s, 1, 100, i, mod_paths[i], id, sizeof(id)), 0);
		ck_assert_int_eq(fxt_stream_mmap(s, 1, 100, i, 5, start, 0x1000, 0x1000), 0);
		ck_assert_int_eq(fxt_stream_backtrace(s, 2 + i, 100, 100, 0, &pc, 1), 0);
	}
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	snprintf(tmpdir, sizeof(tmpdir), "%s/fxs_safe.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	snprintf(sock, sizeof(sock), "%s/sock", tmpdir);
	snprintf(fxt, sizeof(fxt), "%s/special.fxt", tmpdir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	sock_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(sock_fd, 0);
	ck_assert_uint_lt(strlen(sock), sizeof(sa.sun_path));
	strcpy(sa.sun_path, sock);
	ck_assert_int_eq(bind(sock_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	/* A listening socket: an open() that connected would not fail. */
	ck_assert_int_eq(listen(sock_fd, 1), 0);
	mod_paths[0] = fifo;
	mod_paths[1] = "/dev/null";
	mod_paths[2] = sock;
	write_fxt();
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	if (sock_fd >= 0)
		close(sock_fd);
	sock_fd = -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

START_TEST(test_safe_open_kinds)
{
	char reg[PATH_MAX + 16];
	struct stat st;
	int fd;

	arm();
	snprintf(reg, sizeof(reg), "%s/reg", tmpdir);
	fd = open(reg, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);

	fd = safe_open_regular(reg, &st);
	ck_assert_int_ge(fd, 0);
	ck_assert(S_ISREG(st.st_mode));
	/* O_NONBLOCK is not left on the file. */
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);

	ck_assert_int_eq(safe_open_regular(fifo, &st), -SAFE_OPEN_ENOTREG);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(safe_open_regular("/dev/null", &st), -SAFE_OPEN_ENOTREG);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(safe_open_regular(sock, &st), -SAFE_OPEN_ENOTREG);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(safe_open_regular(tmpdir, NULL), -SAFE_OPEN_ENOTREG);
	ck_assert_int_eq(safe_open_regular("/nonexistent/x", NULL), -ENOENT);

	ck_assert_str_eq(safe_open_describe(fifo), "fifo");
	ck_assert_str_eq(safe_open_describe("/dev/null"), "character device");
	ck_assert_str_eq(safe_open_describe(sock), "socket");
	ck_assert_str_eq(safe_open_describe(tmpdir), "directory");
	ck_assert_ptr_null(safe_open_describe(reg));
	alarm(0);
}
END_TEST

START_TEST(test_elf_open_fifo)
{
	/* As modules.c opens a mapped file for its build id. */
	const struct elf_symbols_opts no_debug = {.no_debug_file = true};

	arm();
	errno = 0;
	ck_assert_ptr_null(elf_symbols__open(fifo, NULL));
	ck_assert_int_eq(errno, SAFE_OPEN_ENOTREG);
	errno = 0;
	ck_assert_ptr_null(elf_symbols__open(fifo, &no_debug));
	ck_assert_int_eq(errno, SAFE_OPEN_ENOTREG);
	errno = 0;
	ck_assert_ptr_null(elf_symbols__open("/dev/zero", &no_debug));
	ck_assert_int_eq(errno, SAFE_OPEN_ENOTREG);
	alarm(0);
}
END_TEST

/*
 * A real ELF extended to 64 GiB (sparse): its headers describe a few KB, so
 * only those are mapped, the symbols still load, and it takes no time.
 */
START_TEST(test_elf_oversized)
{
	char big[PATH_MAX + 16], cmd[2 * PATH_MAX + 64];
	struct elf_symbols *es;
	double t0;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	arm();
	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	snprintf(big, sizeof(big), "%s/big", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", self, big);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(truncate(big, 64LL << 30), 0);
	t0 = now_s();
	es = elf_symbols__open(big, NULL);
	ck_assert_msg(es, "open: %s", strerror(errno));
	ck_assert_uint_gt(elf_symbols__count(es), 10);
	elf_symbols__free(es);
	/* Reading 64 GiB would take far longer (valgrind slows the open itself). */
	ck_assert_double_lt(now_s() - t0, HANG_SECONDS - 1);
	alarm(0);
}
END_TEST

/*
 * The debug-file lookups: a stripped binary whose .gnu_debuglink file, and
 * whose build-id debug file, are FIFOs now. Each is skipped at once; the
 * binary's own .dynsym still loads.
 */
START_TEST(test_debug_files_fifo)
{
	static const char src[] = "int fxs_dbg_fn(int x) { return x * 7; }\n";
	char dir[PATH_MAX + 16], cmd[8 * PATH_MAX], path[PATH_MAX + 64],
		hex[2 * ELF_BUILD_ID_MAX + 1];
	struct elf_symbols_opts o = {.debug_dir = dir};
	struct elf_symbols *es;
	const uint8_t *id;
	size_t len = 0;
	FILE *f;

	arm();
	snprintf(dir, sizeof(dir), "%s/dbg", tmpdir);
	snprintf(path, sizeof(path), "%s/lib.c", tmpdir);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs(src, f);
	ck_assert_int_eq(fclose(f), 0);
	/* One library linked by .gnu_debuglink, one found by build id. */
	snprintf(
		cmd, sizeof(cmd),
		"cd '%s' && mkdir -p dbg && %s -shared -fPIC -g -Wl,--build-id=none lib.c -o "
		"link.so"
		" && objcopy --only-keep-debug link.so link.so.debug && objcopy --strip-debug "
		"--strip-unneeded --add-gnu-debuglink=link.so.debug link.so && rm link.so.debug && "
		"mkfifo link.so.debug && %s -shared -fPIC -g -Wl,--build-id lib.c -o id.so && "
		"objcopy --strip-debug --strip-unneeded id.so",
		tmpdir, getenv("FXS_TEST_CC") ?: "gcc", getenv("FXS_TEST_CC") ?: "gcc");
	ck_assert_int_eq(system(cmd), 0);

	snprintf(path, sizeof(path), "%s/link.so", tmpdir);
	es = elf_symbols__open(path, &o);
	ck_assert_msg(es, "%s: %s", path, strerror(errno));
	ck_assert_ptr_null(elf_symbols__debug_path(es));
	/* Its exported function, from .dynsym. */
	ck_assert_uint_ge(elf_symbols__count(es), 1);
	elf_symbols__free(es);

	snprintf(path, sizeof(path), "%s/id.so", tmpdir);
	es = elf_symbols__open(path, &o);
	ck_assert_msg(es, "%s: %s", path, strerror(errno));
	id = elf_symbols__build_id(es, &len);
	ck_assert_ptr_nonnull(id);
	ck_assert_uint_gt(len, 1);
	elf_build_id_hex(id, len, hex, sizeof(hex));
	elf_symbols__free(es);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/.build-id/%.2s' && mkfifo '%s/.build-id/%.2s/%s.debug'", dir, hex,
		 dir, hex, hex + 2);
	ck_assert_int_eq(system(cmd), 0);
	es = elf_symbols__open(path, &o);
	ck_assert_msg(es, "%s: %s", path, strerror(errno));
	ck_assert_ptr_null(elf_symbols__debug_path(es));
	elf_symbols__free(es);
	alarm(0);
}
END_TEST

/* Run the CLI with stdout and stderr into files; its exit status. */
static int run_cli(const char *const *args, char **ret_out, char **ret_err)
{
	const char *bin = getenv("FXS_BIN") ?: "./fxsampler";
	char outp[PATH_MAX + 16], errp[PATH_MAX + 16];
	const char *argv[8];
	int status, i;
	pid_t pid;
	FILE *f;
	long n;

	ck_assert_msg(access(bin, X_OK) == 0, "%s: not built (make fxsampler, or set FXS_BIN)",
		      bin);
	snprintf(outp, sizeof(outp), "%s/out", tmpdir);
	snprintf(errp, sizeof(errp), "%s/err", tmpdir);
	argv[0] = bin;
	for (i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	child = pid;
	if (!pid) {
		int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	child = -1;
	for (i = 0; i < 2; i++) {
		char **ret = i ? ret_err : ret_out;

		f = fopen(i ? errp : outp, "re");
		ck_assert_ptr_nonnull(f);
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		*ret = calloc(1, (size_t)n + 1);
		ck_assert_ptr_nonnull(*ret);
		ck_assert_uint_eq(fread(*ret, 1, (size_t)n, f), (size_t)n);
		fclose(f);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void check_warnings(const char *err)
{
	static const char *const types[3] = {"fifo", "character device", "socket"};
	char line[PATH_MAX + 128];
	unsigned i;

	for (i = 0; i < 3; i++) {
		snprintf(line, sizeof(line),
			 "fxsampler: module '%s': not a regular file (%s): not symbolized\n",
			 mod_paths[i], types[i]);
		ck_assert_msg(count(err, line) == 1, "want once: %s\nin stderr:\n%s", line, err);
	}
}

START_TEST(test_report_special_paths)
{
	const char *top[] = {"report", "--top", "5", fxt, NULL};
	const char *folded[] = {"report", "--folded", fxt, NULL};
	char *out, *err, frame[64];
	double t0;
	unsigned i;

	arm();
	t0 = now_s();
	ck_assert_int_eq(run_cli(top, &out, &err), 0);
	ck_assert_double_lt(now_s() - t0, 1.0);
	check_warnings(err);
	for (i = 0; i < 3; i++) {
		snprintf(frame, sizeof(frame), "%s+0x%x", mod_bases[i], 0x1010 + i);
		ck_assert_msg(strstr(out, frame), "no %s in:\n%s", frame, out);
	}
	ck_assert_ptr_nonnull(strstr(out, "not a regular file"));
	free(out);
	free(err);

	t0 = now_s();
	ck_assert_int_eq(run_cli(folded, &out, &err), 0);
	ck_assert_double_lt(now_s() - t0, 1.0);
	check_warnings(err);
	ck_assert_ptr_nonnull(strstr(out, "prog;prog;fifo+0x1010 1\n"));
	ck_assert_ptr_nonnull(strstr(out, "prog;prog;null+0x1011 1\n"));
	ck_assert_ptr_nonnull(strstr(out, "prog;prog;sock+0x1012 1\n"));
	free(out);
	free(err);
	alarm(0);
}
END_TEST

START_TEST(test_dump_special_paths)
{
	const char *dump[] = {"dump", fxt, NULL};
	char *out, *err;
	double t0;

	arm();
	t0 = now_s();
	ck_assert_int_eq(run_cli(dump, &out, &err), 0);
	ck_assert_double_lt(now_s() - t0, 1.0);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(count(out, " module "), 3);
	ck_assert_ptr_nonnull(strstr(out, fifo));
	free(out);
	free(err);
	alarm(0);
}
END_TEST

/*
 * A .fxt that cannot be read past some byte (here a directory: read() fails
 * with EISDIR): dump fails with 1 and says how far it got and why.
 */
START_TEST(test_dump_read_error)
{
	const char *dump[] = {"dump", tmpdir, NULL};
	char *out, *err;

	arm();
	ck_assert_int_eq(run_cli(dump, &out, &err), 1);
	ck_assert_str_eq(out, "");
	ck_assert_ptr_nonnull(strstr(err, ": cannot read past byte 0: Is a directory\n"));
	free(out);
	free(err);
	alarm(0);
}
END_TEST

/* In-process too: report_run() on the same file, with a pprof written. */
START_TEST(test_report_run_special_paths)
{
	char pprof[PATH_MAX + 16], errbuf[256] = "";
	struct report_opts o = {
		.pprof_path = pprof, .errbuf = errbuf, .errbuf_size = sizeof(errbuf)};
	FILE *devnull = fopen("/dev/null", "we");

	arm();
	snprintf(pprof, sizeof(pprof), "%s/p.pb.gz", tmpdir);
	ck_assert_int_eq(report_run(fxt, &o, devnull), 0);
	ck_assert_str_eq(errbuf, "");
	fclose(devnull);
	alarm(0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("safe_open");
	TCase *tc = tcase_create("special files");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_safe_open_kinds);
	tcase_add_test(tc, test_elf_open_fifo);
	tcase_add_test(tc, test_elf_oversized);
	tcase_add_test(tc, test_debug_files_fifo);
	tcase_add_test(tc, test_report_special_paths);
	tcase_add_test(tc, test_dump_special_paths);
	tcase_add_test(tc, test_dump_read_error);
	tcase_add_test(tc, test_report_run_special_paths);
	/* valgrind slows the in-process run; the alarm still bounds each test. */
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return check_run(s);
}
