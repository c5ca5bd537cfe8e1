#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What Perfetto's trace processor reads in `report --perfetto`'s copy of a
capture, against what fxsampler's own report and dump say of the capture.

    check.py samples  FXT PFT   every sample: count, thread, CPU and time as
                                dump has them; stacks as report --folded groups them
    check.py offcpu   FXT PFT   each thread's blocked time in thread_state within
                                2 % of report --off-cpu's
    check.py kernel   FXT PFT   kernel frames present, of type kernel, named as
                                report names them
    check.py host     FXT PFT   loads in under 10 s with every sample
    check.py dump     FILE...   dump reads every record: none skipped, no large record

FXS_BIN names fxsampler, TRACE_PROCESSOR trace_processor_shell. Exit 1 on a
failed check, with what differed."""
import collections
import csv
import io
import os
import re
import subprocess
import sys
import time

FXS = os.environ.get("FXS_BIN", "fxsampler")
TP = os.environ["TRACE_PROCESSOR"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()[-400:]))
    return p.stdout


def query(trace, sql):
    """Rows of one query as dicts (trace_processor_shell -Q prints CSV)."""
    out = run([TP, "-Q", sql, trace])
    return list(csv.DictReader(io.StringIO(out)))


def health(trace):
    """The load is whole: no error in the stats table."""
    rows = query(trace, "select name, idx, value from stats where severity in "
                 "('error', 'data_loss') and value > 0")
    if rows:
        fail("%s: Perfetto reports %s" % (trace, rows))


def dump_samples(fxt, offcpu=False):
    """(ns, tid, cpu) of each backtrace record dump prints, on-CPU or off-CPU ones."""
    tps = 10**9
    out = []
    for line in run([FXS, "dump", fxt]).splitlines():
        m = re.search(r"init ticks_per_second=(\d+)", line)
        if m:
            tps = int(m.group(1))
        m = re.search(r"backtrace ts=(\d+) pid=\d+ tid=(\d+) frames=\d+ flags=0x([0-9a-f]+)"
                      r"(?: cpu=(\d+))?", line)
        if not m or bool(int(m.group(3), 16) & 4) != offcpu:
            continue
        out.append((int(m.group(1)) * 10**9 // tps, int(m.group(2)),
                    int(m.group(4)) if m.group(4) else None))
    return out


def report_samples(fxt):
    m = re.search(r"^Samples: (\d+)", run([FXS, "report", fxt]), re.M)
    if not m:
        fail("report %s prints no sample count" % fxt)
    return int(m.group(1))


def perfetto_folded(trace):
    """Folded stacks from Perfetto's callstack tables, grouped as report groups
    them: process name; thread name; frames root first; kernel frames _[k]."""
    frames = {r["id"]: r for r in query(trace, "select id, name, type from stack_profile_frame")}
    sites = {r["id"]: r for r in query(
        trace, "select id, parent_id, frame_id from stack_profile_callsite")}
    samples = query(trace, "select ps.callsite_id as cs, t.tid as tid, t.name as tname, "
                    "p.pid as pid, p.name as pname from perf_sample ps join thread t using(utid) "
                    "left join process p using(upid)")
    clean = lambda s: re.sub(r"[\x00-\x1f\x7f]", "?", s.replace(";", ":"))
    folded = collections.Counter()
    for s in samples:
        chain = []
        cs = s["cs"]
        while cs not in ("", "[NULL]", None):
            f = frames[sites[cs]["frame_id"]]
            chain.append(clean(f["name"]) + ("_[k]" if f["type"] == "kernel" else ""))
            cs = sites[cs]["parent_id"]
        pname = s["pname"] if s["pname"] not in ("", "[NULL]") else "[pid %s]" % s["pid"]
        tname = s["tname"] if s["tname"] not in ("", "[NULL]") else "[tid %s]" % s["tid"]
        folded[";".join([clean(pname), clean(tname)] + chain[::-1])] += 1
    return folded


def report_folded(fxt):
    folded = collections.Counter()
    for line in run([FXS, "report", "--folded", fxt]).splitlines():
        stack, _, n = line.rpartition(" ")
        folded[stack] += int(n)
    return folded


def top(folded, n=10):
    return sorted(folded.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def check_samples(fxt, pft):
    health(pft)
    want = sorted(dump_samples(fxt))
    nreport = report_samples(fxt)
    got = [(int(r["ts"]), int(r["tid"]), None if r["cpu"] in ("", "[NULL]") else int(r["cpu"]))
           for r in query(pft, "select ps.ts as ts, t.tid as tid, ps.cpu as cpu "
                          "from perf_sample ps join thread t using(utid) order by ts, tid")]
    print("  samples: Perfetto %d, report %d, dump %d" % (len(got), nreport, len(want)))
    if not (len(got) == nreport == len(want)):
        fail("sample counts differ")
    if any(c is None for _, _, c in want):
        fail("a backtrace of %s has no CPU" % fxt)
    if sorted(got) != want:
        diff = [(a, b) for a, b in zip(sorted(got), want) if a != b][:3]
        fail("samples differ (Perfetto, dump): %s" % diff)
    print("  every sample's time, thread and CPU equal dump's")
    pf, rf = perfetto_folded(pft), report_folded(fxt)
    if top(pf) != top(rf):
        fail("top 10 stacks differ:\n  Perfetto %s\n  report   %s" % (top(pf), top(rf)))
    print("  top 10 stacks equal report --folded's; first: %d %s" % (top(rf)[0][1],
                                                                      top(rf)[0][0]))
    if pf != rf:
        extra = set(pf.items()) ^ set(rf.items())
        fail("folded stacks differ beyond the top 10: %s" % sorted(extra)[:4])
    print("  all %d folded stacks equal" % len(rf))
    # a user frame's module is its mapping; DWARF's lines are its symbol
    rows = query(pft, "select f.name as name, f.type as type, m.name as module, "
                 "s.source_file as file from stack_profile_frame f join stack_profile_mapping m "
                 "on f.mapping = m.id left join stack_profile_symbol s using(symbol_set_id)")
    native = [r for r in rows if r["type"] == "native"]
    if not native or any(not r["module"].startswith("/") for r in native):
        fail("native frames without their module: %s" %
             [r for r in native if not r["module"].startswith("/")][:3])
    lines = sum(1 for r in native if r["file"] not in ("", "[NULL]"))
    print("  %d native frames, each in its module's mapping, %d with a source line" %
          (len(native), lines))
    if not lines:
        fail("no frame has a source line")


def check_offcpu(fxt, pft):
    health(pft)
    text = run([FXS, "report", "--off-cpu", fxt])
    report = {}
    for line in text.split("Thread states", 1)[-1].splitlines():
        f = line.split()
        if len(f) >= 9 and f[1].isdigit() and f[0].isdigit():
            # sleeping + uninterruptible + other: the time blocked, in ms
            report[int(f[1])] = (float(f[4]) + float(f[5]) + float(f[6]), " ".join(f[8:]))
    if len(report) < 4:
        fail("report --off-cpu shows %d threads' states" % len(report))
    rows = query(pft, "select t.tid as tid, sum(ts.dur) as dur from thread_state ts "
                 "join thread t using(utid) where ts.state not in ('Running', 'R', 'R+') "
                 "group by t.tid")
    perfetto = {int(r["tid"]): int(r["dur"]) / 1e6 for r in rows}
    blocked = 0
    for tid, (ms, name) in sorted(report.items()):
        got = perfetto.get(tid, 0.0)
        print("  %-20s report %9.1f ms blocked, Perfetto thread_state %9.1f ms" % (name, ms, got))
        if abs(got - ms) > max(0.02 * ms, 0.2):
            fail("%s: blocked %.1f ms in Perfetto, %.1f ms in report" % (name, got, ms))
        blocked += ms > 1000
    if blocked < 3:
        fail("fewer than 3 threads blocked over a second (sleep, pipe, mutex)")
    # an off-CPU stack sits at its interval's start, on its thread
    n = int(query(pft, "select count(*) as n from perf_sample")[0]["n"])
    want = len(dump_samples(fxt, offcpu=True))
    print("  off-CPU stacks as samples at their intervals' starts: Perfetto %d, dump %d"
          % (n, want))
    if n != want:
        fail("off-CPU stacks: %d in Perfetto, %d backtraces" % (n, want))


def check_kernel(fxt, pft):
    check_samples(fxt, pft)
    rows = query(pft, "select name, type from stack_profile_frame")
    kernel = {r["name"] for r in rows if r["type"] == "kernel"}
    names = set()
    for stack in report_folded(fxt):
        names |= {f[:-4] for f in stack.split(";") if f.endswith("_[k]")}
    print("  kernel frames: %d names in Perfetto (type kernel), %d in report" %
          (len(kernel), len(names)))
    if not names:
        fail("report shows no kernel frame")
    if kernel != names:
        fail("kernel frames differ: %s" % sorted(kernel ^ names)[:5])


def check_host(fxt, pft):
    t0 = time.monotonic()
    n = int(query(pft, "select count(*) as n from perf_sample")[0]["n"])
    took = time.monotonic() - t0
    health(pft)
    want = report_samples(fxt)
    print("  whole host: %d samples loaded in %.2f s (report: %d), %d bytes" %
          (n, took, want, os.path.getsize(pft)))
    if n != want:
        fail("Perfetto has %d samples, report %d" % (n, want))
    if took >= 10:
        fail("Perfetto took %.1f s to load" % took)


def check_dump(paths):
    for path in paths:
        out = run([FXS, "dump", path]).splitlines()
        bad = [l for l in out if "(skipped)" in l or " large " in l]
        if bad:
            fail("%s: dump reads %s" % (path, bad[:3]))
        kinds = collections.Counter(l.split()[1] for l in out if len(l.split()) > 1)
        pf = sum(1 for l in out if 'name="perfetto" type=3' in l)
        print("  %s: %d records, none unknown or malformed%s" %
              (os.path.basename(path), len(out),
               ", %d Perfetto blob records" % pf if pf else ""))


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    what = sys.argv[1]
    if what == "dump":
        check_dump(sys.argv[2:])
    else:
        {"samples": check_samples, "offcpu": check_offcpu, "kernel": check_kernel,
         "host": check_host}[what](sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
