# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Shell helpers of check-report's tiers, sourced. The caller defines fail(),
# or begin_tier does; start_daemon also wants $dbin (fxsamplerd) and $tmp,
# and sets $dpid.

# free_port [K]: a TCP port nothing listens on, from 20000 + (our pid + K) mod 20000
free_port()
{
	p=$((20000 + ($$ + ${1:-0}) % 20000))
	while ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; do p=$((p + 1)); done
	echo "$p"
}

# within A B [POINTS]: |A - B| <= POINTS, 3 by default (points of a share)
within()
{
	awk -v a="$1" -v b="$2" -v p="${3:-3}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= p) }'
}

# end_tier: a tier's EXIT trap (trap end_tier EXIT): every child of the
# tier's shell ended and waited for (the target it started, $npid, the
# daemon, $dpid, and what a failure left running besides: a second target,
# a scrape), the user's folder ($user) removed if set.
end_tier()
{
	pkill -P $$ 2>/dev/null || true
	wait 2>/dev/null
	[ -n "${user:-}" ] && rm -rf "$user"
	true
}

# on_exit FUNC: FUNC runs at the shell's exit, on SIGHUP, SIGINT and SIGTERM
# too (sh runs no EXIT trap for a signal it does not trap)
on_exit()
{
	trap "$1" EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# begin_tier NAME FXSAMPLER FXSAMPLERD TMPDIR: a script tier's start: $bin,
# $dbin and $tmp set, in $tmp; fail() says "FAIL: NAME: ..." with the end of
# the daemon's log, and end_tier runs at the exit (on_exit).
begin_tier()
{
	tier=$1 bin=$2 dbin=$3 tmp=$4
	cd "$tmp"
	npid= dpid= user=
	on_exit end_tier
	fail()
	{
		echo "FAIL: $tier: $*"
		[ -f "$tmp/log" ] && tail -20 "$tmp/log"
		exit 1
	}
}

# spin_user NAME: node is there (or fail), and $user, a folder
# /tmp/fxs_NAME.XXXXXX with jit/spin.js that any user reads ($tmp's parents
# may be 0700)
spin_user()
{
	command -v node >/dev/null || fail "node not found (make deps installs nodejs)"
	user=$(mktemp -d "/tmp/fxs_$1.XXXXXX")
	cp "$here/jit/spin.js" "$user/spin.js"
	chmod 644 "$user/spin.js"
}

# share NAME FILE: NAME's share in FILE's "name share" lines (jit/shares.py's)
share()
{
	awk -v n="$1" '$1 == n { print $2 }' "$2"
}

# start_daemon CONFIG: fxsamplerd in the background, once it serves HTTP; its log is $tmp/log.
# SIGTERM reaches it when the tier's shell dies, whatever killed the shell.
start_daemon()
{
	: >"$tmp/log"
	setpriv --pdeathsig TERM "$dbin" -v --socket "$tmp/sock" --config "$1" 2>>"$tmp/log" &
	dpid=$!
	i=0
	until grep -q "http: serving" "$tmp/log"; do
		kill -0 "$dpid" 2>/dev/null || fail "fxsamplerd exited: $(cat "$tmp/log")"
		i=$((i + 1))
		[ $i -lt 100 ] || fail "fxsamplerd does not serve HTTP after 10 s"
		sleep 0.1
	done
}

# start_continuous PORT [LINE...]: start_daemon with $tmp/conf: continuous
# mode at 999 Hz into $tmp/data, HTTP on 127.0.0.1:PORT, each LINE more
start_continuous()
{
	mkdir -p "$tmp/data"
	printf '%s\n' "continuous = yes" "continuous_frequency = 999" "directory = $tmp/data" \
		"http_listen = 127.0.0.1:$1" >"$tmp/conf"
	shift
	[ $# = 0 ] || printf '%s\n' "$@" >>"$tmp/conf"
	start_daemon "$tmp/conf"
}
