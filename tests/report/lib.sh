# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Shell helpers of check-report's tiers, sourced. The caller defines fail();
# start_daemon also wants $dbin (fxsamplerd) and $tmp, and sets $dpid.

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

# end_tier: a tier's EXIT trap (trap end_tier EXIT): the target it started
# ($npid: node or python) and the daemon ($dpid) ended and waited for, the
# user's folder ($user) removed, each if set.
end_tier()
{
	[ -n "${npid:-}" ] && kill "$npid" 2>/dev/null && wait "$npid" 2>/dev/null
	[ -n "${dpid:-}" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	[ -n "${user:-}" ] && rm -rf "$user"
	true
}

# share NAME FILE: NAME's share in FILE's "name share" lines (jit/shares.py's)
share()
{
	awk -v n="$1" '$1 == n { print $2 }' "$2"
}

# start_daemon CONFIG: fxsamplerd in the background, once it serves HTTP; its log is $tmp/log
start_daemon()
{
	: >"$tmp/log"
	"$dbin" -v --socket "$tmp/sock" --config "$1" 2>>"$tmp/log" &
	dpid=$!
	i=0
	until grep -q "http: serving" "$tmp/log"; do
		kill -0 "$dpid" 2>/dev/null || fail "fxsamplerd exited: $(cat "$tmp/log")"
		i=$((i + 1))
		[ $i -lt 100 ] || fail "fxsamplerd does not serve HTTP after 10 s"
		sleep 0.1
	done
}
