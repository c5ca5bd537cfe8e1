#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make check-browser: report's outputs read by what people open them with,
# no root needed. gen_profile writes an .fxt whose every sample is known;
# fxsampler report turns it into a pprof and a perf script, and
#   - pprof_format.mjs decodes the pprof with the npm package pprof-format,
#     a decoder independent of ours and of go tool pprof;
#   - speedscope.mjs loads the perf script into speedscope (npm) in headless
#     Chromium (Debian's chromium, driven by playwright-core) and checks the
#     samples of its time-ordered view.
# The npm packages are tests/browser/package.json's, installed by
# tests/browser/npm.sh (under $OUTPUT/npm, shared with check-report's SVG
# test). Without node, npm or chromium the tier says SKIP and NOT RUN.
set -eu

OUTPUT=${OUTPUT:-.output}
CHROMIUM=${FXS_CHROMIUM:-/usr/bin/chromium}

[ -f daemon/cli/fxsampler.c ] || { echo "run.sh: run from the top of the source tree" >&2; exit 1; }
missing=
command -v node >/dev/null 2>&1 || missing="$missing node"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
[ -x "$CHROMIUM" ] || missing="$missing chromium"
if [ -z "$missing" ] && [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
	missing=" node 20 or later (playwright-core needs it)"
fi
if [ -n "$missing" ]; then
	echo "SKIP: check-browser: no$missing (make deps installs nodejs, npm and chromium); NOT RUN"
	exit 0
fi

node_modules=$(OUTPUT=$OUTPUT tests/browser/npm.sh)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fxs-browser.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$OUTPUT/tests/browser/gen_profile" "$tmp/gen.fxt" >"$tmp/facts"
./fxsampler report --pprof "$tmp/gen.pb.gz" --perf-script "$tmp/gen.perf" "$tmp/gen.fxt" >/dev/null

export FXS_NODE_MODULES="$node_modules" FXS_CHROMIUM="$CHROMIUM"
passed=0
failed=0
for t in pprof_format speedscope; do
	echo "== $t"
	case $t in
	pprof_format) input=$tmp/gen.pb.gz ;;
	speedscope) input=$tmp/gen.perf ;;
	esac
	if timeout 300 node "tests/browser/$t.mjs" "$input" "$tmp/facts"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "check-browser: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
