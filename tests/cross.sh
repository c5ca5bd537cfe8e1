#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/cross.sh ARCH CAPTURE_TOOL: smoke test of `make cross ARCH=ARCH`'s
# static binaries, without BPF: run on the host if it is that arch, else
# under Debian's qemu-user-static. fxsampler and fxsamplerd start and print
# their usage; fxsamplerd runs socket-activated and notifies (activate.py); fxsampler's report symbolizes captures of the arm64 and
# riscv64 ELF fixtures (tests/data/elf/) with the chain binutils names, and
# of the arch's own progs/leafchain (-O2, a true leaf); static and dynamic
# test programs run. CAPTURE_TOOL is
# tests/cross/capture.c, built for the host.
set -eu
arch=${1:?usage: tests/cross.sh ARCH CAPTURE_TOOL}
capture=${2:?usage: tests/cross.sh ARCH CAPTURE_TOOL}
dir=.output/cross/$arch
host=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

case $arch in
"$host") run= ;;
x86) run=qemu-x86_64-static ;;
arm64) run=qemu-aarch64-static ;;
riscv64) run=qemu-riscv64-static ;;
*) echo "tests/cross.sh: unknown arch $arch" >&2; exit 2 ;;
esac
if [ -n "$run" ] && ! command -v "$run" >/dev/null; then
	echo "SKIP: check-cross $arch: $run missing (apt-get install qemu-user-static); NOT RUN"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: check-cross $arch: $*" >&2
	exit 1
}

$run "$dir/fxsampler" --help >"$tmp/out" 2>&1 || fail "fxsampler --help: $(cat "$tmp/out")"
grep -q '^usage: fxsampler' "$tmp/out" || fail "fxsampler --help printed: $(head -3 "$tmp/out")"
$run "$dir/fxsamplerd" --help >"$tmp/out" 2>&1 || fail "fxsamplerd --help: $(cat "$tmp/out")"
grep -q 'usage: fxsamplerd' "$tmp/out" || fail "fxsamplerd --help printed: $(head -3 "$tmp/out")"
# A bad input is one line and exit 1, as on the host.
if $run "$dir/fxsampler" report "$tmp/none.fxt" >"$tmp/out" 2>&1; then
	fail "report of a missing file succeeded"
fi
grep -q 'none.fxt' "$tmp/out" || fail "report of a missing file: $(cat "$tmp/out")"

for elf in arm64 riscv64; do
	syms=tests/data/elf/$elf/symbols.txt
	addr() { awk -v n="$1" '$1 == "exe" && $4 == n { print $2 }' "$syms"; }
	"$capture" "$tmp/$elf.fxt" "tests/data/elf/$elf/exe" "$(addr fxs_static_leaf)" \
		"$(addr fxs_alpha)" "$(addr fxs_beta)" "$(addr main)" ||
		fail "could not write the $elf capture"
	$run "$dir/fxsampler" report --folded "$tmp/$elf.fxt" >"$tmp/out" 2>&1 ||
		fail "report of the $elf capture: $(cat "$tmp/out")"
	want='target;target;main;fxs_beta;fxs_alpha;fxs_static_leaf 10'
	[ "$(cat "$tmp/out")" = "$want" ] ||
		fail "report of the $elf capture: want '$want', got '$(cat "$tmp/out")'"
done
# The arch's own progs/leafchain, built as users build (-O2, Debian's GCC,
# a true leaf): report names its whole chain, no clone suffix, no unknown.
leaf=$dir/progs/leafchain
laddr() { readelf -sW "$leaf" | awk -v n="$1" '$4 == "FUNC" && $8 == n { print $2; exit }'; }
"$capture" "$tmp/leaf.fxt" "$leaf" "$(laddr spin_leaf)" "$(laddr leaf_caller)" "$(laddr chain_c)" \
	"$(laddr chain_b)" "$(laddr chain_a)" "$(laddr main)" || fail "could not write the leafchain capture"
$run "$dir/fxsampler" report --folded "$tmp/leaf.fxt" >"$tmp/out" 2>&1 ||
	fail "report of the leafchain capture: $(cat "$tmp/out")"
want='target;target;main;chain_a;chain_b;chain_c;leaf_caller;spin_leaf 10'
[ "$(cat "$tmp/out")" = "$want" ] ||
	fail "report of the leafchain capture: want '$want', got '$(cat "$tmp/out")'"
$run "$leaf" 0.05 >"$tmp/out" 2>&1 || fail "progs/leafchain: $(cat "$tmp/out")"
$run "$leaf" 0.05 sleep >"$tmp/out" 2>&1 || fail "progs/leafchain sleep: $(cat "$tmp/out")"
$run "$dir/progs/demo" 0.05 1 >"$tmp/out" 2>&1 || fail "progs/demo: $(cat "$tmp/out")"
# The static daemon as systemd starts it: socket activation and sd_notify.
# Natively only: fxsamplerd probes the kernel's BPF before it is ready, and
# qemu-user has no bpf() (the same C code is checked natively, on the host).
daemon="fxsamplerd socket-activated with sd_notify"
if [ -z "$run" ]; then
	python3 tests/cross/activate.py "$dir" tests/data/config/fxsamplerd.conf "$run" ||
		fail "fxsamplerd under socket activation"
else
	echo "SKIP: check-cross $arch: $daemon: qemu-user has no bpf() for the daemon's kernel probe; NOT RUN"
	daemon="(daemon: SKIP)"
fi
# The dynamic one, with the loader and libc of sysroot/ (qemu-user's prefix).
QEMU_LD_PREFIX=$dir/sysroot $run "$dir/progs/dlopener" 0.05 >"$tmp/out" 2>&1 ||
	fail "progs/dlopener with $dir/sysroot: $(cat "$tmp/out")"
echo "check-cross $arch: ok (${run:-native}): usage, report of arm64 and riscv64 captures" \
	"and of progs/leafchain's, $daemon, progs/demo, progs/leafchain (spin, sleep), progs/dlopener"

