# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Section i: report against mapping records (issue 40): measure's doc says
how. Its figures are in the results file and its targets in the table.
"""
import os

from .common import FXS, FXTGEN, ROUNDS, TMP, log, results, run, stats, target

LETTER, KEY = "i", "i_report_maps"


def measure():
    """report --top of captures of 125,000 and 250,000 one-page mmap records (fxtgen:
    every other one over the one before with another module, a sample per ten
    records): the time of each, and the ratio of the two, which is 2 when
    report is linear in mapping records (issue 40: 21.3 s for 126,878 records
    before, quadratic)."""
    log("== i. report against mapping records")
    if not os.path.exists(FXTGEN):
        results["sections"][KEY] = {"status": "not measured: no fxtgen"}
        return
    sec, times = {}, {}
    for maps in (125_000, 250_000):
        path = os.path.join(TMP, "maps%d.fxt" % maps)
        rc, o, e, _, _ = run([FXTGEN, path, str(maps // 10), str(maps)])
        if rc != 0:
            results["sections"][KEY] = {"status": "not measured: fxtgen: " + e}
            return
        walls = []
        for i in range(min(ROUNDS, 3)):
            rc, o, e, wall, ru = run([FXS, "report", "--top", "10", path])
            walls.append(wall if rc == 0 else None)
        times[maps] = stats(walls)
        sec["%d_records" % maps] = {"file_bytes": os.path.getsize(path), "seconds": times[maps]}
    if times[125_000] and times[250_000]:
        t1, t2 = times[125_000]["median"], times[250_000]["median"]
        sec["ratio_2x_records"] = t2 / t1 if t1 else None
        target("i: report --top, 125,000 mmap records", "%.2f s" % t1, "<= 2 s", t1 <= 2.0)
        target("i: 2x the records", "%.2fx the time" % (t2 / t1), "<= 2.5x", t2 / t1 <= 2.5)
    sec["method"] = " ".join(measure.__doc__.split())
    results["sections"][KEY] = sec
