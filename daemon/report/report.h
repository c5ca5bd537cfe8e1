/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `fxsampler report`: aggregates the backtrace records of an .fxt file into
 * stacks per thread, symbolizes them with the file's module and mmap records,
 * and writes a top view, folded stacks, a pprof profile or a flame graph SVG.
 * Pure: no libbpf. Only report_run() prints an error message, and only when
 * the caller gives it no buffer for it.
 */
#ifndef FXS_DAEMON_REPORT_H
#define FXS_DAEMON_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symbols/debuginfod_fetch.h"

struct demangler;
struct fxt_record;
struct symbolizer;

#define REPORT_DEFAULT_TOP 20

/* What a stack's value counts (report_opts.time_mode). */
enum report_time {
	REPORT_SAMPLES = 0, /* on-CPU samples */
	REPORT_OFFCPU = 1,  /* ns off the CPU, from the off-CPU intervals (--off-cpu) */
	REPORT_WALL = 2,    /* ns: samples times the period, plus the intervals (--wall) */
};

struct report_opts {
	unsigned top;	       /* rows of the function table; 0: REPORT_DEFAULT_TOP */
	bool folded;	       /* report_run: folded stacks to out instead of the top view */
	bool folded_no_thread; /* leave the thread out of folded stacks and the SVG */
	/*
	 * The root frames of folded stacks and the SVG. By default a process
	 * frame is the process's name and a thread frame the thread's name, so
	 * the processes and threads that share a name share their frames (a pool
	 * of 200 "worker" threads is one frame). split_processes makes the
	 * process frame the command line the capture found, split_threads the
	 * thread frame "name-TID"; both give the per-process, per-thread frames
	 * of fxsampler 0.1. no_root_frames leaves out both kinds of frame.
	 */
	bool split_processes;
	bool split_threads;
	bool no_root_frames;
	/* report_run: also write the samples in `perf script` text format here. */
	const char *perf_script_path;
	const char *pprof_path; /* report_run: also write a gzipped pprof profile here */
	const char *svg_path;	/* report_run: also write a flame graph here */
	/* report_run: also write a copy of the .fxt with Perfetto's samples here */
	const char *perfetto_path;
	bool svg_inverted; /* the flame graph as an icicle: the root on top */
	bool has_pid;	   /* keep only the samples of process pid */
	uint64_t pid;
	bool has_tid; /* keep only the samples of thread tid */
	uint64_t tid;
	const char *debug_dir; /* root of separate debug files; NULL: /usr/lib/debug */
	uint64_t period_ns;    /* sampling period for pprof; 0: estimated from the samples */
	bool lines;	       /* top: one row per function and source line (file:line) */
	unsigned width;	       /* top: fit rows in this many columns; 0: never cut a name */
	bool no_debuginfod;    /* do not fetch debug files even when DEBUGINFOD_URLS is set */
	/* The caps of those fetches, each 0: its default (debuginfod_fetch.h). */
	struct debuginfod_limits debuginfod_limits;
	/*
	 * report_run: where the reason of a failure goes (NUL-terminated). When
	 * NULL, report_run() prints it to stderr instead.
	 */
	char *errbuf;
	size_t errbuf_size;
	/* report_run: where to say which file it wrote (e.g. stderr); NULL: nowhere. */
	FILE *info;
	unsigned time_mode; /* enum report_time */
	bool no_kernel;	    /* leave the kernel frames of record --kernel out */
	/*
	 * A symbolizer the caller owns and feeds the module and mmap records
	 * (fxsamplerd's HTTP windows share one, and its ELF cache, across
	 * scrapes); report_add() then leaves those records to it. NULL: the
	 * report makes its own.
	 */
	struct symbolizer *symbolizer;
	/* Show C++ and Rust names as the symbol tables spell them (--no-demangle). */
	bool no_demangle;
	/*
	 * A memo of demangled names the caller owns (fxsamplerd's HTTP windows
	 * share one across scrapes, beside their symbolizer); NULL: the report
	 * makes its own. Unused with no_demangle.
	 */
	struct demangler *demangler;
	/*
	 * With symbolizer: the frames it resolved for earlier reports, kept
	 * (sym_cache.h) and used for this one's addresses. NULL: none.
	 */
	struct sym_cache *sym_cache;
};

struct report;

/* NULL with errno set (ENOMEM). opts may be NULL; it is copied (not errbuf's bytes). */
struct report *report__new(const struct report_opts *opts);
/* NULL-safe. */
void report__free(struct report *r);

/*
 * Account one record: kernel objects (process and thread names), profiler
 * module/mmap/backtrace records, the "fxsampler" counters and the "records
 * dropped" provider event. Others are ignored. Returns 0, -ENOMEM.
 */
int report_add(struct report *r, const struct fxt_record *rec);

/*
 * The outputs. Each returns 0, -ENOMEM, or -EIO when writing to out fails.
 * Records may still be added after an output; the next one includes them.
 *
 * top: a summary, the n functions with the most self samples (self and total
 * samples with percentages; 0: REPORT_DEFAULT_TOP), then samples per
 * thread, in 80 columns.
 */
int report_write_top(struct report *r, FILE *out, unsigned n);
/*
 * "process;thread;outer;...;leaf count" lines, sorted; see struct report_opts.
 * The process frame is the process name (split_processes: the command line
 * the capture found in /proc, else the name); the thread frame the thread
 * name (split_threads: "name-TID"); neither with no_root_frames.
 */
int report_write_folded(struct report *r, FILE *out);
/* A gzip-compressed profile.proto for `go tool pprof`. */
int report_write_pprof(struct report *r, FILE *out);
/*
 * A window of a longer stream as a pprof profile for a fleet's scraper
 * (fxsamplerd's /debug/pprof/profile): the samples added, shaped as Go's CPU
 * profile, with the window's times instead of the capture's, the comments
 * given, and only low-cardinality labels ("executable", the process name;
 * "thread", the thread name): no pid or tid, which would make a series per
 * thread in Pyroscope.
 */
struct report_pprof_window {
	uint64_t time_nanos;	 /* CLOCK_REALTIME ns at the window's start */
	uint64_t duration_nanos; /* the time it was sampled, gaps left out */
	const char *const *comments;
	unsigned nr_comments;
};
int report_write_pprof_window(struct report *r, FILE *out, const struct report_pprof_window *w);
/*
 * Give r the process and thread names src knows for the pids and tids of r's
 * samples that r has no name for: a window of a stream sees the kernel
 * object records only of the threads that appeared during it. 0 or -ENOMEM.
 */
int report_adopt_names(struct report *r, const struct report *src);
/* The samples added (their weight, in the view asked for). */
uint64_t report_samples(const struct report *r);

/*
 * JIT code named where the report is made (fxsamplerd's scrapes read the
 * live processes' perf maps, lang/perfmap_live.h): for each process, the
 * distinct pcs of its user frames (a return address less one) that no
 * symbol and no perf-map entry of r names, sorted, and the time
 * (records' ticks) of its first sample. fn's nonzero stops and is returned.
 * Call it before any output (entries added after one name nothing in it).
 */
typedef int (*report_jit_need_fn)(void *ctx, uint64_t pid, uint64_t first_ts, const uint64_t *pcs,
				  size_t nr_pcs);
int report_jit_unnamed(struct report *r, report_jit_need_fn fn, void *ctx);
/* One perf-map entry of pid, as a blob record's (the later added wins). 0 or -ENOMEM. */
int report_jit_add(struct report *r, uint64_t pid, uint64_t start, uint64_t size, const char *name,
		   size_t name_len);

/*
 * Every sample in time order as `perf script` prints it, for viewers with a
 * timeline (speedscope, the Firefox Profiler, Perfetto): a "comm pid/tid
 * seconds: period cpu-clock:" line, one "address symbol (module)" line per
 * frame, innermost first, and an empty line. Needs a report made with
 * opts->perf_script_path set (it keeps every sample's time and stack, 16
 * bytes each); -EINVAL otherwise.
 */
int report_write_perf_script(struct report *r, FILE *out);
/*
 * For Perfetto (ui.perfetto.dev, trace_processor): a copy of the .fxt
 * report_run() read, its records as they were, with every sample added at
 * its end as Perfetto's packets (PerfSample, interned callstacks, frames named
 * as report names them, kernel frames of kind kernel) in FXT blob records of
 * type 3. Needs a report made by report_run() with opts->perfetto_path set;
 * -EINVAL otherwise.
 */
int report_write_perfetto(struct report *r, FILE *out);
/*
 * A self-contained interactive flame graph: one <g><title/><rect/><text/></g>
 * per frame, siblings under a pixel merged into one, and a script to zoom and
 * search (no network).
 */
int report_write_svg(struct report *r, FILE *out);

/*
 * Read the .fxt (or gzipped .fxt) at path and write what opts asks for: the
 * top view or the folded stacks to out (unless out is NULL), the pprof and
 * SVG files to their paths. Returns 0, -EBADMSG for a malformed file (the
 * message says where and why), another -errno.
 */
int report_run(const char *path, const struct report_opts *opts, FILE *out);

#endif /* FXS_DAEMON_REPORT_H */
