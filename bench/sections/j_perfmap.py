# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section j: perf maps read at a capture's end (issue 35). bench/perfmapgen
reads a 200,000-line map whose functions the samples hit 100, 2,000 or
16,384 times: time and memory.
"""
import os
import subprocess

from .common import OUT, ROUNDS, json_lines, log, results, target

LETTER, KEY = "j", "j_perfmap"
PERFMAPGEN = os.path.join(OUT, "perfmapgen")


def measure():
    log("== j. perf maps: reading a 200,000-line map at a capture's end (bench/perfmapgen)")
    runs = []
    for pcs in (100, 2000, 16384):
        out = subprocess.run([PERFMAPGEN, "-n", "200000", "-p", str(pcs), "-r",
                              str(max(ROUNDS, 5))], capture_output=True, text=True, timeout=600)
        runs += json_lines(out.stdout)
    results["sections"][KEY] = {"runs": runs}
    worst = max((r["read_ns_median"] for r in runs), default=None)
    target("j: a 200,000-line map read in <= 500 ms", "%.1f ms" % (worst / 1e6)
           if worst else "n/a", "<= 500 ms", worst <= 500e6 if worst else None)


def table(j):
    print("\nj. perf map of 200,000 lines read at a capture's end (perfmap_read_fd)")
    print("   %-8s%-10s%-10s%-16s%-16s%s" % ("pcs", "entries", "MiB", "median ms", "best ms",
                                            "peak added KiB"))
    for r in j.get("runs", []):
        print("   %-8d%-10d%-10.1f%-16.1f%-16.1f%d" % (
            r["pcs"], r["entries"], r["bytes"] / 1048576, r["read_ns_median"] / 1e6,
            r["read_ns_min"] / 1e6, r["peak_added_kib"]))
