# The VM tier's python check (tests/vm/init.sh): a chain of three Python
# functions, the innermost spinning for argv[1] seconds of wall time.
import sys
import time


def inner(t):
    end = time.monotonic() + t
    while time.monotonic() < end:
        pass


def middle(t):
    inner(t)


def outer(t):
    middle(t)


outer(float(sys.argv[1]))
