// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of the scrape windows (service/scrape.h): the report tests'
 * fixture profile written by fxt_stream straight into a tap, as the daemon's
 * continuous sink does, and the windows' pprof read back: each sample in
 * the windows open at its time, overlapping windows, consecutive windows
 * that share nothing, names from before a window, gaps, an unreadable stream.
 */
#include <check.h>

#include "report/pprof_reader.h"
#include "lang/perfmap.h"
#include "service/scrape.h"
#include "symbols/elf_symbols.h"
#include "symbols/symbolizer.h"

#define PERIOD (10 * MS)

static int tap_sink(void *ctx, const void *data, size_t len)
{
	return scrape_tap_feed(ctx, data, len);
}

/* The window's profile, parsed. */
static void close_into(struct scrape_tap *t, struct scrape_window *w, uint64_t now,
		       struct profile *pr)
{
	struct capture c;
	uint8_t *raw;
	size_t raw_len;

	ck_assert_int_eq(scrape_window_close(t, w, now, capture_open(&c)), 0);
	capture_text(&c);
	raw = gunzip(c.buf, c.len, &raw_len);
	parse_profile(raw, raw_len, pr);
	free(raw);
	free(c.buf);
}

static const char *comment(const struct profile *pr, const char *needle)
{
	unsigned i;

	for (i = 0; i < pr->nr_comments; i++)
		if (strstr(pr->strings[pr->comments[i]], needle))
			return pr->strings[pr->comments[i]];
	return NULL;
}

/* Go's CPU profile shape, the window's time, labels without ids. */
static void check_shape(const struct profile *pr, uint64_t real_ns, uint64_t duration)
{
	unsigned i;
	uint64_t num;

	ck_assert_uint_eq(pr->nr_sample_types, 2);
	ck_assert_str_eq(pr->strings[pr->sample_types[0][0]], "samples");
	ck_assert_str_eq(pr->strings[pr->sample_types[0][1]], "count");
	ck_assert_str_eq(pr->strings[pr->sample_types[1][0]], "cpu");
	ck_assert_str_eq(pr->strings[pr->sample_types[1][1]], "nanoseconds");
	ck_assert_str_eq(pr->strings[pr->period_type[0]], "cpu");
	ck_assert_str_eq(pr->strings[pr->period_type[1]], "nanoseconds");
	ck_assert_uint_eq(pr->period, PERIOD);
	ck_assert_uint_eq(pr->time_nanos, real_ns);
	ck_assert_uint_eq(pr->duration, duration);
	ck_assert_uint_eq(pr->cpu_sum, pr->value_sum * PERIOD);
	for (i = 0; i < 3; i++)
		ck_assert_msg(pr->mapping_has[i], "mapping flag %u missing", 7 + i);
	for (i = 0; i < pr->nr_samples; i++) {
		ck_assert_ptr_null(label_str(pr, i, "pid", true, &num));
		ck_assert_ptr_null(label_str(pr, i, "tid", true, &num));
		ck_assert_ptr_null(label_str(pr, i, "process", false, NULL));
	}
	check_tables(pr);
}

static struct fxt_stream *begin(struct scrape_tap *t, uint64_t now)
{
	struct fxt_stream *s;

	ck_assert_int_eq(scrape_tap_begin(t, now), 0);
	s = fxt_stream__new(tap_sink, t, "fxsampler", 1000000000ULL);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* Two windows open at once: each gets the samples of its time span, symbolized. */
START_TEST(test_overlapping)
{
	struct feeder fd = {st_process, st_thread, st_module, st_mmap, st_backtrace};
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct scrape_window *a, *b;
	struct fxt_stream *s;
	struct profile pa, pb;
	unsigned i, prog_samples = 0;

	ck_assert_ptr_nonnull(t);
	s = begin(t, 0);
	a = scrape_window_open(t, 0, 1000, PERIOD, false);
	b = scrape_window_open(t, 10 * MS, 2000, PERIOD, false);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(scrape_tap_windows(t), 2);
	fd.ctx = s;
	feed_profile(&fd);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	/* the fixture's 8 samples at 0..50 ms; b began at 10 ms */
	ck_assert_uint_eq(scrape_window_samples(a), 8);
	ck_assert_uint_eq(scrape_window_samples(b), 4);

	close_into(t, a, 60 * MS, &pa);
	check_shape(&pa, 1000, 60 * MS);
	ck_assert_uint_eq(pa.value_sum, 8);
	ck_assert(has_string(&pa, "fxs_alpha"));
	ck_assert(has_string(&pa, "fxs_static_leaf"));
	for (i = 0; i < pa.nr_samples; i++) {
		const char *e = label_str(&pa, i, "executable", false, NULL);

		if (e && !strcmp(e, "prog")) {
			prog_samples++;
			ck_assert_ptr_nonnull(label_str(&pa, i, "thread", false, NULL));
		}
	}
	ck_assert_uint_gt(prog_samples, 0);
	ck_assert_ptr_null(comment(&pa, "not sampled"));
	close_into(t, b, 60 * MS, &pb);
	check_shape(&pb, 2000, 50 * MS);
	ck_assert_uint_eq(pb.value_sum, 4);
	ck_assert_uint_eq(scrape_tap_windows(t), 0);
	free_profile(&pa);
	free_profile(&pb);
	fxt_stream__free(s);
	scrape_tap__free(t);
}
END_TEST

/*
 * A scraper's consecutive windows: the second opens after the first closed,
 * and the names recorded before it opened still label its samples.
 */
START_TEST(test_consecutive)
{
	const uint64_t f[] = {0x1000};
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct scrape_window *w;
	struct fxt_stream *s;
	struct profile p1, p2;
	uint64_t ts;

	ck_assert_ptr_nonnull(t);
	s = begin(t, 0);
	w = scrape_window_open(t, 0, 1, PERIOD, false);
	ck_assert_int_eq(fxt_stream_process(s, 7, "app"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 7, 8, "worker"), 0);
	for (ts = 0; ts < 100 * MS; ts += PERIOD)
		ck_assert_int_eq(fxt_stream_backtrace(s, ts, 7, 8, 0, f, 1), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	close_into(t, w, 100 * MS, &p1);
	w = scrape_window_open(t, 100 * MS, 2, PERIOD, false);
	/* one sample that came late, from before the window: not counted again */
	ck_assert_int_eq(fxt_stream_backtrace(s, 99 * MS, 7, 8, 0, f, 1), 0);
	for (ts = 100 * MS; ts < 150 * MS; ts += PERIOD)
		ck_assert_int_eq(fxt_stream_backtrace(s, ts, 7, 8, 0, f, 1), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	close_into(t, w, 150 * MS, &p2);
	ck_assert_uint_eq(p1.value_sum, 10);
	ck_assert_uint_eq(p2.value_sum, 5);
	ck_assert_uint_eq(p2.duration, 50 * MS);
	ck_assert_str_eq(label_str(&p2, 0, "executable", false, NULL), "app");
	ck_assert_str_eq(label_str(&p2, 0, "thread", false, NULL), "worker");
	free_profile(&p1);
	free_profile(&p2);
	fxt_stream__free(s);
	scrape_tap__free(t);
}
END_TEST

/* The stream stops (a client's record) and starts again: the gap is said, not counted. */
START_TEST(test_gap)
{
	const uint64_t f[] = {0x1000};
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct scrape_window *w;
	struct fxt_stream *s;
	struct profile p;
	const char *c;

	ck_assert_ptr_nonnull(t);
	s = begin(t, 1000 * MS);
	w = scrape_window_open(t, 1000 * MS, 5, PERIOD, false);
	ck_assert_int_eq(fxt_stream_backtrace(s, 1010 * MS, 7, 8, 0, f, 1), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
	scrape_tap_end(t, 1200 * MS, "continuous mode's capture stopped");
	ck_assert(!scrape_tap_running(t));
	scrape_tap_gap_reason(t, "a client's session held the sampler (pid 42, uid 1000)");
	s = begin(t, 1500 * MS);
	ck_assert_uint_eq(scrape_tap_streams(t), 2);
	ck_assert_int_eq(fxt_stream_backtrace(s, 1510 * MS, 7, 8, 0, f, 1), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	close_into(t, w, 2000 * MS, &p);
	/* 200 ms before the gap, 500 ms after it */
	ck_assert_uint_eq(p.duration, 700 * MS);
	ck_assert_uint_eq(p.value_sum, 2);
	c = comment(&p, "not sampled");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c, "not sampled for 0.300 s (from 0.200 s to 0.500 s into the window): "
			    "a client's session held the sampler (pid 42, uid 1000)");
	free_profile(&p);
	fxt_stream__free(s);
	scrape_tap__free(t);
}
END_TEST

/* No capture ran at all: an empty profile of no time, saying why. */
START_TEST(test_never_sampled)
{
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct scrape_window *w;
	struct profile p;

	ck_assert_ptr_nonnull(t);
	w = scrape_window_open(t, 0, 9, PERIOD, false);
	ck_assert_ptr_nonnull(w);
	close_into(t, w, 3000 * MS, &p);
	ck_assert_uint_eq(p.nr_samples, 0);
	ck_assert_uint_eq(p.duration, 0);
	ck_assert_ptr_nonnull(comment(&p, "not sampled for 3.000 s"));
	ck_assert_ptr_nonnull(comment(&p, "no host capture ran"));
	free_profile(&p);
	scrape_tap__free(t);
}
END_TEST

/* Bytes that are no FXT stream: the window says its samples are missing. */
START_TEST(test_unreadable)
{
	static const uint8_t junk[16] = {1, 2, 3};
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct scrape_window *w;
	struct profile p;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(scrape_tap_begin(t, 0), 0);
	w = scrape_window_open(t, 0, 9, PERIOD, false);
	ck_assert_int_eq(scrape_tap_feed(t, junk, sizeof(junk)), -EBADMSG);
	/* and nothing more of this stream is read */
	ck_assert_int_eq(scrape_tap_feed(t, junk, sizeof(junk)), 0);
	close_into(t, w, 10 * MS, &p);
	ck_assert_ptr_nonnull(comment(&p, "could not be read (offset 0: missing magic record"));
	ck_assert_int_eq(scrape_window_note(scrape_window_open(t, 0, 0, PERIOD, false), "x"), 0);
	free_profile(&p);
	/* the open window goes with the tap */
	scrape_tap__free(t);
}
END_TEST

/* One off-CPU interval as a capture writes it: switch out, switch in, backtrace. */
static void interval(struct fxt_stream *s, uint64_t tid, uint64_t from, uint64_t to)
{
	const uint64_t f[] = {0x2000, 0x3000};

	ck_assert_int_eq(fxt_stream_context_switch(s, from, 0, FXT_THREAD_BLOCKED, tid, 0, 0), 0);
	ck_assert_int_eq(fxt_stream_context_switch(s, to, 1, FXT_THREAD_RUNNING, 0, tid, 1), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, from, 7, tid,
					      FXT_BT_FLAG_OFFCPU | FXT_BT_FLAG_PC_IS_RETURN, f, 2),
			 0);
}

/*
 * Off-CPU windows: an interval counts whole in the windows open when it
 * ends, in off_cpu/nanoseconds; on-CPU samples are not in them, nor the
 * intervals in the CPU windows.
 */
START_TEST(test_offcpu)
{
	const uint64_t f[] = {0x1000};
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct scrape_window *cpu, *early, *late;
	struct fxt_stream *s;
	struct profile pc, pe, pl;

	ck_assert_ptr_nonnull(t);
	s = begin(t, 0);
	cpu = scrape_window_open(t, 0, 1, PERIOD, false);
	early = scrape_window_open(t, 0, 2, PERIOD, true);
	late = scrape_window_open(t, 100 * MS, 3, PERIOD, true);
	ck_assert_int_eq(fxt_stream_thread(s, 7, 8, "sleeper"), 0);
	/* ends before late opened */
	interval(s, 8, 10 * MS, 30 * MS);
	/* began before late opened, ends after: whole in both */
	interval(s, 8, 50 * MS, 250 * MS);
	ck_assert_int_eq(fxt_stream_backtrace(s, 260 * MS, 7, 8, 0, f, 1), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);

	close_into(t, cpu, 300 * MS, &pc);
	ck_assert_uint_eq(pc.value_sum, 1);
	close_into(t, early, 300 * MS, &pe);
	ck_assert_uint_eq(pe.nr_sample_types, 1);
	ck_assert_str_eq(pe.strings[pe.sample_types[0][0]], "off_cpu");
	ck_assert_str_eq(pe.strings[pe.sample_types[0][1]], "nanoseconds");
	ck_assert_str_eq(pe.strings[pe.period_type[0]], "off_cpu");
	ck_assert_uint_eq(pe.value_sum, 220 * MS);
	ck_assert_uint_eq(pe.duration, 300 * MS);
	ck_assert_str_eq(label_str(&pe, 0, "thread", false, NULL), "sleeper");
	close_into(t, late, 300 * MS, &pl);
	ck_assert_uint_eq(pl.value_sum, 200 * MS);
	ck_assert_uint_eq(pl.duration, 200 * MS);
	free_profile(&pc);
	free_profile(&pe);
	free_profile(&pl);
	fxt_stream__free(s);
	scrape_tap__free(t);
}
END_TEST

/* prog as module id of process pid at base from time ts, shift as in map_prog_at(). */
static void stream_prog_of(struct fxt_stream *s, uint64_t pid, uint64_t base, uint16_t id,
			   uint64_t shift, uint64_t ts)
{
	struct elf_symbols *es = elf_symbols__open(prog, NULL);
	const struct elf_segment *segs;
	size_t i, n;

	ck_assert_ptr_nonnull(es);
	ck_assert_int_eq(fxt_stream_module(s, ts, pid, id, prog, build_id, sizeof(build_id)), 0);
	n = elf_symbols__segments(es, &segs);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(fxt_stream_mmap(s, ts, pid, id, segs[i].flags,
						 base + segs[i].vaddr, segs[i].memsz,
						 segs[i].vaddr + shift),
				 0);
	elf_symbols__free(es);
}

/* prog as module id of process 100 at BASE from time ts. */
static void stream_prog_at(struct fxt_stream *s, uint16_t id, uint64_t shift, uint64_t ts)
{
	stream_prog_of(s, 100, BASE, id, shift, ts);
}

/*
 * A library closed and another opened at its address during a window: the
 * window names each sample by the mapping there at its time (two locations
 * of one pc), with the symbolizer all windows share.
 */
START_TEST(test_remapped)
{
	const uint64_t pc[] = {BASE + a_alpha + 1};
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct scrape_window *w;
	struct fxt_stream *s;
	struct profile pr;

	ck_assert_ptr_nonnull(t);
	s = begin(t, 0);
	w = scrape_window_open(t, 0, 1, PERIOD, false);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(fxt_stream_process(s, 100, "prog"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 100, 100, "prog"), 0);
	stream_prog_at(s, 0, 0, 1 * MS);
	ck_assert_int_eq(fxt_stream_backtrace(s, 2 * MS, 100, 100, 0, pc, 1), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 3 * MS, 100, 100, 0, pc, 1), 0);
	stream_prog_at(s, 1, a_beta - a_alpha, 10 * MS);
	for (uint64_t ms = 10; ms <= 12; ms++)
		ck_assert_int_eq(fxt_stream_backtrace(s, ms * MS, 100, 100, 0, pc, 1), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	close_into(t, w, 20 * MS, &pr);
	ck_assert_uint_eq(pr.value_sum, 5);
	ck_assert_uint_eq(pr.nr_samples, 2);
	ck_assert_uint_eq(pr.nr_locations, 2);
	ck_assert_uint_eq(pr.nr_functions, 2);
	ck_assert(has_string(&pr, "fxs_alpha"));
	ck_assert(has_string(&pr, "fxs_beta"));
	free_profile(&pr);
	fxt_stream__free(s);
	scrape_tap__free(t);
}
END_TEST

/*
 * A window open from open_ns with one sample of pid's pc at sample_ns,
 * closed 1 ms later: its profile names want, and not not_want (if given).
 */
static void one_sample_window(struct scrape_tap *t, struct fxt_stream *s, uint64_t open_ns,
			      uint64_t sample_ns, uint64_t pid, uint64_t pc, const char *want,
			      const char *not_want)
{
	struct scrape_window *w = scrape_window_open(t, open_ns, 1, PERIOD, false);
	struct profile pr;

	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(fxt_stream_backtrace(s, sample_ns, pid, pid, 0, &pc, 1), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	close_into(t, w, sample_ns + MS, &pr);
	ck_assert(has_string(&pr, want));
	if (not_want)
		ck_assert(!has_string(&pr, not_want));
	free_profile(&pr);
}

/*
 * Frames are resolved once across windows (sym_cache.h): a second window of
 * the same pcs asks the symbolizer nothing; a library opened at the same
 * address is a new mapping, not the old name; a process recorded again by
 * a new capture, and another process mapping the same file, find the
 * file's frames kept.
 */
START_TEST(test_cache_across_windows)
{
	const uint64_t OTHER_SHIFT = 0x10000000;
	const uint64_t pc = BASE + a_alpha + 1, other = BASE + OTHER_SHIFT + a_alpha + 1;
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct sym_cache_stats st, st2;
	struct fxt_stream *s;

	ck_assert_ptr_nonnull(t);
	s = begin(t, 0);
	ck_assert_int_eq(fxt_stream_process(s, 100, "prog"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 100, 100, "prog"), 0);
	stream_prog_at(s, 0, 0, 1 * MS);
	/* the first window resolves the pc */
	one_sample_window(t, s, 0, 2 * MS, 100, pc, "fxs_alpha", NULL);
	scrape_tap_cache_stats(t, &st);
	ck_assert_uint_eq(st.hits, 0);
	ck_assert_uint_ge(st.misses, 1);
	ck_assert_uint_ge(st.entries, 1);
	/* the second one finds it kept */
	one_sample_window(t, s, 5 * MS, 6 * MS, 100, pc, "fxs_alpha", NULL);
	scrape_tap_cache_stats(t, &st2);
	ck_assert_uint_eq(st2.misses, st.misses);
	ck_assert_uint_ge(st2.hits, 1);
	/* another library at the same address: the same pc is named by it */
	stream_prog_at(s, 1, a_beta - a_alpha, 10 * MS);
	one_sample_window(t, s, 8 * MS, 11 * MS, 100, pc, "fxs_beta", "fxs_alpha");
	fxt_stream__free(s);
	/* a new capture records the process again: the file's frames are kept, named alike */
	scrape_tap_cache_stats(t, &st);
	s = begin(t, 20 * MS);
	ck_assert_int_eq(fxt_stream_process(s, 100, "prog"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 100, 100, "prog"), 0);
	stream_prog_at(s, 1, a_beta - a_alpha, 21 * MS);
	one_sample_window(t, s, 20 * MS, 22 * MS, 100, pc, "fxs_beta", NULL);
	scrape_tap_cache_stats(t, &st2);
	ck_assert_uint_eq(st2.misses, st.misses);
	ck_assert_uint_gt(st2.hits, st.hits);
	/* another process, the same file at another address: its pc is the same frame, kept */
	st = st2;
	ck_assert_int_eq(fxt_stream_process(s, 200, "other"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 200, 200, "other"), 0);
	stream_prog_of(s, 200, BASE + OTHER_SHIFT, 1, a_beta - a_alpha, 24 * MS);
	one_sample_window(t, s, 24 * MS, 25 * MS, 200, other, "fxs_beta", NULL);
	scrape_tap_cache_stats(t, &st2);
	ck_assert_uint_eq(st2.misses, st.misses);
	ck_assert_uint_gt(st2.hits, st.hits);
	fxt_stream__free(s);
	scrape_tap__free(t);
}
END_TEST

/* The tap's symbolizer outlives captures: it can forget processes and keep its files. */
START_TEST(test_forget_processes)
{
	struct symbolizer *sym = symbolizer__new(NULL);
	struct elf_symbols *es = elf_symbols__open(prog, NULL);
	const struct elf_segment *segs;
	struct sym_frame sf;
	size_t i, n;

	ck_assert_ptr_nonnull(sym);
	ck_assert_ptr_nonnull(es);
	ck_assert_int_eq(symbolizer_add_module(sym, 100, 0, prog, build_id, sizeof(build_id)), 0);
	n = elf_symbols__segments(es, &segs);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(symbolizer_add_mmap(sym, 100, 0, segs[i].flags,
						     BASE + segs[i].vaddr, segs[i].memsz,
						     segs[i].vaddr, 0),
				 0);
	ck_assert_uint_eq(symbolizer_processes(sym), 1);
	ck_assert_int_eq(symbolizer_resolve(sym, 100, BASE + a_alpha + 1, false, 0, &sf), 0);
	ck_assert_str_eq(sf.function, "fxs_alpha");
	symbolizer_forget_processes(sym);
	ck_assert_uint_eq(symbolizer_processes(sym), 0);
	ck_assert_int_eq(symbolizer_resolve(sym, 100, BASE + a_alpha + 1, false, 0, &sf), 0);
	ck_assert_str_eq(sf.function, SYMBOLIZER_UNKNOWN);
	/* recorded again, it resolves again */
	ck_assert_int_eq(symbolizer_add_module(sym, 100, 0, prog, build_id, sizeof(build_id)), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(symbolizer_add_mmap(sym, 100, 0, segs[i].flags,
						     BASE + segs[i].vaddr, segs[i].memsz,
						     segs[i].vaddr, 0),
				 0);
	ck_assert_int_eq(symbolizer_resolve(sym, 100, BASE + a_alpha + 1, false, 0, &sf), 0);
	ck_assert_str_eq(sf.function, "fxs_alpha");
	elf_symbols__free(es);
	symbolizer__free(sym);
}
END_TEST

/*
 * The memory ceiling starts the symbolizer over at a new stream
 * (scrape_tap_renew_symbols()): a window open across it keeps the old one,
 * fed the new stream's mappings, and names the samples of both streams; a
 * window opened after uses the new one; a second renewal waits until the
 * old one is gone (with the last window that used it).
 */
START_TEST(test_renew_symbols)
{
	struct feeder fd = {st_process, st_thread, st_module, st_mmap, st_backtrace};
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct scrape_window *a, *b;
	struct fxt_stream *s;
	struct profile pa, pb;

	ck_assert_ptr_nonnull(t);
	/* no window: renewed at once, and again */
	ck_assert_int_eq(scrape_tap_renew_symbols(t), 0);
	ck_assert_int_eq(scrape_tap_renew_symbols(t), 0);
	s = begin(t, 0);
	a = scrape_window_open(t, 0, 1000, PERIOD, false);
	ck_assert_ptr_nonnull(a);
	fd.ctx = s;
	feed_profile(&fd);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
	scrape_tap_end(t, 60 * MS, "test");

	ck_assert_int_eq(scrape_tap_renew_symbols(t), 0);
	ck_assert_int_eq(scrape_tap_renew_symbols(t), -EBUSY);
	s = begin(t, 100 * MS);
	/* the fixture's samples are at 0..50 ms again: b's span holds them too */
	b = scrape_window_open(t, 0, 2000, PERIOD, false);
	ck_assert_ptr_nonnull(b);
	fd.ctx = s;
	feed_profile(&fd);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);
	ck_assert_uint_eq(scrape_window_samples(a), 16);
	ck_assert_uint_eq(scrape_window_samples(b), 8);

	close_into(t, a, 200 * MS, &pa);
	ck_assert_uint_eq(pa.value_sum, 16);
	ck_assert(has_string(&pa, "fxs_alpha"));
	/* the old symbolizer went with a: renewing works again */
	ck_assert_int_eq(scrape_tap_renew_symbols(t), 0);
	close_into(t, b, 200 * MS, &pb);
	ck_assert_uint_eq(pb.value_sum, 8);
	ck_assert(has_string(&pb, "fxs_alpha"));
	free_profile(&pa);
	free_profile(&pb);
	scrape_tap__free(t);
}
END_TEST

#define JIT  0x7f0000001000ULL
#define JIT2 0x7f0000009000ULL
#define ANON 0x7f00000ff000ULL

static unsigned jit_calls;

/* What fxsamplerd's perfmap_live does, from a map of the test's own. */
static int fake_jit(void *ctx, uint64_t pid, uint64_t first_ns, const uint64_t *pcs, size_t nr_pcs,
		    perfmap_blob_fn add, void *add_ctx)
{
	struct perfmap_entry e = {JIT, 0x80, "JS:*spinA /x/spin.js:1:15", 25};

	ck_assert_ptr_eq(ctx, &jit_calls);
	jit_calls++;
	ck_assert_uint_eq(pid, 100);
	ck_assert_uint_eq(first_ns, 1 * MS);
	/* pcs in no file, not named by the stream's entries: JIT's and ANON's only */
	ck_assert_uint_eq(nr_pcs, 2);
	ck_assert_uint_eq(pcs[0], JIT + 0x10);
	ck_assert_uint_eq(pcs[1], ANON);
	return add(add_ctx, pid, &e);
}

/*
 * JIT code in a window: named by the entries the capture wrote into its
 * stream (a process's end) and, for the rest, by the tap's JIT hook at the
 * window's close (the live process's map), which is asked only for the pcs
 * in no file and named by nothing yet.
 */
START_TEST(test_jit_names)
{
	static const char blob[] = "pid 100\n7f0000009000 100 JS:*fromBlob /x/b.js:2:1\n";
	const uint64_t a[] = {JIT + 0x10, BASE + a_alpha + 5};
	const uint64_t b[] = {JIT2 + 0x10, BASE + a_alpha + 5};
	const uint64_t c[] = {ANON, BASE + a_alpha + 5};
	struct scrape_tap *t = scrape_tap__new(NULL);
	struct elf_symbols *es = elf_symbols__open(prog, NULL);
	const struct elf_segment *segs;
	struct scrape_window *w;
	struct fxt_stream *s;
	struct profile pr;
	size_t n;

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(es);
	scrape_tap_set_jit(t, fake_jit, &jit_calls);
	s = begin(t, 0);
	w = scrape_window_open(t, 0, 1000, PERIOD, false);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(fxt_stream_process(s, 100, "node"), 0);
	ck_assert_int_eq(fxt_stream_thread(s, 100, 100, "node"), 0);
	ck_assert_int_eq(fxt_stream_module(s, 0, 100, 0, prog, build_id, sizeof(build_id)), 0);
	n = elf_symbols__segments(es, &segs);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(fxt_stream_mmap(s, 0, 100, 0, segs[i].flags, BASE + segs[i].vaddr,
						 segs[i].memsz, segs[i].vaddr),
				 0);
	elf_symbols__free(es);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(fxt_stream_backtrace(s, (1 + i) * MS, 100, 100, 0, a, 2), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 5 * MS, 100, 100, 0, b, 2), 0);
	ck_assert_int_eq(fxt_stream_backtrace(s, 6 * MS, 100, 100, 0, c, 2), 0);
	ck_assert_int_eq(fxt_stream_blob(s, FXT_PERFMAP_BLOB, blob, strlen(blob)), 0);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	fxt_stream__free(s);

	close_into(t, w, 10 * MS, &pr);
	ck_assert_uint_eq(jit_calls, 1);
	ck_assert_uint_eq(pr.value_sum, 5);
	ck_assert(has_string(&pr, "JS:*spinA /x/spin.js:1:15"));
	ck_assert(has_string(&pr, "JS:*fromBlob /x/b.js:2:1"));
	free_profile(&pr);
	scrape_tap__free(t);
}
END_TEST

static Suite *scrape_suite(void)
{
	Suite *s = suite_create("scrape");
	TCase *tc = tcase_create("windows");

	tcase_add_test(tc, test_overlapping);
	tcase_add_test(tc, test_consecutive);
	tcase_add_test(tc, test_gap);
	tcase_add_test(tc, test_never_sampled);
	tcase_add_test(tc, test_unreadable);
	tcase_add_test(tc, test_forget_processes);
	tcase_add_test(tc, test_renew_symbols);
	tcase_add_test(tc, test_offcpu);
	tcase_add_test(tc, test_remapped);
	tcase_add_test(tc, test_cache_across_windows);
	tcase_add_test(tc, test_jit_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return report_fixture_main(scrape_suite);
}
