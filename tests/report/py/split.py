# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Three functions spinning in a designed 50/30/20 split for argv[1] seconds
# (check-report's pyhttp tier; check_python's split without its own sampler).
import sys
import time


def spin(deadline):
    pc = time.perf_counter
    while pc() < deadline:
        pass


def alpha():
    spin(time.perf_counter() + 0.005)


def beta():
    spin(time.perf_counter() + 0.003)


def gamma():
    spin(time.perf_counter() + 0.002)


def work(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        alpha()
        beta()
        gamma()


work(float(sys.argv[1]))
