// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fxsampler report: its options, and the terminal's width; report/ does the work. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/units.h"
#include "cli/commands.h"
#include "report/report.h"

static const char report_usage[] =
	"usage: fxsampler report FILE [--top N] [--lines] [--wide] [--folded] [--pprof OUT]\n"
	"                        [--svg OUT] [--svg-inverted] [--perf-script OUT]\n"
	"                        [--perfetto OUT]\n"
	"                        [--split-threads] [--split-processes] [--no-thread-frames]\n"
	"                        [--pid P] [--tid T] [--debug-dir DIR] [--no-debuginfod]\n"
	"                        [--debuginfod-max-size SIZE] [--debuginfod-max-time DUR]\n"
	"                        [--debuginfod-total-size SIZE] [--debuginfod-total-time DUR]\n"
	"                        [--no-kernel] [--no-demangle]\n"
	"\n"
	"Symbolize a capture with the ELF files on disk and show where the time went.\n"
	"\n"
	"      --top N        the N functions with the most samples (default 20)\n"
	"      --lines        top: one row per function and source line (file:line)\n"
	"      --wide         top: never cut names to the terminal's width (they are\n"
	"                     never cut when the output is not a terminal)\n"
	"      --folded       folded stacks (a;b;c 42) for flamegraph.pl or speedscope\n"
	"      --pprof OUT    also write a gzipped pprof profile (go tool pprof)\n"
	"      --svg OUT      also write a flame graph to open in a browser (click to\n"
	"                     zoom, Search or Ctrl-F for a regular expression)\n"
	"      --svg-inverted the flame graph as an icicle: the root on top\n"
	"      --perf-script OUT  also write the samples in time order as `perf script`\n"
	"                     prints them (speedscope, Firefox Profiler, Perfetto)\n"
	"      --perfetto OUT also write a copy of the capture with every sample as\n"
	"                     Perfetto's (open it in ui.perfetto.dev: samples on each\n"
	"                     thread's track, beside its states)\n"
	"      --split-threads  folded/SVG: a frame per thread (name-TID), not one per\n"
	"                     thread name\n"
	"      --split-processes  folded/SVG: a frame per command line, not one per\n"
	"                     process name\n"
	"      --no-thread-frames  folded/SVG: no process and thread frames at all\n"
	"      --merge-threads  one frame per thread name: the default, kept for scripts\n"
	"      --pid P        only the samples of process P\n"
	"      --tid T        only the samples of thread T\n"
	"      --debug-dir D  where separate debug files live (default /usr/lib/debug)\n"
	"      --no-debuginfod  never fetch debug files (by default they are fetched\n"
	"                     from DEBUGINFOD_URLS when it is set)\n"
	"      --debuginfod-max-size SIZE  a fetch is abandoned past SIZE (default\n"
	"                     DEBUGINFOD_MAXSIZE, else 256M)\n"
	"      --debuginfod-max-time DUR  ... or after DUR (default DEBUGINFOD_MAXTIME,\n"
	"                     else 30s)\n"
	"      --debuginfod-total-size SIZE, --debuginfod-total-time DUR  the caps of\n"
	"                     all the fetches of the report (default 1G, 2m)\n"
	"      --off-cpu      time off the CPU by stack, in ns (a capture made with\n"
	"                     record --off-cpu), instead of samples\n"
	"      --no-kernel    leave out the kernel frames (of a capture with kernel stacks)\n"
	"      --no-demangle  C++ and Rust names as the symbol tables spell them\n"
	"                     (_ZN4llvm...), not demangled (llvm::...)\n"
	"      --wall         wall time by stack, in ns: samples times the period plus\n"
	"                     the off-CPU intervals\n"
	"  -h, --help         this text\n";

/* The columns of the terminal on fd: COLUMNS when set, as ls does, else its size, else 80. */
static unsigned terminal_width(int fd)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	uint64_t v;

	if (env && !units_parse_u64(env, &v) && v >= 20 && v <= 100000)
		return (unsigned)v;
	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

int cmd_report(int argc, char **argv)
{
	enum {
		OPT_TOP = 256,
		OPT_FOLDED,
		OPT_PPROF,
		OPT_SVG,
		OPT_PID,
		OPT_TID,
		OPT_DEBUG_DIR,
		OPT_PERF_SCRIPT,
		OPT_MERGE_THREADS,
		OPT_SPLIT_THREADS,
		OPT_SPLIT_PROCESSES,
		OPT_NO_THREAD_FRAMES,
		OPT_LINES,
		OPT_NO_DEBUGINFOD,
		OPT_NO_KERNEL,
		OPT_WIDE,
		OPT_SVG_INVERTED,
		OPT_OFF_CPU,
		OPT_WALL,
		OPT_DI_MAX_SIZE,
		OPT_DI_MAX_TIME,
		OPT_DI_TOTAL_SIZE,
		OPT_DI_TOTAL_TIME,
		OPT_NO_DEMANGLE,
		OPT_PERFETTO,
	};
	static const struct option options[] = {
		{"top", required_argument, NULL, OPT_TOP},
		{"folded", no_argument, NULL, OPT_FOLDED},
		{"pprof", required_argument, NULL, OPT_PPROF},
		{"svg", required_argument, NULL, OPT_SVG},
		{"pid", required_argument, NULL, OPT_PID},
		{"tid", required_argument, NULL, OPT_TID},
		{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
		{"perf-script", required_argument, NULL, OPT_PERF_SCRIPT},
		{"perfetto", required_argument, NULL, OPT_PERFETTO},
		{"merge-threads", no_argument, NULL, OPT_MERGE_THREADS},
		{"split-threads", no_argument, NULL, OPT_SPLIT_THREADS},
		{"split-processes", no_argument, NULL, OPT_SPLIT_PROCESSES},
		{"no-thread-frames", no_argument, NULL, OPT_NO_THREAD_FRAMES},
		{"lines", no_argument, NULL, OPT_LINES},
		{"no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD},
		{"no-kernel", no_argument, NULL, OPT_NO_KERNEL},
		{"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
		{"wide", no_argument, NULL, OPT_WIDE},
		{"svg-inverted", no_argument, NULL, OPT_SVG_INVERTED},
		{"off-cpu", no_argument, NULL, OPT_OFF_CPU},
		{"wall", no_argument, NULL, OPT_WALL},
		{"debuginfod-max-size", required_argument, NULL, OPT_DI_MAX_SIZE},
		{"debuginfod-max-time", required_argument, NULL, OPT_DI_MAX_TIME},
		{"debuginfod-total-size", required_argument, NULL, OPT_DI_TOTAL_SIZE},
		{"debuginfod-total-time", required_argument, NULL, OPT_DI_TOTAL_TIME},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct report_opts o = {0};
	bool wide = false;
	char errbuf[512];
	uint64_t v;
	int opt, err;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":hV", options, NULL)) != -1) {
		switch (opt) {
		case OPT_TOP:
			if (units_parse_u64(optarg, &v) || v == 0 || v > 100000) {
				cli_say("invalid --top '%s': a count from 1", optarg);
				return EXIT_USAGE;
			}
			o.top = (unsigned)v;
			break;
		case OPT_FOLDED:
			o.folded = true;
			break;
		case OPT_PPROF:
			o.pprof_path = optarg;
			break;
		case OPT_SVG:
			o.svg_path = optarg;
			break;
		case OPT_PID:
		case OPT_TID:
			if (units_parse_u64(optarg, &v) || v == 0) {
				cli_say("invalid %s '%s'", opt == OPT_PID ? "--pid" : "--tid",
					optarg);
				return EXIT_USAGE;
			}
			if (opt == OPT_PID) {
				o.has_pid = true;
				o.pid = v;
			} else {
				o.has_tid = true;
				o.tid = v;
			}
			break;
		case OPT_DEBUG_DIR:
			o.debug_dir = optarg;
			break;
		case OPT_PERF_SCRIPT:
			o.perf_script_path = optarg;
			break;
		case OPT_PERFETTO:
			o.perfetto_path = optarg;
			break;
		case OPT_MERGE_THREADS:
			o.split_threads = false;
			break;
		case OPT_SPLIT_THREADS:
			o.split_threads = true;
			break;
		case OPT_SPLIT_PROCESSES:
			o.split_processes = true;
			break;
		case OPT_NO_THREAD_FRAMES:
			o.no_root_frames = true;
			break;
		case OPT_LINES:
			o.lines = true;
			break;
		case OPT_NO_KERNEL:
			o.no_kernel = true;
			break;
		case OPT_NO_DEMANGLE:
			o.no_demangle = true;
			break;
		case OPT_NO_DEBUGINFOD:
			o.no_debuginfod = true;
			break;
		case OPT_WIDE:
			wide = true;
			break;
		case OPT_SVG_INVERTED:
			o.svg_inverted = true;
			break;
		case OPT_OFF_CPU:
		case OPT_WALL:
			if (o.time_mode) {
				cli_say("--off-cpu and --wall exclude each other");
				return EXIT_USAGE;
			}
			o.time_mode = opt == OPT_OFF_CPU ? REPORT_OFFCPU : REPORT_WALL;
			break;
		case OPT_DI_MAX_SIZE:
		case OPT_DI_TOTAL_SIZE:
			/* below a page no debug file fits; RLIMIT_FSIZE takes any */
			if (units_parse_size(optarg, &v) || v < 4096) {
				cli_say("invalid %s '%s': a size of at least 4K, like 64M or 1G",
					opt == OPT_DI_MAX_SIZE ? "--debuginfod-max-size"
							       : "--debuginfod-total-size",
					optarg);
				return EXIT_USAGE;
			}
			*(opt == OPT_DI_MAX_SIZE ? &o.debuginfod_limits.max_size
						 : &o.debuginfod_limits.total_size) = v;
			break;
		case OPT_DI_MAX_TIME:
		case OPT_DI_TOTAL_TIME:
			if (units_parse_duration_ns(optarg, &v) || v < 1000000) {
				cli_say("invalid %s '%s': a duration of at least 1ms, like 30s or "
					"2m",
					opt == OPT_DI_MAX_TIME ? "--debuginfod-max-time"
							       : "--debuginfod-total-time",
					optarg);
				return EXIT_USAGE;
			}
			*(opt == OPT_DI_MAX_TIME ? &o.debuginfod_limits.max_time_ns
						 : &o.debuginfod_limits.total_time_ns) = v;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf("fxsampler %s\n", FXS_VERSION);
			return EXIT_SUCCESS;
		case ':':
			cli_say("option '%s' needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			cli_say("unknown option '%s'", argv[optind - 1]);
			fputs(report_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		cli_say(optind == argc ? "report needs a FILE" : "report takes one FILE");
		fputs(report_usage, stderr);
		return EXIT_USAGE;
	}
	/* A pipe or a file gets whole names: scripts grep them. */
	if (!wide && isatty(STDOUT_FILENO))
		o.width = terminal_width(STDOUT_FILENO);
	o.errbuf = errbuf;
	o.errbuf_size = sizeof(errbuf);
	o.info = stderr;
	errbuf[0] = '\0';
	/*
	 * Blocks of 128 KiB and more in mappings of their own, returned when
	 * freed, as glibc starts: left to itself, it raises that threshold to
	 * the size of the largest such block freed, and the debug sections
	 * libdw inflates (10 MB for libc6-dbg) are freed as each module's
	 * pcs are resolved, so the report's tables that grow after them went
	 * to the heap, beside the holes libdw left there: 6 MB more peak RSS
	 * for folded stacks and the SVG of a C++ build's capture.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	err = report_run(argv[optind], &o, stdout);
	if (err) {
		/* report's messages name the file they are about: once is enough */
		if (errbuf[0])
			cli_say("%s", errbuf);
		else
			cli_say("%s: %s", argv[optind], strerror(-err));
		return EXIT_FAILURE;
	}
	if (fflush(stdout)) {
		cli_say("cannot write the report: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
