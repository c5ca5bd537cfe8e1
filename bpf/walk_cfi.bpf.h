/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CFI walker (record --unwind=auto|cfi): unwinds the user stack with
 * tables made from the modules' .eh_frame (include/unwind.h's rows), and with
 * the frame-pointer chain in modules that have no CFI, switching as the
 * frames cross modules. Every walk ends with a reason (enum fxs_unwind_end in
 * fxs_sample.unwind_end): the outermost frame, or why it could go no further.
 * It never guesses a frame: where a table is missing, --unwind=cfi ends the
 * stack, and --unwind=auto goes on by the frame-pointer chain as --unwind=fp
 * would, marked FXS_UE_FP_FALLBACK.
 *
 * Included by sampler.bpf.c after walk.bpf.h. It owns its maps (see
 * include/unwind_maps.h for how user space fills them; the tables' rows and
 * their lookup are cfi_rows.bpf.h's). The frame loop is a bpf_loop() whose
 * callback keeps its state in a per-CPU map value, and the binary searches
 * are global functions: the verifier checks each once, whatever the depth,
 * also on Debian 12's 6.1 kernel.
 */
#ifndef FXS_BPF_WALK_CFI_BPF_H
#define FXS_BPF_WALK_CFI_BPF_H

#include "unwind.h"
#include "unwind_maps.h"
#include "cfi_rows.bpf.h"
#include "vma.bpf.h"

/* enum fxs_unwind_mode; FXS_UNWIND_FP leaves this whole file unused. */
const volatile __u32 cfg_unwind = FXS_UNWIND_FP;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxs_cfi_range);
} cfi_ranges SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FXS_CFI_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct fxs_cfi_proc);
} cfi_procs SEC(".maps");

/* Few processes ever have one: allocated as they come. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, FXS_CFI_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct fxs_cfi_stale);
} cfi_stale SEC(".maps");

/* Whether cfi_stale ever had an entry: until then a walk does not look there. */
__u32 cfi_stale_seen;

/* Where a walk starts: the registers of the interrupted user code. */
struct fxs_cfi_regs {
	__u64 pc, sp, fp;
	__u64 lr; /* arm64 x30, riscv64 ra; 0 on x86-64 (the return address is on the stack) */
};

/*
 * Where the searches found a pc's rule before, on this CPU: its range in
 * cfi_ranges and its row in cfi_rows. A hint is only ever a guess, checked
 * against the maps as they are now (cfi_hinted()), so a stale one (a process
 * that exited, a table evicted, a slice reused) costs a search, never a wrong
 * rule. Sampled stacks repeat their return addresses, and each hit saves the
 * two binary searches (the range's, and the row's in its 64 KiB page: a page
 * of libc has 2^10 to 2^11 rows, 11 reads, most of them cache misses) for the
 * page's two index words and two adjacent rows.
 */
#define FXS_CFI_HINTS 512
struct fxs_cfi_hint {
	__u64 pc;
	__u32 range; /* index in cfi_ranges */
	__u32 row;   /* index in cfi_rows */
};

/* One walk's state, per CPU (a walk never interrupts another on its CPU). */
struct fxs_cfi_walk {
	__u64 pc, sp, fp, lr;
	__u32 n, max; /* frames so far (frames[0] is the pc), cfg_max_frames */
	__u32 first_range, nr_ranges;
	/* the range of the last frame + 1 (0: none): the next frame is often in it */
	__u32 last_range;
	__u8 have_proc;
	__u8 fallback;		   /* walking the frame-pointer chain for the rest of the stack */
	__u8 flags;		   /* FXS_SF_* stop flags */
	__u8 end;		   /* FXS_UE_* (| FXS_UE_FP_FALLBACK) */
	__u8 by_file;		   /* a frame's module was found by its file: FXS_UE_BY_FILE */
	struct fxs_vma_cache vmas; /* what walks found by file (vma.bpf.h), kept across walks */
	__u64 last_wake;	   /* bpf_ktime_get_ns() of cfi_wants_reader()'s last yes */
	/*
	 * The last frame's lookup pc and rule (last_rule_ok 0: none yet): a
	 * recursion's frames return to the same pc, and the maps do not change
	 * under a walk, so its rule is the last frame's.
	 */
	__u64 last_look;
	__u32 last_rule;
	__u32 last_rule_ok;
	/* the process's stale ranges (cfi_stale), copied at the walk's start */
	__u32 nr_stale;
	struct fxs_cfi_stale_range stale[FXS_CFI_STALE];
	__u64 frames[FXS_MAX_FRAMES];
	/* cfi_read()'s copy of the stack: [win_base, win_base + win_len) */
	__u64 win_base, win_len;
	__u64 win[FXS_WALK_WIN / 8 + 1]; /* + 1: an 8-byte read at the end reads a word more */
	struct fxs_cfi_hint hints[FXS_CFI_HINTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fxs_cfi_walk);
} cfi_walk SEC(".maps");

/* The registers a walk starts from, in a perf_event ctx (user code was interrupted). */
static __always_inline void cfi_regs_ctx(struct pt_regs *r, struct fxs_cfi_regs *out)
{
	out->pc = PT_REGS_IP(r);
	out->sp = PT_REGS_SP(r);
	out->fp = PT_REGS_FP(r);
#if defined(__TARGET_ARCH_x86)
	out->lr = 0;
#else
	out->lr = PT_REGS_RET(r);
#endif
}

/* The same from the user registers saved at kernel entry (bpf_task_pt_regs). */
static __always_inline void cfi_regs_task(struct pt_regs *r, struct fxs_cfi_regs *out)
{
	out->pc = PT_REGS_IP_CORE(r);
	out->sp = PT_REGS_SP_CORE(r);
	out->fp = PT_REGS_FP_CORE(r);
#if defined(__TARGET_ARCH_x86)
	out->lr = 0;
#else
	out->lr = PT_REGS_RET_CORE(r);
#endif
}

/*
 * The index in cfi_ranges of the last range of [first, first + nr) that
 * starts at or below pc, or -1. Global: verified once, on its own.
 */
__noinline int cfi_range_below(__u32 first, __u32 nr, __u64 pc)
{
	struct fxs_cfi_range *r;
	__u32 lo = 0, hi = nr, mid, key;

	if (nr == 0 || nr > (1U << FXS_CFI_RANGES_LOG))
		return -1;
	/* lo: how many ranges start at or below pc */
	for (int i = 0; i <= FXS_CFI_RANGES_LOG && lo < hi; i++) {
		mid = lo + (hi - lo) / 2;
		key = first + mid;
		r = bpf_map_lookup_elem(&cfi_ranges, &key);
		if (!r)
			return -1;
		if (r->start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? -1 : (int)(first + lo - 1);
}

/* The index in cfi_ranges of the range of [first, first + nr) that holds pc, or -1. */
static __always_inline int cfi_find_range(__u32 first, __u32 nr, __u64 pc)
{
	int ri = cfi_range_below(first, nr, pc);
	__u32 key = ri;
	struct fxs_cfi_range *r = ri < 0 ? NULL : bpf_map_lookup_elem(&cfi_ranges, &key);

	return r && pc < r->end ? ri : -1;
}

/*
 * The 8 (need 8) or 16 bytes at addr into out[0..1], from the walk's copy of
 * the stack: a frame's saves lie a little above the last frame's, so one
 * bpf_probe_read_user() serves many frames (walk_fast's window, by the same
 * rule: a copy never runs past the page that holds addr's last byte, so it
 * faults exactly when the direct read would, and a later read it serves lies
 * in pages it proved mapped). 0, or -1 on a read fault.
 */
static __always_inline int cfi_read(struct fxs_cfi_walk *w, __u64 addr, __u32 need, __u64 *out)
{
	__u64 off = addr - w->win_base, room;

	if (addr & 7)
		return bpf_probe_read_user(out, need, (void *)addr) ? -1 : 0;
	if (off >= w->win_len || w->win_len - off < need) {
		room = FXS_WALK_PAGE - (addr & (FXS_WALK_PAGE - 1));
		if (room < need)
			room += FXS_WALK_PAGE;
		/* The walk's first copy is short, as walk_fast's (no window yet: win_len 0). */
		if (room > (w->win_len ? FXS_WALK_WIN : FXS_WALK_FIRST))
			room = w->win_len ? FXS_WALK_WIN : FXS_WALK_FIRST;
		/* No change (8 <= room <= FXS_WALK_WIN): bounds it for 6.1's verifier. */
		room &= 2 * FXS_WALK_WIN - 1;
		if (bpf_probe_read_user(w->win, room, (void *)addr))
			return -1;
		w->win_base = addr;
		w->win_len = room;
		off = 0;
	}
	/* Never taken (off + need <= win_len <= FXS_WALK_WIN); bounds it for the verifier. */
	if (off > FXS_WALK_WIN - 8)
		return -1;
	out[0] = w->win[off / 8];
	out[1] = w->win[off / 8 + 1];
	return 0;
}

/* The walk ends here, for reason (kept if the walk already fell back: its cause). */
static __always_inline long cfi_end(struct fxs_cfi_walk *w, __u8 reason)
{
	if (!w->end)
		w->end = reason;
	return 1;
}

/* A frame beyond this one: false when max_frames cuts the stack here. */
static __always_inline bool cfi_push(struct fxs_cfi_walk *w, __u64 ra)
{
	__u32 n = w->n;

	if (n >= w->max || n >= FXS_MAX_FRAMES) {
		w->flags |= FXS_SF_TRUNCATED;
		cfi_end(w, FXS_UE_TRUNCATED);
		return false;
	}
	w->frames[n & (FXS_MAX_FRAMES - 1)] = fxs_ret_addr(ra);
	w->n = n + 1;
	return true;
}

/*
 * One frame by the frame-pointer chain, walk_simple's rules: the record at
 * fp - FXS_FRAME_OFF holds the caller's fp and the return address; the
 * caller's sp is just above it.
 */
static __always_inline long cfi_fp_frame(struct fxs_cfi_walk *w)
{
	__u64 fp = w->fp, pair[2], sp, ret, next;

	if (fp == 0)
		return cfi_end(w, FXS_UE_END);
	sp = fp + 16 - FXS_FRAME_OFF;
	if ((fp & 7) || sp <= w->sp) {
		w->flags |= FXS_SF_STOP_BAD_FP;
		return cfi_end(w, FXS_UE_BAD_FRAME);
	}
	if (cfi_read(w, fp - FXS_FRAME_OFF, 16, pair)) {
		w->flags |= FXS_SF_STOP_FAULT;
		return cfi_end(w, FXS_UE_FAULT);
	}
	/* riscv64's first frame may be a GCC leaf's (s0 saved, ra not): as the fp walkers do */
	fxs_frame_step(w->n, fp, w->sp, w->lr, pair[0], pair[1], &ret, &next);
	if (ret == 0)
		return cfi_end(w, FXS_UE_END);
	if (!cfi_push(w, ret))
		return 1;
	w->pc = fxs_ret_addr(ret);
	w->sp = sp;
	w->fp = next;
	return 0;
}

/* No table for this frame: auto goes on by the frame-pointer chain, marked; cfi ends. */
static __always_inline long cfi_lost(struct fxs_cfi_walk *w, __u8 reason)
{
	if (cfg_unwind != FXS_UNWIND_AUTO)
		return cfi_end(w, reason);
	w->end = reason | FXS_UE_FP_FALLBACK;
	w->fallback = 1;
	return cfi_fp_frame(w);
}

/* One frame by its CFI rule (the caller's CFA, return address and frame pointer). */
static __always_inline long cfi_apply(struct fxs_cfi_walk *w, __u32 rule)
{
	__u64 cfa, base, ra, fp = w->fp, pair[2], ra_at, fp_at;
	__s64 ra_off = FXS_CFI_RULE_RA(rule), fp_off = FXS_CFI_RULE_FP(rule);

	switch (FXS_CFI_RULE_KIND(rule)) {
	case FXS_CFI_SP:
		cfa = w->sp + FXS_CFI_RULE_CFA(rule);
		base = cfa; /* the saves count from the CFA */
		break;
	case FXS_CFI_FP:
		cfa = w->fp + FXS_CFI_RULE_CFA(rule);
		base = cfa;
		break;
	case FXS_CFI_LOW:
		/* arm64's frame record at the bottom of a large frame: saves from base - 8 */
		base = rule & FXS_CFI_LOW_FP ? w->fp : w->sp;
		cfa = base + FXS_CFI_RULE_CFA(rule);
		base -= 8;
		break;
	case FXS_CFI_PLT:
		/* x86-64 .plt's expression: rsp + 8, + 8 more past the entry's push */
		cfa = w->sp + 8 + ((w->pc & 15) >= 11 ? 8 : 0);
		base = cfa;
		ra_off = -8;
		fp_off = 0;
		break;
	case FXS_CFI_END:
		return cfi_end(w, FXS_UE_END);
	case FXS_CFI_NONE:
		/*
		 * No FDE covers the pc (riscv64 GCC 12 puts C code's CFI in
		 * .debug_frame only): auto takes the frame-pointer chain, marked.
		 */
		return cfi_lost(w, FXS_UE_NO_ROW);
	case FXS_CFI_SIGNAL:
		return cfi_end(w, FXS_UE_SIGNAL);
	default:
		return cfi_end(w, FXS_UE_UNSUPPORTED);
	}
	if (cfa & 7)
		return cfi_end(w, FXS_UE_BAD_FRAME);
	ra_at = base + ra_off;
	fp_at = base + fp_off;
	if (ra_off == 0) {
		/* Still in its register (arm64, riscv64): only the innermost frame has it. */
		if (w->n != 1 || !w->lr)
			return cfi_end(w, FXS_UE_UNSUPPORTED);
		if (cfa < w->sp)
			return cfi_end(w, FXS_UE_BAD_FRAME);
		ra = w->lr;
	} else {
		if (cfa <= w->sp)
			return cfi_end(w, FXS_UE_BAD_FRAME);
		/* The usual frame record: the saved fp right below the return address. */
		if (fp_off && fp_at + 8 == ra_at) {
			if (cfi_read(w, fp_at, 16, pair))
				goto fault;
			fp = pair[0];
			ra = pair[1];
			fp_off = 0;
		} else {
			if (cfi_read(w, ra_at, 8, pair))
				goto fault;
			ra = pair[0];
		}
	}
	if (fp_off) {
		if (cfi_read(w, fp_at, 8, pair))
			goto fault;
		fp = pair[0];
	}
	if (ra == 0)
		return cfi_end(w, FXS_UE_END);
	if (!cfi_push(w, ra))
		return 1;
	w->pc = fxs_ret_addr(ra);
	w->sp = cfa;
	w->fp = fp;
	return 0;
fault:
	w->flags |= FXS_SF_STOP_FAULT;
	return cfi_end(w, FXS_UE_FAULT);
}

/*
 * Whether r is one of the process's ranges that another mapping has since
 * been placed over: its code is gone, and what runs at its addresses now is
 * no module the walker knows yet.
 */
static __always_inline bool cfi_stale_holds(const struct fxs_cfi_stale_range *stale, __u32 n,
					    const struct fxs_cfi_range *r)
{
	for (int i = 0; i < FXS_CFI_STALE; i++) {
		if (i >= n)
			break;
		if (stale[i].start == r->start && stale[i].serial == r->serial)
			return true;
	}
	return false;
}

static __always_inline bool cfi_stale_range(const struct fxs_cfi_walk *w,
					    const struct fxs_cfi_range *r)
{
	return cfi_stale_holds(w->stale, w->nr_stale, r);
}

/*
 * The rule of look from its hint, if the hint is right: its range is the
 * process's and holds look, and its row is the last of that range's table
 * at or below look's vaddr (by the page index, as cfi_table_row() finds it).
 * Exactly what the searches would find, or false.
 */
static __always_inline bool cfi_hinted(struct fxs_cfi_walk *w, const struct fxs_cfi_hint *h,
				       __u64 look, __u32 *rule)
{
	struct fxs_cfi_range *r;
	__u32 key = h->range, *row;
	__u64 rel;

	if (h->pc != look || key - w->first_range >= w->nr_ranges)
		return false;
	r = bpf_map_lookup_elem(&cfi_ranges, &key);
	if (!r || look < r->start || look >= r->end || r->kind != FXS_CFI_RANGE_TABLE)
		return false;
	if (w->nr_stale && cfi_stale_range(w, r))
		return false;
	rel = look - r->bias;
	if ((rel >> 32) || !cfi_row_holds(r->table, (__u32)rel, h->row))
		return false;
	row = cfi_word(&cfi_rows, h->row);
	if (!row)
		return false;
	w->last_range = h->range + 1;
	*rule = cfi_rule_of(*row);
	return true;
}

/* One frame: find the pc's module and table, apply its rule. 1: the walk is over. */
static __always_inline long cfi_frame(struct fxs_cfi_walk *w)
{
	struct fxs_cfi_hint *h;
	struct fxs_cfi_range *r;
	struct fxs_cfi_table *t;
	struct fxs_cfi_vma *v;
	__u32 key, rule, table, *row;
	__u64 look, rel, bias;
	int ri;

	if (w->fallback)
		return cfi_fp_frame(w);
	/* A return address is past its call: the call's own rule is one byte back. */
	look = w->n > 1 ? w->pc - 1 : w->pc;
	if (w->last_rule_ok && look == w->last_look)
		return cfi_apply(w, w->last_rule);
	h = &w->hints[(look ^ (look >> 9)) & (FXS_CFI_HINTS - 1)];
	if (cfi_hinted(w, h, look, &rule))
		goto found;
	/* the last frame's range first: a search less for most frames */
	key = w->last_range - 1;
	r = w->last_range ? bpf_map_lookup_elem(&cfi_ranges, &key) : NULL;
	if (!r || look < r->start || look >= r->end) {
		ri = cfi_find_range(w->first_range, w->nr_ranges, look);
		key = ri;
		r = ri < 0 ? NULL : bpf_map_lookup_elem(&cfi_ranges, &key);
		if (r)
			w->last_range = key + 1;
	}
	if (r && w->nr_stale && cfi_stale_range(w, r))
		r = NULL;
	if (r) {
		if (r->kind == FXS_CFI_RANGE_FP)
			return cfi_fp_frame(w);
		if (r->kind != FXS_CFI_RANGE_TABLE)
			return cfi_lost(w, FXS_UE_NO_TABLE);
		bias = r->bias;
		table = r->table;
	} else {
		/* no range of the process holds it (yet): the file mapped there */
		v = vma_cache_find(&w->vmas, look);
		if (!v)
			return cfi_lost(w, w->have_proc ? FXS_UE_NO_MODULE : FXS_UE_NO_PROC);
		w->by_file = 1;
		bias = v->bias;
		table = v->table;
	}
	rel = look - bias;
	key = table;
	t = bpf_map_lookup_elem(&cfi_tables, &key);
	if (t && !t->nr_rows && t->first == FXS_CFI_TABLE_FP)
		return cfi_fp_frame(w);
	if (!t || !t->nr_rows)
		return cfi_lost(w, FXS_UE_NO_TABLE);
	if (rel >> 32)
		return cfi_end(w, FXS_UE_NO_ROW);
	ri = cfi_table_row(table, (__u32)rel);
	row = ri < 0 ? NULL : cfi_word(&cfi_rows, ri);
	if (!row)
		return cfi_apply(w, FXS_CFI_NONE);
	rule = cfi_rule_of(*row);
	/* a hint names a range of the process: none for a module found by its file */
	if (r) {
		h->pc = look;
		h->range = w->last_range - 1;
		h->row = ri;
	}
found:
	w->last_look = look;
	w->last_rule = rule;
	w->last_rule_ok = 1;
	return cfi_apply(w, rule);
}

static long cfi_step(__u64 index, void *unused)
{
	struct fxs_cfi_walk *w;
	__u32 zero = 0;

	w = bpf_map_lookup_elem(&cfi_walk, &zero);
	if (!w)
		return 1;
	return cfi_frame(w);
}

/*
 * Whether a walk that ended so should wake the reader now rather than at its
 * drain timer: it lacked a process's mappings or a module's table, which
 * user space loads only once it has read the samples that show the need.
 * At most every 10 ms per CPU, so that code that never has a table (a JIT)
 * does not wake it at every sample.
 */
static __always_inline bool cfi_wants_reader(__u8 end)
{
	__u8 reason = FXS_UE_REASON(end);
	struct fxs_cfi_walk *w;
	__u32 zero = 0;
	__u64 now;

	if (reason != FXS_UE_NO_PROC && reason != FXS_UE_NO_MODULE && reason != FXS_UE_NO_TABLE)
		return false;
	w = bpf_map_lookup_elem(&cfi_walk, &zero);
	if (!w)
		return false;
	now = bpf_ktime_get_ns();
	if (now - w->last_wake < 10000000ULL)
		return false;
	w->last_wake = now;
	return true;
}

/*
 * pid execed, or is a new process: its mappings are gone with its old image
 * (or were a dead process's that had its pid), and the walker must not apply
 * them to its pcs until user space has read its maps anew.
 */
static __always_inline void cfi_forget_pid(__u32 pid)
{
	if (cfg_unwind == FXS_UNWIND_FP)
		return;
	bpf_map_delete_elem(&cfi_procs, &pid);
	if (cfi_stale_seen)
		bpf_map_delete_elem(&cfi_stale, &pid);
}

/*
 * cpid was forked by ppid, and user space was told (the fork record is in
 * the ring): the child's address space is a copy of the parent's, and so
 * are its ranges. It walks by the parent's slice from its first sample,
 * until user space, reading the fork record, publishes a slice of its own
 * (it holds a freed slice until every record before the free is read, so
 * that the parent's stays as it was while the child may use it). Also a new
 * process on the pid of a dead one gets the parent's ranges, not the dead
 * one's. Without a fork record user space would never know the child uses
 * the slice: then the child has none (cfi_forget_pid()).
 */
static __always_inline void cfi_fork(__u32 ppid, __u32 cpid)
{
	struct fxs_cfi_proc *parent, copy = {0};
	struct fxs_cfi_stale *stale;

	if (cfg_unwind == FXS_UNWIND_FP)
		return;
	/*
	 * A parent without ranges yet gives an empty entry (walked as none):
	 * user space fills it when it has the parent's, unless an exec of the
	 * child has dropped it since.
	 */
	parent = bpf_map_lookup_elem(&cfi_procs, &ppid);
	if (parent)
		copy = *parent;
	if (bpf_map_update_elem(&cfi_procs, &cpid, &copy, BPF_ANY))
		bpf_map_delete_elem(&cfi_procs, &cpid);
	/*
	 * The parent's stale ranges are in the copy: stale for the child too
	 * (without them, no ranges: walked as none, never by a stale one).
	 */
	stale = cfi_stale_seen ? bpf_map_lookup_elem(&cfi_stale, &ppid) : NULL;
	if (stale && bpf_map_update_elem(&cfi_stale, &cpid, stale, BPF_ANY))
		bpf_map_delete_elem(&cfi_procs, &cpid);
}

/* r becomes one of pid's stale ranges (once; the oldest of FXS_CFI_STALE goes). */
static __always_inline void cfi_add_stale(__u32 pid, const struct fxs_cfi_range *r)
{
	struct fxs_cfi_stale *st, empty = {0};
	__u32 n;

	st = bpf_map_lookup_elem(&cfi_stale, &pid);
	if (!st) {
		bpf_map_update_elem(&cfi_stale, &pid, &empty, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&cfi_stale, &pid);
	}
	if (!st) {
		/* No room to say so: no ranges for the process (it is published no more). */
		bpf_map_delete_elem(&cfi_procs, &pid);
		return;
	}
	if (cfi_stale_holds(st->r, st->n, r))
		return;
	n = st->n;
	st->r[n % FXS_CFI_STALE].start = r->start;
	st->r[n % FXS_CFI_STALE].serial = r->serial;
	/* the slot first, then the count a walk reads it by */
	__sync_fetch_and_add(&st->n, 1);
	cfi_stale_seen = 1;
}

/*
 * The kernel chose [addr, addr + len) for a new mapping of process pid (an
 * mmap without MAP_FIXED: how ld.so places each library it opens). Nothing
 * is mapped there now, so every range of pid's slice that overlaps it is a
 * mapping that went (a dlclosed library), and the new mapping's code would
 * be walked by the old one's table until user space reads the new record:
 * those ranges are stale from now on. At most FXS_CFI_STALE are marked
 * (one library has a few; more would push out the first).
 */
static __always_inline void cfi_area_reused(__u32 pid, __u64 addr, __u64 len)
{
	struct fxs_cfi_proc *proc;
	struct fxs_cfi_range *r;
	__u32 key;
	int ri;

	if (cfg_unwind == FXS_UNWIND_FP || !len)
		return;
	proc = bpf_map_lookup_elem(&cfi_procs, &pid);
	if (!proc || !proc->nr_ranges)
		return;
	ri = cfi_range_below(proc->first_range, proc->nr_ranges, addr + len - 1);
	/* back from the last range starting in the area while ranges reach into it */
	for (int i = 0; i < FXS_CFI_STALE && ri >= 0 && (__u32)ri >= proc->first_range; i++, ri--) {
		key = ri;
		r = bpf_map_lookup_elem(&cfi_ranges, &key);
		if (!r || r->end <= addr)
			break;
		cfi_add_stale(pid, r);
	}
}

/*
 * The user stack from regs into frames[1..] (frames[0] already holds the pc)
 * for process pid, at most max frames: the frame count; stop flags into *flags, the end reason
 * into *end.
 */
static __always_inline __u32 walk_cfi(__u64 *frames, const struct fxs_cfi_regs *regs, __u32 pid,
				      __u32 max, __u8 *flags, __u8 *end)
{
	struct fxs_cfi_proc *proc;
	struct fxs_cfi_stale *stale;
	struct fxs_cfi_walk *w;
	__u32 zero = 0, n;

	w = bpf_map_lookup_elem(&cfi_walk, &zero);
	if (!w) {
		*end = FXS_UE_FAULT;
		return 1;
	}
	w->pc = regs->pc;
	w->sp = regs->sp;
	w->fp = regs->fp;
	w->lr = regs->lr;
	w->n = 1;
	w->max = max;
	w->flags = 0;
	w->end = 0;
	w->fallback = 0;
	w->last_range = 0;
	w->last_rule_ok = 0;
	w->win_len = 0;
	w->by_file = 0;
	vma_cache_walk(&w->vmas, pid);
	proc = bpf_map_lookup_elem(&cfi_procs, &pid);
	/* an empty entry: a child forked before its parent's ranges were published */
	w->have_proc = proc && proc->nr_ranges;
	w->first_range = proc ? proc->first_range : 0;
	w->nr_ranges = proc ? proc->nr_ranges : 0;
	w->nr_stale = 0;
	stale = cfi_stale_seen && w->have_proc ? bpf_map_lookup_elem(&cfi_stale, &pid) : NULL;
	if (stale && stale->n) {
		w->nr_stale = stale->n < FXS_CFI_STALE ? stale->n : FXS_CFI_STALE;
		bpf_probe_read_kernel(w->stale, sizeof(w->stale), stale->r);
	}
	/* One more turn than frames: the last one finds the cap and says so. */
	bpf_loop(FXS_MAX_FRAMES + 1, cfi_step, NULL, 0);
	if (!w->end) {
		w->flags |= FXS_SF_TRUNCATED;
		w->end = FXS_UE_TRUNCATED;
	}
	n = w->n;
	if (n > FXS_MAX_FRAMES)
		n = FXS_MAX_FRAMES;
	if (n < 1)
		n = 1;
	bpf_probe_read_kernel(&frames[1], (n - 1) * sizeof(__u64), &w->frames[1]);
	*flags |= w->flags;
	*end = w->end | (w->by_file ? FXS_UE_BY_FILE : 0);
	return n;
}

#endif /* FXS_BPF_WALK_CFI_BPF_H */
