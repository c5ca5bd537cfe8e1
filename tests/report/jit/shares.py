#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Shares of functions in a profile, for check-report's jit tier.

  shares.py folded FILE NAME...     fxsampler's folded stacks: each NAME's share of
                                    all samples (leaf frames naming NAME), then
                                    "anon" (samples with an anon+0x... frame anywhere)
  shares.py folded-js FILE NAME...  the same, of the samples running JavaScript
                                    (under Builtins_JSEntry): what --cpu-prof sees
                                    of a script (not node's bootstrap before it)
  shares.py cpuprofile FILE NAME... node --cpu-prof's profile: each NAME's share
                                    of its samples (self time) but "(program)" and
                                    "(idle)" (native code outside JavaScript)
  shares.py pprof FILE EXE NAME...  a pprof profile (fxsamplerd's scrape, decoded by
                                    tests/report/http_check.py): of the samples of
                                    executable EXE under Builtins_JSEntry, each NAME's
                                    share; "anon": EXE's samples with an unnamed leaf
                                    ([unknown], module+0x...)
Prints one "NAME PERCENT" line each.
"""
import json
import sys


def leaf_matches(leaf, name):
    return leaf.startswith(("JS:*" + name + " ", "JS:~" + name + " ", "JS:^" + name + " ",
                            "JS:+" + name + " ", name + " ")) or "." + name + "(" in leaf


def folded(path, names, within=None):
    total = anon = 0
    hits = dict.fromkeys(names, 0)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            n = int(count)
            frames = stack.split(";")
            if within and within not in frames:
                continue
            total += n
            if any(fr.startswith("anon+0x") for fr in frames):
                anon += n
            for name in names:
                if leaf_matches(frames[-1], name):
                    hits[name] += n
    for name in names:
        print(name, "%.2f" % (100.0 * hits[name] / max(total, 1)))
    print("anon", "%.2f" % (100.0 * anon / max(total, 1)))
    print("samples", total)


def cpuprofile(path, names):
    with open(path, encoding="utf-8") as f:
        prof = json.load(f)
    fn = {n["id"]: n["callFrame"]["functionName"] for n in prof["nodes"]}
    samples = [s for s in prof["samples"] if fn.get(s) not in ("(program)", "(idle)")]
    for name in names:
        hit = sum(1 for s in samples if fn.get(s) == name)
        print(name, "%.2f" % (100.0 * hit / max(len(samples), 1)))
    print("samples", len(samples))


def pprof(path, exe, names):
    import os
    import re
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import http_check
    with open(path, "rb") as f:
        p = http_check.parse_profile(f.read())
    total = js = anon = 0
    hits = dict.fromkeys(names, 0)
    for s in p["samples"]:
        if s["labels"].get("executable") != exe:
            continue
        fr = [f[0] for f in http_check.frames(p, s)]
        n = s["values"][0]
        total += n
        if not fr or fr[0] == "[unknown]" or re.search(r"\+0x[0-9a-f]+$", fr[0]):
            anon += n
        if "Builtins_JSEntry" not in fr:
            continue
        js += n
        for name in names:
            if leaf_matches(fr[0], name):
                hits[name] += n
    for name in names:
        print(name, "%.2f" % (100.0 * hits[name] / max(js, 1)))
    print("anon", "%.2f" % (100.0 * anon / max(total, 1)))
    print("samples", js)


if __name__ == "__main__":
    if sys.argv[1] == "pprof":
        pprof(sys.argv[2], sys.argv[3], sys.argv[4:])
        sys.exit(0)
    {"folded": folded, "cpuprofile": cpuprofile,
     "folded-js": lambda p, n: folded(p, n, "Builtins_JSEntry")}[sys.argv[1]](sys.argv[2],
                                                                           sys.argv[3:])
