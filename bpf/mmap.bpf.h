/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the mapping events need of the BPF side (issue 29). The mappings
 * themselves come from the kernel's perf side-band records (PERF_RECORD_MMAP2,
 * with the build id, from one dummy event per CPU that user space reads
 * beside these rings, merging both by time): a program on the mmap path
 * needs fentry or kprobes, which the kernels this runs on may refuse, and
 * the path and build id perf gets from the kernel could not be had in BPF.
 * What BPF adds:
 *  - fork records, in the rings: a child has its parent's mappings and gets
 *    no mapping record for them;
 *  - at sched_prepare_exec (Linux 6.10+), before the new image is mapped, in
 *    a session for a user: a target whose exec changes its credentials
 *    leaves the target set, so that user space drops the new image's mapping
 *    records: they come after the FXS_SF_LEFT record in time.
 * Included from sampler.bpf.c, before the fork program.
 */
#ifndef FXS_BPF_MMAP_BPF_H
#define FXS_BPF_MMAP_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxs_mmap_counters);
} mmap_counters SEC(".maps");

/*
 * Targets that exited, with their targets map value: the map would fill
 * with the children of a build that are never sampled (and so never reaped
 * by user space), and the mapping records of a process are read after it
 * may have exited. A fork on a pid takes it out again: a new process.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} gone SEC(".maps");

static __always_inline void mm_count(int which)
{
	__u32 zero = 0;
	struct fxs_mmap_counters *c = bpf_map_lookup_elem(&mmap_counters, &zero);

	if (c)
		c->v[which]++;
}

#define FXS_MM_NOT_RUNNING 1

/*
 * Write rec (size bytes) into this CPU's ring while the session runs, stamped
 * now (with the write counted in flight, as emit()): 0, FXS_MM_NOT_RUNNING
 * when it does not run, < 0 when the ring is full.
 */
static __always_inline long mm_output(struct fxs_sample *rec, __u64 size)
{
	__u32 cpu = bpf_get_smp_processor_id();
	void *ring = bpf_map_lookup_elem(&rings, &cpu);
	__u64 old, flags;
	long err = -1;

	old = __sync_fetch_and_add(&fxs_state, FXS_INFLIGHT_ONE);
	if ((old & FXS_STATE_MASK) != FXS_ST_RUNNING) {
		__sync_fetch_and_sub(&fxs_state, FXS_INFLIGHT_ONE);
		return FXS_MM_NOT_RUNNING;
	}
	if (ring) {
		rec->time_ns = bpf_ktime_get_boot_ns();
		/* Not urgent: the reader drains on its timer, early when the ring fills. */
		flags = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) > cfg_wake_bytes
				? BPF_RB_FORCE_WAKEUP
				: BPF_RB_NO_WAKEUP;
		err = bpf_ringbuf_output(ring, rec, size, flags);
	}
	__sync_fetch_and_sub(&fxs_state, FXS_INFLIGHT_ONE);
	return err;
}

/* cpid was forked by ppid: user space gives it the parent's mappings. Whether it was told. */
static __always_inline bool mm_fork(__u32 ppid, __u32 cpid)
{
	struct {
		struct fxs_sample hdr;
		struct fxs_fork f;
	} r = {0};
	long err;

	r.hdr.pid = cpid;
	r.hdr.tid = cpid; /* a new process: its first thread leads it */
	r.hdr.cpu = bpf_get_smp_processor_id();
	r.hdr.kind = FXS_KIND_FORK;
	r.f.ppid = ppid;
	err = mm_output(&r.hdr, sizeof(r));
	if (err != FXS_MM_NOT_RUNNING)
		mm_count(err ? FXS_MC_FORK_RING_FULL : FXS_MC_FORK_WRITTEN);
	return err == 0;
}

/*
 * In a session for a user, an exec that commits credentials not fully the
 * user's (a set-user-ID, set-group-ID or file-capability program) takes the
 * target out before the new image is mapped, so that no mapping of it is
 * written: the kernel's mapping records of that image come later than this
 * record. (The old image's mappings are not dropped at an exec: samples
 * taken inside execve still show its user registers; the new image's
 * mappings replace what they overlap.)
 */
SEC("tp_btf/sched_prepare_exec")
int BPF_PROG(fxs_prep_exec, struct task_struct *task, struct linux_binprm *bprm)
{
	__u8 *target = NULL, left = FXS_TARGET_LEFT;
	struct fxs_sample hdr = {0};
	__u32 pid, tid;
	int why;

	if (!cfg_check_creds || !current_ids(&pid, &tid) ||
	    !(target = bpf_map_lookup_elem(&targets, &pid)) || *target != FXS_TARGET_YES)
		return 0;
	hdr.pid = pid;
	hdr.tid = tid;
	hdr.cpu = bpf_get_smp_processor_id();
	why = cred_check(BPF_CORE_READ(bprm, cred));
	if (!why && BPF_CORE_READ_BITFIELD_PROBED(bprm, secureexec))
		why = FXS_LEFT_SECURE;
	if (!why)
		return 0;
	bpf_map_update_elem(&targets, &pid, &left, BPF_EXIST);
	hdr.flags = FXS_SF_LEFT;
	hdr.left_reason = why;
	emit(&hdr, sizeof(hdr));
	return 0;
}

/*
 * Under --unwind=auto|cfi: the kernel chose where a new mapping of the
 * current process goes (get_unmapped_area(), Linux 5.2+). Ranges the walker
 * still has there belong to mappings that went: cfi_area_reused().
 */
SEC("tp_btf/vm_unmapped_area")
int BPF_PROG(fxs_area_reused, unsigned long addr, struct vm_unmapped_area_info *info)
{
	__u32 pid, tid;

	/* an error (-ENOMEM) comes as a negative address */
	if (addr >= (unsigned long)-4095 || !current_ids(&pid, &tid))
		return 0;
	cfi_area_reused(pid, addr, BPF_CORE_READ(info, length));
	return 0;
}

/*
 * A process's last thread exits: a target's pid moves from the targets map to
 * gone; under --unwind=auto|cfi (host-wide too) its CFI ranges go.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(fxs_exit, struct task_struct *task)
{
	__u32 pid, tid;
	__u8 *target, v;

	if (BPF_CORE_READ(task, signal, live.counter) != 0 || !current_ids(&pid, &tid))
		return 0;
	/* Its CFI ranges are no one's now (user space frees the slice: cfi_tables' sweep). */
	cfi_forget_pid(pid);
	/* loaded for that alone (no --no-inherit targets): no target moves */
	if (!cfg_filter_pids || !cfg_inherit)
		return 0;
	target = bpf_map_lookup_elem(&targets, &pid);
	if (!target)
		return 0;
	v = *target;
	bpf_map_update_elem(&gone, &pid, &v, BPF_ANY);
	bpf_map_delete_elem(&targets, &pid);
	return 0;
}

#endif /* FXS_BPF_MMAP_BPF_H */
