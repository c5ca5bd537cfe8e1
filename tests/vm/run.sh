#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# make check-vm: boot Debian's own kernels under qemu (TCG: no KVM needed)
# with a small initramfs (busybox-static, the static `make cross` builds,
# tests/progs) whose /init (tests/vm/init.sh) runs the live capture checks,
# and print a table per kernel from what comes back on the serial console.
#
#   tests/vm/run.sh CACHE KERNEL...
#
# Kernels and busybox are fetched into CACHE once (tests/vm/fetch.sh). The
# binaries must be in .output/cross/ARCH (make cross ARCH=...). Exit 1 when
# a check fails or a VM does not finish; SKIPs are listed with the reason.
set -u

cache=$1
shift
names=$*
here=$(cd "$(dirname "$0")" && pwd)
out=.output/vm
jobs=${VM_JOBS:-2}
timeout=${VM_TIMEOUT:-300}
mkdir -p "$out"

# NAME -> "SUITE DEBARCH FLAVOUR QEMUARCH EXPECT"
kernel_line() { awk -v n="$1" '$1 == n { $1 = ""; print }' "$here/kernels"; }

# The python check's interpreter: the host's own Debian 12 python3.11, where
# the VM's arch is the host's, with its libraries and the least of its
# standard library it starts with (-S: no site; the landmarks os.py and
# lib-dynload/ that it looks for its prefix by). No other arch has one here.
add_python() {
	root=$1 arch=$2 py=/usr/bin/python3.11 lib=/usr/lib/python3.11
	case $(uname -m) in x86_64) host=x86 ;; aarch64) host=arm64 ;; *) host=$(uname -m) ;; esac
	[ "$arch" = "$host" ] && [ -x $py ] || return 0
	mkdir -p "$root/usr/bin" "$root$lib/encodings" "$root$lib/lib-dynload"
	cp $py "$root/usr/bin/"
	for l in $(ldd $py | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done
	cp $lib/os.py "$root$lib/"
	cp $lib/encodings/__init__.py $lib/encodings/aliases.py $lib/encodings/utf_8.py \
		$lib/encodings/latin_1.py $lib/encodings/ascii.py "$root$lib/encodings/"
	cp "$here/chain.py" "$root/fxs/"
}

# The initramfs for one arch: busybox, the static binaries, the programs.
make_initrd() {
	arch=$1 debarch=$2
	root=$out/$arch/root
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/fxs/progs" "$root/dev" "$root/proc" "$root/sys" "$root/tmp"
	cp "$cache/busybox/$debarch/busybox" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cp "$here/init.sh" "$root/init"
	chmod 0755 "$root/init" "$root/bin/busybox"
	cp .output/cross/$arch/fxsampler .output/cross/$arch/fxsamplerd "$root/fxs/"
	for p in .output/cross/$arch/progs/*; do
		# Static programs, and nofp_dyn with the loader and libc it was
		# linked with (Debian's, for the arch: make cross's sysroot/).
		file -L "$p" | grep -q 'statically linked' && cp "$p" "$root/fxs/progs/"
	done
	cp .output/cross/$arch/progs/nofp_dyn "$root/fxs/progs/"
	cp -a .output/cross/$arch/sysroot/. "$root/"
	add_python "$root" "$arch"
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out/$arch/initrd.gz"
}

# Boot one kernel; its console goes to $out/NAME.log.
boot() {
	name=$1 qarch=$2 expect=$3
	k=$cache/kernels/$name
	initrd=$out/$qarch/initrd.gz
	log=$out/$name.log
	# One host thread for both vCPUs (thread=single): a VM starved on a busy
	# host then never has one vCPU spin on a lock the other, descheduled, holds.
	common="-m 1024 -smp 2 -nographic -no-reboot -monitor none -serial stdio -kernel $k/vmlinuz -initrd $initrd"
	# loglevel=4: the kernel's errors (soft lockups, RCU stalls) reach the log.
	args="quiet loglevel=4 panic=-1 fxsvm.expect=$expect"
	case $qarch in
	x86)
		set -- qemu-system-x86_64 -accel tcg,thread=single -cpu max $common -append "console=ttyS0 $args" ;;
	arm64)
		set -- qemu-system-aarch64 -accel tcg,thread=single -M virt -cpu cortex-a72 $common \
			-append "console=ttyAMA0 $args" ;;
	riscv64)
		set -- qemu-system-riscv64 -accel tcg,thread=single -M virt -bios default $common \
			-append "console=ttyS0 $args" ;;
	esac
	start=$(date +%s)
	timeout "$timeout" "$@" </dev/null >"$log" 2>&1
	echo "$? $(($(date +%s) - start))" >"$out/$name.status"
}

for name in $names; do
	line=$(kernel_line "$name")
	[ -n "$line" ] || { echo "check-vm: unknown kernel '$name' (see tests/vm/kernels)" >&2; exit 2; }
	set -- $line
	q=qemu-system-$(echo "$4" | sed 's/^x86$/x86_64/; s/^arm64$/aarch64/')
	command -v "$q" >/dev/null || { echo "check-vm: $q is missing (make deps installs it)" >&2; exit 1; }
	[ -x .output/cross/$4/fxsampler ] ||
		{ echo "check-vm: no .output/cross/$4/fxsampler: run make cross ARCH=$4" >&2; exit 1; }
done

# Build each arch's initramfs once, then boot up to $jobs kernels at a time.
archs=
for name in $names; do
	set -- $(kernel_line "$name")
	case " $archs " in *" $4 "*) ;; *) archs="$archs $4"; make_initrd "$4" "$2" ;; esac
done
running=0
for name in $names; do
	line=$(kernel_line "$name")
	set -- $line
	rm -f "$out/$name.status"
	boot "$name" "$4" "$5" &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

# One table per kernel, and the summary for the README.
fail=0
summary=$out/summary.md
checks="norun nobtf fallback record chain threads leaf fpleaf offleaf nofp nofpdyn byfile filter fork counters maxframes deep badfp kstack python oldkernel olddaemon"
{
	printf '| arch | kernel | boot |'
	for c in $checks; do printf ' %s |' "$c"; done
	printf '\n|---|---|---|'
	for c in $checks; do printf -- '---|'; done
	printf '\n'
} >"$summary"
for name in $names; do
	log=$out/$name.log
	read -r rc secs <"$out/$name.status"
	info=$(sed -n 's/.*FXSVM: KERNEL //p' "$log" | tr -d '\r' | head -1)
	release=$(echo "$info" | cut -d'|' -f1)
	stable=$(echo "$info" | cut -d'|' -f2 | sed -n 's/.*Debian \([^ ]*\).*/\1/p')
	machine=$(echo "$info" | cut -d'|' -f3)
	uptime=$(echo "$info" | cut -d'|' -f4)
	ncpu=$(echo "$info" | cut -d'|' -f5)
	echo "== $name: Debian ${stable:-?} ($release), $machine, $ncpu cpus under qemu TCG:" \
		"init at ${uptime:-?} s, ${secs} s in all"
	results=$(tr -d '\r' <"$log" | sed -n 's/.*FXSVM: RESULT //p')
	if [ -z "$info" ] || ! grep -q 'FXSVM: DONE' "$log"; then
		if [ "$rc" = 124 ]; then why="timed out after $timeout s"; else why="qemu exit $rc"; fi
		echo "  FAIL  the VM did not finish ($why); last lines of $log:"
		tr -d '\r' <"$log" | grep -v 'FXSVM: RESULT' | tail -12 | sed 's/^/        /'
		fail=1
	fi
	echo "$results" | while read -r c st detail; do
		[ -n "$c" ] && printf '  %-5s %-10s %s\n' "$st" "$c" "$detail"
	done
	echo "$results" | grep -q '^[a-z]* FAIL' && fail=1
	echo "$results" | grep '^[a-z]* SKIP' | sed "s/^/  SKIP: $name: /; s/\$/; NOT RUN/"
	set -- $(kernel_line "$name")
	case $1 in bullseye) deb=11 ;; bookworm) deb=12 ;; trixie) deb=13 ;; *) deb=$1 ;; esac
	row="| $machine | Debian $deb: ${stable:-?} (\`$release\`) | ${uptime:-?} s |"
	for c in $checks; do
		st=$(echo "$results" | awk -v c="$c" '$1 == c { print $2 }')
		row="$row ${st:--} |"
	done
	echo "$row" >>"$summary"
done
echo "check-vm: summary in $summary"
exit $fail
