# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section p: record --python's BPF cost. fxs_sample's mean run time (bpf_stats)
on Debian's python3.11 spinning 16 Python frames deep (<module>, down x15),
with --python=on and off, the same program and walker (--unwind=fp). Its
figures are in the results file; the table does not print them.
"""
import os
import random
import subprocess

from .bpfstats import sample_prog_stats
from .common import FXS, PYTHON, ROUNDS, TMP, log, results, stats, target

LETTER, KEY = "p", "p_python"
# 16 Python frames deep: <module>, then down x15, spinning in the last
P_SCRIPT = """import sys, time
def down(n, end):
    if n:
        return down(n - 1, end)
    while time.perf_counter() < end:
        pass
down(int(sys.argv[1]) - 2, time.perf_counter() + float(sys.argv[2]))
"""


def measure():
    if not os.path.exists(PYTHON):
        log("bench: SKIP p: no %s" % PYTHON)
        return
    log("== p. Python frames: fxs_sample ns per run at 16 Python frames, on vs off")
    script = os.path.join(TMP, "deep.py")
    with open(script, "w") as f:
        f.write(P_SCRIPT)
    data = {"on": [], "off": []}
    for r in range(ROUNDS):
        for mode in random.sample(["on", "off"], 2):
            p = subprocess.Popen([FXS, "record", "-q", "-F", "9999", "--unwind=fp",
                                  "--python=" + mode, "-o", os.path.join(TMP, "py.fxt"), "--",
                                  PYTHON, script, "16", "2"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            last = sample_prog_stats(p)
            p.wait()
            data[mode].append(last[1] / last[0] if last and last[0] >= 100 else None)
        log("   round %d/%d done" % (r + 1, ROUNDS))
    sec = {"hz": 9999, "unit": "ns per run of fxs_sample", "python_frames": 16,
           "per_mode": {m: stats(v) for m, v in data.items()}}
    results["sections"][KEY] = sec
    on, off = sec["per_mode"]["on"], sec["per_mode"]["off"]
    if on and off and on.get("median") and off.get("median"):
        ratio = on["median"] / off["median"]
        target("p: Python frames <= 1.5x the native walk alone at 16", "%.2fx" % ratio,
               "<= 1.5x", ratio <= 1.5)
