// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxsampler record: a capture here when we may load BPF, through fxsamplerd
 * otherwise; the status line and the summary.
 */
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "util/clock.h"
#include "util/idset.h"
#include "cli/args.h"
#include "cli/child.h"
#include "cli/client.h"
#include "cli/commands.h"
#include "cli/record_output.h"
#include "cli/record_unwind.h"
#include "capture/capture.h"
#include "capture/guard.h"
#include "capture/kfeatures.h"
#include "capture/procinfo.h"
#include "fxt/fxt_kstack.h"
#include "fxt/fxt_reader.h"

#define DRAIN_INTERVAL_MS  100
#define STATUS_INTERVAL_NS 250000000ULL

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t stop_signal;

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
	cli_say("off-cpu: %llu intervals written (%llu closed at the stop), %llu shorter than the "
		"minimum; dropped: %llu ring full, %llu no task storage, %llu after stop",
		(unsigned long long)(o[FXS_OC_WRITTEN] + o[FXS_OC_AT_STOP]),
		(unsigned long long)o[FXS_OC_AT_STOP], (unsigned long long)o[FXS_OC_SHORT],
		(unsigned long long)o[FXS_OC_RING_FULL], (unsigned long long)o[FXS_OC_NO_STORAGE],
		(unsigned long long)o[FXS_OC_CLOSED_NOT_RUNNING]);
	/* the stacks taken before their tables were made (bpf/offcpu_rewalk.bpf.h) */
	if (o[FXS_OC_REWALKED] + o[FXS_OC_REWALK_MISSED] + o[FXS_OC_REWALK_NO_HOOK])
		cli_say("off-cpu: %llu stacks walked again once their tables were made, %llu could "
			"not be, %llu not held for it (no hook, or a thread without rseq)",
			(unsigned long long)o[FXS_OC_REWALKED],
			(unsigned long long)o[FXS_OC_REWALK_MISSED],
			(unsigned long long)o[FXS_OC_REWALK_NO_HOOK]);
}

/* The modules the summary names, before the capture goes. */
static void name_cfi_modules(const struct capture *cap)
{
	struct cfi_mod_info mods[256];
	size_t n = capture_cfi_modules(cap, mods, 256);

	for (size_t i = 0; i < n && i < 256; i++)
		record_unwind_module(&mods[i]);
}

/* JIT code named from perf maps: said when a process had code in no file. */
static void print_perfmap_summary(const struct perfmap_stats *p)
{
	uint64_t skipped = 0;

	for (unsigned i = 0; i < PERFMAP_SKIP_NR; i++)
		skipped += p->skipped[i];
	if (!p->maps_read && !skipped)
		return;
	cli_say("perf maps: %llu read, %llu entries written for %llu pcs in no file; %llu skipped "
		"(each told above), %llu processes without one",
		(unsigned long long)p->maps_read, (unsigned long long)p->entries,
		(unsigned long long)p->pcs, (unsigned long long)skipped,
		(unsigned long long)p->maps_absent);
}

static void print_summary(const struct capture_stats *st, const char *path, uint64_t bytes)
{
	char line[512];
	const __u64 *v = st->counters.v;
	uint64_t lost = dropped(&st->counters), taken = v[FXS_CNT_WRITTEN] + lost;

	cli_say("wrote %s: %llu samples of %llu threads in %llu processes on %u cpus, %llu bytes",
		path, (unsigned long long)v[FXS_CNT_WRITTEN], (unsigned long long)st->threads,
		(unsigned long long)st->processes, st->nr_cpus, (unsigned long long)bytes);
	cli_say("dropped: %llu ring full, %llu no user registers, %llu after stop; "
		"skipped: %llu kernel threads, %llu other processes",
		(unsigned long long)v[FXS_CNT_DROP_RING_FULL],
		(unsigned long long)v[FXS_CNT_DROP_NO_REGS],
		(unsigned long long)v[FXS_CNT_DROP_NOT_RUNNING],
		(unsigned long long)v[FXS_CNT_DROP_KTHREAD],
		(unsigned long long)v[FXS_CNT_FILTERED]);
	if (v[FXS_CNT_FILTERED_CREDS])
		cli_say("skipped: %llu samples of targets that were no longer wholly yours",
			(unsigned long long)v[FXS_CNT_FILTERED_CREDS]);
	/* mapping events: what the file holds, and what the kernel reported */
	if (st->maps[FXS_MC_SEEN])
		cli_say("mappings: %llu written (%llu from the kernel, %llu from /proc, %llu from "
			"parents at fork); skipped: %llu of other processes, %llu no longer yours; "
			"dropped: %llu ring full",
			(unsigned long long)(st->maps[FXS_MC_NR] + st->maps[FXS_MC_NR + 1] +
					     st->maps[FXS_MC_NR + 2]),
			(unsigned long long)st->maps[FXS_MC_NR],
			(unsigned long long)st->maps[FXS_MC_NR + 1],
			(unsigned long long)st->maps[FXS_MC_NR + 2],
			(unsigned long long)st->maps[FXS_MC_FILTERED],
			(unsigned long long)st->maps[FXS_MC_FILTERED_CREDS],
			(unsigned long long)st->maps[FXS_MC_RING_FULL]);
	if (st->maps[FXS_MC_NR + 3] || st->maps[FXS_MC_NR + 4])
		cli_say("mappings: %llu dropped over the caps of mappings kept, %llu over the "
			"unwinder's (a process mapping more than it can hold)",
			(unsigned long long)st->maps[FXS_MC_NR + 3],
			(unsigned long long)st->maps[FXS_MC_NR + 4]);
	cli_say("stacks: %llu truncated at --max-frames, %llu ended by a read fault, %llu by a bad "
		"frame pointer",
		(unsigned long long)v[FXS_CNT_STOP_TRUNCATED],
		(unsigned long long)v[FXS_CNT_STOP_FAULT],
		(unsigned long long)v[FXS_CNT_STOP_BAD_FP]);
	if (taken && lost * 100 > taken)
		cli_say("warning: %.1f%% of samples were lost; try a larger --buffer-size or a "
			"lower "
			"-F",
			100.0 * lost / taken);
	print_offcpu_summary(&st->offcpu);
	if (st->kernel_unresolved)
		cli_say("warning: %llu kernel locations left unnamed: /proc/kallsyms gave no "
			"address for them (kptr_restrict, or a module unloaded)",
			(unsigned long long)st->kernel_unresolved);
	record_unwind_print(st);
	print_perfmap_summary(&st->perfmap);
	if (python_summary(st->python, line, sizeof(line)))
		cli_say("%s", line);
}

/* Which CPUs were sampled and for how long (ns by CPU, 0: not): CPUs come and go. */
static void print_cpus(const uint64_t *cpu_ns)
{
	char line[1024];
	size_t len = 0;

	for (unsigned cpu = 0; cpu < FXS_MAX_CPUS && len < sizeof(line) - 64; cpu++) {
		uint64_t ns = cpu_ns[cpu];

		if (ns)
			len += snprintf(line + len, sizeof(line) - len, "%scpu%u %.2fs",
					len ? ", " : "", cpu, ns / 1e9);
	}
	if (len)
		cli_say("sampled: %s", line);
}

/* The capture's warnings (a slow stop) go to stderr, over the status line. */
static void record_warn(void *ctx, const char *text)
{
	(void)ctx;
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	cli_say("warning: %s", text);
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
static int stream_stats(const char *path, struct capture_stats *ret, uint64_t *cpu_ns)
{
	struct idset procs = {0}, threads = {0};
	struct fxt_record rec;
	struct fxt_reader *r;
	bool totals = false;
	int n;

	memset(ret, 0, sizeof(*ret));
	memset(cpu_ns, 0, FXS_MAX_CPUS * sizeof(*cpu_ns));
	r = fxt_reader__open(path);
	if (!r)
		return -ENODATA;
	while ((n = fxt_reader_next(r, &rec)) > 0) {
		if (rec.type == FXT_RT_KOBJ)
			idset_add(rec.subtype == FXT_OBJ_THREAD ? &threads : &procs, rec.koid);
		/* the daemon's stream names what its kallsyms could not: the warning's count */
		if (rec.type == FXT_RT_BLOB && rec.name && !strcmp(rec.name, FXT_KSYMS_BLOB))
			ret->kernel_unresolved += fxt_ksyms_unnamed(rec.blob, rec.blob_len);
		if (rec.type != FXT_RT_EVENT || rec.subtype != FXT_EVENT_COUNTER || !rec.name)
			continue;
		if (!strncmp(rec.name, "cpu", 3)) {
			/* Per-CPU counters: id cpu + 1, with the CPU's sampled time. */
			ret->nr_cpus++;
			for (unsigned i = 0; i < rec.nr_args; i++)
				if (rec.counter_id && rec.counter_id <= FXS_MAX_CPUS &&
				    rec.args[i].name && !strcmp(rec.args[i].name, "sampled_ns"))
					cpu_ns[rec.counter_id - 1] = rec.args[i].u;
			continue;
		}
		if (!strcmp(rec.name, "mmap")) {
			for (unsigned i = 0; i < rec.nr_args; i++)
				for (unsigned k = 0; k < CAPTURE_MAPS_NR; k++)
					if (rec.args[i].name &&
					    !strcmp(rec.args[i].name, capture_mmap_counter_name(k)))
						ret->maps[k] = rec.args[i].u;
			continue;
		}
		for (unsigned i = 0; !strcmp(rec.name, "cfi_fallback") && i < rec.nr_args; i++)
			if (rec.args[i].u)
				ret->cfi_fallback = cfi_fallback_cause(rec.args[i].name);
		if (record_unwind_read(&rec, ret))
			continue;
		for (unsigned i = 0; !strcmp(rec.name, "python") && i < rec.nr_args; i++)
			for (unsigned k = 0; k < PY_CNT_NR; k++)
				if (rec.args[i].name &&
				    !strcmp(rec.args[i].name, python_count_name(k)))
					ret->python[k] = rec.args[i].u;
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
		cli_say("cannot execute command: %s", strerror(-err));
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
	cli_say("%s", text);
}

static const char *end_reason_text(uint32_t reason)
{
	switch (reason) {
	case FXS_END_SHUTDOWN:
		return "it is shutting down";
	case FXS_END_LIMIT:
		return "the session reached its max_session_length (max_root_session_length for "
		       "root)";
	case FXS_END_STALLED:
		return "this client read nothing for its client_read_timeout";
	case FXS_END_PREEMPTED:
		return "it was pre-empted: root took the sampler with record --preempt";
	default:
		return "no reason given";
	}
}

/*
 * The daemon died mid-capture: what it sent up to the last whole record is a
 * valid, partial file, so it is kept (cut there) rather than thrown away. A
 * capture that sent nothing but the magic record leaves no file, as any
 * capture that never started.
 */
static void keep_partial(struct out_file *out, const struct client_result *res)
{
	int err = 0;

	if (res->bytes_whole <= 8) {
		out_discard(out);
		return;
	}
	/* A device or a FIFO has what it has; a file loses the record cut short. */
	if (!out->f.direct && ftruncate(out->f.fd, (off_t)res->bytes_whole))
		err = -errno;
	out->bytes = res->bytes_whole;
	if (!err)
		err = out_commit(out);
	if (err) {
		cli_say("cannot keep the partial capture in '%s': %s", out_name(out),
			strerror(-err));
		out_discard(out);
		return;
	}
	cli_say("the capture is partial: fxsamplerd went away mid-capture; wrote %s: the %llu "
		"bytes of whole records received (of %llu), without the final counters",
		out_name(out), (unsigned long long)res->bytes_whole,
		(unsigned long long)res->bytes_written);
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
	uint64_t cpu_ns[FXS_MAX_CPUS];
	char msg[1024] = "";
	int err, child_status = 0;

	if (a->compress) {
		cli_say("-z is not available through fxsamplerd; gzip the file afterwards (dump "
			"and "
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
			cli_say("cannot start '%s': %s", a->cmd[0], strerror(-err));
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
			cli_say("record needs root, or CAP_BPF and CAP_PERFMON, or a running "
				"fxsamplerd: %s",
				msg);
		else
			cli_say("%s", msg[0] ? msg : strerror(-err));
		if (err == -ECONNRESET)
			keep_partial(out, &res);
		else
			out_discard(out);
		if (child.released) {
			/* the daemon went away mid-capture: the command is the user's, not ours */
			cli_say("'%s' runs on; waiting for it to exit", a->cmd[0]);
			child_wait(&child, &stop_signal, NULL);
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
		cli_say("cannot complete '%s': %s", a->output, strerror(-err));
		out_discard(out);
		if (child.released)
			child_wait(&child, &stop_signal, NULL);
		return EXIT_FAILURE;
	}
	/* the counters the stream ends with; the daemon's when it cannot be read back */
	if (!out->f.direct && !stream_stats(out->f.final, &st, cpu_ns)) {
		print_summary(&st, out_name(out), out->bytes);
		print_cpus(cpu_ns);
	} else if (!res.ended_by_daemon)
		print_summary(&res.stats, out_name(out), out->bytes);
	else
		/* no totals were asked for, and the stream went where we cannot reread it */
		cli_say("wrote %s: %llu bytes; the counters are at the end of the stream",
			out_name(out), (unsigned long long)out->bytes);
	if (res.ended_by_daemon)
		cli_say("fxsamplerd ended the capture early (%s); the file is complete",
			end_reason_text(res.end_reason));
	if (stop_signal)
		cli_say("stopped by %s", strsignal(stop_signal));
	if (child.released && child.pid > 0) {
		cli_say("'%s' runs on; waiting for it to exit", a->cmd[0]);
		child_wait(&child, &stop_signal, &child_status);
	}
	if (a->cmd && WIFEXITED(child_status) && WEXITSTATUS(child_status))
		cli_say("'%s' exited with status %d", a->cmd[0], WEXITSTATUS(child_status));
	return a->cmd ? command_exit(a, child_status) : EXIT_SUCCESS;
}

int cmd_record(int argc, char **argv)
{
	struct child child = {.pid = 0, .go_fd = -1, .err_fd = -1};
	struct out_file out = {0};
	struct record_args a;
	struct capture *cap = NULL;
	struct capture_stats st;
	uint64_t cpu_ns[FXS_MAX_CPUS];
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
		cli_say("%s", msg);
		fputs("Try 'fxsampler record --help'.\n", stderr);
		return EXIT_USAGE;
	}
	verbose = a.verbose;
	if (a.capture.preempt && geteuid() != 0) {
		/* the daemon refuses it too; say so before anything runs */
		cli_say("--preempt is root's: only root may end another user's session");
		return EXIT_USAGE;
	}
	if (a.capture.proc_maps_only && (a.use_daemon || !can_load_bpf())) {
		/* the daemon's sessions always take mappings from the kernel */
		cli_say("--no-mmap-events is for a capture of its own, as root without --daemon");
		return EXIT_USAGE;
	}
	for (unsigned i = 0; i < a.capture.nr_pids; i++) {
		pid_t tgid = procinfo_tgid(a.capture.pids[i]);
		int kind = tgid < 0 ? tgid : procinfo_kind(tgid);

		/* the state of the host, not the command line: runtime failures */
		if (kind == -ESRCH) {
			cli_say("pid %u: no such process", a.capture.pids[i]);
			return EXIT_FAILURE;
		}
		if (kind == PROCINFO_ZOMBIE) {
			cli_say("pid %u has exited (a zombie its parent has not reaped): nothing "
				"to "
				"sample",
				a.capture.pids[i]);
			return EXIT_FAILURE;
		}
		if (kind == PROCINFO_KTHREAD) {
			cli_say("pid %u is a kernel thread: fxsampler samples user stacks only",
				a.capture.pids[i]);
			return EXIT_FAILURE;
		}
		/* A thread id names its process: the filter works on thread groups. */
		a.capture.pids[i] = tgid;
	}
	if (a.cmd) {
		err = child_find_command(a.cmd[0]);
		if (err) {
			cli_say("cannot execute '%s': %s", a.cmd[0], strerror(-err));
			return EXIT_FAILURE;
		}
	}
	if (out_open(&out, a.output, a.compress, msg, sizeof(msg))) {
		cli_say("%s", msg);
		return EXIT_FAILURE;
	}
	if (a.use_daemon || !can_load_bpf())
		return record_via_daemon(&a, &out);
	err = guard_check_host(a.allow_unsafe_kernel, msg, sizeof(msg));
	if (err) {
		cli_say("%s", msg);
		out_discard(&out);
		return EXIT_FAILURE;
	}
	libbpf_set_print(libbpf_print);
	err = kfeatures_check(msg, sizeof(msg));
	if (err) {
		cli_say("%s", msg);
		out_discard(&out);
		return EXIT_FAILURE;
	}
	install_signals();
	if (a.cmd) {
		err = child_spawn(a.cmd, &child);
		if (err) {
			cli_say("cannot start '%s': %s", a.cmd[0], strerror(-err));
			goto fail;
		}
		a.capture.pids[0] = child.pid;
		a.capture.nr_pids = 1;
	}
	a.capture.warn = record_warn;
	err = capture__new(&a.capture, out_sink, &out, &cap, &holder);
	if (err == -EBUSY) {
		if (holder > 0)
			cli_say("busy: the host's sampler is held by pid %d (fxsamplerd or another "
				"fxsampler record)",
				(int)holder);
		else
			cli_say("busy: the host's sampler is held by another process (its pid is "
				"not "
				"known)");
		goto fail;
	}
	if (err == -ESRCH) {
		cli_say("a target process exited before sampling began");
		goto fail;
	}
	if (err == -EOPNOTSUPP && a.capture.unwind == FXS_UNWIND_CFI) {
		cli_say("--unwind=cfi: the CFI walker does not load on this kernel: %s; auto or fp "
			"work here",
			cfi_fallback_text(bpf_sampler_cfi_cause()));
		goto fail;
	}
	if (err && out.err) {
		/* the prologue went to the output at setup: a full disk is the output's */
		cli_say("cannot write '%s': %s", a.output, strerror(-out.err));
		goto fail;
	}
	if (err) {
		cli_say("cannot set up the sampler: %s", error_text(err));
		goto fail;
	}
	err = capture_start(cap);
	if (err) {
		cli_say("cannot start sampling: %s", error_text(err));
		goto fail;
	}
	if (a.cmd) {
		err = child_release(&child);
		if (err) {
			cli_say("cannot execute '%s': %s", a.cmd[0], strerror(-err));
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
		cli_say("capture failed writing '%s': %s", a.output, strerror(-err));
		goto fail;
	}
	capture_stats(cap, &st);
	name_cfi_modules(cap);
	for (unsigned cpu = 0; cpu < FXS_MAX_CPUS; cpu++)
		cpu_ns[cpu] = capture_cpu_ns(cap, cpu);
	print_cpus(cpu_ns);
	capture__free(cap);
	cap = NULL;
	err = out_commit(&out);
	if (err) {
		cli_say("cannot complete '%s': %s", a.output, strerror(-err));
		out_discard(&out);
		goto fail;
	}
	if (child.pid > 0)
		/* The capture ended first (-d or a signal): the command ends with it. */
		child_end(&child, SIGTERM, &child_status);
	print_summary(&st, out_name(&out), out.bytes);
	if (stop_signal)
		cli_say("stopped by %s", strsignal(stop_signal));
	if (a.cmd && WIFEXITED(child_status) && WEXITSTATUS(child_status))
		cli_say("'%s' exited with status %d", a.cmd[0], WEXITSTATUS(child_status));
	return a.cmd ? command_exit(&a, child_status) : EXIT_SUCCESS;
fail:
	child_abort(&child);
	capture__free(cap);
	out_discard(&out);
	return EXIT_FAILURE;
}
