#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# `make check-systemd`: fxsamplerd under a real systemd. A Debian rootfs made
# with debootstrap (cached in .output/rootfs) is booted with systemd-nspawn,
# with this tree's binaries and units bound into it; then, inside: the units
# pass `systemd-analyze verify`, the socket starts, an unprivileged user
# captures its own process through the socket with the CLI (validated with
# `fxsampler dump`), a host-wide capture is refused to it and granted once it
# is in the fxsampler group, the service stops, and the journal has no errors;
# then the HTTP endpoint: with http_listen on 127.0.0.1 the hardened unit
# alone refuses the socket (no AF_INET), and with the drop-in
# fxsamplerd-http.conf a scrape through it answers 200.
#
# The first run (debootstrap) takes about 2 minutes; later runs about 30 s.
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/.output
ROOTFS=$OUT/rootfs
SUITE=bookworm
MACHINE=fxs-check-$$
LOG=$OUT/check-systemd.log
PASS=0
FAIL=0

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: check-systemd needs root (debootstrap, systemd-nspawn); NOT RUN"
	exit 0
fi
for b in fxsampler fxsamplerd; do
	[ -x "$ROOT/$b" ] || { echo "check-systemd: ./$b is not built (run make)" >&2; exit 1; }
done

u=/etc/systemd/system
TIER=check-systemd
NSPAWN_ARGS=(
	--bind-ro="$ROOT/fxsampler:/usr/local/bin/fxsampler"
	--bind-ro="$ROOT/fxsamplerd:/usr/local/bin/fxsamplerd"
	--bind-ro="$ROOT/systemd/fxsamplerd.service:$u/fxsamplerd.service"
	--bind-ro="$ROOT/systemd/fxsamplerd.socket:$u/fxsamplerd.socket"
	--bind-ro="$ROOT/systemd/fxsampler.sysusers:/etc/sysusers.d/fxsampler.conf"
	--bind-ro="$ROOT/systemd/fxsampler.tmpfiles:/etc/tmpfiles.d/fxsampler.conf"
	--bind-ro="$ROOT/systemd/fxsamplerd-http.conf:/usr/local/share/fxsampler/fxsamplerd-http.conf"
	# the pages the service's Documentation= names (systemd-analyze verify runs man)
	--bind-ro="$ROOT/docs/man/fxsampler.1:/usr/local/share/man/man1/fxsampler.1"
	--bind-ro="$ROOT/docs/man/fxsamplerd.8:/usr/local/share/man/man8/fxsamplerd.8"
	--bind-ro="$ROOT/docs/man/fxsamplerd.conf.5:/usr/local/share/man/man5/fxsamplerd.conf.5"
)
# shellcheck source=tests/systemd/nspawn.sh
. "$ROOT/tests/systemd/nspawn.sh"

need_tools
make_rootfs
T0=$SECONDS
boot

step "units"
out=$(in_ct systemd-analyze verify /etc/systemd/system/fxsamplerd.service \
	/etc/systemd/system/fxsamplerd.socket 2>&1) || true
if [ -z "$out" ]; then ok "systemd-analyze verify is clean"; else bad "systemd-analyze verify: $out"; fi
if in_ct getent group fxsampler >/dev/null; then ok "sysusers made the group fxsampler"
else bad "no group fxsampler"; fi
if in_ct test -d /var/lib/fxsampler -a -f /run/fxsampler.lock; then ok "tmpfiles made its paths"
else bad "tmpfiles paths missing"; fi

step "socket activation"
in_ct systemctl start fxsamplerd.socket
if in_ct test -S /run/fxsampler/control.sock; then ok "fxsamplerd.socket listens"
else bad "no /run/fxsampler/control.sock"; fi
if ! in_ct systemctl is-active -q fxsamplerd.service; then ok "the service waits for a client"
else bad "the service started before any client"; fi

in_ct useradd --create-home --shell /bin/sh fxs-user
USER_UID=$(in_ct id -u fxs-user)
# The user's own busy process, and a capture of it through the daemon.
in_ct setpriv --reuid=fxs-user --regid=fxs-user --init-groups \
	sh -c 'i=0; while :; do i=$((i+1)); done' &
SPIN_NS=$!
sleep 0.5
SPIN=$(in_ct pgrep -u fxs-user -x sh | head -1)
as_user() { in_ct setpriv --reuid=fxs-user --regid=fxs-user --init-groups env HOME=/home/fxs-user "$@"; }

step "capture through the socket as uid $USER_UID"
if as_user /usr/local/bin/fxsampler record -p "$SPIN" -d 2 -o /home/fxs-user/own.fxt \
	>"$OUT/check-systemd-record.log" 2>&1; then
	ok "fxsampler record -p $SPIN (own process) through the daemon"
else
	bad "fxsampler record through the daemon: $(tail -3 "$OUT/check-systemd-record.log")"
fi
if in_ct systemctl is-active -q fxsamplerd.service; then ok "the first client started the service"
else bad "fxsamplerd.service is not active"; fi
n=$(as_user /usr/local/bin/fxsampler dump /home/fxs-user/own.fxt 2>/dev/null |
	grep -c backtrace || true)
if [ "${n:-0}" -gt 10 ]; then ok "fxsampler dump: $n backtraces"
else bad "fxsampler dump: ${n:-0} backtraces"; fi

step "authorization"
msg=$(as_user /usr/local/bin/fxsampler record -p 1 -d 1 -o /home/fxs-user/no.fxt 2>&1) && rc=0 || rc=$?
if [ "$rc" = 1 ] && grep -q "pid 1 belongs to uid 0, not to uid $USER_UID" <<<"$msg"; then
	ok "root's process refused: $msg"
else
	bad "root's process: exit $rc: $msg"
fi
msg=$(as_user /usr/local/bin/fxsampler record -a -d 1 -o /home/fxs-user/host.fxt 2>&1) && rc=0 || rc=$?
if [ "$rc" = 1 ] && grep -q "group 'fxsampler'" <<<"$msg"; then ok "host-wide refused: $msg"
else bad "host-wide without the group: exit $rc: $msg"; fi
in_ct usermod -a -G fxsampler fxs-user
if as_user /usr/local/bin/fxsampler record -a -d 1 -o /home/fxs-user/host.fxt \
	>>"$OUT/check-systemd-record.log" 2>&1; then
	ok "host-wide granted to the group fxsampler"
else
	bad "host-wide in the group: $(tail -3 "$OUT/check-systemd-record.log")"
fi
if as_user /usr/local/bin/fxsampler status >"$OUT/check-systemd-status.log" 2>&1 &&
	grep -q idle "$OUT/check-systemd-status.log"; then
	ok "fxsampler status through the daemon"
else
	bad "fxsampler status: $(cat "$OUT/check-systemd-status.log")"
fi

step "reload and stop"
in_ct systemctl reload fxsamplerd.service && ok "systemctl reload" || bad "systemctl reload"
in_ct kill "$SPIN" 2>/dev/null || true
kill "$SPIN_NS" 2>/dev/null || true
in_ct systemctl stop fxsamplerd.service fxsamplerd.socket
if ! in_ct systemctl is-active -q fxsamplerd.service; then ok "systemctl stop"
else bad "the service is still active"; fi

step "journal"
errs=$(in_ct journalctl -b -p err --no-pager -q 2>&1 || true)
if [ -z "$errs" ]; then ok "no errors in the journal"; else bad "journal errors: $errs"; fi
in_ct journalctl -b -u fxsamplerd.service -u fxsamplerd.socket --no-pager -q \
	>"$OUT/check-systemd-journal.log" 2>&1 || true
if grep -q "listening on the socket passed by systemd" "$OUT/check-systemd-journal.log"; then
	ok "the daemon logged to the journal"
else
	bad "no daemon messages in the journal (see $OUT/check-systemd-journal.log)"
fi

step "the HTTP endpoint"
# a scrape of 1 s through bash's /dev/tcp: the answer's status line
scrape() {
	in_ct timeout 20 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6060 &&
		printf "GET /debug/pprof/profile?seconds=1 HTTP/1.0\r\n\r\n" >&3 && head -1 <&3' 2>&1
}
in_ct sh -c 'mkdir -p /etc/fxsampler && printf "continuous = yes\nhttp_listen = 127.0.0.1:6060\n" >/etc/fxsampler/fxsamplerd.conf'
in_ct systemctl start fxsamplerd.service 2>/dev/null || true
sleep 1
in_ct journalctl -b -u fxsamplerd.service --no-pager -q >"$OUT/check-systemd-http.log" 2>&1 || true
if ! in_ct systemctl is-active -q fxsamplerd.service &&
	grep -q "http: cannot listen on 127.0.0.1:6060" "$OUT/check-systemd-http.log"; then
	ok "without the drop-in the hardened unit allows no TCP socket"
else
	bad "http_listen without the drop-in: $(tail -3 "$OUT/check-systemd-http.log")"
fi
in_ct install -D -m 0644 /usr/local/share/fxsampler/fxsamplerd-http.conf \
	/etc/systemd/system/fxsamplerd.service.d/http.conf
in_ct systemctl daemon-reload
out=$(in_ct systemd-analyze verify /etc/systemd/system/fxsamplerd.service 2>&1) || true
if [ -z "$out" ]; then ok "systemd-analyze verify with the drop-in is clean"
else bad "systemd-analyze verify with the drop-in: $out"; fi
in_ct systemctl reset-failed fxsamplerd.service || true
in_ct systemctl start fxsamplerd.socket fxsamplerd.service || true
for _ in $(seq 50); do
	in_ct journalctl -b -u fxsamplerd.service --no-pager -q 2>/dev/null | grep -q "http: serving" && break
	sleep 0.1
done
line=$(scrape)
if grep -q " 200 " <<<"$line"; then ok "with the drop-in a scrape answers: $line"
else bad "with the drop-in, a scrape: $line"; fi
in_ct systemctl stop fxsamplerd.service fxsamplerd.socket

echo "check-systemd: $((SECONDS - T0)) s in the container (logs in $OUT/check-systemd-*.log)"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
