# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section t: CFI unwind tables (issues 22 and 37). bench/cfigen builds the
tables of libc, ld.so, libstdc++, libLLVM-14, libclang-cpp-14, python3.11 (and
the arm64 and riscv64 libc when installed) and of every file mapped executable
on the host: rows, bytes before (8-byte rows: rows * 8, what the generator
makes) and after (the walker's 4-byte rows in 64 KiB pages with their page
index, daemon/unwind/cfi_pages.h), the rules they share, and the time to
generate and to encode; and the tables a C++ build needs on the host (each
compiler's programs and the libraries ldd finds for them: what record -a
during a build loads).
"""
import os
import subprocess

from .common import OUT, ROUNDS, json_lines, log, results, target

LETTER, KEY = "t", "t_cfi_tables"
CFIGEN = os.path.join(OUT, "cfigen")
T_MODULES = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2",
             "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
             # clang++'s own (issue 37): the LLVM-sized libraries
             "/usr/lib/llvm-14/lib/libLLVM-14.so.1", "/usr/lib/llvm-14/lib/libclang-cpp.so.14",
             "/usr/bin/python3.11",
             # Debian 12's arm64 and riscv64 libc (make deps: libc6-ARCH-cross)
             "/usr/aarch64-linux-gnu/lib/libc.so.6", "/usr/riscv64-linux-gnu/lib/libc.so.6"]
# A C++ build's programs (Debian 12): g++'s driver, compiler, assembler and
# linker; clang++'s one binary (its libLLVM and libclang-cpp come by ldd).
T_BUILDS = {
    "g++ -O2": ["/usr/bin/x86_64-linux-gnu-g++-12", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus",
                "/usr/lib/gcc/x86_64-linux-gnu/12/collect2", "/usr/bin/x86_64-linux-gnu-as",
                "/usr/bin/x86_64-linux-gnu-ld.bfd"],
    "clang++ -O2": ["/usr/lib/llvm-14/bin/clang", "/usr/bin/x86_64-linux-gnu-ld.bfd"],
}


def with_libraries(programs):
    """The programs and every library ldd resolves for them, each file once."""
    files = []
    for prog in programs:
        if not os.path.exists(prog):
            continue
        out = subprocess.run(["ldd", prog], capture_output=True, text=True).stdout
        libs = [ln.split("=>")[1].split("(")[0].strip() for ln in out.splitlines() if "=>" in ln]
        libs += [ln.split("(")[0].strip() for ln in out.splitlines()
                 if "=>" not in ln and ln.strip().startswith("/")]
        for f in [prog] + [lib for lib in libs if lib]:
            real = os.path.realpath(f)
            if real not in files:
                files.append(real)
    return files


def build_totals():
    """Per build: its modules' tables together, before and after."""
    totals = {}
    for name, progs in T_BUILDS.items():
        files = with_libraries(progs)
        if not files:
            continue
        mods, rules = cfigen(["-r", "1"] + files)
        ok = [m for m in mods if "error" not in m]
        totals[name] = {"modules": len(mods), "without_table": len(mods) - len(ok),
                        "rows": sum(m["rows"] for m in ok), "rules_shared": rules,
                        "bytes": sum(m["bytes"] for m in ok),
                        "bytes_8": sum(m["bytes_8"] for m in ok),
                        "gen_ns": sum(m["gen_ns_median"] for m in ok)}
    return totals


def cfigen(args):
    out = subprocess.run([CFIGEN] + args, capture_output=True, text=True, timeout=900)
    lines = json_lines(out.stdout)
    shared = next((m["rules_shared"] for m in lines if "rules_shared" in m), 0)
    return [m for m in lines if "path" in m], shared


def measure():
    log("== t. CFI unwind tables: bytes and generation time (bench/cfigen)")
    mods = [m for m in T_MODULES if os.path.exists(m)]
    per, rules = cfigen(["-r", str(max(ROUNDS, 3))] + mods)
    host, host_rules = cfigen(["-r", "1", "--host"])
    ok = [m for m in host if "error" not in m]
    fdes = sum(m["fdes"] for m in ok)
    sec = {"modules": per, "rules_shared": rules, "host": {
        "modules": len(host), "errors": len(host) - len(ok),
        "bytes": sum(m["bytes"] for m in ok), "bytes_8": sum(m["bytes_8"] for m in ok),
        "rows": sum(m["rows"] for m in ok), "rules_shared": host_rules,
        "gen_ns": sum(m["gen_ns_median"] for m in ok),
        "encode_ns": sum(m["encode_ns"] for m in ok),
        "fdes": fdes, "fdes_fp": sum(m["fdes_fp"] for m in ok),
        "max_fp_share": max((m["fdes_fp"] / m["fdes"] for m in ok if m["fdes"]), default=0)},
        "builds": build_totals()}
    results["sections"][KEY] = sec
    libc = next((m for m in per if m["path"].endswith("libc.so.6") and "error" not in m), None)
    target("t: libc's unwind table <= 256 KiB", "%.1f KiB" % (libc["bytes"] / 1024)
           if libc else "n/a", "<= 256 KiB", libc["bytes"] <= 256 << 10 if libc else None)
    ok = [m for m in per if "error" not in m]
    worst = max((m["bytes"] / m["rows"] for m in ok if m["rows"]), default=None)
    target("t: bytes per row (page index included) <= 4.1, was 8",
           "%.3f" % worst if worst else "n/a", "<= 4.1", worst <= 4.1 if worst else None)


def table(t):
    print("\nt. CFI unwind tables: before, 8-byte rows (rows * 8, the generator's); after, "
          "4-byte rows in 64 KiB pages + page index (what the walker reads)")
    print("   %-30s%7s%7s%9s%10s%10s%6s%6s%6s%9s%8s%8s" % (
        "module", "FDEs", "fp FDE", "rows", "KiB 8 B", "KiB now", "B/row", "pages", "rules",
        "gen ms", "enc ms", ".text%"))
    for m in t["modules"]:
        if "error" in m:
            print("   %-30s %s" % (m["path"], m["error"]))
            continue
        name = os.path.basename(m["path"])
        if m["path"].startswith("/usr/aarch64") or m["path"].startswith("/usr/riscv64"):
            name += " (" + m["path"].split("/")[2].split("-")[0] + ")"
        print("   %-30s%7d%7d%9d%10.1f%10.1f%6.2f%6d%6d%9.2f%8.2f%8.1f" % (
            name, m["fdes"], m["fdes_fp"], m["rows"], m["bytes_8"] / 1024, m["bytes"] / 1024,
            m["bytes"] / max(1, m["rows"]), m["pages"], m["rules"], m["gen_ns_median"] / 1e6,
            m["encode_ns"] / 1e6,
            100.0 * m["text_bytes"] / m["text_size"] if m.get("text_size") else 0))
    print("   rules: the module's distinct rules; %d for all of these together (the shared "
          "cfi_rules array holds %d)" % (t.get("rules_shared", 0), 1 << 16))
    print("   gen: the 8-byte rows from .eh_frame (median of rounds, one core); enc: their "
          "encoding, rules deduplicated (on the capture's loop)")
    print("   fp FDE: FDEs whose CFA is fp-based at some pc; .text %: share of .text the "
          "FDEs cover")
    h = t["host"]
    print("   whole host (every file mapped executable now): %d modules (%d without a "
          "table), %d rows, %.1f MiB (%.1f MiB as 8-byte rows), %d rules shared, %.0f ms to "
          "generate, %.0f ms to encode; %.1f %% of %d FDEs keep a frame pointer, at most "
          "%.1f %% in one module" % (
              h["modules"], h["errors"], h.get("rows", 0), h["bytes"] / 2**20,
              h.get("bytes_8", 0) / 2**20, h.get("rules_shared", 0), h["gen_ns"] / 1e6,
              h.get("encode_ns", 0) / 1e6, 100.0 * h["fdes_fp"] / max(1, h["fdes"]), h["fdes"],
              100.0 * h["max_fp_share"]))
    for name, b in t.get("builds", {}).items():
        print("   a C++ build's tables, %s (its programs and their libraries): %d modules (%d "
              "without a table), %d rows, %.1f MiB (%.1f MiB as 8-byte rows), %d rules, %.0f ms "
              "to generate" % (name, b["modules"], b["without_table"], b["rows"],
                               b["bytes"] / 2**20, b["bytes_8"] / 2**20, b["rules_shared"],
                               b["gen_ns"] / 1e6))
