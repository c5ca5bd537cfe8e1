# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
The sections of `make bench` (bench/run.py runs them), one module each, named
LETTER_KEY after the letter FXS_BENCH_ONLY picks it by and the key of its
figures in the results file (results["sections"][KEY]). Each has LETTER,
KEY, measure() and, when the table prints it, table(sec). common.py holds
what they share, bpfstats.py the bpf_stats readings of a, o, p and u.
"""
