#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
fxsampler's bench (issue 5): runs every measurement in rounds, peers
interleaved with ours in a shuffled order each round, and prints a table with
median [min..max] and the issue's targets marked MET/MISSED; writes
bench/results.json. Needs root. Built by `make -C bench build` (the Makefile
runs this after building). `run.py --table FILE` prints the table of a
results file again.

Each section is a module of bench/sections/, named by its letter and the key
of its figures in the results file:
  a  a_bpf_cost          BPF cost per sample, per walker (bench/fxsbench)
  b  b_slowdown          the target's slowdown beside perf, bpftrace, the floor
  c  c_profiler_cpu      the profiler's own CPU per sample
  d  d_loss              samples dropped at 10 kHz on every CPU
  e  e_bytes_per_sample  .fxt, .fxt.gz and perf.data bytes per sample
  f  f_first_sample      record's start to its first sample
  g  g_report            report throughput on 1,000,000 samples
  h  h_rss               record's peak RSS
  i  i_report_maps       report against mapping records
  j  j_perfmap           perf maps read at a capture's end (bench/perfmapgen)
  k  k_kernel_stacks     record --kernel's BPF cost
  m  m_mmap_events       mapping events against /proc reads on a build
  n  n_demangle          report's cost of demangling
  o  o_offcpu            off-CPU beside offcputime
  p  p_python            record --python's BPF cost
  r  r_report_scale      report at scale (bench/report_scale.py)
  s  s_http              the HTTP endpoint's cost to fxsamplerd
  t  t_cfi_tables        CFI unwind tables' bytes and time (bench/cfigen)
  u  u_cfi_cost          the CFI walker against the frame-pointer walker
  v  v_cfi_peers         whole stacks by CFI beside perf dwarf and perf -g

Environment:
  FXS_BENCH_ROUNDS        rounds per measurement (default 5)
  FXS_BENCH_RSS_SECONDS   length of the peak-RSS capture (default 60)
  FXS_BENCH_WORK_SECONDS  unprofiled runtime of the slowdown target (default 1.5)
  FXS_BENCH_ONLY          comma-separated letters of the sections to run (default: all)
  FXS_BENCH_R_MAX         largest generated capture of section r (default 1000000;
                          report_scale.py)
  FXS_BENCH_V_SECONDS     unprofiled runtime of section v's python3.11 loop (default 1)
  FXS_BENCH_HTTP_SECONDS  length of each continuous capture of section s (default 60)
  FXS_BENCH_PINGPONG_SECONDS  unprofiled runtime of the ping-pong (o; default 1)
  (m: mapping events against /proc reads, record --no-mmap-events, on make -j2
  of the C project bench/progs/minibuild/gen.py writes, with -p and -a; at most
  4 rounds, about 2 minutes)
  (n: report's cost of demangling, --top of a clang++ -O2 -c capture with and
  without --no-demangle, ROUNDS rounds in a shuffled order)
  FXS_BENCH_OUT           results file (default bench/results.json)
"""
import json
import os
import random
import shutil
import sys
import time

from sections import (a_bpf_cost, b_slowdown, c_profiler_cpu, d_loss, e_bytes_per_sample,
                      f_first_sample, g_report, h_rss, i_report_maps, j_perfmap, k_kernel_stacks,
                      m_mmap_events, n_demangle, o_offcpu, p_python, r_report_scale, s_http,
                      t_cfi_tables, u_cfi_cost, v_cfi_peers)
from sections.common import (CHAIN, FXS, LOADER, RESULTS, ROUNDS, TMP, find_peers, machine,
                             results, sysctl, want)

# The order the sections run in; b, c and e take the work that calibrate
# measures before d.
RUN_ORDER = [a_bpf_cost, u_cfi_cost, v_cfi_peers, d_loss, b_slowdown, c_profiler_cpu,
             e_bytes_per_sample, f_first_sample, h_rss, i_report_maps, g_report, r_report_scale,
             n_demangle, o_offcpu, k_kernel_stacks, p_python, t_cfi_tables, j_perfmap, s_http,
             m_mmap_events]
TAKE_WORK = (b_slowdown, c_profiler_cpu, e_bytes_per_sample)
# The order the table prints them in (i has no rows: its figures are in the
# results file, its targets below the table).
TABLE_ORDER = [a_bpf_cost, u_cfi_cost, v_cfi_peers, b_slowdown, c_profiler_cpu, d_loss,
               e_bytes_per_sample, f_first_sample, g_report, r_report_scale, n_demangle, h_rss,
               k_kernel_stacks, s_http, o_offcpu, j_perfmap, p_python, t_cfi_tables,
               m_mmap_events]


def table():
    s = results["sections"]
    print()
    print("fxsampler bench: %s, %s CPUs, %s; rounds=%s; median [min..max]" % (
        results["machine"].get("kernel"), results["machine"].get("cpus"),
        results["machine"].get("cpu_model", "?"), results["method"].get("rounds")))
    for section in TABLE_ORDER:
        if section.KEY in s:
            section.table(s[section.KEY])
    print("\nTargets (issue 5):")
    for t in results["targets"]:
        print("   %-8s %-58s %s (goal %s)%s" % (t["status"], t["target"], t["figure"], t["goal"],
                                                 "  -- " + t["note"] if t["note"] else ""))


def measure():
    iters = 0
    if any(want(section.LETTER) for section in TAKE_WORK):
        iters = None
    for section in RUN_ORDER:
        if iters is None and section is d_loss:
            iters = b_slowdown.calibrate()
        if not want(section.LETTER):
            continue
        if section in TAKE_WORK:
            section.measure(iters)
        else:
            section.measure()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        results.update(json.load(open(sys.argv[2])))
        table()
        return 0
    if os.geteuid() != 0:
        print("bench: needs root (BPF, perf events); NOT RUN", file=sys.stderr)
        return 1
    for f in (FXS, LOADER, CHAIN):
        if not os.path.exists(f):
            print("bench: %s missing: run make -C bench build" % f, file=sys.stderr)
            return 1
    random.seed()
    machine()
    results["method"] = {"rounds": ROUNDS, "note": "each round runs every condition once in a "
                         "shuffled order; figures are median [min..max] over rounds"}
    find_peers()
    old_rate = sysctl("kernel.perf_event_max_sample_rate", 100000)
    t0 = time.monotonic()
    try:
        measure()
    finally:
        sysctl("kernel.perf_event_max_sample_rate", old_rate)
        results["machine"]["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
        results["method"]["total_seconds"] = round(time.monotonic() - t0, 1)
        with open(RESULTS, "w") as f:
            json.dump(results, f, indent=1)
        shutil.rmtree(TMP, ignore_errors=True)
    table()
    print("\nwrote %s in %.0f s" % (os.path.relpath(RESULTS), results["method"]["total_seconds"]))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("bench: interrupted; bench/results.json holds what was measured", file=sys.stderr)
        sys.exit(130)
    except Exception as e:  # one line, never a traceback (issue 25)
        print("bench: failed: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
