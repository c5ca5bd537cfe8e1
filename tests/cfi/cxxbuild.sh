#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A whole-host capture during a build (issue 37): fxsampler record -a at its
# default settings while make -j2 builds a small C++ project of its own (4
# files of templates, g++ -O2: a cc1plus each, ~0.5 s, and as; then a link).
# Each compiler is a new process whose first milliseconds come before user
# space has read its mappings: its modules' tables (cc1plus', libc's,
# libstdc++'s ...) are made by the first compile, and the walker finds them
# by the file mapped at each pc (bpf/vma.bpf.h).
#   - at least 90 % of cc1plus' stacks reach the entry,
#   - the summary says the tables' memory ("unwind tables: ... KiB of ...").
#
# Needs root and g++; prints "SKIP: ... NOT RUN" without them.
# FXS_LIVE_LOCK=FILE takes that lock (flock) around the recording. FXS_BIN
# names fxsampler.
set -eu
. "$(dirname "$0")/lib.sh"

bin=${FXS_BIN:-$(pwd)/fxsampler}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: check-cfi-cxxbuild needs root (BPF); NOT RUN"
	exit 0
fi
if ! command -v g++ >/dev/null || ! command -v make >/dev/null; then
	echo "SKIP: check-cfi-cxxbuild needs g++ and make (apt-get install g++ make); NOT RUN"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/fxsampler-check-cxxbuild.XXXXXX")
failed=0
cleanup()
{
	if [ "$failed" = 0 ]; then rm -rf "$tmp"; else echo "kept $tmp"; fi
}
trap cleanup EXIT

# The project: unit k instantiates its templates with its own constants.
mkdir "$tmp/src"
for k in 1 2 3 4; do
	cat >"$tmp/src/unit$k.cpp" <<CPP
#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
template <int N> struct Sum { static constexpr long v = N + Sum<N - 1>::v; };
template <> struct Sum<0> { static constexpr long v = 0; };
template <int I> std::string step(const std::vector<int> &in) {
	std::map<int, std::set<std::string>> by;
	std::unordered_map<std::string, long> count;
	for (int x : in) by[x % (I + 2)].insert(std::to_string(x * I));
	for (auto &[k, v] : by) for (auto &s : v) count[s] += k + Sum<I % 50 + 10>::v;
	std::vector<std::pair<std::string, long>> out(count.begin(), count.end());
	std::sort(out.begin(), out.end());
	std::ostringstream os;
	for (auto &p : out) os << p.first << p.second;
	return os.str();
}
template <int... Is> std::string all(std::integer_sequence<int, Is...>, const std::vector<int> &in) {
	std::string r;
	((r += step<Is + $k * 7>(in)), ...);
	return r;
}
std::string unit$k(const std::vector<int> &in) { return all(std::make_integer_sequence<int, 8>{}, in); }
CPP
done
cat >"$tmp/src/main.cpp" <<'CPP'
#include <iostream>
#include <string>
#include <vector>
std::string unit1(const std::vector<int> &), unit2(const std::vector<int> &),
	unit3(const std::vector<int> &), unit4(const std::vector<int> &);
int main() {
	std::vector<int> in{3, 1, 4, 1, 5, 9, 2, 6};
	std::cout << (unit1(in) + unit2(in) + unit3(in) + unit4(in)).size() << "\n";
}
CPP
printf 'OBJS := $(patsubst %%.cpp,%%.o,$(wildcard *.cpp))\nprog: $(OBJS)\n\tg++ $(OBJS) -o $@\n%%.o: %%.cpp\n\tg++ -std=c++17 -O2 -c $< -o $@\n' \
	>"$tmp/src/Makefile"

# record -a from before the build to its end (its file has its prologue once sampling).
cat >"$tmp/run.sh" <<EOF
"$bin" record -a -F 999 -o "$tmp/host.fxt" 2>"$tmp/host.err" &
rec=\$!
i=0
while [ ! -s "$tmp/host.fxt" ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
sleep 0.2
make -s -j2 -C "$tmp/src" >"$tmp/make.out" 2>&1; rc=\$?
kill -INT \$rec
wait \$rec || rc=\$?
exit \$rc
EOF
if ! locked sh "$tmp/run.sh"; then
	echo "FAIL cxxbuild: the build or the recording failed:"
	cat "$tmp/make.out" "$tmp/host.err"
	failed=1
	exit 1
fi
"$bin" report --folded "$tmp/host.fxt" 2>/dev/null | fold_ours cc1plus >"$tmp/cc1plus.folded"
set -- $(entry_share "$tmp/cc1plus.folded"); share=$1 n=$2
printf 'make -j2 of a C++ project under record -a: %d.%d%% of cc1plus'"'"'s %d stacks reach the entry\n' \
	$((share / 10)) $((share % 10)) "$n"
grep 'unwind' "$tmp/host.err" | sed 's/^/  /'
if [ "$n" -lt 1000 ]; then
	echo "FAIL cxxbuild: only $n stacks of cc1plus"; failed=1
fi
if [ "$share" -lt 900 ]; then
	echo "FAIL cxxbuild: ${share}‰ of cc1plus' stacks reach the entry (< 90 %)"; failed=1
fi
if ! grep -q 'unwind tables: .* KiB of [0-9]* KiB loaded' "$tmp/host.err"; then
	echo "FAIL cxxbuild: the summary does not say the tables' memory"; failed=1
fi
[ "$failed" = 0 ] && echo "check-cfi-cxxbuild: cc1plus' stacks whole under record -a during make -j2"
exit "$failed"
