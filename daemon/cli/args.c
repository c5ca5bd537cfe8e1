// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "capture/lifecycle.h"
#include "util/units.h"

const char args_record_usage[] =
	"usage: fxsampler record [-p PID[,PID..]] [-a] [-F HZ | --period DUR] [-d DUR]\n"
	"                        [-o FILE] [--buffer-size SIZE] [--max-frames N] [-z]\n"
	"                        [--no-inherit] [-q] [-v] [--daemon] [--socket PATH]\n"
	"                        [--exit-status] [--preempt] [--unwind MODE]\n"
	"                        [--python MODE]\n"
	"                        [-- CMD ARGS..]\n"
	"\n"
	"Sample user stacks by walking frame pointers in eBPF and write a Fuchsia\n"
	"Trace Format file.\n"
	"\n"
	"  -p, --pid PID[,PID..]  sample these processes (and their children)\n"
	"  -a, --all              sample the whole host (the default without -p or CMD)\n"
	"  -F, --freq HZ          samples per second per CPU (default 999, at most 50000)\n"
	"      --period DUR       time between samples instead, e.g. 1ms, 250us\n"
	"  -d, --duration DUR     stop after DUR (e.g. 10s, 500ms, 2m)\n"
	"  -o, --output FILE      where to write (default fxsampler.fxt; - for stdout)\n"
	"      --buffer-size SIZE ring buffer per CPU, a power of two >= 4K (default 2M)\n"
	"      --max-frames N     deepest stack to walk, 1..512 (default 255)\n"
	"  -z, --compress         gzip the output (dump and report read it as is)\n"
	"      --no-inherit       do not follow the targets' children\n"
	"  -q, --quiet            no live status line\n"
	"  -v, --verbose          libbpf debug output\n"
	"      --daemon           capture through fxsamplerd even when root\n"
	"      --socket PATH      fxsamplerd's socket (default $FXSAMPLER_SOCKET or\n"
	"                         /run/fxsampler/control.sock)\n"
	"      --exit-status      exit with CMD's status (128+N if killed by signal N)\n"
	"                         once the capture is written, as time(1) does\n"
	"      --preempt          root only, through fxsamplerd: end the session that\n"
	"                         holds the sampler (its client gets a complete file)\n"
	"                         and capture instead\n"
	"      --off-cpu[=MIN]    also where threads wait: each time a target thread is\n"
	"                         off the CPU for MIN or longer (default 1ms), its state\n"
	"                         and the stack it blocked in\n"
	"      --kernel           also the kernel stack of each sample that lands in the\n"
	"                         kernel and, with --off-cpu, at each switch (root, the\n"
	"                         fxsampler group, or perf_event_paranoid <= 1)\n"
	"      --python MODE      on (the default): the Python functions and lines of\n"
	"                         CPython 3.11 and 3.13 processes among the native\n"
	"                         frames; off\n"
	"      --unwind MODE      auto (the default): unwind tables made from the\n"
	"                         modules' .eh_frame where loaded, else frame pointers\n"
	"                         (marked); cfi: tables only, a frame without one ends\n"
	"                         the stack; fp: frame pointers only\n"
	"      --cfi-memory SIZE  memory for unwind tables, up to 1G (default: 1/256 of\n"
	"                         RAM, 32M to 128M); modules that do not fit beside\n"
	"                         those in use go by frame pointers, named\n"
	"      --walker KIND      fast (bulk reads, the default) or simple (one read\n"
	"                         per frame); as root, for comparing the two\n"
	"      --no-mmap-events   read mappings from /proc/PID/maps after each process's\n"
	"                         first sample, as before the kernel's mapping events\n"
	"                         (short-lived processes go [unknown]); as root, for\n"
	"                         comparing the two\n"
	"      --allow-unsafe-kernel  load BPF on a kernel in the perf-interrupt lockup\n"
	"                         range (5.19 to 6.3.9) that has the fix backported\n"
	"  -h, --help             this text\n"
	"  -V, --version          the version\n"
	"\n"
	"DUR: a number and ns, us, ms, s, m (or min), h or d; a bare number is seconds.\n"
	"SIZE: bytes, or a number and K, M or G (or KB, KiB..., all powers of 1024).\n"
	"Units take any case, as in fxsamplerd.conf.\n"
	"\n"
	"With -- CMD, the command starts once sampling runs and the capture ends when\n"
	"it exits. Ctrl-C or SIGTERM end a capture with a complete file.\n"
	"Exit status: 0 success, 1 runtime failure, 2 usage error (--preempt by a user\n"
	"among them); with --exit-status, CMD's once the capture succeeded.\n";

enum {
	OPT_PERIOD = 256,
	OPT_BUFFER_SIZE,
	OPT_MAX_FRAMES,
	OPT_NO_INHERIT,
	OPT_DAEMON,
	OPT_SOCKET,
	OPT_WALKER,
	OPT_ALLOW_UNSAFE_KERNEL,
	OPT_EXIT_STATUS,
	OPT_OFF_CPU,
	OPT_KERNEL,
	OPT_PREEMPT,
	OPT_UNWIND,
	OPT_CFI_MEMORY,
	OPT_NO_MMAP_EVENTS,
	OPT_PYTHON,
};

static const struct option record_options[] = {
	{"pid", required_argument, NULL, 'p'},
	{"all", no_argument, NULL, 'a'},
	{"freq", required_argument, NULL, 'F'},
	{"period", required_argument, NULL, OPT_PERIOD},
	{"duration", required_argument, NULL, 'd'},
	{"output", required_argument, NULL, 'o'},
	{"buffer-size", required_argument, NULL, OPT_BUFFER_SIZE},
	{"max-frames", required_argument, NULL, OPT_MAX_FRAMES},
	{"compress", no_argument, NULL, 'z'},
	{"no-inherit", no_argument, NULL, OPT_NO_INHERIT},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"daemon", no_argument, NULL, OPT_DAEMON},
	{"socket", required_argument, NULL, OPT_SOCKET},
	{"walker", required_argument, NULL, OPT_WALKER},
	{"no-mmap-events", no_argument, NULL, OPT_NO_MMAP_EVENTS},
	{"off-cpu", optional_argument, NULL, OPT_OFF_CPU},
	{"kernel", no_argument, NULL, OPT_KERNEL},
	{"python", required_argument, NULL, OPT_PYTHON},
	{"unwind", required_argument, NULL, OPT_UNWIND},
	{"cfi-memory", required_argument, NULL, OPT_CFI_MEMORY},
	{"allow-unsafe-kernel", no_argument, NULL, OPT_ALLOW_UNSAFE_KERNEL},
	{"exit-status", no_argument, NULL, OPT_EXIT_STATUS},
	{"preempt", no_argument, NULL, OPT_PREEMPT},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_pids(const char *list, struct capture_opts *o, char *err, size_t size)
{
	const char *p = list;

	while (*p) {
		char one[32];
		size_t len = strcspn(p, ",");
		uint64_t pid;

		if (len == 0 || len >= sizeof(one))
			return fail(err, size, "invalid pid list '%s'", list);
		memcpy(one, p, len);
		one[len] = '\0';
		if (units_parse_u64(one, &pid) || pid == 0 || pid > 0x3fffffff)
			return fail(err, size, "invalid pid '%s'", one);
		if (o->nr_pids == CAPTURE_MAX_PIDS)
			return fail(err, size, "too many pids: at most %d", CAPTURE_MAX_PIDS);
		o->pids[o->nr_pids++] = (uint32_t)pid;
		p += len;
		if (*p == ',' && *++p == '\0')
			return fail(err, size, "invalid pid list '%s'", list);
	}
	if (!o->nr_pids)
		return fail(err, size, "invalid pid list '%s'", list);
	return 0;
}

int args_parse_unwind(const char *s, uint32_t *ret)
{
	if (!strcmp(s, "auto"))
		*ret = FXS_UNWIND_AUTO;
	else if (!strcmp(s, "fp"))
		*ret = FXS_UNWIND_FP;
	else if (!strcmp(s, "cfi"))
		*ret = FXS_UNWIND_CFI;
	else
		return -EINVAL;
	return 0;
}

int args_parse_record(int argc, char **argv, struct record_args *ret, char *err, size_t err_size)
{
	struct record_args a = {
		.capture =
			{
				.buffer_size = ARGS_DEFAULT_BUFFER,
				.max_frames = FXS_DEFAULT_FRAMES,
				.inherit = true,
				.unwind = FXS_UNWIND_AUTO,
				.python = true,
				.cfi_cap_bytes = 0, /* cfi_capture_default_memory() */
			},
		.output = ARGS_DEFAULT_OUTPUT,
	};
	bool freq_set = false, period_set = false;
	uint64_t v;
	/*
	 * at: the element getopt is working on, optind before the call (glibc
	 * only moves optind past "-abc" once it reaches its last letter).
	 */
	int opt, r, at = 1;

	err[0] = '\0';
	optind = 0;
	opterr = 0;
	/* "+": stop at the first non-option, so CMD's own flags stay its own. */
	while ((opt = getopt_long(argc, argv, "+:p:aF:d:o:zqvhV", record_options, NULL)) != -1) {
		switch (opt) {
		case 'p':
			r = parse_pids(optarg, &a.capture, err, err_size);
			if (r)
				return r;
			break;
		case 'a':
			a.all = true;
			break;
		case 'F':
			if (units_parse_u64(optarg, &v) || v == 0)
				return fail(err, err_size,
					    "invalid frequency '%s': a whole number of Hz above 0",
					    optarg);
			if (v > 1000000000ULL / SAMPLER_MIN_PERIOD_NS)
				return fail(err, err_size,
					    "frequency %s Hz is above the maximum of %llu Hz",
					    optarg, 1000000000ULL / SAMPLER_MIN_PERIOD_NS);
			a.capture.freq_hz = v;
			freq_set = true;
			break;
		case OPT_PERIOD:
			if (units_parse_duration_ns(optarg, &v) || v == 0)
				return fail(err, err_size,
					    "invalid period '%s': a duration above 0, e.g. 1ms",
					    optarg);
			if (v < SAMPLER_MIN_PERIOD_NS)
				return fail(err, err_size,
					    "period '%s' is below the minimum of 20us", optarg);
			a.capture.period_ns = v;
			period_set = true;
			break;
		case 'd':
			if (units_parse_duration_ns(optarg, &v) || v == 0)
				return fail(err, err_size,
					    "invalid duration '%s': e.g. 10s, 500ms, 2m", optarg);
			a.duration_ns = v;
			break;
		case 'o':
			if (!*optarg)
				return fail(err, err_size, "empty output file name");
			a.output = optarg;
			break;
		case OPT_BUFFER_SIZE:
			if (units_parse_size(optarg, &v))
				return fail(err, err_size,
					    "invalid buffer size '%s': e.g. 4096, 64K, 2M", optarg);
			if (v < SAMPLER_MIN_BUFFER || v > SAMPLER_MAX_BUFFER || (v & (v - 1)))
				return fail(err, err_size,
					    "buffer size '%s' must be a power of two from 4K to 1G",
					    optarg);
			a.capture.buffer_size = (uint32_t)v;
			break;
		case OPT_MAX_FRAMES:
			if (units_parse_u64(optarg, &v) || v < 1 || v > FXS_MAX_FRAMES)
				return fail(err, err_size, "invalid --max-frames '%s': 1 to %d",
					    optarg, FXS_MAX_FRAMES);
			a.capture.max_frames = (uint32_t)v;
			break;
		case 'z':
			a.compress = true;
			break;
		case OPT_NO_INHERIT:
			a.capture.inherit = false;
			break;
		case 'q':
			a.quiet = true;
			break;
		case 'v':
			a.verbose = true;
			break;
		case OPT_DAEMON:
			a.use_daemon = true;
			break;
		case OPT_SOCKET:
			a.socket = optarg;
			break;
		case OPT_ALLOW_UNSAFE_KERNEL:
			a.allow_unsafe_kernel = true;
			break;
		case OPT_EXIT_STATUS:
			a.exit_status = true;
			break;
		case OPT_PREEMPT:
			/* only fxsamplerd can end another session: through it, even as root */
			a.capture.preempt = true;
			a.use_daemon = true;
			break;
		case OPT_OFF_CPU:
			a.capture.offcpu = true;
			a.capture.offcpu_min_ns = ARGS_DEFAULT_OFFCPU_MIN;
			if (optarg && units_parse_duration_ns(optarg, &a.capture.offcpu_min_ns))
				return fail(err, err_size,
					    "invalid --off-cpu '%s': a duration such as 1ms or 0",
					    optarg);
			break;
		case OPT_KERNEL:
			a.capture.kernel = true;
			break;
		case OPT_PYTHON:
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				return fail(err, err_size, "invalid --python '%s': on or off",
					    optarg);
			a.capture.python = !strcmp(optarg, "on");
			break;
		case OPT_UNWIND:
			r = args_parse_unwind(optarg, &a.capture.unwind);
			if (r)
				return fail(err, err_size, "invalid --unwind '%s': auto, fp or cfi",
					    optarg);
			break;
		case OPT_CFI_MEMORY:
			if (units_parse_size(optarg, &v) || v < CAPTURE_CFI_CAP_MIN ||
			    v > CAPTURE_CFI_CAP_MAX)
				return fail(err, err_size,
					    "invalid --cfi-memory '%s': a size from 64K to 1G",
					    optarg);
			a.capture.cfi_cap_bytes = v;
			break;
		case OPT_WALKER:
			if (strcmp(optarg, "fast") && strcmp(optarg, "simple"))
				return fail(err, err_size, "invalid --walker '%s': fast or simple",
					    optarg);
			a.capture.simple_walk = !strcmp(optarg, "simple");
			break;
		case OPT_NO_MMAP_EVENTS:
			a.capture.proc_maps_only = true;
			break;
		case 'h':
			return ARGS_HELP;
		case 'V':
			return ARGS_VERSION;
		case ':':
			return fail(err, err_size, "option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt && strncmp(argv[at], "--", 2))
				return fail(err, err_size, "unknown option '-%c'", optopt);
			return fail(err, err_size, "unknown option '%s'", argv[at]);
		}
		at = optind;
	}
	if (optind < argc) {
		/*
		 * getopt skips "--" itself; anything left is the command. An
		 * option's value "--" (-o --) is no end of options.
		 */
		if (optind != at + 1 || strcmp(argv[at], "--"))
			return fail(err, err_size,
				    "unexpected argument '%s' (a command goes after --)",
				    argv[optind]);
		a.cmd = &argv[optind];
	}
	if (freq_set && period_set)
		return fail(err, err_size, "-F and --period exclude each other");
	if (!freq_set && !period_set)
		a.capture.freq_hz = ARGS_DEFAULT_FREQ;
	if (a.capture.nr_pids && a.cmd)
		return fail(err, err_size, "-p and -- CMD exclude each other");
	if (a.exit_status && !a.cmd)
		return fail(err, err_size, "--exit-status passes on the status of a -- CMD");
	if (a.all && (a.capture.nr_pids || a.cmd))
		return fail(err, err_size, "-a samples the whole host: it excludes -p and -- CMD");
	if (!a.capture.nr_pids && !a.cmd)
		a.all = true;
	*ret = a;
	return ARGS_RUN;
}
