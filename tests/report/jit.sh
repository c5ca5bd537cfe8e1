#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# JIT code named from perf maps (check-report's jit tier):
#   - node --perf-basic-prof --cpu-prof, two hot functions in a designed 75/25
#     split (tests/report/jit/spin.js): each one's share of the main thread's
#     samples in JavaScript within 3 points of node's own profile of the same
#     run (its samples but "(program)": native code it does not see), samples
#     with an anon+0x... frame <= 2 %, and the names in --top, folded, pprof
#     (go tool pprof -top) and perf script; the same checks for record -p of
#     a node that has run for 1.5 s (its map written before the capture);
#   - OpenJDK 17 with -XX:+PreserveFramePointer -XX:+DumpPerfMapAtExit, two
#     hot methods 3:1 (tests/report/jit/Spin.java): hotA's share of the two
#     within 3 points of 75 %, anon <= 2 %;
#   - through fxsamplerd as nobody: the node result again, and maps made
#     hostile before node starts (a symlink to /etc/shadow, a FIFO, 1 GiB
#     sparse, a 10 MB line, a stale one): each one line that names its reason,
#     the capture ends in time, nothing named from them.
# Arguments: FXSAMPLER FXSAMPLERD TMPDIR. Needs root, node, java (make deps).
set -eu

bin=$1
dbin=$2
tmp=$3
here=$(cd "$(dirname "$0")" && pwd)
shares="python3 $here/jit/shares.py"
. "$here/lib.sh"
# node --perf-basic-prof also writes a V8 log into its working directory
cd "$tmp"
npid= dpid= user=
trap end_tier EXIT
fail()
{
	echo "FAIL: jit: $*"
	exit 1
}
main_tid()
{
	"$bin" report --top 1 "$1" | awk '/Thread$/ { t = 1; next } t && $3 == $4 { print $3; exit }'
}

command -v node >/dev/null || fail "node not found (make deps installs nodejs)"
# where nobody reads the script and writes its files ($tmp's parents may be 0700)
user=$(mktemp -d /tmp/fxs_jit.XXXXXX)
cp "$here/jit/spin.js" "$user/spin.js"
chmod 644 "$user/spin.js"

# node_check FXT CPUPROF-DIR LABEL: the shares against node's own profile
node_check()
{
	tid=$(main_tid "$1")
	[ -n "$tid" ] || fail "$3: no main thread in $1"
	rm -f "/tmp/perf-$tid.map"
	"$bin" report --tid "$tid" --folded "$1" >"$tmp/$3.folded"
	# of the samples in JavaScript, as --cpu-prof counts them (not node's bootstrap)
	$shares folded-js "$tmp/$3.folded" spinA spinB >"$tmp/$3.ours"
	$shares cpuprofile "$2"/*.cpuprofile spinA spinB >"$tmp/$3.node"
	echo "$3: ours $(tr '\n' ' ' <"$tmp/$3.ours")| node --cpu-prof $(tr '\n' ' ' <"$tmp/$3.node")"
	for f in spinA spinB; do
		within "$(share $f "$tmp/$3.ours")" "$(share $f "$tmp/$3.node")" ||
			fail "$3: $f's share differs from node's by more than 3 points"
	done
	# anon+... frames: of all the main thread's samples
	$shares folded "$tmp/$3.folded" spinA spinB >"$tmp/$3.all"
	awk '$1 == "anon" { exit !($2 <= 2) }' "$tmp/$3.all" || fail "$3: anon frames over 2 %"
}

echo "== jit: node --perf-basic-prof"
mkdir -p "$tmp/cp"
"$bin" record -q -o "$tmp/node.fxt" -- node --perf-basic-prof --cpu-prof \
	--cpu-prof-dir="$tmp/cp" "$user/spin.js" 5 2>"$tmp/node.err" || fail "record: $(cat "$tmp/node.err")"
node_check "$tmp/node.fxt" "$tmp/cp" node
"$bin" report --top 5 "$tmp/node.fxt" | grep -q 'spinA /.*spin.js:[0-9]*:[0-9]* \[JIT\]' ||
	fail "--top does not name spinA [JIT]"
"$bin" report --perf-script "$tmp/node.perf" --pprof "$tmp/node.pb.gz" "$tmp/node.fxt" >/dev/null
grep -q 'spinA /.*(JIT)' "$tmp/node.perf" || fail "perf script does not name spinA (JIT)"
if command -v go >/dev/null; then
	PPROF_TMPDIR=$tmp go tool pprof -top "$tmp/node.pb.gz" 2>/dev/null | grep -q 'spinA /' ||
		fail "go tool pprof -top does not name spinA"
fi

echo "== jit: record -p of a node that runs already"
# its hot functions are compiled and in its map before the capture begins
mkdir -p "$tmp/cpp"
node --perf-basic-prof --cpu-prof --cpu-prof-dir="$tmp/cpp" "$user/spin.js" 5 &
npid=$!
sleep 1.5
"$bin" record -q -p "$npid" -o "$tmp/nodep.fxt" 2>"$tmp/nodep.err" ||
	fail "record -p: $(cat "$tmp/nodep.err")"
wait "$npid" || fail "node (record -p) failed"
node_check "$tmp/nodep.fxt" "$tmp/cpp" node-p

echo "== jit: OpenJDK 17, -XX:+DumpPerfMapAtExit"
if command -v javac >/dev/null && command -v java >/dev/null; then
	mkdir -p "$tmp/java"
	javac -d "$tmp/java" "$here/jit/Spin.java"
	"$bin" record -q -o "$tmp/java.fxt" -- java -XX:+PreserveFramePointer \
		-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp "$tmp/java" Spin 4 \
		2>"$tmp/java.err" || fail "record java: $(cat "$tmp/java.err")"
	# the JVM leaves its map (DumpPerfMapAtExit): the process's pid is the first row's
	jpid=$("$bin" report --top 1 "$tmp/java.fxt" | awk '/Thread$/ { t = 1; next } t { print $3; exit }')
	rm -f "/tmp/perf-$jpid.map"
	"$bin" report --folded "$tmp/java.fxt" >"$tmp/java.folded"
	$shares folded "$tmp/java.folded" hotA hotB >"$tmp/java.ours"
	a=$(share hotA "$tmp/java.ours")
	b=$(share hotB "$tmp/java.ours")
	echo "java: $(tr '\n' ' ' <"$tmp/java.ours")"
	pa=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", 100 * a / (a + b) }')
	echo "java: hotA's share of hotA + hotB: $pa % (designed 75)"
	within "$pa" 75 || fail "java: hotA's share is $pa %, not 75 +- 3"
	awk '$1 == "anon" { exit !($2 <= 2) }' "$tmp/java.ours" || fail "java: anon frames over 2 %"
else
	echo "SKIP: jit: no java/javac (openjdk-17-jdk-headless); NOT RUN"
fi

echo "== jit: through fxsamplerd, as nobody"
: >"$tmp/conf"
"$dbin" --socket "$user/sock" --config "$tmp/conf" 2>"$tmp/dlog" &
dpid=$!
i=0
until [ -S "$user/sock" ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "fxsamplerd does not listen: $(cat "$tmp/dlog")"
	sleep 0.1
done
mkdir -p "$user/cp"
chown nobody "$user" "$user/cp"
# in a directory of nobody's: node writes its logs to the working directory, or to stdout
as_nobody()
{
	(cd "$user" && setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$user" "$@")
}
as_nobody "$bin" record -q --socket "$user/sock" -o "$user/node.fxt" -- node \
	--perf-basic-prof --cpu-prof --cpu-prof-dir="$user/cp" "$user/spin.js" 5 \
	2>"$tmp/daemon.err" || fail "record as nobody: $(cat "$tmp/daemon.err")"
node_check "$user/node.fxt" "$user/cp" daemon

# hostile KIND REASON SETUP: node started by a shell that made its map first
hostile()
{
	as_nobody timeout 60 "$bin" record -q --socket "$user/sock" -o "$user/$1.fxt" -- \
		sh -c "$3; exec node -e 'const e = Date.now() + 1500; let x = 0; while (Date.now() < e) x++'" \
		2>"$user/$1.err" || fail "$1: record: $(cat "$user/$1.err")"
	n=$(grep -c "perf map of pid .* not used: $2" "$user/$1.err" || true)
	[ "$n" = 1 ] || fail "$1: $n lines saying '$2': $(cat "$user/$1.err")"
	echo "$1: told once: $(grep 'perf map' "$user/$1.err")"
	rm -f "/tmp/perf-$(cat "$user/$1.pid").map"
}
m='m=/tmp/perf-$$.map; echo $$ >'"$user"
hostile symlink "a symbolic link" "$m/symlink.pid; ln -s /etc/shadow \$m"
hostile fifo "not a regular file" "$m/fifo.pid; mkfifo \$m"
hostile huge "larger than 256 MiB" "$m/huge.pid; truncate -s 1G \$m"
hostile long "a line longer than 8192 bytes" \
	"$m/long.pid; head -c 10000000 /dev/zero | tr '\\0' x >\$m"
hostile stale "stale: older than the process" \
	"$m/stale.pid; echo '7f0000000000 100000000 stale' >\$m; touch -d '1 hour ago' \$m"
"$bin" report --top 50 "$user/stale.fxt" | grep -q ' stale ' && fail "stale: a stale map was used"
echo "jit: passed"
