# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section f: time to first sample. From starting fxsampler record to the first
sample in its file, with a command (-- CMD: bench/progs/chain 8) and with -p
of a running chain.
"""
import os
import subprocess
import time

from . import common
from .common import (CHAIN, FXS, ROUNDS, TMP, first_backtrace_ts, fmt, log, results, run, stats,
                     target)

LETTER, KEY = "f", "f_first_sample"


def measure():
    log("== f. time from starting record to the first sample written")
    cmd_mode, pid_mode, target_start = [], [], []
    for r in range(ROUNDS):
        out = os.path.join(TMP, "first.fxt")
        mark = os.path.join(TMP, "mark")
        env = dict(os.environ, FXS_BENCH_MARK=mark)
        run([FXS, "record", "-q", "-F", "999", "-o", out, "--", CHAIN, "8", "0.3"], env=env)
        t0 = common.last_start_boot_ns
        ts = first_backtrace_ts(out)
        cmd_mode.append((ts - t0) / 1e6 if ts else None)
        try:
            target_start.append((int(open(mark).read()) - t0) / 1e6)
        except (OSError, ValueError):
            pass
        # -p: the target already runs.
        busy = subprocess.Popen([CHAIN, "8", "3"])
        time.sleep(0.2)
        run([FXS, "record", "-q", "-F", "999", "-d", "300ms", "-p", str(busy.pid), "-o", out])
        t0 = common.last_start_boot_ns
        busy.kill()
        busy.wait()
        ts = first_backtrace_ts(out)
        pid_mode.append((ts - t0) / 1e6 if ts else None)
    sec = {"unit": "ms", "record_cmd": stats(cmd_mode), "record_pid": stats(pid_mode),
           "cmd_target_started": stats(target_start)}
    results["sections"][KEY] = sec
    worst = max(x["median"] for x in (sec["record_cmd"], sec["record_pid"]) if x)
    target("f: first sample < 100 ms after record starts", "%.1f ms" % worst, "< 100 ms",
           worst < 100)


def table(f):
    print("\nf. record start -> first sample, ms: -- CMD %s (target started at %s); -p PID %s" % (
        fmt(f["record_cmd"], digits=1), fmt(f["cmd_target_started"], digits=1),
        fmt(f["record_pid"], digits=1)))
