/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An off-CPU interval whose stack was walked before its tables were ready,
 * walked again when they are.
 *
 * The sched_switch program walks a thread's user stack as it leaves the CPU
 * (then its memory is readable). A thread that blocks in its process's first
 * milliseconds does so before user space has read the mapping events and
 * published the process's CFI ranges: that walk goes by frame pointers, and
 * an interval weighs its length, so one such stack of a thread that sleeps
 * 200 ms at a time costs it 200 ms. Its user stack does not change while it
 * blocks, and it still is the same when the thread runs again, in the same
 * kernel entry, with the same user registers saved at it (bpf_task_pt_regs):
 * by then the tables are mostly there.
 *
 * So an interval whose walk lacked a table (offcpu_wants_rewalk()) is held
 * when the thread comes back (sched_switch, the thread as next: its memory is
 * not readable there) and written by the first of:
 *  - tp_btf/rseq_update, in the thread, on its way back to user space: the
 *    kernel runs it for every thread that has rseq registered (glibc 2.35
 *    and later register every thread) after any switch out (rseq_preempt()),
 *    so it costs a switch one load of offcpu_nr_held, and no syscall pays
 *    (a hook on raw_syscalls' sys_exit would slow every syscall on the host:
 *    the tracepoint turns on every task's slow syscall path);
 *  - the thread's next switch out, if it blocks again before that;
 *  - the stop's sweep (iter/task), with the stack of the switch.
 * A thread woken to die (offcpu_dying()) is not held: it would not come back.
 * Each walks it again from the registers saved at the switch if they are
 * still the thread's, and takes that stack if it did not lack a table.
 * Without the tracepoint (or for a thread without rseq) nothing is held: the
 * interval is written with the stack of the switch, as before, counted
 * (FXS_OC_REWALK_NO_HOOK). The kernel frames and the Python section stay
 * those of the switch.
 *
 * Included by offcpu.bpf.h, after offcpu_write().
 */
#ifndef FXS_BPF_OFFCPU_REWALK_BPF_H
#define FXS_BPF_OFFCPU_REWALK_BPF_H

#define PF_EXITING	  0x00000004 /* include/linux/sched.h */
#define SIGNAL_GROUP_EXIT 0x00000004 /* include/linux/sched/signal.h */
#define FXS_SIGKILL	  9

/* fxs_off_resume is loaded (the kernel has rseq_update): set by user space. */
const volatile bool cfg_offcpu_rewalk = false;

/* Intervals held, on all CPUs: while none is, the hooks return at once. */
__u64 offcpu_nr_held;
/* The hook is attached (user space sets it, and clears it before the sweep). */
__u32 offcpu_rewalk_on;

/* The words after a slot's hdr, iv and comm: user and kernel frames, the Python section. */
#define FXS_OFFCPU_WORDS 1024

/* A copy of a slot's frames while they are walked again, per CPU. */
struct fxs_offcpu_copy {
	__u64 w[FXS_OFFCPU_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxs_offcpu_copy);
} offcpu_copy SEC(".maps");

/* The kernel frames and the Python section after the user frames, in words, at most. */
#define FXS_OFFCPU_TAIL_MAX (FXS_MAX_KFRAMES + (FXS_PY_SECTION_MAX + 7) / 8)

_Static_assert(FXS_MAX_FRAMES + FXS_OFFCPU_TAIL_MAX <= FXS_OFFCPU_WORDS,
	       "a rewalked stack and its tail fit the slot");

/*
 * Whether a walk that ended so lacked what user space had not published yet:
 * the process's ranges or a module's table. Not a pc in no module: mostly a
 * JIT's code, which no table will ever cover (every such interval would be
 * walked twice).
 */
static __always_inline bool offcpu_lacked_tables(__u8 end)
{
	__u8 reason = FXS_UE_REASON(end);

	return reason == FXS_UE_NO_PROC || reason == FXS_UE_NO_TABLE;
}

/* CLOCK_BOOTTIME ns at which the sched_switch program was attached (user space sets it). */
__u64 offcpu_armed_ns;

/*
 * Whether a walk of t that ended so should be taken again: it lacked a
 * table, or it met a pc in no module while t's process is in its first
 * seconds (its libraries' ranges not published yet; later it is mostly a
 * JIT's code, and only the tables' lack is worth a second walk). Its age
 * counts from the later of its fork and the capture's start: record --
 * CMD forks CMD before it loads the capture and execs it after, which may
 * take more than those seconds on a busy host, and a process that was
 * there before the capture has none of its ranges published either.
 */
static __always_inline bool offcpu_wants_rewalk(__u8 end, struct task_struct *t)
{
	__u64 born;

	if (offcpu_lacked_tables(end))
		return true;
	if (FXS_UE_REASON(end) != FXS_UE_NO_MODULE)
		return false;
	born = BPF_CORE_READ(t, group_leader, start_boottime);
	if (born < *(volatile __u64 *)&offcpu_armed_ns)
		born = *(volatile __u64 *)&offcpu_armed_ns;
	return bpf_ktime_get_boot_ns() - born < 2000000000ULL;
}

/* Whether the kernel runs rseq_update for t on its way back to user space. */
static __always_inline bool offcpu_has_rseq(struct task_struct *t)
{
	if (!bpf_core_field_exists(t->rseq))
		return false;
	return BPF_CORE_READ(t, rseq) != NULL;
}

/*
 * Whether t, woken, is dying: a fatal signal (the group's exit, a SIGKILL)
 * makes every thread of the process exit from the kernel, never back in user
 * space, and the last switch of a thread comes after its process's exit can
 * be seen: the capture may have stopped by then, and the task is gone from
 * the stop's sweep (CI saw one interval so lost of 61).
 */
static __always_inline bool offcpu_dying(struct task_struct *t)
{
	return (t->flags & PF_EXITING) || (BPF_CORE_READ(t, signal, flags) & SIGNAL_GROUP_EXIT) ||
	       (BPF_CORE_READ(t, pending.signal.sig[0]) & (1ULL << (FXS_SIGKILL - 1)));
}

/*
 * The interval (from start) has ended and t runs again: hold it for its walk
 * if a hook will come in t. False: write it now.
 */
static __always_inline bool offcpu_hold(struct fxs_offcpu_counters *c, struct fxs_offcpu_slot *slot,
					struct task_struct *t, __u64 start)
{
	if (cfg_unwind == FXS_UNWIND_FP)
		return false;
	if (!cfg_offcpu_rewalk || !*(volatile __u32 *)&offcpu_rewalk_on || !offcpu_has_rseq(t)) {
		off_count(c, FXS_OC_REWALK_NO_HOOK);
		return false;
	}
	if (offcpu_dying(t)) {
		off_count(c, FXS_OC_REWALK_MISSED);
		return false;
	}
	__sync_fetch_and_add(&offcpu_nr_held, 1);
	/* Last: a flush sees held only once the rest is written. */
	__sync_lock_test_and_set(&slot->held, start);
	return true;
}

/* Take the held interval for ourselves: false if there is none or another flush won. */
static __always_inline bool offcpu_unhold(struct fxs_offcpu_slot *slot)
{
	__u64 held = slot->held;

	if (!held || __sync_val_compare_and_swap(&slot->held, held, 0) != held)
		return false;
	__sync_fetch_and_sub(&offcpu_nr_held, 1);
	return true;
}

/* The words of the slot's Python section (8-byte sized: python.bpf.h). */
static __always_inline __u64 offcpu_py_words(const struct fxs_offcpu_slot *slot)
{
	__u64 py = slot->py_len;

	return py > FXS_PY_SECTION_MAX ? 0 : py / 8;
}

/*
 * t, the current task, is the slot's thread, in the kernel entry where it
 * blocked if its saved registers are the same: walk its stack again, and
 * keep that stack if it did not lack a table (the kernel frames and the
 * Python section move behind it). False: the slot keeps the stack of the
 * switch.
 *
 * The walk state is per CPU, and the sampler's perf_event program may
 * interrupt this one (rseq_update runs with interrupts on) and walk in it:
 * its fired count, bumped before it walks, tells; such a walk is not kept,
 * and is taken once more.
 */
static __always_inline bool offcpu_rewalk(struct fxs_offcpu_slot *slot, struct task_struct *t)
{
	struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs(t);
	struct fxs_offcpu_copy *copy;
	struct fxs_counters *sc;
	struct fxs_cfi_regs regs;
	__u64 fired, n, tail, old_n;
	__u8 flags = 0, end = 0;
	__u32 zero = 0;

	cfi_regs_task(uregs, &regs);
	if (regs.pc != slot->regs.pc || regs.sp != slot->regs.sp || regs.fp != slot->regs.fp ||
	    regs.lr != slot->regs.lr || !regs.pc)
		return false;
	copy = bpf_map_lookup_elem(&offcpu_copy, &zero);
	sc = bpf_map_lookup_elem(&counters, &zero);
	if (!copy || !sc)
		return false;
	old_n = offcpu_nr_frames(slot);
	tail = (slot->hdr.nr_kframes & 0x7f) + offcpu_py_words(slot);
	bpf_probe_read_kernel(copy->w, sizeof(copy->w), slot->frames);
	/* A sample in the middle (one walk in a few hundred at 999 Hz): once more. */
	for (int i = 0; i < 2; i++) {
		flags = end = 0;
		fired = *(volatile __u64 *)&sc->v[FXS_CNT_FIRED];
		n = walk_cfi(slot->frames, &regs, slot->hdr.pid, cfg_max_frames, &flags, &end);
		if (fired == *(volatile __u64 *)&sc->v[FXS_CNT_FIRED])
			break;
		n = FXS_MAX_FRAMES + 1;
	}
	if (offcpu_lacked_tables(end) || n > FXS_MAX_FRAMES || old_n > FXS_MAX_FRAMES ||
	    tail > FXS_OFFCPU_TAIL_MAX) {
		bpf_probe_read_kernel(slot->frames, sizeof(copy->w), copy->w);
		return false;
	}
	bpf_probe_read_kernel(&slot->frames[n], tail * sizeof(__u64), &copy->w[old_n]);
	slot->hdr.nr_frames = n;
	slot->hdr.flags =
		(slot->hdr.flags & ~(FXS_SF_TRUNCATED | FXS_SF_STOP_FAULT | FXS_SF_STOP_BAD_FP)) |
		flags;
	slot->hdr.unwind_end = end;
	return true;
}

/*
 * Write the current task's held interval, if it has one, walked again first
 * when rewalk (the task is alive, in the entry where it may have blocked).
 * Global: verified once, on its own, in each program that calls it.
 */
__noinline int offcpu_flush_held(__u32 rewalk)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct fxs_offcpu_counters *c;
	struct fxs_offcpu_slot *slot;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&offcpu_counters, &zero);
	slot = bpf_task_storage_get(&offcpu_slots, t, 0, 0);
	if (!c || !slot || !offcpu_unhold(slot))
		return 0;
	if (!session_running(*(volatile __u64 *)&fxs_state, slot->session)) {
		off_count(c, FXS_OC_CLOSED_NOT_RUNNING);
		return 0;
	}
	off_count(c, rewalk && offcpu_rewalk(slot, t) ? FXS_OC_REWALKED : FXS_OC_REWALK_MISSED);
	offcpu_names(slot, t);
	offcpu_write(c, slot, bpf_get_smp_processor_id());
	return 0;
}

/*
 * prev, the current task, leaves the CPU: an interval it still holds (it
 * came back and blocks again before its way out) is written now, walked
 * again unless it is exiting (its memory may be gone).
 */
static __always_inline void offcpu_flush_at_switch(struct task_struct *prev)
{
	if (!cfg_offcpu_rewalk || cfg_unwind == FXS_UNWIND_FP ||
	    !*(volatile __u64 *)&offcpu_nr_held)
		return;
	offcpu_flush_held(!(prev->flags & PF_EXITING));
}

/*
 * The current task is on its way back to user space after it ran again
 * (rseq_update: see above). Loaded only where the tracepoint exists and the
 * CFI walker is on (user space turns autoload on).
 */
SEC("tp_btf/rseq_update")
int BPF_PROG(fxs_off_resume, struct task_struct *t)
{
	if (cfg_unwind == FXS_UNWIND_FP || !*(volatile __u64 *)&offcpu_nr_held)
		return 0;
	offcpu_flush_held(1);
	return 0;
}

#endif /* FXS_BPF_OFFCPU_REWALK_BPF_H */
