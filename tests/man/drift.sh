#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Part of `make check`: the man pages cannot drift from the code.
#   - every option `fxsampler --help`, `fxsampler CMD --help` and
#     `fxsamplerd --help` print has a .TP entry in its page's section
#     (fxsampler.1: OPTIONS; a command's own page fxsampler-CMD.1, as perf
#     has perf-record.1: OPTIONS, else fxsampler.1's `.SS CMD` under
#     COMMANDS; fxsamplerd.8: OPTIONS), and every option a .TP entry names
#     is one the binary prints;
#   - every command `fxsampler --help` lists has its `.SS` section in
#     fxsampler.1;
#   - every page's .TH names the version the binaries print;
#   - every key daemon/service/daemon_config.c accepts (its strcmp(key, "...")
#     chain is the key table) has a .TP entry in fxsamplerd.conf.5's KEYS, and
#     every entry there is such a key.
# Usage: tests/man/drift.sh [BINDIR] (default: the tree's root); MAN_DIR
# overrides docs/man (to show the test fails on an edited copy).
set -uo pipefail

cd "$(dirname "$0")/../.."
BINDIR=${1:-$PWD}
MAN_DIR=${MAN_DIR:-docs/man}
FAIL=0
bad() { FAIL=$((FAIL + 1)); printf 'FAIL: %s\n' "$*"; }

# The options a --help text names: -x or --long-name after a blank, '[', ',',
# '|' or '(' (so per-CPU or set-user-ID are not options).
help_options() {
	grep -oE -- '(^|[][ ,|(])(--[a-z][a-z-]*[a-z]|-[a-zA-Z])([^a-zA-Z-]|$)' |
		sed -E 's/^[][ ,|(]?//; s/[^a-zA-Z-]$//' | sort -u
}

# The .TP terms (the line after each .TP) of a section of a page, as text:
# SECTION is a .SH name, or ".SS NAME" for a subsection.
section_terms() {
	local page=$1 section=$2
	awk -v want="$section" '
		function header(l) { sub(/^\.S[HS][ \t]+/, "", l); gsub(/"/, "", l); return l }
		/^\.SH/ { in_sh = (header($0) == want); in_ss = 0; next }
		/^\.SS/ { in_ss = (".SS " header($0) == want); if (want !~ /^\.SS /) in_sh = in_sh; next }
		{ inside = (want ~ /^\.SS / ? in_ss : in_sh) }
		take && inside { print; take = 0; next }
		/^\.TP/ && inside { take = 1 }
	' "$page" | sed -E 's/\\f[BIRP]//g; s/\\-/-/g; s/^\.[A-Z]+[ \t]*//; s/"//g'
}

# Options named in .TP terms (first words that look like options).
term_options() { grep -oE -- '(^|[ ,[])(--[a-z][a-z-]*[a-z]|-[a-zA-Z])([^a-zA-Z-]|$)' |
	sed -E 's/^[ ,[]?//; s/[^a-zA-Z-]$//' | sort -u; }

compare() {
	local what=$1 page=$2 section=$3 help=$4 terms opt
	terms=$(section_terms "$page" "$section")
	if [ -z "$terms" ]; then bad "$page: no section '$section' with .TP entries ($what)"; return; fi
	for opt in $(help_options <<<"$help"); do
		grep -qE -- "(^|[^a-zA-Z-])$opt([^a-zA-Z-]|\$)" <<<"$terms" ||
			bad "$page ($section): '$opt' of '$what --help' has no entry"
	done
	for opt in $(term_options <<<"$terms"); do
		help_options <<<"$help" | grep -qxF -- "$opt" ||
			bad "$page ($section): entry '$opt' is not an option of '$what --help'"
	done
}

for b in fxsampler fxsamplerd; do
	[ -x "$BINDIR/$b" ] || { echo "drift: $BINDIR/$b is not built" >&2; exit 1; }
done

top=$("$BINDIR/fxsampler" --help)
compare "fxsampler" "$MAN_DIR/fxsampler.1" OPTIONS "$top"
cmds=$(awk '/^  [a-z]+ / { print $1 }' <<<"$top")
[ -n "$cmds" ] || bad "no commands in 'fxsampler --help'"
for c in $cmds; do
	grep -qE "^\.SS \"?$c\"?\$" "$MAN_DIR/fxsampler.1" ||
		{ bad "fxsampler.1: no '.SS $c' for the command $c"; continue; }
	h=$("$BINDIR/fxsampler" "$c" --help)
	# a command whose usage takes no option has no .TP entries to compare
	if [ -n "$(help_options <<<"$h")" ]; then
		if [ -f "$MAN_DIR/fxsampler-$c.1" ]; then
			compare "fxsampler $c" "$MAN_DIR/fxsampler-$c.1" OPTIONS "$h"
		else
			compare "fxsampler $c" "$MAN_DIR/fxsampler.1" ".SS $c" "$h"
		fi
	fi
done
compare "fxsamplerd" "$MAN_DIR/fxsamplerd.8" OPTIONS "$("$BINDIR/fxsamplerd" --help |
	sed '/^Configuration/,$d')"

# Each page's .TH names the version the binaries print.
version=$("$BINDIR/fxsampler" --version | awk '{ print $2 }')
pages=0
for page in "$MAN_DIR"/*.[1-8]; do
	pages=$((pages + 1))
	grep -q "^\.TH .*\"fxsampler $version\"" "$page" ||
		bad "${page##*/}: its .TH does not say \"fxsampler $version\" (fxsampler --version)"
done
[ "$pages" -ge 3 ] || bad "$MAN_DIR: only $pages pages"

keys=$(grep -oE 'strcmp\(key, "[a-z_]+"\)' daemon/service/daemon_config.c |
	sed -E 's/.*"(.*)".*/\1/' | sort -u)
[ "$(wc -l <<<"$keys")" -ge 10 ] || bad "daemon_config.c: found only '$keys' as keys"
terms=$(section_terms "$MAN_DIR/fxsamplerd.conf.5" KEYS)
page_keys=$(awk '{ print $1 }' <<<"$terms" | sort -u)
for k in $keys; do
	grep -qxF "$k" <<<"$page_keys" || bad "fxsamplerd.conf.5: the key '$k' has no entry"
done
for k in $page_keys; do
	grep -qxF "$k" <<<"$keys" || bad "fxsamplerd.conf.5: entry '$k' is no key of daemon_config.c"
done

# The test must fail on a page that lost an entry: a copy of the pages
# without record's --no-inherit (fxsampler-record.1), and without the key
# idle_timeout.
if [ -z "${DRIFT_INNER:-}" ] && [ "$FAIL" = 0 ]; then
	t=$(mktemp -d)
	cp "$MAN_DIR"/* "$t"/
	awk '/^\.TP$/ { tp = $0; next }
		tp != "" { if ($0 ~ /no\\-inherit$/ || $0 ~ /^\.BI idle_timeout /) { skip = 1; tp = ""; next }
			print tp; tp = ""; skip = 0 }
		skip && !/^\./ { next }
		{ skip = 0; print }' "$MAN_DIR/fxsampler-record.1" >"$t/fxsampler-record.1"
	awk '/^\.TP$/ { tp = $0; next }
		tp != "" { if ($0 ~ /^\.BI idle_timeout /) { skip = 1; tp = ""; next }
			print tp; tp = ""; skip = 0 }
		skip && !/^\./ { next }
		{ skip = 0; print }' "$MAN_DIR/fxsamplerd.conf.5" >"$t/fxsamplerd.conf.5"
	out=$(DRIFT_INNER=1 MAN_DIR=$t "$0" "$BINDIR" 2>&1) && rc=0 || rc=$?
	rm -rf "$t"
	if [ "$rc" = 1 ] && grep -q "'--no-inherit' of 'fxsampler record --help' has no entry" <<<"$out" &&
		grep -q "the key 'idle_timeout' has no entry" <<<"$out"; then
		echo "ok:   the pages without --no-inherit and idle_timeout fail: $(tr '\n' ' ' <<<"$out")"
	else
		bad "the pages without --no-inherit and idle_timeout did not fail as they should: exit $rc: $out"
	fi
fi

if [ "$FAIL" = 0 ]; then
	echo "man pages: every option and config key has its entry ($(wc -w <<<"$cmds") commands, $(wc -w <<<"$keys") keys)"
fi
[ "$FAIL" = 0 ]
