/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Off-CPU intervals (record --off-cpu): a sched_switch program that notes when
 * a target thread leaves the CPU, in what state and in which user stack, and
 * writes the interval into the ring of the CPU it runs on again; and a task
 * iterator that closes the intervals still open when the capture stops.
 *
 * Included at the end of sampler.bpf.c: it shares the sampler's state word,
 * pid filter, pid namespace, rings and walker, so one skeleton carries both.
 * Its knob, state and maps (cfg_offcpu_min_ns, fxs_off_session, offcpu_slots,
 * offcpu_counters) are at the top of sampler.bpf.c with the others'. Loaded
 * only when asked for (user space turns autoload on).
 */
#ifndef FXS_BPF_OFFCPU_BPF_H
#define FXS_BPF_OFFCPU_BPF_H

#define FXS_TASK_INTERRUPTIBLE	 0x0001 /* include/linux/sched.h */
#define FXS_TASK_UNINTERRUPTIBLE 0x0002
#define FXS_TASK_STOPPED	 0x0004
#define FXS_TASK_TRACED		 0x0008
#define FXS_TASK_DEAD		 0x0080
#define FXS_TASK_NOLOAD		 0x0400

#define FXS_OFFCPU_REC_BASE                                                                        \
	(sizeof(struct fxs_sample) + sizeof(struct fxs_offcpu) + sizeof(struct fxs_comm))

static __always_inline void off_count(struct fxs_offcpu_counters *c, int which)
{
	c->v[which]++;
}

/* What the kernel's sched_switch tracepoint would print as prev_state. */
static __always_inline int offcpu_state(bool preempt, struct task_struct *t)
{
	unsigned int st;

	if (preempt)
		return FXS_OFF_RUNNABLE;
	st = BPF_CORE_READ(t, __state);
	if (st & FXS_TASK_DEAD)
		return -1;
	if (st == 0)
		return FXS_OFF_RUNNABLE;
	/* TASK_IDLE (uninterruptible | noload) is a wait that counts as sleep. */
	if ((st & FXS_TASK_UNINTERRUPTIBLE) && !(st & FXS_TASK_NOLOAD))
		return FXS_OFF_UNINTERRUPTIBLE;
	if (st & (FXS_TASK_INTERRUPTIBLE | FXS_TASK_UNINTERRUPTIBLE))
		return FXS_OFF_SLEEPING;
	if (st & (FXS_TASK_STOPPED | FXS_TASK_TRACED))
		return FXS_OFF_STOPPED;
	return FXS_OFF_OTHER;
}

/* Take the open interval for ourselves: false if there is none or another closer won. */
static __always_inline bool offcpu_take(struct fxs_offcpu_slot *slot, __u64 *ret_start)
{
	__u64 start = slot->start;

	if (!start || __sync_val_compare_and_swap(&slot->start, start, 0) != start)
		return false;
	*ret_start = start;
	return true;
}

/* The slot's user frames, bounded for the verifier (never more than FXS_MAX_FRAMES). */
static __always_inline __u64 offcpu_nr_frames(const struct fxs_offcpu_slot *slot)
{
	__u64 n = slot->hdr.nr_frames;

	return n < FXS_MAX_FRAMES ? n : FXS_MAX_FRAMES;
}

static __always_inline __u64 offcpu_rec_size(const struct fxs_offcpu_slot *slot)
{
	__u64 py = slot->py_len;

	/* the verifier's bound too: the record stays within the slot */
	if (py > FXS_PY_SECTION_MAX)
		py = 0;
	return FXS_OFFCPU_REC_BASE +
	       (offcpu_nr_frames(slot) + (slot->hdr.nr_kframes & 0x7f)) * sizeof(__u64) + py;
}

/*
 * A Python process's frames where the thread blocked: walked into the
 * sampler's scratch (which no sample uses now: interrupts are off) and copied
 * after the frames. Each word is copied whole: the section is 8-byte sized.
 */
static __always_inline void offcpu_python(struct fxs_offcpu_slot *slot, __u32 pid, __u32 tid)
{
	__u32 zero = 0, base, len;
	__u64 *src, *dst = (__u64 *)slot->frames;
	struct scratch *sc;

	slot->py_len = 0;
	if (!cfg_python)
		return;
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return;
	sc->rec_size = 0;
	py_walk(pid, tid);
	len = sc->py_len;
	src = (__u64 *)sc;
	if (!len || len > FXS_PY_SECTION_MAX)
		return;
	base = offcpu_nr_frames(slot) + (slot->hdr.nr_kframes & 0x7f);
	for (int i = 0; i < FXS_PY_SECTION_MAX / 8; i++) {
		if (i * 8 >= len)
			break;
		dst[(base + i) & 1023] = src[i & 255];
	}
	slot->py_len = len;
}

/* The names as they are when the interval ends: a thread renamed while it waited. */
static __always_inline void offcpu_names(struct fxs_offcpu_slot *slot, struct task_struct *t)
{
	BPF_CORE_READ_STR_INTO(&slot->comm.thread, t, comm);
	BPF_CORE_READ_STR_INTO(&slot->comm.process, t, group_leader, comm);
}

/* Write the slot's interval, which has ended, into cpu's ring. */
static __always_inline void offcpu_write(struct fxs_offcpu_counters *c,
					 struct fxs_offcpu_slot *slot, __u32 cpu)
{
	__u64 old, session = slot->session;
	void *ring;
	long err = -1;

	/* Announce the write, then re-check: stop waits for this count to drain. */
	old = __sync_fetch_and_add(&fxs_state, FXS_INFLIGHT_ONE);
	if (!session_running(old, session)) {
		__sync_fetch_and_sub(&fxs_state, FXS_INFLIGHT_ONE);
		off_count(c, FXS_OC_CLOSED_NOT_RUNNING);
		return;
	}
	ring = bpf_map_lookup_elem(&rings, &cpu);
	if (ring) {
		__u64 flags = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) > cfg_wake_bytes
				      ? BPF_RB_FORCE_WAKEUP
				      : BPF_RB_NO_WAKEUP;

		err = bpf_ringbuf_output(ring, &slot->hdr, offcpu_rec_size(slot), flags);
	}
	__sync_fetch_and_sub(&fxs_state, FXS_INFLIGHT_ONE);
	off_count(c, err ? FXS_OC_RING_FULL : FXS_OC_WRITTEN);
}

#include "offcpu_rewalk.bpf.h"

/* The thread runs again on cpu at now: write its interval into that CPU's ring. */
static __always_inline void offcpu_end(struct fxs_offcpu_counters *c, struct fxs_offcpu_slot *slot,
				       struct task_struct *t, __u64 now, __u32 cpu)
{
	__u64 start;

	if (!offcpu_take(slot, &start))
		return;
	if (!session_running(*(volatile __u64 *)&fxs_state, slot->session)) {
		off_count(c, FXS_OC_CLOSED_NOT_RUNNING);
		return;
	}
	if (now - start < cfg_offcpu_min_ns) {
		off_count(c, FXS_OC_SHORT);
		return;
	}
	slot->iv.end_ns = now;
	slot->iv.end_cpu = cpu;
	slot->iv.at_stop = 0;
	/* Its stack lacked a table: written once the thread can be walked again. */
	if (slot->rewalk && offcpu_hold(c, slot, t, start))
		return;
	offcpu_names(slot, t);
	offcpu_write(c, slot, cpu);
}

/*
 * Runs with the runqueue locked and interrupts off, as prev is still current:
 * its user memory is readable and the sampler's timer event cannot interrupt
 * the walk (the walker's per-CPU window is the sampler's too).
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(fxs_offcpu, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct fxs_offcpu_counters *c;
	struct fxs_offcpu_slot *slot;
	struct pt_regs *uregs;
	__u32 zero = 0, pid, tid, cpu;
	__u64 session, now = 0, ip, fp, sp, ra;
	struct fxs_cfi_regs regs;
	__u8 *target = NULL, unwind_end = 0;
	int state;

	c = bpf_map_lookup_elem(&offcpu_counters, &zero);
	if (!c)
		return 0;
	cpu = bpf_get_smp_processor_id();
	/* The incoming thread: an open interval is all the filter it needs. */
	slot = bpf_task_storage_get(&offcpu_slots, next, 0, 0);
	if (slot && slot->start) {
		now = bpf_ktime_get_boot_ns();
		offcpu_end(c, slot, next, now, cpu);
	}
	/* The outgoing thread's interval that waits for its walk: now or never. */
	offcpu_flush_at_switch(prev);

	off_count(c, FXS_OC_SWITCHES);
	session = *(volatile __u64 *)&fxs_off_session;
	if (!session_running(*(volatile __u64 *)&fxs_state, session)) {
		off_count(c, FXS_OC_NOT_RUNNING);
		return 0;
	}
	if (!current_ids(&pid, &tid) ||
	    (cfg_filter_pids && !(target = bpf_map_lookup_elem(&targets, &pid))) || pid == 0 ||
	    (prev->flags & PF_KTHREAD)) {
		off_count(c, FXS_OC_FILTERED);
		return 0;
	}
	/* The sampler's rule: nothing of a thread not fully the client's. */
	if (cfg_check_creds && ((target && *target != FXS_TARGET_YES) || creds_check(prev))) {
		off_count(c, FXS_OC_FILTERED_CREDS);
		return 0;
	}
	state = offcpu_state(preempt, prev);
	slot = bpf_task_storage_get(&offcpu_slots, prev, 0,
				    state < 0 ? 0 : BPF_LOCAL_STORAGE_GET_F_CREATE);
	/*
	 * An interval still open on a thread that is running: its return to
	 * the CPU went unseen (a task storage lookup can fail under contention).
	 */
	if (slot && slot->start) {
		slot->start = 0;
		off_count(c, FXS_OC_UNSEEN_END);
	}
	if (state < 0) {
		off_count(c, FXS_OC_EXITING);
		return 0;
	}
	if (!slot) {
		off_count(c, FXS_OC_NO_STORAGE);
		return 0;
	}

	/*
	 * Where it entered the kernel: the user registers saved at that entry
	 * (libbpf's per-arch accessors: this file names no register itself).
	 */
	uregs = (struct pt_regs *)bpf_task_pt_regs(prev);
	ip = PT_REGS_IP_CORE(uregs);
	fp = PT_REGS_FP_CORE(uregs);
	sp = PT_REGS_SP_CORE(uregs);
	ra = PT_REGS_RET_CORE(uregs);
	slot->hdr.flags = FXS_SF_OFFCPU | FXS_SF_HAS_COMM | FXS_SF_PC_IS_RETURN;
	slot->hdr.nr_frames = 0;
	slot->rewalk = 0;
	if (ip) {
		slot->frames[0] = ip;
		if (cfg_unwind != FXS_UNWIND_FP) {
			cfi_regs_task(uregs, &regs);
			slot->hdr.nr_frames = walk_cfi(slot->frames, &regs, pid, cfg_max_frames,
						       &slot->hdr.flags, &unwind_end);
			slot->regs = regs;
			slot->rewalk = offcpu_wants_rewalk(unwind_end, prev);
		} else {
			slot->hdr.nr_frames = walk_fp(slot->frames, fp, sp, ra, &slot->hdr.flags);
		}
	}
	/* the names go in when the interval ends (offcpu_names) */
	if (!now)
		now = bpf_ktime_get_boot_ns();
	slot->hdr.time_ns = now;
	slot->hdr.pid = pid;
	slot->hdr.tid = tid;
	slot->hdr.cpu = cpu;
	slot->hdr.left_reason = 0;
	slot->hdr.unwind_end = unwind_end;
	slot->hdr.nr_kframes = kstack_get(ctx, &slot->frames[offcpu_nr_frames(slot)]);
	slot->hdr.kind = FXS_KIND_SAMPLE;
	offcpu_python(slot, pid, tid);
	slot->iv.state = state;
	slot->iv.pad = 0;
	slot->session = session;
	/* Last: a closer sees start only once the rest is written. */
	__sync_lock_test_and_set(&slot->start, now);
	off_count(c, FXS_OC_STARTED);
	return 0;
}

/*
 * Run once by user space after the sched_switch program is detached: the
 * intervals still open end now, at the stop, and go out through the
 * iterator's file, in the same record format as the ring's.
 */
SEC("iter/task")
int fxs_offcpu_sweep(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct fxs_offcpu_counters *c;
	struct fxs_offcpu_slot *slot;
	__u32 zero = 0;
	__u64 start, now;

	/* The switch program is detached: nothing else closes intervals now. */
	c = bpf_map_lookup_elem(&offcpu_counters, &zero);
	if (!task || !c)
		return 0;
	slot = bpf_task_storage_get(&offcpu_slots, task, 0, 0);
	if (!slot || slot->session != fxs_off_session)
		return 0;
	/* Ended, waiting for a walk that will not come now: its stack of the switch. */
	start = slot->held;
	if (start) {
		if (!offcpu_unhold(slot))
			return 0;
		offcpu_names(slot, task);
		/* not written: held again, for the run again for the task */
		if (bpf_seq_write(ctx->meta->seq, &slot->hdr, offcpu_rec_size(slot))) {
			__sync_fetch_and_add(&offcpu_nr_held, 1);
			slot->held = start;
			return 0;
		}
		off_count(c, FXS_OC_WRITTEN);
		off_count(c, FXS_OC_REWALK_MISSED);
		return 0;
	}
	start = slot->start;
	if (!start)
		return 0;
	now = bpf_ktime_get_boot_ns();
	if (now - start < cfg_offcpu_min_ns) {
		slot->start = 0;
		off_count(c, FXS_OC_SHORT);
		return 0;
	}
	slot->iv.end_ns = now;
	slot->iv.end_cpu = slot->hdr.cpu;
	slot->iv.at_stop = 1;
	offcpu_names(slot, task);
	/*
	 * A record that does not fit the read's buffer is discarded and this
	 * runs again for the task: the interval is closed only once written.
	 */
	if (bpf_seq_write(ctx->meta->seq, &slot->hdr, offcpu_rec_size(slot)))
		return 0;
	slot->start = 0;
	off_count(c, FXS_OC_AT_STOP);
	return 0;
}

#endif /* FXS_BPF_OFFCPU_BPF_H */
