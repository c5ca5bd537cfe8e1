# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section e: bytes per sample of the output: .fxt, .fxt.gz (record -z) and
perf.data of bench/progs/chain 32 at 10 kHz (section b's one_run).
"""
import random

from .b_slowdown import one_run
from .common import ROUNDS, fmt, have, log, results, stats, target

LETTER, KEY = "e", "e_bytes_per_sample"


def measure(iters):
    log("== e. bytes per sample: .fxt, .fxt.gz (record -z), perf.data; chain 32 at 10 kHz")
    runs = {}
    for r in range(min(ROUNDS, 3)):
        order = [k for k in ("fxsampler", "fxsampler-z", "perf") if have(k)]
        random.shuffle(order)
        for k in order:
            runs.setdefault(k, []).append(one_run(k, 10000, iters))
    sec = {}
    for k, rs in runs.items():
        sec[k] = stats([x["bytes"] / x["samples"] if x.get("samples") and x.get("bytes")
                        else None for x in rs])
    results["sections"][KEY] = sec
    if sec.get("fxsampler") and sec.get("perf"):
        f, p = sec["fxsampler"]["median"], sec["perf"]["median"]
        target("e: .fxt bytes/sample <= perf.data's", "%.1f vs %.1f" % (f, p), "<= perf", f <= p)
    if sec.get("fxsampler-z") and sec.get("perf"):
        z, p = sec["fxsampler-z"]["median"], sec["perf"]["median"]
        target("e: record -z bytes/sample <= 1/4 of perf.data's", "%.1f vs %.1f" % (z, p),
               "<= 0.25x", z <= p / 4)


def table(e):
    print("\ne. bytes per sample (chain 32, 10 kHz): .fxt %s, .fxt.gz (-z) %s, perf.data %s" % (
        fmt(e.get("fxsampler"), digits=1), fmt(e.get("fxsampler-z"), digits=1),
        fmt(e.get("perf"), digits=1)))
