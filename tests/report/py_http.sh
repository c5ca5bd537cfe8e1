#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Python frames in fxsamplerd's continuous mode (check-report's pyhttp tier):
# a daemon in continuous mode (999 Hz) with an HTTP listener; Debian 12's
# python3.11 runs three functions in a designed 50/30/20 split
# (tests/report/py/split.py) for 7 s. A 4 s scrape by go tool pprof -proto
# names them in go tool pprof -top; of the script's samples in work(), each
# function's share within 5 points of the design in the scrape and in the
# continuous file the daemon wrote (report --folded), and the two within 3
# points of each other. (5: the split is of wall-clock deadlines, the samples
# of CPU time; at a load of 10 on 2 CPUs alpha's 50 % came out 46.4-47.0 %.)
# Arguments: FXSAMPLER FXSAMPLERD TMPDIR. Needs root, python3.11, go (make deps).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
shares="python3 $here/py/shares.py"
. "$here/lib.sh"
begin_tier pyhttp "$@"

py=/usr/bin/python3.11
[ -x $py ] || fail "$py not found (make deps installs python3.11)"
command -v go >/dev/null || fail "go not found (golang-go): go tool pprof is the client"
case $(uname -r) in
[0-5].* | 6.0.*)
	echo "SKIP: pyhttp: the Python walk loads from Linux 6.1 (this is $(uname -r)); NOT RUN"
	exit 0
	;;
esac
export HOME="${HOME:-$tmp}"
export PPROF_TMPDIR="$tmp/pprof"
port=$(free_port 7)
url=http://127.0.0.1:$port/debug/pprof/profile
start_continuous "$port" "http_max_seconds = 30"

echo "== pyhttp: python3.11 under continuous mode, a 4 s scrape"
cp "$here/py/split.py" "$tmp/split.py"
$py "$tmp/split.py" 7 &
npid=$!
sleep 1.5
go tool pprof -proto -seconds 4 "$url" >"$tmp/scrape.pb.gz" 2>"$tmp/pprof.err" ||
	fail "go tool pprof: $(cat "$tmp/pprof.err")"
go tool pprof -top "$tmp/scrape.pb.gz" >"$tmp/scrape.top" 2>/dev/null ||
	fail "go tool pprof -top cannot read the scrape"
for f in alpha beta gamma work spin; do
	grep -q " $f\$" "$tmp/scrape.top" || go tool pprof -top -cum "$tmp/scrape.pb.gz" 2>/dev/null |
		grep -q " $f\$" || fail "go tool pprof -top does not name $f: $(head -20 "$tmp/scrape.top")"
done
$shares pprof "$tmp/scrape.pb.gz" python3.11 >"$tmp/scrape.shares"
wait "$npid" || fail "python3.11 failed"
npid=
kill "$dpid"
wait "$dpid" 2>/dev/null || true
dpid=
files=$(ls "$tmp"/data/*.fxt* 2>/dev/null) || fail "no continuous file in $tmp/data"
: >"$tmp/cont.folded"
for f in $files; do
	"$bin" report "$f" --folded --no-thread-frames >>"$tmp/cont.folded" 2>/dev/null ||
		fail "report --folded $f"
done
$shares folded "$tmp/cont.folded" >"$tmp/cont.shares"
echo "scrape: $(tr '\n' ' ' <"$tmp/scrape.shares")| continuous file: $(tr '\n' ' ' <"$tmp/cont.shares")"
for src in scrape cont; do
	n=$(share samples "$tmp/$src.shares")
	[ "${n:-0}" -ge 1000 ] || fail "$src: $n samples of the script's work()"
	for fd in alpha:50 beta:30 gamma:20; do
		f=${fd%:*}
		within "$(share "$f" "$tmp/$src.shares")" "${fd#*:}" 5 ||
			fail "$src: $f's share is not within 5 points of ${fd#*:} %"
		within "$(share "$f" "$tmp/$src.shares")" "$(share "$f" "$tmp/scrape.shares")" 3 ||
			fail "$f's share in the file differs from the scrape's by more than 3 points"
	done
done
echo "pyhttp: passed"
