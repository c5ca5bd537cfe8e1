# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section b: the target's slowdown. bench/progs/chain 32 doing a fixed amount of
work (calibrate: ~FXS_BENCH_WORK_SECONDS unprofiled) unprofiled and under
fxsampler record, perf record -g, bpftrace and the empty BPF floor at 1 and
10 kHz, every condition once a round in a shuffled order. calibrate (the
work of b, c and e) is run before section d; one_run serves e too.
"""
import os
import random

from .common import (CHAIN, FXS, LOADER, ROUNDS, TMP, chain_env, fmt, fxs_summary, have, log,
                     perf_samples, read_chain, results, run, stats, target)

LETTER, KEY = "b", "b_slowdown"
WORK_SECONDS = float(os.environ.get("FXS_BENCH_WORK_SECONDS", "1.5"))


def calibrate():
    res = os.path.join(TMP, "cal.res")
    iters = 50_000_000
    run([CHAIN, "32", "-w", str(iters)], env=chain_env(res))
    wall, _ = read_chain(res)
    iters = int(iters * WORK_SECONDS * 1e9 / wall)
    results["method"]["work_iters"] = iters
    return iters


def slowdown_cmd(kind, hz, iters, out):
    work = [CHAIN, "32", "-w", str(iters)]
    if kind == "none":
        return work
    if kind == "fxsampler":
        return [FXS, "record", "-q", "-F", str(hz), "-o", out, "--"] + work
    if kind == "fxsampler-z":
        return [FXS, "record", "-q", "-z", "-F", str(hz), "-o", out, "--"] + work
    if kind == "perf":
        return ["perf", "record", "-q", "-g", "--call-graph", "fp", "-F", str(hz), "-o", out,
                "--"] + work
    if kind == "bpftrace":
        return ["bpftrace", "-q", "-c", " ".join(work), "-e",
                "profile:hz:%d /pid == cpid/ { @[ustack] = count(); }" % hz]
    if kind == "floor":
        return [LOADER, "empty", "--per-cpu", "-F", str(hz), "--"] + work
    raise ValueError(kind)



def one_run(kind, hz, iters):
    res = os.path.join(TMP, "b.res")
    out = os.path.join(TMP, "out." + kind + (".gz" if kind.endswith("-z") else ""))
    if os.path.exists(out):
        os.unlink(out)
    rc, o, e, wall, ru = run(slowdown_cmd(kind, hz, iters, out), env=chain_env(res))
    target_wall, target_cpu = read_chain(res)
    r = {"rc": rc, "target_wall_ns": target_wall}
    if target_wall is None:
        log("   %s %d: no result (rc %d): %s" % (kind, hz, rc, e.strip()[-300:]))
        return r
    # wait4's rusage holds the profiler and its reaped child, the target.
    r["profiler_cpu_ns"] = (ru.ru_utime + ru.ru_stime) * 1e9 - target_cpu
    if kind.startswith("fxsampler"):
        r.update(fxs_summary(e))
        r["bytes"] = os.path.getsize(out) if os.path.exists(out) else None
    elif kind == "perf":
        r["samples"] = perf_samples(out)
        r["bytes"] = os.path.getsize(out)
    return r


B_KINDS = ["none", "fxsampler", "perf", "bpftrace", "floor"]


def measure(iters):
    log("== b. target slowdown (chain 32, fixed work of ~%.1fs) and profiler CPU" % WORK_SECONDS)
    runs = {}
    for r in range(ROUNDS):
        jobs = [("none", 0)] * 2 + [(k, hz) for k in B_KINDS[1:] if have(k)
                                    for hz in (1000, 10000)]
        random.shuffle(jobs)
        for kind, hz in jobs:
            runs.setdefault("%s@%d" % (kind, hz), []).append(one_run(kind, hz, iters))
        log("   round %d/%d done" % (r + 1, ROUNDS))
    base = stats([x["target_wall_ns"] for x in runs["none@0"]])
    sec = {"unprofiled_ns": base, "slowdown_pct": {}}
    for key, rs in runs.items():
        if key == "none@0":
            continue
        sec["slowdown_pct"][key] = stats(
            [(x["target_wall_ns"] / base["median"] - 1) * 100 if x.get("target_wall_ns")
             else None for x in rs])
        if key.startswith(("fxsampler", "perf")):
            sec.setdefault("samples", {})[key] = stats([x.get("samples") for x in rs])
    results["sections"][KEY] = sec
    sd = sec["slowdown_pct"]
    if sd.get("fxsampler@10000") and sd.get("perf@10000") and sd.get("floor@10000"):
        f, p, fl = (sd[k]["median"] for k in ("fxsampler@10000", "perf@10000", "floor@10000"))
        target("b: added runtime <= perf -g at 10 kHz", "%.1f%% vs %.1f%%" % (f, p), "<= perf",
               f <= p)
        target("b: part above the empty-BPF floor <= 1/2 of perf's at 10 kHz",
               "%.1f%% vs %.1f%%" % (f - fl, p - fl), "<= 0.5x", (f - fl) <= (p - fl) / 2)


def table(b):
    print("\nb. target slowdown, %% of unprofiled runtime (%s ms)" %
          fmt(b["unprofiled_ns"], scale=1e-6))
    print("   %-12s%-26s%-26s" % ("", "1 kHz", "10 kHz"))
    for k in B_KINDS[1:]:
        print("   %-12s%-26s%-26s" % (k, fmt(b["slowdown_pct"].get(k + "@1000"), "%", digits=1),
                                     fmt(b["slowdown_pct"].get(k + "@10000"), "%", digits=1)))
