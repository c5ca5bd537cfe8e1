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

/* bpf_find_vma()'s callback: the vma that holds the pc, mmap_lock held. */
static long vma_found(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct fxs_cfi_vma *out = data;
	struct fxs_cfi_file_key key = {0};
	struct fxs_cfi_file *f;
	struct inode *in;
	__u32 nsec;
	__s64 sec;

	if (!(BPF_CORE_READ(vma, vm_flags) & FXS_VM_EXEC))
		return 0;
	in = BPF_CORE_READ(vma, vm_file, f_inode);
	if (!in)
		return 0;
	key.ino = BPF_CORE_READ(in, i_ino);
	key.dev = BPF_CORE_READ(in, i_sb, s_dev);
	f = bpf_map_lookup_elem(&cfi_files, &key);
	if (!f)
		return 0;
	vma_inode_mtime(in, &sec, &nsec);
	if (sec != f->mtime_sec || nsec != f->mtime_nsec || BPF_CORE_READ(in, i_size) != f->size)
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

#endif /* FXS_BPF_VMA_BPF_H */
