#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# JIT code named in fxsamplerd's HTTP scrapes (check-report's jithttp tier):
#   - a daemon in continuous mode (999 Hz) with an HTTP listener, node
#     --perf-basic-prof running tests/report/jit/spin.js (two hot functions,
#     75/25 by design): a 4 s scrape by go tool pprof -proto, named in go tool
#     pprof -top ("spinA /.../spin.js:L:C"); of node's samples in JavaScript,
#     each function's share within 3 points of node's own --cpu-prof profile
#     in the scrape's time (its time_nanos and duration_nanos: the split
#     drifts as V8 tiers the functions up); node's samples
#     with an unnamed leaf (anon+0x..., [unknown]) <= 2 %;
#   - a node whose map a shell made a symlink to /etc/shadow before node
#     started: two scrapes answer with profiles, the map is told once in the
#     daemon's log and counted once (1 refused), nothing named from it.
# Arguments: FXSAMPLER FXSAMPLERD TMPDIR. Needs root, node, go (make deps).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
shares="python3 $here/jit/shares.py"
. "$here/lib.sh"
begin_tier jithttp "$@"

command -v go >/dev/null || fail "go not found (golang-go): go tool pprof is the client"
export HOME="${HOME:-$tmp}"
export PPROF_TMPDIR="$tmp/pprof"
spin_user jithttp
port=$(free_port)
url=http://127.0.0.1:$port/debug/pprof/profile
start_continuous "$port" "http_max_seconds = 30"

echo "== jithttp: node --perf-basic-prof under continuous mode, a 4 s scrape"
mkdir -p "$user/cp"
(cd "$user" && exec node --perf-basic-prof --cpu-prof --cpu-prof-dir="$user/cp" "$user/spin.js" 6) &
npid=$!
sleep 1
go tool pprof -proto -seconds 4 "$url" >"$tmp/scrape.pb.gz" 2>"$tmp/pprof.err" ||
	fail "go tool pprof: $(cat "$tmp/pprof.err")"
go tool pprof -top "$tmp/scrape.pb.gz" >"$tmp/scrape.top" 2>/dev/null ||
	fail "go tool pprof -top cannot read the scrape"
grep -q 'spinA /.*spin.js:[0-9]*:[0-9]*' "$tmp/scrape.top" ||
	fail "go tool pprof -top does not name spinA: $(head -20 "$tmp/scrape.top")"
grep -q 'spinB /.*spin.js:[0-9]*:[0-9]*' "$tmp/scrape.top" || fail "go tool pprof -top does not name spinB"
$shares pprof "$tmp/scrape.pb.gz" node spinA spinB >"$tmp/scrape.shares"
wait "$npid" || fail "node failed"
spin=$npid
npid=
rm -f "/tmp/perf-$spin.map"

echo "== jithttp: a map made a symlink to /etc/shadow, two scrapes"
sh -c 'echo $$ >'"$user"'/link.pid; ln -s /etc/shadow /tmp/perf-$$.map; exec node -e "const e = Date.now() + 3500; let x = 0; while (Date.now() < e) x++"' &
npid=$!
sleep 0.5
hp=$(cat "$user/link.pid")
for n in 1 2; do
	go tool pprof -proto -seconds 1 "$url" >"$tmp/link$n.pb.gz" 2>"$tmp/pprof.err" ||
		fail "scrape $n: $(cat "$tmp/pprof.err")"
	go tool pprof -top "$tmp/link$n.pb.gz" >/dev/null 2>&1 || fail "scrape $n: no profile"
done
wait "$npid" || fail "node failed"
npid=
rm -f "/tmp/perf-$hp.map"
told=$(grep -c "perf map of pid $hp .* not used: a symbolic link; its JIT code stays unnamed in scrapes" "$tmp/log" || true)
[ "$told" = 1 ] || fail "the symlink told $told times, not once"
refused=$(grep "perf maps so far" "$tmp/log" | tail -1 | sed -n 's/.*cache, \([0-9]*\) refused.*/\1/p')
[ "$refused" = 1 ] || fail "$refused maps counted refused, not 1"
echo "symlink: told once, counted once; the scrapes answered"

kill "$dpid"
wait "$dpid" 2>/dev/null || true
dpid=
$shares cpuprofile-during "$user"/cp/*.cpuprofile "$tmp/scrape.pb.gz" spinA spinB >"$tmp/node.shares"
echo "scrape: $(tr '\n' ' ' <"$tmp/scrape.shares")| node --cpu-prof then: $(tr '\n' ' ' <"$tmp/node.shares")"
for f in spinA spinB; do
	within "$(share $f "$tmp/scrape.shares")" "$(share $f "$tmp/node.shares")" ||
		fail "$f's share in the scrape differs from node's own profile then by more than 3 points"
done
awk '$1 == "anon" { exit !($2 <= 2) }' "$tmp/scrape.shares" || fail "unnamed leaves over 2 % of node's samples"
echo "jithttp: passed"
