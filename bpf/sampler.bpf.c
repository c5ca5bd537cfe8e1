// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The thread sampler: a perf_event program, one event per CPU, that walks the
 * interrupted thread's user frame-pointer chain and writes one record into its
 * own CPU's ring buffer, gated by the state word (see include/sampler.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "sampler.h"
#include "walk.bpf.h"
#include "kstack.bpf.h"
#include "walk_cfi.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define PF_KTHREAD 0x00200000 /* include/linux/sched.h */

/*
 * Load-time knobs, set by user space before load (the skeleton's rodata). The
 * verifier sees their values: a branch they rule out is not even verified.
 */
const volatile __u32 cfg_max_frames = FXS_DEFAULT_FRAMES;
const volatile __u32 cfg_walker = FXS_WALK_FAST; /* enum fxs_walker */
const volatile bool cfg_filter_pids = false;
const volatile bool cfg_inherit = false; /* children of targets become targets (fxs_fork) */
/*
 * The pid namespace of the loader, when it is not the initial one (a
 * container): pids are then that namespace's, and tasks outside it are not
 * seen at all.
 */
const volatile __u64 cfg_pidns_dev = 0;
const volatile __u64 cfg_pidns_ino = 0;
/* Wake the reader only when a ring holds more than this; otherwise it drains on a timer. */
const volatile __u64 cfg_wake_bytes = 1 << 20;
/*
 * A session for a non-root client: a target is sampled only while it is fully
 * that user's (see creds_check()); cfg_caps is the client's permitted set.
 */
const volatile bool cfg_check_creds = false;
const volatile __u32 cfg_uid = 0;
const volatile __u64 cfg_caps = 0;
/* Fork records into the rings, for the mapping events (mmap.bpf.h). */
const volatile bool cfg_mmap_events = false;
/* Off-CPU intervals shorter than this are counted, not written (offcpu.bpf.h). */
const volatile __u64 cfg_offcpu_min_ns = 1000000;

/* The state word; .bss is mmapped by user space through the skeleton. */
__u64 fxs_state;
/* The session the sched_switch program was attached for (user space sets it). */
__u64 fxs_off_session;

struct scratch {
	struct fxs_sample hdr;
	__u64 frames[FXS_MAX_FRAMES + FXS_MAX_KFRAMES]; /* user, then kernel (kstack.bpf.h) */
	struct fxs_comm comm; /* appended after the frames when FXS_SF_HAS_COMM */
	/* The Python section's room (python.bpf.h), written right after the names. */
	__u8 py_room[sizeof(struct fxs_py_hdr) + FXS_PY_MAX_FRAMES * sizeof(struct fxs_py_frame)];
	/*
	 * The record's size before the Python section, and the section's:
	 * handed to and from py_walk() through memory, not as an argument and
	 * a return value, so that the verifier's precision tracking of the
	 * record's size never has to cross the call (before Linux 6.3 that marks
	 * every scalar precise, and the program's states no longer prune).
	 */
	__u32 rec_size;
	__u32 py_len;
	__u32 wake; /* wake the reader (a new name, a CFI walk that lacked tables) */
	__u32 wake_pad;
	/*
	 * The thread this CPU last found named in the names map, and that
	 * name: a CPU mostly samples the same thread again, and this spares the
	 * map lookup then. Per CPU, like the rest of the scratch.
	 */
	__u64 last_name[2];
	__u32 last_tid;
	__u32 last_pad;
	__u64 py_last_wake; /* bpf_ktime_get_ns() of py_wants_reader()'s last yes */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

#include "python.bpf.h"

/*
 * The frame-pointer walks (walk.bpf.h): slot 0 is every walk's, slot 1 the
 * A/B check's second walker (FXS_WALK_AB). Per CPU, as a sample never
 * interrupts another on its CPU; the sched_switch program uses slot 0 too,
 * which the sampler's timer cannot interrupt either (interrupts are off).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct fxs_fp_walk);
} fp_walk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxs_counters);
} counters SEC(".maps");

/*
 * Target thread groups (FXS_TARGET_*); only read when cfg_filter_pids. One
 * that left stays in the map until it exits, so that its samples are counted
 * as filtered_creds, and its children are not targets.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/*
 * The last name written for each thread, so a name goes out once and again on
 * rename. An evicted thread only sends its name again; a smaller map is
 * created faster at setup (an LRU map preallocates every entry).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct fxs_comm);
} names SEC(".maps");

struct ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

/* One ring per CPU, created by user space at setup in the size it was asked for. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, FXS_MAX_CPUS);
	__type(key, __u32);
	__array(values, struct ring);
} rings SEC(".maps");

/*
 * A thread's open off-CPU interval, from the moment it left the CPU. From hdr
 * on it is the ring record: hdr, iv, comm, frames.
 */
struct fxs_offcpu_slot {
	__u64 start; /* 0: no interval open; taken back to 0 by whoever closes it */
	__u64 session;
	__u32 py_len; /* the bytes of the Python section after the frames (python.bpf.h) */
	__u32 rewalk; /* the walk at the switch lacked a table (offcpu_rewalk.bpf.h) */
	/* ended, its write waiting for that walk again: its start; else 0 */
	__u64 held;
	struct fxs_cfi_regs regs; /* the user registers the stack was walked from */
	struct fxs_sample hdr;
	struct fxs_offcpu iv;
	struct fxs_comm comm;
	/* the user's, then the kernel's (kstack.bpf.h) */
	__u64 frames[FXS_MAX_FRAMES + FXS_MAX_KFRAMES];
	/* The Python section's room: frames and it are 1024 words, indexed & 1023. */
	__u64 py_room[1024 - (FXS_MAX_FRAMES + FXS_MAX_KFRAMES)];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fxs_offcpu_slot);
} offcpu_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxs_offcpu_counters);
} offcpu_counters SEC(".maps");

/* The A/B check's (FXS_WALK_AB, bench/ab.sh) verdicts. */
struct walk_ab {
	__u64 agree, differ;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk_ab);
} walk_ab SEC(".maps");

static __always_inline void count(struct fxs_counters *c, int which)
{
	c->v[which]++;
}

/* pid/tgid of the current task as the loader sees them; false: it cannot see it. */
static __always_inline bool current_ids(__u32 *pid, __u32 *tid)
{
	struct bpf_pidns_info ns;
	__u64 id;

	if (!cfg_pidns_ino) {
		id = bpf_get_current_pid_tgid();
		*pid = id >> 32;
		*tid = (__u32)id;
		return true;
	}
	if (bpf_get_ns_current_pid_tgid(cfg_pidns_dev, cfg_pidns_ino, &ns, sizeof(ns)))
		return false;
	*pid = ns.tgid;
	*tid = ns.pid;
	return true;
}

/*
 * Whether task is fully the session's user's, as ptrace would have it for that
 * user (__ptrace_may_access, cap_ptrace_access_check): 0, or the FXS_LEFT_*
 * reason it is not. The objective credentials (real_cred) are what others act
 * on; cred differs only while the kernel overrides it for a moment.
 *  - real, effective and saved uid are the user's (a set-user-ID program);
 *  - in the initial user namespace, its permitted capabilities are among the
 *    client's (a program with file capabilities keeps the user's uids);
 *  - capabilities in a user namespace count only there: such a task is the
 *    user's when the namespace just below the initial one is the user's.
 */
static __always_inline int cred_check(const struct cred *cred)
{
	struct user_namespace *ns, *parent;
	__u64 prm = 0;

	if (BPF_CORE_READ(cred, uid.val) != cfg_uid || BPF_CORE_READ(cred, euid.val) != cfg_uid ||
	    BPF_CORE_READ(cred, suid.val) != cfg_uid)
		return FXS_LEFT_UID;
	ns = BPF_CORE_READ(cred, user_ns);
	if (BPF_CORE_READ(ns, level) == 0) {
		/* kernel_cap_t is one u64 since 6.3, two u32 before: the same bytes. */
		bpf_core_read(&prm, sizeof(prm), &cred->cap_permitted);
		return prm & ~cfg_caps ? FXS_LEFT_CAPS : 0;
	}
	for (int i = 0; i < 33; i++) {
		parent = BPF_CORE_READ(ns, parent);
		if (BPF_CORE_READ(parent, level) == 0)
			return BPF_CORE_READ(ns, owner.val) == cfg_uid ? 0 : FXS_LEFT_CAPS;
		ns = parent;
	}
	return FXS_LEFT_CAPS;
}

static __always_inline int creds_check(struct task_struct *task)
{
	return cred_check(BPF_CORE_READ(task, real_cred));
}

static __always_inline bool session_running(__u64 state, __u64 session)
{
	return (state & FXS_STATE_MASK) == FXS_ST_RUNNING &&
	       (state >> FXS_SESSION_SHIFT) == session;
}

/* Attach the thread's names to its first sample, and to the first after a rename. */
static __always_inline bool name_changed(struct scratch *s, struct task_struct *task, __u32 tid)
{
	__u64 *b = (__u64 *)s->comm.thread, *a;
	struct fxs_comm *last;

	bpf_get_current_comm(s->comm.thread, sizeof(s->comm.thread));
	if (s->last_tid == tid && s->last_name[0] == b[0] && s->last_name[1] == b[1])
		return false;
	last = bpf_map_lookup_elem(&names, &tid);
	if (last) {
		a = (__u64 *)last->thread;
		if (a[0] == b[0] && a[1] == b[1]) {
			s->last_tid = tid;
			s->last_name[0] = b[0];
			s->last_name[1] = b[1];
			return false;
		}
	}
	BPF_CORE_READ_STR_INTO(&s->comm.process, task, group_leader, comm);
	return true;
}

/* Frames one part of a walk takes at most (fp_walk_part()), and the parts of a walk. */
#define FXS_FP_PART  64
#define FXS_FP_PARTS ((FXS_MAX_FRAMES + FXS_FP_PART) / FXS_FP_PART)

/*
 * Up to FXS_FP_PART frames more of the walk in fp_walk's slot: 1 when the
 * walk is over. Slot 1 (the A/B check's) walks as walk_simple, slot 0 as
 * cfg_walker says. Global: the verifier checks it once, on its own, however
 * many parts a walk takes.
 */
__noinline int fp_walk_part(__u32 slot)
{
	struct fxs_fp_walk *w = bpf_map_lookup_elem(&fp_walk, &slot);
	bool simple = slot != 0 || cfg_walker == FXS_WALK_SIMPLE;

	if (!w)
		return 1;
	for (int i = 0; i < FXS_FP_PART; i++) {
		if (simple ? walk_simple_step(w) : walk_fast_step(w))
			return 1;
	}
	return 0;
}

/*
 * The frame-pointer walk in fp_walk's slot from the registers fp, sp and ra
 * (sp and ra: riscv64's first frame), at most max frames. NULL: no slot.
 */
static __always_inline struct fxs_fp_walk *fp_walk_run(__u32 slot, __u64 fp, __u64 sp, __u64 ra,
						       __u32 max)
{
	struct fxs_fp_walk *w = bpf_map_lookup_elem(&fp_walk, &slot);
	int i;

	if (!w)
		return NULL;
	fp_walk_start(w, fp, sp, ra, max);
	for (i = 0; i < FXS_FP_PARTS; i++) {
		if (fp_walk_part(slot))
			break;
	}
	/* Never (the parts hold FXS_MAX_FRAMES + 1 steps): a walk still going is cut. */
	if (i == FXS_FP_PARTS)
		w->flags |= FXS_SF_TRUNCATED;
	return w;
}

/* A walk's frames 1.. into frames[1..] (frames[0] holds the pc): the frame count. */
static __always_inline __u32 fp_walk_copy(struct fxs_fp_walk *w, __u64 *frames, __u8 *flags)
{
	__u32 n = w->n;

	if (n > FXS_MAX_FRAMES)
		n = FXS_MAX_FRAMES;
	if (n < 1)
		n = 1;
	bpf_probe_read_kernel(&frames[1], (n - 1) * sizeof(__u64), &w->frames[1]);
	*flags |= w->flags;
	return n;
}

/*
 * The frame-pointer walk of fxsampler's walkers (cfg_walker fast or simple)
 * into frames, from the registers fp, sp and ra (sp and ra: riscv64's first
 * frame).
 */
static __always_inline __u32 walk_fp(__u64 *frames, __u64 fp, __u64 sp, __u64 ra, __u8 *flags)
{
	struct fxs_fp_walk *w = fp_walk_run(0, fp, sp, ra, cfg_max_frames);

	if (!w) {
		*flags |= FXS_SF_STOP_FAULT;
		return 1;
	}
	return fp_walk_copy(w, frames, flags);
}

/*
 * FXS_WALK_AB: walk_fast in slot 0 and walk_simple in slot 1 from the same
 * registers; count whether both gave the same frame count, flags and
 * frames. Global: verified on its own. sp and ra are read on every arch
 * (barrier_var), though only riscv64's walk uses them: clang leaves an
 * argument its callee ignores unset, and the verifier rejects a global
 * function's call whose argument registers are not scalars.
 */
__noinline int ab_compare(__u64 fp, __u64 sp, __u64 ra, __u32 max)
{
	struct fxs_fp_walk *a, *b;
	__u32 zero = 0, n;
	struct walk_ab *ab;
	bool same;

	barrier_var(sp);
	barrier_var(ra);
	if (cfg_walker != FXS_WALK_AB)
		return 0;
	ab = bpf_map_lookup_elem(&walk_ab, &zero);
	a = fp_walk_run(0, fp, sp, ra, max);
	b = fp_walk_run(1, fp, sp, ra, max);
	if (!ab || !a || !b)
		return 0;
	n = a->n;
	same = n == b->n && a->flags == b->flags;
	for (int i = 1; same && i < FXS_MAX_FRAMES; i++) {
		if (i >= n)
			break;
		if (a->frames[i] != b->frames[i])
			same = false;
	}
	if (same)
		ab->agree++;
	else
		ab->differ++;
	return 0;
}

/*
 * The sample's user stack into frames[1..] (frames[0] holds the pc), by the
 * walker cfg_walker names, from the registers fp, sp and ra; the frame
 * count, stop reasons into *flags.
 */
static __always_inline __u32 walk(void *ctx, __u64 *frames, __u64 fp, __u64 sp, __u64 ra,
				  __u8 *flags)
{
	struct fxs_fp_walk *w;
	__u32 zero = 0;

	if (cfg_walker == FXS_WALK_PLAIN)
		return walk_plain(frames, fp, cfg_max_frames, flags);
	if (cfg_walker == FXS_WALK_GETSTACK)
		return walk_getstack(ctx, frames, flags);
	if (cfg_walker == FXS_WALK_NONE)
		return 1;
	if (cfg_walker == FXS_WALK_AB) {
		/* The record is walk_fast's, in slot 0. */
		ab_compare(fp, sp, ra, cfg_max_frames);
		w = bpf_map_lookup_elem(&fp_walk, &zero);
		if (!w)
			return 1;
		return fp_walk_copy(w, frames, flags);
	}
	return walk_fp(frames, fp, sp, ra, flags);
}

SEC("perf_event")
int fxs_sample(struct bpf_perf_event_data *ctx)
{
	__u64 session = bpf_get_attach_cookie(ctx);
	struct task_struct *task;
	struct fxs_counters *c;
	struct scratch *s;
	__u64 ip, fp, sp, ra, old, size;
	struct fxs_cfi_regs regs;
	__u8 unwind_end = 0;
	__u32 zero = 0, pid, tid, cpu, n;
	__u8 *target = NULL, nk;
	bool new_name;
	void *ring;
	long err;

	c = bpf_map_lookup_elem(&counters, &zero);
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!c || !s)
		return 0;
	count(c, FXS_CNT_FIRED);

	if (!session_running(*(volatile __u64 *)&fxs_state, session)) {
		count(c, FXS_CNT_DROP_NOT_RUNNING);
		return 0;
	}

	/* A task outside the loader's pid namespace is none of its business. */
	if (!current_ids(&pid, &tid) ||
	    (cfg_filter_pids && !(target = bpf_map_lookup_elem(&targets, &pid)))) {
		count(c, FXS_CNT_FILTERED);
		return 0;
	}

	task = bpf_get_current_task_btf();
	if (pid == 0 || (task->flags & PF_KTHREAD)) {
		count(c, FXS_CNT_DROP_KTHREAD);
		return 0;
	}
	if (cfg_check_creds && ((target && *target != FXS_TARGET_YES) || creds_check(task))) {
		count(c, FXS_CNT_FILTERED_CREDS);
		return 0;
	}

	s->hdr.flags = 0;
	/*
	 * perf's regs are the interrupted ones: the thread's own if it ran in
	 * user space. libbpf's PT_REGS_* name each arch's pc and frame pointer
	 * (x86 ip/bp, arm64 pc/x29, riscv64 pc/s0); sp and ra serve riscv64's
	 * first frame only (fxs_frame_step).
	 */
	ip = PT_REGS_IP((struct pt_regs *)&ctx->regs);
	if (fxs_user_addr(ip)) {
		fp = PT_REGS_FP((struct pt_regs *)&ctx->regs);
		sp = PT_REGS_SP((struct pt_regs *)&ctx->regs);
		ra = PT_REGS_RET((struct pt_regs *)&ctx->regs);
		if (cfg_unwind != FXS_UNWIND_FP)
			cfi_regs_ctx((struct pt_regs *)&ctx->regs, &regs);
	} else {
		/* In the kernel: start from the registers saved at kernel entry. */
		struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs(task);

		ip = PT_REGS_IP_CORE(uregs);
		fp = PT_REGS_FP_CORE(uregs);
		sp = PT_REGS_SP_CORE(uregs);
		ra = PT_REGS_RET_CORE(uregs);
		if (cfg_unwind != FXS_UNWIND_FP)
			cfi_regs_task(uregs, &regs);
		s->hdr.flags |= FXS_SF_PC_IS_RETURN;
	}
	if (ip == 0) {
		count(c, FXS_CNT_DROP_NO_REGS);
		return 0;
	}

	s->frames[0] = ip;
	if (cfg_unwind != FXS_UNWIND_FP)
		n = walk_cfi(s->frames, &regs, pid, cfg_max_frames, &s->hdr.flags, &unwind_end);
	else
		n = walk(ctx, s->frames, fp, sp, ra, &s->hdr.flags);
	new_name = name_changed(s, task, tid);

	cpu = bpf_get_smp_processor_id();
	s->hdr.time_ns = bpf_ktime_get_boot_ns();
	s->hdr.pid = pid;
	s->hdr.tid = tid;
	s->hdr.cpu = cpu;
	s->hdr.nr_frames = n;
	s->hdr.left_reason = 0;
	s->hdr.unwind_end = unwind_end;
	s->hdr.kind = FXS_KIND_SAMPLE;
	s->hdr.pad[0] = s->hdr.pad[1] = s->hdr.pad[2] = 0;
	s->hdr.pad2 = 0;
	if (n > FXS_MAX_FRAMES)
		n = FXS_MAX_FRAMES;
	/* In the kernel with --kernel: its stack after the user frames. */
	nk = 0;
	if (s->hdr.flags & FXS_SF_PC_IS_RETURN)
		nk = kstack_get(ctx, &s->frames[n]);
	s->hdr.nr_kframes = nk;
	n += nk;
	size = sizeof(s->hdr) + n * sizeof(__u64);
	if (new_name) {
		s->hdr.flags |= FXS_SF_HAS_COMM;
		/*
		 * Move the names right behind the frames: the record carries only
		 * what it needs. The areas may overlap and the target is lower, so
		 * copy forward, word by word.
		 */
		__u64 *src = (__u64 *)&s->comm, *dst = &s->frames[n];

		for (int i = 0; i < 4; i++)
			dst[i] = src[i];
		size += sizeof(s->comm);
	}
	/*
	 * From here on what was decided before goes through the scratch: see
	 * rec_size (new_name and the walk's end are constants on some paths,
	 * and a branch on a constant asks for its precision).
	 */
	s->wake = new_name || cfi_wants_reader(unwind_end);
	/* A Python process's frames after all that (python.bpf.h). */
	s->py_len = 0;
	if (cfg_python) {
		s->rec_size = size;
		py_walk(pid, tid);
		size = s->rec_size + (s->py_len <= FXS_PY_SECTION_MAX ? s->py_len : 0);
	}

	/* Announce the write, then re-check: stop waits for this count to drain. */
	old = __sync_fetch_and_add(&fxs_state, FXS_INFLIGHT_ONE);
	if (!session_running(old, session)) {
		__sync_fetch_and_sub(&fxs_state, FXS_INFLIGHT_ONE);
		count(c, FXS_CNT_DROP_NOT_RUNNING);
		return 0;
	}
	ring = bpf_map_lookup_elem(&rings, &cpu);
	err = -1;
	if (ring && size <= sizeof(*s)) {
		/*
		 * Wake the reader only for a new thread (so user space reads the
		 * process's mappings while it still lives) or a ring past its fill
		 * mark, or a CFI walk that lacked its tables (cfi_wants_reader());
		 * otherwise it drains on its timer.
		 */
		__u64 flags = s->wake || bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) > cfg_wake_bytes
				      ? BPF_RB_FORCE_WAKEUP
				      : BPF_RB_NO_WAKEUP;

		err = bpf_ringbuf_output(ring, s, size, flags);
	}
	__sync_fetch_and_sub(&fxs_state, FXS_INFLIGHT_ONE);
	if (err) {
		count(c, FXS_CNT_DROP_RING_FULL);
		return 0;
	}

	count(c, FXS_CNT_WRITTEN);
	if (s->hdr.flags & FXS_SF_TRUNCATED)
		count(c, FXS_CNT_STOP_TRUNCATED);
	if (s->hdr.flags & FXS_SF_STOP_FAULT)
		count(c, FXS_CNT_STOP_FAULT);
	if (s->hdr.flags & FXS_SF_STOP_BAD_FP)
		count(c, FXS_CNT_STOP_BAD_FP);
	if (s->hdr.flags & FXS_SF_HAS_COMM) {
		__u32 nf = s->hdr.nr_frames;

		if (nf > FXS_MAX_FRAMES)
			nf = FXS_MAX_FRAMES;
		struct fxs_comm *names_in_record =
			(struct fxs_comm *)&s->frames[nf + (s->hdr.nr_kframes & 0x7f)];
		__u64 *name = (__u64 *)names_in_record->thread;

		bpf_map_update_elem(&names, &tid, names_in_record, BPF_ANY);
		s->last_tid = tid;
		s->last_name[0] = name[0];
		s->last_name[1] = name[1];
	}
	return 0;
}

/*
 * Put a record that is not a sample into the ring, while the session runs,
 * stamped now. The stamp comes after the write is counted in flight: these
 * programs may be preempted, and the reader hands on a record only once no
 * write stamped before it can still be on its way (bpf_sampler's horizon).
 */
static __always_inline void emit(struct fxs_sample *rec, __u64 size)
{
	__u32 cpu = bpf_get_smp_processor_id();
	void *ring = bpf_map_lookup_elem(&rings, &cpu);
	__u64 old;

	if (!ring)
		return;
	old = __sync_fetch_and_add(&fxs_state, FXS_INFLIGHT_ONE);
	if ((old & FXS_STATE_MASK) == FXS_ST_RUNNING) {
		rec->time_ns = bpf_ktime_get_boot_ns();
		bpf_ringbuf_output(ring, rec, size, BPF_RB_FORCE_WAKEUP);
	}
	__sync_fetch_and_sub(&fxs_state, FXS_INFLIGHT_ONE);
}

/*
 * An exec replaces a process's mappings: tell user space in the ring, ahead of
 * the new image's samples, with the new name. Not a sample: no counter moves.
 * In a session for a non-root client, an exec that changes the credentials (a
 * set-user-ID, set-group-ID or file-capability program: the kernel's secure
 * exec) takes the process out of the targets for good (FXS_TARGET_LEFT), even
 * if it drops its privileges later, and only that it left is told: not its
 * new name.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(fxs_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	struct fxs_comm comm = {0};
	__u32 pid, tid;
	struct {
		struct fxs_sample hdr;
		struct fxs_comm comm;
	} out = {0};
	__u8 *target = NULL, left = FXS_TARGET_LEFT;
	int why;

	if (!current_ids(&pid, &tid) ||
	    (cfg_filter_pids && !(target = bpf_map_lookup_elem(&targets, &pid))))
		return 0;
	if (target && *target != FXS_TARGET_YES)
		return 0;
	cfi_forget_pid(pid);
	/* The new image is walked as Python once user space has seen its interpreter. */
	if (cfg_python)
		bpf_map_delete_elem(&py_procs, &pid);
	out.hdr.pid = pid;
	out.hdr.tid = tid;
	out.hdr.cpu = bpf_get_smp_processor_id();
	if (cfg_check_creds) {
		why = creds_check(task);
		if (!why && BPF_CORE_READ_BITFIELD_PROBED(bprm, secureexec))
			why = FXS_LEFT_SECURE;
		if (why) {
			bpf_map_update_elem(&targets, &pid, &left, BPF_EXIST);
			out.hdr.flags = FXS_SF_LEFT;
			out.hdr.left_reason = why;
			emit(&out.hdr, sizeof(out.hdr));
			return 0;
		}
	}
	out.hdr.flags = FXS_SF_EXEC | FXS_SF_HAS_COMM;
	bpf_get_current_comm(comm.thread, sizeof(comm.thread));
	__builtin_memcpy(comm.process, comm.thread, sizeof(comm.process));
	out.comm = comm;
	/* The exec'ing thread becomes the leader: its name is the process's. */
	bpf_map_update_elem(&names, &tid, &comm, BPF_ANY);
	emit(&out.hdr, sizeof(out));
	return 0;
}

#include "mmap.bpf.h"

/*
 * Children of a target become targets at fork, before they can run. With
 * mapping events, a fork of a target (host-wide: of anyone) is told, so that
 * the child gets its parent's mappings.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(fxs_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid, cpid, tid;
	__u8 one = FXS_TARGET_YES, *target;

	/* A new thread joins its process, which is already a target or not. */
	if (parent->tgid == child->tgid)
		return 0;
	/* The fork runs in the parent: its ids come as the loader sees them. */
	if (!current_ids(&ppid, &tid))
		return 0;
	cpid = child->tgid;
	if (cfg_pidns_ino) {
		/* The child's pid in its own namespace, which is the parent's. */
		struct pid *p = BPF_CORE_READ(child, thread_pid);
		unsigned int level = BPF_CORE_READ(p, level);

		cpid = BPF_CORE_READ(p, numbers[level & 31].nr);
	}
	/* A new process never walks by the CFI ranges of a dead one that had its pid. */
	cfi_forget_pid(cpid);
	if ((cfg_filter_pids && !cfg_inherit) || (!cfg_filter_pids && !cfg_mmap_events))
		return 0;
	if (cfg_filter_pids) {
		bpf_map_delete_elem(&gone, &cpid);
		/* A child that is not fully the user's (it cannot be, yet) stays out. */
		target = bpf_map_lookup_elem(&targets, &ppid);
		if (!target || *target != FXS_TARGET_YES || (cfg_check_creds && creds_check(child)))
			return 0;
		bpf_map_update_elem(&targets, &cpid, &one, BPF_NOEXIST);
	}
	/* Told of the fork, user space gives the child the parent's ranges: it has them now. */
	if (cfg_mmap_events && mm_fork(ppid, cpid))
		cfi_fork(ppid, cpid);
	return 0;
}

#include "offcpu.bpf.h"
