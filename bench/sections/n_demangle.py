# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section n: the cost of demangling. report --top of a clang++ -O2 -c capture
(libLLVM's and libclang-cpp's C++ symbols) with and without --no-demangle:
wall time and peak RSS, side by side, ROUNDS rounds in a shuffled order.
"""
import os
import random
import re
import shutil

from .common import FXS, ROUNDS, TMP, TOP, fmt, fxt_samples, log, max_rss_kb, results, run, stats

LETTER, KEY = "n", "n_demangle"


def measure():
    """report --top of a clang++ -O2 -c capture (libLLVM's and libclang-cpp's C++
    symbols) with and without --no-demangle: wall time and peak RSS, side by side."""
    log("== n. report: the cost of demangling (clang++ capture)")
    src = os.path.join(TOP, "tests", "report", "demangle", "templates.cpp")
    if not shutil.which("clang++"):
        results["sections"][KEY] = {"status": "NOT RUN: clang++ missing"}
        return
    fxt = os.path.join(TMP, "clang.fxt")
    rc, o, e, _, _ = run([FXS, "record", "-q", "-F", "999", "-o", fxt, "--", "clang++", "-O2",
                          "-c", src, "-o", os.path.join(TMP, "templates.o")])
    if rc != 0:
        results["sections"][KEY] = {"status": "NOT RUN: record failed: " + e[-200:]}
        return
    conds = {"demangled": [], "no-demangle": []}
    wall = {k: [] for k in conds}
    rss = {k: [] for k in conds}
    for i in range(ROUNDS):
        order = list(conds)
        random.shuffle(order)
        for k in order:
            extra = ["--no-demangle"] if k == "no-demangle" else []
            rc, o, e, w, ru = run(["/usr/bin/time", "-v", FXS, "report", "--no-debuginfod",
                                   "--top", "20"] + extra + [fxt])
            wall[k].append(w * 1000 if rc == 0 else None)
            rss[k].append(max_rss_kb(e))
    rc, o, e, _, _ = run([FXS, "report", "--no-debuginfod", "--top", "100000", fxt])
    funcs = sum(1 for line in o.splitlines() if re.match(r"^ +\d+ +[\d.]+% +\d+ +[\d.]+% ", line))
    sec = {"samples": fxt_samples(fxt), "functions": funcs,
           "wall_ms": {k: stats(v) for k, v in wall.items()},
           "peak_rss_kb": {k: stats(v) for k, v in rss.items()},
           "wall_ratio": stats([a / b for a, b in zip(wall["demangled"], wall["no-demangle"])
                                if a and b]),
           "rss_ratio": stats([a / b for a, b in zip(rss["demangled"], rss["no-demangle"])
                               if a and b])}
    results["sections"][KEY] = sec


def table(n):
    if "status" in n:
        print("\nn. demangling: %s" % n["status"])
    else:
        print("\nn. report --top of a clang++ -O2 -c capture (%s samples, %s functions):"
              " demangled %s ms, %s kB peak RSS; --no-demangle %s ms, %s kB"
              " (ratios %s, %s)" % (
                  n["samples"], n["functions"], fmt(n["wall_ms"]["demangled"]),
                  fmt(n["peak_rss_kb"]["demangled"]), fmt(n["wall_ms"]["no-demangle"]),
                  fmt(n["peak_rss_kb"]["no-demangle"]), fmt(n["wall_ratio"], digits=2),
                  fmt(n["rss_ratio"], digits=2)))
