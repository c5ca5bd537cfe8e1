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
  shares.py cpuprofile-during FILE SPAN NAME...
                                    the same, of the profile's samples taken in the
                                    time SPAN covers: a perf script (report
                                    --perf-script's output), from its first sample to
                                    its last, or a pprof profile (.pb.gz, a scrape),
                                    its time_nanos and duration_nanos: node's own
                                    shares in the time one of fxsampler's files or
                                    scrapes covers
  shares.py pprof FILE EXE NAME...  a pprof profile (fxsamplerd's scrape, decoded by
                                    tests/report/http_check.py): of the samples of
                                    executable EXE under Builtins_JSEntry, each NAME's
                                    share; "anon": EXE's samples with an unnamed leaf
                                    ([unknown], module+0x...)
Prints one "NAME PERCENT" line each.
"""
import itertools
import json
import os
import re
import sys
import time


def http_check():
    """tests/report/http_check.py, the pprof decoder of check-report's tiers."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import http_check as module
    return module


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


def span(path):
    """The time a perf script or a pprof profile covers, as CLOCK_MONOTONIC us.

    V8's times (startTime, timeDeltas) are CLOCK_MONOTONIC's in us; a perf
    script's are CLOCK_BOOTTIME's (they differ by the time suspended), a pprof
    profile's time_nanos CLOCK_REALTIME's: each is moved by its clock's offset
    from CLOCK_MONOTONIC read here."""
    if path.endswith(".pb.gz"):
        with open(path, "rb") as f:
            p = http_check().parse_profile(f.read())
        start = p["time_nanos"] - (time.time_ns() - time.monotonic_ns())
        return (start // 1000, (start + p["duration_nanos"]) // 1000)
    header = re.compile(r" (\d+)\.(\d{9}): \d+ cpu-clock:$")
    with open(path, encoding="utf-8", errors="replace") as f:
        times = [int(m.group(1)) * 10**9 + int(m.group(2)) for m in map(header.search, f) if m]
    if not times:
        sys.exit("%s: no sample" % path)
    suspended = time.clock_gettime_ns(time.CLOCK_BOOTTIME) - time.monotonic_ns()
    return ((min(times) - suspended) // 1000, (max(times) - suspended) // 1000)


def cpuprofile(path, names, within=None):
    with open(path, encoding="utf-8") as f:
        prof = json.load(f)
    fn = {n["id"]: n["callFrame"]["functionName"] for n in prof["nodes"]}
    at = list(itertools.accumulate(prof["timeDeltas"], initial=prof["startTime"]))[1:]
    samples = [s for s, t in zip(prof["samples"], at)
               if fn.get(s) not in ("(program)", "(idle)") and
               (within is None or within[0] <= t <= within[1])]
    for name in names:
        hit = sum(1 for s in samples if fn.get(s) == name)
        print(name, "%.2f" % (100.0 * hit / max(len(samples), 1)))
    print("samples", len(samples))


def pprof(path, exe, names):
    decoder = http_check()
    with open(path, "rb") as f:
        p = decoder.parse_profile(f.read())
    total = js = anon = 0
    hits = dict.fromkeys(names, 0)
    for s in p["samples"]:
        if s["labels"].get("executable") != exe:
            continue
        fr = [f[0] for f in decoder.frames(p, s)]
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
    if sys.argv[1] == "cpuprofile-during":
        cpuprofile(sys.argv[2], sys.argv[4:], span(sys.argv[3]))
        sys.exit(0)
    {"folded": folded, "cpuprofile": cpuprofile,
     "folded-js": lambda p, n: folded(p, n, "Builtins_JSEntry")}[sys.argv[1]](sys.argv[2],
                                                                           sys.argv[3:])
