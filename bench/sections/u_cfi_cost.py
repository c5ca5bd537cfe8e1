# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section u: the CFI walker against the frame-pointer walker. fxs_sample's run
time (bpf_stats) under fxsampler record --unwind=cfi and --unwind=fp, 9999 Hz
on bench/progs/chain 12, 32 and 127 frames deep (measure's doc says how).
"""
import random

from .bpfstats import cli_prog_cost, filtered_run_cost
from .common import ROUNDS, fmt, log, results, stats, sysctl, target

LETTER, KEY = "u", "u_cfi_cost"
U_DEPTHS = [12, 32, 127]


def measure():
    """Two figures per depth and mode. "mean": fxs_sample's run time over its
    runs, as bpf_stats gives it; fxsampler's per-CPU events fire on every
    process, so most runs are firings on other processes, filtered within
    ~100 ns, and they dilute both modes alike (the ratio of means understates
    the walkers' ratio). "per sample": the same run time less the filtered
    firings' share (their mean measured in the same round by a record -p of a
    sleeping process, where every firing is filtered), over the samples
    written: the cost of a sample that is walked. The issue's 3x is judged on
    the per-sample figure."""
    log("== u. CFI walker: fxs_sample ns per run, record --unwind=cfi vs fp (bpf_stats)")
    data = {str(d): {"fp": [], "cfi": []} for d in U_DEPTHS}
    per = {str(d): {"fp": [], "cfi": []} for d in U_DEPTHS}
    filt = []
    old = sysctl("kernel.bpf_stats_enabled", 1)
    try:
        for r in range(min(ROUNDS, 3)):
            f = filtered_run_cost()
            filt.append(f)
            for d in U_DEPTHS:
                order = ["fp", "cfi"]
                random.shuffle(order)
                for mode in order:
                    c = cli_prog_cost(d, ("--unwind", mode))
                    data[str(d)][mode].append(c[0] if c else None)
                    if c and f is not None and c[3]:
                        per[str(d)][mode].append((c[2] - f * (c[1] - c[3])) / c[3])
    finally:
        sysctl("kernel.bpf_stats_enabled", old)
    sec = {d: {m: stats(v) for m, v in row.items()} for d, row in data.items()}
    sec["per_sample"] = {d: {m: stats(v) for m, v in row.items()} for d, row in per.items()}
    sec["filtered_run_ns"] = stats(filt)
    sec["method"] = " ".join(measure.__doc__.split())
    results["sections"][KEY] = sec
    for d in U_DEPTHS:
        row = sec["per_sample"][str(d)]
        if row["fp"] and row["cfi"]:
            r = row["cfi"]["median"] / row["fp"]["median"]
            target("u: CFI walker <= 3x the fp walker at %d frames (per sample)" % d,
                   "%.2fx" % r, "<= 3x", r <= 3)


def table(k):
    print("\nu. fxsampler record, 9999 Hz on a chain of N (CLI, per-CPU events, idle firings "
          "included): fxs_sample ns per run")
    for d in U_DEPTHS:
        row = k[str(d)]
        print("   %-4d --unwind=fp %-24s --unwind=cfi %s" % (d, fmt(row["fp"]),
                                                             fmt(row["cfi"])))
    if "per_sample" in k:
        print("   per sample walked (run time less the filtered firings' share, %s ns each, "
              "over the samples written):" % fmt(k.get("filtered_run_ns")))
        for d in U_DEPTHS:
            row = k["per_sample"][str(d)]
            print("   %-4d --unwind=fp %-24s --unwind=cfi %s" % (d, fmt(row["fp"]),
                                                                 fmt(row["cfi"])))
