// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* report_run(): the whole `fxsampler report` command, from an .fxt file to its outputs. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt/fxt_reader.h"
#include "report/offcpu.h"
#include "util/outfile.h"
#include "report/report_internal.h"
#include "util/safe_open.h"
#include "symbols/symbolizer.h"

/* ---- the whole command ---- */

static void fail_msg(const struct report_opts *opts, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fail_msg(const struct report_opts *opts, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (opts && opts->errbuf && opts->errbuf_size) {
		vsnprintf(opts->errbuf, opts->errbuf_size, fmt, ap);
	} else {
		fputs("fxsampler: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

typedef int (*write_fn)(struct report *r, FILE *out);

/*
 * An output file, made before any work so that a bad path fails at once
 * (outfile.h: a failed report leaves the old file; a device or a FIFO is
 * written through). f writes to a dup of its fd.
 */
struct out_file {
	const char *path;
	const char *what;
	write_fn fn;
	struct outfile of;
	FILE *f;
};

static int out_open(struct out_file *o, const struct report_opts *opts)
{
	int fd, err;

	err = outfile_open(&o->of, o->path, 0);
	if (err) {
		fail_msg(opts, "cannot create '%s': %s", o->path, outfile_strerror(&o->of, err));
		return err;
	}
	fd = dup(o->of.fd);
	o->f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!o->f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		outfile_abort(&o->of);
		fail_msg(opts, "cannot create '%s': %s", o->path, strerror(-err));
		return err;
	}
	return 0;
}

static void on_skipped(void *ctx, const char *path, int err)
{
	if (err == -SAFE_OPEN_ENOTREG)
		report_on_failure(ctx, path, err);
}

/*
 * One warning per module path that is not a regular file (a FIFO, a device,
 * a socket): it was skipped without being opened for real.
 */
static void warn_skipped(struct report *r)
{
	struct failure_list fl = {};
	const char *type;
	size_t i;

	symbolizer_for_each_failure(r->sym, on_skipped, &fl);
	if (fl.n)
		qsort(fl.v, fl.n, sizeof(*fl.v), report_failure_order);
	for (i = 0; i < fl.n; i++) {
		if (i && !strcmp(fl.v[i].path, fl.v[i - 1].path))
			continue;
		type = safe_open_describe(fl.v[i].path);
		fprintf(stderr, "fxsampler: module '%s': not a regular file (%s): not symbolized\n",
			fl.v[i].path, type ? type : "special file");
	}
	for (i = 0; i < fl.n; i++)
		free(fl.v[i].path);
	free(fl.v);
}

/* Drop an output that was not written (safe on one never opened or done). */
static void out_abort(struct out_file *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	outfile_abort(&o->of);
}

static int out_write(struct out_file *o, struct report *r, const struct report_opts *opts)
{
	long size = -1;
	int err;

	err = o->fn(r, o->f);
	if (!err && fflush(o->f))
		err = -errno;
	if (!err)
		size = o->of.direct ? -1 : ftell(o->f);
	if (fclose(o->f) && !err)
		err = -errno;
	o->f = NULL;
	if (!err)
		err = outfile_commit(&o->of);
	if (err) {
		fail_msg(opts, "cannot write '%s': %s", o->path, outfile_strerror(&o->of, err));
		out_abort(o);
		return err;
	}
	if (opts->info) {
		if (size >= 0)
			fprintf(opts->info, "fxsampler: wrote %s: %s, %ld bytes\n", o->path,
				o->what, size);
		else
			fprintf(opts->info, "fxsampler: wrote %s: %s\n", o->path, o->what);
	}
	return 0;
}

struct fetch_warnings {
	FILE *f;
	struct debuginfod_limits limits; /* as the symbolizer resolved them */
	const char *library_error;	 /* why libdebuginfod was not loaded */
	bool library_said;		 /* that warning is printed once */
};

static void on_fetch_failure(void *ctx, const char *path, const char *build_id, int err)
{
	struct fetch_warnings *w = ctx;
	char cap[160];

	if (err == DEBUGINFOD_NO_LIBRARY) {
		if (!w->library_said)
			fprintf(w->f,
				"fxsampler: warning: debuginfod: DEBUGINFOD_URLS is set, but "
				"libdebuginfod cannot be loaded (%s): no debug file is fetched, "
				"the "
				"modules without one use their ELF symbols (Debian: apt install "
				"libdebuginfod1)\n",
				w->library_error ? w->library_error : DEBUGINFOD_LIBRARY);
		w->library_said = true;
	} else if (debuginfod_cap_describe(&w->limits, err, cap, sizeof(cap)))
		fprintf(w->f,
			"fxsampler: warning: debuginfod: build id %s (%s) not fetched: past %s; "
			"its frames use the ELF symbols\n",
			build_id, path, cap);
	else
		fprintf(w->f,
			"fxsampler: warning: debuginfod has no debug info for %s (build id %s): "
			"%s\n",
			path, build_id, strerror(-err));
}

static const char *state_label(void *ctx, uint64_t tid)
{
	return report_thread_name(ctx, tid);
}

/* After the top view of a capture with off-CPU intervals: time by thread state. */
static int write_thread_states(struct report *r, FILE *out)
{
	if (!offcpu_intervals(r->off))
		return 0;
	return offcpu_write_summary(r->off, out, r->has_pid, r->pid, r->has_tid, r->tid,
				    state_label, r);
}

int report_run(const char *path, const struct report_opts *opts, FILE *out)
{
	struct out_file outs[] = {
		{.what = "pprof profile", .fn = report_write_pprof},
		{.what = "flame graph", .fn = report_write_svg},
		{.what = "perf script samples", .fn = report_write_perf_script},
		{.what = "Perfetto trace (FXT)", .fn = report_write_perfetto},
	};
	const size_t nr_outs = sizeof(outs) / sizeof(outs[0]);
	struct fxt_reader *rd = NULL;
	struct fxt_record rec;
	uint64_t nr_records = 0;
	struct report *r;
	size_t i;
	int err;

	if (opts && opts->errbuf && opts->errbuf_size)
		opts->errbuf[0] = '\0';
	r = report__new(opts);
	if (!r) {
		err = -errno;
		fail_msg(opts, "report: %s", strerror(-err));
		return err;
	}
	/* Every output path is checked before the input is read. */
	if (opts) {
		outs[0].path = opts->pprof_path;
		outs[1].path = opts->svg_path;
		outs[2].path = opts->perf_script_path;
		outs[3].path = opts->perfetto_path;
	}
	for (i = 0; i < nr_outs; i++) {
		if (!outs[i].path)
			continue;
		err = out_open(&outs[i], opts);
		if (err)
			goto out;
	}
	r->src_path = path;
	r->src_bytes = UINT64_MAX;
	/* Only pprof, perf-script and --perfetto write the stacks' pcs. */
	r->drop_frames = !outs[0].path && !outs[2].path && !outs[3].path;
	r->sealed = true;
	rd = fxt_reader__open(path);
	if (!rd) {
		err = -errno;
		fail_msg(opts, "cannot open '%s': %s", path, strerror(-err));
		goto out;
	}
	while ((err = fxt_reader_next(rd, &rec)) == 1) {
		nr_records++;
		err = report_add(r, &rec);
		if (err)
			break;
	}
	/*
	 * A file cut short (a full disk, a crash, a copy interrupted): what came
	 * before the cut is whole, and is reported, with one warning. The magic
	 * record alone is no report.
	 */
	if (err == -EBADMSG && fxt_reader_truncated(rd) && nr_records > 1) {
		fprintf(stderr,
			"fxsampler: warning: '%s' is cut short (%s): reporting the %" PRIu64
			" whole records before byte %" PRIu64 "\n",
			path, fxt_reader_error(rd), nr_records, fxt_reader_offset(rd));
		r->src_bytes = fxt_reader_offset(rd);
		err = 0;
	}
	if (err == -EBADMSG) {
		fail_msg(opts, "'%s': %s", path, fxt_reader_error(rd));
		goto out;
	}
	if (err == -ENODATA) {
		fail_msg(opts,
			 "'%s' has no sampling period (recorded without --off-cpu): --wall "
			 "needs one",
			 path);
		goto out;
	}
	if (err) {
		fail_msg(opts, "cannot read '%s': %s", path, strerror(-err));
		goto out;
	}
	if (out) {
		if (opts && opts->folded)
			err = report_write_folded(r, out);
		else
			err = report_write_top(r, out, opts ? opts->top : 0);
		if (!err && !(opts && opts->folded))
			err = write_thread_states(r, out);
		if (err) {
			fail_msg(opts, "cannot write the report: %s", strerror(-err));
			goto out;
		}
	}
	for (i = 0; i < nr_outs; i++) {
		if (!outs[i].f)
			continue;
		err = out_write(&outs[i], r, opts);
		if (err)
			goto out;
	}
	warn_skipped(r);
	/* Fail soft: such modules show as module+0xOFFSET; say why. */
	if (opts && opts->info) {
		struct fetch_warnings w = {.f = opts->info};

		debuginfod_limits_resolve(&opts->debuginfod_limits, &w.limits);
		w.library_error = symbolizer_debuginfod_error(r->sym);
		symbolizer_for_each_fetch_failure(r->sym, on_fetch_failure, &w);
	}
out:
	for (i = 0; i < nr_outs; i++)
		out_abort(&outs[i]);
	fxt_reader__free(rd);
	report__free(r);
	return err;
}
