#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Demangled names against c++filt (check-report's demangle tier):
#   - clang++ -O2 -c of a template-heavy source (tests/report/demangle/templates.cpp:
#     std::regex, std::map, std::sort of a struct), recorded: its folded stacks are
#     those of --no-demangle with every frame put through `c++filt -i` (the same
#     stacks, the same counts), --top's names are c++filt's of --no-demangle's,
#     the SVG's tooltips and perf script show the demangled names whole,
#     the pprof profile's functions have the demangled name in name and the
#     mangled one in system_name (go tool pprof -raw), `go tool pprof -top` shows
#     demangled names, and --no-demangle shows the mangled ones everywhere;
#   - a Rust program (tests/report/demangle/spin.rs) built by Debian's rustc, once
#     with legacy mangling and once with -C symbol-mangling-version=v0: the same
#     folded and --top checks, and its own functions named.
# c++filt -i: DMGL_PARAMS | DMGL_ANSI, what report passes libiberty (as perf and
# gdb do); c++filt's default adds DMGL_VERBOSE (std::basic_string<char, ...> for
# std::string, a Rust legacy name's ::h<hash>).
# Usage: demangle.sh FXSAMPLER TMPDIR. The caller holds the live lock.
set -eu

bin=$1
tmp=$2
here=$(dirname "$0")
rustc=/usr/bin/rustc

fail()
{
	echo "FAIL: demangle: $*"
	exit 1
}
skip()
{
	echo "SKIP: demangle: $*; NOT RUN"
}

# Folded stacks with their counts added up per stack (two symbols may
# demangle to one name: a constructor's C1 and C2), sorted.
fold_sum()
{
	awk '{ n = $NF; $NF = ""; sum[$0] += n } END { for (k in sum) print k sum[k] }' | LC_ALL=C sort
}

# The function names of report --top's rows (the last column, without " [module]").
top_names()
{
	awk '/^ +Self +Self%/ { on = 1; next } on && NF == 0 { exit }
		on { sub(/^ *[0-9]+ +[0-9.]+% +[0-9]+ +[0-9.]+% +/, ""); sub(/ \[[^]]*\]$/, ""); print }'
}

# check_names NAME FXT: the demangled outputs of FXT are c++filt's of the raw ones.
check_names()
{
	n=$1
	f=$2
	"$bin" report --folded "$f" >"$tmp/$n.folded" 2>/dev/null || fail "$n: report --folded"
	"$bin" report --folded --no-demangle "$f" >"$tmp/$n.raw.folded" 2>/dev/null ||
		fail "$n: report --folded --no-demangle"
	fold_sum <"$tmp/$n.folded" >"$tmp/$n.sum"
	c++filt -i <"$tmp/$n.raw.folded" | fold_sum >"$tmp/$n.filt.sum"
	cmp -s "$tmp/$n.sum" "$tmp/$n.filt.sum" ||
		fail "$n: folded stacks differ from --no-demangle's through c++filt -i:" \
			"$(diff "$tmp/$n.filt.sum" "$tmp/$n.sum" | head -6)"
	grep -q '_Z\|;_R' "$tmp/$n.raw.folded" || fail "$n: --no-demangle --folded has no mangled name"
	"$bin" report --top 40 "$f" 2>/dev/null | top_names >"$tmp/$n.top"
	# Rows move where two symbols demangle to one name (a constructor's C1 and
	# C2 add up and rank higher): the raw list goes deeper, so that a name near
	# the 40th row is not missing from it only for its rank (CI, 2026-12-05:
	# an unnamed pc at the 40th row of one list, past the other's end).
	"$bin" report --top 120 --no-demangle "$f" 2>/dev/null | top_names >"$tmp/$n.raw.top"
	c++filt -i <"$tmp/$n.raw.top" | LC_ALL=C sort -u >"$tmp/$n.raw.top.filt"
	LC_ALL=C sort -u "$tmp/$n.top" >"$tmp/$n.top.sorted"
	# Every shown name is c++filt's.
	missing=$(LC_ALL=C comm -23 "$tmp/$n.top.sorted" "$tmp/$n.raw.top.filt" | head -3)
	[ -z "$missing" ] || fail "$n: --top shows names c++filt -i does not give: $missing"
	# nothing left that c++filt would demangle
	c++filt -i <"$tmp/$n.top" | cmp -s - "$tmp/$n.top" || fail "$n: --top shows mangled names"
	grep -q '^_Z\|^_R' "$tmp/$n.raw.top" || fail "$n: --top --no-demangle shows no mangled name"
	echo "$n: $(grep -c . "$tmp/$n.folded") folded stacks and $(grep -c . "$tmp/$n.top") top rows as c++filt -i names them"
}

# --- clang++ ---
if ! command -v clang++ >/dev/null || ! command -v c++filt >/dev/null; then
	skip "clang++ or c++filt not found (make deps installs clang and binutils)"
else
	echo "== demangle: clang++ -O2 -c templates.cpp, recorded; names against c++filt -i"
	"$bin" record -q -F 999 -o "$tmp/clang.fxt" 2>"$tmp/clang.log" -- \
		clang++ -O2 -c "$here/demangle/templates.cpp" -o "$tmp/templates.o" ||
		fail "record clang++"
	check_names clang "$tmp/clang.fxt"
	grep -q '^llvm::.*(.*)' "$tmp/clang.top" || fail "clang: no llvm:: function with its parameters in --top"
	# the SVG's tooltips (what its search reads) and perf script: demangled, whole
	"$bin" report --svg "$tmp/clang.svg" --perf-script "$tmp/clang.perf" "$tmp/clang.fxt" \
		>/dev/null 2>&1 || fail "report --svg --perf-script"
	grep -q '<title>llvm::[^<]*([^<]*) ([0-9]* samples' "$tmp/clang.svg" ||
		fail "clang: no SVG tooltip with a whole llvm:: name"
	! grep -q '<title>_Z' "$tmp/clang.svg" || fail "clang: a mangled name in the SVG"
	grep -q '^[[:space:]]*[0-9a-f]* llvm::.*(.*) (/' "$tmp/clang.perf" || fail "clang: perf script: no llvm:: name"
	! grep -q '^[[:space:]]*[0-9a-f]* _Z' "$tmp/clang.perf" || fail "clang: perf script: a mangled name"
	# pprof: name demangled, system_name mangled (go tool pprof -raw prints
	# "name file:line s=N(system_name)" when they differ), every pair c++filt's
	if command -v go >/dev/null; then
		"$bin" report --pprof "$tmp/clang.pb.gz" "$tmp/clang.fxt" >/dev/null 2>&1 ||
			fail "report --pprof"
		"$bin" report --no-demangle --pprof "$tmp/clang.raw.pb.gz" "$tmp/clang.fxt" \
			>/dev/null 2>&1 || fail "report --no-demangle --pprof"
		go tool pprof -raw -symbolize=none "$tmp/clang.pb.gz" 2>/dev/null |
			sed -n 's/^ *[0-9]*: 0x[0-9a-f]* M=[0-9]* \(.*\) [^ ]*:[0-9]* s=[0-9]*(\(.*\))$/\1\t\2/p' |
			LC_ALL=C sort -u >"$tmp/clang.pairs"
		pairs=$(grep -c . "$tmp/clang.pairs" || true)
		[ "$pairs" -ge 100 ] || fail "pprof: $pairs functions with a system_name, want >= 100"
		cut -f2 "$tmp/clang.pairs" | c++filt -i >"$tmp/clang.pairs.filt"
		cut -f1 "$tmp/clang.pairs" | cmp -s - "$tmp/clang.pairs.filt" ||
			fail "pprof: a name is not c++filt -i's of its system_name:" \
				"$(cut -f1 "$tmp/clang.pairs" | diff - "$tmp/clang.pairs.filt" | head -4)"
		# go tool pprof -top: the names are report's (with their parameters,
		# which Go's own demangler would drop), none left mangled
		go tool pprof -top -nodecount=30 "$tmp/clang.pb.gz" 2>/dev/null |
			awk '/^ +flat +flat%/ { on = 1; next } on { for (i = 1; i <= 5; i++) $i = ""; sub(/^ +/, ""); sub(/ \(inline\)$/, ""); print }' \
				>"$tmp/clang.gotop"
		grep -q '^llvm::.*(.*)' "$tmp/clang.gotop" ||
			fail "go tool pprof -top shows no llvm:: name with its parameters"
		c++filt -i <"$tmp/clang.gotop" | cmp -s - "$tmp/clang.gotop" ||
			fail "go tool pprof -top shows mangled names"
		go tool pprof -top -nodecount=30 -symbolize=none "$tmp/clang.raw.pb.gz" 2>/dev/null |
			grep -q ' _ZN4llvm' || fail "--no-demangle's pprof has no mangled llvm name"
		echo "clang: pprof: $pairs functions with name and system_name as c++filt -i pairs them;" \
			"go tool pprof -top names demangled"
	else
		skip "pprof: go not found"
	fi
fi

# --- Rust, legacy and v0 mangling ---
if [ ! -x "$rustc" ] || ! command -v c++filt >/dev/null; then
	skip "Rust: Debian's $rustc or c++filt not found (make deps installs rustc)"
	exit 0
fi
for m in legacy v0; do
	echo "== demangle: Rust ($($rustc --version)), $m mangling"
	flags=
	[ "$m" = v0 ] && flags="-C symbol-mangling-version=v0"
	# shellcheck disable=SC2086
	"$rustc" -O $flags "$here/demangle/spin.rs" -o "$tmp/spin_$m" || fail "rustc $m"
	if [ "$m" = v0 ]; then
		nm "$tmp/spin_$m" | grep -q ' _RNvNtCs[0-9A-Za-z_]*_4spin4spin5inner' ||
			fail "rustc -C symbol-mangling-version=v0 gave no v0 symbol"
	fi
	"$bin" record -q -F 499 -o "$tmp/spin_$m.fxt" -- "$tmp/spin_$m" 1 >/dev/null 2>"$tmp/spin_$m.log" ||
		fail "record spin_$m"
	check_names "rust_$m" "$tmp/spin_$m.fxt"
	generic='spin::sum_generic'
	[ "$m" = v0 ] && generic='spin::sum_generic::<u32>'
	for fn in spin::spin::inner "$generic" '<spin::Square as spin::Shape>::area'; do
		grep -qxF "$fn" "$tmp/rust_$m.top" || fail "rust $m: '$fn' not in --top"
	done
done
echo "demangle: passed"
