/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Python frames (record --python): for a sampled thread of a CPython process,
 * after its native walk, the chain of its _PyInterpreterFrames, as (code
 * object, instruction offset, check, entry flag) in the record's Python
 * section (include/sampler.h). User space names them later by reading each
 * code object once; this side only follows pointers: one read of the leaf
 * frame's page for the frames in it, one read for each other frame, one of
 * the leaf's code object (docs/performance.md: section p).
 *
 * The thread's PyThreadState: cached per tid and checked with one read
 * (native_thread_id), else found on the main interpreter's thread list. No
 * libc layout, no TLS: the same on every version that has native_thread_id.
 *
 * Only processes in py_procs pay: one hash lookup per sample (cfg_python
 * off: none; the verifier drops the call).
 */
#ifndef FXS_BPF_PYTHON_BPF_H
#define FXS_BPF_PYTHON_BPF_H

const volatile bool cfg_python = false;
/*
 * The walk as it was, for make bench's section p to measure beside today's
 * (FXS_BENCH_PY_WALK): FXS_PY_WALK_OLD reads each frame and each frame's code
 * object; FXS_PY_WALK_LEAF each frame, and the leaf's code object alone;
 * FXS_PY_WALK_WINDOW (the walk) as LEAF, the frames in the leaf's page taken
 * from one read of it.
 */
enum { FXS_PY_WALK_WINDOW = 0, FXS_PY_WALK_LEAF = 1, FXS_PY_WALK_OLD = 2 };
const volatile __u32 cfg_py_walk = FXS_PY_WALK_WINDOW;
/* The window's bytes below the leaf frame at most (within its page). */
const volatile __u32 cfg_py_window = 4095;

/*
 * A CPU's copy of the leaf frame's page up to the frame's end: CPython
 * pushes a thread's frames on its data stack (3.11+), each caller below its
 * callee, so the frames in that page are read at once. A PERCPU_ARRAY's
 * lookup is inlined; masked word indexes stay within its 8 KiB and more.
 */
#define PY_WIN_WORDS 1040 /* (4095 + 80) bytes read at most; & 1023 words, + 80 bytes */
struct py_window {
	__u64 w[PY_WIN_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_window);
} py_window SEC(".maps");

/* pid -> its interpreter's offsets; filled by user space when it sees one mapped. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct fxs_py_proc);
} py_procs SEC(".maps");

/* tid -> its PyThreadState, checked before each use. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u64);
} py_tstate SEC(".maps");

/*
 * (pid, code object) pairs met as a sample's innermost Python frame. User
 * space names a code object by reading it from the live process when it
 * drains the sample, on its timer (100 ms for record): a process that runs
 * a function for less than that and exits took the function's name with it.
 * A leaf not met before wakes the reader at once (py_wants_reader()).
 */
struct py_seen_key {
	__u32 pid;
	__u32 pad;
	__u64 code;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct py_seen_key);
	__type(value, __u8);
} py_seen SEC(".maps");

/* The bytes of the Python section at most: header and frames. */
#define FXS_PY_SECTION_MAX                                                                         \
	(sizeof(struct fxs_py_hdr) + FXS_PY_MAX_FRAMES * sizeof(struct fxs_py_frame))

/*
 * The word at addr, 0 when it cannot be read: the helper zeroes its buffer on
 * a fault, so no branch on its result. Such a branch split each iteration of
 * py_tstate_of()'s search in two, and Linux 6.1's verifier walked every
 * combination of the two past its 1M instructions (its scalars are all
 * precise in a program with subprograms, and the states of a loop's earlier
 * iterations, which would prune, are dropped as later ones miss them).
 */
static __always_inline __u64 py_read_ptr(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* The thread state of tid, or 0. */
static __always_inline __u64 py_tstate_of(const struct fxs_py_proc *p, __u32 tid)
{
	__u64 *cached = bpf_map_lookup_elem(&py_tstate, &tid), ts, interp;

	if (cached && *cached && py_read_ptr(*cached + p->ts_native_tid) == tid)
		return *cached;
	interp = py_read_ptr(p->interp_head);
	if (!interp)
		return 0;
	ts = py_read_ptr(interp + p->interp_threads);
	for (int i = 0; i < FXS_PY_MAX_THREADS && ts; i++) {
		if (py_read_ptr(ts + p->ts_native_tid) == tid) {
			bpf_map_update_elem(&py_tstate, &tid, &ts, BPF_ANY);
			return ts;
		}
		ts = py_read_ptr(ts + p->ts_next);
	}
	return 0;
}

/*
 * The thread state of tid in pid's interpreter, or 0. A global function of
 * its own: every way out of the thread list's loop ends here, and py_walk()
 * goes on from one state (Linux 6.1's verifier walked the frame loop again
 * for each iteration the search could end in, past its 1M instructions).
 */
__noinline long py_find_tstate(__u32 pid, __u32 tid)
{
	struct fxs_py_proc *p;

	if (!cfg_python)
		return 0;
	p = bpf_map_lookup_elem(&py_procs, &pid);
	return p ? (long)py_tstate_of(p, tid) : 0;
}

/*
 * Whether to wake the reader for a sample whose innermost Python frame runs
 * code: a pair not met before, at most once per 2 ms per CPU (a program that
 * makes code objects all the time must not wake it per sample). A pair met
 * while the wake was held back is not kept: its next sample asks again.
 */
static __always_inline bool py_wants_reader(struct scratch *sc, __u32 pid, __u64 code)
{
	struct py_seen_key k = {.pid = pid, .code = code};
	__u8 one = 1;
	__u64 now;

	if (bpf_map_lookup_elem(&py_seen, &k))
		return false;
	now = bpf_ktime_get_ns();
	if (now - sc->py_last_wake < 2000000ULL)
		return false;
	sc->py_last_wake = now;
	bpf_map_update_elem(&py_seen, &k, &one, BPF_ANY);
	return true;
}

/*
 * The Python section of pid's sample into the sampler's scratch at byte
 * offset rec_size (the record's size so far), its size in py_len (0 when
 * pid is no Python process). A global function: verified once, on its own,
 * so that its loops do not multiply the sampler's states.
 */
__noinline int py_walk(__u32 pid, __u32 tid)
{
	struct fxs_py_proc *p;
	struct fxs_py_hdr *h;
	struct fxs_py_frame *f;
	/*
	 * The 80 bytes read, and room for any masked field index. Pointer fields
	 * are 8-aligned: read as words, so that a strict-alignment verifier
	 * (riscv64) knows each read aligned.
	 */
	__u64 fw[17];
	__u64 frame, code, instr, chk, wlo = 0, d;
	__u32 zero = 0, nr, off, wlen = 0, entry, emask;
	struct py_window *win;
	struct scratch *sc;
	__u8 *base;
	int i;

	if (!cfg_python)
		return 0;
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return 0;
	sc->py_len = 0;
	off = sc->rec_size;
	p = bpf_map_lookup_elem(&py_procs, &pid);
	if (!p || off > sizeof(struct scratch) - FXS_PY_SECTION_MAX)
		return 0;
	base = (__u8 *)sc;
	__builtin_memset(fw, 0, sizeof(fw));
	h = (struct fxs_py_hdr *)(base + off);
	h->magic = FXS_PY_MAGIC;
	h->nr = 0;
	h->pad = 0;
	h->end = FXS_PY_END_NO_TSTATE;
	frame = py_find_tstate(pid, tid);
	if (!frame) {
		sc->py_len = sizeof(*h);
		return 0;
	}
	h->end = FXS_PY_END_FAULT;
	frame = py_read_ptr(frame + p->ts_frame);
	if (frame && p->cframe_frame != FXS_PY_NO_FIELD)
		frame = py_read_ptr(frame + p->cframe_frame);
	f = (struct fxs_py_frame *)(h + 1);
	/*
	 * The frames in the leaf's page, from one read of it (py_window): word
	 * loads, no helper call. A frame out of it (another page, a generator's
	 * frame on the heap, 3.13's entry frame on the C stack), unaligned, or
	 * whose code is NULL goes to the loop after, which reads it alone.
	 */
	win = bpf_map_lookup_elem(&py_window, &zero);
	if (win && frame && !(frame & 7) && cfg_py_walk == FXS_PY_WALK_WINDOW) {
		wlen = (__u32)(frame & 4095);
		if (wlen > cfg_py_window)
			wlen = cfg_py_window & 4088;
		wlo = frame - wlen;
		wlen += 80;
		if (bpf_probe_read_user(win->w, wlen, (const void *)wlo))
			wlen = 0;
	}
	emask = p->f_entry == FXS_PY_NO_FIELD ? 0 : 1;
	for (i = 0; i < FXS_PY_MAX_FRAMES && win; i++) {
		d = frame - wlo;
		if (!frame || (frame & 7) || d >= 4096 || d + 80 > wlen)
			break;
		code = win->w[((d + (p->f_code & 0x78)) >> 3) & 1023];
		if (!code)
			break;
		instr = win->w[((d + (p->f_instr & 0x78)) >> 3) & 1023];
		entry = ((__u8 *)win->w)[(d + (p->f_entry & 0x7f)) & 8191] & emask;
		frame = win->w[((d + (p->f_previous & 0x78)) >> 3) & 1023];
		f[i & (FXS_PY_MAX_FRAMES - 1)].code = code;
		instr -= code + p->code_adaptive;
		f[i & (FXS_PY_MAX_FRAMES - 1)].lasti = (__s32)((__s64)instr >> 1);
		f[i & (FXS_PY_MAX_FRAMES - 1)].check = FXS_PY_UNCHECKED | entry << 31;
	}
	/*
	 * The rest, one read a frame, of its 80 bytes. Where the loop before
	 * ended goes through memory (py_len, set at the end): unknown to the
	 * verifier, this loop is verified once, not once for each of the 64
	 * ends of the one before (70k instructions, not 340k). The clamp is for
	 * the verifier; the compiler must not see it, or it drops the masks.
	 *
	 * The code object's check (a freed object's address reused) is read
	 * for the leaf only, after the loop; the others carry FXS_PY_UNCHECKED
	 * and user space reads their check as it names them
	 * (lang/python_capture.c): an outer frame holds a reference to its code
	 * object, which lives as long as the frame.
	 */
	*(volatile __u32 *)&sc->py_len = i;
	i = *(volatile __u32 *)&sc->py_len;
	asm volatile("%0 &= 127" : "+r"(i));
	for (; i < FXS_PY_MAX_FRAMES; i++) {
		if (!frame) {
			h->end = FXS_PY_END_OK;
			break;
		}
		if (bpf_probe_read_user(fw, 80, (const void *)frame))
			break;
		code = fw[(p->f_code >> 3) & 15];
		instr = fw[(p->f_instr >> 3) & 15];
		frame = fw[(p->f_previous >> 3) & 15];
		chk = FXS_PY_UNCHECKED;
		if (!code ||
		    (cfg_py_walk == FXS_PY_WALK_OLD &&
		     bpf_probe_read_user(&chk, sizeof(chk), (const void *)(code + p->code_check))))
			break;
		f[i & (FXS_PY_MAX_FRAMES - 1)].code = code;
		instr -= code + p->code_adaptive;
		/*
		 * No branch in the loop but its ways out: 6.1's verifier walks every
		 * path of an iteration into the next. Clamped in user space; without
		 * an entry field (FXS_PY_NO_FIELD), byte 127 of fw is a zero.
		 */
		f[i & (FXS_PY_MAX_FRAMES - 1)].lasti = (__s32)((__s64)instr >> 1);
		f[i & (FXS_PY_MAX_FRAMES - 1)].check =
			(cfg_py_walk == FXS_PY_WALK_OLD
				 ? FXS_PY_CHECK((__u32)chk, (__u32)(chk >> 32))
				 : FXS_PY_UNCHECKED) |
			(__u32)(((__u8 *)fw)[p->f_entry & 0x7f] & 1) << 31;
	}
	/*
	 * The frames taken are i: a count of their own was a constant on each
	 * of the loops' ways out, and the verifier walked what follows once
	 * for each (the sampler with the walk: 91k instructions on 6.18 with
	 * it, 62k without).
	 */
	nr = i;
	if (i == FXS_PY_MAX_FRAMES)
		h->end = frame ? FXS_PY_END_TRUNCATED : FXS_PY_END_OK;
	/* The leaf's check; a leaf whose code object cannot be read ends the walk, as before. */
	if (nr && cfg_py_walk != FXS_PY_WALK_OLD) {
		if (bpf_probe_read_user(&chk, sizeof(chk),
					(const void *)(f[0].code + p->code_check))) {
			h->end = FXS_PY_END_FAULT;
			nr = 0;
		} else {
			f[0].check = (f[0].check & 0x80000000U) |
				     FXS_PY_CHECK((__u32)chk, (__u32)(chk >> 32));
		}
	}
	h->nr = nr;
	if (nr && py_wants_reader(sc, pid, f[0].code))
		sc->wake = 1;
	sc->py_len = sizeof(*h) + nr * sizeof(struct fxs_py_frame);
	return 0;
}

#endif /* FXS_BPF_PYTHON_BPF_H */
