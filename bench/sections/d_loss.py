# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section d: loss. fxsampler record -a at 10 kHz for 10 s with every CPU busy
(bench/progs/chain), default buffers: samples written and dropped.
"""
import os
import subprocess
import time

from .common import (CHAIN, FXS, ROUNDS, TMP, fmt, fxs_summary, fxt_counter, log, results, run,
                     stats, target)

LETTER, KEY = "d", "d_loss"


def measure():
    log("== d. loss: both CPUs busy, 10 kHz, 10 s, default buffers, whole host (-a)")
    rows = []
    for r in range(min(ROUNDS, 3)):
        busy = [subprocess.Popen([CHAIN, "32", "13"]) for _ in range(os.cpu_count() or 2)]
        time.sleep(0.3)
        out = os.path.join(TMP, "loss.fxt")
        rc, o, e, wall, ru = run([FXS, "record", "-q", "-a", "-F", "10000", "-d", "10s", "-o", out])
        for b in busy:
            b.kill()
            b.wait()
        s = fxs_summary(e)
        cnt = fxt_counter(out, "samples") if os.path.exists(out) else {}
        s["counters"] = cnt
        rows.append(s)
    sec = {"runs": rows}
    for k in ("samples", "ring_full", "no_regs", "after_stop"):
        sec[k] = stats([x.get(k) for x in rows])
    results["sections"][KEY] = sec
    if sec["ring_full"]:
        drops = sec["ring_full"]["max"] + (sec["no_regs"] or {"max": 0})["max"]
        target("d: zero drops (10 kHz, 2 busy CPUs, 10 s)", "%d ring full, %d no regs (max)" % (
            sec["ring_full"]["max"], (sec["no_regs"] or {"max": 0})["max"]), "0", drops == 0)


def table(d):
    print("\nd. loss, -a at 10 kHz for 10 s with both CPUs busy: samples %s; dropped: "
          "ring full %s, no regs %s, after stop %s" % (
              fmt(d["samples"]), fmt(d["ring_full"]), fmt(d["no_regs"]),
              fmt(d["after_stop"])))
