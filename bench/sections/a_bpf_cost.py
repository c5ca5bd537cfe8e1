# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section a: BPF cost per sample. fxs_sample's run time per run (bpf_stats) at
9999 Hz on bench/progs/chain N frames deep, for each walker variant of
bpf/'s program loaded by bench/fxsbench (fast, simple, plain, getstack) and
the empty floor; then fxsampler record as shipped at 32 frames.
"""
import random

from .bpfstats import cli_prog_cost
from .common import (CHAIN, LOADER, ROUNDS, fmt, loader_ns_per_run, log, results, run, stats,
                     sysctl, target)

LETTER, KEY = "a", "a_bpf_cost"
A_PROGS = ["fast", "simple", "plain", "getstack", "empty"]
A_DEPTHS = [8, 32, 64]


def measure():
    log("== a. BPF cost per sample (bpf_stats run_time_ns / run_cnt), 9999 Hz per-task events")
    data = {d: {p: [] for p in A_PROGS} for d in A_DEPTHS}
    for r in range(ROUNDS):
        for d in A_DEPTHS:
            order = A_PROGS[:]
            random.shuffle(order)
            for p in order:
                rc, o, e, _, _ = run([LOADER, p, "-F", "9999", "--", CHAIN, str(d), "1.2"])
                try:
                    data[d][p].append(loader_ns_per_run(o))
                except (ValueError, IndexError, KeyError):
                    log("   %s %d: failed: %s" % (p, d, e.strip()[-200:]))
        log("   round %d/%d done" % (r + 1, ROUNDS))
    # The CLI as shipped (default walker), prog found by name via bpftool.
    cli = []
    old = sysctl("kernel.bpf_stats_enabled", 1)
    try:
        for r in range(min(ROUNDS, 3)):
            c = cli_prog_cost(32)  # (ns per run, runs, run time, samples written)
            cli.append(c[0] if c else None)
    finally:
        sysctl("kernel.bpf_stats_enabled", old)
    sec = {"hz": 9999, "unit": "ns per sample",
           "per_depth": {str(d): {p: stats(data[d][p]) for p in A_PROGS} for d in A_DEPTHS},
           "record_cli_32": stats(cli)}
    results["sections"][KEY] = sec
    s32 = sec["per_depth"]["32"]
    if s32["fast"] and s32["getstack"] and s32["plain"]:
        f, g, p = s32["fast"]["median"], s32["getstack"]["median"], s32["plain"]["median"]
        target("a: <= 1 us/sample at 32 frames (fast walker)", "%.0f ns" % f, "<= 1000 ns",
               f <= 1000)
        target("a: <= 1/2 of bpf_get_stack at 32 frames", "%.2fx" % (f / g), "<= 0.50x",
               f <= g / 2)
        target("a: <= 1/3 of the one-read-per-frame walker at 32", "%.2fx" % (f / p), "<= 0.33x",
               f <= p / 3)


def table(a):
    print("\na. BPF cost per sample, ns (bpf_stats), 9999 Hz on a target in a chain of N")
    print("   %-10s" % "frames" + "".join("%-24s" % p for p in A_PROGS))
    for d in A_DEPTHS:
        row = a["per_depth"][str(d)]
        print("   %-10d" % d + "".join("%-24s" % fmt(row[p]) for p in A_PROGS))
    print("   fast = walk_fast, simple = walk_simple, plain = the textbook one-read-per-")
    print("   frame walker, getstack = bpf_get_stack(BPF_F_USER_STACK) (cfg_walker), empty =")
    print("   floor; all but empty run fxsampler's whole program (filter, names, ring write).")
    print("   fxsampler record (CLI, per-CPU events, idle firings included), 32 frames: %s" %
          fmt(a.get("record_cli_32")))
