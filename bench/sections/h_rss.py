# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section h: record's peak RSS over a FXS_BENCH_RSS_SECONDS capture (default
60 s) of bench/progs/chain 32 at 10 kHz, with and without its ring buffers.
"""
import os
import re
import subprocess
import time

from .common import CHAIN, FXS, TMP, fxs_summary, log, results, target

LETTER, KEY = "h", "h_rss"
RSS_SECONDS = float(os.environ.get("FXS_BENCH_RSS_SECONDS", "60"))


def rss_parts(pid):
    """(total rss kB, rss kB of BPF map mappings: the rings)"""
    total = ring = 0
    cur_bpf = False
    try:
        with open("/proc/%d/smaps" % pid) as f:
            for line in f:
                if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                    cur_bpf = "bpf" in line
                elif line.startswith("Rss:"):
                    kb = int(line.split()[1])
                    total += kb
                    if cur_bpf:
                        ring += kb
    except OSError:
        return None
    return total, ring


def measure():
    log("== h. peak RSS of record during a %.0f s capture (10 kHz, chain 32 target)" % RSS_SECONDS)
    busy = subprocess.Popen([CHAIN, "32", str(RSS_SECONDS + 5)])
    out = os.path.join(TMP, "rss.fxt")
    p = subprocess.Popen([FXS, "record", "-q", "-F", "10000", "-d", "%ds" % RSS_SECONDS, "-p",
                          str(busy.pid), "-o", out], stderr=subprocess.PIPE)
    peak_total = peak_ring = peak_other = 0
    while p.poll() is None:
        parts = rss_parts(p.pid)
        if parts:
            peak_total = max(peak_total, parts[0])
            peak_ring = max(peak_ring, parts[1])
            peak_other = max(peak_other, parts[0] - parts[1])
        time.sleep(0.25)
    e = p.stderr.read().decode(errors="replace")
    busy.kill()
    busy.wait()
    s = fxs_summary(e)
    sec = {"seconds": RSS_SECONDS, "samples": s.get("samples"), "peak_rss_kb": peak_total,
           "peak_ring_rss_kb": peak_ring, "peak_rss_without_rings_kb": peak_other,
           "ring_buffers_mapped_kb": None}
    results["sections"][KEY] = sec
    target("h: record peak RSS < 20 MB besides ring buffers", "%.1f MB" % (peak_other / 1024),
           "< 20 MB", peak_other < 20 * 1024)


def table(h):
    print("\nh. record peak RSS over %.0f s (%s samples): %.1f MB total, %.1f MB ring buffers, "
          "%.1f MB besides the rings" % (h["seconds"], h["samples"], h["peak_rss_kb"] / 1024,
                                         h["peak_ring_rss_kb"] / 1024,
                                         h["peak_rss_without_rings_kb"] / 1024))
