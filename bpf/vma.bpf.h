/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A module by the file the kernel maps at a pc (record --unwind=auto|cfi).
 *
 * The CFI walker finds a pc's table by the ranges user space publishes per
 * process (bpf/walk_cfi.bpf.h), which it can only do once it has read the
 * process's mappings: a new process's first milliseconds after its exec,
 * and a library mapped since, had no ranges, and went by frame pointers (a
 * program built without them lost its stack). Its modules' tables are most
 * often made already (shared by build id: the libc, ld.so and program every
 * process of a script or a build runs). So for a pc that no range holds the
 * walker asks the kernel which file is mapped there (bpf_find_vma(), Linux
 * 5.17, made for profilers: it only trylocks mmap_lock, and defers the
 * unlock from an interrupt) and looks that file up in cfi_files, which user
 * space fills for each module file it has a table for
 * (daemon/capture/cfi_files.c).
 *
 * From a perf_event or sched_switch program (interrupts off), the kernel
 * defers bpf_find_vma()'s unlock to one per-CPU irq_work, and refuses a
 * second call until it ran: one call per walk. So the walker keeps what it
 * found, per CPU, for the next walks of the same address space, and finds
 * the program itself without the lock: its file and text are the mm's
 * (exe_file, start_code..end_code, what the ELF loader set at the exec).
 *
 * Included by walk_cfi.bpf.h.
 */
#ifndef FXS_BPF_VMA_BPF_H
#define FXS_BPF_VMA_BPF_H

#include "unwind_maps.h"

/* Whether the kernel has bpf_find_vma() (probed before load; else never called). */
const volatile __u32 cfg_find_vma;
/* The kernel's PAGE_SHIFT: vm_pgoff counts pages. */
const volatile __u32 cfg_page_shift = 12;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, FXS_CFI_MAX_FILES);
	__type(key, struct fxs_cfi_file_key);
	__type(value, struct fxs_cfi_file);
} cfi_files SEC(".maps");

/* A mapping found by its file: [start, end), its table and bias (vaddr = pc - bias). */
struct fxs_cfi_vma {
	__u64 start, end, bias;
	__u32 table;
	__u32 ok;
};

#define FXS_VM_EXEC 0x4

/* struct inode's mtime as each kernel names it (CO-RE picks the one it has). */
struct timespec64___fxs {
	__s64 tv_sec;
	long tv_nsec;
} __attribute__((preserve_access_index));
struct inode___fxs_611 { /* 6.11+ */
	__s64 i_mtime_sec;
	__u32 i_mtime_nsec;
} __attribute__((preserve_access_index));
struct inode___fxs_67 { /* 6.7 to 6.10 */
	struct timespec64___fxs __i_mtime;
} __attribute__((preserve_access_index));
struct inode___fxs_old { /* before 6.7 */
	struct timespec64___fxs i_mtime;
} __attribute__((preserve_access_index));

static __always_inline void vma_inode_mtime(struct inode *in, __s64 *sec, __u32 *nsec)
{
	struct inode___fxs_611 *a = (void *)in;
	struct inode___fxs_67 *b = (void *)in;
	struct inode___fxs_old *c = (void *)in;

	if (bpf_core_field_exists(a->i_mtime_sec)) {
		*sec = BPF_CORE_READ(a, i_mtime_sec);
		*nsec = BPF_CORE_READ(a, i_mtime_nsec);
	} else if (bpf_core_field_exists(b->__i_mtime)) {
		*sec = BPF_CORE_READ(b, __i_mtime.tv_sec);
		*nsec = BPF_CORE_READ(b, __i_mtime.tv_nsec);
	} else {
		*sec = BPF_CORE_READ(c, i_mtime.tv_sec);
		*nsec = BPF_CORE_READ(c, i_mtime.tv_nsec);
	}
}

/* in's entry in cfi_files, if it is the very file the entry was made of. */
static __always_inline struct fxs_cfi_file *vma_file(struct inode *in)
{
	struct fxs_cfi_file_key key = {0};
	struct fxs_cfi_file *f;
	__u32 nsec;
	__s64 sec;

	if (!in)
		return NULL;
	key.ino = BPF_CORE_READ(in, i_ino);
	key.dev = BPF_CORE_READ(in, i_sb, s_dev);
	f = bpf_map_lookup_elem(&cfi_files, &key);
	if (!f)
		return NULL;
	vma_inode_mtime(in, &sec, &nsec);
	if (sec != f->mtime_sec || nsec != f->mtime_nsec || BPF_CORE_READ(in, i_size) != f->size)
		return NULL;
	return f;
}

/*
 * The current task's program, without its mmap_lock: the mm's exe_file and
 * its text, start_code..end_code (the lowest executable segment's p_vaddr
 * and the highest one's end, + the load bias). 0 with *out, or -1.
 * Global: verified once, on its own.
 */
__noinline int vma_exe(struct fxs_cfi_vma *out)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fxs_cfi_file *f;
	struct mm_struct *mm;

	if (!out)
		return -1;
	out->ok = 0;
	mm = BPF_CORE_READ(task, mm);
	if (!mm)
		return -1;
	f = vma_file(BPF_CORE_READ(mm, exe_file, f_inode));
	if (!f)
		return -1;
	out->start = BPF_CORE_READ(mm, start_code);
	out->end = BPF_CORE_READ(mm, end_code);
	out->bias = out->start - f->text_vaddr;
	out->table = f->table;
	out->ok = out->start < out->end;
	return out->ok ? 0 : -1;
}

/* bpf_find_vma()'s callback: the vma that holds the pc, mmap_lock held. */
static long vma_found(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct fxs_cfi_vma *out = data;
	struct fxs_cfi_file *f;

	if (!(BPF_CORE_READ(vma, vm_flags) & FXS_VM_EXEC))
		return 0;
	f = vma_file(BPF_CORE_READ(vma, vm_file, f_inode));
	if (!f)
		return 0;
	out->start = BPF_CORE_READ(vma, vm_start);
	out->end = BPF_CORE_READ(vma, vm_end);
	out->bias = out->start - (BPF_CORE_READ(vma, vm_pgoff) << (cfg_page_shift & 31)) - f->delta;
	out->table = f->table;
	out->ok = 1;
	return 0;
}

/*
 * The module of pc in the current task's address space, by its file: 0 with
 * *out, or -1 (no vma holds it, not a file user space has a table for, the
 * mmap_lock busy, or no bpf_find_vma()). Global: verified once, on its own.
 */
__noinline int vma_module(__u64 pc, struct fxs_cfi_vma *out)
{
	struct fxs_cfi_vma found = {0};

	if (!out)
		return -1;
	out->ok = 0;
	if (!cfg_find_vma)
		return -1;
	if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_found, &found, 0) || !found.ok)
		return -1;
	*out = found;
	return 0;
}

/*
 * The modules walks found by their file, kept per CPU (in the walker's
 * per-CPU state) for the next walks of the same address space, for at most
 * FXS_VMA_CACHE_NS: what a process maps moves little in its first
 * milliseconds, when they serve.
 */
#define FXS_VMA_CACHE	 8
#define FXS_VMA_CACHE_NS 100000000ULL
struct fxs_vma_cache {
	__u8 nr;	/* found so far: v[] holds the last (slot nr % FXS_VMA_CACHE next) */
	__u8 exe_tried; /* vma_exe() was asked, for mm */
	__u8 find_used; /* this walk called bpf_find_vma() (once a walk) */
	__u8 pad;
	__u32 pid;
	__u64 mm, since; /* whose address space v[] is of, since when */
	struct fxs_cfi_vma v[FXS_VMA_CACHE], found;
};

/* A walk of pid's begins: what earlier walks found, if of its address space and recent. */
static __always_inline void vma_cache_walk(struct fxs_vma_cache *c, __u32 pid)
{
	__u64 mm, now;

	c->find_used = 0;
	if (!cfg_find_vma)
		return;
	mm = (__u64)BPF_CORE_READ(bpf_get_current_task_btf(), mm);
	now = bpf_ktime_get_ns();
	if (c->pid != pid || c->mm != mm || now - c->since > FXS_VMA_CACHE_NS) {
		c->nr = 0;
		c->exe_tried = 0;
		c->pid = pid;
		c->mm = mm;
		c->since = now;
	}
}

static __always_inline struct fxs_cfi_vma *vma_cache_add(struct fxs_vma_cache *c)
{
	struct fxs_cfi_vma *v = &c->v[c->nr % FXS_VMA_CACHE];

	*v = c->found;
	c->nr++;
	return v;
}

/*
 * The module of look (a pc no published range holds) by the file mapped
 * there: one found before, the program's text, or the kernel's vma (once a
 * walk); NULL.
 */
static __always_inline struct fxs_cfi_vma *vma_cache_find(struct fxs_vma_cache *c, __u64 look)
{
	struct fxs_cfi_vma *v;

	for (int i = 0; i < FXS_VMA_CACHE; i++) {
		v = &c->v[i];
		if (i < c->nr && look >= v->start && look < v->end)
			return v;
	}
	if (!cfg_find_vma)
		return NULL;
	if (!c->exe_tried) {
		c->exe_tried = 1;
		if (!vma_exe(&c->found)) {
			v = vma_cache_add(c);
			if (look >= v->start && look < v->end)
				return v;
		}
	}
	if (c->find_used)
		return NULL;
	c->find_used = 1;
	if (vma_module(look, &c->found) || !c->found.ok)
		return NULL;
	return vma_cache_add(c);
}

#endif /* FXS_BPF_VMA_BPF_H */
