#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# cross/elf-fixtures.sh ROOT CACHE: rebuild tests/data/elf/ARCH/ for arm64 and
# riscv64 (committed, so `make check` needs no cross toolchain): exe and
# lib.so from tests/data/elf/fixture.c by the Debian 13 cross compilers in
# ROOT, vdso.so copied out of Debian's kernel image for the arch (cached in
# CACHE by cross/vmlinux.sh), and symbols.txt, what binutils' readelf and nm
# say of each, which the unit test checks libelf's reading against.
# `--in-root ARCH` is the part that runs inside ROOT, in the source tree.
set -eu

triplet() {
	case $1 in
	arm64) echo aarch64-linux-gnu ;;
	riscv64) echo riscv64-linux-gnu ;;
	esac
}

if [ "${1:-}" = --in-root ]; then
	arch=$2 t=$(triplet "$2") out=tests/data/elf/$2
	# Debian 13 builds arm64 packages with pointer authentication and BTI.
	flags=$([ "$arch" = arm64 ] && echo -mbranch-protection=standard || true)
	"$t-gcc" -O1 -g0 -fno-inline -fPIE -pie $flags -o "$out/exe" tests/data/elf/fixture.c
	"$t-gcc" -O1 -g0 -fno-inline -fPIC -shared $flags -DFXS_LIB -o "$out/lib.so" \
		tests/data/elf/fixture.c
	"$t-strip" --strip-all "$out/lib.so"
	{
		echo "# FILE build-id HEX, then FILE ADDRESS SIZE NAME per sized defined"
		echo "# FUNC/IFUNC symbol (readelf -n; readelf -s for exe, --dyn-syms for the others)"
		for f in exe lib.so vdso.so; do
			echo "$f build-id $("$t-readelf" -n "$out/$f" | sed -n 's/.*Build ID: //p')"
			case $f in exe) o=-sW ;; *) o=--dyn-syms\ -W ;; esac
			"$t-readelf" $o "$out/$f" | awk -v f="$f" '($4 == "FUNC" || $4 == "IFUNC") &&
				$7 != "UND" && $3 != "0" && NF == 8 { print f, $2, $3, $8 }'
		done
	} >"$out/symbols.txt"
	exit 0
fi

root=${1:?usage: cross/elf-fixtures.sh ROOT CACHE}
cache=${2:?usage: cross/elf-fixtures.sh ROOT CACHE}
here=$(cd "$(dirname "$0")/.." && pwd)
for arch in arm64 riscv64; do
	case $arch in
	arm64) suite=bookworm-arm64 ;;
	riscv64) suite=trixie-riscv64 ;;
	esac
	out=$here/tests/data/elf/$arch
	mkdir -p "$out"
	deb=$(ls "$cache"/vmlinux/$suite/deb/linux-image-*.deb 2>/dev/null | head -1)
	if [ -z "$deb" ]; then
		echo "cross/elf-fixtures.sh: no $arch kernel package: run 'make vmlinux ARCH=$arch' first" >&2
		exit 1
	fi
	tmp=$(mktemp -d)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './boot/vmlinu[xz]-*'
	python3 "$here/cross/vdso_extract.py" "$tmp"/boot/vmlinu[xz]-* "$arch" "$out/vdso.so"
	rm -rf "$tmp"
	unshare -m sh -c 'mount --bind "$1" "$0/src" && shift && exec chroot "$0" "$@"' \
		"$root" "$here" sh -c 'cd /src && exec sh cross/elf-fixtures.sh --in-root "$0"' "$arch"
	echo "# vdso.so: from $(basename "$deb")" >>"$out/symbols.txt"
	echo "elf-fixtures: $out"
done
