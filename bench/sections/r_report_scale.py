# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section r: report at scale (issue 39). The section itself is
bench/report_scale.py (each output of report on generated captures of 10^4
to 10^6 samples and on a whole-host C++ compile loop, beside perf report and
perf script); this module hands it what it needs from common.
"""
import report_scale

from .common import BENCH, FXS, FXTGEN, TMP, fxt_samples, log, results, run, target

LETTER, KEY = "r", "r_report_scale"


def measure():
    report_scale.section_r({"run": run, "log": log, "fxs": FXS, "fxtgen": FXTGEN, "tmp": TMP,
                            "here": BENCH, "results": results, "target": target,
                            "samples": fxt_samples})


def table(r):
    report_scale.table({KEY: r})
