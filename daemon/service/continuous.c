// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Continuous mode (daemon.h, rotate.h): while nobody else holds the sampler,
 * a low-rate host-wide capture goes into rotating complete files in the
 * configured directory, within a disk budget; files a killed daemon left are
 * salvaged at start.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/io.h"
#include "util/outfile.h"
#include "service/daemon.h"
#include "service/memory.h"
#include "service/rotate.h"
#include "service/scrape.h"

/*
 * Whole records reach the continuous file at every drain; this often they
 * are made durable too, so that a crash or a power cut loses seconds.
 */
#define CONT_SYNC_MS 5000

/*
 * What the first file's finish (its counters, names and tables) is taken to
 * write before one has been measured.
 */
#define CONT_TAIL_GUESS (16 * 1024)

/*
 * What the next finish is taken to write: what the last one wrote (or a
 * guess), at most half of max_file_size, as rotate_due() caps its reserve.
 */
static uint64_t cont_tail_reserve(const struct daemon *d)
{
	uint64_t tail = d->cont_tail ? d->cont_tail : CONT_TAIL_GUESS;

	return tail < d->cfg.max_file_size / 2 ? tail : d->cfg.max_file_size / 2;
}

/* --- continuous mode --- */

static int file_sink(void *ctx, const void *data, size_t len)
{
	struct session *s = ctx;

	s->sink_err = s->on_demand ? 0 : write_all(s->file.fd, data, len);
	if (!s->sink_err)
		s->file_bytes += len;
	/* the HTTP scrapes read the same stream; their trouble is not the file's */
	if (!s->sink_err && s->tap)
		scrape_tap_feed(s->tap, data, len);
	return s->sink_err;
}

static int open_dir(const struct daemon *d)
{
	int fd = open(d->cfg.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && !mkdir(d->cfg.directory, 0750))
		fd = open(d->cfg.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* "3h05m" */
static void fmt_age(char *buf, size_t len, int64_t age_s)
{
	if (age_s < 0)
		age_s = 0;
	if (age_s >= 86400)
		snprintf(buf, len, "%lldd%02lldh", (long long)(age_s / 86400),
			 (long long)(age_s % 86400 / 3600));
	else if (age_s >= 3600)
		snprintf(buf, len, "%lldh%02lldm", (long long)(age_s / 3600),
			 (long long)(age_s % 3600 / 60));
	else if (age_s >= 60)
		snprintf(buf, len, "%lldm%02llds", (long long)(age_s / 60),
			 (long long)(age_s % 60));
	else
		snprintf(buf, len, "%llds", (long long)age_s);
}

/*
 * Delete the oldest files so that one more fits in the budget, never the file
 * completed last; own (the file being written) is not counted. Every deletion
 * is logged with why.
 */
static void cont_prune(struct daemon *d, int dfd, const char *own)
{
	struct rotate_policy pol = {d->cfg.max_file_size, d->cfg.max_file_age_s,
				    d->cfg.max_total_size};
	struct rotate_file *files = NULL;
	/* a file may pass max_file_size by what its closing records need (< 10 %) */
	uint64_t reserve = d->cfg.max_file_size + d->cfg.max_file_size / 10, total = reserve;
	size_t nr = 0, del, i, j;
	int64_t now = time(NULL);
	char age[32];
	int err;

	err = rotate_list(d->cfg.directory, &files, &nr);
	if (err) {
		log_warn("cannot list '%s': %s", d->cfg.directory, strerror(-err));
		return;
	}
	for (i = j = 0; i < nr; i++)
		if (strcmp(files[i].name, own))
			files[j++] = files[i];
	nr = j;
	for (i = 0; i < nr; i++)
		total += files[i].size;
	del = rotate_plan(&pol, files, nr, reserve, d->cont_last[0] ? d->cont_last : NULL);
	for (i = 0; i < del; i++) {
		fmt_age(age, sizeof(age), now - files[i].mtime_s);
		if (unlinkat(dfd, files[i].name, 0) && errno != ENOENT) {
			log_warn("cannot delete '%s/%s': %s", d->cfg.directory, files[i].name,
				 strerror(errno));
			continue;
		}
		log_info("deleted '%s/%s' (%s old, %llu bytes), the oldest, for the disk budget: "
			 "%zu files and %llu bytes reserved for the next came to %llu bytes, over "
			 "max_total_size = %llu",
			 d->cfg.directory, files[i].name, age, (unsigned long long)files[i].size,
			 nr, (unsigned long long)reserve, (unsigned long long)total,
			 (unsigned long long)d->cfg.max_total_size);
	}
	free(files);
}

/*
 * o, a partial file open for reading and writing: cut it to its last whole
 * record and commit it (it takes its complete name, done), or remove it when
 * it holds no record beyond the FXT header. name is the partial file's, for
 * the log.
 */
static void salvage_outfile(struct daemon *d, struct outfile *o, const char *name, const char *done,
			    const char *whose)
{
	struct rotate_salvage sv = {0};
	struct timespec times[2];
	struct stat st;
	void *map;
	int err;

	if (fstat(o->fd, &st)) {
		log_warn("cannot salvage '%s/%s': %s", d->cfg.directory, name, strerror(errno));
		outfile_leave(o);
		return;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, o->fd, 0);
		if (map == MAP_FAILED) {
			log_warn("cannot salvage '%s/%s': %s", d->cfg.directory, name,
				 strerror(errno));
			outfile_leave(o);
			return;
		}
		rotate_salvage_scan(map, (uint64_t)st.st_size, &sv);
		munmap(map, (size_t)st.st_size);
	}
	if (!sv.records) {
		err = outfile_abort(o);
		if (err)
			log_warn("cannot delete '%s/%s': %s", d->cfg.directory, name,
				 strerror(-err));
		else
			log_info("deleted '%s/%s' (%llu bytes) %s: it holds no whole record "
				 "beyond the FXT header",
				 d->cfg.directory, name, (unsigned long long)st.st_size, whose);
		return;
	}
	err = 0;
	if ((uint64_t)st.st_size > sv.keep && ftruncate(o->fd, (off_t)sv.keep))
		err = -errno;
	/* The budget deletes the oldest first: the file keeps its age. */
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	if (!err && futimens(o->fd, times))
		err = -errno;
	if (err)
		outfile_leave(o);
	else
		err = outfile_commit(o);
	if (err) {
		log_warn("cannot salvage '%s/%s': %s", d->cfg.directory, name, strerror(-err));
		return;
	}
	log_info("salvaged '%s/%s' %s: '%s' keeps %llu bytes (%llu records), %llu bytes of a "
		 "cut record dropped",
		 d->cfg.directory, name, whose, done, (unsigned long long)sv.keep,
		 (unsigned long long)sv.records, (unsigned long long)(st.st_size - sv.keep));
	if (!d->cont_last[0] || st.st_mtim.tv_sec >= d->cont_last_mtime) {
		strcpy(d->cont_last, done);
		d->cont_last_mtime = st.st_mtim.tv_sec;
	}
}

/*
 * A partial file a daemon left when it was killed (outfile's temporary name,
 * or an older daemon's ".part"): salvaged (see salvage_outfile()).
 */
static void cont_salvage_one(struct daemon *d, const char *name)
{
	char done[NAME_MAX + 1], tmp[PATH_MAX], final[PATH_MAX];
	struct outfile o;
	int err;

	if (rotate_complete_name(name, done, sizeof(done)))
		return;
	if (snprintf(tmp, sizeof(tmp), "%s/%s", d->cfg.directory, name) >= (int)sizeof(tmp) ||
	    snprintf(final, sizeof(final), "%s/%s", d->cfg.directory, done) >= (int)sizeof(final))
		err = -ENAMETOOLONG;
	else
		err = outfile_adopt(&o, tmp, final);
	if (err) {
		log_warn("cannot salvage '%s/%s': %s", d->cfg.directory, name,
			 err == -OUTFILE_ENOTREG ? "not a regular file" : strerror(-err));
		return;
	}
	salvage_outfile(d, &o, name, done, "left by a daemon that did not finish it");
}

/*
 * Salvage the partial files of the directory but own (the one this daemon
 * writes). Called holding the host's sampler lock: no other capture is
 * writing any of them.
 */
static void cont_salvage(struct daemon *d, const char *own)
{
	struct rotate_file *files = NULL;
	size_t nr = 0, i;
	int err;

	err = rotate_list(d->cfg.directory, &files, &nr);
	if (err) {
		log_warn("cannot list '%s': %s", d->cfg.directory, strerror(-err));
		return;
	}
	for (i = 0; i < nr; i++)
		if (files[i].partial && strcmp(files[i].name, own))
			cont_salvage_one(d, files[i].name);
	free(files);
}

/* Finish the continuous file: complete it, release the sampler, then name it. */
void cont_finish(struct daemon *d)
{
	struct session *s = &d->sess;
	char part[PATH_MAX]; /* the temporary name, for the log: a commit clears it */
	struct capture_stats st;
	uint64_t before;
	int err;

	if (!s->cap || s->owner)
		return;
	before = s->file_bytes;
	err = capture_finish(s->cap);
	d->cont_tail = s->file_bytes - before;
	capture_stats(s->cap, &st);
	session_clear(d);
	if (d->tap)
		scrape_tap_end(d->tap, clock_ns(CLOCK_BOOTTIME),
			       s->on_demand ? "the host capture stopped"
					    : "continuous mode's capture stopped");
	if (s->on_demand) {
		s->on_demand = false;
		if (err)
			log_err("the host capture for the HTTP scrapes failed: %s", strerror(-err));
		else
			log_info("the host capture for the HTTP scrapes stopped");
		return;
	}
	snprintf(part, sizeof(part), "%s", basename(s->file.tmp));
	if (err) {
		/* what it holds up to the failure is kept, cut to its last whole record */
		log_err("continuous capture '%s' failed: %s; salvaging what it holds", s->name,
			strerror(-err));
		salvage_outfile(d, &s->file, part, s->name, "of this daemon's failed capture");
		return;
	}
	/*
	 * Stopped as the file began (a SIGTERM waits while a new file's capture
	 * loads): no sample, none lost, nothing to keep.
	 */
	if (stop_requested && !st.counters.v[FXS_CNT_WRITTEN] &&
	    !st.counters.v[FXS_CNT_DROP_RING_FULL] && !st.offcpu.v[FXS_OC_WRITTEN]) {
		outfile_abort(&s->file);
		log_info("'%s' is not kept: the daemon stopped before its first sample", s->name);
		return;
	}
	/* fsync, a rename that replaces nothing, the directory's fsync */
	err = outfile_commit(&s->file);
	if (err) {
		log_err("cannot finish '%s/%s' as '%s': %s; it is salvaged when the next file "
			"starts",
			d->cfg.directory, part, s->name, strerror(-err));
		return;
	}
	if (st.over[FXT_OVER_SAMPLES] || st.over[FXT_OVER_MAPPINGS] || st.over[FXT_OVER_OTHER])
		log_warn("wrote '%s/%s' (%llu bytes); kept out for max_file_size = %llu: %llu "
			 "samples, %llu mapping records, %llu other records (its 'file_budget' "
			 "counter)",
			 d->cfg.directory, s->name, (unsigned long long)s->file_bytes,
			 (unsigned long long)d->cfg.max_file_size,
			 (unsigned long long)st.over[FXT_OVER_SAMPLES],
			 (unsigned long long)st.over[FXT_OVER_MAPPINGS],
			 (unsigned long long)st.over[FXT_OVER_OTHER]);
	else
		log_info("wrote '%s/%s' (%llu bytes)", d->cfg.directory, s->name,
			 (unsigned long long)s->file_bytes);
	strcpy(d->cont_last, s->name);
	d->cont_last_mtime = time(NULL);
}

/* A stop that waits long for writes in flight goes to the log (capture_opts.warn). */
static void cont_warn(void *ctx, const char *text)
{
	(void)ctx;
	log_warn("continuous capture: %s", text);
}

void cont_start(struct daemon *d)
{
	if (d->cfg.continuous)
		cont_start_for(d, false);
}

void cont_start_for(struct daemon *d, bool on_demand)
{
	struct session *s = &d->sess;
	struct capture_opts o = {
		.freq_hz = d->cfg.continuous_freq_hz,
		.buffer_size = d->cfg.buffer_size,
		.max_frames = d->cfg.max_frames,
		.warn = cont_warn,
		/* the HTTP endpoint's /debug/pprof/offcpu reads these */
		.offcpu = d->cfg.continuous_off_cpu,
		.offcpu_min_ns = 1000000,
		.unwind = d->cfg.unwind,
		.cfi_cap_bytes = d->cfg.cfi_memory,
		/* Python functions among the native frames, as record's default */
		.python = true,
	};
	char path[PATH_MAX];
	pid_t holder = 0;
	int dfd = -1, err;

	if (s->cap || stop_requested || mono_s() < d->cont_retry_at)
		return;
	s->tap = d->tap;
	s->on_demand = on_demand;
	/* the new stream records every process again: the symbol caches can start over */
	if (d->tap && d->mem_renew && !scrape_tap_renew_symbols(d->tap)) {
		log_info("http: the symbol caches start over: the heap held %llu MiB once the host "
			 "capture ended, over %llu MiB",
			 (unsigned long long)(mem_heap_bytes() >> 20),
			 (unsigned long long)(MEM_SYMBOLS_CAP >> 20));
		d->mem_renew = false;
		mem_trim();
	}
	if (d->tap && scrape_tap_begin(d->tap, clock_ns(CLOCK_BOOTTIME)))
		log_warn("http: out of memory: the scrapes miss this capture");
	if (on_demand) {
		s->file_bytes = 0;
		s->sink_err = 0;
		err = capture__new(&o, file_sink, s, &s->cap, &holder);
		if (!err) {
			err = capture_start(s->cap);
			if (err) {
				capture__free(s->cap);
				s->cap = NULL;
			}
		}
		if (err)
			goto fail;
		goto started;
	}
	dfd = open_dir(d);
	if (dfd < 0) {
		log_err("continuous mode: cannot open '%s': %s", d->cfg.directory, strerror(-dfd));
		d->cont_retry_at = mono_s() + CONT_RETRY_S;
		if (d->tap)
			scrape_tap_end(d->tap, clock_ns(CLOCK_BOOTTIME),
				       "continuous mode cannot open its directory");
		return;
	}
	/* The sequence number is used up only by a file that starts. */
	err = rotate_file_name(s->name, sizeof(s->name), time(NULL), d->cont_seq);
	if (!err &&
	    snprintf(path, sizeof(path), "%s/%s", d->cfg.directory, s->name) >= (int)sizeof(path))
		err = -ENAMETOOLONG;
	if (err)
		goto fail;
	/*
	 * Whatever a target does, the file stays within max_file_size: past
	 * the size less its finish, what the capture would add is kept out and
	 * counted (fxt_stream_set_budget()).
	 */
	o.max_bytes = d->cfg.max_file_size - cont_tail_reserve(d);
	/* a burst of mappings weighs on this file's rotation and the next's */
	d->cont_prev_turn = d->cont_max_turn;
	d->cont_max_turn = 0;
	/* under outfile's temporary name until cont_finish() commits it */
	err = outfile_create(&s->file, path, 0640);
	if (err)
		goto fail;
	s->file_bytes = 0;
	s->sink_err = 0;
	s->synced_bytes = 0;
	s->synced_ms = mono_ms();
	s->tick_bytes = 0;
	err = capture__new(&o, file_sink, s, &s->cap, &holder);
	if (!err) {
		/* The sampler lock is ours now: no other capture writes in the directory. */
		cont_salvage(d, basename(s->file.tmp));
		cont_prune(d, dfd, basename(s->file.tmp));
		err = capture_start(s->cap);
		if (err) {
			capture__free(s->cap);
			s->cap = NULL;
		}
	}
	if (err) {
		outfile_abort(&s->file);
		goto fail;
	}
	close(dfd);
	d->cont_seq++;
started:
	s->owner = NULL;
	s->state = FXS_SESSION_RUNNING;
	s->holder_pid = getpid();
	s->holder_uid = geteuid();
	s->opts = o;
	s->started_s = mono_s();
	s->next_drain_ms = mono_ms() + DRAIN_MS;
	s->drained_ms = 0;
	session_watch(d);
	if (on_demand)
		log_info("host capture at %llu Hz for the HTTP scrapes",
			 (unsigned long long)o.freq_hz);
	else if (d->cont_warned)
		log_warn("continuous mode resumed at %llu Hz into '%s/%s'",
			 (unsigned long long)o.freq_hz, d->cfg.directory, s->name);
	else
		log_info("continuous capture at %llu Hz into '%s/%s'",
			 (unsigned long long)o.freq_hz, d->cfg.directory, s->name);
	d->cont_warned = false;
	return;
fail:
	if (dfd >= 0)
		close(dfd);
	s->on_demand = false;
	if (d->tap)
		scrape_tap_end(d->tap, clock_ns(CLOCK_BOOTTIME),
			       err == -EBUSY ? "the sampler is held outside fxsamplerd"
					     : "the host capture could not start");
	d->cont_retry_at = mono_s() + CONT_RETRY_S;
	if (!d->cont_warned) {
		const char *what =
			on_demand ? "the host capture for the HTTP scrapes" : "continuous mode";

		if (err == -EBUSY)
			log_warn("%s waits: the sampler is held by pid %d", what, (int)holder);
		else
			log_err("%s cannot start: %s", what, strerror(-err));
	}
	d->cont_warned = true;
}

/*
 * The memory ceiling (memory.h): every MEM_CHECK_EVERY_MS, a heap over
 * MEM_HEAP_CAP ends the host capture (a continuous file, or the scrapes'
 * own, which http.c restarts) once it ran MEM_MIN_RUN_S, which frees its
 * bookkeeping of the host's processes; a heap still over MEM_SYMBOLS_CAP
 * then has the next stream start the scrapes' symbolizer over. A client's
 * session is never ended for it.
 */
static void cont_mem_check(struct daemon *d)
{
	struct session *s = &d->sess;
	int64_t now = mono_ms();
	uint64_t heap;

	if (now < d->mem_checked_ms + MEM_CHECK_EVERY_MS)
		return;
	d->mem_checked_ms = now;
	if (mono_s() >= d->mem_trimmed_s + 10) {
		d->mem_trimmed_s = mono_s();
		mem_trim();
	}
	heap = mem_heap_bytes();
	if (heap <= MEM_HEAP_CAP || !s->cap || s->owner || mono_s() < s->started_s + MEM_MIN_RUN_S)
		return;
	cont_finish(d);
	d->cont_retry_at = 0;
	mem_trim();
	d->mem_renew = d->tap && mem_heap_bytes() > MEM_SYMBOLS_CAP;
	log_info("the host capture ended early: the heap held %llu MiB, over %llu MiB; %llu MiB "
		 "once it ended%s",
		 (unsigned long long)(heap >> 20), (unsigned long long)(MEM_HEAP_CAP >> 20),
		 (unsigned long long)(mem_heap_bytes() >> 20),
		 d->mem_renew ? ", so the symbol caches start over" : "");
}

void cont_tick(struct daemon *d)
{
	struct session *s = &d->sess;
	struct rotate_policy pol = {d->cfg.max_file_size, d->cfg.max_file_age_s,
				    d->cfg.max_total_size};
	int err;

	cont_mem_check(d);

	/*
	 * A file closes before it would pass max_file_size: what the largest
	 * drain so far wrote, and what the last finish wrote, may still come.
	 */
	if (s->cap && !s->owner && !s->on_demand &&
	    s->file_bytes - s->tick_bytes > d->cont_max_turn)
		d->cont_max_turn = s->file_bytes - s->tick_bytes;
	if (s->cap)
		s->tick_bytes = s->file_bytes;
	if (s->cap && !s->owner && !s->on_demand &&
	    rotate_due(
		    &pol, s->file_bytes,
		    (d->cont_max_turn > d->cont_prev_turn ? d->cont_max_turn : d->cont_prev_turn) +
			    cont_tail_reserve(d),
		    s->started_s, mono_s())) {
		cont_finish(d);
		d->cont_retry_at = 0;
	}
	if (s->cap && !s->owner && !s->on_demand && s->file_bytes != s->synced_bytes &&
	    mono_ms() >= s->synced_ms + CONT_SYNC_MS) {
		err = outfile_sync(&s->file);
		if (err)
			log_warn("cannot sync '%s': %s", s->file.tmp, strerror(-err));
		s->synced_bytes = s->file_bytes;
		s->synced_ms = mono_ms();
	}
	cont_start(d);
}
