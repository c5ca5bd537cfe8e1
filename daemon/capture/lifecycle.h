/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sampler's lifecycle, as Fuchsia's ThreadSampler: setup, start, stop,
 * read, destroy over the state word of include/sampler.h. Pure logic: the
 * resources (BPF objects, perf events, rings) sit behind struct sampler_ops,
 * so every transition and error is unit-tested without the kernel.
 *
 * Errors mirror Fuchsia's: -EEXIST (ZX_ERR_ALREADY_EXISTS), -EINVAL
 * (ZX_ERR_INVALID_ARGS), -EBADFD (ZX_ERR_BAD_STATE).
 */
#ifndef FXS_DAEMON_LIFECYCLE_H
#define FXS_DAEMON_LIFECYCLE_H

#include <stdint.h>

/*
 * Below this the per-sample cost eats the CPU: 20 us = 50 kHz. At 100 kHz on
 * a 2-CPU VM (every timer interrupt a VM exit) a 0.3 s command took 1.2 s to
 * over 100 s, depending on the load beside it.
 */
#define SAMPLER_MIN_PERIOD_NS 20000ULL
#define SAMPLER_MIN_BUFFER    4096U
#define SAMPLER_MAX_BUFFER    (1U << 30)

struct sampler_config {
	uint64_t period_ns; /* or 0 with freq_hz set */
	uint64_t freq_hz;
	uint32_t buffer_size; /* per CPU, power of two */
	uint32_t max_frames;  /* 1..FXS_MAX_FRAMES */
};

struct sampler_ops {
	/* Create the rings and load the program; *ret_state: the mapped state word. */
	int (*alloc)(void *ctx, const struct sampler_config *cfg, uint64_t **ret_state);
	/* Open and enable one event per CPU, each tagged with this session id. */
	int (*arm)(void *ctx, uint32_t session);
	/* Disable every event: no new sample fires once this returns. */
	int (*disarm)(void *ctx);
	/* Consume what the rings hold; returns records read or -errno. */
	int (*drain)(void *ctx);
	/* Free the rings and the program; called once, after alloc succeeded. */
	void (*release)(void *ctx);
	/* Sleep for the stop back-off; tests replace it to run without waiting. */
	void (*sleep_ns)(void *ctx, uint64_t ns);
	/* Told every 30 s of waiting for writes in flight (may be NULL). */
	void (*warn_slow_stop)(void *ctx, uint64_t waited_ns);
};

struct sampler {
	const struct sampler_ops *ops;
	void *ctx;
	uint64_t *state; /* NULL while UNALLOCATED */
};

void sampler_init(struct sampler *s, const struct sampler_ops *ops, void *ctx);
/* Checks the config the way setup does, without touching anything. */
int sampler_config_check(const struct sampler_config *cfg);
int sampler_setup(struct sampler *s, const struct sampler_config *cfg);
int sampler_start(struct sampler *s);
int sampler_stop(struct sampler *s);
int sampler_read(struct sampler *s);
int sampler_destroy(struct sampler *s);

/* FXS_ST_* of the state word (UNALLOCATED when nothing is allocated). */
unsigned sampler_state(const struct sampler *s);
uint32_t sampler_session(const struct sampler *s);
/* Writes in flight: what a stop waits out (0 while UNALLOCATED). */
uint32_t sampler_in_flight(const struct sampler *s);

#endif /* FXS_DAEMON_LIFECYCLE_H */
