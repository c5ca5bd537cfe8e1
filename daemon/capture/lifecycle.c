// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "capture/lifecycle.h"
#include "sampler.h"

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL
#define STOP_WARN_NS  (30 * NSEC_PER_SEC)

void sampler_init(struct sampler *s, const struct sampler_ops *ops, void *ctx)
{
	*s = (struct sampler){.ops = ops, .ctx = ctx};
}

static uint64_t load_state(const struct sampler *s)
{
	return s->state ? __atomic_load_n(s->state, __ATOMIC_ACQUIRE) : FXS_ST_UNALLOCATED;
}

unsigned sampler_state(const struct sampler *s)
{
	return load_state(s) & FXS_STATE_MASK;
}

uint32_t sampler_session(const struct sampler *s)
{
	return load_state(s) >> FXS_SESSION_SHIFT;
}

uint32_t sampler_in_flight(const struct sampler *s)
{
	return (load_state(s) & FXS_INFLIGHT_MASK) >> FXS_INFLIGHT_SHIFT;
}

/*
 * Replace the state (and bump the session when asked) while the program may be
 * adding to the in-flight count: compare-and-swap keeps its bits.
 */
static void set_state(struct sampler *s, unsigned state, uint64_t session_add)
{
	uint64_t old = __atomic_load_n(s->state, __ATOMIC_RELAXED), new;

	do {
		new = ((old & ~FXS_STATE_MASK) + session_add) | state;
	} while (!__atomic_compare_exchange_n(s->state, &old, new, true, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
}

int sampler_config_check(const struct sampler_config *cfg)
{
	if (!cfg->period_ns == !cfg->freq_hz)
		return -EINVAL;
	if (cfg->period_ns && cfg->period_ns < SAMPLER_MIN_PERIOD_NS)
		return -EINVAL;
	if (cfg->freq_hz && cfg->freq_hz > NSEC_PER_SEC / SAMPLER_MIN_PERIOD_NS)
		return -EINVAL;
	if (cfg->buffer_size < SAMPLER_MIN_BUFFER || cfg->buffer_size > SAMPLER_MAX_BUFFER ||
	    (cfg->buffer_size & (cfg->buffer_size - 1)))
		return -EINVAL;
	if (cfg->max_frames < 1 || cfg->max_frames > FXS_MAX_FRAMES)
		return -EINVAL;
	return 0;
}

int sampler_setup(struct sampler *s, const struct sampler_config *cfg)
{
	uint64_t *state = NULL;
	int err;

	if (sampler_state(s) != FXS_ST_UNALLOCATED)
		return -EEXIST;
	err = sampler_config_check(cfg);
	if (err)
		return err;
	err = s->ops->alloc(s->ctx, cfg, &state);
	if (err)
		return err;
	s->state = state;
	set_state(s, FXS_ST_CONFIGURED, 0);
	return 0;
}

int sampler_start(struct sampler *s)
{
	int err;

	if (sampler_state(s) != FXS_ST_CONFIGURED)
		return -EBADFD;
	set_state(s, FXS_ST_RUNNING, 0);
	err = s->ops->arm(s->ctx, sampler_session(s));
	if (err) {
		/* Nothing may keep firing into a session that failed to start. */
		s->ops->disarm(s->ctx);
		set_state(s, FXS_ST_CONFIGURED, FXS_SESSION_ONE);
	}
	return err;
}

/*
 * Stop as Fuchsia does: refuse new writes and end the session, disarm the
 * events, then wait for the writes already in flight (1 ms back-off doubling
 * up to 1 s, a warning every 30 s), and drain what they wrote.
 */
static int stop_running(struct sampler *s)
{
	uint64_t pause = NSEC_PER_MSEC, waited = 0, next_warn = STOP_WARN_NS;
	int err, drained;

	set_state(s, FXS_ST_STOPPING, FXS_SESSION_ONE);
	err = s->ops->disarm(s->ctx);
	while (sampler_in_flight(s)) {
		if (waited >= next_warn) {
			if (s->ops->warn_slow_stop)
				s->ops->warn_slow_stop(s->ctx, waited);
			next_warn += STOP_WARN_NS;
		}
		s->ops->sleep_ns(s->ctx, pause);
		waited += pause;
		pause = pause * 2 > NSEC_PER_SEC ? NSEC_PER_SEC : pause * 2;
	}
	drained = s->ops->drain(s->ctx);
	set_state(s, FXS_ST_CONFIGURED, 0);
	if (err)
		return err;
	return drained < 0 ? drained : 0;
}

int sampler_stop(struct sampler *s)
{
	if (sampler_state(s) != FXS_ST_RUNNING)
		return -EBADFD;
	return stop_running(s);
}

int sampler_read(struct sampler *s)
{
	unsigned state = sampler_state(s);

	if (state != FXS_ST_CONFIGURED && state != FXS_ST_RUNNING)
		return -EBADFD;
	return s->ops->drain(s->ctx);
}

int sampler_destroy(struct sampler *s)
{
	int err = 0;

	if (sampler_state(s) == FXS_ST_UNALLOCATED)
		return 0;
	/* The owner went away mid-session: stop first, as Fuchsia's Destroy does. */
	if (sampler_state(s) == FXS_ST_RUNNING)
		err = stop_running(s);
	set_state(s, FXS_ST_DESTROYING, 0);
	s->ops->release(s->ctx);
	/* The state word lived in what release freed. */
	s->state = NULL;
	return err;
}
