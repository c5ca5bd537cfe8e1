#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""vdso_extract.py IMAGE ARCH OUT: copy the 64-bit vDSO of a kernel image
(vmlinuz or vmlinux) out to OUT. The kernel embeds vdso.so whole; it is the
64-bit ET_DYN ELF of ARCH's machine whose sonames include linux-vdso."""
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the clone
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from btf_extract import decompressions  # noqa: E402

MACHINE = {"arm64": 183, "riscv64": 243, "x86": 62}


def vdsos(data, machine):
    start = 0
    while True:
        i = data.find(b"\x7fELF\x02\x01\x01", start)
        if i < 0:
            return
        start = i + 1
        if i + 64 > len(data):
            return
        e_type, e_machine = struct.unpack_from("<HH", data, i + 16)
        e_shoff, = struct.unpack_from("<Q", data, i + 40)
        e_shentsize, e_shnum = struct.unpack_from("<HH", data, i + 58)
        if e_type != 3 or e_machine != machine or e_shentsize != 64:
            continue
        end = i + e_shoff + e_shnum * e_shentsize
        if e_shoff == 0 or end > len(data) or end - i > 1 << 20:
            continue
        blob = data[i:end]
        if b"linux-vdso" in blob or b"LINUX_2.6" in blob:
            yield blob


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: vdso_extract.py IMAGE ARCH OUT")
    with open(sys.argv[1], "rb") as f:
        image = f.read()
    for data in decompressions(image):
        for v in vdsos(data, MACHINE[sys.argv[2]]):
            with open(sys.argv[3], "wb") as f:
                f.write(v)
            return
    sys.exit(f"vdso_extract.py: no {sys.argv[2]} vDSO in {sys.argv[1]}")


main()
