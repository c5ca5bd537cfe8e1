/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Scrape windows on the host profile's stream: what fxsamplerd's HTTP
 * endpoint (http.c) serves as /debug/pprof/profile. The tap reads the FXT
 * bytes the host capture (continuous mode's, or one started for the scrapes)
 * writes, and hands every sample to each open window whose time span holds
 * the sample's timestamp; so windows of several scrapers overlap freely, and
 * a scraper's consecutive windows never share a sample. One symbolizer, and
 * its cache of ELF files and DWARF, serves every window for the tap's life;
 * process and thread names are kept for the windows that begin after a
 * thread's kernel object record. The time the stream did not run (a
 * client's `record` held the sampler, continuous mode restarted) is left out
 * of a window's duration and said in its comments.
 *
 * Pure: no libbpf, no I/O but the FILE * a profile is written to. Times are
 * CLOCK_BOOTTIME ns, the samples' clock.
 */
#ifndef FXS_SERVICE_SCRAPE_H
#define FXS_SERVICE_SCRAPE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lang/perfmap.h"
#include "symbols/sym_cache.h"

struct scrape_tap;
struct scrape_window;

/* NULL with errno set. debug_dir: root of separate debug files, NULL: the default. */
struct scrape_tap *scrape_tap__new(const char *debug_dir);
/* Frees the open windows too. NULL-safe. */
void scrape_tap__free(struct scrape_tap *t);
/*
 * Start the symbolizer over, its ELF, DWARF and name caches with it (they
 * grow with every binary the host runs): call it right before
 * scrape_tap_begin(), whose stream records again every process it samples.
 * The windows open now keep the old one (fed the new stream's mapping
 * records too) until the last of them closes. 0, -ENOMEM, or -EBUSY while
 * the one renewed before is still kept.
 */
int scrape_tap_renew_symbols(struct scrape_tap *t);

/*
 * A host capture begins at now: its stream's bytes follow (the prologue
 * first). Ends a gap of the open windows.
 */
int scrape_tap_begin(struct scrape_tap *t, uint64_t now);
/*
 * The stream's bytes, in whole records as fxt_stream hands them to its sink.
 * 0, or -EBADMSG / -ENOMEM: the tap reads nothing more of this stream (the
 * windows say so) until the next scrape_tap_begin().
 */
int scrape_tap_feed(struct scrape_tap *t, const void *data, size_t len);
/* The capture ended at now, for why (a gap of the open windows begins). */
void scrape_tap_end(struct scrape_tap *t, uint64_t now, const char *why);
/* Why the current gap lasts (e.g. who holds the sampler now); no-op while running. */
void scrape_tap_gap_reason(struct scrape_tap *t, const char *why);
bool scrape_tap_running(const struct scrape_tap *t);
/* Open windows. */
unsigned scrape_tap_windows(const struct scrape_tap *t);
/* Streams begun so far: a window sees whether the host capture restarted. */
unsigned scrape_tap_streams(const struct scrape_tap *t);
/*
 * JIT code named at a window's close: fn gets, per process, the pcs of its
 * samples that no symbol and no perf-map entry of the stream names
 * (sorted; return addresses less one) and the time of its first sample
 * (boottime ns), and gives add(add_ctx, ...) the entries that name them
 * (fxsamplerd: lang/perfmap_live.h, which reads the live process's map).
 * Without one, only the entries the capture wrote into its stream (at a
 * process's exit, or a rotation) name JIT code.
 */
typedef int (*scrape_jit_fn)(void *ctx, uint64_t pid, uint64_t first_ns, const uint64_t *pcs,
			     size_t nr_pcs, perfmap_blob_fn add, void *add_ctx);
void scrape_tap_set_jit(struct scrape_tap *t, scrape_jit_fn fn, void *ctx);
/* The frames kept across windows (sym_cache.h): hits, misses, entries. */
void scrape_tap_cache_stats(const struct scrape_tap *t, struct sym_cache_stats *ret);

/*
 * A window from now on: samples are counted by their timestamps from now
 * until it is closed. real_ns is CLOCK_REALTIME now (the profile's
 * time_nanos), period_ns the host capture's sampling period. An off-CPU
 * window (offcpu) counts the off-CPU intervals that end while it is open,
 * each whole, in off_cpu/nanoseconds. NULL: ENOMEM.
 */
struct scrape_window *scrape_window_open(struct scrape_tap *t, uint64_t now, uint64_t real_ns,
					 uint64_t period_ns, bool offcpu);
/* A comment for the window's profile (lost samples, say). 0 or -ENOMEM. */
int scrape_window_note(struct scrape_window *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * End the window at now and write its profile (gzipped pprof) to out: its
 * samples symbolized, duration_nanos the time the stream ran within it, a
 * comment per gap. The window is freed (also on error). 0, -ENOMEM, -EIO.
 */
int scrape_window_close(struct scrape_tap *t, struct scrape_window *w, uint64_t now, FILE *out);
/* Drop a window without a profile (its client went away). */
void scrape_window_free(struct scrape_tap *t, struct scrape_window *w);
/* Samples the window holds so far. */
uint64_t scrape_window_samples(const struct scrape_window *w);

#endif /* FXS_SERVICE_SCRAPE_H */
