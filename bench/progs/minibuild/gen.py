#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Writes section m's workload (bench/sections/m_mmap_events.py) into OUTDIR: a
small C project of 30 modules, main.c and minibuild.h, and this folder's
Makefile beside them. The modules are one template with other names and
constants, so they are written here at build time rather than committed:
the build is what section m measures (31 compiles and a link, each a few short
processes), not what the code says.

usage: gen.py OUTDIR
"""
import os
import shutil
import sys

# The modules, in main's order; module k's constants come from k.
MODULES = ["parse", "lex", "hash", "table", "list", "tree", "heap", "sort", "search", "str",
           "buf", "fmt", "num", "date", "path", "env", "opt", "log", "err", "mem", "pool",
           "queue", "stack", "graph", "bits", "crc", "utf8", "base64", "rle", "stats"]
STEPS = 6  # step functions per module; step i switches over b % (5 + i)
SPDX_C = "// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)\n"


def step(name, k, i):
    """Step i of module k: its own shift, multipliers, addends and rotation count."""
    cases = "".join("\tcase %d: x = x * %dULL + %d; break;\n" % (c, 3 + 2 * (k + i + c), i + 31 * c)
                    for c in range(5 + i))
    return ("static uint64_t {n}_step{i}(struct {n}_state *s, uint8_t b)\n"
            "{{\n"
            "\tuint64_t x = s->acc[(b + {i}) & 7] ^ ((uint64_t)b << {shift});\n"
            "\tswitch (b % {mod}) {{\n"
            "{cases}"
            "\tdefault: x ^= x >> 13; break;\n"
            "\t}}\n"
            "\tfor (unsigned j = 0; j < {loops}; j++)\n"
            "\t\tx = (x << 5 | x >> 59) + j * {k1}ULL;\n"
            "\ts->acc[(b + {i}) & 7] = x;\n"
            "\ts->round++;\n"
            "\treturn x;\n"
            "}}\n").format(n=name, i=i, shift=(k + 7 * i) % 56, mod=5 + i, cases=cases,
                           loops=3 + i, k1=k + 1)


def module(name, k):
    calls = "".join("\t\tcase %d: r += %s_step%d(&s, data[i]); break;\n" % (i, name, i)
                    for i in range(STEPS))
    return (SPDX_C +
            "/* %s: arithmetic enough to give the compiler some work; the result is checked "
            "by main. */\n" % name +
            '#include "minibuild.h"\n\n'
            "struct %s_state {\n\tuint64_t acc[8];\n\tuint32_t round;\n};\n\n" % name +
            "\n".join(step(name, k, i) for i in range(STEPS)) + "\n" +
            "uint64_t %s_run(const uint8_t *data, size_t len, uint64_t seed)\n" % name +
            "{\n"
            "\tstruct %s_state s = {{seed}, 0};\n" % name +
            "\tuint64_t r = 0;\n\n"
            "\tfor (size_t i = 0; i < len; i++) {\n"
            "\t\tswitch (i %% %d) {\n" % STEPS +
            calls +
            "\t\t}\n"
            "\t}\n"
            "\treturn r ^ s.round;\n"
            "}\n")


def header():
    return ("/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */\n"
            "/* The bench's exec-heavy workload (section m): a small C project that make -j2 "
            "builds. */\n"
            "#ifndef MINIBUILD_H\n#define MINIBUILD_H\n\n"
            "#include <stddef.h>\n#include <stdint.h>\n\n" +
            "".join("uint64_t %s_run(const uint8_t *data, size_t len, uint64_t seed);\n" % n
                    for n in MODULES) +
            "\n#endif\n")


def main_c():
    return (SPDX_C +
            "/* Runs every module once over a fixed buffer: the build links and runs. */\n"
            "#include <stdio.h>\n\n"
            '#include "minibuild.h"\n\n'
            "int main(void)\n{\n"
            "\tuint8_t data[256];\n"
            "\tuint64_t r = 0;\n\n"
            "\tfor (unsigned i = 0; i < sizeof(data); i++)\n"
            "\t\tdata[i] = (uint8_t)(i * 7 + 3);\n" +
            "".join("\tr += %s_run(data, sizeof(data), r);\n" % n for n in MODULES) +
            '\tprintf("%llx\\n", (unsigned long long)r);\n'
            "\treturn 0;\n}\n")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) != 2:
        print("usage: gen.py OUTDIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for k, name in enumerate(MODULES):
        write(os.path.join(out, name + ".c"), module(name, k))
    write(os.path.join(out, "minibuild.h"), header())
    shutil.copyfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "Makefile"),
                    os.path.join(out, "Makefile"))
    # last: bench/Makefile's target for the whole folder
    write(os.path.join(out, "main.c"), main_c())
    return 0


if __name__ == "__main__":
    sys.exit(main())
