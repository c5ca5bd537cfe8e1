# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section c: the profiler's own CPU per sample, at the margin. fxsampler record
and perf record -g attached (-p) to a running bench/progs/chain 32 at 10 kHz
for 2 s and for 8 s (measure's doc says how the two make a cost per sample).
"""
import os
import subprocess
import time

from .common import (CHAIN, FXS, ROUNDS, TMP, chain_env, fmt, fxs_summary, have, log,
                     perf_samples, results, run, stats, target)

LETTER, KEY = "c", "c_profiler_cpu"


def profiler_cpu(kind, pid, seconds, out):
    """CPU (user + sys) of the profiler alone, attached to a running target,
    and the samples it wrote. The target is not its child, so wait4's rusage
    holds the profiler only (and, for perf, the sleep that times it)."""
    if kind == "fxsampler":
        cmd = [FXS, "record", "-q", "-F", "10000", "-p", str(pid), "-d", "%gs" % seconds,
               "-o", out]
    else:
        cmd = ["perf", "record", "-q", "-g", "--call-graph", "fp", "-F", "10000", "-p",
               str(pid), "-o", out, "--", "sleep", str(seconds)]
    rc, o, e, wall, ru = run(cmd)
    cpu = (ru.ru_utime + ru.ru_stime) * 1e9
    samples = fxs_summary(e).get("samples") if kind == "fxsampler" else perf_samples(out)
    return cpu, samples


def measure(iters):
    """Two captures of one running target, short and long: the difference in
    CPU over the difference in samples is the cost per sample; what is left
    is the fixed cost of setting up (BPF load, BTF, rings) and tearing down."""
    log("== c. profiler CPU per sample (chain 32 at 10 kHz, captures of 2 s and 8 s)")
    res = os.path.join(TMP, "c.res")
    target_proc = subprocess.Popen([CHAIN, "32", "-w", str(iters * 1000)], env=chain_env(res),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sec = {"per_sample_ns": {}, "fixed_ms": {}}
    try:
        time.sleep(0.3)
        for kind in ("fxsampler", "perf"):
            if not have(kind):
                continue
            per, fixed = [], []
            for r in range(min(ROUNDS, 3)):
                out = os.path.join(TMP, "c." + kind)
                c1, s1 = profiler_cpu(kind, target_proc.pid, 2, out)
                c2, s2 = profiler_cpu(kind, target_proc.pid, 8, out)
                if s1 and s2 and s2 > s1:
                    per.append((c2 - c1) / (s2 - s1))
                    fixed.append((c1 - per[-1] * s1) / 1e6)
            sec["per_sample_ns"][kind] = stats(per)
            sec["fixed_ms"][kind] = stats(fixed)
    finally:
        target_proc.kill()
        target_proc.wait()
    results["sections"][KEY] = sec
    c = sec["per_sample_ns"].get("fxsampler")
    if c and c.get("median") is not None:
        target("c: <= 1 us profiler CPU per sample (10 kHz)", "%.0f ns" % c["median"],
               "<= 1000 ns", c["median"] <= 1000)


def table(c):
    print("\nc. profiler CPU (user+sys of the profiler alone) at 10 kHz, chain 32: per sample "
          "(the margin between a 2 s and an 8 s capture), and fixed (set-up and tear-down)")
    for k in sorted(c["per_sample_ns"]):
        print("   %-10s %s ns/sample, fixed %s ms" % (k, fmt(c["per_sample_ns"][k]),
                                                   fmt(c["fixed_ms"][k])))
