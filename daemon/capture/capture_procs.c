// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The processes and threads a capture writes: their names and mappings, read
 * while they are still the client's (capture_internal.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "capture/authz.h"
#include "capture/bpf_sampler.h"
#include "capture/capture_internal.h"
#include "capture/modules.h"
#include "capture/procinfo.h"
#include "capture/targets.h"
#include "capture/thread_names.h"
#include "util/clock.h"
#include "util/containers.h"
#include "util/idset.h"

/*
 * Reading a process's mappings failed only if something is wrong with us: a
 * process gone before we looked (or one we may not read) is still named, and
 * its frames stay unresolved.
 */
static int scan_result(int err)
{
	return err == -ESRCH || err == -EACCES || err >= 0 ? 0 : err;
}

/* pid is no longer the client's: out of the kernel's targets, its data forgotten, told once. */
void capture_target_left(struct capture *c, uint32_t pid, int why)
{
	char text[160];

	bpf_sampler_untarget(c->bpf, pid, false);
	modules_forget(c->modules, pid);
	if (c->cfi)
		cfi_capture_forget(c->cfi, pid);
	snprintf(text, sizeof(text), "pid %u changed credentials (%s): no longer sampled",
		 (unsigned)pid, authz_left_text(why));
	if (c->opts.notice)
		c->opts.notice(c->opts.notice_ctx, pid, text);
}

/*
 * Before reading pid's /proc files. 0: read them under *ret_dir, which is
 * NULL for "/proc/PID" (a host-wide session, or no pidfd could be had in a
 * root session); -ESRCH: it is gone, read nothing; -EACCES: it is no longer
 * the client's (said here the first time): read nothing, drop its sample.
 * capture_leave() after the reads.
 */
int capture_enter(struct capture *c, uint32_t pid, uint64_t ts, char *dir, size_t len,
		  const char **ret_dir)
{
	int why = 0, err;

	*ret_dir = NULL;
	if (!c->targets)
		return 0;
	err = targets_enter(c->targets, (pid_t)pid, ts, dir, len, &why);
	if (err == -EACCES && why)
		capture_target_left(c, pid, why);
	if (!err)
		*ret_dir = dir;
	else if (!c->opts.check_creds && err != -ESRCH)
		err = 0;
	return err == -EACCES || err == -ESRCH || !err ? err : -ESRCH;
}

void capture_leave(struct capture *c)
{
	if (c->targets)
		targets_leave(c->targets);
}

/* A sample the kernel wrote and we do not: it counts as filtered for its credentials. */
void capture_drop_for_creds(struct capture *c, const struct fxs_sample *s)
{
	if (s->cpu < FXS_MAX_CPUS)
		c->creds_dropped[s->cpu]++;
}

/*
 * With mapping events, /proc/PID/maps is read only for a process that was
 * running before the capture started: the kernel reports every mapping
 * made since, and a child gets its parent's at the fork.
 */
bool capture_needs_proc_maps(struct capture *c, uint32_t pid, const char *dir, bool added,
			     bool execed)
{
	char path[64];
	uint64_t start_ns;

	if (!c->mmap_events)
		return true;
	if (!dir) {
		snprintf(path, sizeof(path), "/proc/%u", (unsigned)pid);
		dir = path;
	}
	/*
	 * A root session's target: the kernel ends its events at a secure exec
	 * (sideband.h), so /proc is read now and whenever a pc is outside what
	 * it told (capture_refresh_uncovered): ld.so may not have mapped the
	 * libraries yet.
	 */
	if (execed && c->opts.nr_pids && !c->opts.check_creds && procinfo_not_dumpable(dir) > 0) {
		/* -ENOMEM: the scan fails as well, and says so */
		modules_events_ended(c->modules, pid);
		return true;
	}
	if (execed && modules_without_events(c->modules, pid))
		return true;
	return added && !procinfo_start_ns(dir, &start_ns) && start_ns <= c->start_boot_ns;
}

int capture_scan_maps(struct capture *c, uint64_t ts, uint32_t pid, const char *dir)
{
	int n = modules_scan_dir(c->modules, c->fxt, ts, pid, dir);

	/* with events they are kept, and counted when written (emit_maps) */
	if (n > 0 && !c->mmap_events)
		c->maps_scanned += n;
	return scan_result(n);
}

/*
 * A process is written at first sight with its mappings, before it can exit
 * (its first sample wakes us). After an exec, its name, and its mappings anew
 * where they do not come from the kernel.
 */
static int note_process(struct capture *c, uint64_t ts, uint32_t pid, const char *name,
			bool renamed, bool execed)
{
	int added = idset_add(&c->pids, pid), err = 0;
	char cmdline[FXT_CMDLINE_MAX + 1] = "";
	const char *dir = NULL;
	char buf[64], path[64];
	bool scan;

	if (added < 0)
		return added;
	if (!added && !renamed && !execed)
		return 0;
	scan = added || execed;
	if (scan) {
		err = capture_enter(c, pid, ts, buf, sizeof(buf), &dir);
		if (err == -EACCES)
			return err;
		scan = !err;
	}
	/*
	 * What the reader shows on the process frame, read only when its /proc
	 * may be read (a rename keeps the command line); a process gone has none.
	 */
	if (scan) {
		snprintf(path, sizeof(path), "/proc/%u", (unsigned)pid);
		procinfo_cmdline_at(dir ? dir : path, cmdline, sizeof(cmdline));
	}
	err = fxt_stream_process_cmdline(c->fxt, pid, name, cmdline);
	if (!added)
		modules_renamed(c->modules, pid);
	if (!err && scan && capture_needs_proc_maps(c, pid, dir, added, execed)) {
		if (execed && c->cfi && !c->mmap_events)
			cfi_capture_forget(c->cfi, pid);
		if (execed && !c->mmap_events)
			modules_forget(c->modules, pid);
		err = capture_scan_maps(c, ts, pid, dir);
		/*
		 * With mapping events, some of the new image's came before this read
		 * and it skipped them: the walker gets the whole set again.
		 */
		if (!err && execed && c->cfi && c->mmap_events) {
			cfi_capture_forget(c->cfi, pid);
			err = modules_replay(c->modules, pid);
		}
	}
	capture_leave(c);
	return err;
}

/* pid is sampled: the mappings kept for it go out, and its next ones as they come. */
int capture_emit_maps(struct capture *c, uint32_t pid, uint64_t ts)
{
	unsigned n[MODULES_NR_SOURCES] = {0};
	int err;

	if (!c->mmap_events)
		return 0;
	err = modules_emit(c->modules, c->fxt, ts, pid, n);
	c->maps_from_events += n[MODULES_FROM_EVENT];
	c->maps_scanned += n[MODULES_FROM_PROC];
	c->maps_inherited += n[MODULES_FROM_FORK];
	return err;
}

/*
 * Name s's thread when it is new, or when comm (its names at name_ns) renames
 * it: not when comm is what was written last, or older than that. An exec
 * record is always news: a sample taken inside execve() after the kernel
 * renamed the task may have brought its new name already, and the exec must
 * still read the new image's command line (and, past a secure exec, its
 * mappings: capture_needs_proc_maps).
 */
int capture_note_thread(struct capture *c, const struct fxs_sample *s, const struct fxs_comm *comm,
			uint64_t name_ns)
{
	char thread[FXS_COMM_LEN + 1], process[FXS_COMM_LEN + 1], buf[64];
	struct fxs_comm names;
	const char *dir;
	int added, err;

	added = idset_add(&c->tids, s->tid);
	if (added < 0)
		return added;
	if (!added && !(s->flags & FXS_SF_EXEC) &&
	    (!comm || !thread_names_news(&c->names, s->tid, comm, name_ns)))
		return 0;
	/*
	 * A name is about to be written: a new name is what an exec gives
	 * away, so the process must still be the client's (the records of
	 * several CPUs' rings do not come in the order they were made).
	 */
	err = capture_enter(c, s->pid, s->time_ns, buf, sizeof(buf), &dir);
	if (err == -EACCES)
		return err;
	if (comm) {
		/* The kernel's comm may fill all 16 bytes without a NUL. */
		memcpy(thread, comm->thread, FXS_COMM_LEN);
		thread[FXS_COMM_LEN] = '\0';
		memcpy(process, comm->process, FXS_COMM_LEN);
		process[FXS_COMM_LEN] = '\0';
	} else {
		/* Its named sample was not ours to see: ask /proc while it lives. */
		thread[0] = process[0] = '\0';
		if (!err && dir) {
			procinfo_comm_at(dir, s->tid, thread, sizeof(thread));
			procinfo_comm_at(dir, s->pid, process, sizeof(process));
		} else if (!err) {
			procinfo_comm(s->pid, s->tid, thread, sizeof(thread));
			procinfo_comm(s->pid, s->pid, process, sizeof(process));
		}
	}
	capture_leave(c);
	memcpy(names.thread, thread, FXS_COMM_LEN);
	memcpy(names.process, process, FXS_COMM_LEN);
	err = thread_names_set(&c->names, s->tid, &names, name_ns);
	if (!err)
		err = note_process(c, s->time_ns, s->pid, process, comm && s->tid == s->pid,
				   s->flags & FXS_SF_EXEC);
	if (err)
		return err;
	return fxt_stream_thread(c->fxt, s->pid, s->tid, thread);
}

/*
 * Where the kernel tells no mappings (no mapping events at all, or none for
 * pid since a secure exec), a pc outside every known one (a dlopen, ld.so's
 * libraries after an exec) has /proc read again: rate-limited, so that code
 * in no file does not have it read at every sample.
 */
int capture_refresh_uncovered(struct capture *c, uint32_t pid, uint64_t ts, const uint64_t *pcs,
			      unsigned nr_pcs)
{
	if (c->mmap_events && !modules_without_events(c->modules, pid))
		return 0;
	for (unsigned i = 0; i < nr_pcs; i++) {
		if (!modules_covers(c->modules, pid, pcs[i]))
			return modules_refresh_due(c->modules, pid)
				       ? capture_refresh_modules(c, pid, ts)
				       : 0;
	}
	return 0;
}

/* pid's mappings anew (rate-limited), read only while it is still the client's. */
int capture_refresh_modules(struct capture *c, uint32_t pid, uint64_t ts)
{
	const char *dir;
	char buf[64];
	int err = capture_enter(c, pid, ts, buf, sizeof(buf), &dir);

	if (!err) {
		int n = modules_refresh_dir(c->modules, c->fxt, ts, pid, dir);

		if (n > 0)
			c->maps_scanned += n;
		err = scan_result(n);
	} else if (err == -ESRCH)
		err = 0;
	capture_leave(c);
	return err;
}

int capture_target_exited(struct capture *c, pid_t pid)
{
	uint32_t generation = modules_generation(c->modules, pid);

	if (!generation)
		return 0;
	if (array_reserve((void **)&c->exited, &c->cap_exited, c->nr_exited, sizeof(*c->exited)))
		return -ENOMEM;
	c->exited[c->nr_exited++] = (struct capture_exited){
		.pid = pid, .generation = generation, .at_ns = clock_ns(CLOCK_BOOTTIME)};
	return 0;
}

void capture_forget_exited(struct capture *c)
{
	uint64_t horizon = bpf_sampler_horizon(c->bpf);
	size_t n = 0;

	/* a new process on the pid since has another generation, and stays */
	while (n < c->nr_exited && c->exited[n].at_ns <= horizon) {
		modules_exited(c->modules, c->exited[n].pid, c->exited[n].generation);
		n++;
	}
	c->nr_exited -= n;
	memmove(c->exited, c->exited + n, c->nr_exited * sizeof(*c->exited));
}
