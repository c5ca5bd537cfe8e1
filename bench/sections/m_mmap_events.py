# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section m: mapping events, their cost on an exec-heavy build against /proc
reads (record --no-mmap-events). A from-scratch make -j2 of minibuild, a C
project of 31 files that bench/progs/minibuild/gen.py writes at build time,
unprofiled and under record -p (the build's shell) and -a, with events and
with /proc reads: the [unknown] share of the build's samples, record's CPU,
the build's wall time. At most 4 rounds, about 2 minutes.
"""
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time

from .common import (FXS, OUT, ROUNDS, TMP, fmt, fxs_summary, fxt_counter, log, results, run,
                     stats, target)

LETTER, KEY = "m", "m_mmap_events"
MINIBUILD = os.path.join(OUT, "minibuild")  # progs/minibuild/gen.py writes it (make -C bench build)
M_KINDS = ["unprofiled", "events -p", "/proc -p", "events -a", "/proc -a"]
# The build's own processes: the [unknown] share is theirs (-a samples the host too).
M_BUILD_COMMS = {"sh", "make", "cc", "gcc", "cc1", "as", "collect2", "ld", "ld.bfd"}


def m_unknown_share(fxt):
    """Leaf frames in no mapping over the build's samples (report --perf-script)."""
    ps = fxt + ".ps"
    rc, _, _, _, _ = run([FXS, "report", "--perf-script", ps, fxt])
    if rc != 0:
        return None
    n = u = 0
    leaf = False
    for line in open(ps, errors="replace"):
        if line.startswith("\t"):
            if leaf and line.rstrip().endswith("([unknown])"):
                u += 1
            leaf = False
        elif line.strip():
            leaf = line.split()[0] in M_BUILD_COMMS
            n += leaf
    os.unlink(ps)
    return 100.0 * u / n if n else None


def m_wait_ready(d, p):
    """record's output exists (its prologue is written once the sampler is set up)."""
    for _ in range(200):
        if p.poll() is not None:
            return False
        if any(os.path.getsize(os.path.join(d, f)) > 0 for f in os.listdir(d)):
            time.sleep(0.2)
            return True
        time.sleep(0.05)
    return False


def m_build_once(kind):
    """One from-scratch make -j2 of MINIBUILD under kind: a dict of figures, or None."""
    d = tempfile.mkdtemp(dir=TMP)
    src = os.path.join(d, "src")
    shutil.copytree(MINIBUILD, src)
    rec_dir = os.path.join(d, "rec")
    os.mkdir(rec_dir)
    fxt = os.path.join(rec_dir, "m.fxt")
    args = ["--no-mmap-events"] if kind.startswith("/proc") else []
    # the build waits on its stdin until record is sampling (-p: the shell is the target)
    build = subprocess.Popen(["sh", "-c", "read go && exec make -s -j2"], cwd=src,
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    rec = None
    try:
        if kind != "unprofiled":
            target_args = ["-a"] if kind.endswith("-a") else ["-p", str(build.pid)]
            rec = subprocess.Popen([FXS, "record", "-q", *args, *target_args, "-o", fxt],
                                   stderr=subprocess.PIPE)
            if not m_wait_ready(rec_dir, rec):
                log("   %s: record did not start: %s" % (kind, rec.stderr.read().decode(
                    errors="replace").strip()[-300:]))
                return None
        t0 = time.monotonic()
        build.stdin.write(b"go\n")
        build.stdin.close()
        _, status, _ = os.wait4(build.pid, 0)
        wall = time.monotonic() - t0
        build.returncode = os.waitstatus_to_exitcode(status)
        if build.returncode != 0 or not os.path.exists(os.path.join(src, "minibuild")):
            log("   %s: the build failed (%d)" % (kind, build.returncode))
            return None
        out = {"wall_s": wall}
        if rec is None:
            return out
        if kind.endswith("-a"):
            rec.send_signal(signal.SIGINT)
        err = rec.stderr.read().decode(errors="replace")
        _, status, ru = os.wait4(rec.pid, 0)
        rec.returncode = os.waitstatus_to_exitcode(status)
        if rec.returncode != 0:
            log("   %s: record failed: %s" % (kind, err.strip()[-300:]))
            return None
        mc = fxt_counter(fxt, "mmap")
        uw = fxt_counter(fxt, "unwind")
        # fp_fallback and by_file count walks also counted by how they ended
        walks = sum(v for k, v in uw.items() if k not in ("fp_fallback", "by_file"))
        out.update({"record_cpu_s": ru.ru_utime + ru.ru_stime,
                    "samples": fxs_summary(err).get("samples"),
                    "unknown_pct": m_unknown_share(fxt),
                    # stacks walked on by frame pointers: a new image's first ms, before its ranges
                    "fp_fallback_pct": 100.0 * uw.get("fp_fallback", 0) / walks if walks else None,
                    "sideband_read": mc.get("seen", 0), "sideband_filtered": mc.get("filtered", 0),
                    "sideband_kept": mc.get("written", 0),
                    "records_from_events": mc.get("records_from_events", 0),
                    "records_from_proc": mc.get("records_from_proc", 0),
                    # what could leave samples [unknown] besides late mappings
                    "samples_ring_full": fxs_summary(err).get("ring_full"),
                    "mmap_ring_full": mc.get("dropped_ring_full", 0),
                    "forks_ring_full": mc.get("forks_dropped_ring_full", 0)})
        return out
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
        if rec is not None and rec.poll() is None:
            rec.kill()
            rec.wait()
        shutil.rmtree(d, ignore_errors=True)


def measure():
    rounds = min(ROUNDS, 4)
    log("== m. mapping events vs /proc reads: make -j2 of a %d-file C project (bench/progs/"
        "minibuild), %d rounds" % (len([f for f in os.listdir(MINIBUILD) if f.endswith(".c")]),
                                   rounds))
    runs = {k: [] for k in M_KINDS}
    for r in range(rounds):
        order = M_KINDS[:]
        random.shuffle(order)
        for k in order:
            runs[k].append(m_build_once(k))
        log("   round %d/%d done" % (r + 1, rounds))
    sec = {"rounds": rounds, "kinds": {}, "ratios": {}}
    fields = ["wall_s", "record_cpu_s", "samples", "unknown_pct", "fp_fallback_pct", "sideband_read",
              "sideband_filtered", "sideband_kept", "records_from_events", "records_from_proc",
              "samples_ring_full", "mmap_ring_full", "forks_ring_full"]
    for k in M_KINDS:
        sec["kinds"][k] = {f: stats([x.get(f) if x else None for x in runs[k]]) for f in fields}
    base = runs["unprofiled"]
    for k in M_KINDS[1:]:
        sec["ratios"]["wall " + k] = stats([x["wall_s"] / b["wall_s"] for x, b in
                                            zip(runs[k], base) if x and b])
    for mode in ("-p", "-a"):
        ev, pr = runs["events " + mode], runs["/proc " + mode]
        sec["ratios"]["record cpu events/proc " + mode] = stats(
            [e["record_cpu_s"] / p["record_cpu_s"] for e, p in zip(ev, pr)
             if e and p and p["record_cpu_s"]])
        sec["ratios"]["wall events/proc " + mode] = stats(
            [e["wall_s"] / p["wall_s"] for e, p in zip(ev, pr) if e and p])
    results["sections"][KEY] = sec
    for mode in ("-p", "-a"):
        u = sec["kinds"]["events " + mode]["unknown_pct"]
        target("m: [unknown] <= 1 %% of the build's samples, events %s" % mode,
               "%.2f %%" % u["median"] if u else "n/a", "<= 1 %", u["median"] <= 1 if u else None)


def table(m):
    print("\nm. mapping events against /proc reads (record --no-mmap-events): make -j2 of "
          "bench/progs/minibuild from scratch, %d rounds (default 999 Hz; -p: the build's shell "
          "and what it runs; -a: the whole host)" % m["rounds"])
    print("   %-11s%-22s%-22s%-16s%-16s%-22s%-20s%s" % ("", "build wall s", "record CPU s",
                                                       "[unknown] %", "by fp %",
                                                       "side-band read", "filtered",
                                                       "mmap written ev/proc"))
    for k in M_KINDS:
        row = m["kinds"][k]
        ev, pr = row["records_from_events"], row["records_from_proc"]
        print("   %-11s%-22s%-22s%-16s%-16s%-22s%-20s%s" % (
            k, fmt(row["wall_s"], digits=2), fmt(row["record_cpu_s"], digits=3),
            fmt(row["unknown_pct"], digits=1).split(" ")[0],
            fmt(row.get("fp_fallback_pct"), digits=1).split(" ")[0], fmt(row["sideband_read"]),
            fmt(row["sideband_filtered"]).split(" ")[0],
            "%s/%s" % (fmt(ev).split(" ")[0], fmt(pr).split(" ")[0])))
    print("   ratios (per round, median [min..max]):")
    for name, v in m["ratios"].items():
        print("     %-32s %s" % (name, fmt(v, digits=3)))
    print("   [unknown] %: leaf frames in no mapping over samples of the build's processes "
          "(sh, make, gcc, cc1, as, collect2, ld)")
