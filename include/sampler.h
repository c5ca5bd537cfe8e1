/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What crosses the BPF / user-space boundary: the sample record, the state word
 * and the per-CPU counters. Compiled on both sides: no functions, no includes
 * beyond the fixed-width types, explicit padding only.
 */
#ifndef FXS_INCLUDE_SAMPLER_H
#define FXS_INCLUDE_SAMPLER_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define FXS_COMM_LEN	   16
#define FXS_DEFAULT_FRAMES 255
/*
 * The deepest user stack a walk takes (record --max-frames). FXT's backtrace
 * record holds 255 frames (an 8-bit count): a deeper stack's outer frames go
 * into a blob record before it (fxt/fxt_stream.h). A power of two: the
 * walkers index their frames with n & (FXS_MAX_FRAMES - 1) for the verifier.
 */
#define FXS_MAX_FRAMES 512
/*
 * Kernel frames of a sample or an off-CPU interval (record --kernel): the
 * kernel's own limit for a BPF stack (perf_event_max_stack's default).
 */
#define FXS_MAX_KFRAMES 127
#define FXS_MAX_CPUS	1024

/*
 * The stack walker of the sampler (its cfg_walker, set before load). fast and
 * simple are fxsampler's (record --walker); the others exist for the bench
 * (bench/fxsbench.c). The verifier drops every walker but the one a program
 * is loaded with.
 */
enum fxs_walker {
	FXS_WALK_FAST = 0,     /* walk_fast: page-bounded bulk reads (the default) */
	FXS_WALK_SIMPLE = 1,   /* walk_simple: one read per frame */
	FXS_WALK_PLAIN = 2,    /* walk_plain: the textbook walker, the bench's fixed baseline */
	FXS_WALK_GETSTACK = 3, /* the kernel's unwinder, bpf_get_stack(BPF_F_USER_STACK) */
	FXS_WALK_NONE = 4,     /* no walk, frame 0 only: the cost of the rest of the program */
	FXS_WALK_AB = 5, /* fast and simple on every sample, agreement counted; fast's record */
};

/*
 * The state word, one u64 shared by the BPF program and user space, packed like
 * Fuchsia's ThreadSampler::state_:
 *
 *   bits  0..3   state (enum below)
 *   bits  8..31  writes in flight: the program adds FXS_INFLIGHT_ONE before it
 *                writes a sample into a ring and subtracts it when done
 *   bits 32..63  session id: bumped on every stop; each perf event carries the
 *                session it was armed for as its BPF cookie, so a late sample of
 *                an old session is dropped
 */
#define FXS_STATE_MASK	   0xfULL
#define FXS_INFLIGHT_SHIFT 8
#define FXS_INFLIGHT_ONE   (1ULL << FXS_INFLIGHT_SHIFT)
#define FXS_INFLIGHT_MASK  (0xffffffULL << FXS_INFLIGHT_SHIFT)
#define FXS_SESSION_SHIFT  32
#define FXS_SESSION_ONE	   (1ULL << FXS_SESSION_SHIFT)

#define FXS_ST_UNALLOCATED 0
#define FXS_ST_CONFIGURED  1
#define FXS_ST_RUNNING	   2
#define FXS_ST_STOPPING	   3
#define FXS_ST_DESTROYING  4

/* fxs_sample.flags */
#define FXS_SF_PC_IS_RETURN 0x01 /* landed in the kernel: frame 0 is where user code resumes */
#define FXS_SF_TRUNCATED    0x02 /* the walk hit max_frames */
#define FXS_SF_STOP_FAULT   0x04 /* a frame read faulted */
#define FXS_SF_STOP_BAD_FP  0x08 /* an fp did not grow or was misaligned */
#define FXS_SF_HAS_COMM	    0x10 /* struct fxs_comm follows the frames */
#define FXS_SF_EXEC	    0x20 /* not a sample: pid execed (nr_frames is 0) */
#define FXS_SF_OFFCPU	    0x80 /* not a sample: an off-CPU interval (struct fxs_offcpu) */
/*
 * Not a sample: pid left the target set at an exec that changed its
 * credentials (nr_frames is 0, no names); left_reason holds the FXS_LEFT_*
 * reason. flags has no free bit left: a new kind of record needs a field.
 */
#define FXS_SF_LEFT 0x40

/* Values of the targets map: a target, or one that left (FXS_SF_LEFT) and is dropped. */
#define FXS_TARGET_YES	1
#define FXS_TARGET_LEFT 2

/* Why a target left (fxs_sample.left_reason of an FXS_SF_LEFT record). */
#define FXS_LEFT_UID	1 /* its real, effective or saved uid is not the session's */
#define FXS_LEFT_CAPS	2 /* it holds capabilities the session's client does not */
#define FXS_LEFT_SECURE 3 /* a secure exec otherwise: set-group-ID, an LSM transition */

/*
 * One sample in a ring buffer: this header, then nr_frames u64 PCs, innermost
 * first, then nr_kframes u64 kernel PCs, innermost first (record --kernel: a
 * sample that landed in the kernel; 0 otherwise), then a struct fxs_comm when
 * FXS_SF_HAS_COMM is set (the first sample of a thread in a session, and the
 * first after a rename).
 */
struct fxs_sample {
	__u64 time_ns; /* bpf_ktime_get_boot_ns() */
	__u32 pid;     /* thread group id */
	__u32 tid;
	__u16 cpu;
	__u16 nr_frames; /* user frames, <= FXS_MAX_FRAMES */
	__u8 flags;
	__u8 left_reason; /* FXS_LEFT_* of an FXS_SF_LEFT record, else 0 */
	__u8 unwind_end;  /* why a CFI walk ended (FXS_UE_*), 0 for --unwind=fp */
	__u8 nr_kframes;  /* kernel frames after the user frames, <= FXS_MAX_KFRAMES */
	/*
	 * What the record is (FXS_KIND_*): flags has no bit left for a new kind.
	 * A reader that knows only samples sees flags 0 and no frames in the
	 * others, and skips them.
	 */
	__u8 kind;
	__u8 pad[3]; /* explicit: the frames that follow are 8-byte aligned */
	__u32 pad2;
};

/* fxs_sample.kind */
#define FXS_KIND_SAMPLE 0 /* a sample, or what its flags say (exec, left, off-CPU) */
#define FXS_KIND_MMAP	1 /* an executable mapping was made: struct fxs_mmap follows */
#define FXS_KIND_FORK	2 /* pid was forked by a target (or, host-wide, by anyone): fxs_fork */
/*
 * pid's exec replaced its memory, before the new image was mapped: user
 * space's, from the side band's exec comm record (never from BPF). Header only.
 */
#define FXS_KIND_EXEC 3

/*
 * Why a CFI walk (record --unwind=auto|cfi) ended: fxs_sample.unwind_end.
 * Every stack but END stopped short of the outermost frame; none goes on
 * with a guess. With FXS_UE_FP_FALLBACK (auto only), the walk did not stop
 * there but took the frame-pointer chain from that frame on, as --unwind=fp
 * would have (its own stop flags then say how it ended).
 */
enum fxs_unwind_end {
	FXS_UE_NONE = 0,	/* not a CFI walk (--unwind=fp) */
	FXS_UE_END = 1,		/* the outermost frame: an undefined return address, or 0 */
	FXS_UE_TRUNCATED = 2,	/* the walk hit max_frames */
	FXS_UE_NO_PROC = 3,	/* the process's mappings are not loaded yet */
	FXS_UE_NO_TABLE = 4,	/* its module's table is not loaded (yet, or evicted) */
	FXS_UE_NO_MODULE = 5,	/* a pc in no file-backed module (JIT, anonymous code) */
	FXS_UE_NO_ROW = 6,	/* a pc in a module that no CFI covers */
	FXS_UE_UNSUPPORTED = 7, /* a CFA or return-address rule the walker does not apply */
	FXS_UE_SIGNAL = 8,	/* a signal frame */
	FXS_UE_FAULT = 9,	/* a read of the stack faulted */
	FXS_UE_BAD_FRAME = 10,	/* the CFA did not grow, or was misaligned */
	FXS_UE_NR = 11,
};
#define FXS_UE_REASON(u) ((u)&0x3f)
/*
 * Some frame's module was found by the file the kernel maps at its pc
 * (bpf/vma.bpf.h), not by the ranges user space published for the process:
 * its first milliseconds, or a library mapped since. Not a mark on the
 * stack: the rule applied is the module's own, as with a range.
 */
#define FXS_UE_BY_FILE	   0x40
#define FXS_UE_FP_FALLBACK 0x80

/*
 * Python frames (bpf/python.bpf.h). A sample of a thread of a process user
 * space has put in the py_procs map (its interpreter's offsets, struct
 * fxs_py_proc) carries, after everything above (frames, kernel frames,
 * names), a Python section: struct fxs_py_hdr, then nr struct fxs_py_frame,
 * innermost first. A reader finds it by the record's size and the magic;
 * other samples end where they always did.
 */
#define FXS_PY_MAGIC	   0x5950 /* "PY" */
#define FXS_PY_MAX_FRAMES  64	  /* Python frames per sample: a deeper stack is cut (TRUNCATED) */
#define FXS_PY_MAX_THREADS 64	  /* thread states searched for the sampled thread's */
#define FXS_PY_NO_FIELD	   0xffff /* an offset the version does not have */

/* Why a Python walk ended: fxs_py_hdr.end. */
enum fxs_py_end {
	FXS_PY_END_OK = 0,	  /* the thread's first frame was reached */
	FXS_PY_END_TRUNCATED = 1, /* FXS_PY_MAX_FRAMES frames were taken */
	FXS_PY_END_NO_TSTATE = 2, /* no thread state for the thread (not a Python thread, yet) */
	FXS_PY_END_FAULT = 3,	  /* a read of the interpreter's memory faulted */
	FXS_PY_END_NR = 4,
};

struct fxs_py_hdr {
	__u16 magic; /* FXS_PY_MAGIC */
	__u8 nr;     /* frames that follow */
	__u8 end;    /* enum fxs_py_end */
	__u32 pad;
};

/* fxs_py_frame.flags */
#define FXS_PYF_ENTRY 0x01 /* the first frame of an eval-loop invocation (3.11 is_entry) */

struct fxs_py_frame {
	__u64 code;  /* the code object's address */
	__s32 lasti; /* the instruction's offset in code units (2 bytes); < 0: before the first */
	/*
	 * Two 32-bit words of the code object at fxs_py_proc.code_check, mixed
	 * (FXS_PY_CHECK()): a code object freed and another made at its address
	 * is told apart from it. The walk reads them for the innermost frame
	 * only: the others carry FXS_PY_UNCHECKED, for user space to read. The
	 * top bit is FXS_PYF_ENTRY << 31.
	 */
	__u32 check;
};

/*
 * The mix of fxs_py_frame.check, from the two u32 words at code_check
 * (co_firstlineno, co_nlocalsplus): 30 bits, bit 30 being nlocalsplus's
 * bit 14 (16,384 locals), so that FXS_PY_UNCHECKED is none.
 */
#define FXS_PY_CHECK(lo, hi) (((lo) ^ ((hi) << 16) ^ ((hi) >> 16)) & 0x3fffffffU)
#define FXS_PY_UNCHECKED     0x40000000U /* the code object was not read by the walk */

/* The interpreter of a process: the py_procs map's value, keyed by pid. */
struct fxs_py_proc {
	__u64 interp_head;    /* address of _PyRuntime.interpreters.head in the process */
	__u16 interp_threads; /* PyInterpreterState: threads.head */
	__u16 ts_next;	      /* PyThreadState: next */
	__u16 ts_native_tid;  /* native_thread_id */
	__u16 ts_frame;	      /* 3.11: cframe (then cframe_frame); 3.13: current_frame */
	__u16 cframe_frame;   /* _PyCFrame.current_frame, or FXS_PY_NO_FIELD */
	__u16 f_code;	      /* _PyInterpreterFrame: f_code / f_executable */
	__u16 f_previous;
	__u16 f_instr;	     /* prev_instr / instr_ptr */
	__u16 f_entry;	     /* is_entry (a byte), or FXS_PY_NO_FIELD */
	__u16 f_owner;	     /* owner (a byte) */
	__u16 code_adaptive; /* PyCodeObject: co_code_adaptive */
	__u16 code_check;    /* the 8 bytes fxs_py_frame.check mixes */
	__u8 version;	     /* the minor version: 11 */
	__u8 pad[7];
};

struct fxs_comm {
	char thread[FXS_COMM_LEN];
	char process[FXS_COMM_LEN]; /* the group leader's comm */
};

/*
 * An executable mapping, from the kernel's PERF_RECORD_MMAP2 (read by user
 * space from its side-band events and put among the rings' records in time
 * order, in the rings' format, see bpf/mmap.bpf.h): after the header (kind
 * FXS_KIND_MMAP, pid and tid of the task that mapped it, time_ns when it was
 * mapped), this struct, then path_len bytes of the path the kernel gave (NUL
 * included; a pseudo name such as "[vdso]" for a mapping of no file).
 */
#define FXS_PATH_MAX	 4096
#define FXS_BUILD_ID_MAX 20
struct fxs_mmap {
	__u64 start;
	__u64 len;
	__u64 pgoff; /* file offset of start, in bytes */
	__u64 ino;
	__u32 maj, min; /* the file's device */
	__u32 prot;	/* PROT_* */
	__u32 flags;	/* MAP_* */
	__u8 build_id[FXS_BUILD_ID_MAX];
	__u8 build_id_size; /* 0: the kernel gave none (before 5.12, or unreadable) */
	__u8 pad;
	__u16 path_len;
};

/* A fork (FXS_KIND_FORK): the header names the child (pid, tid); then this. */
struct fxs_fork {
	__u32 ppid; /* the parent's thread group */
	__u32 pad;
};
/*
 * Per-CPU counters, one slot each. Every time the program fires, exactly one of
 * the outcome counters (written .. drop_kthread, and filtered_creds) is
 * incremented, so
 *   fired = written + filtered + drop_not_running + drop_ring_full
 *         + drop_no_regs + drop_kthread + filtered_creds.
 * The stop_* counters describe how the written samples' walks ended.
 * filtered_creds comes last so that STATUS replies keep the order older
 * clients know (docs/PROTOCOL.md). User space moves a sample it drops for
 * its credentials after the kernel wrote it from written to filtered_creds.
 */
enum fxs_counter {
	FXS_CNT_FIRED,
	FXS_CNT_WRITTEN,
	FXS_CNT_FILTERED,	  /* not a target process */
	FXS_CNT_DROP_NOT_RUNNING, /* state not RUNNING, or a stale session */
	FXS_CNT_DROP_RING_FULL,
	FXS_CNT_DROP_NO_REGS, /* no user registers to start from */
	FXS_CNT_DROP_KTHREAD, /* a kernel thread or the idle task */
	FXS_CNT_STOP_TRUNCATED,
	FXS_CNT_STOP_FAULT,
	FXS_CNT_STOP_BAD_FP,
	FXS_CNT_FILTERED_CREDS, /* a target not fully the session's user's at that moment */
	FXS_CNT_NR,
};

struct fxs_counters {
	__u64 v[FXS_CNT_NR];
};

/*
 * Counters of the mapping events, in the sampler's style. Each executable
 * mapping the kernel reports counts one outcome:
 *   seen = not_running + filtered + filtered_creds + written + ring_full
 * (counted by user space as it reads perf's side-band rings; ring_full: the
 * kernel's PERF_RECORD_LOST count), and each fork the BPF program reports
 * counts fork_written or fork_ring_full (per CPU, in the kernel).
 */
enum fxs_mmap_counter {
	FXS_MC_SEEN,
	FXS_MC_NOT_RUNNING,    /* state not RUNNING */
	FXS_MC_FILTERED,       /* not a target (or a kernel thread) */
	FXS_MC_FILTERED_CREDS, /* a target not fully the session's user's, or one that left */
	FXS_MC_WRITTEN,
	FXS_MC_RING_FULL,
	FXS_MC_FORK_WRITTEN,
	FXS_MC_FORK_RING_FULL,
	FXS_MC_NR,
};

struct fxs_mmap_counters {
	__u64 v[FXS_MC_NR];
};

/*
 * Off-CPU intervals (record --off-cpu), from the sched_switch program.
 *
 * What a target thread was doing when it left the CPU. The kernel's
 * prev_state, simplified: a preempted (or yielding) thread is runnable.
 */
enum fxs_offcpu_state {
	FXS_OFF_RUNNABLE = 0,	     /* preempted: wants the CPU */
	FXS_OFF_SLEEPING = 1,	     /* TASK_INTERRUPTIBLE: sleep, poll, pipe, futex */
	FXS_OFF_UNINTERRUPTIBLE = 2, /* TASK_UNINTERRUPTIBLE: disk, page faults, D state */
	FXS_OFF_STOPPED = 3,	     /* stopped or traced */
	FXS_OFF_OTHER = 4,	     /* parked, or a state this build does not know */
	FXS_OFF_NR_STATES = 5,
};

/*
 * One interval in a ring: a struct fxs_sample whose flags hold FXS_SF_OFFCPU
 * (and the walk's stop flags), time_ns the moment the thread left the CPU
 * and cpu the CPU it left; then this struct, then the thread's names as they
 * were when it ended (always: a thread that only sleeps is never sampled, so
 * nothing else names it, and it may be renamed while it waits), then
 * nr_frames PCs of the user stack it blocked in, innermost first, then
 * nr_kframes PCs of the kernel stack at the switch (record --kernel).
 */
struct fxs_offcpu {
	__u64 end_ns;  /* when it ran again (or the capture stopped) */
	__u16 end_cpu; /* where it ran again */
	__u8 state;    /* enum fxs_offcpu_state */
	__u8 at_stop;  /* 1: still off the CPU when the capture stopped */
	__u32 pad;
};

/*
 * Per-CPU off-CPU counters, one slot each, in the sampler's style. Every run
 * of the sched_switch program counts one of the outcomes for the thread that
 * leaves:
 *   switches = not_running + filtered + exiting + no_storage + started
 * and every started interval ends in exactly one of
 *   started = written + short + ring_full + closed_not_running + at_stop
 *           + unseen_end
 * (at_stop: closed when the capture stopped, and written; unseen_end: the
 * program did not see the thread come back, found when it leaves again or
 * exits; the sum holds once the capture has stopped).
 */
enum fxs_offcpu_counter {
	FXS_OC_SWITCHES,
	FXS_OC_NOT_RUNNING, /* state not RUNNING, or a stale session */
	FXS_OC_FILTERED,    /* not a target, a kernel thread or the idle task */
	FXS_OC_EXITING,	    /* the thread's last switch: it is dead */
	FXS_OC_NO_STORAGE,  /* no task storage could be had for it */
	FXS_OC_STARTED,
	FXS_OC_WRITTEN,
	FXS_OC_SHORT, /* shorter than --off-cpu=MIN */
	FXS_OC_RING_FULL,
	FXS_OC_CLOSED_NOT_RUNNING, /* ran again after the session ended */
	FXS_OC_AT_STOP,
	FXS_OC_UNSEEN_END,
	/*
	 * A target thread that was not fully the session client's when it left
	 * the CPU (see filtered_creds); last, so older readers keep their order.
	 */
	FXS_OC_FILTERED_CREDS,
	/*
	 * Of the written: intervals whose stack at the switch lacked a CFI
	 * table (a process's first milliseconds), walked again when the thread
	 * ran again, still in the same kernel entry, with the tables user space
	 * had published by then (bpf/offcpu_rewalk.bpf.h); those that could
	 * not be (the tables still missing, the thread gone from that entry or
	 * woken to die, a sample in the middle of the walk, the capture's stop),
	 * written with the stack of the switch; and those that lacked a table
	 * and were not held for it (a kernel without the hook or that preempts
	 * kernel code, a thread without rseq).
	 * An FXT record holds 15 arguments at most: the file's "offcpu"
	 * counter has those before these, its "offcpu_rewalk" these.
	 */
	FXS_OC_REWALKED,
	FXS_OC_REWALK_MISSED,
	FXS_OC_REWALK_NO_HOOK,
	FXS_OC_NR,
};

struct fxs_offcpu_counters {
	__u64 v[FXS_OC_NR];
};

#endif /* FXS_INCLUDE_SAMPLER_H */
