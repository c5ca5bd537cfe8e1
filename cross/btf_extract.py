#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""btf_extract.py VMLINUZ OUT: write the kernel's raw BTF (what
/sys/kernel/btf/vmlinux holds) from a kernel image file to OUT.

The image is an arm64/riscv64 Image (plain or gzip'd, as Debian ships it) or
an x86 bzImage (its payload compressed inside). The BTF blob sits in the
uncompressed kernel's .BTF section as is: a header with magic 0xeB9F,
version 1, then types and strings whose lengths the header gives. Each
candidate is checked for a sane header and a string section that starts with
NUL and ends with NUL; the largest wins (the kernel's own, not a stray match).
"""
import bz2
import gzip
import lzma
import struct
import subprocess
import sys
import zlib

MAGIC = b"\x9f\xeb\x01\x00"  # 0xeB9F little-endian, version 1, flags 0


def zstd_cli(data):
    """zstd -d of a frame at the start of data (trailing bytes ignored)."""
    try:
        r = subprocess.run(["zstd", "-dcq"], input=data, capture_output=True)
    except OSError:
        return None
    return r.stdout


def decompressions(data):
    """The image itself and every payload that decompresses from it."""
    yield data
    try:
        import zstandard  # optional
    except ImportError:
        zstandard = None
    seen = set()
    for sig, kind in ((b"\x1f\x8b\x08", "gz"), (b"\xfd7zXZ\x00", "xz"),
                      (b"\x28\xb5\x2f\xfd", "zst"), (b"BZh", "bz2")):
        start = 0
        while True:
            i = data.find(sig, start)
            if i < 0:
                break
            start = i + 1
            out = None
            try:
                if kind == "gz":
                    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    out = d.decompress(data[i:])
                elif kind == "xz":
                    out = lzma.LZMADecompressor().decompress(data[i:])
                elif kind == "bz2":
                    out = bz2.BZ2Decompressor().decompress(data[i:])
                elif zstandard:
                    out = zstandard.ZstdDecompressor().decompressobj().decompress(data[i:])
                else:
                    out = zstd_cli(data[i:])
            except Exception:
                continue
            if out and len(out) > 1 << 20 and len(out) not in seen:
                seen.add(len(out))
                yield out


def blobs(data):
    start = 0
    while True:
        i = data.find(MAGIC, start)
        if i < 0:
            return
        start = i + 1
        if i + 24 > len(data):
            return
        hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<5I", data, i + 4)
        if hdr_len != 24 or type_off != 0 or str_off != type_len or str_len == 0:
            continue
        end = i + hdr_len + str_off + str_len
        if end > len(data):
            continue
        strs = data[i + hdr_len + str_off:end]
        if strs[0] != 0 or strs[-1] != 0:
            continue
        yield data[i:end]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: btf_extract.py VMLINUZ OUT")
    with open(sys.argv[1], "rb") as f:
        image = f.read()
    best = b""
    for data in decompressions(image):
        for b in blobs(data):
            if len(b) > len(best):
                best = b
        if len(best) > 1 << 20:
            break
    if len(best) < 1 << 20:
        sys.exit(f"btf_extract.py: no kernel BTF found in {sys.argv[1]}")
    with open(sys.argv[2], "wb") as f:
        f.write(best)


if __name__ == "__main__":
    main()
