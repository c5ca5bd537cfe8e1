#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# JIT code named in fxsamplerd's continuous files (check-report's jitcont tier):
# a daemon in continuous mode at 999 Hz whose files rotate every 2 s, node
# --perf-basic-prof --cpu-prof running tests/report/jit/spin.js (two hot
# functions, 75/25 by design) across several files. Of node's main thread:
#   - every file with 300 or more of its samples in JavaScript names spinA and
#     spinB ([JIT], from the map read at that file's end; the file node
#     exited in, read at that file's end too);
#   - in each such file but node's first (its warm-up), and over all of them,
#     each function's share of those samples within 3 points of node's own
#     --cpu-prof profile in the same time (from the file's first sample of
#     node to its last: the split drifts as V8 tiers the two functions up, and
#     later under load; a file at 75/24 was 3 points off node's whole run's
#     78/21);
#   - samples with an anon+0x... frame <= 2 % in each file;
#   - the daemon told node's perf map as not used in no file;
#   - a second node that exits mid-file, its map removed a second after (as a
#     script cleaning up would): read within half a second of its exit, the
#     file names its code (spinA's share >= 50 %, anon <= 2 %).
# Arguments: FXSAMPLER FXSAMPLERD TMPDIR. Needs root, node (make deps).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
shares="python3 $here/jit/shares.py"
. "$here/lib.sh"
begin_tier jitcont "$@"

spin_user jitcont
# start_daemon waits for the HTTP listener: one on a free port, unused
start_continuous "$(free_port 7)" "max_file_age = 2s"
# the first file began: node runs across the next ones
i=0
until grep -q "continuous capture at" "$tmp/log"; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "no continuous capture after 10 s"
	sleep 0.1
done

echo "== jitcont: node --perf-basic-prof across continuous files of 2 s"
mkdir -p "$user/cp"
(cd "$user" && exec node --perf-basic-prof --cpu-prof --cpu-prof-dir="$user/cp" "$user/spin.js" 6) &
npid=$!
# a second node that exits mid-file, its map removed a second later (as a
# script cleaning up would): read at its exit, its file names its code
sleep 1
(cd "$user" && exec node --perf-basic-prof "$user/spin.js" 2) &
short=$!
wait "$short" || fail "the short node failed"
sleep 1
rm -f "/tmp/perf-$short.map"
wait "$npid" || fail "node failed"
spin=$npid
npid=
# the file node ended in, finished at its rotation
sleep 2.5
kill "$dpid"
wait "$dpid" 2>/dev/null || true
dpid=
rm -f "/tmp/perf-$spin.map"
$shares cpuprofile "$user"/cp/*.cpuprofile spinA spinB >"$tmp/node.shares"
echo "node --cpu-prof, its whole run: $(tr '\n' ' ' <"$tmp/node.shares")"
if grep "perf map of pid $spin " "$tmp/log"; then
	fail "the daemon told node's perf map as not used"
fi

checked=0
first=yes
: >"$tmp/all.folded"
: >"$tmp/all.script"
for f in "$tmp"/data/*.fxt; do
	n=$(basename "$f")
	"$bin" report --tid "$spin" --folded "$f" --perf-script "$tmp/$n.script" >"$tmp/$n.folded" \
		2>/dev/null || continue
	cat "$tmp/$n.folded" >>"$tmp/all.folded"
	cat "$tmp/$n.script" >>"$tmp/all.script"
	$shares folded-js "$tmp/$n.folded" spinA spinB >"$tmp/$n.ours"
	js=$(share samples "$tmp/$n.ours")
	[ "$js" -ge 300 ] || continue
	$shares folded "$tmp/$n.folded" spinA spinB >"$tmp/$n.all"
	$shares cpuprofile-during "$user"/cp/*.cpuprofile "$tmp/$n.script" spinA spinB >"$tmp/$n.node"
	echo "$n: $(tr '\n' ' ' <"$tmp/$n.ours")| anon of all: $(share anon "$tmp/$n.all") %" \
		"| node's own then: $(tr '\n' ' ' <"$tmp/$n.node")"
	"$bin" report --tid "$spin" --top 5 "$f" | grep -q 'spinA /.*spin.js:[0-9]*:[0-9]* \[JIT\]' ||
		fail "$n: --top does not name spinA [JIT]: $("$bin" report --tid "$spin" --top 5 "$f")"
	# node's first file holds its warm-up (code not yet optimized): the sum holds it
	for fn in spinA spinB; do
		[ "$first" = yes ] && break
		within "$(share $fn "$tmp/$n.ours")" "$(share $fn "$tmp/$n.node")" ||
			fail "$n: $fn's share differs from node's own profile then by more than 3 points"
	done
	first=no
	awk '$1 == "anon" { exit !($2 <= 2) }' "$tmp/$n.all" || fail "$n: anon frames over 2 %"
	checked=$((checked + 1))
done
[ "$checked" -ge 2 ] || fail "$checked files held 300 of node's samples in JavaScript, not 2 or more"
# the short node: named in every file that holds 300 of its samples in JavaScript
named=0
for f in "$tmp"/data/*.fxt; do
	n=$(basename "$f")
	"$bin" report --tid "$short" --folded "$f" >"$tmp/$n.short" 2>/dev/null || continue
	$shares folded-js "$tmp/$n.short" spinA spinB >"$tmp/$n.shortjs"
	[ "$(share samples "$tmp/$n.shortjs")" -ge 300 ] || continue
	$shares folded "$tmp/$n.short" spinA spinB >"$tmp/$n.shortall"
	echo "$n, the short node: $(tr '\n' ' ' <"$tmp/$n.shortjs")| anon of all: $(share anon "$tmp/$n.shortall") %"
	awk '$1 == "spinA" { exit !($2 >= 50) }' "$tmp/$n.shortjs" ||
		fail "$n: the short node's spinA is not named (its map was removed a second after its exit)"
	awk '$1 == "anon" { exit !($2 <= 2) }' "$tmp/$n.shortall" || fail "$n: the short node's anon frames over 2 %"
	named=$((named + 1))
done
[ "$named" -ge 1 ] || fail "no file held 300 of the short node's samples in JavaScript"
$shares folded-js "$tmp/all.folded" spinA spinB >"$tmp/all.ours"
$shares cpuprofile-during "$user"/cp/*.cpuprofile "$tmp/all.script" spinA spinB >"$tmp/all.node"
echo "all $checked files: $(tr '\n' ' ' <"$tmp/all.ours")| node's own then: $(tr '\n' ' ' <"$tmp/all.node")"
for fn in spinA spinB; do
	within "$(share $fn "$tmp/all.ours")" "$(share $fn "$tmp/all.node")" ||
		fail "the files together: $fn's share differs from node's own by more than 3 points"
done
echo "jitcont: passed"
