// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sampler's maps as user space reads and writes them: counters, the CFI walker's arrays. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/clock.h"
#include "capture/bpf_sampler_internal.h"

static void *map_array(struct bpf_map *map, size_t *ret_len)
{
	size_t page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)bpf_map__value_size(map) * bpf_map__max_entries(map);
	void *p;

	len = (len + page - 1) / page * page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
	if (p == MAP_FAILED)
		return NULL;
	*ret_len = len;
	return p;
}

/* The CFI walker's three arrays, written by user space in place. */
int bpf_sampler_map_cfi(struct bpf_sampler *b)
{
	b->cfi_rows = map_array(b->skel->maps.cfi_rows, &b->cfi_rows_len);
	if (!b->cfi_rows)
		return -errno;
	b->cfi_rules = map_array(b->skel->maps.cfi_rules, &b->cfi_rules_len);
	if (!b->cfi_rules)
		return -errno;
	b->cfi_ranges = map_array(b->skel->maps.cfi_ranges, &b->cfi_ranges_len);
	return b->cfi_ranges ? 0 : -errno;
}

static int cfi_set_table(void *ctx, uint32_t id, const struct fxs_cfi_table *t)
{
	struct bpf_sampler *b = ctx;

	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.cfi_tables), &id, t, BPF_ANY))
		return -errno;
	return 0;
}

static int cfi_set_proc(void *ctx, uint32_t pid, const struct fxs_cfi_proc *p)
{
	struct bpf_sampler *b = ctx;
	int fd = bpf_map__fd(b->skel->maps.cfi_procs);

	if (!p)
		return bpf_map_delete_elem(fd, &pid) && errno != ENOENT ? -errno : 0;
	if (bpf_map_update_elem(fd, &pid, p, BPF_ANY))
		return -errno;
	return 0;
}

static int cfi_replace_proc(void *ctx, uint32_t pid, const struct fxs_cfi_proc *p)
{
	struct bpf_sampler *b = ctx;

	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.cfi_procs), &pid, p, BPF_EXIST))
		return -errno;
	return 0;
}

static uint64_t cfi_now(void *ctx)
{
	(void)ctx;
	return clock_ns(CLOCK_BOOTTIME);
}

static bool cfi_has_proc(void *ctx, uint32_t pid)
{
	struct bpf_sampler *b = ctx;
	struct fxs_cfi_proc p;

	return !bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.cfi_procs), &pid, &p);
}

int bpf_sampler_cfi_file(struct bpf_sampler *b, const struct fxs_cfi_file_key *k,
			 const struct fxs_cfi_file *f)
{
	if (!b->skel || !b->find_vma)
		return 0;
	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.cfi_files), k, f, BPF_ANY))
		return -errno;
	return 0;
}

int bpf_sampler_cfi_maps(struct bpf_sampler *b, struct cfi_tables_ops *ops)
{
	if (!b->skel || !b->cfi_rows || !b->cfi_ranges || !b->cfi_rules)
		return -ENOENT;
	ops->words = b->cfi_rows;
	/* FXS_CFI_WORDS words a value, side by side */
	ops->nr_words = bpf_map__max_entries(b->skel->maps.cfi_rows) * FXS_CFI_WORDS;
	ops->rules = b->cfi_rules;
	ops->nr_rules = bpf_map__max_entries(b->skel->maps.cfi_rules) * FXS_CFI_WORDS;
	ops->ranges = b->cfi_ranges;
	ops->nr_ranges = bpf_map__max_entries(b->skel->maps.cfi_ranges);
	ops->set_table = cfi_set_table;
	ops->set_proc = cfi_set_proc;
	ops->has_proc = cfi_has_proc;
	ops->replace_proc = cfi_replace_proc;
	ops->now = cfi_now;
	ops->ctx = b;
	return 0;
}

int bpf_sampler_counters(const struct bpf_sampler *b, struct fxs_counters *ret_total,
			 struct fxs_counters *per_cpu, unsigned nr_cpus)
{
	struct fxs_counters *all;
	uint32_t zero = 0;
	int err = 0;

	if (!b->skel)
		return -EBADFD;
	all = calloc(b->nr_cpus, sizeof(*all));
	if (!all)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.counters), &zero, all)) {
		err = -errno;
		goto out;
	}
	memset(ret_total, 0, sizeof(*ret_total));
	for (int cpu = 0; cpu < b->nr_cpus; cpu++) {
		for (int k = 0; k < FXS_CNT_NR; k++)
			ret_total->v[k] += all[cpu].v[k];
		if (per_cpu && (unsigned)cpu < nr_cpus)
			per_cpu[cpu] = all[cpu];
	}
out:
	free(all);
	return err;
}

int bpf_sampler_untarget(struct bpf_sampler *b, uint32_t pid, bool exited)
{
	uint8_t left = FXS_TARGET_LEFT;
	int fd;

	if (!b->skel)
		return -EBADFD;
	fd = bpf_map__fd(b->skel->maps.targets);
	if (exited ? bpf_map_delete_elem(fd, &pid) : bpf_map_update_elem(fd, &pid, &left, BPF_ANY))
		return errno == ENOENT ? 0 : -errno;
	return 0;
}

/*
 * Sum slot 0 of a per-CPU array of nr u64 counters over the CPUs into sum
 * (zeroed first): 0, or -errno.
 */
static int sum_per_cpu(const struct bpf_sampler *b, const struct bpf_map *map, __u64 *sum,
		       size_t nr)
{
	uint32_t zero = 0;
	int err = 0;
	__u64 *all;

	memset(sum, 0, nr * sizeof(*sum));
	all = calloc((size_t)b->nr_cpus * nr, sizeof(*all));
	if (!all)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, all))
		err = -errno;
	for (int cpu = 0; !err && cpu < b->nr_cpus; cpu++)
		for (size_t k = 0; k < nr; k++)
			sum[k] += all[(size_t)cpu * nr + k];
	free(all);
	return err;
}

int bpf_sampler_offcpu_counters(const struct bpf_sampler *b, struct fxs_offcpu_counters *ret)
{
	if (!b->skel) {
		memset(ret, 0, sizeof(*ret));
		return -EBADFD;
	}
	return sum_per_cpu(b, b->skel->maps.offcpu_counters, ret->v, FXS_OC_NR);
}

unsigned bpf_sampler_nr_cpus(const struct bpf_sampler *b)
{
	return b->nr_cpus > 0 ? b->nr_cpus : 0;
}

uint64_t bpf_sampler_cpu_ns(const struct bpf_sampler *b, unsigned cpu)
{
	uint64_t ns;

	if (!b->armed_ns || cpu >= (unsigned)b->nr_cpus)
		return 0;
	ns = b->armed_ns[cpu];
	if (b->links && b->links[cpu])
		ns += mono_ns() - b->armed_since[cpu];
	return ns;
}

bool bpf_sampler_mmap_events(const struct bpf_sampler *b)
{
	return b->mmap_on;
}

int bpf_sampler_mmap_counters(const struct bpf_sampler *b, struct fxs_mmap_counters *ret)
{
	int err;

	if (!b->skel) {
		memset(ret, 0, sizeof(*ret));
		return -EBADFD;
	}
	/* the forks are counted in the kernel, the mappings here */
	err = sum_per_cpu(b, b->skel->maps.mmap_counters, ret->v, FXS_MC_NR);
	for (int k = 0; k < FXS_MC_NR; k++)
		ret->v[k] += b->mc.v[k];
	/* what the kernel lost it reported, but we never saw: seen counts it too */
	if (b->sb)
		ret->v[FXS_MC_RING_FULL] += sideband_lost(b->sb);
	ret->v[FXS_MC_SEEN] += ret->v[FXS_MC_RING_FULL];
	return err;
}

int bpf_sampler_set_python(struct bpf_sampler *b, uint32_t pid, const struct fxs_py_proc *p)
{
	int fd;

	if (!b->opts.python)
		return -ENOENT;
	fd = bpf_map__fd(b->skel->maps.py_procs);
	if (!p)
		return bpf_map_delete_elem(fd, &pid) && errno != ENOENT ? -errno : 0;
	return bpf_map_update_elem(fd, &pid, p, BPF_ANY) ? -errno : 0;
}
