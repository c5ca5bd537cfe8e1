#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/data/fpframe/record.sh ROOT: record the stack bytes that
# tests/unit/capture/check_fpframe.c walks. Builds tests/progs/leafchain.c
# with the Debian 13 build root's riscv64-linux-gnu-gcc-12 (ROOT, made by
# cross/root.sh), as the Makefile builds it, runs it under qemu-riscv64-static
# with gdb-multiarch attached, and stops twice: in spin_leaf's loop (a GCC 12
# leaf frame: s0 saved, ra not) and in leaf_caller at its call of spin_leaf (a
# full frame record). Each stop writes riscv64-STOP.txt: the registers pc, sp,
# s0 and ra, then the stack from sp up, one "ADDRESS WORD" line per 8 bytes.
# riscv64-symbols.txt: ADDRESS SIZE NAME of the functions on the chain
# (readelf -s). Run by hand (needs root, qemu-user-static, gdb-multiarch);
# the outputs are committed.
set -eu
root=${1:?usage: tests/data/fpframe/record.sh ROOT}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
t=riscv64-linux-gnu
cp "$src/tests/progs/leafchain.c" "$root/tmp/leafchain.c"
chroot "$root" $t-gcc-12 -O2 -g -fno-omit-frame-pointer -static /tmp/leafchain.c -o /tmp/leafchain
exe=$root/tmp/leafchain
# The functions a walk of the recorded stacks passes through.
chroot "$root" $t-readelf -sW /tmp/leafchain | awk '$4 == "FUNC" && $3 != "0" && $7 != "UND" &&
	$8 ~ /^(spin_leaf|leaf_caller|chain_[abc]|main|__libc_start_call_main|__libc_start_main|_start)$/ {
	print $2, $3, $8 }' | sort -u >"$here/riscv64-symbols.txt"
# The first instruction after `addi s0,sp,16` in spin_leaf, and leaf_caller's call.
dis=$(chroot "$root" $t-objdump -d --no-show-raw-insn /tmp/leafchain)
in_leaf=$(echo "$dis" | awk '/<spin_leaf>:/ { f = 1; next } f && prev ~ /addi[ \t]+s0,sp,/ {
	sub(":", "", $1); print $1; exit } f { prev = $0 }')
at_call=$(echo "$dis" | awk '/<leaf_caller>:/ { f = 1 } f && /jal.*<spin_leaf>/ { sub(":", "", $1); print $1; exit }')
for stop in leaf:$in_leaf nonleaf:$at_call; do
	name=${stop%%:*} addr=${stop#*:}
	qemu-riscv64-static -g 12345 "$exe" 0.05 >/dev/null &
	q=$!
	sleep 1
	gdb-multiarch -q -batch -ex "file $exe" -ex 'target remote :12345' -ex "break *0x$addr" \
		-ex continue -ex 'printf "reg pc %#lx\n", $pc' -ex 'printf "reg sp %#lx\n", $sp' \
		-ex 'printf "reg s0 %#lx\n", $s0' -ex 'printf "reg ra %#lx\n", $ra' -ex 'x/256gx $sp' \
		-ex kill 2>/dev/null >"$here/gdb.out" || true
	kill $q 2>/dev/null || true
	wait $q 2>/dev/null || true
	{
		echo "# tests/data/fpframe/record.sh: leafchain (riscv64-linux-gnu-gcc-12 -O2 -g"
		echo "# -fno-omit-frame-pointer -static) under qemu-riscv64-static, stopped at 0x$addr"
		grep '^reg ' "$here/gdb.out"
		python3 -c 'import re, sys
for l in open(sys.argv[1]):
    m = re.match(r"(0x[0-9a-f]+)(?: <[^>]*>)?:\s+(.*)", l)
    if m:
        for i, w in enumerate(m.group(2).split()):
            print("%#x %s" % (int(m.group(1), 16) + 8 * i, w))' "$here/gdb.out"
	} >"$here/riscv64-$name.txt"
	rm -f "$here/gdb.out"
done
echo "record.sh: $here/riscv64-leaf.txt, riscv64-nonleaf.txt, riscv64-symbols.txt"
