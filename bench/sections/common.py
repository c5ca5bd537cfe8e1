# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
What every section of the bench shares: where the programs are, the knobs
every section reads (FXS_BENCH_ROUNDS, FXS_BENCH_ONLY, FXS_BENCH_OUT), the
results being gathered (written to the results file by run.py), running a
command, median [min..max] of a figure, a target MET or MISSED, and reading
what record and perf say about a capture.
"""
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(BENCH)
OUT = os.path.join(TOP, ".output", "bench")
FXS = os.path.join(TOP, "fxsampler")
FXSD = os.path.join(TOP, "fxsamplerd")
LOADER = os.path.join(OUT, "fxsbench")
CHAIN = os.path.join(OUT, "chain")
FXTGEN = os.path.join(OUT, "fxtgen")
PYTHON = "/usr/bin/python3.11"

ROUNDS = int(os.environ.get("FXS_BENCH_ROUNDS", "5"))
ONLY = set(filter(None, os.environ.get("FXS_BENCH_ONLY", "").split(",")))
RESULTS = os.environ.get("FXS_BENCH_OUT", os.path.join(BENCH, "results.json"))

# The peers measured beside fxsampler, and the Debian package of each
# (`make bench` installs the missing ones as root, as `make deps` does for the
# tests). One still missing is skipped with one line, its rows left out.
PEERS = {"perf": "linux-perf", "bpftrace": "bpftrace", "offcputime": "libbpf-tools"}
MISSING = set()

# CLOCK_BOOTTIME when run() last started a command (section f's origin)
last_start_boot_ns = 0
TMP = tempfile.mkdtemp(prefix="fxsbench.")
results = {"machine": {}, "method": {}, "sections": {}, "targets": []}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def want(section):
    return not ONLY or section in ONLY


def find_peers():
    """Say once, in one line each, which peer is missing and why its rows are skipped."""
    for tool, package in PEERS.items():
        if not shutil.which(tool):
            MISSING.add(tool)
            log("bench: SKIP %s: not installed (apt-get install %s, or make bench as root); "
                "its rows NOT RUN" % (tool, package))
    results["method"]["peers_missing"] = sorted(MISSING)


def have(tool):
    return tool not in MISSING


def stats(values):
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v),
            "values": v}


def fmt(s, unit="", scale=1.0, digits=0):
    if not s:
        return "n/a"
    f = "%%.%df" % digits
    return (f % (s["median"] * scale)) + unit + " [" + (f % (s["min"] * scale)) + ".." + \
        (f % (s["max"] * scale)) + "]"


def target(name, figure, goal, met, why=""):
    results["targets"].append({"target": name, "figure": figure, "goal": goal,
                               "status": "MET" if met else ("MISSED" if met is not None
                                                            else "NOT MEASURED"),
                               "note": why})


def run(cmd, env=None, timeout=600, retries=20):
    """Run cmd; return (rc, stdout, stderr, wall_s, rusage). Retries while
    the host's sampler is held by another fxsampler."""
    global last_start_boot_ns
    for attempt in range(retries):
        out = tempfile.TemporaryFile()
        err = tempfile.TemporaryFile()
        t0 = time.monotonic()
        last_start_boot_ns = boot_ns()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        try:
            _, status, ru = os.wait4(p.pid, 0)
        except KeyboardInterrupt:
            p.kill()
            raise
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        o, e = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        if "busy:" in e and "sampler is held" in e and attempt + 1 < retries:
            time.sleep(1 + random.random())
            continue
        return p.returncode, o, e, wall, ru


def chain_env(result_file):
    env = dict(os.environ)
    env["FXS_BENCH_OUT"] = result_file
    return env


def read_chain(result_file):
    try:
        with open(result_file) as f:
            wall_ns, cpu_ns = f.read().split()[:2]
        os.unlink(result_file)
        return int(wall_ns), int(cpu_ns)
    except (OSError, ValueError):
        return None, None


def fxs_summary(stderr):
    """Parse the record summary lines on stderr."""
    d = {}
    m = re.search(r"wrote (\S+): (\d+) samples", stderr)
    if m:
        d["samples"] = int(m.group(2))
    m = re.search(r"dropped: (\d+) ring full, (\d+) no user registers, (\d+) after stop", stderr)
    if m:
        d["ring_full"], d["no_regs"], d["after_stop"] = map(int, m.groups())
    m = re.search(r"skipped: (\d+) kernel threads, (\d+) other processes", stderr)
    if m:
        d["kthreads"], d["other"] = map(int, m.groups())
    return d


def fxt_counter(path, name):
    """The file's counter name, as fxsampler dump shows it: "samples", "mmap"
    (side-band records read (seen), kept, filtered), "unwind"."""
    rc, o, e, _, _ = run([FXS, "dump", path])
    for line in o.splitlines():
        if " counter " in line and 'name="%s"' % name in line:
            return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line.split("name=")[1])}
    return {}


def first_backtrace_ts(path):
    rc, o, e, _, _ = run([FXS, "dump", path])
    ts = [int(m) for m in re.findall(r"backtrace ts=(\d+)", o)]
    return min(ts) if ts else None


def fxt_samples(path):
    r = subprocess.run([FXS, "report", "--no-debuginfod", "--top", "1", path],
                       capture_output=True, text=True)
    m = re.search(r"^Samples: (\d+)", r.stdout, re.M)
    return int(m.group(1)) if m else None


def perf_samples(path):
    r = subprocess.run(["perf", "script", "-i", path, "-F", "tid"], capture_output=True,
                       text=True)
    return len([l for l in r.stdout.splitlines() if l.strip()])


def max_rss_kb(time_v_stderr):
    """The peak RSS /usr/bin/time -v reports, or None."""
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", time_v_stderr)
    return int(m.group(1)) if m else None


def loader_ns_per_run(stdout):
    """fxsbench's last line (JSON): ns per run of its program, or None when it
    ran too few times to tell; ValueError, IndexError or KeyError when it said nothing."""
    j = json.loads(stdout.strip().splitlines()[-1])
    return j["ns_per_run"] if j["run_cnt"] > 100 else None


def json_lines(text):
    """The JSON objects of a tool that writes one a line (cfigen, perfmapgen)."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def boot_ns():
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME)


def sysctl(name, value=None):
    path = "/proc/sys/" + name.replace(".", "/")
    with open(path) as f:
        old = f.read().strip()
    if value is not None:
        with open(path, "w") as f:
            f.write(str(value))
    return old


def machine():
    m = results["machine"]
    m["kernel"] = os.uname().release
    m["cpus"] = os.cpu_count()
    try:
        with open("/proc/cpuinfo") as f:
            m["cpu_model"] = re.search(r"model name\s*:\s*(.*)", f.read()).group(1)
    except (OSError, AttributeError):
        pass
    m["clocksource"] = open(
        "/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip()
    m["loadavg_start"] = open("/proc/loadavg").read().split()[:3]
    for tool, args in (("perf", ["--version"]), ("bpftrace", ["--version"])):
        path = shutil.which(tool)
        m[tool] = subprocess.run([path] + args, capture_output=True, text=True).stdout.strip() \
            if path else None
