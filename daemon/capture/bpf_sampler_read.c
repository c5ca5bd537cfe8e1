// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading the rings (bpf_sampler's drain): the BPF rings and the kernel's
 * side-band records, handed on in time order (capture/ordered) once every
 * record stamped before them has landed.
 */
#include <errno.h>
#include <stdbool.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/clock.h"
#include "sampler.skel.h"

#include "capture/bpf_sampler_internal.h"
#include "capture/ordered.h"
#include "capture/sideband.h"

/*
 * A record is stamped before it lands in its ring: how late it may land.
 * The BPF programs stamp samples with interrupts off and every other record
 * with its write counted in flight in fxs_state, and the kernel stamps its
 * side-band records with preemption off: while no write is in flight, a
 * record stamped HOLD_IDLE_NS ago has landed. While one is, it may be a
 * program that was preempted (a fork or an exec record), for HOLD_NS at
 * most, as far as we know.
 */
#define HOLD_NS	     20000000ULL
#define HOLD_IDLE_NS 1000000ULL
/* How soon the next drain comes while a mapping, fork or exec record waits. */
#define URGENT_MS 2

/*
 * How long one drain may run while the CPUs keep writing: rings refilled as
 * fast as they are read would keep us from the loop (its signals, the end of
 * the command) forever. What is left waits for the next drain, or is dropped
 * and counted when a ring fills.
 */
#define DRAIN_BUDGET_NS	  50000000ULL
#define DRAIN_CLOCK_EVERY 64

static int hand_on(struct bpf_sampler *b, uint64_t horizon)
{
	b->horizon_ns = horizon;
	return ordered_flush(&b->held, horizon, b->opts.on_sample, b->opts.ctx);
}

uint64_t bpf_sampler_horizon(const struct bpf_sampler *b)
{
	return b->read_all_ns;
}

/*
 * What a drain that starts now may hand on: the records stamped up to it
 * have all landed in their rings, to be read by it. Everything after disarm.
 */
static uint64_t drain_horizon(struct bpf_sampler *b)
{
	uint64_t now, state;

	if (!b->armed)
		return UINT64_MAX;
	now = clock_ns(CLOCK_BOOTTIME);
	state = __atomic_load_n(&b->skel->bss->fxs_state, __ATOMIC_ACQUIRE);
	return now - (state & FXS_INFLIGHT_MASK ? HOLD_NS : HOLD_IDLE_NS);
}

/* Keep rec for its turn; a mapping, fork or exec makes the next drain come early. */
static int hold(struct bpf_sampler *b, const struct fxs_sample *rec, size_t size)
{
	if ((rec->kind == FXS_KIND_MMAP || rec->kind == FXS_KIND_FORK ||
	     rec->kind == FXS_KIND_EXEC || (rec->flags & (FXS_SF_EXEC | FXS_SF_LEFT))) &&
	    rec->time_ns > b->urgent_ns)
		b->urgent_ns = rec->time_ns;
	return ordered_add(&b->held, rec, size);
}

int bpf_sampler_on_ring_record(void *ctx, void *data, size_t size)
{
	struct bpf_sampler *b = ctx;
	int err = 0;

	if (size >= sizeof(struct fxs_sample) && b->mmap_on && b->opts.on_arrival)
		err = b->opts.on_arrival(b->opts.ctx, data, size);
	if (!err && size >= sizeof(struct fxs_sample))
		err = b->mmap_on ? hold(b, data, size) : b->opts.on_sample(b->opts.ctx, data, size);
	if (err)
		return err;
	/* libbpf has consumed this record already when we stop here */
	if (b->drain_until && ++b->drained % DRAIN_CLOCK_EVERY == 0 &&
	    mono_ns() >= b->drain_until) {
		b->over_budget = true;
		return -EAGAIN;
	}
	return 0;
}

int bpf_sampler_on_sideband(void *ctx, const struct fxs_sample *rec, size_t size)
{
	struct bpf_sampler *b = ctx;
	uint8_t v = FXS_TARGET_YES;
	/* the counters are the mappings': an exec's record is not one */
	__u64 none[FXS_MC_NR] = {0}, *mc = rec->kind == FXS_KIND_MMAP ? b->mc.v : none;

	mc[FXS_MC_SEEN]++;
	if (!b->armed && !b->draining_last) {
		mc[FXS_MC_NOT_RUNNING]++;
		return 0;
	}
	/* a target that exited since is in gone (bpf/mmap.bpf.h) */
	if (b->opts.nr_pids &&
	    bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.targets), &rec->pid, &v) &&
	    bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.gone), &rec->pid, &v)) {
		mc[FXS_MC_FILTERED]++;
		return 0;
	}
	if (v != FXS_TARGET_YES) {
		mc[FXS_MC_FILTERED_CREDS]++;
		return 0;
	}
	mc[FXS_MC_WRITTEN]++;
	return hold(b, rec, size);
}

int bpf_sampler_drain(void *ctx)
{
	struct bpf_sampler *b = ctx;
	uint64_t horizon;
	int n, err;

	if (!b->rb)
		return 0;
	/* taken before the rings are read; after disarm, the last drain takes everything */
	horizon = drain_horizon(b);
	b->drain_until = b->armed ? mono_ns() + DRAIN_BUDGET_NS : 0;
	b->drained = 0;
	b->over_budget = false;
	n = ring_buffer__consume(b->rb);
	b->drain_until = 0;
	b->draining_last = !b->armed;
	err = b->sb ? sideband_read(b->sb, bpf_sampler_on_sideband, b) : 0;
	b->draining_last = false;
	if (!err)
		err = hand_on(b, horizon);
	if (err)
		return err;
	/* a drain cut short left records from before its horizon in the rings */
	if (!b->over_budget)
		b->read_all_ns = horizon;
	return b->over_budget ? (int)b->drained : n;
}

int bpf_sampler_wait(struct bpf_sampler *b, int timeout_ms)
{
	int n;

	if (!b->rb)
		return -EBADFD;
	/*
	 * Rings wake us only past their fill mark; otherwise this is the drain
	 * timer, early while a record the CFI walker waits for is held.
	 */
	timeout_ms = bpf_sampler_next_drain_ms(b, timeout_ms);
	b->drain_until =
		b->armed ? mono_ns() + (uint64_t)timeout_ms * 1000000ULL + DRAIN_BUDGET_NS : 0;
	b->over_budget = false;
	/*
	 * What the poll reads waits in held: the drain that follows it
	 * (capture_poll()) reads the side-band and hands on up to its horizon.
	 */
	n = ring_buffer__poll(b->rb, timeout_ms);
	b->drain_until = 0;
	if (b->over_budget)
		return 0;
	return n < 0 ? n : 0;
}

int bpf_sampler_wake_fd(const struct bpf_sampler *b)
{
	return b->rb ? ring_buffer__epoll_fd(b->rb) : -EBADFD;
}

int bpf_sampler_next_drain_ms(const struct bpf_sampler *b, int within_ms)
{
	if (b->urgent_ns > b->horizon_ns && (within_ms < 0 || within_ms > URGENT_MS))
		return URGENT_MS;
	return within_ms;
}
