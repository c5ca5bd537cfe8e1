#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fetch one Debian kernel and busybox-static for the VM tier into the cache,
# with a private apt configuration (its own sources list, state and cache
# directories): the host's apt sources are never read or changed.
#
#   tests/vm/fetch.sh CACHE NAME
#
# NAME is one of the kernels of tests/vm/kernels (x86-6.1, arm64-6.12, ...).
# Writes CACHE/kernels/NAME/{vmlinuz,release,version} and
# CACHE/busybox/DEBARCH/busybox. Once those exist nothing is downloaded again:
# a rerun, or a fresh clone on the same machine, uses them as they are.
set -eu

cache=$1
name=$2
here=$(dirname "$0")
line=$(awk -v n="$name" '$1 == n' "$here/kernels")
[ -n "$line" ] || { echo "fetch: unknown kernel '$name' (see tests/vm/kernels)" >&2; exit 2; }
set -- $line
suite=$2
debarch=$3
flavour=$4

mirror=${FXS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${FXS_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# apt with everything it reads or writes under $1; the host's config is not used.
apt_private() {
	d=$1
	shift
	apt-get -q -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State="$d/state" -o Dir::State::status="$d/status" \
		-o Dir::Cache="$d/cache" -o APT::Architecture="$debarch" \
		-o APT::Architectures="$debarch" -o Debug::NoLocking=1 \
		-o APT::Get::AllowUnauthenticated=false -o APT::Sandbox::User=root "$@"
}
apt_cache_private() {
	d=$1
	shift
	apt-cache -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State="$d/state" -o Dir::State::status="$d/status" \
		-o Dir::Cache="$d/cache" -o APT::Architecture="$debarch" \
		-o APT::Architectures="$debarch" "$@"
}

# $1 suite: a private apt root for that suite and this arch, lists updated once.
apt_root() {
	d=$cache/apt/$1-$debarch
	# Lists older than a day may name packages the mirror no longer has.
	if [ ! -s "$d/updated" ] || [ -n "$(find "$d/updated" -mmin +1440)" ]; then
		mkdir -p "$d/state/lists/partial" "$d/cache/archives/partial"
		: >"$d/status"
		{
			echo "deb [arch=$debarch signed-by=$keyring] $mirror $1 main"
			echo "deb [arch=$debarch signed-by=$keyring] $mirror $1-updates main"
			echo "deb [arch=$debarch signed-by=$keyring] $security $1-security main"
		} >"$d/sources.list"
		apt_private "$d" update >&2
		date -u >"$d/updated"
	fi
	echo "$d"
}

# $1 apt root, $2 package, $3 directory: download the .deb, extract it there.
fetch_deb() {
	tmp=$(mktemp -d)
	(cd "$tmp" && apt_private "$1" download "$2" >&2)
	dpkg-deb -x "$tmp"/*.deb "$3"
	rm -rf "$tmp"
}

kdir=$cache/kernels/$name
if [ ! -s "$kdir/vmlinuz" ]; then
	root=$(apt_root "$suite")
	# linux-image-amd64 depends on the current linux-image-6.1.0-N-amd64.
	pkg=$(apt_cache_private "$root" depends "linux-image-$flavour" |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$pkg" ] || { echo "fetch: no kernel package behind linux-image-$flavour in $suite" >&2; exit 1; }
	echo "fetch: $name: $pkg from $suite ($debarch)" >&2
	x=$(mktemp -d)
	fetch_deb "$root" "$pkg" "$x"
	mkdir -p "$kdir"
	img=$(ls "$x"/boot/vmlinu[xz]-* | head -1)
	rel=${img##*/vmlinu?-}
	cp "$x/boot/config-$rel" "$kdir/config"
	apt_cache_private "$root" show "$pkg" | awk '/^Version:/ { print $2; exit }' >"$kdir/version"
	echo "$rel" >"$kdir/release"
	cp "$img" "$kdir/vmlinuz.tmp"
	mv "$kdir/vmlinuz.tmp" "$kdir/vmlinuz"
	rm -rf "$x"
fi

bdir=$cache/busybox/$debarch
if [ ! -x "$bdir/busybox" ]; then
	# busybox-static from Debian 13 for every arch: static, so any kernel runs it.
	root=$(apt_root trixie)
	x=$(mktemp -d)
	fetch_deb "$root" busybox-static "$x"
	mkdir -p "$bdir"
	cp "$x/usr/bin/busybox" "$bdir/busybox.tmp"
	mv "$bdir/busybox.tmp" "$bdir/busybox"
	rm -rf "$x"
fi
