// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/clock.h"
#include "sampler.skel.h"

#include "capture/bpf_sampler_internal.h"
#include "capture/cpus.h"
#include "capture/ordered.h"
#include "capture/sideband.h"

/* struct bpf_sampler: capture/bpf_sampler_internal.h */

/* The CFI walker's ranges array: every process's executable mappings. */
#define CFI_RANGES 65536

struct bpf_sampler *bpf_sampler__new(const struct bpf_sampler_opts *opts)
{
	struct bpf_sampler *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->opts = *opts;
	if (opts->nr_pids) {
		b->pids = calloc(opts->nr_pids, sizeof(*b->pids));
		if (!b->pids) {
			free(b);
			errno = ENOMEM;
			return NULL;
		}
		memcpy(b->pids, opts->pids, opts->nr_pids * sizeof(*b->pids));
		b->opts.pids = b->pids;
	}
	return b;
}

/* Sampling on cpu ended at end_ns (now, or when a dead event last fired). */
static void disarm_cpu_at(struct bpf_sampler *b, int cpu, uint64_t end_ns)
{
	if (!b->links[cpu])
		return;
	/* The link owns its perf event fd: destroying it and our fd closes the event. */
	bpf_link__destroy(b->links[cpu]);
	b->links[cpu] = NULL;
	close(b->event_fds[cpu]);
	b->event_fds[cpu] = -1;
	b->armed_ns[cpu] += end_ns - b->armed_since[cpu];
}

static void disarm_cpu(struct bpf_sampler *b, int cpu)
{
	disarm_cpu_at(b, cpu, mono_ns());
}

static void release_links(struct bpf_sampler *b)
{
	for (int i = 0; b->links && i < b->nr_cpus; i++)
		disarm_cpu(b, i);
}

static void bpf_release(void *ctx)
{
	struct bpf_sampler *b = ctx;

	release_links(b);
	if (b->sb)
		b->mc.v[FXS_MC_RING_FULL] += sideband_lost(b->sb);
	sideband__free(b->sb);
	b->sb = NULL;
	bpf_link__destroy(b->off_link);
	b->off_link = NULL;
	bpf_link__destroy(b->resume_link);
	b->resume_link = NULL;
	free(b->links);
	b->links = NULL;
	free(b->armed_since);
	b->armed_since = NULL;
	ring_buffer__free(b->rb);
	b->rb = NULL;
	if (b->cfi_rows)
		munmap(b->cfi_rows, b->cfi_rows_len);
	if (b->cfi_ranges)
		munmap(b->cfi_ranges, b->cfi_ranges_len);
	if (b->cfi_rules)
		munmap(b->cfi_rules, b->cfi_rules_len);
	b->cfi_rows = b->cfi_ranges = b->cfi_rules = NULL;
	for (int i = 0; b->ring_fds && i < b->nr_cpus; i++)
		if (b->ring_fds[i] >= 0)
			close(b->ring_fds[i]);
	free(b->ring_fds);
	b->ring_fds = NULL;
	sampler_bpf__destroy(b->skel);
	b->skel = NULL;
}

void bpf_sampler__free(struct bpf_sampler *b)
{
	if (!b)
		return;
	bpf_release(b);
	free(b->armed_ns);
	free(b->event_fds);
	free(b->last_enabled);
	free(b->last_look_ns);
	free(b->pids);
	ordered_free(&b->held);
	free(b);
}

/* Our pid namespace, or 0/0 for the initial one (no translation needed). */
static int pidns_of_self(__u64 *ret_dev, __u64 *ret_ino)
{
	const __u64 init_ino = 0xeffffffcULL; /* PROC_PID_INIT_INO */
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*ret_dev = st.st_ino == init_ino ? 0 : st.st_dev;
	*ret_ino = st.st_ino == init_ino ? 0 : st.st_ino;
	return 0;
}

static int create_rings(struct bpf_sampler *b, uint32_t size)
{
	int outer = bpf_map__fd(b->skel->maps.rings);

	for (int i = 0; i < b->nr_cpus; i++)
		b->ring_fds[i] = -1;
	for (int i = 0; i < b->nr_cpus; i++) {
		uint32_t key = i;
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "fxs_ring", 0, 0, size, NULL);

		if (fd < 0)
			return -errno;
		b->ring_fds[i] = fd;
		if (bpf_map_update_elem(outer, &key, &fd, BPF_ANY))
			return -errno;
		if (!b->rb)
			b->rb = ring_buffer__new(fd, bpf_sampler_on_ring_record, b, NULL);
		else if (ring_buffer__add(b->rb, fd, bpf_sampler_on_ring_record, b))
			return -errno;
		if (!b->rb)
			return -errno;
	}
	return 0;
}

/*
 * A mapping read from the side-band rings: kept for the ordered hand-over if
 * it is a target's (the kernel filters nothing there: a session's own
 * filter is the targets map, as the sampler's), counted either way.
 */
/*
 * The side-band events: with target pids, the targets' own (the kernel then
 * copies no other process's mappings); for the whole host, or where those
 * cannot be had (too many threads, no ptrace rights), every process's on each
 * online CPU. A CPU that comes online later gets the whole-host kind
 * (bpf_sampler_follow_cpus()): no task's event follows it there.
 */
static int open_sideband(struct bpf_sampler *b, size_t ring_bytes)
{
	bool online[FXS_MAX_CPUS] = {false};
	int err = 0;

	for (int cpu = 0; cpu < b->nr_cpus; cpu++)
		online[cpu] = cpu_is_online(cpu);
	b->sb = sideband__new(b->nr_cpus, ring_bytes);
	if (!b->sb)
		return -errno;
	for (unsigned i = 0; !err && i < b->opts.nr_pids; i++)
		err = sideband_open_process(b->sb, (pid_t)b->opts.pids[i], online);
	if (b->opts.nr_pids && !err)
		return 0;
	if (b->opts.nr_pids) {
		sideband__free(b->sb);
		b->sb = sideband__new(b->nr_cpus, ring_bytes);
		if (!b->sb)
			return -errno;
	}
	for (int cpu = 0; cpu < b->nr_cpus; cpu++) {
		if (!online[cpu])
			continue;
		err = sideband_open_cpu(b->sb, cpu);
		if (err && err != -ENODEV)
			return err;
	}
	return 0;
}

/* The print function libbpf had before a CFI load attempt. */
static libbpf_print_fn_t cfi_load_print;

/*
 * libbpf's warnings as its debug output while the CFI walker loads: a kernel
 * that refuses it gets a fallback (auto) or one line (cfi), not the
 * verifier's log; -v still shows that log.
 */
static int print_as_debug(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return cfi_load_print ? cfi_load_print(LIBBPF_DEBUG, fmt, ap) : 0;
}

unsigned bpf_sampler_cfi_fallback(const struct bpf_sampler *b)
{
	return b->cfi_fallback;
}

static int alloc_once(struct bpf_sampler *b, const struct sampler_config *cfg, uint64_t **ret_state)
{
	uint8_t one = FXS_TARGET_YES;
	int err;

	b->nr_cpus = libbpf_num_possible_cpus();
	if (b->nr_cpus <= 0 || b->nr_cpus > FXS_MAX_CPUS)
		return b->nr_cpus < 0 ? b->nr_cpus : -ERANGE;
	b->period_ns = cfg->period_ns ? cfg->period_ns : 1000000000ULL / cfg->freq_hz;
	b->ring_fds = calloc(b->nr_cpus, sizeof(*b->ring_fds));
	b->links = calloc(b->nr_cpus, sizeof(*b->links));
	b->armed_since = calloc(b->nr_cpus, sizeof(*b->armed_since));
	b->armed_ns = calloc(b->nr_cpus, sizeof(*b->armed_ns));
	if (!b->event_fds) {
		/* not in release: armed_ns and these outlive a session (bpf_sampler__free) */
		b->event_fds = calloc(b->nr_cpus, sizeof(*b->event_fds));
		for (int i = 0; b->event_fds && i < b->nr_cpus; i++)
			b->event_fds[i] = -1;
	}
	if (!b->last_enabled)
		b->last_enabled = calloc(b->nr_cpus, sizeof(*b->last_enabled));
	if (!b->last_look_ns)
		b->last_look_ns = calloc(b->nr_cpus, sizeof(*b->last_look_ns));
	b->skel = sampler_bpf__open();
	if (!b->ring_fds || !b->links || !b->armed_since || !b->armed_ns || !b->event_fds ||
	    !b->last_enabled || !b->last_look_ns || !b->skel) {
		err = -ENOMEM;
		goto fail;
	}
	b->skel->rodata->cfg_max_frames = cfg->max_frames;
	b->skel->rodata->cfg_filter_pids = b->opts.nr_pids > 0;
	b->skel->rodata->cfg_inherit = b->opts.inherit;
	b->skel->rodata->cfg_walker = b->opts.simple_walk ? FXS_WALK_SIMPLE : FXS_WALK_FAST;
	if (b->opts.check_creds && !b->opts.nr_pids) {
		err = -EINVAL;
		goto fail;
	}
	b->skel->rodata->cfg_check_creds = b->opts.check_creds;
	b->skel->rodata->cfg_uid = b->opts.uid;
	b->skel->rodata->cfg_caps = b->opts.caps;
	/* Off-CPU costs nothing unless asked for: its programs are not even loaded. */
	bpf_program__set_autoload(b->skel->progs.fxs_offcpu, b->opts.offcpu);
	bpf_program__set_autoload(b->skel->progs.fxs_offcpu_sweep, b->opts.offcpu);
	b->skel->rodata->cfg_offcpu_min_ns = b->opts.offcpu_min_ns;
	b->skel->rodata->cfg_kernel = b->opts.kernel;
	bpf_sampler_offer_python(b);
	/* make bench's section p: the walks of before, measured beside today's */
	bpf_sampler_env_knobs(b->skel);
	b->mmap_on = b->opts.mmap_events;
	b->skel->rodata->cfg_mmap_events = b->mmap_on;
	/* Linux 6.10+: a secure exec is seen before its image is mapped (bpf/mmap.bpf.h). */
	bpf_program__set_autoload(
		b->skel->progs.fxs_prep_exec,
		b->mmap_on && b->opts.check_creds &&
			libbpf_find_vmlinux_btf_id("sched_prepare_exec", BPF_TRACE_RAW_TP) > 0);
	err = pidns_of_self(&b->skel->rodata->cfg_pidns_dev, &b->skel->rodata->cfg_pidns_ino);
	if (err)
		goto fail;
	/*
	 * The CFI walker's frame loop is a bpf_loop() (Linux 5.17), whose
	 * callback the kernel runs only JITed: on 5.15 and 5.16, or with the
	 * JIT off, auto is the frame-pointer walker (no doomed verification
	 * first: seconds of it under emulation), and cfi cannot be had.
	 */
	if (b->opts.unwind != FXS_UNWIND_FP && bpf_sampler_cfi_cause() != BPF_CFI_REJECTED) {
		if (b->opts.unwind == FXS_UNWIND_CFI) {
			err = -EOPNOTSUPP;
			goto fail;
		}
		b->cfi_fallback = bpf_sampler_cfi_cause();
		b->opts.unwind = FXS_UNWIND_FP;
	}
	b->skel->rodata->cfg_unwind = b->opts.unwind;
	bpf_sampler_offer_rewalk(b);
	/* bpf/vma.bpf.h: a pc no published range holds, by its file (Linux 5.17) */
	b->find_vma =
		b->opts.unwind != FXS_UNWIND_FP && !b->find_vma_refused &&
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_find_vma, NULL) > 0;
	b->skel->rodata->cfg_find_vma = b->find_vma;
	b->skel->rodata->cfg_page_shift = (uint32_t)__builtin_ctzl((unsigned long)getpagesize());
	/*
	 * Children that are never sampled leave the targets map at their exit;
	 * with CFI, every process's ranges go at its exit.
	 */
	bpf_program__set_autoload(b->skel->progs.fxs_exit, (b->opts.nr_pids && b->opts.inherit) ||
								   b->opts.unwind != FXS_UNWIND_FP);
	/*
	 * An address a dlclose freed and the next dlopen reuses: the walker
	 * stops using the old library's ranges there (bpf/mmap.bpf.h). A
	 * kernel without the tracepoint walks them until the new mapping's
	 * record is read, as before.
	 */
	bpf_program__set_autoload(
		b->skel->progs.fxs_area_reused,
		b->opts.unwind != FXS_UNWIND_FP &&
			libbpf_find_vmlinux_btf_id("vm_unmapped_area", BPF_TRACE_RAW_TP) > 0);
	if (b->opts.unwind != FXS_UNWIND_FP) {
		/* words of page index and 4-byte rows; the rules besides (256 KiB) */
		uint64_t rows = b->opts.cfi_cap_bytes / sizeof(struct fxs_cfi_words);

		if (rows < 1 || rows > FXS_CFI_ROWS_TOTAL / FXS_CFI_WORDS) {
			err = -EINVAL;
			goto fail;
		}
		bpf_map__set_max_entries(b->skel->maps.cfi_rows, (uint32_t)rows);
		bpf_map__set_max_entries(b->skel->maps.cfi_rules,
					 FXS_CFI_RULES_MAX / FXS_CFI_WORDS);
		bpf_map__set_max_entries(b->skel->maps.cfi_ranges, CFI_RANGES);
	}
	/* Half full: wake the reader early rather than lose samples. */
	b->skel->rodata->cfg_wake_bytes = cfg->buffer_size / 2;
	bpf_map__set_max_entries(b->skel->maps.rings, b->nr_cpus);
	if (b->opts.unwind != FXS_UNWIND_FP)
		cfi_load_print = libbpf_set_print(print_as_debug);
	err = sampler_bpf__load(b->skel);
	if (b->opts.unwind != FXS_UNWIND_FP) {
		libbpf_set_print(cfi_load_print);
		b->cfi_refused = err != 0;
	}
	b->py_refused = err != 0 && b->opts.python;
	if (err)
		goto fail;
	for (unsigned i = 0; i < b->opts.nr_pids; i++) {
		if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.targets), &b->opts.pids[i], &one,
					BPF_ANY)) {
			err = -errno;
			goto fail;
		}
	}
	err = create_rings(b, cfg->buffer_size);
	if (!err && b->opts.unwind != FXS_UNWIND_FP)
		err = bpf_sampler_map_cfi(b);
	if (err)
		goto fail;
	if (b->mmap_on) {
		/*
		 * Opened before the session runs: no mapping made after its
		 * start is missed. Where the kernel refuses them (the memlock
		 * limit perf counts their rings against), mappings come from
		 * /proc as before.
		 */
		err = open_sideband(b, sideband_ring_bytes(cfg->buffer_size, b->nr_cpus));
		if (err) {
			sideband__free(b->sb);
			b->sb = NULL;
			b->mmap_on = false;
		}
	}
	if (bpf_program__autoload(b->skel->progs.fxs_exit)) {
		b->skel->links.fxs_exit = bpf_program__attach(b->skel->progs.fxs_exit);
		if (!b->skel->links.fxs_exit) {
			err = -errno;
			goto fail;
		}
	}
	if (bpf_program__autoload(b->skel->progs.fxs_area_reused)) {
		b->skel->links.fxs_area_reused =
			bpf_program__attach(b->skel->progs.fxs_area_reused);
		if (!b->skel->links.fxs_area_reused) {
			err = -errno;
			goto fail;
		}
	}
	if (bpf_program__autoload(b->skel->progs.fxs_prep_exec)) {
		b->skel->links.fxs_prep_exec = bpf_program__attach(b->skel->progs.fxs_prep_exec);
		if (!b->skel->links.fxs_prep_exec) {
			err = -errno;
			goto fail;
		}
	}
	/* Also for the CFI walker: a new process drops its pid's old ranges. */
	if ((b->opts.nr_pids && b->opts.inherit) || b->mmap_on || b->opts.unwind != FXS_UNWIND_FP) {
		b->skel->links.fxs_fork = bpf_program__attach(b->skel->progs.fxs_fork);
		if (!b->skel->links.fxs_fork) {
			err = -errno;
			goto fail;
		}
	}
	b->skel->links.fxs_exec = bpf_program__attach(b->skel->progs.fxs_exec);
	if (!b->skel->links.fxs_exec) {
		err = -errno;
		goto fail;
	}
	/* __u64 and uint64_t are the same 64 bits under different names. */
	*ret_state = (uint64_t *)&b->skel->bss->fxs_state;
	/*
	 * libbpf parsed the kernel's BTF (~6 MB) for the load and for each
	 * tracepoint looked up, and freed it: glibc keeps up to twice a freed
	 * chunk's size in the heap, ~10 MB of a capture's RSS never used again.
	 */
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	return 0;
fail:
	bpf_release(b);
	return err;
}

static int bpf_alloc(void *ctx, const struct sampler_config *cfg, uint64_t **ret_state)
{
	struct bpf_sampler *b = ctx;
	int err;

	b->cfi_refused = false;
	err = alloc_once(b, cfg, ret_state);
	/* A verifier that refuses the Python walk: native frames only, said in the summary. */
	if (err && b->py_refused) {
		b->opts.python = false;
		b->py_off = "this kernel's verifier refused the Python walk";
		free(b->armed_ns);
		b->armed_ns = NULL;
		b->cfi_refused = false;
		err = alloc_once(b, cfg, ret_state);
	}
	/* A verifier that refuses the walk by file (bpf/vma.bpf.h): the CFI walker without it. */
	if (err && b->cfi_refused && b->find_vma) {
		b->find_vma_refused = true;
		free(b->armed_ns);
		b->armed_ns = NULL;
		b->cfi_refused = false;
		err = alloc_once(b, cfg, ret_state);
	}
	if (!err || !b->cfi_refused)
		return err;
	/* The kernel refused the CFI walker: cfi fails, auto is the frame-pointer walker. */
	if (b->opts.unwind == FXS_UNWIND_CFI)
		return -EOPNOTSUPP;
	b->cfi_fallback = bpf_sampler_cfi_cause();
	b->opts.unwind = FXS_UNWIND_FP;
	free(b->armed_ns); /* made anew, not kept across attempts */
	b->armed_ns = NULL;
	return alloc_once(b, cfg, ret_state);
}

static int open_cpu_clock(int cpu, uint64_t period_ns)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = period_ns,
		/* runs while the event is on, idle CPU or not; stops when hotplug turns it off */
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED,
		.disabled = 1,
	};

	return syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int arm_cpu(struct bpf_sampler *b, int cpu)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = b->session);
	int fd, err;

	fd = open_cpu_clock(cpu, b->period_ns);
	if (fd < 0)
		return -errno;
	b->event_fds[cpu] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (b->event_fds[cpu] < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	b->links[cpu] = bpf_program__attach_perf_event_opts(b->skel->progs.fxs_sample, fd, &opts);
	if (!b->links[cpu]) {
		err = -errno;
		close(fd);
		close(b->event_fds[cpu]);
		b->event_fds[cpu] = -1;
		return err;
	}
	b->armed_since[cpu] = b->last_look_ns[cpu] = mono_ns();
	b->last_enabled[cpu] = 0;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		disarm_cpu(b, cpu);
		return err;
	}
	return 0;
}

static int bpf_arm(void *ctx, uint32_t session)
{
	struct bpf_sampler *b = ctx;
	int armed = 0, err;

	b->session = session;
	b->armed = true;
	if (b->opts.offcpu) {
		/* The program's gate: the state word's session must be this one. */
		b->skel->bss->fxs_off_session = session;
		b->skel->bss->offcpu_armed_ns = clock_ns(CLOCK_BOOTTIME);
		b->off_link = bpf_program__attach(b->skel->progs.fxs_offcpu);
		if (!b->off_link)
			return -errno;
	}
	/* Not attached: the intervals are written with the stacks of the switch, counted. */
	if (bpf_program__autoload(b->skel->progs.fxs_off_resume)) {
		b->resume_link = bpf_program__attach(b->skel->progs.fxs_off_resume);
		b->skel->bss->offcpu_rewalk_on = b->resume_link != NULL;
	}
	for (int cpu = 0; cpu < b->nr_cpus; cpu++) {
		if (!cpu_is_online(cpu))
			continue;
		err = arm_cpu(b, cpu);
		/* It went offline between the check and the open: picked up when it returns. */
		if (err == -ENODEV)
			continue;
		if (err)
			return err;
		armed++;
	}
	return armed ? 0 : -ENODEV;
}

/*
 * An event whose CPU went offline (and perhaps came back between two looks)
 * is off for good. Whether it fires says nothing: an idle CPU's clock does
 * not fire on 6.18. Its time enabled does: it runs on while the event is on,
 * idle or busy, and stops when hotplug turns it off. *ret_end_ns: when it
 * stopped, for the CPU's sampled time.
 */
static bool event_dead(struct bpf_sampler *b, int cpu, uint64_t now, uint64_t *ret_end_ns)
{
	uint64_t v[2]; /* the count, the time enabled */
	ssize_t n;

	/* two looks a moment apart may see the same nanosecond */
	if (now - b->last_look_ns[cpu] < 10000000ULL)
		return false;
	n = read(b->event_fds[cpu], v, sizeof(v));
	if (n == (ssize_t)sizeof(v) && v[1] != b->last_enabled[cpu]) {
		b->last_enabled[cpu] = v[1];
		b->last_look_ns[cpu] = now;
		return false;
	}
	/* off (or in error: a read of 0 bytes): it was on for its time enabled */
	*ret_end_ns = b->armed_since[cpu] + b->last_enabled[cpu];
	if (*ret_end_ns > now || *ret_end_ns < b->armed_since[cpu])
		*ret_end_ns = now;
	return true;
}

int bpf_sampler_follow_cpus(struct bpf_sampler *b)
{
	bool online[FXS_MAX_CPUS];
	uint64_t now = mono_ns();
	int changed = 0, err = 0;

	if (!b->armed || cpus_online(online, FXS_MAX_CPUS))
		return 0;
	for (int cpu = 0; !err && cpu < b->nr_cpus; cpu++) {
		uint64_t end_ns = now;
		bool dead = b->links[cpu] && event_dead(b, cpu, now, &end_ns);

		if (b->links[cpu] && (!online[cpu] || dead)) {
			disarm_cpu_at(b, cpu, end_ns);
			changed++;
		}
		if (online[cpu] && b->sb) {
			err = sideband_open_cpu(b->sb, cpu);
			if (err == -ENODEV)
				err = 0;
			if (err)
				break;
		}
		if (online[cpu] && !b->links[cpu]) {
			err = arm_cpu(b, cpu);
			if (err == -ENODEV)
				err = 0;
			else if (!err)
				changed++;
		}
	}
	return err ? err : changed;
}

/*
 * Close the intervals still open at the stop: the task iterator writes them
 * (end = now) into its file in the rings' record format, and they go to
 * on_sample like the rest. Runs after the sched_switch program is detached.
 */
static int sweep_offcpu(struct bpf_sampler *b)
{
	struct bpf_link *link;
	char *buf = NULL;
	size_t len = 0, cap = 0, off = 0;
	ssize_t n;
	int fd, err = 0;

	link = bpf_program__attach_iter(b->skel->progs.fxs_offcpu_sweep, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		if (cap - len < 65536) {
			char *p = realloc(buf, cap + 65536);

			if (!p) {
				err = -ENOMEM;
				goto out;
			}
			buf = p;
			cap += 65536;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += n;
	}
	while (len - off >=
	       sizeof(struct fxs_sample) + sizeof(struct fxs_offcpu) + sizeof(struct fxs_comm)) {
		const struct fxs_sample *s = (const void *)(buf + off);
		size_t size = sizeof(*s) + sizeof(struct fxs_offcpu) + sizeof(struct fxs_comm) +
			      ((size_t)s->nr_frames + s->nr_kframes) * sizeof(uint64_t);

		if (size > len - off)
			break;
		/* Records are whole words long: each one stays aligned. */
		err = b->opts.on_sample(b->opts.ctx, s, size);
		if (err)
			break;
		off += size;
	}
out:
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	free(buf);
	return err;
}

static int bpf_disarm(void *ctx)
{
	struct bpf_sampler *b = ctx;
	int err = 0;

	b->armed = false;
	release_links(b);
	/* the held intervals too go out through the sweep, never twice */
	b->skel->bss->offcpu_rewalk_on = 0;
	bpf_link__destroy(b->resume_link);
	b->resume_link = NULL;
	if (b->off_link) {
		bpf_link__destroy(b->off_link);
		b->off_link = NULL;
		err = sweep_offcpu(b);
	}
	return err;
}

static void bpf_sleep(void *ctx, uint64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Said by the owner (the CLI on stderr, the daemon in its log): bpf_sampler logs nothing. */
static void bpf_warn_slow_stop(void *ctx, uint64_t waited_ns)
{
	struct bpf_sampler *b = ctx;
	uint64_t state;

	if (!b->opts.on_slow_stop || !b->skel)
		return;
	state = __atomic_load_n(&b->skel->bss->fxs_state, __ATOMIC_ACQUIRE);
	b->opts.on_slow_stop(b->opts.ctx, waited_ns,
			     (uint32_t)((state & FXS_INFLIGHT_MASK) >> FXS_INFLIGHT_SHIFT));
}

const struct sampler_ops bpf_sampler_ops = {
	.alloc = bpf_alloc,
	.arm = bpf_arm,
	.disarm = bpf_disarm,
	.drain = bpf_sampler_drain,
	.release = bpf_release,
	.sleep_ns = bpf_sleep,
	.warn_slow_stop = bpf_warn_slow_stop,
};
