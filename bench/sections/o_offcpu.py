# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section o: off-CPU. A context-switch-heavy target (bench/progs/pingpong: two
processes on one CPU passing a byte over pipes) unprofiled and under
fxsampler record --off-cpu, its variants, and libbpf-tools' offcputime: the
target's slowdown and the switch programs' cost per run (bpf_stats).
fxsampler-before is --off-cpu without the walk again of the stacks that lacked
their CFI tables (FXS_BENCH_OFFCPU_REWALK=off): what that hook on rseq_update,
run on every return to user space after a switch, costs. And beside it what a
hook on every syscall's exit would cost each syscall instead (getppid() in a
loop, bench/progs/syscalls): unprofiled, under an empty tp_btf/sys_exit
program (bench/fxsbench sysexit: the least such a hook costs), and under
record --off-cpu of another process (the switch program and the rseq_update
hook host-wide).
"""
import os
import random
import re
import signal
import subprocess
import time

from .bpfstats import prog_ns_per_run
from .common import (FXS, LOADER, OUT, ROUNDS, TMP, fmt, have, log, results, stats, sysctl,
                     target)

LETTER, KEY = "o", "o_offcpu"
PINGPONG = os.path.join(OUT, "pingpong")
PINGPONG_SECONDS = float(os.environ.get("FXS_BENCH_PINGPONG_SECONDS", "1"))
SYSCALLS = os.path.join(OUT, "syscalls")
SYSCALL_ITERS = 500000
S_KINDS = ["none", "sys_exit hook", "fxsampler"]
O_KINDS = ["fxsampler", "fxsampler-before", "fxsampler-min0", "offcputime", "sampler-only",
           "non-target"]


def pingpong_once(kind, iters):
    """One ping-pong of iters round trips with kind attached to the parent's
    pid before it starts; its wall time in ns (None on failure)."""
    out = os.path.join(TMP, "o." + kind)
    if os.path.exists(out):
        os.unlink(out)
    pp = subprocess.Popen([PINGPONG, str(iters)], stdout=subprocess.PIPE)
    pp.stdout.readline()  # "ready": forked, SIGUSR1 blocked
    other = None
    prof = None
    pid = str(pp.pid)
    env = None
    if kind in ("fxsampler", "fxsampler-before"):
        prof = [FXS, "record", "-q", "--off-cpu", "--no-inherit", "-p", pid, "-o", out]
        if kind == "fxsampler-before":
            env = dict(os.environ, FXS_BENCH_OFFCPU_REWALK="off")
    elif kind == "fxsampler-min0":
        prof = [FXS, "record", "-q", "--off-cpu=0", "--no-inherit", "-p", pid, "-o", out]
    elif kind == "sampler-only":
        prof = [FXS, "record", "-q", "--no-inherit", "-p", pid, "-o", out]
    elif kind == "non-target":
        other = subprocess.Popen(["sleep", "600"])
        prof = [FXS, "record", "-q", "--off-cpu=0", "-p", str(other.pid), "-o", out]
    elif kind == "offcputime":
        prof = ["offcputime", "-p", pid]
    p = None
    if prof:
        p = subprocess.Popen(prof, stdout=open(out + ".out", "w"), stderr=subprocess.PIPE,
                             env=env)
        # Both attach well within this (fxsampler ~0.1 s; offcputime loads at once).
        time.sleep(1.5)
    os.kill(pp.pid, signal.SIGUSR1)
    o, _ = pp.communicate()
    # The switch programs' cost per run, over every switch on the host they saw.
    cost = None
    if kind == "offcputime":
        cost = prog_ns_per_run("sched_switch")
    elif kind in ("fxsampler", "fxsampler-before", "fxsampler-min0", "non-target"):
        cost = prog_ns_per_run("fxs_offcpu")
    # the walk again's hook (bpf/offcpu_rewalk.bpf.h), on every return after a switch
    resume = prog_ns_per_run("fxs_off_resume") if kind == "fxsampler" else None
    err = ""
    if p:
        if kind in ("offcputime", "non-target") or p.poll() is None:
            time.sleep(0.1)
            p.send_signal(signal.SIGINT)
        _, err = p.communicate()
        err = err.decode(errors="replace")
    if other:
        other.kill()
        other.wait()
    try:
        ns = int(o.decode().strip())
    except ValueError:
        log("   %s: no result: %s" % (kind, err.strip()[-300:]))
        return None, None
    extra = {"prog_cost": cost} if cost else {}
    if resume:
        extra["resume_cost"] = resume
    if kind == "offcputime":
        text = open(out + ".out").read()
        extra["stacks_with_pingpong"] = text.count("pingpong")
    elif kind.startswith("fxsampler"):
        m = re.search(r"off-cpu: (\d+) intervals written .*?, (\d+) shorter", err)
        extra["intervals_written"] = int(m.group(1)) if m else None
        extra["intervals_short"] = int(m.group(2)) if m else None
    return ns, extra or None


def syscall_once(kind):
    """ns per getppid() with kind attached (None on failure)."""
    cmd = [SYSCALLS, str(SYSCALL_ITERS)]
    prof = other = None
    if kind == "sys_exit hook":
        cmd = [LOADER, "sysexit", "--"] + cmd
    elif kind == "fxsampler":
        other = subprocess.Popen(["sleep", "600"])
        prof = subprocess.Popen([FXS, "record", "-q", "--off-cpu", "-p", str(other.pid), "-o",
                                 os.path.join(TMP, "o.sys.fxt")], stderr=subprocess.PIPE)
        time.sleep(1.5)
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    if prof:
        prof.send_signal(signal.SIGINT)
        prof.communicate()
        other.kill()
        other.wait()
    try:
        # fxsbench prints its JSON line after the target's
        return float(out.decode().split()[0])
    except (ValueError, IndexError):
        log("   syscalls under %s: no result" % kind)
        return None


def measure_syscalls():
    runs = {}
    for r in range(ROUNDS):
        jobs = list(S_KINDS)
        random.shuffle(jobs)
        for kind in jobs:
            runs.setdefault(kind, []).append(syscall_once(kind))
    return {k: stats(v) for k, v in runs.items()}


def measure():
    if not have("offcputime"):
        log("== o. SKIP: offcputime (Debian libbpf-tools) is not installed; NOT RUN")
        results["sections"][KEY] = {"status": "offcputime missing: NOT RUN"}
        return
    ns, _ = pingpong_once("none", 20000)
    iters = max(1000, int(20000 * PINGPONG_SECONDS * 1e9 / ns)) if ns else 100000
    log("== o. off-CPU cost: ping-pong of %d round trips (~%.1f s unprofiled)" %
        (iters, PINGPONG_SECONDS))
    runs = {}
    extras = {}
    old_stats = sysctl("kernel.bpf_stats_enabled", 1)
    for r in range(ROUNDS):
        jobs = ["none"] * 2 + O_KINDS
        random.shuffle(jobs)
        for kind in jobs:
            ns, extra = pingpong_once(kind, iters)
            runs.setdefault(kind, []).append(ns)
            if extra:
                extras.setdefault(kind, []).append(extra)
        log("   round %d/%d done" % (r + 1, ROUNDS))
    sysctl("kernel.bpf_stats_enabled", old_stats)
    base = stats(runs["none"])
    if not base:
        results["sections"][KEY] = {"status": "the unprofiled ping-pong failed"}
        return
    sec = {"iters": iters, "unprofiled_ns": base, "slowdown_pct": {}, "extra": extras,
           # both on one CPU: a round trip is two switches
           "switches_per_s": iters * 2 / (base["median"] / 1e9)}
    sec["switch_prog_ns"] = {}
    for kind in O_KINDS:
        sec["slowdown_pct"][kind] = stats(
            [(x / base["median"] - 1) * 100 if x else None for x in runs[kind]])
        costs = [e["prog_cost"]["ns_per_run"] for e in extras.get(kind, [])
                 if e.get("prog_cost")]
        if costs:
            sec["switch_prog_ns"][kind] = stats(costs)
    resume = [e["resume_cost"]["ns_per_run"] for e in extras.get("fxsampler", [])
              if e.get("resume_cost")]
    if resume:
        sec["resume_prog_ns"] = stats(resume)
    log("   syscalls: getppid() x %d, unprofiled, under a sys_exit hook, under --off-cpu"
        % SYSCALL_ITERS)
    sec["syscall_ns"] = measure_syscalls()
    results["sections"][KEY] = sec
    sd = sec["slowdown_pct"]
    if sd.get("fxsampler") and sd.get("offcputime"):
        f, b = sd["fxsampler"]["median"], sd["offcputime"]["median"]
        target("o: target slowdown <= offcputime's (ping-pong)", "%.1f%% vs %.1f%%" % (f, b),
               "<= offcputime", f <= b)
    if sd.get("non-target") and base:
        n = sd["non-target"]["median"]
        noise = (base["max"] - base["min"]) / base["median"] * 100
        cost = sec["switch_prog_ns"].get("non-target")
        figure = "%.1f%% (unprofiled runs spread %.1f%%; filter %s ns per switch)" % (
            n, noise, "%.0f" % cost["median"] if cost else "?")
        # A spread this wide hides any effect: say so rather than call it met.
        target("o: non-target slowdown within noise of the unprofiled runs", figure,
               "within noise", abs(n) <= noise / 2 if noise <= 20 else None,
               "" if noise <= 20 else "the unprofiled runs vary too much here to tell")


def table(o):
    if "status" in o:
        print("\no. off-CPU: %s" % o["status"])
        return
    print("\no. off-CPU, ping-pong over pipes (%d round trips, %s ms unprofiled, ~%.0f "
          "context switches/s): slowdown %%" % (o["iters"], fmt(o["unprofiled_ns"],
                                                            scale=1e-6),
                                              o["switches_per_s"] or 0))
    print("   %-16s%-26s%s" % ("", "slowdown", "switch program, ns per run"))
    for k in O_KINDS:
        print("   %-16s%-26s%s" % (k, fmt(o["slowdown_pct"].get(k), "%", digits=1),
                                   fmt(o.get("switch_prog_ns", {}).get(k))))
    if o.get("syscall_ns"):
        print("   a getppid() system call, ns: %s" % "; ".join(
            "%s %s" % (k, fmt(o["syscall_ns"].get(k))) for k in S_KINDS))
    if o.get("resume_prog_ns"):
        print("   fxsampler's hook on rseq_update (the walk again of stacks that lacked "
              "their tables): %s ns per run" % fmt(o["resume_prog_ns"]))
    print("   fxsampler = record --off-cpu -p (default 999 Hz sampler too); -before = the "
          "same without that hook; -min0 = "
          "--off-cpu=0 (every interval written); sampler-only = no --off-cpu; "
          "non-target = --off-cpu=0 -p of another process; offcputime = libbpf-tools "
          "offcputime -p")
