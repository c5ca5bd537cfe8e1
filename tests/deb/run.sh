#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# `make check-deb`: the Debian package as a host gets it. `make deb` has built
# version N (debian/changelog) and N+1 (DEB_VERSION_NEXT, a changelog entry
# added to a copy); lintian checks them here (its output in the log). Then the
# check-systemd rootfs (tests/systemd/nspawn.sh; it holds the package's
# runtime dependencies) boots under systemd-nspawn with no network, and in it:
# `apt install ./fxsampler_N_amd64.deb` alone; the socket is active; a user
# records tests/progs/demo through the socket and report shows its chain;
# man -w finds every page; bash completion of `fxsampler rec` gives
# record; N+1 over N keeps a changed config and runs the new daemon;
# apt remove stops the units and keeps the config; apt purge leaves no file,
# no group, no unit (a list of files from before the install against one from
# after the purge).
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/.output
ROOTFS=$OUT/rootfs
SUITE=bookworm
MACHINE=fxs-deb-$$
LOG=$OUT/check-deb.log
TIER=check-deb
PASS=0
FAIL=0
DEB_DIR=$OUT/deb
V1=${DEB_VERSION_N:?}
V2=${DEB_VERSION_NEXT:?}
ARCH=$(dpkg --print-architecture)
DEB1=fxsampler_${V1}_$ARCH.deb
DEB2=fxsampler_${V2}_$ARCH.deb

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: check-deb needs root (debootstrap, systemd-nspawn); NOT RUN"
	exit 0
fi
for f in "$DEB_DIR/$DEB1" "$DEB_DIR/$DEB2" "$OUT/progs/demo"; do
	[ -f "$f" ] || { echo "check-deb: $f is not built (make check-deb builds it)" >&2; exit 1; }
done

NSPAWN_ARGS=(
	--private-network
	--bind-ro="$DEB_DIR:/srv/debs"
	--bind-ro="$OUT/progs:/opt/progs"
)
# shellcheck source=tests/systemd/nspawn.sh
. "$ROOT/tests/systemd/nspawn.sh"

step "lintian $DEB1, $DEB2 (-EvIL +pedantic)"
if command -v lintian >/dev/null; then
	# lintian refuses nothing as root but warns; its output goes to the log
	lint=$(cd "$DEB_DIR" && lintian -EvIL +pedantic --show-overrides \
		"fxsampler_${V1}_$ARCH.changes" "fxsampler_${V2}_$ARCH.changes" 2>&1 |
		grep -v 'running with root privileges' || true)
	printf '%s\n' "$lint" | sed 's/^/  lintian: /'
	if grep -qE '^[EW]: ' <<<"$lint"; then bad "lintian: errors or warnings (above)"
	else ok "lintian: no error, no warning (overrides, each with its reason: O:)"; fi
else
	bad "lintian is not installed (apt-get install lintian)"
fi

need_tools
make_rootfs
T0=$SECONDS
boot

# Paths that are the system's business, not the package's.
snapshot() {
	in_ct find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o \
		-path /tmp -o -path /var/tmp -o -path /var/log -o -path /var/cache -o \
		-path /var/lib/dpkg -o -path /var/lib/apt -o -path /home \) -prune -o -print |
		sort
}
as_user() { in_ct setpriv --reuid=fxs-user --regid=fxs-user --init-groups env HOME=/home/fxs-user "$@"; }
apt_ct() { in_ct env DEBIAN_FRONTEND=noninteractive apt "$@"; }

in_ct useradd --create-home --shell /bin/sh fxs-user
snapshot >"$OUT/check-deb-before.txt"
groups_before=$(in_ct getent group | cut -d: -f1 | sort)
users_before=$(in_ct getent passwd | cut -d: -f1 | sort)

step "apt install ./$DEB1 (no network in the container)"
if in_ct sh -c "cd /srv/debs && apt install -y ./$DEB1" >"$OUT/check-deb-apt.log" 2>&1; then
	ok "apt install ./$DEB1"
else
	bad "apt install ./$DEB1: $(tail -5 "$OUT/check-deb-apt.log")"
fi
if [ "$(in_ct systemctl is-active fxsamplerd.socket)" = active ]; then ok "fxsamplerd.socket is active"
else bad "fxsamplerd.socket: $(in_ct systemctl is-active fxsamplerd.socket)"; fi
if [ "$(in_ct systemctl is-enabled fxsamplerd.socket)" = enabled ]; then ok "fxsamplerd.socket is enabled"
else bad "fxsamplerd.socket is not enabled"; fi
if in_ct getent group fxsampler >/dev/null; then ok "the group fxsampler exists"
else bad "no group fxsampler"; fi
if in_ct test -d /var/lib/fxsampler; then ok "/var/lib/fxsampler exists"
else bad "no /var/lib/fxsampler"; fi
if in_ct dpkg-query -W -f='${Conffiles}' fxsampler | grep -q /etc/fxsampler/fxsamplerd.conf; then
	ok "/etc/fxsampler/fxsamplerd.conf is a conffile"
else
	bad "the config is not a conffile"
fi

step "a user records tests/progs/demo through the socket"
if as_user fxsampler record -q -o /home/fxs-user/demo.fxt -- /opt/progs/demo 1 1 \
	>"$OUT/check-deb-record.log" 2>&1; then
	ok "fxsampler record -- demo as uid $(in_ct id -u fxs-user)"
else
	bad "fxsampler record: $(tail -3 "$OUT/check-deb-record.log")"
fi
if in_ct systemctl is-active -q fxsamplerd.service; then ok "the socket started fxsamplerd.service"
else bad "fxsamplerd.service is not active"; fi
folded=$(as_user fxsampler report --folded /home/fxs-user/demo.fxt 2>&1 || true)
chain=$(grep -oE ';main;outer;middle;inner [0-9]+$' <<<"$folded" | head -1 || true)
if [ -n "$chain" ]; then ok "report shows the chain: $chain"
else bad "report has no main;outer;middle;inner: $(head -5 <<<"$folded")"; fi

step "man pages and completion"
if w=$(in_ct man -w fxsampler fxsampler-record fxsampler-report fxsampler-format \
	fxsampler-unwind fxsamplerd fxsamplerd.conf 2>&1); then
	ok "man -w: $(tr '\n' ' ' <<<"$w")"
else
	bad "man -w: $w"
fi
# as an interactive bash would: bash-completion loads completions/fxsampler
# on first use
got=$(in_ct bash --norc -c '
	. /usr/share/bash-completion/bash_completion
	__load_completion fxsampler || exit 1
	COMP_WORDS=(fxsampler rec) COMP_CWORD=1 COMP_LINE="fxsampler rec" COMP_POINT=13
	_fxsampler fxsampler rec fxsampler
	echo "${COMPREPLY[*]}"' 2>&1 || true)
if [ "$got" = record ]; then ok "fxsampler rec<TAB> gives '$got'"
else bad "fxsampler rec<TAB> gives '$got'"; fi

step "upgrade $V1 -> $V2 with a changed config"
in_ct sh -c 'echo "max_clients = 8" >>/etc/fxsampler/fxsamplerd.conf'
sum1=$(in_ct sha256sum /etc/fxsampler/fxsamplerd.conf)
pid1=$(in_ct systemctl show -P MainPID fxsamplerd.service)
if in_ct sh -c "cd /srv/debs && apt install -y ./$DEB2" >>"$OUT/check-deb-apt.log" 2>&1; then
	ok "apt install ./$DEB2"
else
	bad "apt install ./$DEB2: $(tail -5 "$OUT/check-deb-apt.log")"
fi
v=$(in_ct dpkg-query -W -f='${Version}' fxsampler)
if [ "$v" = "$V2" ]; then ok "installed version $v"; else bad "installed version $v"; fi
if [ "$(in_ct sha256sum /etc/fxsampler/fxsamplerd.conf)" = "$sum1" ]; then
	ok "the changed config is kept"
else
	bad "the config changed: $(in_ct tail -3 /etc/fxsampler/fxsamplerd.conf)"
fi
if [ "$(in_ct systemctl is-active fxsamplerd.socket)" = active ]; then ok "the socket is active after the upgrade"
else bad "the socket is not active after the upgrade"; fi
if as_user fxsampler status >"$OUT/check-deb-status.log" 2>&1; then ok "fxsampler status after the upgrade"
else bad "fxsampler status: $(cat "$OUT/check-deb-status.log")"; fi
pid2=$(in_ct systemctl show -P MainPID fxsamplerd.service)
exe=$(in_ct readlink "/proc/$pid2/exe" 2>/dev/null || true)
if [ "$pid2" != 0 ] && [ "$pid2" != "$pid1" ] && [ "$exe" = /usr/bin/fxsamplerd ]; then
	ok "the service was restarted: pid $pid1 -> $pid2 ($exe, the new binary)"
else
	bad "the service after the upgrade: pid $pid1 -> $pid2, exe '$exe'"
fi

step "apt remove"
apt_ct remove -y fxsampler >>"$OUT/check-deb-apt.log" 2>&1 && ok "apt remove" || bad "apt remove"
if ! in_ct systemctl is-active -q fxsamplerd.socket && ! in_ct systemctl is-active -q fxsamplerd.service; then
	ok "the socket and the service are stopped"
else
	bad "still active after remove: $(in_ct systemctl is-active fxsamplerd.socket fxsamplerd.service | tr '\n' ' ')"
fi
if [ "$(in_ct sha256sum /etc/fxsampler/fxsamplerd.conf 2>/dev/null)" = "$sum1" ]; then
	ok "remove keeps the config"
else
	bad "remove did not keep the config"
fi

step "apt purge"
apt_ct purge -y fxsampler >>"$OUT/check-deb-apt.log" 2>&1 && ok "apt purge" || bad "apt purge"
snapshot >"$OUT/check-deb-after.txt"
if diff -u "$OUT/check-deb-before.txt" "$OUT/check-deb-after.txt" >"$OUT/check-deb-files.diff"; then
	ok "no file left: $(wc -l <"$OUT/check-deb-after.txt") paths as before the install"
else
	bad "files differ before install / after purge: $(grep -E '^[-+]/' "$OUT/check-deb-files.diff" | head -10 | tr '\n' ' ')"
fi
groups_after=$(in_ct getent group | cut -d: -f1 | sort)
users_after=$(in_ct getent passwd | cut -d: -f1 | sort)
if [ "$groups_after" = "$groups_before" ] && [ "$users_after" = "$users_before" ]; then
	ok "no user or group left"
else
	bad "users/groups differ: $(diff <(echo "$groups_before$users_before") <(echo "$groups_after$users_after") | tr '\n' ' ')"
fi
units=$(in_ct systemctl list-unit-files --no-legend 'fxsampler*' 2>&1 || true)
if [ -z "$units" ]; then ok "no unit left"; else bad "units left: $units"; fi

step "journal"
errs=$(in_ct journalctl -b -p err --no-pager -q 2>&1 || true)
if [ -z "$errs" ]; then ok "no errors in the journal"; else bad "journal errors: $errs"; fi

echo "check-deb: $((SECONDS - T0)) s in the container (logs in $OUT/check-deb-*)"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
