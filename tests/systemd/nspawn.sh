# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What the tiers that boot Debian under systemd-nspawn share (sourced by
# tests/systemd/run.sh and tests/deb/run.sh): the debootstrap rootfs cached in
# .output/rootfs (with the runtime dependencies of fxsampler's package, man-db
# and bash-completion, so apt in the container needs no network), booting it,
# running commands in it, shutting it down. The caller sets ROOT, OUT, ROOTFS,
# SUITE, MACHINE, LOG, TIER, PASS, FAIL and NSPAWN_ARGS.

step() { printf '== %s\n' "$*"; }
ok() { PASS=$((PASS + 1)); printf 'ok:   %s\n' "$*"; }
bad() { FAIL=$((FAIL + 1)); printf 'FAIL: %s\n' "$*"; }

need_tools() {
	local missing=()
	command -v debootstrap >/dev/null || missing+=(debootstrap)
	command -v systemd-nspawn >/dev/null || missing+=(systemd-container)
	command -v nsenter >/dev/null || missing+=(util-linux)
	if [ ${#missing[@]} -gt 0 ]; then
		step "installing ${missing[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
}

# The mirror apt already uses (deb822 URIs: or one-line deb), else Debian's.
mirror() {
	local m
	m=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*debian\/*\)$/\1/p' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
	[ -n "$m" ] || m=$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*debian\/*\)[[:space:]].*/\2/p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -1)
	echo "${m:-http://deb.debian.org/debian}"
}

make_rootfs() {
	[ -f "$ROOTFS/.fxs-rootfs-v5" ] && return 0
	step "debootstrap $SUITE into $ROOTFS (cached for later runs)"
	rm -rf "$ROOTFS" "$ROOTFS.tmp"
	mkdir -p "$OUT"
	local t0=$SECONDS
	debootstrap --variant=minbase \
		--include=systemd,systemd-sysv,dbus,procps,libbpf1,libelf1,zlib1g,libsystemd0,libdw1,libdebuginfod1,libmicrohttpd12,man-db,bash-completion \
		"$SUITE" "$ROOTFS.tmp" "$(mirror)" >"$OUT/debootstrap.log" 2>&1 ||
		{ tail -20 "$OUT/debootstrap.log"; echo "$TIER: debootstrap failed" >&2; exit 1; }
	touch "$ROOTFS.tmp/.fxs-rootfs-v5"
	mv "$ROOTFS.tmp" "$ROOTFS"
	echo "debootstrap took $((SECONDS - t0)) s"
}

NSPAWN_PID=
LEADER=
cleanup() {
	if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
		[ -n "$LEADER" ] && nsenter -t "$LEADER" -a systemctl poweroff 2>/dev/null || true
		for _ in $(seq 40); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.25; done
		kill -KILL "$NSPAWN_PID" 2>/dev/null || true
		wait "$NSPAWN_PID" 2>/dev/null || true
	fi
}
trap cleanup EXIT

# Run a command inside the container (all its namespaces).
in_ct() { nsenter -t "$LEADER" -a "$@"; }

# boot: NSPAWN_ARGS holds the caller's extra options (binds, network).
boot() {
	step "booting $ROOTFS with systemd-nspawn"
	# --volatile=overlay: every run starts from the pristine rootfs.
	# --keep-unit --register=no: the host need not run systemd.
	systemd-nspawn -D "$ROOTFS" --volatile=overlay --boot --capability=all \
		--system-call-filter='bpf perf_event_open' --console=passive \
		--register=no --keep-unit -M "$MACHINE" "${NSPAWN_ARGS[@]}" \
		>"$LOG" 2>&1 &
	NSPAWN_PID=$!
	for _ in $(seq 100); do
		# the container's init, once nspawn's own helper has become it
		LEADER=$(ps -o pid=,comm= --ppid "$NSPAWN_PID" 2>/dev/null |
			awk '$2 == "systemd" { print $1; exit }' || true)
		[ -n "$LEADER" ] && break
		kill -0 "$NSPAWN_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$LEADER" ]; then
		cat "$LOG"
		echo "$TIER: the container did not start" >&2
		exit 1
	fi
	local state=
	for _ in $(seq 300); do
		# "Failed to connect to bus" until systemd has set itself up
		state=$(nsenter -t "$LEADER" -a systemctl is-system-running --wait 2>&1) || true
		case $state in running | degraded | maintenance | stopping) break ;; esac
		sleep 0.2
	done
	if [ "$state" = running ]; then
		ok "container booted ($state)"
	else
		bad "container state '$state'"
		in_ct systemctl --failed --no-pager || true
	fi
}

