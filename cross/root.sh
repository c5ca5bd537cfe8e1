#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# cross/root.sh ROOT: make (or bring up to date) a Debian 13 (trixie) build
# root at ROOT with the arm64 and riscv64 cross toolchains and the static
# libraries fxsampler links. Debian 12 has no riscv64 port, so no riscv64
# libbpf; Debian 13 has both arches. The root lives outside the clone (make
# passes $(FXS_CACHE)/trixie-root) so a fresh clone on the same machine reuses
# it; ROOT.stamp records the package list it was made with, and a changed list
# installs the difference. Runs as root (debootstrap, chroot).
set -eu

root=${1:?usage: cross/root.sh ROOT}
mirror=${FXS_MIRROR:-http://deb.debian.org/debian}
suite=trixie
arches="arm64 riscv64"
pkgs="make pkg-config file"
for a in $arches; do
	pkgs="$pkgs crossbuild-essential-$a libbpf-dev:$a libelf-dev:$a zlib1g-dev:$a libzstd-dev:$a"
	# demangling (symbols/demangle.h): libiberty.a of the arch
	pkgs="$pkgs libiberty-dev:$a"
done
# tests/progs/leafchain on riscv64: GCC 12's leaf frame saves s0 but not ra.
pkgs="$pkgs gcc-12-riscv64-linux-gnu"
want="$suite $mirror $pkgs"

if [ "$(id -u)" != 0 ]; then
	echo "cross/root.sh: making the build root needs root (debootstrap, chroot)" >&2
	exit 1
fi
mkdir -p "$(dirname "$root")"
# One maker at a time: two clones building at once share the root.
exec 9>"$root.lock"
flock 9
if [ -f "$root.stamp" ] && [ "$(cat "$root.stamp")" = "$want" ]; then
	exit 0
fi

if [ ! -x "$root/usr/bin/apt-get" ]; then
	echo "== debootstrap $suite into $root (once per machine)"
	rm -rf "$root.tmp"
	debootstrap --variant=minbase --include=ca-certificates "$suite" "$root.tmp" "$mirror"
	rm -rf "$root"
	mv "$root.tmp" "$root"
fi

# Inside the root: its own apt, never the host's sources. A private mount
# namespace gives it /proc and /dev and drops them when it exits.
in_root() {
	unshare -m sh -c 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" &&
		exec chroot "$0" "$@"' "$root" "$@"
}
echo "deb $mirror $suite main" >"$root/etc/apt/sources.list"
for a in $arches; do
	in_root dpkg --add-architecture "$a"
done
echo "== installing the cross toolchains into $root"
in_root apt-get update -qq
# shellcheck disable=SC2086
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	-o Dpkg::Use-Pty=0 $pkgs >"$root.log"
in_root apt-get clean
echo "$want" >"$root.stamp"
