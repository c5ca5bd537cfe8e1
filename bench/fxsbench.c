// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bench's own loader: loads fxsampler's program with the walker the bench
 * asks for (its cfg_walker knob), or the empty floor, attaches it to
 * CPU-clock events for one target, drains the rings every 100 ms and prints
 * one JSON line: BPF run count and run time (bpf_stats), samples and bytes
 * written.
 *
 *   fxsbench PROG [-F HZ] [-d SEC] [--per-cpu] [--max-frames N] [--kernel]
 *            [--stacks FILE] (-p PID | -- CMD ARGS..)
 *
 * PROG: a walker of bpf/sampler.bpf.c (enum fxs_walker): fast, simple, ab
 * (both on every sample, mismatches counted), plain (the textbook walker),
 * getstack (bpf_get_stack), nowalk (the program without its walk); or empty
 * (bench/empty.bpf.c, an empty program); or sysexit (an empty program on
 * every syscall's exit, host-wide: no event, no target but the one to wait
 * for). --kernel turns on the kernel stacks
 * of record --kernel (cfg_kernel). Everything but the walk is
 * fxsampler's program as it ships. By default the event is per task (pid =
 * target, cpu = -1), so every firing is a sample of the target; --per-cpu
 * opens one event per CPU like fxsampler record does and filters in BPF.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sampler.skel.h"
#include "empty.skel.h"

#include "sampler.h"

struct bench {
	const char *prog_name;
	unsigned hz, max_frames;
	double seconds;
	bool per_cpu;
	bool kernel; /* cfg_kernel: the kernel stack of each sample in the kernel */
	bool tracing; /* sysexit: a tracepoint program, attached once */
	unsigned walker; /* enum fxs_walker */
	FILE *stacks;
	int nr_cpus;
	void *skel;
	void (*destroy)(void *skel);
	struct bpf_program *prog;
	struct bpf_map *rings, *targets, *ab_stats;
	volatile __u64 *state;
	struct ring_buffer *rb;
	unsigned long long samples, bytes;
};

/* The program's value of its A/B map (bpf/sampler.bpf.c's struct walk_ab). */
struct walk_ab {
	__u64 agree, differ;
};

static int open_sampler(struct bench *b)
{
	struct sampler_bpf *s = sampler_bpf__open();
	int err;

	if (!s)
		return -errno;
	s->rodata->cfg_max_frames = b->max_frames;
	s->rodata->cfg_walker = b->walker;
	s->rodata->cfg_kernel = b->kernel;
	s->rodata->cfg_filter_pids = true;
	s->rodata->cfg_wake_bytes = 1 << 20;
	/* As fxsampler without --off-cpu: its programs are not loaded. */
	bpf_program__set_autoload(s->progs.fxs_offcpu, false);
	bpf_program__set_autoload(s->progs.fxs_offcpu_sweep, false);
	bpf_map__set_max_entries(s->maps.rings, b->nr_cpus);
	if (bpf_map__value_size(s->maps.walk_ab) != sizeof(struct walk_ab)) {
		sampler_bpf__destroy(s);
		return -EPROTO;
	}
	err = sampler_bpf__load(s);
	if (err) {
		sampler_bpf__destroy(s);
		return err;
	}
	b->skel = s;
	b->destroy = (void (*)(void *))sampler_bpf__destroy;
	b->prog = s->progs.fxs_sample;
	b->rings = s->maps.rings;
	b->targets = s->maps.targets;
	b->state = &s->bss->fxs_state;
	if (b->walker == FXS_WALK_AB)
		b->ab_stats = s->maps.walk_ab;
	return 0;
}

static int open_empty(struct bench *b)
{
	struct empty_bpf *s = empty_bpf__open();

	if (!s)
		return -errno;
	bpf_program__set_autoload(s->progs.fxs_sysexit, b->tracing);
	if (empty_bpf__load(s)) {
		empty_bpf__destroy(s);
		return -errno;
	}
	b->skel = s;
	b->destroy = (void (*)(void *))empty_bpf__destroy;
	b->prog = b->tracing ? s->progs.fxs_sysexit : s->progs.fxs_empty;
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct bench *b = ctx;
	struct fxs_sample *h = data;
	__u64 *f = (__u64 *)(h + 1);

	b->samples++;
	b->bytes += size;
	if (b->stacks && size >= sizeof(*h) + h->nr_frames * 8) {
		fprintf(b->stacks, "backtrace tid=%u frames=%u flags=0x%x", h->tid, h->nr_frames,
			h->flags & ~FXS_SF_HAS_COMM);
		for (unsigned i = 0; i < h->nr_frames; i++)
			fprintf(b->stacks, " 0x%llx", (unsigned long long)f[i]);
		fputc('\n', b->stacks);
	}
	return 0;
}

static int create_rings(struct bench *b)
{
	int outer = bpf_map__fd(b->rings);

	for (int i = 0; i < b->nr_cpus; i++) {
		__u32 key = i;
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "fxs_ring", 0, 0, 2 << 20, NULL);

		if (fd < 0)
			return -errno;
		if (bpf_map_update_elem(outer, &key, &fd, BPF_ANY))
			return -errno;
		if (!b->rb)
			b->rb = ring_buffer__new(fd, on_record, b, NULL);
		else if (ring_buffer__add(b->rb, fd, on_record, b))
			return -errno;
		if (!b->rb)
			return -errno;
	}
	return 0;
}

static int open_clock(int pid, int cpu, unsigned hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = 1000000000ULL / hz,
		.disabled = 1,
	};

	return syscall(__NR_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: fxsbench fast|simple|ab|plain|getstack|nowalk|empty|sysexit [-F HZ] [-d SEC] "
			"[--per-cpu] [--max-frames N] [--kernel] [--stacks FILE] (-p PID | -- CMD..)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "per-cpu", no_argument, NULL, 'c' },
		{ "max-frames", required_argument, NULL, 'm' },
		{ "stacks", required_argument, NULL, 's' },
		{ "kernel", no_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		unsigned walker;
	} walkers[] = {
		{ "fast", FXS_WALK_FAST },	   { "simple", FXS_WALK_SIMPLE }, { "ab", FXS_WALK_AB },
		{ "plain", FXS_WALK_PLAIN },	   { "getstack", FXS_WALK_GETSTACK },
		{ "nowalk", FXS_WALK_NONE },
	};
	struct bench b = { .hz = 999, .max_frames = FXS_DEFAULT_FRAMES, .seconds = 0 };
	struct bpf_link *links[FXS_MAX_CPUS] = { 0 };
	struct bpf_prog_info info = { 0 }, info0 = { 0 };
	__u32 info_len = sizeof(info);
	int pid = 0, child = 0, go[2] = { -1, -1 }, stats_fd, opt, err, status = 0, nlinks = 0;
	unsigned long long t0, t1, ab[2] = { 0, 0 };
	bool exited = false;
	size_t i;

	if (argc < 2)
		usage();
	b.prog_name = argv[1];
	optind = 2;
	while ((opt = getopt_long(argc, argv, "F:d:p:", opts, NULL)) != -1) {
		switch (opt) {
		case 'F': b.hz = strtoul(optarg, NULL, 0); break;
		case 'd': b.seconds = strtod(optarg, NULL); break;
		case 'p': pid = strtol(optarg, NULL, 0); break;
		case 'c': b.per_cpu = true; break;
		case 'k': b.kernel = true; break;
		case 'm': b.max_frames = strtoul(optarg, NULL, 0); break;
		case 's':
			b.stacks = fopen(optarg, "we");
			if (!b.stacks) {
				perror(optarg);
				return 1;
			}
			break;
		default: usage();
		}
	}
	if (!pid && optind >= argc)
		usage();
	b.nr_cpus = libbpf_num_possible_cpus();

	for (i = 0; i < sizeof(walkers) / sizeof(walkers[0]); i++)
		if (!strcmp(b.prog_name, walkers[i].name))
			break;
	if (i < sizeof(walkers) / sizeof(walkers[0])) {
		b.walker = walkers[i].walker;
		err = open_sampler(&b);
	} else if (!strcmp(b.prog_name, "empty") || !strcmp(b.prog_name, "sysexit")) {
		b.tracing = !strcmp(b.prog_name, "sysexit");
		err = open_empty(&b);
	} else {
		usage();
	}
	if (err) {
		fprintf(stderr, "fxsbench: failed to load '%s': %s\n", b.prog_name, strerror(-err));
		return 1;
	}
	if (b.rings && (err = create_rings(&b))) {
		fprintf(stderr, "fxsbench: failed to create rings: %s\n", strerror(-err));
		return 1;
	}

	if (!pid) {
		if (pipe2(go, O_CLOEXEC))
			return 1;
		child = fork();
		if (child < 0)
			return 1;
		if (child == 0) {
			char c;

			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(127);
			execvp(argv[optind], argv + optind);
			_exit(127);
		}
		close(go[0]);
		pid = child;
	}
	if (b.targets) {
		__u8 one = 1;
		__u32 key = pid;

		bpf_map_update_elem(bpf_map__fd(b.targets), &key, &one, BPF_ANY);
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		fprintf(stderr, "fxsbench: bpf_enable_stats failed; is kernel.bpf_stats_enabled on?\n");
	bpf_obj_get_info_by_fd(bpf_program__fd(b.prog), &info0, &info_len);

	if (b.tracing) {
		links[0] = bpf_program__attach(b.prog);
		nlinks = links[0] != NULL;
	}
	for (int cpu = b.per_cpu ? 0 : -1; !b.tracing && cpu < (b.per_cpu ? b.nr_cpus : 0);
	     cpu++) {
		LIBBPF_OPTS(bpf_perf_event_opts, popts, .bpf_cookie = 1);
		int fd = open_clock(b.per_cpu ? -1 : pid, cpu, b.hz);

		if (fd < 0)
			continue;
		links[nlinks] = bpf_program__attach_perf_event_opts(b.prog, fd, &popts);
		if (!links[nlinks]) {
			close(fd);
			continue;
		}
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		nlinks++;
	}
	if (!nlinks) {
		fprintf(stderr, "fxsbench: no event attached\n");
		return 1;
	}
	if (b.state)
		*b.state = FXS_ST_RUNNING | FXS_SESSION_ONE;
	t0 = now_ns();
	if (child && write(go[1], "g", 1) != 1)
		return 1;
	for (;;) {
		struct timespec ts = { 0, 100000000 };

		nanosleep(&ts, NULL);
		if (b.rb)
			ring_buffer__consume(b.rb);
		if (child && waitpid(child, &status, WNOHANG) == child) {
			exited = true;
			break;
		}
		if (b.seconds > 0 && now_ns() - t0 >= b.seconds * 1e9)
			break;
	}
	t1 = now_ns();
	info_len = sizeof(info);
	bpf_obj_get_info_by_fd(bpf_program__fd(b.prog), &info, &info_len);
	if (b.state)
		*b.state = 0;
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	if (b.rb)
		ring_buffer__consume(b.rb);
	if (b.ab_stats) {
		struct walk_ab *v = calloc(b.nr_cpus, sizeof(*v));
		__u32 zero = 0;

		if (v && !bpf_map_lookup_elem(bpf_map__fd(b.ab_stats), &zero, v)) {
			for (int c = 0; c < b.nr_cpus; c++) {
				ab[0] += v[c].agree;
				ab[1] += v[c].differ;
			}
		}
		free(v);
	}
	if (child && !exited) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
	}
	{
		unsigned long long cnt = info.run_cnt - info0.run_cnt;
		unsigned long long ns = info.run_time_ns - info0.run_time_ns;

		printf("{\"prog\": \"%s\", \"hz\": %u, \"per_cpu\": %s, \"wall_ns\": %llu, "
		       "\"run_cnt\": %llu, \"run_time_ns\": %llu, \"ns_per_run\": %.1f, "
		       "\"samples\": %llu, \"bytes\": %llu",
		       b.prog_name, b.hz, b.per_cpu ? "true" : "false", t1 - t0, cnt, ns,
		       cnt ? (double)ns / cnt : 0.0, b.samples, b.bytes);
		if (b.ab_stats)
			printf(", \"ab_match\": %llu, \"ab_mismatch\": %llu", ab[0], ab[1]);
		printf("}\n");
	}
	if (b.stacks)
		fclose(b.stacks);
	ring_buffer__free(b.rb);
	b.destroy(b.skel);
	return 0;
}
