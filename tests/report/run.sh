#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Live tests of `fxsampler report` on real programs (make check-report):
#   names    Go's compress/flate benchmark: --top shows every function name whole
#            when piped, fits a terminal's width, and --wide does not cut;
#   debuginfod  a stripped program symbolized through a local debuginfod server;
#   caps     debuginfod fetches from a server that streams zeros without end are
#            abandoned at their size and time caps, nothing left in the cache;
#   svg      the interactive flame graph in headless Chromium (tests/report/svg.mjs);
#   towers   the default flame graph of 200 short processes and 100 short threads of
#            three kinds: three towers with their names drawn (tests/report/towers.mjs).
#   bigsvg   the SVG of a generated capture of 100,000 samples (bench/fxtgen) opens,
#            zooms and searches in headless Chromium (tests/report/bigsvg.mjs).
#   demangle C++ (clang++ compiling templates) and Rust (legacy and v0) names against
#            c++filt, in --top, folded stacks and pprof (tests/report/demangle.sh);
#   jit      JIT code named from perf maps: node and OpenJDK 17 against node's own
#            profile and the design, through fxsamplerd as nobody, hostile maps
#            (tests/report/jit.sh).
#   jithttp  JIT code named in fxsamplerd's HTTP scrapes: node under continuous mode,
#            go tool pprof against node --cpu-prof, a symlinked map refused once
#            (tests/report/jit_http.sh).
#   jitcont  JIT code named in fxsamplerd's continuous files: node across files rotated
#            every 2 s, each file's shares against node --cpu-prof (tests/report/jit_cont.sh).
#   pyhttp   Python frames under continuous mode: python3.11's 50/30/20 split in a
#            go tool pprof scrape and in the continuous file (tests/report/py_http.sh).
#   http     fxsamplerd's HTTP endpoint against go tool pprof, scrapers at Parca's
#            cadence with Alloy's checks, bad requests, hostile clients (slowloris), the
#            token (tests/report/http.sh).
#
# Recording needs root. FXS_LIVE_LOCK=FILE takes that lock (flock) around each
# recording, for a host shared with other BPF tests. FXS_BIN names fxsampler,
# FXS_PROGS the built tests/progs; TESTS picks tiers ("names debuginfod caps svg towers bigsvg demangle http jit jithttp
# jitcont pyhttp").
set -eu

bin=${FXS_BIN:-$(pwd)/fxsampler}
tests=${TESTS:-names debuginfod caps svg towers bigsvg demangle http jit jithttp jitcont pyhttp}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fxs_report.XXXXXX")
failed=0
. "$(dirname "$0")/lib.sh"
# a tier's servers ($dpid: debuginfod, the zeros server) ended, at the exit or on a signal
cleanup()
{
	pkill -P $$ 2>/dev/null || true
	wait 2>/dev/null
	if [ "$failed" = 0 ]; then rm -rf "$tmp"; else echo "kept $tmp"; fi
}
on_exit cleanup

# Runs a command under FXS_LIVE_LOCK when it is set: the command records.
locked()
{
	if [ -n "${FXS_LIVE_LOCK:-}" ]; then
		flock "$FXS_LIVE_LOCK" "$@"
	else
		"$@"
	fi
}

record()
{
	locked "$bin" record "$@"
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
# The rows of report --top file $1 with a name cut to fit: report_fit() ends
# the row with "..", report_fit_left() starts its last field so. Not ".."
# inside a name: Go names its package-level closures so (fmt.glob..func1).
cut_rows()
{
	grep -E '\.\.$|  \.\.' "$1"
}

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
	cut_rows "$tmp/top.txt" >/dev/null && fail "a name in --top was cut: $(cut_rows "$tmp/top.txt" | head -1)"
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
	cut_rows "$tmp/wide.txt" >/dev/null && fail "--wide cut a name"
	awk 'length($0) > 70' "$tmp/wide.txt" | grep -q . || fail "--wide printed no long row"
	echo "   ok"
}

# --- debuginfod: a stripped program, its debug file only on a local server ---

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
	# libdebuginfod (and its libcurl, TLS, Kerberos chain) is loaded with dlopen at the
	# first fetch: not linked, and not loaded by a report that fetches nothing.
	readelf -d "$bin" | grep -q 'NEEDED.*libdebuginfod' &&
		fail "fxsampler is linked to libdebuginfod: it should dlopen it at the first fetch"
	env -u DEBUGINFOD_URLS LD_DEBUG=files "$bin" report "$d/inl.fxt" --top 20 --debug-dir "$d/none" \
		>/dev/null 2>"$d/off.ld" || fail "report without debuginfod (LD_DEBUG)"
	grep -q 'file=libdebuginfod' "$d/off.ld" && fail "without DEBUGINFOD_URLS libdebuginfod was loaded"

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

	# libdebuginfod missing at run time (an empty file in its place, in a mount namespace of
	# its own): one warning naming it, module+0xOFFSET, success.
	lib=$(ldconfig -p | awk '$1 == "libdebuginfod.so.1" { print $NF; exit }')
	if [ -z "$lib" ] || ! command -v unshare >/dev/null; then
		skip "debuginfod: no libdebuginfod.so.1 in ldconfig's cache or no unshare: the missing library case"
	else
		DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$d/cache3 \
			unshare -m sh -c 'mount --bind /dev/null "$(readlink -f "$1")" && shift && exec "$@"' \
			sh "$lib" "$bin" report "$d/inl.fxt" --top 20 --debug-dir "$d/none" \
			>"$d/nolib.txt" 2>"$d/nolib.err" ||
			fail "report without libdebuginfod failed instead of failing soft: $(cat "$d/nolib.err")"
		grep -q 'inl+0x' "$d/nolib.txt" || fail "no module+0xOFFSET without libdebuginfod"
		[ "$(grep -c 'libdebuginfod cannot be loaded (.*libdebuginfod.so.1: .*): no debug file is fetched' \
			"$d/nolib.err")" = 1 ] || fail "no single warning without libdebuginfod: $(cat "$d/nolib.err")"
	fi
	echo "   ok: cache honoured, fails soft with a warning (a server down, libdebuginfod missing)"
}

# --- debuginfod caps: a server that streams zeros without end ---
# A .fxt and a server may come from anywhere: each fetch is abandoned at its
# size or time cap, nothing of it stays in the cache, one warning names the
# build id and the cap, and the other modules are still symbolized.
caps_tier()
{
	if ! "$bin" report --help | grep -q -- --debuginfod-max-size; then
		fail "caps: fxsampler built without libdebuginfod"
	fi
	if ! command -v strace >/dev/null || ! command -v python3 >/dev/null; then
		skip "caps: strace or python3 not found (make deps)"
		return
	fi
	echo "== caps: debuginfod fetches from a server that never stops are abandoned at their caps"
	c=$tmp/caps
	mkdir -p "$c"
	# main and its caller stripped (their debug info only "on the server");
	# the library keeps its symbols: its frames must stay symbolized.
	cat >"$c/spin.c" <<'SRC'
volatile unsigned long fxs_sink;
__attribute__((noinline)) void fxs_lib_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		fxs_sink += i ^ (fxs_sink >> 3);
}
SRC
	cat >"$c/main.c" <<'SRC'
#include <stdlib.h>
void fxs_lib_spin(unsigned long n);
__attribute__((noinline)) void fxs_caller(unsigned long n)
{
	fxs_lib_spin(n);
}
int main(int argc, char **argv)
{
	unsigned long k, n = argc > 1 ? strtoul(argv[1], 0, 0) : 100;
	for (k = 0; k < n; k++)
		fxs_caller(1000000);
	return 0;
}
SRC
	gcc -O1 -g -fno-omit-frame-pointer -fPIC -shared -Wl,--build-id -o "$c/libfxsspin.so" "$c/spin.c" ||
		fail "gcc libfxsspin.so"
	gcc -O1 -g -fno-omit-frame-pointer -Wl,--build-id -o "$c/full" "$c/main.c" -L"$c" -lfxsspin \
		-Wl,-rpath,"$c" || fail "gcc main"
	strip -o "$c/capped" "$c/full" || fail "strip"
	id=$(readelf -n "$c/capped" | awk '/Build ID/ { print $3 }')
	[ -n "$id" ] || fail "no build id"
	record -q -o "$c/capped.fxt" -- "$c/capped" 1500 2>"$c/record.err" || fail "record: $(cat "$c/record.err")"

	# Any build id: 200 and zeros, chunked, never an end (/slow: 64 KiB every 50 ms).
	cat >"$c/zeros.py" <<'PY'
import http.server, socketserver, sys, time
class Zeros(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_GET(self):
        if self.path == "/ready":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        sys.stderr.write("GET %s\n" % self.path)
        sys.stderr.flush()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"%x\r\n" % 65536 + b"\0" * 65536 + b"\r\n"
        slow = self.path.startswith("/slow/")
        try:
            while True:
                self.wfile.write(chunk)
                if slow:
                    time.sleep(0.05)
        except OSError:
            pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
Server(("127.0.0.1", int(sys.argv[1])), Zeros).serve_forever()
PY
	port=$(free_port)
	python3 "$c/zeros.py" "$port" 2>"$c/zeros.log" &
	dpid=$!
	i=0
	until curl -sf -m 1 -o /dev/null "http://127.0.0.1:$port/ready"; do
		i=$((i + 1))
		[ "$i" -lt 40 ] || fail "the zeros server on port $port never answered ($(cat "$c/zeros.log"))"
		kill -0 "$dpid" 2>/dev/null || fail "the zeros server exited: $(cat "$c/zeros.log")"
		sleep 0.25
	done

	# Size: 2 MiB a fetch, at full speed. strace counts the bytes written to
	# each of libdebuginfod's temporary cache files: none may pass the cap
	# (abandoning at the next progress call would be too late by then).
	cache=$c/cache-size
	mkdir -p "$cache"
	DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$cache \
		strace -f -qq -s 0 -e trace=openat,write,close -o "$c/size.strace" \
		"$bin" report "$c/capped.fxt" --folded --debug-dir "$c/none" --debuginfod-max-size 2M \
		>"$c/size.txt" 2>"$c/size.err" || fail "report with the size cap failed: $(cat "$c/size.err")"
	most=$(awk '
		/openat\(.*\/debuginfo\.[A-Za-z0-9]+"/ && / = [0-9]+$/ {
			p = $0; sub(/.*openat\([^"]*"/, "", p); sub(/".*/, "", p); fd[$NF] = p; next }
		/ write\([0-9]+,/ && / = [0-9]+$/ {
			f = $0; sub(/.* write\(/, "", f); sub(/,.*/, "", f)
			if (f in fd) { n[fd[f]] += $NF; if (n[fd[f]] > max) max = n[fd[f]] } next }
		/ close\([0-9]+\)/ { f = $0; sub(/.* close\(/, "", f); sub(/\).*/, "", f); delete fd[f] }
		END { print max + 0 }' "$c/size.strace")
	[ "$most" -gt 0 ] || fail "strace saw no write to a debuginfod cache file (see $c/size.strace)"
	[ "$most" -le 2097152 ] || fail "$most bytes written to one cache file: past the 2 MiB cap"
	grep -q "fxsampler: warning: debuginfod: build id $id ($c/capped) not fetched: past the size cap of a fetch, 2 MiB (--debuginfod-max-size)" \
		"$c/size.err" || fail "no size-cap warning for $id: $(cat "$c/size.err")"
	[ "$(grep -c "build id $id " "$c/size.err")" = 1 ] || fail "not one warning for $id: $(cat "$c/size.err")"
	left=$(find "$cache" -mindepth 1 -type d; find "$cache" -mindepth 2)
	[ -z "$left" ] || fail "the abandoned fetches left in the cache: $left"
	grep -q ';fxs_caller;fxs_lib_spin ' "$c/size.txt" &&
		fail "fxs_caller resolved: the stripped binary got debug info: $(head -3 "$c/size.txt")"
	grep -Eq ';capped\+0x[0-9a-f]+;fxs_lib_spin [0-9]+$' "$c/size.txt" ||
		fail "the library's frames are not symbolized beside capped+0x..: $(head -5 "$c/size.txt")"
	echo "   size: abandoned at 2 MiB ($most bytes written at most), nothing left in the cache, fxs_lib_spin symbolized"

	# The report's size cap: 3 MiB in all leaves the second module 1 MiB.
	cache=$c/cache-total
	mkdir -p "$cache"
	DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$cache \
		"$bin" report "$c/capped.fxt" --folded --debug-dir "$c/none" --debuginfod-max-size 2M \
		--debuginfod-total-size 3M >"$c/total.txt" 2>"$c/total.err" ||
		fail "report with the report's size cap failed: $(cat "$c/total.err")"
	grep -q "not fetched: past the size cap of a fetch, 2 MiB" "$c/total.err" &&
		grep -q "not fetched: past the size cap of the report's fetches, 3 MiB (--debuginfod-total-size)" \
			"$c/total.err" || fail "no warning of each size cap: $(cat "$c/total.err")"
	left=$(find "$cache" -mindepth 1 -type d; find "$cache" -mindepth 2)
	[ -z "$left" ] || fail "the abandoned fetches left in the cache: $left"
	echo "   the report's 3 MiB: the second fetch got what the first left"

	# Time: the stream is slow; a fetch gets 1 s and the report 2 s in all:
	# the report ends within its 2 s and a second more.
	cache=$c/cache-time
	mkdir -p "$cache"
	t0=$(date +%s%N)
	DEBUGINFOD_URLS=http://127.0.0.1:$port/slow DEBUGINFOD_CACHE_PATH=$cache timeout 60 \
		"$bin" report "$c/capped.fxt" --folded --debug-dir "$c/none" \
		--debuginfod-max-time 1s --debuginfod-total-time 2s >"$c/time.txt" 2>"$c/time.err" ||
		fail "report with the time cap failed: $(cat "$c/time.err")"
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -le 3000 ] || fail "report took $ms ms: past the 2 s cap and a second"
	grep -Eq "debuginfod: build id [0-9a-f]+ \(.*\) not fetched: past the time cap of a fetch, 1 s \(--debuginfod-max-time\)" \
		"$c/time.err" || fail "no time-cap warning: $(cat "$c/time.err")"
	grep -q "build id $id ($c/capped) not fetched: past the time cap" "$c/time.err" ||
		fail "no time-cap warning for $id: $(cat "$c/time.err")"
	left=$(find "$cache" -mindepth 1 -type d; find "$cache" -mindepth 2)
	[ -z "$left" ] || fail "the abandoned fetches left in the cache: $left"
	grep -Eq ';capped\+0x[0-9a-f]+;fxs_lib_spin [0-9]+$' "$c/time.txt" ||
		fail "the library's frames are not symbolized: $(head -5 "$c/time.txt")"
	echo "   time: ended in $ms ms (caps 1 s a fetch, 2 s in all), nothing left in the cache"
	kill "$dpid"
	wait "$dpid" 2>/dev/null || true
	dpid=
}

# For the browser tiers: node_modules set to check-browser's npm install
# (playwright-core among its packages), or the tier NAME skipped (1).
browser_modules()
{
	if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ] || ! command -v node >/dev/null; then
		skip "$1: chromium or node not found (make deps)"
		return 1
	fi
	if ! node_modules=$(tests/browser/npm.sh 2>"$tmp/npm.err"); then
		skip "$1: no playwright-core: $(tail -n 1 "$tmp/npm.err")"
		return 1
	fi
}

# --- the interactive flame graph in headless Chromium ---
svg_tier()
{
	browser_modules svg || return 0
	echo "== svg: the flame graph zooms, resets, searches in headless Chromium"
	s=$tmp/svg
	mkdir -p "$s"
	# --unwind=fp: every stack of a thread then has one root. Under auto the
	# first sample or two of the new image go by frame pointers before its
	# tables (marked) and make a tower of their own, which the SVG merges
	# under a pixel into "[N frames, each under a pixel]": the search does
	# not see into that, and the share would be off by a sample.
	record -q --unwind=fp -o "$s/demo.fxt" -- "${FXS_PROGS:-$(pwd)/.output/progs}/demo" 1 2 \
		2>"$s/record.err" ||
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
	browser_modules towers || return 0
	echo "== towers: 300 short processes and threads of three kinds, three towers named"
	s=$tmp/towers
	mkdir -p "$s"
	# kinds sleeps 500 ms first: its own exec's first samples go by frame pointers
	record -q -F 999 -o "$s/kinds.fxt" -- "${FXS_PROGS:-$(pwd)/.output/progs}/kinds" 200 100 8 500 \
		2>"$s/record.err" || fail "record kinds: $(cat "$s/record.err")"
	"$bin" report "$s/kinds.fxt" --svg "$s/kinds.svg" >/dev/null 2>&1 || fail "report --svg"
	FXS_NODE_MODULES=$node_modules node tests/report/towers.mjs "$s/kinds.svg" "$s/shot.png" \
		alpha_leaf beta_leaf gamma_leaf || fail "towers in Chromium (screenshot $s/shot.png)"
}

# --- the flame graph of a big capture in headless Chromium (issue 39) ---
bigsvg_tier()
{
	browser_modules bigsvg || return 0
	echo "== bigsvg: the SVG of 100,000 samples of 200 processes opens, zooms and searches"
	s=$tmp/bigsvg
	mkdir -p "$s"
	# bench/fxtgen's "host" capture: no recording, so no lock
	make -s -C bench ../.output/bench/fxtgen >"$s/make.log" 2>&1 ||
		fail "build bench/fxtgen: $(tail -n 3 "$s/make.log")"
	.output/bench/fxtgen "$s/big.fxt" 100000 host || fail "fxtgen"
	"$bin" report "$s/big.fxt" --svg "$s/big.svg" --folded >"$s/big.folded" 2>/dev/null ||
		fail "report --svg"
	# cc1plus-3's share: the samples whose process frame it is
	share=$(awk '{ n = $NF; t += n; if (index($0, "cc1plus-3;") == 1) m += n }
		END { printf "%.2f%%", 100 * m / t }' "$s/big.folded")
	FXS_NODE_MODULES=$node_modules node tests/report/bigsvg.mjs "$s/big.svg" cc1plus-3 "$share" ||
		fail "big svg in Chromium"
}

# The tiers that are a script of their own: tier NAME runs
# tests/report/SCRIPT ARGS... TMPDIR, TMPDIR being $tmp/NAME, under the lock.
script_tier()
{
	name=$1 script=$2
	shift 2
	mkdir -p "$tmp/$name"
	locked sh "tests/report/$script" "$@" "$tmp/$name" || fail "$name"
}

dbin=$(dirname "$bin")/fxsamplerd
# C++ and Rust names against c++filt
demangle_tier() { script_tier demangle demangle.sh "$bin"; }
# fxsamplerd's HTTP endpoint
http_tier() { script_tier http http.sh "$bin" "$dbin" "${FXS_PROGS:-$(pwd)/.output/progs}"; }
# JIT code named from perf maps
jit_tier() { script_tier jit jit.sh "$bin" "$dbin"; }
# JIT code named in fxsamplerd's HTTP scrapes
jithttp_tier() { script_tier jithttp jit_http.sh "$bin" "$dbin"; }
# JIT code named in fxsamplerd's continuous files
jitcont_tier() { script_tier jitcont jit_cont.sh "$bin" "$dbin"; }
# Python frames in continuous mode and its HTTP scrapes
pyhttp_tier() { script_tier pyhttp py_http.sh "$bin" "$dbin"; }

for t in $tests; do
	case $t in
	svg) svg_tier ;;
	towers) towers_tier ;;
	bigsvg) bigsvg_tier ;;
	http) http_tier ;;
	demangle) demangle_tier ;;
	jit) jit_tier ;;
	jithttp) jithttp_tier ;;
	jitcont) jitcont_tier ;;
	pyhttp) pyhttp_tier ;;
	names) names ;;
	debuginfod) debuginfod_tier ;;
	caps) caps_tier ;;
	*) fail "unknown test '$t'" ;;
	esac
done
echo "check-report: all run tiers passed"
