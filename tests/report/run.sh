#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Live tests of `fxsampler report` on real programs (make check-report):
#   names    Go's compress/flate benchmark: --top shows every function name whole
#            when piped, fits a terminal's width, and --wide does not cut;
#   debuginfod  a stripped program symbolized through a local debuginfod server;
#   svg      the interactive flame graph in headless Chromium (tests/report/svg.mjs).
#
# Recording needs root. On the shared development host run it under the live
# lock: flock /tmp/fxs-live.lock make check-report. FXS_BIN names fxsampler,
# FXS_PROGS the built tests/progs; TESTS picks tiers ("names debuginfod svg").
set -eu

bin=${FXS_BIN:-$(pwd)/fxsampler}
tests=${TESTS:-names debuginfod svg}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fxs_report.XXXXXX")
failed=0
cleanup()
{
	[ -n "${dpid:-}" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	if [ "$failed" = 0 ]; then rm -rf "$tmp"; else echo "kept $tmp"; fi
}
trap cleanup EXIT

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
	go test -c -o "$tmp/flate.test" compress/flate || fail "go test -c compress/flate"
	# The benchmark reads ../testdata: run it where its sources are.
	(cd "$(go env GOROOT)/src/compress/flate" &&
		"$bin" record -q -F 999 -o "$tmp/flate.fxt" -- "$tmp/flate.test" -test.run '^$' \
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

for t in $tests; do
	case $t in
	names) names ;;
	*) fail "unknown test '$t'" ;;
	esac
done
echo "check-report: all run tiers passed"
