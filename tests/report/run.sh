#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Live tests of `fxsampler report` on real programs (make check-report):
#   names    Go's compress/flate benchmark: --top shows every function name whole
#            when piped, fits a terminal's width, and --wide does not cut;
#   debuginfod  a stripped program symbolized through a local debuginfod server;
#   svg      the interactive flame graph in headless Chromium (tests/report/svg.mjs);
#   towers   the default flame graph of 200 short processes and 100 short threads of
#            three kinds: three towers with their names drawn (tests/report/towers.mjs).
#   http     fxsamplerd's HTTP endpoint against go tool pprof, scrapers at Parca's
#            cadence with Alloy's checks, bad requests, the token (tests/report/http.sh).
#
# Recording needs root. FXS_LIVE_LOCK=FILE takes that lock (flock) around each
# recording, for a host shared with other BPF tests. FXS_BIN names fxsampler,
# FXS_PROGS the built tests/progs; TESTS picks tiers ("names debuginfod svg towers http").
set -eu

bin=${FXS_BIN:-$(pwd)/fxsampler}
tests=${TESTS:-names debuginfod svg towers http}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fxs_report.XXXXXX")
failed=0
cleanup()
{
	[ -n "${dpid:-}" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	if [ "$failed" = 0 ]; then rm -rf "$tmp"; else echo "kept $tmp"; fi
}
trap cleanup EXIT

record()
{
	if [ -n "${FXS_LIVE_LOCK:-}" ]; then
		flock "$FXS_LIVE_LOCK" "$bin" record "$@"
	else
		"$bin" record "$@"
	fi
}

fail()
{
	echo "FAIL: $*"
	failed=1
	exit 1
}
skip()
{
	echo "SKIP: $*; NOT RUN"
}

if [ "$(id -u)" != 0 ]; then
	skip "check-report needs root (it records with BPF)"
	exit 0
fi

# --- full names: Go's compress/flate benchmark ---
names()
{
	if ! command -v go >/dev/null; then
		skip "names: go not found"
		return
	fi
	echo "== names: go test -c compress/flate, recorded, every function name whole"
	# go needs a cache directory: under HOME, or here when there is none.
	[ -n "${HOME:-}" ] || export HOME="$tmp"
	go test -c -o "$tmp/flate.test" compress/flate || fail "go test -c compress/flate"
	# The benchmark reads ../testdata: run it where its sources are.
	(cd "$(go env GOROOT)/src/compress/flate" &&
		record -q -F 999 -o "$tmp/flate.fxt" -- "$tmp/flate.test" -test.run '^$' \
			-test.bench Encode -test.benchtime 150ms >/dev/null) ||
		fail "record flate.test"
	"$bin" report "$tmp/flate.fxt" --top 100000 >"$tmp/top.txt" || fail "report --top"
	"$bin" report "$tmp/flate.fxt" --folded >"$tmp/folded.txt" || fail "report --folded"
	go tool nm "$tmp/flate.test" | awk '$2 == "T" || $2 == "t" { $1 = ""; $2 = ""; sub(/^  /, ""); print }' |
		sort -u >"$tmp/nm.txt"
	# Every function of the samples (the folded frames past process and thread)
	# that is a symbol of the binary is a whole row name in --top.
	sed 's/ [0-9]*$//' "$tmp/folded.txt" | tr ';' '\n' | sed 's/ \[inlined\]$//' | sort -u \
		>"$tmp/frames.txt"
	comm -12 "$tmp/frames.txt" "$tmp/nm.txt" >"$tmp/want.txt"
	n=0
	long=0
	while IFS= read -r fn; do
		grep -qF -- "  $fn [flate.test]" "$tmp/top.txt" ||
			fail "'$fn' is not whole in report --top (see $tmp/top.txt)"
		n=$((n + 1))
		[ ${#fn} -gt 45 ] && long=$((long + 1))
	done <"$tmp/want.txt"
	[ "$n" -ge 20 ] || fail "only $n functions of flate.test in the samples"
	[ "$long" -ge 1 ] || fail "no function name longer than 45 characters was sampled"
	grep -q '\.\.' "$tmp/top.txt" && fail "a name in --top was cut: $(grep '\.\.' "$tmp/top.txt" | head -1)"
	echo "   $n function names found whole ($long longer than the old 45-column cut)"

	echo "== names: on a terminal, rows fit COLUMNS; --wide does not cut"
	if ! command -v script >/dev/null; then
		skip "names: script(1) not found, terminal width not checked"
		return
	fi
	COLUMNS=70 script -qec "$bin report $tmp/flate.fxt --top 30" /dev/null | tr -d '\r' \
		>"$tmp/tty.txt" || fail "report on a terminal"
	awk 'length($0) > 70 { bad = 1; print "too wide: " $0 } END { exit bad }' "$tmp/tty.txt" ||
		fail "a row is wider than COLUMNS=70"
	grep -q '\.\.$' "$tmp/tty.txt" || fail "no long name was fitted to 70 columns"
	COLUMNS=70 script -qec "$bin report $tmp/flate.fxt --top 30 --wide" /dev/null | tr -d '\r' \
		>"$tmp/wide.txt" || fail "report --wide on a terminal"
	grep -q '\.\.' "$tmp/wide.txt" && fail "--wide cut a name"
	awk 'length($0) > 70' "$tmp/wide.txt" | grep -q . || fail "--wide printed no long row"
	echo "   ok"
}

# --- debuginfod: a stripped program, its debug file only on a local server ---
free_port()
{
	p=$((20000 + $$ % 20000))
	while ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; do p=$((p + 1)); done
	echo "$p"
}

debuginfod_tier()
{
	if ! command -v debuginfod >/dev/null || ! command -v curl >/dev/null; then
		skip "debuginfod: debuginfod or curl not found (make deps)"
		return
	fi
	if ! "$bin" report --help | grep -q -- --no-debuginfod; then
		fail "debuginfod: fxsampler built without libdebuginfod"
	fi
	echo "== debuginfod: a stripped program symbolized through a local debuginfod server"
	d=$tmp/dbg
	mkdir -p "$d/srv" "$d/bin"
	cat >"$d/inl.c" <<'SRC'
#include <stdlib.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long fxs_leaf(unsigned long x)
{
	unsigned long i, s = 0;
	for (i = 0; i < x; i++)
		s += i * i ^ (s >> 3);
	return s;
}
__attribute__((noinline)) unsigned long fxs_outer(unsigned long x)
{
	return fxs_leaf(x) * 3;
}
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 0) : 1000;
	for (unsigned long k = 0; k < n; k++)
		sink += fxs_outer(100000 + (k & 1));
	return 0;
}
SRC
	gcc -O2 -g -fno-omit-frame-pointer -Wl,--build-id -o "$d/full" "$d/inl.c" || fail "gcc"
	objcopy --only-keep-debug "$d/full" "$d/srv/inl.debug" || fail "objcopy --only-keep-debug"
	strip -o "$d/bin/inl" "$d/full" || fail "strip"
	rm "$d/full"
	id=$(readelf -n "$d/bin/inl" | awk '/Build ID/ { print $3 }')
	[ -n "$id" ] || fail "no build id"
	readelf -S "$d/bin/inl" | grep -q debug_info && fail "the program is not stripped"
	record -q -o "$d/inl.fxt" -- "$d/bin/inl" 3000 2>"$d/record.err" || fail "record: $(cat "$d/record.err")"

	# Off without DEBUGINFOD_URLS: the ELF has no symbol for it.
	env -u DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH="$d/cache0" \
		"$bin" report "$d/inl.fxt" --top 20 --debug-dir "$d/none" >"$d/off.txt" 2>"$d/off.err" ||
		fail "report without debuginfod"
	grep -q 'inl+0x' "$d/off.txt" || fail "without DEBUGINFOD_URLS it resolved: $(cat "$d/off.txt")"
	grep -q fxs_ "$d/off.txt" && fail "without DEBUGINFOD_URLS it resolved"
	[ -e "$d/cache0" ] && fail "without DEBUGINFOD_URLS it used a debuginfod cache"

	port=$(free_port)
	debuginfod -p "$port" -d "$d/db.sqlite" -F "$d/srv" -t 1 -g 0 >"$d/server.log" 2>&1 &
	dpid=$!
	i=0
	until curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$id/debuginfo"; do
		i=$((i + 1))
		[ "$i" -lt 60 ] || fail "debuginfod on port $port never served $id (see $d/server.log)"
		kill -0 "$dpid" 2>/dev/null || fail "debuginfod exited (see $d/server.log)"
		sleep 0.5
	done
	DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$d/cache \
		"$bin" report "$d/inl.fxt" --top 20 --lines --debug-dir "$d/none" --pprof "$d/inl.pb.gz" \
		>"$d/on.txt" 2>"$d/on.err" || fail "report with debuginfod: $(cat "$d/on.err")"
	grep -Eq '  inl\.c:[67] +fxs_leaf \[inl\]$' "$d/on.txt" ||
		fail "fxs_leaf and its line not resolved: $(cat "$d/on.txt")"
	grep -Eq '  inl\.c:12 +fxs_outer \[inl\]$' "$d/on.txt" ||
		fail "fxs_outer and its line not resolved: $(cat "$d/on.txt")"
	ls "$d/cache/$id/debuginfo" >/dev/null 2>&1 || fail "nothing in DEBUGINFOD_CACHE_PATH"
	echo "   resolved through 127.0.0.1:$port, cached in DEBUGINFOD_CACHE_PATH"

	# The server gone, the cache still serves the file.
	kill "$dpid"
	wait "$dpid" 2>/dev/null || true
	dpid=
	DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$d/cache \
		"$bin" report "$d/inl.fxt" --top 20 --debug-dir "$d/none" >"$d/cached.txt" 2>&1 ||
		fail "report from the cache"
	grep -q 'fxs_leaf \[inl\]' "$d/cached.txt" || fail "the cache was not used: $(cat "$d/cached.txt")"

	# No server and no cache: a warning, module+0xOFFSET, success.
	DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$d/cache2 DEBUGINFOD_TIMEOUT=5 \
		"$bin" report "$d/inl.fxt" --top 20 --debug-dir "$d/none" >"$d/soft.txt" 2>"$d/soft.err" ||
		fail "report with debuginfod down failed instead of failing soft"
	grep -q 'inl+0x' "$d/soft.txt" || fail "no module+0xOFFSET with debuginfod down"
	grep -q "warning: debuginfod has no debug info for $d/bin/inl (build id $id)" "$d/soft.err" ||
		fail "no warning with debuginfod down: $(cat "$d/soft.err")"
	echo "   ok: cache honoured, fails soft with a warning"
}

# --- the interactive flame graph in headless Chromium ---
svg_tier()
{
	chromium=${CHROMIUM:-/usr/bin/chromium}
	if [ ! -x "$chromium" ] || ! command -v node >/dev/null; then
		skip "svg: chromium or node not found (make deps)"
		return
	fi
	# check-browser's npm install (playwright-core among its packages).
	if ! node_modules=$(tests/browser/npm.sh 2>"$tmp/npm.err"); then
		skip "svg: no playwright-core: $(tail -n 1 "$tmp/npm.err")"
		return
	fi
	echo "== svg: the flame graph zooms, resets, searches in headless Chromium"
	s=$tmp/svg
	mkdir -p "$s"
	record -q -o "$s/demo.fxt" -- "${FXS_PROGS:-$(pwd)/.output/progs}/demo" 1 2 2>"$s/record.err" ||
		fail "record demo: $(cat "$s/record.err")"
	"$bin" report "$s/demo.fxt" --svg "$s/demo.svg" --folded >"$s/demo.folded" 2>/dev/null ||
		fail "report --svg"
	"$bin" report "$s/demo.fxt" --svg "$s/inverted.svg" --svg-inverted >/dev/null 2>&1 ||
		fail "report --svg-inverted"
	# The share the search must show: the samples with any frame matching,
	# nested matches (clock_gettime@@GLIBC under __vdso_clock_gettime's
	# caller) counted once.
	re='^inner$|clock_gettime'
	share=$(awk -v re="$re" '{ n = $NF; t += n; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		for (i = 3; i <= k; i++) if (f[i] ~ re) { m += n; break } }
		END { printf "%.2f%%", 100 * m / t }' "$s/demo.folded")
	FXS_NODE_MODULES=$node_modules node tests/report/svg.mjs "$s/demo.svg" "$s/inverted.svg" "$s/shot.png" outer "$re" \
		"$share" || fail "svg in Chromium (screenshot $s/shot.png)"
	[ -s "$s/shot.png" ] || fail "no screenshot"
}

# --- a busy capture's default flame graph in headless Chromium ---
towers_tier()
{
	chromium=${CHROMIUM:-/usr/bin/chromium}
	if [ ! -x "$chromium" ] || ! command -v node >/dev/null; then
		skip "towers: chromium or node not found (make deps)"
		return
	fi
	if ! node_modules=$(tests/browser/npm.sh 2>"$tmp/npm.err"); then
		skip "towers: no playwright-core: $(tail -n 1 "$tmp/npm.err")"
		return
	fi
	echo "== towers: 300 short processes and threads of three kinds, three towers named"
	s=$tmp/towers
	mkdir -p "$s"
	record -q -F 999 -o "$s/kinds.fxt" -- "${FXS_PROGS:-$(pwd)/.output/progs}/kinds" 200 100 8 \
		2>"$s/record.err" || fail "record kinds: $(cat "$s/record.err")"
	"$bin" report "$s/kinds.fxt" --svg "$s/kinds.svg" >/dev/null 2>&1 || fail "report --svg"
	FXS_NODE_MODULES=$node_modules node tests/report/towers.mjs "$s/kinds.svg" "$s/shot.png" \
		alpha_leaf beta_leaf gamma_leaf || fail "towers in Chromium (screenshot $s/shot.png)"
}

# --- fxsamplerd's HTTP endpoint (tests/report/http.sh) ---
http_tier()
{
	mkdir -p "$tmp/http"
	set -- sh tests/report/http.sh "$bin" "$(dirname "$bin")/fxsamplerd" \
		"${FXS_PROGS:-$(pwd)/.output/progs}" "$tmp/http"
	if [ -n "${FXS_LIVE_LOCK:-}" ]; then
		flock "$FXS_LIVE_LOCK" "$@" || fail "http"
	else
		"$@" || fail "http"
	fi
}

for t in $tests; do
	case $t in
	svg) svg_tier ;;
	towers) towers_tier ;;
	http) http_tier ;;
	names) names ;;
	debuginfod) debuginfod_tier ;;
	*) fail "unknown test '$t'" ;;
	esac
done
echo "check-report: all run tiers passed"
