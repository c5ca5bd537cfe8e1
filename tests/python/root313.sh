#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/python/root313.sh ROOT: make (once per machine) a minimal Debian 13
# (trixie) root at ROOT with Debian's python3.13, for the live tests of the
# Python 3.13 walk. Debian 12 has no python3.13; chroot ROOT python3.13 runs
# trixie's interpreter on the host's kernel, so the host's sampler profiles it.
# Kept apart from cross/root.sh's build root (slow to remake) and, like it,
# outside the clone ($(FXS_CACHE)/py313-root): ROOT.stamp records what it was
# made with, and a fresh clone on the same machine reuses it. Runs as root.
set -eu

root=${1:?usage: tests/python/root313.sh ROOT}
mirror=${FXS_MIRROR:-http://deb.debian.org/debian}
suite=trixie
pkgs="python3.13"
want="$suite $mirror $pkgs"

if [ "$(id -u)" != 0 ]; then
	echo "root313.sh: making the python3.13 root needs root (debootstrap)" >&2
	exit 1
fi
if ! command -v debootstrap >/dev/null; then
	echo "root313.sh: no debootstrap (make deps installs it)" >&2
	exit 1
fi
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9
if [ -f "$root.stamp" ] && [ "$(cat "$root.stamp")" = "$want" ] && [ -x "$root/usr/bin/python3.13" ]; then
	exit 0
fi
echo "== debootstrap $suite with $pkgs into $root (once per machine, ~3 min)"
start=$(date +%s)
rm -rf "$root.tmp"
# The host's apt lock: another debootstrap or apt-get must not race this one
# on the machine's mirror bandwidth and caches.
flock /tmp/fxs-apt.lock debootstrap --variant=minbase --include="$(echo "$pkgs" | tr ' ' ,)" \
	"$suite" "$root.tmp" "$mirror" >"$root.log" 2>&1 || {
	echo "root313.sh: debootstrap failed; see $root.log" >&2
	tail -5 "$root.log" >&2
	exit 1
}
rm -rf "$root"
mv "$root.tmp" "$root"
echo "$want" >"$root.stamp"
echo "== $root made in $(($(date +%s) - start)) s"
