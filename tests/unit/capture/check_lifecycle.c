// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sampler's state machine (daemon/capture/lifecycle.c) over a fake backend: the
 * state word is a plain u64 on its own page, as the real BPF_F_MMAPABLE array,
 * and the fake callbacks look at it at the moment the lifecycle calls them.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/lifecycle.h"
#include "sampler.h"
#include "check_main.h"

#define MSEC 1000000ULL
#define SEC  1000000000ULL

#define MAX_SLEEPS 512
#define MAX_WARNS  16

struct fake {
	uint64_t *word;	   /* the state word alloc hands out */
	struct sampler *s; /* to look at the sampler from inside a callback */
	char log[64];	   /* one letter per call but sleep, in order */
	unsigned nlog;
	/* what the next call returns */
	int alloc_err, arm_err, disarm_err, drain_ret;
	bool alloc_sets_state_on_error;
	/* seen by the calls */
	unsigned alloc_calls, arm_calls, disarm_calls, drain_calls, release_calls;
	struct sampler_config alloc_cfg;
	uint32_t armed_session;
	uint64_t word_at_arm, word_at_disarm, word_at_drain, word_at_release;
	/* writes in flight: one finishes every release_every sleeps */
	unsigned release_every;
	uint64_t sleeps[MAX_SLEEPS];
	unsigned nr_sleeps;
	uint64_t slept_ns;
	uint64_t warns[MAX_WARNS];
	uint64_t slept_at_warn[MAX_WARNS];
	unsigned nr_warns;
	/* a late writer announces itself right after drain, before CONFIGURED */
	unsigned inflight_added_at_drain;
};

static struct fake fk;
static struct sampler smp;
static long page_size;

static void logc(char c)
{
	if (fk.nlog < sizeof(fk.log) - 1)
		fk.log[fk.nlog++] = c;
}

static uint64_t word(void)
{
	return __atomic_load_n(fk.word, __ATOMIC_SEQ_CST);
}

static void add_in_flight(int64_t n)
{
	__atomic_fetch_add(fk.word, (uint64_t)n * FXS_INFLIGHT_ONE, __ATOMIC_SEQ_CST);
}

static unsigned st_of(uint64_t w)
{
	return w & FXS_STATE_MASK;
}

static uint32_t session_of(uint64_t w)
{
	return w >> FXS_SESSION_SHIFT;
}

static uint32_t in_flight_of(uint64_t w)
{
	return (w & FXS_INFLIGHT_MASK) >> FXS_INFLIGHT_SHIFT;
}

/* The BPF program's own gate (bpf/sampler.bpf.c: session_running). */
static bool session_running(uint64_t state, uint64_t session)
{
	return (state & FXS_STATE_MASK) == FXS_ST_RUNNING &&
	       (state >> FXS_SESSION_SHIFT) == session;
}

static int fake_alloc(void *ctx, const struct sampler_config *cfg, uint64_t **ret_state)
{
	struct fake *f = ctx;

	logc('A');
	f->alloc_calls++;
	f->alloc_cfg = *cfg;
	if (f->alloc_err) {
		if (f->alloc_sets_state_on_error)
			*ret_state = f->word;
		return f->alloc_err;
	}
	*ret_state = f->word;
	return 0;
}

static int fake_arm(void *ctx, uint32_t session)
{
	struct fake *f = ctx;

	logc('R');
	f->arm_calls++;
	f->armed_session = session;
	f->word_at_arm = word();
	return f->arm_err;
}

static int fake_disarm(void *ctx)
{
	struct fake *f = ctx;

	logc('D');
	f->disarm_calls++;
	f->word_at_disarm = word();
	return f->disarm_err;
}

static int fake_drain(void *ctx)
{
	struct fake *f = ctx;

	logc('N');
	f->drain_calls++;
	f->word_at_drain = word();
	if (f->inflight_added_at_drain)
		add_in_flight(f->inflight_added_at_drain);
	return f->drain_ret;
}

static void fake_release(void *ctx)
{
	struct fake *f = ctx;

	logc('X');
	f->release_calls++;
	f->word_at_release = word();
}

static void fake_sleep(void *ctx, uint64_t ns)
{
	struct fake *f = ctx;

	if (f->nr_sleeps < MAX_SLEEPS)
		f->sleeps[f->nr_sleeps] = ns;
	f->nr_sleeps++;
	f->slept_ns += ns;
	/* A stuck stop would spin forever: end it and let the asserts fail. */
	if (f->nr_sleeps >= MAX_SLEEPS) {
		__atomic_and_fetch(f->word, ~FXS_INFLIGHT_MASK, __ATOMIC_SEQ_CST);
		return;
	}
	if (in_flight_of(word()) && f->release_every && f->nr_sleeps % f->release_every == 0)
		add_in_flight(-1);
}

static void fake_warn(void *ctx, uint64_t waited_ns)
{
	struct fake *f = ctx;

	if (f->nr_warns < MAX_WARNS) {
		f->warns[f->nr_warns] = waited_ns;
		f->slept_at_warn[f->nr_warns] = f->slept_ns;
	}
	f->nr_warns++;
}

static const struct sampler_ops fake_ops = {
	.alloc = fake_alloc,
	.arm = fake_arm,
	.disarm = fake_disarm,
	.drain = fake_drain,
	.release = fake_release,
	.sleep_ns = fake_sleep,
	.warn_slow_stop = fake_warn,
};

static const struct sampler_config good_cfg = {
	.freq_hz = 999,
	.buffer_size = 1U << 21,
	.max_frames = 64,
};

static void setup(void)
{
	void *page;

	page_size = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(page, MAP_FAILED);
	memset(&fk, 0, sizeof(fk));
	fk.word = page;
	fk.s = &smp;
	fk.release_every = 1;
	sampler_init(&smp, &fake_ops, &fk);
}

static void teardown(void)
{
	munmap(fk.word, page_size);
}

static void reset_calls(void)
{
	memset(fk.log, 0, sizeof(fk.log));
	fk.nlog = 0;
	fk.alloc_calls = fk.arm_calls = fk.disarm_calls = fk.drain_calls = fk.release_calls = 0;
	fk.nr_sleeps = 0;
	fk.slept_ns = 0;
	fk.nr_warns = 0;
}

static void setup_ok(void)
{
	ck_assert_int_eq(sampler_setup(&smp, &good_cfg), 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
}

static void running(void)
{
	setup_ok();
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_RUNNING);
	reset_calls();
}

/* --- init and names --- */

START_TEST(test_init_unallocated)
{
	struct sampler s;

	memset(&s, 0xa5, sizeof(s));
	sampler_init(&s, &fake_ops, &fk);
	ck_assert_ptr_eq(s.ops, &fake_ops);
	ck_assert_ptr_eq(s.ctx, &fk);
	ck_assert_ptr_null(s.state);
	ck_assert_uint_eq(sampler_state(&s), FXS_ST_UNALLOCATED);
	ck_assert_uint_eq(sampler_session(&s), 0);
	ck_assert_uint_eq(sampler_in_flight(&s), 0);
}
END_TEST

/* The accessors decode the word's three fields independently. */
START_TEST(test_accessors_decode_word)
{
	setup_ok();
	*fk.word = ((uint64_t)0xdeadbeef << FXS_SESSION_SHIFT) |
		   (0xabcdefULL << FXS_INFLIGHT_SHIFT) | FXS_ST_STOPPING;
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_STOPPING);
	ck_assert_uint_eq(sampler_session(&smp), 0xdeadbeef);
	ck_assert_uint_eq(sampler_in_flight(&smp), 0xabcdef);
}
END_TEST

/* --- setup --- */

START_TEST(test_setup_ok)
{
	const struct sampler_config period = {
		.period_ns = 250000, .buffer_size = 4096, .max_frames = 1};

	ck_assert_int_eq(sampler_setup(&smp, &good_cfg), 0);
	ck_assert_str_eq(fk.log, "A");
	ck_assert_ptr_eq(smp.state, fk.word);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	ck_assert_uint_eq(sampler_session(&smp), 0);
	ck_assert_uint_eq(sampler_in_flight(&smp), 0);
	ck_assert_uint_eq(fk.alloc_cfg.freq_hz, 999);
	ck_assert_uint_eq(fk.alloc_cfg.period_ns, 0);
	ck_assert_uint_eq(fk.alloc_cfg.buffer_size, 1U << 21);
	ck_assert_uint_eq(fk.alloc_cfg.max_frames, 64);

	ck_assert_int_eq(sampler_destroy(&smp), 0);
	ck_assert_int_eq(sampler_setup(&smp, &period), 0);
	ck_assert_uint_eq(fk.alloc_calls, 2);
	ck_assert_uint_eq(fk.alloc_cfg.period_ns, 250000);
	ck_assert_uint_eq(fk.alloc_cfg.freq_hz, 0);
	ck_assert_uint_eq(fk.alloc_cfg.buffer_size, 4096);
	ck_assert_uint_eq(fk.alloc_cfg.max_frames, 1);
}
END_TEST

/* Setup keeps what the map already holds but the state (a fresh map is all 0). */
START_TEST(test_setup_keeps_session_and_in_flight)
{
	*fk.word = (7ULL << FXS_SESSION_SHIFT) | (2 * FXS_INFLIGHT_ONE);
	ck_assert_int_eq(sampler_setup(&smp, &good_cfg), 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	ck_assert_uint_eq(sampler_session(&smp), 7);
	ck_assert_uint_eq(sampler_in_flight(&smp), 2);
}
END_TEST

START_TEST(test_setup_again_exists)
{
	const struct sampler_config bad = {0};

	setup_ok();
	reset_calls();
	ck_assert_int_eq(sampler_setup(&smp, &good_cfg), -EEXIST);
	/* As Fuchsia: "already exists" is checked before the arguments. */
	ck_assert_int_eq(sampler_setup(&smp, &bad), -EEXIST);
	ck_assert_uint_eq(fk.alloc_calls, 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);

	ck_assert_int_eq(sampler_start(&smp), 0);
	reset_calls();
	ck_assert_int_eq(sampler_setup(&smp, &good_cfg), -EEXIST);
	ck_assert_uint_eq(fk.alloc_calls, 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_RUNNING);
	ck_assert_str_eq(fk.log, "");
}
END_TEST

struct cfg_case {
	struct sampler_config cfg;
	int want;
};

static const struct cfg_case cfg_cases[] = {
	/* neither period nor frequency, and both */
	{{.buffer_size = 4096, .max_frames = 64}, -EINVAL},
	{{.period_ns = 1000000, .freq_hz = 999, .buffer_size = 4096, .max_frames = 64}, -EINVAL},
	/* period: 0 means "use freq", below 20 us */
	{{.period_ns = 1, .buffer_size = 4096, .max_frames = 64}, -EINVAL},
	{{.period_ns = 19999, .buffer_size = 4096, .max_frames = 64}, -EINVAL},
	{{.period_ns = 20000, .buffer_size = 4096, .max_frames = 64}, 0},
	{{.period_ns = 3600 * SEC, .buffer_size = 4096, .max_frames = 64}, 0},
	/* frequency: at most 50 kHz (a 20 us period) */
	{{.freq_hz = 1, .buffer_size = 4096, .max_frames = 64}, 0},
	{{.freq_hz = 50000, .buffer_size = 4096, .max_frames = 64}, 0},
	{{.freq_hz = 50001, .buffer_size = 4096, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 100000, .buffer_size = 4096, .max_frames = 64}, -EINVAL},
	{{.freq_hz = UINT64_MAX, .buffer_size = 4096, .max_frames = 64}, -EINVAL},
	/* buffer: a power of two, 4 KiB .. 1 GiB */
	{{.freq_hz = 999, .buffer_size = 0, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 2048, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 3000, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 4095, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 4097, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 6144, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 1U << 31, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = (1U << 30) + 4096, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = UINT32_MAX, .max_frames = 64}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 4096, .max_frames = 64}, 0},
	{{.freq_hz = 999, .buffer_size = 1U << 30, .max_frames = 64}, 0},
	/* frames: 1 .. FXS_MAX_FRAMES (512) */
	{{.freq_hz = 999, .buffer_size = 4096, .max_frames = 0}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 4096, .max_frames = FXS_MAX_FRAMES + 1}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 4096, .max_frames = UINT32_MAX}, -EINVAL},
	{{.freq_hz = 999, .buffer_size = 4096, .max_frames = 1}, 0},
	{{.freq_hz = 999, .buffer_size = 4096, .max_frames = FXS_MAX_FRAMES}, 0},
};

START_TEST(test_config_check)
{
	const struct cfg_case *c = &cfg_cases[_i];

	ck_assert_msg(sampler_config_check(&c->cfg) == c->want,
		      "case %d: period %llu freq %llu buffer %u frames %u: got %d, want %d", _i,
		      (unsigned long long)c->cfg.period_ns, (unsigned long long)c->cfg.freq_hz,
		      c->cfg.buffer_size, c->cfg.max_frames, sampler_config_check(&c->cfg),
		      c->want);
}
END_TEST

/* An invalid config never reaches alloc; a valid one does. */
START_TEST(test_setup_invalid_args)
{
	const struct cfg_case *c = &cfg_cases[_i];

	ck_assert_int_eq(sampler_setup(&smp, &c->cfg), c->want);
	if (c->want) {
		ck_assert_uint_eq(fk.alloc_calls, 0);
		ck_assert_ptr_null(smp.state);
		ck_assert_uint_eq(sampler_state(&smp), FXS_ST_UNALLOCATED);
		ck_assert_uint_eq(*fk.word, 0);
	} else {
		ck_assert_uint_eq(fk.alloc_calls, 1);
		ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	}
}
END_TEST

START_TEST(test_setup_alloc_fails)
{
	fk.alloc_err = -ENOMEM;
	ck_assert_int_eq(sampler_setup(&smp, &good_cfg), -ENOMEM);
	ck_assert_uint_eq(fk.alloc_calls, 1);
	ck_assert_ptr_null(smp.state);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_UNALLOCATED);

	/* Even when the failing alloc wrote its out-parameter. */
	fk.alloc_err = -EPERM;
	fk.alloc_sets_state_on_error = true;
	ck_assert_int_eq(sampler_setup(&smp, &good_cfg), -EPERM);
	ck_assert_ptr_null(smp.state);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_UNALLOCATED);
	ck_assert_uint_eq(*fk.word, 0);

	/* Nothing to start, stop, read or release. */
	ck_assert_int_eq(sampler_start(&smp), -EBADFD);
	ck_assert_int_eq(sampler_stop(&smp), -EBADFD);
	ck_assert_int_eq(sampler_read(&smp), -EBADFD);
	ck_assert_int_eq(sampler_destroy(&smp), 0);
	ck_assert_uint_eq(fk.release_calls, 0);

	/* And a later setup works. */
	fk.alloc_err = 0;
	setup_ok();
	ck_assert_str_eq(fk.log, "AAA");
}
END_TEST

/* --- start --- */

START_TEST(test_start_ok)
{
	setup_ok();
	reset_calls();
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_str_eq(fk.log, "R");
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_RUNNING);
	/* Armed with the current session, and already RUNNING when armed. */
	ck_assert_uint_eq(fk.armed_session, 0);
	ck_assert_uint_eq(st_of(fk.word_at_arm), FXS_ST_RUNNING);
	ck_assert(session_running(fk.word_at_arm, fk.armed_session));
	ck_assert(session_running(*fk.word, fk.armed_session));
}
END_TEST

START_TEST(test_start_arms_current_session)
{
	*fk.word = 41ULL << FXS_SESSION_SHIFT;
	setup_ok();
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_uint_eq(fk.armed_session, 41);
	ck_assert_uint_eq(sampler_session(&smp), 41);
	ck_assert(session_running(*fk.word, 41));
}
END_TEST

/* A late writer of the old session may be mid-way: start keeps its count. */
START_TEST(test_start_keeps_in_flight)
{
	setup_ok();
	add_in_flight(3);
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_uint_eq(in_flight_of(fk.word_at_arm), 3);
	ck_assert_uint_eq(sampler_in_flight(&smp), 3);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_RUNNING);
	add_in_flight(-3);
	ck_assert_uint_eq(*fk.word, FXS_ST_RUNNING);
}
END_TEST

START_TEST(test_start_bad_state)
{
	ck_assert_int_eq(sampler_start(&smp), -EBADFD);
	ck_assert_uint_eq(fk.arm_calls, 0);
	running();
	ck_assert_int_eq(sampler_start(&smp), -EBADFD);
	ck_assert_uint_eq(fk.arm_calls, 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_RUNNING);
	ck_assert_uint_eq(sampler_session(&smp), 0);
}
END_TEST

START_TEST(test_start_arm_fails)
{
	setup_ok();
	reset_calls();
	fk.arm_err = -ENODEV;
	ck_assert_int_eq(sampler_start(&smp), -ENODEV);
	/* Whatever arm enabled before failing is disabled again. */
	ck_assert_str_eq(fk.log, "RD");
	ck_assert_uint_eq(fk.armed_session, 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	/* The failed session is over: its late samples are dropped. */
	ck_assert_uint_eq(sampler_session(&smp), 1);
	ck_assert(!session_running(*fk.word, 0));
	ck_assert_uint_eq(sampler_in_flight(&smp), 0);

	/* The next start gets a fresh session. */
	fk.arm_err = 0;
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_uint_eq(fk.armed_session, 1);
	ck_assert(session_running(*fk.word, 1));
	ck_assert(!session_running(*fk.word, 0));
}
END_TEST

/* --- stop --- */

START_TEST(test_stop_bad_state)
{
	ck_assert_int_eq(sampler_stop(&smp), -EBADFD);
	setup_ok();
	reset_calls();
	ck_assert_int_eq(sampler_stop(&smp), -EBADFD);
	ck_assert_str_eq(fk.log, "");
	ck_assert_uint_eq(sampler_session(&smp), 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);

	/* Twice: the second finds CONFIGURED. */
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_int_eq(sampler_stop(&smp), 0);
	reset_calls();
	ck_assert_int_eq(sampler_stop(&smp), -EBADFD);
	ck_assert_str_eq(fk.log, "");
	ck_assert_uint_eq(sampler_session(&smp), 1);
}
END_TEST

START_TEST(test_stop_order)
{
	running();
	fk.drain_ret = 17;
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_str_eq(fk.log, "DN");
	/* STOPPING and the new session are visible before the events are disabled. */
	ck_assert_uint_eq(st_of(fk.word_at_disarm), FXS_ST_STOPPING);
	ck_assert_uint_eq(session_of(fk.word_at_disarm), 1);
	ck_assert(!session_running(fk.word_at_disarm, 0));
	/* Drained while still STOPPING, with nothing in flight. */
	ck_assert_uint_eq(st_of(fk.word_at_drain), FXS_ST_STOPPING);
	ck_assert_uint_eq(in_flight_of(fk.word_at_drain), 0);
	ck_assert_uint_eq(fk.nr_sleeps, 0);
	ck_assert_uint_eq(*fk.word, FXS_ST_CONFIGURED | FXS_SESSION_ONE);
}
END_TEST

/* Writes in flight finish one by one; drain comes only after the last. */
START_TEST(test_stop_waits_for_in_flight)
{
	running();
	add_in_flight(3);
	fk.release_every = 4;
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_str_eq(fk.log, "DN");
	ck_assert_uint_eq(in_flight_of(fk.word_at_disarm), 3);
	ck_assert_uint_eq(fk.nr_sleeps, 12);
	ck_assert_uint_eq(in_flight_of(fk.word_at_drain), 0);
	ck_assert_uint_eq(st_of(fk.word_at_drain), FXS_ST_STOPPING);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	ck_assert_uint_eq(fk.nr_warns, 0);
}
END_TEST

/* 1 ms doubling to 1 s, then 1 s; a warning once 30 s have passed. */
START_TEST(test_stop_backoff_and_warning)
{
	uint64_t want = MSEC, total = 0;

	running();
	add_in_flight(1);
	fk.release_every = 40;
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_uint_eq(fk.nr_sleeps, 40);
	for (unsigned i = 0; i < fk.nr_sleeps; i++) {
		ck_assert_msg(fk.sleeps[i] == want, "sleep %u: %llu ns, want %llu", i,
			      (unsigned long long)fk.sleeps[i], (unsigned long long)want);
		total += want;
		want = want * 2 > SEC ? SEC : want * 2;
	}
	ck_assert_uint_eq(fk.sleeps[9], 512 * MSEC);
	ck_assert_uint_eq(fk.sleeps[10], SEC);
	ck_assert_uint_eq(fk.sleeps[39], SEC);
	ck_assert_uint_eq(fk.slept_ns, total);
	ck_assert_uint_eq(total, 1023 * MSEC + 30 * SEC);

	/* Told once, with the time waited, as soon as it reached 30 s. */
	ck_assert_uint_eq(fk.nr_warns, 1);
	ck_assert_uint_eq(fk.warns[0], fk.slept_at_warn[0]);
	ck_assert_uint_ge(fk.warns[0], 30 * SEC);
	ck_assert_uint_lt(fk.warns[0] - SEC, 30 * SEC);
	ck_assert_uint_eq(in_flight_of(fk.word_at_drain), 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
}
END_TEST

/* A long wait warns every 30 s; a short one never. */
START_TEST(test_stop_warns_every_30s)
{
	running();
	add_in_flight(1);
	fk.release_every = 110; /* 1.023 s + 100 s */
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_uint_eq(fk.nr_sleeps, 110);
	ck_assert_uint_eq(fk.nr_warns, 3);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_uint_eq(fk.warns[i], fk.slept_at_warn[i]);
		ck_assert_uint_ge(fk.warns[i], (i + 1) * 30 * SEC);
		ck_assert_uint_lt(fk.warns[i] - SEC, (i + 1) * 30 * SEC);
	}

	/* 21 s of waiting: no warning. */
	ck_assert_int_eq(sampler_start(&smp), 0);
	reset_calls();
	add_in_flight(1);
	fk.release_every = 30;
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_uint_eq(fk.nr_sleeps, 30);
	ck_assert_uint_eq(fk.nr_warns, 0);
	/* The back-off starts over at 1 ms for each stop. */
	ck_assert_uint_eq(fk.sleeps[0], MSEC);
}
END_TEST

/* warn_slow_stop may be NULL. */
START_TEST(test_stop_without_warn_callback)
{
	struct sampler_ops ops = fake_ops;

	ops.warn_slow_stop = NULL;
	sampler_init(&smp, &ops, &fk);
	running();
	add_in_flight(1);
	fk.release_every = 100;
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_uint_eq(fk.nr_sleeps, 100);
	ck_assert_uint_eq(fk.nr_warns, 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
}
END_TEST

/*
 * A late sample that announced itself after drain (it will see the session is
 * over and back out) must keep its count across the final CONFIGURED.
 */
START_TEST(test_stop_keeps_late_in_flight)
{
	running();
	fk.inflight_added_at_drain = 1;
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	ck_assert_uint_eq(sampler_in_flight(&smp), 1);
	ck_assert_uint_eq(sampler_session(&smp), 1);
	/* The late sample backs out: the word is exactly CONFIGURED, session 1. */
	add_in_flight(-1);
	ck_assert_uint_eq(*fk.word, FXS_ST_CONFIGURED | FXS_SESSION_ONE);
}
END_TEST

START_TEST(test_stop_errors)
{
	running();
	fk.disarm_err = -EIO;
	fk.drain_ret = 5;
	ck_assert_int_eq(sampler_stop(&smp), -EIO);
	/* Still waited, drained and stopped. */
	ck_assert_str_eq(fk.log, "DN");
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	ck_assert_uint_eq(sampler_session(&smp), 1);

	fk.disarm_err = 0;
	fk.drain_ret = -EBADMSG;
	ck_assert_int_eq(sampler_start(&smp), 0);
	reset_calls();
	ck_assert_int_eq(sampler_stop(&smp), -EBADMSG);
	ck_assert_str_eq(fk.log, "DN");
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	ck_assert_uint_eq(sampler_session(&smp), 2);

	/* Both fail: the disarm error wins. */
	fk.disarm_err = -EIO;
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_int_eq(sampler_stop(&smp), -EIO);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
}
END_TEST

/* The session is 32 bits: it wraps without touching the state or in-flight bits. */
START_TEST(test_stop_session_wraps)
{
	*fk.word = (uint64_t)UINT32_MAX << FXS_SESSION_SHIFT;
	running();
	ck_assert_uint_eq(fk.armed_session, UINT32_MAX);
	ck_assert_uint_eq(sampler_session(&smp), UINT32_MAX);
	add_in_flight(1);
	fk.inflight_added_at_drain = 1;
	fk.release_every = 2;
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_uint_eq(session_of(fk.word_at_disarm), 0);
	ck_assert_uint_eq(sampler_session(&smp), 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	ck_assert_uint_eq(sampler_in_flight(&smp), 1);
	ck_assert(!session_running(*fk.word, UINT32_MAX));
}
END_TEST

/* --- a concurrent writer between set_state's load and its CAS --- */

static void *guard_page;
static unsigned guard_hits;

/*
 * The guarded page is read-only: the lifecycle's first write to the state word
 * faults, and a "BPF program" adds a write in flight before letting it retry.
 * A plain store would then overwrite the count; a CAS loop sees it and keeps it.
 */
static void guard_handler(int sig, siginfo_t *si, void *uctx)
{
	char *addr = si->si_addr;

	if (addr < (char *)guard_page || addr >= (char *)guard_page + page_size) {
		signal(SIGSEGV, SIG_DFL);
		return;
	}
	mprotect(guard_page, page_size, PROT_READ | PROT_WRITE);
	__atomic_fetch_add((uint64_t *)guard_page, FXS_INFLIGHT_ONE, __ATOMIC_SEQ_CST);
	guard_hits++;
}

static void guard_word(void)
{
	ck_assert_int_eq(mprotect(guard_page, page_size, PROT_READ), 0);
}

static int guarded_drain(void *ctx)
{
	int ret = fake_drain(ctx);

	guard_word();
	return ret;
}

START_TEST(test_set_state_cas_keeps_racing_writer)
{
	struct sigaction sa = {.sa_sigaction = guard_handler, .sa_flags = SA_SIGINFO}, old;
	struct sampler_ops ops = fake_ops;

	ops.drain = guarded_drain;
	sampler_init(&smp, &ops, &fk);
	guard_page = fk.word;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGSEGV, &sa, &old), 0);
	setup_ok();

	/* start: RUNNING keeps the writer that came in between. */
	guard_word();
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_uint_eq(guard_hits, 1);
	ck_assert_uint_eq(in_flight_of(fk.word_at_arm), 1);
	ck_assert_uint_eq(*fk.word, FXS_ST_RUNNING | FXS_INFLIGHT_ONE);
	add_in_flight(-1);

	/*
	 * stop: STOPPING (and the session bump, once) races with one writer,
	 * which stop must wait for; CONFIGURED races with another, which it keeps.
	 */
	reset_calls();
	fk.release_every = 3;
	guard_word();
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_uint_eq(guard_hits, 3);
	ck_assert_uint_eq(st_of(fk.word_at_disarm), FXS_ST_STOPPING);
	ck_assert_uint_eq(session_of(fk.word_at_disarm), 1);
	ck_assert_uint_eq(in_flight_of(fk.word_at_disarm), 1);
	ck_assert_uint_eq(fk.nr_sleeps, 3);
	ck_assert_uint_eq(in_flight_of(fk.word_at_drain), 0);
	ck_assert_uint_eq(*fk.word, FXS_ST_CONFIGURED | FXS_SESSION_ONE | FXS_INFLIGHT_ONE);
	add_in_flight(-1);

	ck_assert_int_eq(sigaction(SIGSEGV, &old, NULL), 0);
}
END_TEST

/*
 * A real concurrent "BPF program" on another thread: it announces a write,
 * writes only if the session it was armed for is running, and backs out.
 */
struct bpf_thread {
	pthread_t thread;
	uint64_t *word;
	uint32_t cookie; /* the session armed, as the perf event's cookie */
	bool armed;	 /* an event is enabled */
	bool disarmed_once;
	uint32_t disarmed; /* the cookie of the last session disarmed */
	bool quit;
	uint64_t started, finished, late;
};

static struct bpf_thread bt;

static void *bpf_thread_main(void *arg)
{
	struct bpf_thread *t = arg;

	while (!__atomic_load_n(&t->quit, __ATOMIC_ACQUIRE)) {
		uint32_t cookie = __atomic_load_n(&t->cookie, __ATOMIC_ACQUIRE);
		uint64_t old;

		if (!__atomic_load_n(&t->armed, __ATOMIC_ACQUIRE)) {
			/*
			 * A sample that fired just before the last disarm, running
			 * late: it must never see its session running again.
			 */
			if (!__atomic_load_n(&t->disarmed_once, __ATOMIC_ACQUIRE)) {
				sched_yield();
				continue;
			}
			cookie = __atomic_load_n(&t->disarmed, __ATOMIC_ACQUIRE);
			old = __atomic_fetch_add(t->word, FXS_INFLIGHT_ONE, __ATOMIC_SEQ_CST);
			if (session_running(old, cookie))
				__atomic_fetch_add(&t->late, 1, __ATOMIC_SEQ_CST);
			__atomic_fetch_sub(t->word, FXS_INFLIGHT_ONE, __ATOMIC_SEQ_CST);
			sched_yield();
			continue;
		}
		old = __atomic_fetch_add(t->word, FXS_INFLIGHT_ONE, __ATOMIC_SEQ_CST);
		if (session_running(old, cookie)) {
			__atomic_fetch_add(&t->started, 1, __ATOMIC_SEQ_CST);
			sched_yield();
			__atomic_fetch_add(&t->finished, 1, __ATOMIC_SEQ_CST);
		}
		__atomic_fetch_sub(t->word, FXS_INFLIGHT_ONE, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static int thread_arm(void *ctx, uint32_t session)
{
	__atomic_store_n(&bt.cookie, session, __ATOMIC_RELEASE);
	__atomic_store_n(&bt.armed, true, __ATOMIC_RELEASE);
	return fake_arm(ctx, session);
}

static int thread_disarm(void *ctx)
{
	__atomic_store_n(&bt.armed, false, __ATOMIC_RELEASE);
	__atomic_store_n(&bt.disarmed, bt.cookie, __ATOMIC_RELEASE);
	__atomic_store_n(&bt.disarmed_once, true, __ATOMIC_RELEASE);
	return fake_disarm(ctx);
}

static uint64_t drain_mismatch;

static int thread_drain(void *ctx)
{
	/* Every write that passed the gate has completed by now. */
	if (__atomic_load_n(&bt.started, __ATOMIC_SEQ_CST) !=
	    __atomic_load_n(&bt.finished, __ATOMIC_SEQ_CST))
		drain_mismatch++;
	return fake_drain(ctx);
}

static void thread_sleep(void *ctx, uint64_t ns)
{
	struct fake *f = ctx;

	f->nr_sleeps++;
	sched_yield();
}

START_TEST(test_concurrent_writer)
{
	struct sampler_ops ops = fake_ops;
	const unsigned cycles = 300;

	ops.arm = thread_arm;
	ops.disarm = thread_disarm;
	ops.drain = thread_drain;
	ops.sleep_ns = thread_sleep;
	sampler_init(&smp, &ops, &fk);
	setup_ok();
	memset(&bt, 0, sizeof(bt));
	bt.word = fk.word;
	ck_assert_int_eq(pthread_create(&bt.thread, NULL, bpf_thread_main, &bt), 0);
	for (unsigned i = 0; i < cycles; i++) {
		uint64_t started;

		ck_assert_int_eq(sampler_start(&smp), 0);
		ck_assert_uint_eq(fk.armed_session, i);
		sched_yield();
		ck_assert_int_eq(sampler_stop(&smp), 0);
		/* Nothing writes into the stopped session. */
		started = __atomic_load_n(&bt.started, __ATOMIC_SEQ_CST);
		sched_yield();
		ck_assert_uint_eq(__atomic_load_n(&bt.started, __ATOMIC_SEQ_CST), started);
		ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);
	}
	__atomic_store_n(&bt.quit, true, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_join(bt.thread, NULL), 0);
	ck_assert_uint_eq(drain_mismatch, 0);
	ck_assert_uint_eq(bt.late, 0);
	ck_assert_uint_eq(bt.started, bt.finished);
	/* No in-flight count lost or duplicated, one session per stop. */
	ck_assert_uint_eq(*fk.word, FXS_ST_CONFIGURED | ((uint64_t)cycles << FXS_SESSION_SHIFT));
	ck_assert_int_eq(sampler_destroy(&smp), 0);
}
END_TEST

/* --- read --- */

START_TEST(test_read)
{
	fk.drain_ret = 42;
	ck_assert_int_eq(sampler_read(&smp), -EBADFD);
	ck_assert_uint_eq(fk.drain_calls, 0);

	setup_ok();
	ck_assert_int_eq(sampler_read(&smp), 42);
	ck_assert_uint_eq(fk.drain_calls, 1);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_CONFIGURED);

	ck_assert_int_eq(sampler_start(&smp), 0);
	fk.drain_ret = 7;
	ck_assert_int_eq(sampler_read(&smp), 7);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_RUNNING);
	ck_assert_uint_eq(sampler_session(&smp), 0);

	fk.drain_ret = 0;
	ck_assert_int_eq(sampler_read(&smp), 0);
	fk.drain_ret = -EIO;
	ck_assert_int_eq(sampler_read(&smp), -EIO);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_RUNNING);

	/* After stop the buffers are still there to read. */
	fk.drain_ret = 3;
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_int_eq(sampler_read(&smp), 3);

	ck_assert_int_eq(sampler_destroy(&smp), 0);
	reset_calls();
	ck_assert_int_eq(sampler_read(&smp), -EBADFD);
	ck_assert_uint_eq(fk.drain_calls, 0);
}
END_TEST

/* --- every call against every state of the word --- */

START_TEST(test_state_matrix)
{
	static const struct {
		unsigned state;
		int setup, start, stop, read;
	} m[] = {
		{FXS_ST_CONFIGURED, -EEXIST, 0, -EBADFD, 9},
		{FXS_ST_RUNNING, -EEXIST, -EBADFD, 0, 9},
		{FXS_ST_STOPPING, -EEXIST, -EBADFD, -EBADFD, -EBADFD},
		{FXS_ST_DESTROYING, -EEXIST, -EBADFD, -EBADFD, -EBADFD},
	};
	const uint64_t base = (5ULL << FXS_SESSION_SHIFT);

	setup_ok();
	fk.drain_ret = 9;
	for (unsigned i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		*fk.word = base | m[i].state;
		reset_calls();
		ck_assert_int_eq(sampler_setup(&smp, &good_cfg), m[i].setup);
		ck_assert_uint_eq(fk.alloc_calls, 0);
		ck_assert_uint_eq(*fk.word, base | m[i].state);

		ck_assert_int_eq(sampler_read(&smp), m[i].read);
		ck_assert_uint_eq(fk.drain_calls, m[i].read >= 0);
		ck_assert_uint_eq(*fk.word, base | m[i].state);

		reset_calls();
		ck_assert_int_eq(sampler_start(&smp), m[i].start);
		ck_assert_uint_eq(fk.arm_calls, m[i].start == 0);
		if (m[i].start)
			ck_assert_uint_eq(*fk.word, base | m[i].state);

		*fk.word = base | m[i].state;
		reset_calls();
		ck_assert_int_eq(sampler_stop(&smp), m[i].stop);
		ck_assert_uint_eq(fk.disarm_calls, m[i].stop == 0);
		if (m[i].stop)
			ck_assert_uint_eq(*fk.word, base | m[i].state);
	}
}
END_TEST

/* The calls made from inside the stop and destroy callbacks see STOPPING, DESTROYING. */
static int nested_disarm_errs[4];

static int nested_disarm(void *ctx)
{
	nested_disarm_errs[0] = sampler_setup(fk.s, &good_cfg);
	nested_disarm_errs[1] = sampler_start(fk.s);
	nested_disarm_errs[2] = sampler_stop(fk.s);
	nested_disarm_errs[3] = sampler_read(fk.s);
	return fake_disarm(ctx);
}

static int nested_release_errs[5];

static void nested_release(void *ctx)
{
	nested_release_errs[0] = sampler_setup(fk.s, &good_cfg);
	nested_release_errs[1] = sampler_start(fk.s);
	nested_release_errs[2] = sampler_stop(fk.s);
	nested_release_errs[3] = sampler_read(fk.s);
	nested_release_errs[4] = (int)sampler_state(fk.s);
	fake_release(ctx);
}

START_TEST(test_calls_while_stopping_or_destroying)
{
	struct sampler_ops ops = fake_ops;

	ops.disarm = nested_disarm;
	ops.release = nested_release;
	sampler_init(&smp, &ops, &fk);
	running();
	ck_assert_int_eq(sampler_destroy(&smp), 0);
	ck_assert_str_eq(fk.log, "DNX");
	ck_assert_int_eq(nested_disarm_errs[0], -EEXIST);
	ck_assert_int_eq(nested_disarm_errs[1], -EBADFD);
	ck_assert_int_eq(nested_disarm_errs[2], -EBADFD);
	ck_assert_int_eq(nested_disarm_errs[3], -EBADFD);
	ck_assert_int_eq(nested_release_errs[0], -EEXIST);
	ck_assert_int_eq(nested_release_errs[1], -EBADFD);
	ck_assert_int_eq(nested_release_errs[2], -EBADFD);
	ck_assert_int_eq(nested_release_errs[3], -EBADFD);
	ck_assert_int_eq(nested_release_errs[4], FXS_ST_DESTROYING);
	ck_assert_uint_eq(fk.alloc_calls, 0);
	ck_assert_uint_eq(fk.arm_calls, 0);
	ck_assert_uint_eq(fk.drain_calls, 1);
}
END_TEST

/* --- destroy --- */

START_TEST(test_destroy_unallocated)
{
	ck_assert_int_eq(sampler_destroy(&smp), 0);
	ck_assert_str_eq(fk.log, "");
	ck_assert_uint_eq(*fk.word, 0);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_UNALLOCATED);
}
END_TEST

START_TEST(test_destroy_configured)
{
	setup_ok();
	reset_calls();
	ck_assert_int_eq(sampler_destroy(&smp), 0);
	ck_assert_str_eq(fk.log, "X");
	ck_assert_uint_eq(st_of(fk.word_at_release), FXS_ST_DESTROYING);
	ck_assert_uint_eq(session_of(fk.word_at_release), 0);
	ck_assert_ptr_null(smp.state);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_UNALLOCATED);
	ck_assert_uint_eq(sampler_session(&smp), 0);
	ck_assert_uint_eq(sampler_in_flight(&smp), 0);

	/* Again: nothing left, release is not called twice. */
	ck_assert_int_eq(sampler_destroy(&smp), 0);
	ck_assert_uint_eq(fk.release_calls, 1);
}
END_TEST

/* The owner went away mid-session: destroy stops first. */
START_TEST(test_destroy_running)
{
	running();
	add_in_flight(2);
	fk.release_every = 2;
	fk.drain_ret = 11;
	ck_assert_int_eq(sampler_destroy(&smp), 0);
	ck_assert_str_eq(fk.log, "DNX");
	ck_assert_uint_eq(st_of(fk.word_at_disarm), FXS_ST_STOPPING);
	ck_assert_uint_eq(session_of(fk.word_at_disarm), 1);
	ck_assert_uint_eq(fk.nr_sleeps, 4);
	ck_assert_uint_eq(in_flight_of(fk.word_at_drain), 0);
	ck_assert_uint_eq(st_of(fk.word_at_release), FXS_ST_DESTROYING);
	ck_assert_uint_eq(session_of(fk.word_at_release), 1);
	ck_assert(!session_running(fk.word_at_release, 0));
	ck_assert_ptr_null(smp.state);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_UNALLOCATED);
}
END_TEST

START_TEST(test_destroy_running_stop_fails)
{
	running();
	fk.disarm_err = -EIO;
	ck_assert_int_eq(sampler_destroy(&smp), -EIO);
	/* Released all the same: nothing may be left allocated. */
	ck_assert_str_eq(fk.log, "DNX");
	ck_assert_uint_eq(st_of(fk.word_at_release), FXS_ST_DESTROYING);
	ck_assert_ptr_null(smp.state);
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_UNALLOCATED);
}
END_TEST

/* --- whole sessions --- */

START_TEST(test_two_sessions)
{
	uint64_t w;

	setup_ok();
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_uint_eq(fk.armed_session, 0);
	w = *fk.word;
	ck_assert(session_running(w, 0));

	ck_assert_int_eq(sampler_stop(&smp), 0);
	w = *fk.word;
	ck_assert(!session_running(w, 0));
	ck_assert(!session_running(w, 1)); /* not running at all */

	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_uint_eq(fk.armed_session, 1);
	w = *fk.word;
	/* A late sample of session 0 is dropped; session 1's are written. */
	ck_assert(!session_running(w, 0));
	ck_assert(session_running(w, 1));

	fk.drain_ret = 8;
	ck_assert_int_eq(sampler_read(&smp), 8);
	ck_assert_int_eq(sampler_stop(&smp), 0);
	ck_assert_uint_eq(sampler_session(&smp), 2);
	ck_assert_int_eq(sampler_read(&smp), 8);
	ck_assert_int_eq(sampler_destroy(&smp), 0);
	ck_assert_str_eq(fk.log, "ARDNRNDNNX");
	ck_assert_uint_eq(sampler_state(&smp), FXS_ST_UNALLOCATED);

	/* A new setup after destroy: the host's sampler is free again. */
	memset(fk.word, 0, sizeof(*fk.word));
	setup_ok();
	ck_assert_int_eq(sampler_start(&smp), 0);
	ck_assert_uint_eq(fk.armed_session, 0);
	ck_assert_int_eq(sampler_destroy(&smp), 0);
	ck_assert_uint_eq(fk.alloc_calls, 2);
	ck_assert_uint_eq(fk.release_calls, 2);
}
END_TEST

static Suite *lifecycle_suite(void)
{
	Suite *s = suite_create("lifecycle");
	const int ncfg = sizeof(cfg_cases) / sizeof(cfg_cases[0]);
	TCase *tc;

	tc = tcase_create("state");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_init_unallocated);
	tcase_add_test(tc, test_accessors_decode_word);
	tcase_add_test(tc, test_state_matrix);
	tcase_add_test(tc, test_calls_while_stopping_or_destroying);
	suite_add_tcase(s, tc);

	tc = tcase_create("setup");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_setup_ok);
	tcase_add_test(tc, test_setup_keeps_session_and_in_flight);
	tcase_add_test(tc, test_setup_again_exists);
	tcase_add_loop_test(tc, test_config_check, 0, ncfg);
	tcase_add_loop_test(tc, test_setup_invalid_args, 0, ncfg);
	tcase_add_test(tc, test_setup_alloc_fails);
	suite_add_tcase(s, tc);

	tc = tcase_create("start");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_start_ok);
	tcase_add_test(tc, test_start_arms_current_session);
	tcase_add_test(tc, test_start_keeps_in_flight);
	tcase_add_test(tc, test_start_bad_state);
	tcase_add_test(tc, test_start_arm_fails);
	suite_add_tcase(s, tc);

	tc = tcase_create("stop");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_stop_bad_state);
	tcase_add_test(tc, test_stop_order);
	tcase_add_test(tc, test_stop_waits_for_in_flight);
	tcase_add_test(tc, test_stop_backoff_and_warning);
	tcase_add_test(tc, test_stop_warns_every_30s);
	tcase_add_test(tc, test_stop_without_warn_callback);
	tcase_add_test(tc, test_stop_keeps_late_in_flight);
	tcase_add_test(tc, test_stop_errors);
	tcase_add_test(tc, test_stop_session_wraps);
	suite_add_tcase(s, tc);

	tc = tcase_create("concurrency");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_set_state_cas_keeps_racing_writer);
	tcase_add_test(tc, test_concurrent_writer);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("read");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_read);
	suite_add_tcase(s, tc);

	tc = tcase_create("destroy");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_destroy_unallocated);
	tcase_add_test(tc, test_destroy_configured);
	tcase_add_test(tc, test_destroy_running);
	tcase_add_test(tc, test_destroy_running_stop_fails);
	suite_add_tcase(s, tc);

	tc = tcase_create("sessions");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_two_sessions);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(lifecycle_suite)
