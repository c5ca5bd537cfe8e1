# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section v: whole stacks by CFI beside perf --call-graph dwarf and perf -g
(issue 22). A python3.11 loop's slowdown and the output's bytes per sample
under each (v_slowdown), the unwind tables of a whole-host capture
(v_host_tables), how soon a program of 40 modules without frame pointers
gets whole stacks after its exec (v_whole_after_exec), and how soon clang++'s
do with its tables made anew and read back from the cache (v_cache).
"""
import os
import random
import re
import shutil

from .common import (FXS, OUT, PYTHON, ROUNDS, TMP, TOP, chain_env, fmt, fxs_summary, have, log,
                     perf_samples, read_chain, results, run, stats, target)

LETTER, KEY = "v", "v_cfi_peers"
MODS40 = os.path.join(OUT, "mods40")
V_SECONDS = float(os.environ.get("FXS_BENCH_V_SECONDS", "1"))

# A pure-Python loop of fixed work (python3.11 is Debian's, built without frame
# pointers); it writes "WALL_NS CPU_NS" of its work to $FXS_BENCH_OUT.
V_LOOP = """
import os, sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def mid(n):
    return leaf(n) + 1
def top(iters):
    t = 0
    for _ in range(iters):
        t += mid(1000)
    return t
t0, c0 = time.monotonic_ns(), time.process_time_ns()
top(int(sys.argv[1]))
with open(os.environ["FXS_BENCH_OUT"], "w") as f:
    f.write("%d %d\\n" % (time.monotonic_ns() - t0, time.process_time_ns() - c0))
"""
V_KINDS = ["fxsampler", "perf-dwarf", "perf-fp"]


def v_cmd(kind, hz, work, out):
    if kind == "none":
        return work
    if kind == "fxsampler":
        return [FXS, "record", "-q", "--unwind=auto", "-F", str(hz), "-o", out, "--"] + work
    if kind == "perf-dwarf":
        return ["perf", "record", "-q", "--call-graph", "dwarf", "-F", str(hz), "-o", out,
                "--"] + work
    if kind == "perf-fp":
        return ["perf", "record", "-q", "-g", "-F", str(hz), "-o", out, "--"] + work
    raise ValueError(kind)


def v_one(kind, hz, work):
    res = os.path.join(TMP, "v.res")
    out = os.path.join(TMP, "v." + kind)
    if os.path.exists(out):
        os.unlink(out)
    rc, o, e, wall, ru = run(v_cmd(kind, hz, work, out), env=chain_env(res))
    target_wall, target_cpu = read_chain(res)
    r = {"target_wall_ns": target_wall, "target_cpu_ns": target_cpu}
    if target_wall is None:
        log("   %s %d: no result (rc %d): %s" % (kind, hz, rc, e.strip()[-300:]))
        return r
    if kind == "fxsampler":
        r["samples"] = fxs_summary(e).get("samples")
    elif kind != "none":
        r["samples"] = perf_samples(out)
    if kind != "none" and os.path.exists(out):
        r["bytes"] = os.path.getsize(out)
        if r.get("samples"):
            r["bytes_per_sample"] = r["bytes"] / r["samples"]
    return r


def v_calibrate(script):
    res = os.path.join(TMP, "vcal.res")
    iters = 2000
    run([PYTHON, script, str(iters)], env=chain_env(res))
    wall, _ = read_chain(res)
    return max(100, int(iters * V_SECONDS * 1e9 / wall)) if wall else iters


def v_slowdown(rounds):
    """The target's slowdown and the bytes per sample: python3.11 running a
    fixed amount of pure-Python work (its own wall time of that work, so the
    profilers' start and stop are not in it) unprofiled and under each
    profiler at 1 and 10 kHz, every condition once per round in a shuffled
    order; slowdown = wall / median unprofiled wall - 1, and the same of the
    target's CPU time (user + sys: what sampling costs the target itself,
    less swayed than wall time by the other work of this shared host, and
    the figure the 1 kHz target is judged on); bytes per sample = the output
    file's size over the samples in it (fxsampler's summary; perf script's
    sample count)."""
    script = os.path.join(TMP, "v_loop.py")
    with open(script, "w") as f:
        f.write(V_LOOP)
    iters = v_calibrate(script)
    work = [PYTHON, script, str(iters)]
    runs = {}
    kinds = [k for k in V_KINDS if k == "fxsampler" or have("perf")]
    for r in range(rounds):
        jobs = [("none", 0)] * 2 + [(k, hz) for k in kinds for hz in (1000, 10000)]
        random.shuffle(jobs)
        for kind, hz in jobs:
            runs.setdefault("%s@%d" % (kind, hz), []).append(v_one(kind, hz, work))
        log("   round %d/%d done" % (r + 1, rounds))
    base = stats([x["target_wall_ns"] for x in runs["none@0"]])
    base_cpu = stats([x["target_cpu_ns"] for x in runs["none@0"]])
    sec = {"target": "python3.11 pure-Python loop, %d iterations" % iters,
           "method": " ".join(v_slowdown.__doc__.split()),
           "unprofiled_ns": base, "unprofiled_cpu_ns": base_cpu, "slowdown_pct": {},
           "cpu_slowdown_pct": {}, "bytes_per_sample": {}, "samples": {}}
    for key, rs in runs.items():
        if key == "none@0":
            continue
        sec["slowdown_pct"][key] = stats(
            [(x["target_wall_ns"] / base["median"] - 1) * 100 if x.get("target_wall_ns")
             and base else None for x in rs])
        sec["cpu_slowdown_pct"][key] = stats(
            [(x["target_cpu_ns"] / base_cpu["median"] - 1) * 100 if x.get("target_cpu_ns")
             and base_cpu else None for x in rs])
        sec["bytes_per_sample"][key] = stats([x.get("bytes_per_sample") for x in rs])
        sec["samples"][key] = stats([x.get("samples") for x in rs])
    return sec


def v_host_tables():
    """A whole-host capture (record -a --unwind=auto, 3 s at 99 Hz) on this
    machine: the tables it made and loaded, from record's summary (every
    process's modules, shared by build id)."""
    out = os.path.join(TMP, "v_host.fxt")
    rc, o, e, wall, ru = run([FXS, "record", "-a", "-q", "--unwind=auto", "-F", "99", "-d", "3s",
                              "-o", out])
    m = re.search(r"unwind tables: (\d+) modules, (\d+) KiB of (\d+) KiB loaded, (\d+) evicted, "
                  r"(?:\d+ left out, )?(\d+) without CFI, (\d+) failed; made in (\d+) ms", e)
    if os.path.exists(out):
        os.unlink(out)
    if not m:
        log("   record -a: no table summary (rc %d): %s" % (rc, e.strip()[-300:]))
        return {"status": "no table summary (rc %d)" % rc}
    mods, kib, cap, evicted, nocfi, failed, ms = map(int, m.groups())
    s = fxs_summary(e)
    return {"method": " ".join(v_host_tables.__doc__.split()), "modules": mods,
            "bytes": kib * 1024, "cap_bytes": cap * 1024, "evicted": evicted,
            "without_cfi": nocfi, "failed": failed, "gen_ms": ms,
            "samples": s.get("samples")}


def perf_script_blocks(fxt, comm):
    """(ts_ns, [(symbol, module path)]) of each sample of comm in fxt, in order."""
    script = os.path.join(TMP, "v_blocks.ps")
    run([FXS, "report", fxt, "--no-debuginfod", "--perf-script", script])
    try:
        text = open(script).read()
    except OSError:
        return []
    blocks = []
    for block in text.split("\n\n"):
        lines = block.strip().splitlines()
        m = re.search(r" (\d+)\.(\d{9}): ", lines[0]) if lines else None
        if not m or not lines[0].startswith(comm + " "):
            continue
        frames = [(ln.split()[1], ln.rsplit("(", 1)[-1].rstrip(")")) for ln in lines[1:]
                  if len(ln.split()) > 1]
        blocks.append((int(m.group(1)) * 10**9 + int(m.group(2)), frames))
    return blocks


V_MODS = 40


def v_whole_after_exec(rounds, known=False):
    """How long after a new process starts its stacks become whole:
    bench/progs/mods40 maps 40 shared libraries built -O2
    -fomit-frame-pointer (main -> m0 -> .. -> m39, which spins). record -F
    999 --unwind=auto runs a python3.11 that writes CLOCK_BOOTTIME and execs
    mods40 (same pid; fxsampler forgets its mappings at exec); the figure is
    the time from that exec to the first sample whose stack holds m0 .. m39,
    main and _start (report --perf-script), and, for reference, to its first
    sample of any kind. The tables of libc and ld.so are already loaded (the
    python's); those of mods40 and its 40 libraries are not (known: they are,
    a child of the python ran mods40 for 0.5 s first, and the walker finds
    them by the files the kernel maps, bpf/vma.bpf.h, before the exec's
    mappings are read)."""
    mark = os.path.join(TMP, "v_exec.mark")
    shim = ("import os, subprocess, sys, time\n"
            "if sys.argv[2] == 'known': subprocess.run([sys.argv[3], '0.5'])\n"
            "open(sys.argv[1], 'w').write(str(time.clock_gettime_ns(time.CLOCK_BOOTTIME)))\n"
            "os.execv(sys.argv[3], sys.argv[3:])\n")
    want = ["m%d" % i for i in range(V_MODS)] + ["main", "_start"]
    whole, first, nframes = [], [], []
    for r in range(rounds):
        out = os.path.join(TMP, "v_mods.fxt")
        rc, o, e, wall, ru = run([FXS, "record", "-q", "--unwind=auto", "-F", "999", "-o", out,
                                  "--", PYTHON, "-c", shim, mark, "known" if known else "new",
                                  MODS40, "1"])
        try:
            exec_ns = int(open(mark).read())
        except (OSError, ValueError):
            log("   mods40: no exec mark (rc %d): %s" % (rc, e.strip()[-300:]))
            continue
        t_first = t_whole = None
        for ts, frames in perf_script_blocks(out, "mods40"):
            if ts < exec_ns:
                continue
            if t_first is None:
                t_first = ts
            syms = set(sym for sym, _ in frames)
            if all(w in syms for w in want):
                t_whole = ts
                nframes.append(len(frames))
                break
        if t_first is not None:
            first.append((t_first - exec_ns) / 1e6)
        if t_whole is not None:
            whole.append((t_whole - exec_ns) / 1e6)
        else:
            log("   mods40: no whole stack in round %d" % (r + 1))
    return {"method": " ".join(v_whole_after_exec.__doc__.split()), "modules": V_MODS,
            "exec_to_whole_ms": stats(whole), "exec_to_first_sample_ms": stats(first),
            "whole_stack_frames": stats(nframes)}


# Marks CLOCK_BOOTTIME in argv[1], then execs argv[2:] (the same pid).
EXEC_SHIM = ("import os, sys, time\n"
             "open(sys.argv[1], 'w').write(str(time.clock_gettime_ns(time.CLOCK_BOOTTIME)))\n"
             "os.execv(sys.argv[2], sys.argv[2:])\n")


FXT_BT_FLAG_FP_FALLBACK = 0x40  # daemon/fxt/fxt.h
V_WINDOW_NS = 500 * 10**6


def v_cache(rounds):
    """What the tables kept on disk (daemon/unwind/cfi_cache) change in a
    new program's first milliseconds. clang++ -O2 -c of
    tests/report/demangle/templates.cpp under record -F 999 (python3.11
    marks CLOCK_BOOTTIME and execs clang, same pid), side by side in each
    round, in random order: FXSAMPLER_CFI_CACHE=off (every table made anew)
    and a cache directory a run before filled (libLLVM's and libclang-cpp's
    read back). Per run: of the samples in the 500 ms after the exec, how
    many went on by frame pointers (marked FXT_BT_FLAG_FP_FALLBACK in
    fxsampler dump: a table not there yet, most of them) and how long after the exec the
    last of them came; record's count of stacks ended without a table
    (no_table), the tables read back, and the share of the compile's stacks
    that reach __libc_start_call_main (clang's constructors, under ld.so,
    do not)."""
    clang = shutil.which("clang++")
    src = os.path.join(TOP, "tests", "report", "demangle", "templates.cpp")
    if not clang:
        return {"status": "NOT RUN: clang++ missing"}
    real = os.path.realpath(clang)
    cache = os.path.join(TMP, "v_cache.dir")
    shutil.rmtree(cache, ignore_errors=True)
    mark, out = os.path.join(TMP, "v_cache.mark"), os.path.join(TMP, "v_cache.fxt")
    obj = os.path.join(TMP, "v_cache.o")

    def one(cache_dir):
        env = dict(os.environ, FXSAMPLER_CFI_CACHE=cache_dir)
        rc, o, e, wall, ru = run([FXS, "record", "-F", "999", "--unwind=auto", "-o", out, "--",
                                  PYTHON, "-c", EXEC_SHIM, mark, real, "-O2", "-c", src, "-o",
                                  obj], env=env)
        try:
            exec_ns = int(open(mark).read())
        except (OSError, ValueError):
            log("   v cache: no exec mark (rc %d): %s" % (rc, e.strip()[-300:]))
            return None
        m = re.search(r"ended early:.* (\d+) no_table", e)
        r = {"no_table": int(m.group(1)) if m else 0, "marked": 0, "last_marked_ms": 0.0}
        m = re.search(r"unwind tables: (\d+) read from the cache", e)
        r["read_back"] = int(m.group(1)) if m else 0
        rc, o, e, _, _ = run([FXS, "dump", out])
        for m in re.finditer(r" backtrace ts=(\d+) .*flags=0x([0-9a-f]+)", o):
            ts, flags = int(m.group(1)), int(m.group(2), 16)
            if exec_ns <= ts < exec_ns + V_WINDOW_NS and flags & FXT_BT_FLAG_FP_FALLBACK:
                r["marked"] += 1
                r["last_marked_ms"] = (ts - exec_ns) / 1e6
        entry = [any(sym == "__libc_start_call_main" for sym, _ in f)
                 for ts, f in perf_script_blocks(out, "clang") if ts >= exec_ns]
        r["entry_share"] = 100.0 * sum(entry) / len(entry) if entry else None
        return r

    one(cache)  # fills the cache
    runs = {"off": [], "kept": []}
    for r in range(rounds):
        for kind in random.sample(list(runs), 2):
            runs[kind].append(one("off" if kind == "off" else cache))
    sec = {"method": " ".join(v_cache.__doc__.split())}
    for kind, rs in runs.items():
        rs = [x for x in rs if x]
        sec[kind] = {k: stats([x.get(k) for x in rs])
                     for k in ["marked", "last_marked_ms", "no_table", "read_back", "entry_share"]}
    return sec


def measure():
    log("== v. CFI whole stacks beside perf --call-graph dwarf and perf -g (python3.11, "
        "tables, a program of 40 modules)")
    if not os.path.exists(PYTHON):
        results["sections"][KEY] = {"status": "NOT RUN: %s missing" % PYTHON}
        return
    rounds = min(ROUNDS, 3)
    sec = v_slowdown(rounds)
    sec["host_tables"] = v_host_tables()
    if os.path.exists(MODS40):
        sec["mods40"] = v_whole_after_exec(rounds)
        sec["mods40_known"] = v_whole_after_exec(rounds, known=True)
    sec["cache"] = v_cache(rounds)
    results["sections"][KEY] = sec
    sd, bps = sec["cpu_slowdown_pct"], sec["bytes_per_sample"]
    f, p = sd.get("fxsampler@1000"), sd.get("perf-dwarf@1000")
    if f and p:
        target("v: python3.11 CPU slowdown at 1 kHz <= perf dwarf's", "%.1f%% vs %.1f%%" % (
            f["median"], p["median"]), "<= perf dwarf", f["median"] <= p["median"])
    f, p = bps.get("fxsampler@10000"), bps.get("perf-dwarf@10000")
    if f and p:
        target("v: .fxt bytes/sample <= 1/10 of perf dwarf's (10 kHz)", "%.0f vs %.0f" % (
            f["median"], p["median"]), "<= 0.1x", f["median"] <= p["median"] / 10)


def table(v):
    if "status" in v:
        print("\nv. CFI beside perf: %s" % v["status"])
        return
    print("\nv. %s: slowdown %% of unprofiled (wall %s ms, CPU %s ms), output bytes per "
          "sample" % (v["target"], fmt(v["unprofiled_ns"], scale=1e-6),
                      fmt(v.get("unprofiled_cpu_ns"), scale=1e-6)))
    print("   %-11s%-20s%-20s%-20s%-20s%-16s%s" % ("", "wall 1 kHz", "wall 10 kHz", "CPU 1 kHz",
                                                 "CPU 10 kHz", "B/sample 1 kHz",
                                                 "B/sample 10 kHz"))
    for k in ["fxsampler", "perf-dwarf", "perf-fp"]:
        sd, cd, b = v["slowdown_pct"], v.get("cpu_slowdown_pct", {}), v["bytes_per_sample"]
        print("   %-11s%-20s%-20s%-20s%-20s%-16s%s" % (
            k, fmt(sd.get(k + "@1000"), "%", digits=1), fmt(sd.get(k + "@10000"), "%", digits=1),
            fmt(cd.get(k + "@1000"), "%", digits=1), fmt(cd.get(k + "@10000"), "%", digits=1),
            fmt(b.get(k + "@1000")), fmt(b.get(k + "@10000"))))
    print("   fxsampler = record --unwind=auto; perf-dwarf = perf record --call-graph dwarf; "
          "perf-fp = perf record -g")
    h = v.get("host_tables", {})
    if "status" in h:
        print("   whole-host capture: %s" % h["status"])
    elif h:
        print("   whole-host capture (record -a, 3 s): %d modules' tables, %.1f MiB (cap %.0f MiB), "
              "%d evicted, %d without CFI, %d failed, made in %d ms" % (
                  h["modules"], h["bytes"] / 2**20, h["cap_bytes"] / 2**20, h["evicted"],
                  h["without_cfi"], h["failed"], h["gen_ms"]))
    m = v.get("mods40")
    if m:
        print("   a program of %d modules without frame pointers: exec -> first whole stack %s ms "
              "(exec -> first sample %s ms)" % (m["modules"],
                                                fmt(m["exec_to_whole_ms"], digits=1),
                                                fmt(m["exec_to_first_sample_ms"], digits=1)))
    m = v.get("mods40_known")
    if m:
        print("   the same again, its tables made by a run before (found by their files): exec -> "
              "first whole stack %s ms (exec -> first sample %s ms)" % (
                  fmt(m["exec_to_whole_ms"], digits=1),
                  fmt(m["exec_to_first_sample_ms"], digits=1)))
    c = v.get("cache")
    if c and "status" in c:
        print("   clang++ with its tables kept on disk: %s" % c["status"])
    elif c:
        for kind, what in [("off", "tables made anew (cache off)"),
                           ("kept", "tables read back from the cache")]:
            k = c[kind]
            print("   clang++ -O2 -c, %-32s in the 500 ms after its exec %s stacks went on by "
                  "frame pointers, the last %s ms after it; no_table %s; read "
                  "back %s; reach the entry %s" % (
                      what + ":", fmt(k["marked"]), fmt(k["last_marked_ms"], digits=1),
                      fmt(k["no_table"]), fmt(k["read_back"]),
                      fmt(k["entry_share"], "%", digits=1)))
