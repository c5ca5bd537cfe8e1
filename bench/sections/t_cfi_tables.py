# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section t: CFI unwind tables (issue 22). bench/cfigen builds the tables of
libc, ld.so, python3.11 (and the arm64 and riscv64 libc when installed) and
of every file mapped executable on the host: bytes and generation time.
"""
import os
import subprocess

from .common import OUT, ROUNDS, json_lines, log, results, target

LETTER, KEY = "t", "t_cfi_tables"
CFIGEN = os.path.join(OUT, "cfigen")
T_MODULES = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2",
             "/usr/bin/python3.11",
             # Debian 12's arm64 and riscv64 libc (make deps: libc6-ARCH-cross)
             "/usr/aarch64-linux-gnu/lib/libc.so.6", "/usr/riscv64-linux-gnu/lib/libc.so.6"]


def cfigen(args):
    out = subprocess.run([CFIGEN] + args, capture_output=True, text=True, timeout=600)
    return json_lines(out.stdout)


def measure():
    log("== t. CFI unwind tables: bytes and generation time (bench/cfigen)")
    mods = [m for m in T_MODULES if os.path.exists(m)]
    per = cfigen(["-r", str(max(ROUNDS, 3))] + mods)
    host = cfigen(["-r", "1", "--host"])
    ok = [m for m in host if "error" not in m]
    fdes = sum(m["fdes"] for m in ok)
    sec = {"modules": per, "host": {
        "modules": len(host), "errors": len(host) - len(ok),
        "bytes": sum(m["bytes"] for m in ok), "gen_ns": sum(m["gen_ns_median"] for m in ok),
        "fdes": fdes, "fdes_fp": sum(m["fdes_fp"] for m in ok),
        "max_fp_share": max((m["fdes_fp"] / m["fdes"] for m in ok if m["fdes"]), default=0)}}
    results["sections"][KEY] = sec
    libc = next((m for m in per if m["path"].endswith("libc.so.6") and "error" not in m), None)
    target("t: libc's unwind table <= 256 KiB", "%.1f KiB" % (libc["bytes"] / 1024)
           if libc else "n/a", "<= 256 KiB", libc["bytes"] <= 256 << 10 if libc else None)


def table(t):
    print("\nt. CFI unwind tables (8-byte rows; generation = median of rounds, one core)")
    print("   %-34s%8s%8s%9s%10s%10s%8s" % ("module", "FDEs", "fp FDE", "rows", "KiB", "ms",
                                          ".text %"))
    for m in t["modules"]:
        if "error" in m:
            print("   %-34s %s" % (m["path"], m["error"]))
            continue
        name = os.path.basename(m["path"])
        if m["path"].startswith("/usr/aarch64") or m["path"].startswith("/usr/riscv64"):
            name += " (" + m["path"].split("/")[2].split("-")[0] + ")"
        print("   %-34s%8d%8d%9d%10.1f%10.2f%8.1f" % (
            name, m["fdes"], m["fdes_fp"], m["rows"], m["bytes"] / 1024,
            m["gen_ns_median"] / 1e6,
            100.0 * m["text_bytes"] / m["text_size"] if m.get("text_size") else 0))
    print("   fp FDE: FDEs whose CFA is fp-based at some pc; .text %: share of .text the "
          "FDEs cover")
    h = t["host"]
    print("   whole host (every file mapped executable now): %d modules (%d without a "
          "table), %.1f MiB, %.0f ms; %.1f %% of %d FDEs keep a frame pointer, at most "
          "%.1f %% in one module" % (h["modules"], h["errors"], h["bytes"] / 2**20,
                                     h["gen_ns"] / 1e6, 100.0 * h["fdes_fp"] / max(1, h["fdes"]),
                                     h["fdes"], 100.0 * h["max_fp_share"]))
