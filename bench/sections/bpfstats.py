# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
The run time of the loaded BPF programs as bpf_stats counts it (bpftool prog
show): fxs_sample's while a record runs (sections a, p, u), the switch
programs' after a run (section o). The callers turn kernel.bpf_stats_enabled on.
"""
import json
import os
import subprocess
import time

from .common import CHAIN, FXS, TMP, chain_env, fxs_summary


def bpftool_progs():
    """The loaded programs, as bpftool -j prog show lists them, or None."""
    r = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True)
    try:
        return json.loads(r.stdout or "[]")
    except ValueError:
        return None


def sample_prog_stats(p):
    """While record p runs, fxs_sample's (run_cnt, run_time_ns) as bpftool last
    showed them (bpf_stats), or None: the program goes with record's exit."""
    last = None
    while p.poll() is None:
        time.sleep(0.2)
        for prog in bpftool_progs() or []:
            if prog.get("name") == "fxs_sample" and prog.get("run_cnt"):
                if last is None or prog["run_cnt"] >= last[0]:
                    last = (prog["run_cnt"], prog["run_time_ns"])
    return last


def record_prog_cost(argv, env=None):
    """Run record (argv); read fxs_sample's stats through bpftool while it runs.
    Returns (run_time_ns / run_cnt, run_cnt, run_time_ns, samples written), or
    None for a run of under 100 firings."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    last = sample_prog_stats(p)
    _, err = p.communicate()
    if not last or last[0] < 100:
        return None
    # Per-CPU events: idle CPU firings are filtered early and lower the mean.
    written = fxs_summary(err.decode(errors="replace")).get("samples")
    return last[1] / last[0], last[0], last[1], written


def cli_prog_cost(depth, args=()):
    """record_prog_cost() of fxsampler record on a chain of depth frames."""
    res = os.path.join(TMP, "cli.res")
    return record_prog_cost([FXS, "record", "-q", "-F", "9999", *args, "-o",
                             os.path.join(TMP, "cli.fxt"), "--", CHAIN, str(depth), "2"],
                            chain_env(res))


def filtered_run_cost():
    """fxs_sample's mean run time when every firing is filtered (record -p of a
    sleeping process): what each firing on another process costs."""
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        p = subprocess.Popen([FXS, "record", "-q", "-F", "9999", "-p", str(sleeper.pid),
                              "-d", "2s", "-o", os.path.join(TMP, "filt.fxt")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        last = sample_prog_stats(p)
        p.wait()
    finally:
        sleeper.kill()
        sleeper.wait()
    return last[1] / last[0] if last and last[0] >= 100 else None


def prog_ns_per_run(name):
    """bpf_stats of the loaded programs called name: (runs, ns per run)."""
    progs = bpftool_progs()
    if progs is None:
        return None
    runs = sum(p.get("run_cnt", 0) for p in progs if p.get("name") == name)
    ns = sum(p.get("run_time_ns", 0) for p in progs if p.get("name") == name)
    return {"runs": runs, "ns_per_run": ns / runs} if runs else None
