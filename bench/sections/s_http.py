# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section s: the HTTP endpoint's cost to fxsamplerd. The daemon's CPU over
FXS_BENCH_HTTP_SECONDS (default 60) of continuous mode at 99 Hz with one
scraper every HTTP_CADENCE seconds, and without (daemon_capture_cpu's doc).
"""
import os
import random
import subprocess
import tempfile
import time

from .common import CHAIN, FXSD, ROUNDS, TMP, fmt, log, results, stats, target

LETTER, KEY = "s", "s_http"
HTTP_SECONDS = float(os.environ.get("FXS_BENCH_HTTP_SECONDS", "60"))
# a scrape every HTTP_CADENCE seconds (a fleet's scrape interval), seconds=HTTP_CADENCE
HTTP_CADENCE = 15


def proc_cpu_ns(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1e9 / os.sysconf("SC_CLK_TCK")


def daemon_capture_cpu(scrape, port):
    """fxsamplerd's CPU (user + sys, from /proc) over HTTP_SECONDS of continuous
    mode at 99 Hz with the endpoint on: scraped every HTTP_CADENCE s, or not. Both
    after one warm-up scrape: a daemon of a fleet has opened its ELF and DWARF files
    long before, and what is measured is what each further scrape costs."""
    import urllib.request
    d = tempfile.mkdtemp(dir=TMP)
    conf = os.path.join(d, "conf")
    with open(conf, "w") as f:
        f.write("continuous = yes\ncontinuous_frequency = 99\ndirectory = %s/data\n"
                "http_listen = 127.0.0.1:%d\n" % (d, port))
    log_path = os.path.join(d, "log")
    p = subprocess.Popen([FXSD, "--socket", os.path.join(d, "sock"), "--config", conf],
                         stderr=open(log_path, "w"))
    try:
        for _ in range(100):
            if "http: serving" in open(log_path).read() or p.poll() is not None:
                break
            time.sleep(0.1)
        urllib.request.urlopen("http://127.0.0.1:%d/debug/pprof/profile?seconds=2" % port,
                               timeout=10).read()
        time.sleep(1)
        c0, t0 = proc_cpu_ns(p.pid), time.monotonic()
        scrapes = 0
        while time.monotonic() - t0 < HTTP_SECONDS - 0.5:
            if scrape:
                left = min(HTTP_CADENCE, int(HTTP_SECONDS - (time.monotonic() - t0)))
                if left < 1:
                    break
                body = urllib.request.urlopen("http://127.0.0.1:%d/debug/pprof/profile?"
                                              "seconds=%d" % (port, left), timeout=left + 5).read()
                scrapes += len(body) > 0
            else:
                time.sleep(HTTP_SECONDS - (time.monotonic() - t0))
        return proc_cpu_ns(p.pid) - c0, scrapes
    finally:
        p.terminate()
        p.wait()


def measure():
    log("== s. fxsamplerd's CPU: %.0f s of continuous mode (99 Hz, chain 32 busy) with one "
        "scraper every %d s, and without" % (HTTP_SECONDS, HTTP_CADENCE))
    if not os.path.exists(FXSD):
        results["sections"][KEY] = {"status": "not measured: fxsamplerd missing"}
        return
    rounds = min(ROUNDS, 2)
    busy = subprocess.Popen([CHAIN, "32", str(rounds * 2 * (HTTP_SECONDS + 3) + 10)])
    sec = {"seconds": HTTP_SECONDS, "cpu_ms": {"scraped": [], "unscraped": []}, "scrapes": []}
    try:
        for r in range(rounds):
            order = [True, False]
            random.shuffle(order)
            for scrape in order:
                cpu, n = daemon_capture_cpu(scrape, 26000 + r)
                sec["cpu_ms"]["scraped" if scrape else "unscraped"].append(cpu / 1e6)
                if scrape:
                    sec["scrapes"].append(n)
    finally:
        busy.kill()
        busy.wait()
    ratio = [a / b for a, b in zip(sec["cpu_ms"]["scraped"], sec["cpu_ms"]["unscraped"]) if b]
    sec["cpu_ms"] = {k: stats(v) for k, v in sec["cpu_ms"].items()}
    sec["ratio"] = stats(ratio)
    sec["cadence_s"] = HTTP_CADENCE
    results["sections"][KEY] = sec
    if sec["ratio"]:
        v = sec["ratio"]["median"]
        target("s: daemon CPU with a scraper every %d s <= 1.3x without" % HTTP_CADENCE,
               "%.2fx" % v, "<= 1.3x", v <= 1.3)


def table(h):
    if "status" in h:
        print("\ns. HTTP endpoint: %s" % h["status"])
    else:
        print("\ns. fxsamplerd CPU over %.0f s of continuous mode at 99 Hz: %s ms with one "
              "scraper every %d s (%s scrapes), %s ms without; ratio %s" % (
                  h["seconds"], fmt(h["cpu_ms"]["scraped"], digits=1),
                  h.get("cadence_s", 10), h["scrapes"],
                  fmt(h["cpu_ms"]["unscraped"], digits=1), fmt(h["ratio"], digits=2)))
