#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# cflags holds -DFXS_VERSION="0.1.0" with its quotes on purpose (a C string)
# and is split into words on purpose:
# shellcheck disable=SC2089,SC2090
#
# Build the libFuzzer targets (clang -fsanitize=fuzzer,address,undefined) and
# run each for FUZZ_SECONDS (default 60), FUZZ_JOBS at a time (default: the
# CPUs), from its committed seed corpus
# tests/fuzz/corpus/<target>/. Any crash, leak, sanitizer report or timeout
# fails the run; libFuzzer leaves the input under .output/fuzz/artifacts/,
# which then becomes a seed, and a test (naming the bug) in the unit tests of
# the module it crashed: tests/unit/CONCERN/check_MODULE.c.
#
#   tests/fuzz/run.sh [target...]     (default: the first five)
#
# perfmap (the perf-map parser and picker, lang/perfmap.h) is run by name,
# not by `make fuzz`, to keep make test's budget: tests/fuzz/run.sh perfmap
# (20 s on 2026-12-05: 879 071 inputs, no crash).
#
# Run from the top of the tree after `make` (daemon/capture/bpf_sampler.c includes the
# generated skeleton). New inputs libFuzzer finds go to .output/fuzz/corpus/,
# never into the committed seeds.
set -eu

OUTPUT=${OUTPUT:-.output}
CLANG=${CLANG:-clang}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
out=$OUTPUT/fuzz
targets=${*:-fxt_reader proc_maps elf protocol cfi_table}

die()
{
	echo "fuzz/run.sh: $*" >&2
	exit 1
}

[ -f daemon/cli/fxsampler.c ] || die "run from the top of the source tree"
command -v "$CLANG" >/dev/null || die "$CLANG not found"

san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="-O1 -g -std=gnu11 -D_GNU_SOURCE -DFXS_VERSION=\"0.1.0\" -Wall -Wextra \
-Wno-unused-parameter -Wno-missing-field-initializers -Iinclude -Idaemon -I$OUTPUT"
libs=$(pkg-config --libs libbpf libelf zlib 2>/dev/null || echo -lbpf -lelf -lz)
# libdw when present, as the Makefile links it; libdebuginfod's header (the
# library is loaded with dlopen at the first fetch).
if pkg-config --exists libdw 2>/dev/null; then
	cflags="$cflags -DHAVE_LIBDW"
	libs="$libs $(pkg-config --libs libdw)"
	if pkg-config --exists libdebuginfod 2>/dev/null; then
		cflags="$cflags -DHAVE_LIBDEBUGINFOD"
		libs="$libs -ldl"
	fi
fi

mkdir -p "$out/artifacts"
# The library is instrumented for coverage (fuzzer-no-link), not only the
# target, so that libFuzzer sees the parsers' branches.
objs=
# The Makefile passes its list of library modules.
[ -n "${LIB_SRCS:-}" ] || die "LIB_SRCS unset: run 'make fuzz'"
# Built and run FUZZ_JOBS at a time (default: the CPUs; each fuzzer is one thread).
jobs=${FUZZ_JOBS:-$(nproc)}
# in_turn CMD...: CMD in the background, waiting first while $jobs run already
in_turn()
{
	while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	"$@" &
}
build_obj()
{
	echo "  CC-FUZZ  $2"
	# shellcheck disable=SC2086
	$CLANG $cflags $san -fsanitize=fuzzer-no-link -c "$1" -o "$2" || : >"$2.failed"
}
for src in $LIB_SRCS; do
	obj=$out/${src%.c}.o
	mkdir -p "$(dirname "$obj")"
	rm -f "$obj.failed"
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find daemon include -name '*.h' -newer "$obj")" ]; then
		in_turn build_obj "$src" "$obj"
	fi
	objs="$objs $obj"
done
wait
for obj in $objs; do
	[ ! -f "$obj.failed" ] || die "cannot build ${obj#"$out"/}"
done
rm -f "$out/libfxs.a"
# shellcheck disable=SC2086
ar rcs "$out/libfxs.a" $objs

# run_target T: fuzz T for FUZZ_SECONDS; what it says comes whole, after it ends
run_target()
{
	local t=$1 bin=$out/fuzz_$1 seeds=tests/fuzz/corpus/$1 work=$out/corpus/$1 said
	mkdir -p "$work"
	said="== fuzz $t for ${FUZZ_SECONDS}s ($(find "$seeds" -type f | wc -l) seeds)"
	# The first corpus directory receives new inputs; the seeds are only read.
	# -timeout: an input that takes 10 s is a hang, and fails the run.
	if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
		"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" \
		"$work" "$seeds" >"$out/$t.log" 2>&1; then
		echo "$said"
		tail -n 60 "$out/$t.log" >&2
		echo "FAIL: fuzz_$t: see $out/$t.log and $out/artifacts/" >&2
		: >"$out/$t.failed"
		return 1
	fi
	echo "$said"
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$out/$t.log" || true
	grep -E 'cov: [0-9]+' "$out/$t.log" | tail -n 1 || true
}
for t in $targets; do
	src=tests/fuzz/fuzz_$t.c
	[ -f "$src" ] || die "no target $t ($src)"
	[ -d "tests/fuzz/corpus/$t" ] || die "no seed corpus tests/fuzz/corpus/$t"
	echo "  CC-FUZZ  $out/fuzz_$t"
	# shellcheck disable=SC2086
	$CLANG $cflags $san -fsanitize=fuzzer "$src" "$out/libfxs.a" $libs -o "$out/fuzz_$t" ||
		die "cannot build $src"
	rm -f "$out/$t.failed"
done
for t in $targets; do
	in_turn run_target "$t"
done
wait
failed=
for t in $targets; do
	[ ! -f "$out/$t.failed" ] || failed="$failed $t"
done
[ -z "$failed" ] || die "crashes in:$failed"
echo "fuzz: all targets ran ${FUZZ_SECONDS}s without a crash"
