# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section g: report throughput. fxsampler report --top of a generated capture
of 1,000,000 samples (bench/fxtgen): samples per second and peak RSS.
"""
import os
import subprocess

from .common import FXS, FXTGEN, ROUNDS, TMP, fmt, log, max_rss_kb, results, run, stats, target

LETTER, KEY = "g", "g_report"


def measure():
    log("== g. report throughput")
    r = subprocess.run([FXS, "report", "--help"], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(FXTGEN):
        results["sections"][KEY] = {"status": "not measured: report not available"}
        target("g: report >= 1M samples/s", "n/a", ">= 1M/s", None, "report not available")
        target("g: report peak memory", "n/a", "(figure)", None, "report not available")
        return
    path = os.path.join(TMP, "big.fxt")
    n = 1_000_000
    rc, o, e, _, _ = run([FXTGEN, path, str(n)])
    if rc != 0 or not os.path.exists(path):
        results["sections"][KEY] = {"status": "not measured: generator failed: " + e}
        return
    rates, rss = [], []
    for i in range(min(ROUNDS, 3)):
        rc, o, e, wall, ru = run(["/usr/bin/time", "-v", FXS, "report", path])
        rates.append(n / wall if rc == 0 else None)
        rss.append(max_rss_kb(e))
    sec = {"samples": n, "file_bytes": os.path.getsize(path), "samples_per_s": stats(rates),
           "peak_rss_kb": stats(rss)}
    results["sections"][KEY] = sec
    if sec["samples_per_s"]:
        v = sec["samples_per_s"]["median"]
        target("g: report >= 1M samples/s", "%.2fM/s" % (v / 1e6), ">= 1M/s", v >= 1e6)


def table(g):
    if "status" in g:
        print("\ng. report: %s" % g["status"])
    else:
        print("\ng. report on %d samples: %s samples/s, peak RSS %s kB" % (
            g["samples"], fmt(g["samples_per_s"]), fmt(g["peak_rss_kb"])))
