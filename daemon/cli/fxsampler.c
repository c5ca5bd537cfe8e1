// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxsampler: the command line. record, report, dump, status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <bpf/libbpf.h>

#include "util/io.h"
#include "util/clock.h"
#include "cli/args.h"
#include "capture/capture.h"
#include "cli/client.h"
#include "fxt/fxt_reader.h"
#include "capture/guard.h"
#include "capture/hostlock.h"
#include "util/idset.h"
#include "capture/kfeatures.h"
#include "util/outfile.h"
#include "util/units.h"
#include "capture/procinfo.h"
#include "report/report.h"

#define EXIT_USAGE	   2
#define DRAIN_INTERVAL_MS  100
#define STATUS_INTERVAL_NS 250000000ULL

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t stop_signal;

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("fxsampler: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_signal(int sig)
{
	stop_requested = 1;
	stop_signal = sig;
}

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Root, or both CAP_BPF and CAP_PERFMON in the effective set. */
static bool can_load_bpf(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {0};
	const int bpf = 39, perfmon = 38; /* CAP_BPF, CAP_PERFMON: newer than some headers */

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return (data[bpf / 32].effective & (1U << (bpf % 32))) &&
	       (data[perfmon / 32].effective & (1U << (perfmon % 32)));
}

/*
 * --- output file ---
 * outfile.h: a regular file is replaced atomically with its mode and owner
 * kept, a device or a FIFO is written through. "-" is stdout, unless a
 * terminal; -z compresses on the way.
 */

struct out_file {
	struct outfile f;
	gzFile gz;
	uint64_t bytes;
	int err; /* the first write error: setup errors name the output */
};

__attribute__((format(printf, 3, 4))) static int out_fail(char *msg, size_t len, const char *fmt,
							  ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int out_open(struct out_file *o, const char *path, bool compress, char *msg, size_t len)
{
	int err, fd2;

	o->gz = NULL;
	o->bytes = 0;
	o->err = 0;
	err = outfile_open(&o->f, path, OUTFILE_DASH_STDOUT | OUTFILE_NO_TTY);
	if (err == -OUTFILE_ETTY && o->f.is_stdout)
		return out_fail(msg, len,
				"refusing to write a capture to a terminal "
				"(-o - is for a pipe or a file)");
	if (err == -OUTFILE_ETTY)
		return out_fail(msg, len, "refusing to write a capture to the terminal '%s'", path);
	if (err)
		return out_fail(msg, len, "cannot write '%s': %s", path,
				outfile_strerror(&o->f, err));
	if (compress) {
		fd2 = dup(o->f.fd);
		o->gz = fd2 < 0 ? NULL : gzdopen(fd2, "wb6");
		if (!o->gz) {
			if (fd2 >= 0)
				close(fd2);
			outfile_abort(&o->f);
			return out_fail(msg, len, "cannot compress: %s", strerror(ENOMEM));
		}
	}
	return 0;
}

static int out_sink(void *ctx, const void *data, size_t len)
{
	struct out_file *o = ctx;

	if (o->gz) {
		if (len && gzwrite(o->gz, data, len) != (int)len) {
			int zerr;

			gzerror(o->gz, &zerr);
			o->err = zerr == Z_ERRNO && errno ? -errno : -EIO;
			return o->err;
		}
		o->bytes += len;
		return 0;
	}
	o->err = write_all(o->f.fd, data, len);
	if (!o->err)
		o->bytes += len;
	return o->err;
}

static int out_commit(struct out_file *o)
{
	if (o->gz) {
		int zerr = gzclose(o->gz);

		o->gz = NULL;
		if (zerr != Z_OK)
			return errno ? -errno : -EIO;
	}
	return outfile_commit(&o->f);
}

static void out_discard(struct out_file *o)
{
	if (o->gz)
		gzclose(o->gz);
	o->gz = NULL;
	outfile_abort(&o->f);
}

/* How the summary names the output. */
static const char *out_name(const struct out_file *o)
{
	return o->f.is_stdout ? "standard output" : o->f.name;
}

/* --- the command to profile: forked first, held until sampling runs --- */

struct child {
	pid_t pid;
	int go_fd;  /* write one byte: exec; -1 once released */
	int err_fd; /* the exec's errno, or EOF when it succeeded */
	bool released;
};

/* Resolve like execvp, so a command that cannot run fails before any BPF is loaded. */
static int find_command(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? -errno : 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", cmd);
		if (!access(buf, X_OK))
			return 0;
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

static int child_spawn(char **cmd, struct child *ret)
{
	sigset_t all, old;
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	/*
	 * No signal reaches the child before it has its own dispositions: one
	 * caught by our handler in the child would be lost, and the child would
	 * wait for a release that never comes.
	 */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (pid == 0) {
		char c;
		int e;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* The command lives as long as its capture, even if record is killed. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(go[1]);
		close(err[0]);
		/* EOF without the byte: the parent gave up (or died), so do not run. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		e = errno;
		if (write(err[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(go[0]);
	close(err[1]);
	ret->pid = pid;
	ret->go_fd = go[1];
	ret->err_fd = err[0];
	ret->released = false;
	return 0;
}

/* Let it exec; 0 once it runs the command, or the exec's -errno. */
static int child_release(struct child *c)
{
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, "x", 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	c->released = n != sizeof(e);
	return n == sizeof(e) ? -e : 0;
}

/*
 * End the child: one still held sees its pipe close and exits (SIGKILL
 * besides, in case it is anywhere else); a running command gets sig (0:
 * none, it is waited for). Its wait status in *ret_status.
 */
static void child_end(struct child *c, int sig, int *ret_status)
{
	int st = 0;

	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0) {
		if (!c->released)
			sig = SIGKILL;
		if (sig)
			kill(c->pid, sig);
		while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
			;
		if (ret_status)
			*ret_status = st;
	}
	c->pid = 0;
}

static void child_abort(struct child *c)
{
	child_end(c, SIGKILL, NULL);
}

/*
 * The command is the user's: when the capture ends without it (the daemon
 * went away), it runs on and we wait for it, passing on a signal we get.
 */
static void child_wait(struct child *c, int *ret_status)
{
	int st = 0, forwarded = 0;

	stop_signal = 0;
	while (c->pid > 0) {
		pid_t w = waitpid(c->pid, &st, WNOHANG);
		struct timespec ts = {.tv_nsec = 20000000};

		if (w == c->pid || (w < 0 && errno != EINTR)) {
			c->pid = 0;
			break;
		}
		if (stop_signal && !forwarded) {
			kill(c->pid, stop_signal);
			forwarded = stop_signal;
		}
		nanosleep(&ts, NULL);
	}
	if (ret_status)
		*ret_status = st;
}

/* The exit status of record: CMD's with --exit-status, as time(1) gives it. */
static int command_exit(const struct record_args *a, int status)
{
	if (!a->exit_status)
		return EXIT_SUCCESS;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAILURE;
}

/* --- record --- */

/* A target counts while it can still run: a zombie has no stack left to sample. */
static bool any_target_alive(const struct capture_opts *o)
{
	for (unsigned i = 0; i < o->nr_pids; i++) {
		int kind = procinfo_kind((pid_t)o->pids[i]);

		if (kind == PROCINFO_USER || (kind < 0 && kind != -ESRCH))
			return true;
	}
	return false;
}

static uint64_t dropped(const struct fxs_counters *c)
{
	return c->v[FXS_CNT_DROP_RING_FULL] + c->v[FXS_CNT_DROP_NO_REGS];
}

static void print_status(const struct capture *c, uint64_t elapsed_ns)
{
	struct capture_stats st;

	capture_stats(c, &st);
	fprintf(stderr,
		"\r\033[Kfxsampler: %6.1fs  %llu samples  %llu dropped  %llu threads  %.1f MiB",
		elapsed_ns / 1e9, (unsigned long long)st.counters.v[FXS_CNT_WRITTEN],
		(unsigned long long)dropped(&st.counters), (unsigned long long)st.threads,
		st.bytes / 1048576.0);
}

/* Only with --off-cpu: a capture without it has no switches counted. */
static void print_offcpu_summary(const struct fxs_offcpu_counters *oc)
{
	const __u64 *o = oc->v;

	if (!o[FXS_OC_SWITCHES])
		return;
	say("off-cpu: %llu intervals written (%llu closed at the stop), %llu shorter than the "
	    "minimum; dropped: %llu ring full, %llu no task storage, %llu after stop",
	    (unsigned long long)(o[FXS_OC_WRITTEN] + o[FXS_OC_AT_STOP]),
	    (unsigned long long)o[FXS_OC_AT_STOP], (unsigned long long)o[FXS_OC_SHORT],
	    (unsigned long long)o[FXS_OC_RING_FULL], (unsigned long long)o[FXS_OC_NO_STORAGE],
	    (unsigned long long)o[FXS_OC_CLOSED_NOT_RUNNING]);
}

static void print_summary(const struct capture_stats *st, const char *path, uint64_t bytes)
{
	const __u64 *v = st->counters.v;
	uint64_t lost = dropped(&st->counters), taken = v[FXS_CNT_WRITTEN] + lost;

	say("wrote %s: %llu samples of %llu threads in %llu processes on %u cpus, %llu bytes", path,
	    (unsigned long long)v[FXS_CNT_WRITTEN], (unsigned long long)st->threads,
	    (unsigned long long)st->processes, st->nr_cpus, (unsigned long long)bytes);
	say("dropped: %llu ring full, %llu no user registers, %llu after stop; "
	    "skipped: %llu kernel threads, %llu other processes",
	    (unsigned long long)v[FXS_CNT_DROP_RING_FULL],
	    (unsigned long long)v[FXS_CNT_DROP_NO_REGS],
	    (unsigned long long)v[FXS_CNT_DROP_NOT_RUNNING],
	    (unsigned long long)v[FXS_CNT_DROP_KTHREAD], (unsigned long long)v[FXS_CNT_FILTERED]);
	if (v[FXS_CNT_FILTERED_CREDS])
		say("skipped: %llu samples of targets that were no longer wholly yours",
		    (unsigned long long)v[FXS_CNT_FILTERED_CREDS]);
	say("stacks: %llu truncated at --max-frames, %llu ended by a read fault, %llu by a bad "
	    "frame pointer",
	    (unsigned long long)v[FXS_CNT_STOP_TRUNCATED],
	    (unsigned long long)v[FXS_CNT_STOP_FAULT], (unsigned long long)v[FXS_CNT_STOP_BAD_FP]);
	if (taken && lost * 100 > taken)
		say("warning: %.1f%% of samples were lost; try a larger --buffer-size or a lower "
		    "-F",
		    100.0 * lost / taken);
	print_offcpu_summary(&st->offcpu);
}

/* Which CPUs were sampled and for how long: CPUs come and go. */
static void print_cpus(const struct capture *cap)
{
	char line[1024];
	size_t len = 0;

	for (unsigned cpu = 0; cpu < FXS_MAX_CPUS && len < sizeof(line) - 64; cpu++) {
		uint64_t ns = capture_cpu_ns(cap, cpu);

		if (ns)
			len += snprintf(line + len, sizeof(line) - len, "%scpu%u %.2fs",
					len ? ", " : "", cpu, ns / 1e9);
	}
	if (len)
		say("sampled: %s", line);
}

static void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static const char *error_text(int err)
{
	switch (err) {
	case -EBADFD:
		return "sampler in the wrong state";
	case -EEXIST:
		return "a sampler already exists";
	default:
		return strerror(-err);
	}
}

/* Run the capture loop until the duration, a signal, or the targets' end. */
static int record_loop(struct capture *cap, const struct record_args *a, struct child *child,
		       bool status_line, int *ret_child_status)
{
	uint64_t start = mono_ns(), next_status = start + STATUS_INTERVAL_NS;
	int err;

	for (;;) {
		uint64_t now;

		err = capture_poll(cap, DRAIN_INTERVAL_MS);
		if (err)
			return err;
		now = mono_ns();
		if (stop_requested)
			break;
		if (a->duration_ns && now - start >= a->duration_ns)
			break;
		if (child->pid > 0) {
			pid_t w = waitpid(child->pid, ret_child_status, WNOHANG);

			if (w == child->pid) {
				child->pid = 0;
				break;
			}
		} else if (a->capture.nr_pids && !any_target_alive(&a->capture)) {
			break;
		}
		if (status_line && now >= next_status) {
			print_status(cap, now - start);
			next_status = now + STATUS_INTERVAL_NS;
		}
	}
	if (status_line)
		fputs("\r\033[K", stderr);
	return 0;
}

static void on_child_exit(int sig)
{
	/* Only the held command is our child: its end ends the capture. */
	stop_requested = 1;
}

/*
 * The summary from the counters in the stream itself, read back from the
 * file: what the file holds, whoever ended the capture. 0, or -ENODATA when
 * the file has no totals (or cannot be read again: a device, a pipe).
 */
static int stream_stats(const char *path, struct capture_stats *ret)
{
	struct idset procs = {0}, threads = {0};
	struct fxt_record rec;
	struct fxt_reader *r;
	bool totals = false;
	int n;

	memset(ret, 0, sizeof(*ret));
	r = fxt_reader__open(path);
	if (!r)
		return -ENODATA;
	while ((n = fxt_reader_next(r, &rec)) > 0) {
		if (rec.type == FXT_RT_KOBJ)
			idset_add(rec.subtype == FXT_OBJ_THREAD ? &threads : &procs, rec.koid);
		if (rec.type != FXT_RT_EVENT || rec.subtype != FXT_EVENT_COUNTER || !rec.name)
			continue;
		if (!strncmp(rec.name, "cpu", 3)) {
			ret->nr_cpus++;
			continue;
		}
		if (strcmp(rec.name, "samples"))
			continue;
		totals = true;
		for (unsigned i = 0; i < rec.nr_args; i++)
			for (unsigned k = 0; k < FXS_CNT_NR; k++)
				if (rec.args[i].name &&
				    !strcmp(rec.args[i].name, capture_counter_name(k)))
					ret->counters.v[k] = rec.args[i].u;
	}
	fxt_reader__free(r);
	ret->processes = procs.len;
	ret->threads = threads.len;
	idset_free(&procs);
	idset_free(&threads);
	return totals ? 0 : -ENODATA;
}

struct daemon_ctx {
	struct child *child;
	const struct capture_opts *opts;
	bool follow_pids; /* -p: the capture ends when every target has */
};

static int daemon_started(void *ctx)
{
	struct daemon_ctx *d = ctx;
	int err;

	if (d->child->pid <= 0)
		return 0;
	err = child_release(d->child);
	if (err)
		say("cannot execute command: %s", strerror(-err));
	return err;
}

static bool daemon_done(void *ctx)
{
	struct daemon_ctx *d = ctx;

	return d->follow_pids && !any_target_alive(d->opts);
}

static void daemon_progress(void *ctx, const struct capture_stats *st, uint64_t elapsed_ns)
{
	fprintf(stderr,
		"\r\033[Kfxsampler: %6.1fs  %llu samples  %llu dropped  %llu threads  %.1f MiB",
		elapsed_ns / 1e9, (unsigned long long)st->counters.v[FXS_CNT_WRITTEN],
		(unsigned long long)dropped(&st->counters), (unsigned long long)st->threads,
		st->bytes / 1048576.0);
}

static void daemon_notice(void *ctx, const char *text)
{
	(void)ctx;
	/* over the status line, which the next progress redraws */
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	say("%s", text);
}

static const char *end_reason_text(uint32_t reason)
{
	switch (reason) {
	case FXS_END_SHUTDOWN:
		return "it is shutting down";
	case FXS_END_LIMIT:
		return "the session reached its max_session_length";
	case FXS_END_STALLED:
		return "this client read nothing for its client_read_timeout";
	default:
		return "no reason given";
	}
}

/*
 * Without the privileges to load BPF (or with --daemon), fxsamplerd captures
 * for us and streams the FXT bytes back; we write the file, never the daemon.
 */
static int record_via_daemon(struct record_args *a, struct out_file *out)
{
	struct child child = {.pid = 0, .go_fd = -1, .err_fd = -1};
	bool status_line = !a->quiet && isatty(STDERR_FILENO);
	struct daemon_ctx ctx = {&child, &a->capture, a->capture.nr_pids > 0};
	struct client_hooks hooks = {
		.started = daemon_started,
		.progress = status_line ? daemon_progress : NULL,
		.notice = daemon_notice,
		.done = daemon_done,
		.ctx = &ctx,
	};
	struct sigaction sa = {.sa_handler = on_child_exit, .sa_flags = SA_RESTART};
	struct client_result res = {0};
	struct capture_stats st;
	char msg[1024] = "";
	int err, child_status = 0;

	if (a->compress) {
		say("-z is not available through fxsamplerd; gzip the file afterwards (dump and "
		    "report read it)");
		out_discard(out);
		return EXIT_USAGE;
	}
	install_signals();
	if (a->cmd) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, NULL);
		err = child_spawn(a->cmd, &child);
		if (err) {
			say("cannot start '%s': %s", a->cmd[0], strerror(-err));
			out_discard(out);
			return EXIT_FAILURE;
		}
		a->capture.pids[0] = child.pid;
		a->capture.nr_pids = 1;
	}
	err = client_record(a->socket, &a->capture, out->f.fd, &stop_requested, a->duration_ns,
			    &hooks, &res, msg, sizeof(msg));
	if (status_line)
		fputs("\r\033[K", stderr);
	if (err) {
		if (!a->use_daemon && strstr(msg, "cannot connect"))
			say("record needs root, or CAP_BPF and CAP_PERFMON, or a running "
			    "fxsamplerd: %s",
			    msg);
		else
			say("%s", msg[0] ? msg : strerror(-err));
		out_discard(out);
		if (child.released) {
			/* the daemon went away mid-capture: the command is the user's, not ours */
			say("'%s' runs on; waiting for it to exit", a->cmd[0]);
			child_wait(&child, NULL);
		} else {
			child_abort(&child);
		}
		return EXIT_FAILURE;
	}
	if (child.released && !res.ended_by_daemon) {
		/* the capture ended first (-d or a signal): the command ends with it */
		if (waitpid(child.pid, &child_status, WNOHANG) == child.pid)
			child.pid = 0;
		else
			child_end(&child, SIGTERM, &child_status);
	}
	out->bytes = res.bytes_written;
	err = out_commit(out);
	if (err) {
		say("cannot complete '%s': %s", a->output, strerror(-err));
		out_discard(out);
		if (child.released)
			child_wait(&child, NULL);
		return EXIT_FAILURE;
	}
	/* the counters the stream ends with; the daemon's when it cannot be read back */
	if (!out->f.direct && !stream_stats(out->f.final, &st))
		print_summary(&st, out_name(out), out->bytes);
	else if (!res.ended_by_daemon)
		print_summary(&res.stats, out_name(out), out->bytes);
	else
		/* no totals were asked for, and the stream went where we cannot reread it */
		say("wrote %s: %llu bytes; the counters are at the end of the stream",
		    out_name(out), (unsigned long long)out->bytes);
	if (res.ended_by_daemon)
		say("fxsamplerd ended the capture early (%s); the file is complete",
		    end_reason_text(res.end_reason));
	if (stop_signal)
		say("stopped by %s", strsignal(stop_signal));
	if (child.released && child.pid > 0) {
		say("'%s' runs on; waiting for it to exit", a->cmd[0]);
		child_wait(&child, &child_status);
	}
	if (a->cmd && WIFEXITED(child_status) && WEXITSTATUS(child_status))
		say("'%s' exited with status %d", a->cmd[0], WEXITSTATUS(child_status));
	return a->cmd ? command_exit(a, child_status) : EXIT_SUCCESS;
}

static int cmd_record(int argc, char **argv)
{
	struct child child = {.pid = 0, .go_fd = -1, .err_fd = -1};
	struct out_file out = {0};
	struct record_args a;
	struct capture *cap = NULL;
	struct capture_stats st;
	int child_status = 0;
	char msg[1024];
	pid_t holder = 0;
	int r, err;

	r = args_parse_record(argc, argv, &a, msg, sizeof(msg));
	if (r == ARGS_HELP) {
		fputs(args_record_usage, stdout);
		return EXIT_SUCCESS;
	}
	if (r == ARGS_VERSION) {
		printf("fxsampler %s\n", FXS_VERSION);
		return EXIT_SUCCESS;
	}
	if (r < 0) {
		say("%s", msg);
		fputs("Try 'fxsampler record --help'.\n", stderr);
		return EXIT_USAGE;
	}
	verbose = a.verbose;
	for (unsigned i = 0; i < a.capture.nr_pids; i++) {
		pid_t tgid = procinfo_tgid(a.capture.pids[i]);
		int kind = tgid < 0 ? tgid : procinfo_kind(tgid);

		/* the state of the host, not the command line: runtime failures */
		if (kind == -ESRCH) {
			say("pid %u: no such process", a.capture.pids[i]);
			return EXIT_FAILURE;
		}
		if (kind == PROCINFO_ZOMBIE) {
			say("pid %u has exited (a zombie its parent has not reaped): nothing to "
			    "sample",
			    a.capture.pids[i]);
			return EXIT_FAILURE;
		}
		if (kind == PROCINFO_KTHREAD) {
			say("pid %u is a kernel thread: fxsampler samples user stacks only",
			    a.capture.pids[i]);
			return EXIT_FAILURE;
		}
		/* A thread id names its process: the filter works on thread groups. */
		a.capture.pids[i] = tgid;
	}
	if (a.cmd) {
		err = find_command(a.cmd[0]);
		if (err) {
			say("cannot execute '%s': %s", a.cmd[0], strerror(-err));
			return EXIT_FAILURE;
		}
	}
	if (out_open(&out, a.output, a.compress, msg, sizeof(msg))) {
		say("%s", msg);
		return EXIT_FAILURE;
	}
	if (a.use_daemon || !can_load_bpf())
		return record_via_daemon(&a, &out);
	err = guard_check_host(a.allow_unsafe_kernel, msg, sizeof(msg));
	if (err) {
		say("%s", msg);
		out_discard(&out);
		return EXIT_FAILURE;
	}
	libbpf_set_print(libbpf_print);
	err = kfeatures_check(msg, sizeof(msg));
	if (err) {
		say("%s", msg);
		out_discard(&out);
		return EXIT_FAILURE;
	}
	install_signals();
	if (a.cmd) {
		err = child_spawn(a.cmd, &child);
		if (err) {
			say("cannot start '%s': %s", a.cmd[0], strerror(-err));
			goto fail;
		}
		a.capture.pids[0] = child.pid;
		a.capture.nr_pids = 1;
	}
	err = capture__new(&a.capture, out_sink, &out, &cap, &holder);
	if (err == -EBUSY) {
		if (holder > 0)
			say("busy: the host's sampler is held by pid %d (fxsamplerd or another "
			    "fxsampler record)",
			    (int)holder);
		else
			say("busy: the host's sampler is held by another process (its pid is not "
			    "known)");
		goto fail;
	}
	if (err == -ESRCH) {
		say("a target process exited before sampling began");
		goto fail;
	}
	if (err && out.err) {
		/* the prologue went to the output at setup: a full disk is the output's */
		say("cannot write '%s': %s", a.output, strerror(-out.err));
		goto fail;
	}
	if (err) {
		say("cannot set up the sampler: %s", error_text(err));
		goto fail;
	}
	err = capture_start(cap);
	if (err) {
		say("cannot start sampling: %s", error_text(err));
		goto fail;
	}
	if (a.cmd) {
		err = child_release(&child);
		if (err) {
			say("cannot execute '%s': %s", a.cmd[0], strerror(-err));
			child_abort(&child);
			capture__free(cap);
			out_discard(&out);
			return EXIT_FAILURE;
		}
	}
	err = record_loop(cap, &a, &child, !a.quiet && isatty(STDERR_FILENO), &child_status);
	if (!err)
		err = capture_stop(cap);
	if (!err)
		err = capture_finish(cap);
	if (err) {
		say("capture failed writing '%s': %s", a.output, strerror(-err));
		goto fail;
	}
	capture_stats(cap, &st);
	print_cpus(cap);
	capture__free(cap);
	cap = NULL;
	err = out_commit(&out);
	if (err) {
		say("cannot complete '%s': %s", a.output, strerror(-err));
		out_discard(&out);
		goto fail;
	}
	if (child.pid > 0)
		/* The capture ended first (-d or a signal): the command ends with it. */
		child_end(&child, SIGTERM, &child_status);
	print_summary(&st, out_name(&out), out.bytes);
	if (stop_signal)
		say("stopped by %s", strsignal(stop_signal));
	if (a.cmd && WIFEXITED(child_status) && WEXITSTATUS(child_status))
		say("'%s' exited with status %d", a.cmd[0], WEXITSTATUS(child_status));
	return a.cmd ? command_exit(&a, child_status) : EXIT_SUCCESS;
fail:
	child_abort(&child);
	capture__free(cap);
	out_discard(&out);
	return EXIT_FAILURE;
}

/* --- dump --- */

static const char dump_usage[] =
	"usage: fxsampler dump FILE\n"
	"\n"
	"Print one line per record of a .fxt (plain or gzip-compressed).\n"
	"A malformed file is rejected with the byte offset and the reason\n"
	"(exit status 1), after the records before it.\n";

static int cmd_dump(int argc, char **argv)
{
	struct fxt_record rec;
	struct fxt_reader *r;
	char line[8192];
	int n;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(dump_usage, stdout);
		return EXIT_SUCCESS;
	}
	if (argc == 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		printf("fxsampler %s\n", FXS_VERSION);
		return EXIT_SUCCESS;
	}
	if (argc != 2 || argv[1][0] == '-') {
		say(argc < 2 ? "dump needs a FILE" : "dump takes one FILE");
		fputs(dump_usage, stderr);
		return EXIT_USAGE;
	}
	r = fxt_reader__open(argv[1]);
	if (!r) {
		say("cannot read '%s': %s", argv[1], strerror(errno));
		return EXIT_FAILURE;
	}
	while ((n = fxt_reader_next(r, &rec)) > 0) {
		fxt_record_format(&rec, line, sizeof(line));
		puts(line);
	}
	if (n < 0)
		say("%s: %s", argv[1], n == -EBADMSG ? fxt_reader_error(r) : strerror(-n));
	fxt_reader__free(r);
	if (fflush(stdout) && n >= 0) {
		say("cannot write the dump: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	return n < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* --- report --- */

static const char report_usage[] =
	"usage: fxsampler report FILE [--top N] [--lines] [--wide] [--folded] [--pprof OUT]\n"
	"                        [--svg OUT] [--svg-inverted] [--perf-script OUT]\n"
	"                        [--merge-threads] [--pid P] [--tid T] [--debug-dir DIR]\n"
	"                        [--no-debuginfod]\n"
	"\n"
	"Symbolize a capture with the ELF files on disk and show where the time went.\n"
	"\n"
	"      --top N        the N functions with the most samples (default 20)\n"
	"      --lines        top: one row per function and source line (file:line)\n"
	"      --wide         top: never cut names to the terminal's width (they are\n"
	"                     never cut when the output is not a terminal)\n"
	"      --folded       folded stacks (a;b;c 42) for flamegraph.pl or speedscope\n"
	"      --pprof OUT    also write a gzipped pprof profile (go tool pprof)\n"
	"      --svg OUT      also write a flame graph to open in a browser (click to\n"
	"                     zoom, Search or Ctrl-F for a regular expression)\n"
	"      --svg-inverted the flame graph as an icicle: the root on top\n"
	"      --perf-script OUT  also write the samples in time order as `perf script`\n"
	"                     prints them (speedscope, Firefox Profiler, Perfetto)\n"
	"      --merge-threads  folded/SVG: one frame per thread name, not name-TID\n"
	"      --pid P        only the samples of process P\n"
	"      --tid T        only the samples of thread T\n"
	"      --debug-dir D  where separate debug files live (default /usr/lib/debug)\n"
	"      --no-debuginfod  never fetch debug files (by default they are fetched\n"
	"                     from DEBUGINFOD_URLS when it is set)\n"
	"      --off-cpu      time off the CPU by stack, in ns (a capture made with\n"
	"                     record --off-cpu), instead of samples\n"
	"      --wall         wall time by stack, in ns: samples times the period plus\n"
	"                     the off-CPU intervals\n"
	"  -h, --help         this text\n";

/* The columns of the terminal on fd: COLUMNS when set, as ls does, else its size, else 80. */
static unsigned terminal_width(int fd)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	uint64_t v;

	if (env && !units_parse_u64(env, &v) && v >= 20 && v <= 100000)
		return (unsigned)v;
	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

static int cmd_report(int argc, char **argv)
{
	enum {
		OPT_TOP = 256,
		OPT_FOLDED,
		OPT_PPROF,
		OPT_SVG,
		OPT_PID,
		OPT_TID,
		OPT_DEBUG_DIR,
		OPT_PERF_SCRIPT,
		OPT_MERGE_THREADS,
		OPT_LINES,
		OPT_NO_DEBUGINFOD,
		OPT_WIDE,
		OPT_SVG_INVERTED,
		OPT_OFF_CPU,
		OPT_WALL,
	};
	static const struct option options[] = {
		{"top", required_argument, NULL, OPT_TOP},
		{"folded", no_argument, NULL, OPT_FOLDED},
		{"pprof", required_argument, NULL, OPT_PPROF},
		{"svg", required_argument, NULL, OPT_SVG},
		{"pid", required_argument, NULL, OPT_PID},
		{"tid", required_argument, NULL, OPT_TID},
		{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
		{"perf-script", required_argument, NULL, OPT_PERF_SCRIPT},
		{"merge-threads", no_argument, NULL, OPT_MERGE_THREADS},
		{"lines", no_argument, NULL, OPT_LINES},
		{"no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD},
		{"wide", no_argument, NULL, OPT_WIDE},
		{"svg-inverted", no_argument, NULL, OPT_SVG_INVERTED},
		{"off-cpu", no_argument, NULL, OPT_OFF_CPU},
		{"wall", no_argument, NULL, OPT_WALL},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct report_opts o = {0};
	bool wide = false;
	char errbuf[512];
	uint64_t v;
	int opt, err;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":hV", options, NULL)) != -1) {
		switch (opt) {
		case OPT_TOP:
			if (units_parse_u64(optarg, &v) || v == 0 || v > 100000) {
				say("invalid --top '%s': a count from 1", optarg);
				return EXIT_USAGE;
			}
			o.top = (unsigned)v;
			break;
		case OPT_FOLDED:
			o.folded = true;
			break;
		case OPT_PPROF:
			o.pprof_path = optarg;
			break;
		case OPT_SVG:
			o.svg_path = optarg;
			break;
		case OPT_PID:
		case OPT_TID:
			if (units_parse_u64(optarg, &v) || v == 0) {
				say("invalid %s '%s'", opt == OPT_PID ? "--pid" : "--tid", optarg);
				return EXIT_USAGE;
			}
			if (opt == OPT_PID) {
				o.has_pid = true;
				o.pid = v;
			} else {
				o.has_tid = true;
				o.tid = v;
			}
			break;
		case OPT_DEBUG_DIR:
			o.debug_dir = optarg;
			break;
		case OPT_PERF_SCRIPT:
			o.perf_script_path = optarg;
			break;
		case OPT_MERGE_THREADS:
			o.merge_threads = true;
			break;
		case OPT_LINES:
			o.lines = true;
			break;
		case OPT_NO_DEBUGINFOD:
			o.no_debuginfod = true;
			break;
		case OPT_WIDE:
			wide = true;
			break;
		case OPT_SVG_INVERTED:
			o.svg_inverted = true;
			break;
		case OPT_OFF_CPU:
		case OPT_WALL:
			if (o.time_mode) {
				say("--off-cpu and --wall exclude each other");
				return EXIT_USAGE;
			}
			o.time_mode = opt == OPT_OFF_CPU ? REPORT_OFFCPU : REPORT_WALL;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf("fxsampler %s\n", FXS_VERSION);
			return EXIT_SUCCESS;
		case ':':
			say("option '%s' needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			say("unknown option '%s'", argv[optind - 1]);
			fputs(report_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		say(optind == argc ? "report needs a FILE" : "report takes one FILE");
		fputs(report_usage, stderr);
		return EXIT_USAGE;
	}
	/* A pipe or a file gets whole names: scripts grep them. */
	if (!wide && isatty(STDOUT_FILENO))
		o.width = terminal_width(STDOUT_FILENO);
	o.errbuf = errbuf;
	o.errbuf_size = sizeof(errbuf);
	o.info = stderr;
	errbuf[0] = '\0';
	err = report_run(argv[optind], &o, stdout);
	if (err) {
		/* report's messages name the file they are about: once is enough */
		if (errbuf[0])
			say("%s", errbuf);
		else
			say("%s: %s", argv[optind], strerror(-err));
		return EXIT_FAILURE;
	}
	if (fflush(stdout)) {
		say("cannot write the report: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* --- status --- */

static const char status_usage[] =
	"usage: fxsampler status [--socket PATH]\n"
	"\n"
	"The host's sampler: fxsamplerd's state, who holds it and its counters, or,\n"
	"without a daemon, whether a local fxsampler record holds it.\n";

static int cmd_status(int argc, char **argv)
{
	const char *socket = NULL;
	pid_t holder;
	char msg[512] = "";
	int err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(status_usage, stdout);
			return EXIT_SUCCESS;
		}
		if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			socket = argv[++i];
			continue;
		}
		say("status: unexpected argument '%s'", argv[i]);
		fputs(status_usage, stderr);
		return EXIT_USAGE;
	}
	err = client_status(socket, stdout, msg, sizeof(msg));
	if (!err)
		return EXIT_SUCCESS;
	printf("fxsamplerd: not reachable (%s)\n", msg[0] ? msg : strerror(-err));
	/* only what the lock says: a holder is named only if the lock names one */
	err = hostlock_probe(HOSTLOCK_PATH, &holder);
	if (!err)
		puts("sampler: free");
	else if (err == -EBUSY && holder > 0)
		printf("sampler: busy, held by pid %d\n", (int)holder);
	else if (err == -EBUSY)
		puts("sampler: busy (the holder is not known)");
	else
		printf("sampler: unknown (cannot read '%s': %s)\n", HOSTLOCK_PATH, strerror(-err));
	return EXIT_SUCCESS;
}

static const char main_usage[] =
	"usage: fxsampler COMMAND [ARGS..]\n"
	"\n"
	"A sampling profiler: eBPF walks user frame pointers on every CPU and the\n"
	"samples are written as a Fuchsia Trace Format (.fxt) file.\n"
	"\n"
	"  record   capture a profile (fxsampler record --help)\n"
	"  report   symbolize a capture: top functions, folded stacks, pprof, SVG\n"
	"  dump     print every record of a .fxt\n"
	"  status   who holds the host's sampler\n"
	"\n"
	"  -h, --help     this text\n"
	"  -V, --version  the version\n"
	"Exit status: 0 success, 1 runtime failure, 2 usage error.\n";

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{"record", cmd_record},
		{"dump", cmd_dump},
		{"report", cmd_report},
		{"status", cmd_status},
	};

	if (argc < 2) {
		fputs(main_usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(main_usage, stdout);
		return EXIT_SUCCESS;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("fxsampler %s\n", FXS_VERSION);
		return EXIT_SUCCESS;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	say("unknown command '%s'", argv[1]);
	fputs(main_usage, stderr);
	return EXIT_USAGE;
}
