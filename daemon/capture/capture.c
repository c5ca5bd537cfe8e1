// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "capture/bpf_sampler.h"
#include "capture/capture.h"
#include "capture/capture_internal.h"
#include "capture/hostlock.h"
#include "capture/kstacks.h"
#include "util/idset.h"
#include "capture/lifecycle.h"
#include "capture/modules.h"
#include "capture/targets.h"
#include "capture/thread_names.h"

/* FXT's thread states are coarser than Linux's: blocked covers S and D. */
static unsigned fxt_thread_state(unsigned state)
{
	switch (state) {
	case FXS_OFF_RUNNABLE:
		return FXT_THREAD_RUNNING;
	case FXS_OFF_STOPPED:
		return FXT_THREAD_SUSPENDED;
	default:
		return FXT_THREAD_BLOCKED;
	}
}

/* The backtrace record's flags for how s's stack was walked. */
static unsigned sample_bt_flags(const struct fxs_sample *s)
{
	return FXT_BT_CPU(s->cpu) | (s->flags & FXS_SF_TRUNCATED ? FXT_BT_FLAG_TRUNCATED : 0) |
	       (s->flags & FXS_SF_PC_IS_RETURN ? FXT_BT_FLAG_PC_IS_RETURN : 0) |
	       (s->unwind_end & FXS_UE_FP_FALLBACK ? FXT_BT_FLAG_FP_FALLBACK : 0);
}

/* The kernel frames of a backtrace, written right before it (fxt/fxt_kstack.h). */
static int write_kstack(struct capture *c, const struct fxs_sample *s, const uint64_t *kframes,
			bool first_exact)
{
	if (!c->kstacks || !s->nr_kframes)
		return 0;
	return kstacks_write_stack(c->kstacks, c->fxt, s->time_ns, s->tid, kframes, s->nr_kframes,
				   first_exact);
}

/*
 * The pcs of s in no ELF file (JIT code, anonymous memory): kept for the
 * process's perf map, read at its end (lang/perfmap_capture.h). The process
 * is followed at its first such pc, while it is alive and still the client's.
 */
static int note_jit_pcs(struct capture *c, const struct fxs_sample *s, const uint64_t *frames,
			unsigned bt_flags)
{
	const char *dir;
	char buf[64], proc[32];
	int err = 0;

	for (unsigned i = 0; !err && i < s->nr_frames; i++) {
		bool is_return = i > 0 || (bt_flags & FXT_BT_FLAG_PC_IS_RETURN);

		if (modules_in_file(c->modules, (pid_t)s->pid, frames[i]))
			continue;
		if (!perfmap_capture_follows(c->perfmap, (pid_t)s->pid)) {
			err = capture_enter(c, s->pid, s->time_ns, buf, sizeof(buf), &dir);
			if (!err) {
				snprintf(proc, sizeof(proc), "/proc/%u", (unsigned)s->pid);
				err = perfmap_capture_follow(c->perfmap, (pid_t)s->pid,
							     dir ? dir : proc);
			}
			capture_leave(c);
			if (err == -EACCES || err == -ESRCH)
				return 0;
		}
		if (!err)
			err = perfmap_capture_note(c->perfmap, (pid_t)s->pid,
						   frames[i] - is_return);
	}
	return err;
}

/* A skipped perf map: told to the client (through the daemon) or as a warning. */
static void perfmap_tell(void *ctx, uint32_t pid, const char *text)
{
	struct capture *c = ctx;

	if (c->opts.notice)
		c->opts.notice(c->opts.notice_ctx, pid, text);
	else if (c->opts.warn)
		c->opts.warn(c->opts.warn_ctx, text);
}

/*
 * An off-CPU interval: the thread leaves its CPU to idle at the start and
 * comes back from idle at the end (the two context switches Perfetto turns
 * into thread states), then the stack it blocked in, stamped with the start.
 */
static int on_offcpu(struct capture *c, const struct fxs_sample *s, size_t size)
{
	const struct fxs_offcpu *iv = (const void *)(s + 1);
	const struct fxs_comm *comm = (const void *)(iv + 1);
	const uint64_t *frames = (const void *)(comm + 1);
	unsigned bt_flags = FXT_BT_FLAG_OFFCPU, state = iv->state;
	int err;

	if (size <
	    sizeof(*s) + sizeof(*iv) + sizeof(*comm) + ((size_t)s->nr_frames + s->nr_kframes) * 8)
		return 0;
	if (state >= FXS_OFF_NR_STATES)
		state = FXS_OFF_OTHER;
	if (c->targets && targets_denied(c->targets, s->pid)) {
		c->offcpu_creds_dropped++;
		return 0;
	}
	/* Every interval carries the names as they were at its end: a rename while it waited. */
	err = capture_note_thread(c, s, comm, iv->end_ns);
	if (!err)
		err = capture_emit_maps(c, s->pid, s->time_ns);
	if (!err)
		err = capture_refresh_uncovered(c, s->pid, s->time_ns, frames, s->nr_frames);
	if (err == -EACCES) {
		c->offcpu_creds_dropped++;
		return 0;
	}
	if (!err)
		err = fxt_stream_context_switch(c->fxt, s->time_ns, s->cpu, fxt_thread_state(state),
						s->tid, 0, 0);
	if (!err)
		err = fxt_stream_context_switch(c->fxt, iv->end_ns, iv->end_cpu, FXT_THREAD_RUNNING,
						0, s->tid, 1);
	if (!err && s->nr_frames) {
		size_t end = (size_t)((const char *)(frames + s->nr_frames + s->nr_kframes) -
				      (const char *)s);

		bt_flags |= state << FXT_BT_OFFCPU_STATE_SHIFT | sample_bt_flags(s);
		/* A Python process's frames where it blocked trail the record. */
		if (c->py && size > end)
			err = python_capture_sample(c->py, c->fxt, s->time_ns, s->pid, s->tid,
						    (const char *)s + end, size - end);
		if (!err)
			err = write_kstack(c, s, frames + s->nr_frames, false);
		if (!err)
			err = fxt_stream_backtrace(c->fxt, s->time_ns, s->pid, s->tid, bt_flags,
						   frames, s->nr_frames);
		if (!err)
			err = note_jit_pcs(c, s, frames, bt_flags);
		if (!err && c->cfi)
			cfi_capture_count(c->cfi, s);
	}
	if (iv->end_ns > c->last_ts)
		c->last_ts = iv->end_ns;
	if (err && !c->err)
		c->err = err;
	return err;
}

/* The stop waits for writes the BPF program has begun: a wait that long means a stuck one. */
static void on_slow_stop(void *ctx, uint64_t waited_ns, uint32_t in_flight)
{
	struct capture *c = ctx;
	char text[160];

	if (!c->opts.warn)
		return;
	snprintf(text, sizeof(text),
		 "the stop has waited %llu s for %u sample write%s still in flight; it waits on",
		 (unsigned long long)(waited_ns / 1000000000ULL), in_flight,
		 in_flight == 1 ? "" : "s");
	c->opts.warn(c->opts.warn_ctx, text);
}

/* An executable mapping, reported by the kernel as it was made (bpf/mmap.bpf.h). */
static int on_mmap(struct capture *c, const struct fxs_sample *s, size_t size)
{
	const struct fxs_mmap *mm = (const void *)(s + 1);
	const char *path = (const char *)(mm + 1);
	struct modules_event ev;
	const char *dir;
	char buf[64], proc[32];
	int err;

	if (size < sizeof(*s) + sizeof(*mm) || !mm->path_len ||
	    size < sizeof(*s) + sizeof(*mm) + mm->path_len || path[mm->path_len - 1])
		return 0;
	/* the kernel filters on the target set; this one left it at a /proc read */
	if (c->targets && targets_denied(c->targets, s->pid)) {
		c->mmap_creds_dropped++;
		return 0;
	}
	ev = (struct modules_event){
		.start = mm->start,
		.len = mm->len,
		.pgoff = mm->pgoff,
		.ino = mm->ino,
		.maj = mm->maj,
		.min = mm->min,
		.prot = mm->prot,
		.flags = mm->flags,
		.build_id = mm->build_id,
		.build_id_len = mm->build_id_size <= FXS_BUILD_ID_MAX ? mm->build_id_size : 0,
		.path = path,
	};
	/*
	 * The file through the process's map_files where we may (root, and the
	 * target set's own checks): a chrooted or containerized process's path
	 * names another file, or none, in our root.
	 */
	/*
	 * Only a real file's path: "//anon" (a shared anonymous mapping, as the
	 * JVM's code cache) and a memfd open there too, as memory with no ELF,
	 * and their code is JIT code for the perf map, not a module's.
	 */
	if (path[0] != '/' || path[1] == '/' || !strncmp(path, "/memfd:", 7) ||
	    !strncmp(path, "/dev/zero", 9)) {
		ev.dir = NULL;
		err = modules_add_event(c->modules, c->fxt, s->time_ns, s->pid, &ev);
		goto added;
	}
	err = capture_enter(c, s->pid, s->time_ns, buf, sizeof(buf), &dir);
	if (!err && !dir) {
		snprintf(proc, sizeof(proc), "/proc/%u", (unsigned)s->pid);
		dir = proc;
	}
	ev.dir = err ? NULL : dir;
	err = modules_add_event(c->modules, c->fxt, s->time_ns, s->pid, &ev);
	capture_leave(c);
added:
	if (err == -EINVAL)
		return 0;
	if (err > 0)
		c->maps_from_events++;
	err = err < 0 ? err : 0;
	if (s->time_ns > c->last_ts)
		c->last_ts = s->time_ns;
	if (err && !c->err)
		c->err = err;
	return err;
}

/*
 * A child has its parent's mappings and gets no event for them: they are
 * kept for it at the fork, and written at its first sample. A parent running since before the
 * capture, and not read yet, is read first.
 */
static int on_fork(struct capture *c, const struct fxs_sample *s, size_t size)
{
	const struct fxs_fork *f = (const void *)(s + 1);
	const char *dir;
	char buf[64];
	int err = 0, n;

	if (size < sizeof(*s) + sizeof(*f))
		return 0;
	/* a new process on a pid followed for its perf map: the earlier one is gone */
	err = perfmap_capture_flush(c->perfmap, c->fxt, (pid_t)s->pid);
	if (err) {
		c->err = c->err ? c->err : err;
		return err;
	}
	/* without mapping events (the kernel refused them) /proc is read as before */
	if (!c->mmap_events)
		return 0;
	if (c->targets && targets_denied(c->targets, f->ppid)) {
		/* the kernel may have given the child the parent's ranges: they go */
		err = c->cfi ? cfi_capture_fork(c->cfi, f->ppid, s->pid, false) : 0;
		if (err && !c->err)
			c->err = err;
		return err;
	}
	if (!modules_known(c->modules, f->ppid)) {
		err = capture_enter(c, f->ppid, s->time_ns, buf, sizeof(buf), &dir);
		if (!err && capture_needs_proc_maps(c, f->ppid, dir, true, false))
			err = capture_scan_maps(c, s->time_ns, f->ppid, dir);
		else if (err == -EACCES || err == -ESRCH)
			err = 0;
		capture_leave(c);
	}
	n = err ? err : modules_fork(c->modules, f->ppid, s->pid);
	err = n < 0 ? n : 0;
	/*
	 * The kernel gave the child the parent's ranges at the fork (it walks by
	 * them from its first sample): now its own copy, as the parent's were then.
	 */
	if (!err && c->cfi)
		err = cfi_capture_fork(c->cfi, f->ppid, s->pid, true);
	if (err && !c->err)
		c->err = err;
	return err;
}

/*
 * A sample as it leaves its ring: a Python process's code objects are read
 * now, while it lives; the sample itself waits for its turn (on_sample()).
 */
static int on_arrival(void *ctx, const struct fxs_sample *s, size_t size)
{
	struct capture *c = ctx;
	size_t end = sizeof(*s) + ((size_t)s->nr_frames + s->nr_kframes) * sizeof(uint64_t);

	if (!c->py || s->kind != FXS_KIND_SAMPLE || (s->flags & (FXS_SF_OFFCPU | FXS_SF_LEFT)) ||
	    (c->targets && targets_denied(c->targets, s->pid)))
		return 0;
	end += s->flags & FXS_SF_HAS_COMM ? sizeof(struct fxs_comm) : 0;
	return size > end
		       ? python_capture_prefetch(c->py, s->pid, (const char *)s + end, size - end)
		       : 0;
}

static int on_sample(void *ctx, const struct fxs_sample *s, size_t size)
{
	struct capture *c = ctx;
	const struct fxs_comm *comm = NULL;
	size_t need = sizeof(*s) + ((size_t)s->nr_frames + s->nr_kframes) * sizeof(uint64_t);
	unsigned bt_flags = 0;
	int err;

	if (s->kind == FXS_KIND_MMAP)
		return on_mmap(c, s, size);
	if (s->kind == FXS_KIND_FORK)
		return on_fork(c, s, size);
	if (s->kind == FXS_KIND_EXEC) {
		/*
		 * The mappings from before go at the exec record (issue 40): the
		 * walker's then too, replayed from the new image's.
		 */
		modules_exec_begin(c->modules, s->pid);
		return 0;
	}
	if (s->kind != FXS_KIND_SAMPLE)
		return 0;
	if (s->flags & FXS_SF_OFFCPU)
		return on_offcpu(c, s, size);
	if (s->flags & FXS_SF_HAS_COMM) {
		if (size < need + sizeof(*comm))
			return 0;
		comm = (const void *)((const char *)s + need);
	}
	if (size < need)
		return 0;
	if (s->flags & FXS_SF_LEFT) {
		/* the kernel took it out at an exec that changed its credentials */
		if (c->targets && targets_deny(c->targets, s->pid))
			capture_target_left(c, s->pid, (int)s->left_reason);
		return 0;
	}
	if (c->targets && targets_denied(c->targets, s->pid)) {
		if (!(s->flags & FXS_SF_EXEC) && s->nr_frames)
			capture_drop_for_creds(c, s);
		return 0;
	}
	if (s->flags & FXS_SF_EXEC) {
		/* the old image's JIT code is gone: its map is read now */
		err = perfmap_capture_flush(c->perfmap, c->fxt, (pid_t)s->pid);
		if (err)
			return err;
		if (c->py)
			python_capture_forget(c->py, s->pid);
		/* the new image's mappings came before this record; the copies are stale */
		if (c->mmap_events) {
			modules_exec(c->modules, s->pid);
			if (c->py && !c->cfi) {
				err = modules_replay(c->modules, s->pid);
				if (err)
					return err;
			}
			/*
			 * The kernel's walker dropped the process at the exec: it gets
			 * the new image's mappings, which came before this record.
			 */
			if (c->cfi) {
				cfi_capture_forget(c->cfi, s->pid);
				err = modules_replay(c->modules, s->pid);
				if (err)
					return err;
			}
		}
		err = comm ? capture_note_thread(c, s, comm, s->time_ns) : 0;
		return err == -EACCES ? 0 : err;
	}
	if (s->nr_frames == 0)
		return 0;
	err = capture_note_thread(c, s, comm, s->time_ns);
	if (!err)
		err = capture_emit_maps(c, s->pid, s->time_ns);
	if (!err)
		err = capture_refresh_uncovered(c, s->pid, s->time_ns, (const uint64_t *)(s + 1),
						s->nr_frames);
	if (err == -EACCES) {
		capture_drop_for_creds(c, s);
		return 0;
	}
	/* A Python process's frames trail the record: the Python section. */
	if (!err && c->py) {
		size_t end = need + (comm ? sizeof(*comm) : 0);

		if (size > end)
			err = python_capture_sample(c->py, c->fxt, s->time_ns, s->pid, s->tid,
						    (const char *)s + end, size - end);
	}
	if (!err) {
		bt_flags |= sample_bt_flags(s);
		/* The sample's kernel frame 0 is where the timer interrupted it. */
		err = write_kstack(c, s, (const uint64_t *)(s + 1) + s->nr_frames, true);
		if (!err)
			err = fxt_stream_backtrace(c->fxt, s->time_ns, s->pid, s->tid, bt_flags,
						   (const uint64_t *)(s + 1), s->nr_frames);
		if (!err)
			err = note_jit_pcs(c, s, (const uint64_t *)(s + 1), bt_flags);
		if (!err && c->cfi)
			cfi_capture_count(c->cfi, s);
	}
	if (s->time_ns > c->last_ts)
		c->last_ts = s->time_ns;
	if (err && !c->err)
		c->err = err;
	/* A failing sink stops the drain: the caller sees the error. */
	return err;
}

static int check_opts(const struct capture_opts *o)
{
	struct sampler_config cfg = {
		.period_ns = o->period_ns,
		.freq_hz = o->freq_hz,
		.buffer_size = o->buffer_size,
		.max_frames = o->max_frames,
	};

	if (o->nr_pids > CAPTURE_MAX_PIDS || (o->check_creds && !o->nr_pids))
		return -EINVAL;
	return sampler_config_check(&cfg);
}

/*
 * With off-CPU intervals, report --wall weighs each sample by the sampling
 * period: say it ahead of the samples, in a counter event "config".
 */
static int write_config(struct capture *c)
{
	static const char *const names[] = {"period_ns", "offcpu_min_ns"};
	uint64_t values[2] = {
		c->opts.period_ns ? c->opts.period_ns : 1000000000ULL / c->opts.freq_hz,
		c->opts.offcpu_min_ns,
	};
	unsigned fallback = bpf_sampler_cfi_fallback(c->bpf);
	int err = 0;

	if (c->opts.offcpu)
		err = fxt_stream_counter(c->fxt, 0, 0, 0, "fxsampler", "config", 0, names, values,
					 2);
	/* auto on a kernel that refused the CFI walker: said once, and in the file */
	if (!err && fallback)
		err = cfi_capture_write_fallback(c->fxt, fallback, c->opts.warn, c->opts.warn_ctx);
	return err;
}

int capture__new(const struct capture_opts *opts, fxt_sink_fn sink, void *sink_ctx,
		 struct capture **ret, pid_t *ret_holder)
{
	struct sampler_config cfg = {
		.period_ns = opts->period_ns,
		.freq_hz = opts->freq_hz,
		.buffer_size = opts->buffer_size,
		.max_frames = opts->max_frames,
	};
	struct bpf_sampler_opts bopts = {0};
	const char *py_off = NULL, *rewalk_off = NULL;
	struct capture *c;
	char line[256];
	int err;

	err = check_opts(opts);
	if (err)
		return err;
	for (unsigned i = 0; i < opts->nr_pids; i++)
		if (kill(opts->pids[i], 0) && errno == ESRCH)
			return -ESRCH;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->opts = *opts;
	c->lock_fd = -1;
	err = hostlock_acquire(HOSTLOCK_PATH, &c->lock_fd, ret_holder);
	if (err)
		goto fail;
	bopts.pids = c->opts.pids;
	bopts.nr_pids = c->opts.nr_pids;
	bopts.inherit = c->opts.inherit;
	bopts.simple_walk = c->opts.simple_walk;
	bopts.check_creds = c->opts.check_creds;
	bopts.uid = c->opts.uid;
	bopts.caps = c->opts.caps;
	bopts.offcpu = c->opts.offcpu;
	bopts.offcpu_min_ns = c->opts.offcpu_min_ns;
	bopts.kernel = c->opts.kernel;
	bopts.python = c->opts.python;
	bopts.mmap_events = !c->opts.proc_maps_only;
	bopts.unwind = c->opts.unwind;
	bopts.cfi_cap_bytes =
		c->opts.cfi_cap_bytes ? c->opts.cfi_cap_bytes : cfi_capture_default_memory();
	bopts.on_sample = on_sample;
	bopts.on_arrival = on_arrival;
	bopts.on_slow_stop = on_slow_stop;
	bopts.ctx = c;
	c->modules = modules__new(NULL);
	c->perfmap = perfmap_capture__new(perfmap_tell, c);
	if (!c->modules || !c->perfmap) {
		err = -ENOMEM;
		goto fail;
	}
	if (opts->nr_pids) {
		c->targets = targets__new(opts->check_creds, opts->uid, opts->caps);
		if (!c->targets) {
			err = -errno;
			goto fail;
		}
	}
	/*
	 * Hold every target by a pidfd before the kernel filters on its pid:
	 * from here on its exit is seen, and the check below is of the
	 * process that pidfd holds.
	 */
	for (unsigned i = 0; i < opts->nr_pids; i++) {
		char dir[64];
		int why;

		err = targets_enter(c->targets, (pid_t)opts->pids[i], 0, dir, sizeof(dir), &why);
		targets_leave(c->targets);
		if (err == -EACCES || err == -ESRCH)
			goto fail;
		/* a root session does without a pidfd it cannot have */
		if (err && opts->check_creds)
			goto fail;
	}
	c->bpf = bpf_sampler__new(&bopts);
	if (!c->bpf) {
		err = -errno;
		goto fail;
	}
	sampler_init(&c->sampler, &bpf_sampler_ops, c->bpf);
	err = sampler_setup(&c->sampler, &cfg);
	if (err)
		goto fail;
	c->mmap_events = bpf_sampler_mmap_events(c->bpf);
	/* with events, a process's mappings go out at its first sample */
	if (c->mmap_events)
		modules_keep_until_sampled(c->modules);
	if (opts->unwind != FXS_UNWIND_FP) {
		c->cfi = cfi_capture__new(c->bpf, c->modules);
		/* ENOENT: auto on a kernel without the CFI walker walks by frame pointers */
		if (!c->cfi && errno != ENOENT) {
			err = -errno;
			goto fail;
		}
	}
	if (!bpf_sampler_offcpu_rewalk(c->bpf, &rewalk_off) && rewalk_off && opts->warn) {
		snprintf(line, sizeof(line),
			 "off-cpu: %s: a stack taken before its tables were made is not walked "
			 "again",
			 rewalk_off);
		opts->warn(opts->warn_ctx, line);
	}
	if (opts->python && !bpf_sampler_python(c->bpf, &py_off) && py_off && opts->warn) {
		snprintf(line, sizeof(line), "python: %s: native frames only", py_off);
		opts->warn(opts->warn_ctx, line);
	}
	if (opts->python && bpf_sampler_python(c->bpf, NULL)) {
		c->py = python_capture__new(c->bpf, c->modules, opts->warn, opts->warn_ctx);
		if (!c->py) {
			err = -errno;
			goto fail;
		}
	}
	c->fxt = fxt_stream__new(sink, sink_ctx, "fxsampler", 1000000000ULL);
	if (!c->fxt) {
		err = -errno;
		goto fail;
	}
	fxt_stream_set_budget(c->fxt, opts->max_bytes);
	err = write_config(c);
	if (!err && opts->kernel) {
		c->kstacks = kstacks__new(NULL);
		err = c->kstacks ? kstacks_write_kernel(c->kstacks, c->fxt) : -ENOMEM;
	}
	if (!err)
		err = fxt_stream_flush(c->fxt);
	if (err)
		goto fail;
	*ret = c;
	return 0;
fail:
	capture__free(c);
	return err;
}

int capture_start(struct capture *c)
{
	c->start_boot_ns = clock_ns(CLOCK_BOOTTIME);
	c->start_real_ns = clock_ns(CLOCK_REALTIME);
	return sampler_start(&c->sampler);
}

/*
 * When the capture ran, for readers that want wall-clock time (pprof's
 * time_nanos) and its length: the start by both clocks, the stop by the
 * samples' clock.
 */
static int write_clock(struct capture *c)
{
	static const char *const names[] = {"start_boottime_ns", "start_realtime_ns",
					    "stop_boottime_ns"};
	uint64_t values[3] = {c->start_boot_ns, c->start_real_ns, clock_ns(CLOCK_BOOTTIME)};

	if (!c->start_boot_ns)
		return 0;
	return fxt_stream_instant(c->fxt, values[2], 0, 0, "fxsampler", FXT_CLOCK_EVENT, names,
				  values, 3);
}

/*
 * While tables are queued, the next drain comes within TABLES_MS: each one
 * hands the workers the next tables (CFI_TABLES_MAX_STARTED at most) and
 * takes those made, and a new program's stacks wait for them.
 */
#define TABLES_MS 10
static int drain_within(const struct capture *c, int within_ms)
{
	if (c->cfi && cfi_capture_pending(c->cfi) && (within_ms < 0 || within_ms > TABLES_MS))
		return TABLES_MS;
	return within_ms;
}

int capture_poll(struct capture *c, int timeout_ms)
{
	int err = bpf_sampler_wait(c->bpf, drain_within(c, timeout_ms));

	if (err < 0 && err != -EINTR)
		return err;
	/* CPUs come and go: Fuchsia's sampler_percpu_init and _shutdown. */
	if (sampler_state(&c->sampler) == FXS_ST_RUNNING) {
		err = bpf_sampler_follow_cpus(c->bpf);
		if (err < 0)
			return err;
	}
	err = sampler_read(&c->sampler);
	/* Between drains: the tables of the modules the drain found. */
	if (c->cfi && !c->err && err >= 0)
		err = cfi_capture_work(c->cfi, c->last_ts);
	if (c->targets) {
		pid_t gone[64];
		size_t n;

		/* An exited target's pid may be reused: it is a target no more. */
		do {
			n = targets_reap(c->targets, gone, 64);
			for (size_t i = 0; i < n; i++) {
				int e;

				bpf_sampler_untarget(c->bpf, (uint32_t)gone[i], true);
				/* it exited: its map is complete (the JDK writes it at its exit) */
				e = perfmap_capture_flush(c->perfmap, c->fxt, gone[i]);
				if (e && !c->err)
					c->err = e;
				if (c->cfi)
					cfi_capture_forget(c->cfi, gone[i]);
				if (c->py)
					python_capture_forget(c->py, gone[i]);
				e = capture_target_exited(c, gone[i]);
				if (e && !c->err)
					c->err = e;
			}
		} while (n == 64);
		capture_forget_exited(c);
	} else if (!c->err && clock_ns(CLOCK_MONOTONIC) >= c->perfmap_reap_ns) {
		/* host-wide, no pidfd tells of an exit: a map is read soon after it */
		c->perfmap_reap_ns = clock_ns(CLOCK_MONOTONIC) + PERFMAP_REAP_NS;
		c->err = perfmap_capture_reap(c->perfmap, c->fxt, PERFMAP_REAP_PROCS);
	}
	if (c->err)
		return c->err;
	if (err < 0)
		return err;
	return fxt_stream_flush(c->fxt);
}

int capture_wake_fd(const struct capture *c)
{
	return bpf_sampler_wake_fd(c->bpf);
}

int capture_next_drain_ms(const struct capture *c, int within_ms)
{
	return bpf_sampler_next_drain_ms(c->bpf, drain_within(c, within_ms));
}

int capture_stop(struct capture *c)
{
	int err = sampler_stop(&c->sampler);

	return c->err ? c->err : err;
}

int capture_finish(struct capture *c)
{
	int err;

	if (sampler_state(&c->sampler) == FXS_ST_RUNNING) {
		err = capture_stop(c);
		if (err)
			return err;
	}
	/* The kernel functions the stacks hit, named while this kernel runs. */
	err = c->kstacks ? kstacks_write_symbols(c->kstacks, c->fxt, &c->kernel_unresolved) : 0;
	/* The JIT code the samples hit, named from the processes' perf maps. */
	if (!err)
		err = perfmap_capture_finish(c->perfmap, c->fxt);
	if (!err)
		err = perfmap_capture_write_counters(c->perfmap, c->fxt, c->last_ts);
	if (!err)
		err = capture_write_counters(c, c->last_ts);
	if (!err)
		err = write_clock(c);
	if (err)
		return err;
	return fxt_stream_flush(c->fxt);
}

uint64_t capture_cpu_ns(const struct capture *c, unsigned cpu)
{
	return bpf_sampler_cpu_ns(c->bpf, cpu);
}

void capture__free(struct capture *c)
{
	if (!c)
		return;
	sampler_destroy(&c->sampler);
	cfi_capture__free(c->cfi);
	python_capture__free(c->py);
	bpf_sampler__free(c->bpf);
	fxt_stream__free(c->fxt);
	idset_free(&c->pids);
	idset_free(&c->tids);
	free(c->exited);
	thread_names_free(&c->names);
	modules__free(c->modules);
	targets__free(c->targets);
	kstacks__free(c->kstacks);
	perfmap_capture__free(c->perfmap);
	hostlock_release(c->lock_fd);
	free(c);
}
