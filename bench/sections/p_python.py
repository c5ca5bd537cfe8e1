# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section p: the BPF cost of Python frames (issue 36). Debian's
python3.11 spins 16 Python frames deep (<module>, down x15); fxsampler records
it at 9999 Hz with --python=on and --python=off, the same program, the default
walker, each mode once a round in a shuffled order. fxs_sample's run time comes
from bpf_stats (bpftool prog show, read while record runs).

Two figures per mode, as section u gives them: "mean" is the run time over all
of fxs_sample's runs; fxsampler's per-CPU events fire on every process, and the
firings on others, filtered within ~100 ns, dilute both modes alike. "per
sample" is the run time less the filtered firings' share (their mean measured
in the same round by a record -p of a sleeping process) over the samples
written: what a sample of the Python process costs. The issue's 1.5x goal is
judged on the per-sample figure. Two more modes are --python=on with the
walks of before (FXS_BENCH_PY_WALK): "old" reads each frame and each frame's
code object, "leaf" each frame and the innermost's code object alone; "on"
(the walk) as leaf, the frames in the leaf's page taken from one read of it;
"win1k" the same with 1 KiB of that page at most below the leaf.
All in the same rounds, their ratios to "off" side by side.
"""
import os
import random

from .bpfstats import filtered_run_cost, record_prog_cost
from .common import FXS, PYTHON, ROUNDS, TMP, log, results, stats, sysctl, target

LETTER, KEY = "p", "p_python"
# the walk, the walks of before (FXS_BENCH_PY_WALK), the native walk alone
MODES = ["on", "win1k", "leaf", "old", "off"]
# 16 Python frames deep: <module>, then down x15, spinning in the last
FRAMES = 16
SCRIPT = """import sys, time
def down(n, end):
    if n:
        return down(n - 1, end)
    while time.perf_counter() < end:
        pass
down(int(sys.argv[1]) - 2, time.perf_counter() + float(sys.argv[2]))
"""


def one(script, mode):
    """record_prog_cost() of one record of script with the Python walk as mode says."""
    env = dict(os.environ)
    env.pop("FXS_BENCH_PY_WALK", None)
    if mode in ("old", "leaf", "win1k"):
        env["FXS_BENCH_PY_WALK"] = mode
    return record_prog_cost([FXS, "record", "-q", "-F", "9999",
                             "--python=" + ("off" if mode == "off" else "on"), "-o",
                             os.path.join(TMP, "py.fxt"), "--", PYTHON, script, str(FRAMES),
                             "2"], env)


def measure():
    if not os.path.exists(PYTHON):
        log("bench: SKIP p: no %s" % PYTHON)
        return
    log("== p. Python frames: fxs_sample ns per sample at %d Python frames, "
        "--python=on vs off (bpf_stats)" % FRAMES)
    script = os.path.join(TMP, "deep.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    mean = {m: [] for m in MODES}
    per = {m: [] for m in MODES}
    filt = []
    old = sysctl("kernel.bpf_stats_enabled", 1)
    try:
        for r in range(min(ROUNDS, 5)):
            fc = filtered_run_cost()
            filt.append(fc)
            for mode in random.sample(MODES, len(MODES)):
                c = one(script, mode)
                mean[mode].append(c[0] if c else None)
                if c and fc is not None and c[3]:
                    per[mode].append((c[2] - fc * (c[1] - c[3])) / c[3])
            log("   round %d/%d done" % (r + 1, min(ROUNDS, 5)))
    finally:
        sysctl("kernel.bpf_stats_enabled", old)
    sec = {"hz": 9999, "python_frames": FRAMES, "unit": "ns",
           "mean": {m: stats(v) for m, v in mean.items()},
           "per_sample": {m: stats(v) for m, v in per.items()},
           "filtered_run_ns": stats(filt), "method": " ".join(__doc__.split())}
    results["sections"][KEY] = sec
    on, off = sec["per_sample"]["on"], sec["per_sample"]["off"]
    # each round's ratios, the two walks against the same round's "off"
    sec["round_ratios"] = {m: [a / b if a and b else None for a, b in zip(per[m], per["off"])]
                           for m in MODES[:-1]} if len(set(len(v) for v in per.values())) == 1 \
        else {}
    sec["round_ratio_median"] = {m: stats([x for x in v if x]).get("median")
                                 for m, v in sec["round_ratios"].items() if any(v)}
    if on and off and on.get("median") and off.get("median"):
        ratio = on["median"] / off["median"]
        sec["ratio_to_off"] = {m: sec["per_sample"][m]["median"] / off["median"]
                               for m in MODES[:-1] if (sec["per_sample"][m] or {}).get("median")}
        target("p: Python frames <= 1.5x the native walk alone at %d (per sample)" % FRAMES,
               "%.2fx (%.0f vs %.0f ns)%s" % (
                   ratio, on["median"], off["median"],
                   "".join("; %s %.2fx" % (m, sec["ratio_to_off"][m]) for m in ("win1k", "leaf", "old")
                           if m in sec["ratio_to_off"])), "<= 1.5x", ratio <= 1.5)


def table(p):
    print("\np. Python frames at %d, fxs_sample ns (bpf_stats), 9999 Hz" % p["python_frames"])
    names = {m: "on, walk " + m for m in MODES}
    names.update(on="on", off="off")
    for m in MODES:
        s, a = p["per_sample"].get(m) or {}, p["mean"].get(m) or {}
        print("   --python=%-15s per sample %s   mean per run %s" % (
            names[m], "%.0f" % s["median"] if s.get("median") else "-",
            "%.0f" % a["median"] if a.get("median") else "-"))
