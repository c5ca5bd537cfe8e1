# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section k: record --kernel's cost. fxs_sample's run time per run (bpf_stats)
with and without cfg_kernel on dd, which spends most of its samples in the
kernel (write/read of 512 bytes), 9999 Hz per-task events (bench/fxsbench).
"""
import random

from .common import LOADER, ROUNDS, fmt, loader_ns_per_run, log, results, run, stats

LETTER, KEY = "k", "k_kernel_stacks"
K_PROGS = ["fast", "fast --kernel"]
K_DD = ["dd", "if=/dev/zero", "of=/dev/null", "bs=512", "count=2000000"]


def measure():
    log("== k. kernel stacks: BPF cost per sample on dd bs=512, 9999 Hz per-task events")
    data = {p: [] for p in K_PROGS}
    for r in range(ROUNDS):
        order = K_PROGS[:]
        random.shuffle(order)
        for p in order:
            rc, o, e, _, _ = run([LOADER] + p.split() + ["-F", "9999", "--"] + K_DD)
            try:
                data[p].append(loader_ns_per_run(o))
            except (ValueError, IndexError, KeyError):
                log("   %s: failed: %s" % (p, e.strip()[-200:]))
        log("   round %d/%d done" % (r + 1, ROUNDS))
    sec = {"hz": 9999, "unit": "ns per sample", "target": " ".join(K_DD),
           "per_prog": {p: stats(data[p]) for p in K_PROGS}}
    results["sections"][KEY] = sec


def table(k):
    print("\nk. kernel stacks, BPF cost per sample, ns (bpf_stats), 9999 Hz on %s" % k["target"])
    for p in K_PROGS:
        print("   %-16s%s" % (p, fmt(k["per_prog"][p])))
    print("   fast = the program as shipped; --kernel = with record --kernel's "
          "bpf_get_stack(ctx, .., 0) on every sample that lands in the kernel")
