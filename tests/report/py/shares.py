#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Shares of split.py's three functions, for check-report's pyhttp tier.

  shares.py folded FILE       fxsampler's folded stacks
  shares.py pprof FILE EXE    a pprof profile (fxsamplerd's scrape, decoded by
                              tests/report/http_check.py), samples of executable EXE
Of the samples with a frame "work" (the script's loop), each of alpha, beta
and gamma's share (a frame of that name anywhere in the stack); prints one
"NAME PERCENT" line each, then "samples N".
"""
import os
import sys

NAMES = ("alpha", "beta", "gamma")


def count(stacks):
    total, hits = 0, dict.fromkeys(NAMES, 0)
    for frames, n in stacks:
        if "work" not in frames:
            continue
        total += n
        for name in NAMES:
            hits[name] += n if name in frames else 0
    for name in NAMES:
        print(name, "%.2f" % (100.0 * hits[name] / max(total, 1)))
    print("samples", total)


def folded(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            yield stack.split(";"), int(n)


def pprof(path, exe):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import http_check
    with open(path, "rb") as f:
        p = http_check.parse_profile(f.read())
    for s in p["samples"]:
        if s["labels"].get("executable") == exe:
            yield [f[0] for f in http_check.frames(p, s)], s["values"][0]


if __name__ == "__main__":
    count(folded(sys.argv[2]) if sys.argv[1] == "folded" else pprof(sys.argv[2], sys.argv[3]))
