# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section r of `make bench`: report at scale (issue 39). Each output of
`fxsampler report` (--top, --folded, --svg, --pprof, --perf-script) on
generated captures of 10^4, 10^5 and 10^6 samples (fxtgen's "host" variety: a
new process every 500 samples, stacks of 8..60 frames, most of them distinct),
its time and peak RSS beside the file's size; then a whole-host capture of
a C++ compile loop by fxsampler and by `perf record -a -g` (two runs of the
same loop), each output beside `perf report --stdio` and `perf script`.

FXS_BENCH_R_MAX caps the generated sizes (default 1000000).
"""
import os
import re
import signal
import subprocess
import time

OUTPUTS = [("top", ["--top", "10"]), ("folded", ["--folded"]), ("svg", ["--svg", "{out}"]),
           ("pprof", ["--pprof", "{out}"]), ("perf-script", ["--perf-script", "{out}"])]
SIZES = [10_000, 100_000, 1_000_000]
CXX_LOOP = 6  # compiles of bench/progs/templates.cpp by g++ and clang++ side by side


def timed(run, cmd):
    """(wall s, peak RSS kB) of cmd, or (None, None) when it failed."""
    rc, _, e, wall, _ = run(["/usr/bin/time", "-v"] + cmd, timeout=1800)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", e)
    if rc != 0 or not m:
        return None, None
    return round(wall, 2), int(m.group(1))


def outputs(run, fxs, path, tmp):
    row = {}
    for name, args in OUTPUTS:
        out = os.path.join(tmp, "r-out." + name)
        wall, rss = timed(run, [fxs, "report", path] + [a.format(out=out) for a in args])
        row[name] = {"s": wall, "rss_kb": rss}
        if os.path.exists(out):
            os.unlink(out)
    return row


def build_script(here, tmp):
    src = os.path.join(here, "progs", "templates.cpp")
    script = os.path.join(tmp, "cxxloop.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\nfor i in $(seq %d); do g++ -O2 -c %s -o /dev/null & "
                "clang++ -O2 -c %s -o /dev/null; wait; done\n" % (CXX_LOOP, src, src))
    os.chmod(script, 0o755)
    return script


def section_r(ctx):
    run, log, fxs, fxtgen, tmp = ctx["run"], ctx["log"], ctx["fxs"], ctx["fxtgen"], ctx["tmp"]
    log("== r. report at scale")
    cap = int(os.environ.get("FXS_BENCH_R_MAX", "1000000"))
    sec = {"generated": {}, "host": {}}
    for n in [s for s in SIZES if s <= cap]:
        path = os.path.join(tmp, "r%d.fxt" % n)
        rc, _, e, _, _ = run([fxtgen, path, str(n), "host"])
        if rc != 0:
            sec["generated"][str(n)] = {"status": "generator failed: " + e.strip()}
            continue
        sec["generated"][str(n)] = {"file_bytes": os.path.getsize(path),
                                    "outputs": outputs(run, fxs, path, tmp)}
        os.unlink(path)
    if not (shutil_which("g++") and shutil_which("clang++")):
        sec["host"] = {"status": "not measured: g++ and clang++ needed"}
    else:
        script = build_script(ctx["here"], tmp)
        fxt = os.path.join(tmp, "r-host.fxt")
        rc = host_capture(fxs, fxt, script)
        if rc == 0:
            sec["host"]["file_bytes"] = os.path.getsize(fxt)
            sec["host"]["samples"] = ctx["samples"](fxt)
            sec["host"]["outputs"] = outputs(run, fxs, fxt, tmp)
        if shutil_which("perf"):
            data = os.path.join(tmp, "r-perf.data")
            rc, _, _, _, _ = run(["perf", "record", "-q", "-a", "-g", "-F", "999", "-o", data,
                                  "--", script])
            if rc == 0:
                sec["host"]["perf_data_bytes"] = os.path.getsize(data)
                sec["host"]["perf_report"] = dict(zip(("s", "rss_kb"), timed(
                    run, ["perf", "report", "--stdio", "-i", data, "--no-children"])))
                sec["host"]["perf_script"] = dict(zip(("s", "rss_kb"), timed(
                    run, ["perf", "script", "-i", data])))
    ctx["results"]["sections"]["r_report_scale"] = sec
    h = sec["host"].get("outputs")
    if h and h["svg"]["s"] and h["folded"]["s"]:
        ratio = h["svg"]["s"] / h["folded"]["s"]
        ctx["target"]("r: --svg within 1.5x of --folded's time (host capture)", "%.2fx" % ratio,
                      "<= 1.5x", ratio <= 1.5)
    if h:
        worst = max((o["rss_kb"] or 0) * 1024 / sec["host"]["file_bytes"] for o in h.values())
        ctx["target"]("r: peak RSS <= 4x the .fxt (host capture, every output)",
                      "%.1fx" % worst, "<= 4x", worst <= 4)


def host_capture(fxs, fxt, script):
    """record -a while the compile loop runs (-a takes no command); Ctrl-C ends it."""
    rec = subprocess.Popen([fxs, "record", "-q", "-a", "-F", "999", "-o", fxt],
                           stderr=subprocess.DEVNULL)
    time.sleep(1)
    subprocess.run([script])
    rec.send_signal(signal.SIGINT)
    return rec.wait()


def shutil_which(tool):
    return subprocess.run(["sh", "-c", "command -v " + tool], capture_output=True).returncode == 0


def table(s):
    r = s.get("r_report_scale")
    if not r:
        return
    print("\nr. report at scale: seconds / peak RSS MB per output (fxtgen host variety)")
    print("   %-10s %-9s" % ("samples", "file MB") + "".join("%-16s" % n for n, _ in OUTPUTS))

    def cells(outs):
        return "".join("%-16s" % ("%s / %s" % (o["s"], o["rss_kb"] and o["rss_kb"] // 1024))
                       for o in (outs[n] for n, _ in OUTPUTS))
    for n, g in r["generated"].items():
        if "outputs" in g:
            print("   %-10s %-9.1f" % (n, g["file_bytes"] / 1e6) + cells(g["outputs"]))
        else:
            print("   %-10s %s" % (n, g["status"]))
    h = r["host"]
    if "outputs" in h:
        print("   host capture of a C++ compile loop: %s samples, %.1f MB" % (
            h["samples"], h["file_bytes"] / 1e6))
        print("   %-20s" % "" + cells(h["outputs"]))
    if "perf_report" in h:
        print("   perf.data of the same loop (-g): %.1f MB; perf report --stdio %s s / %s MB, "
              "perf script %s s / %s MB" % (
                  h["perf_data_bytes"] / 1e6, h["perf_report"]["s"],
                  h["perf_report"]["rss_kb"] and h["perf_report"]["rss_kb"] // 1024,
                  h["perf_script"]["s"],
                  h["perf_script"]["rss_kb"] and h["perf_script"]["rss_kb"] // 1024))
    elif "status" in h:
        print("   host: %s" % h["status"])
