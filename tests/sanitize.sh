#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# cflags holds -DFXS_VERSION="0.1.0" with its quotes on purpose (a C string)
# and is split into words on purpose:
# shellcheck disable=SC2089,SC2090
#
# The unit tests under the sanitizers and under valgrind.
#
#   tests/sanitize.sh asan       build every unit test and every library module
#                                (the Makefile's UNIT_SRCS and LIB_SRCS) with clang
#                                -fsanitize=address,undefined into .output/asan/
#                                and run them; any report fails the run
#   tests/sanitize.sh valgrind [BIN..]
#                                run the normal unit-test binaries (the ones
#                                given, else .output/tests/unit/**/check_*, built by
#                                `make check`) under valgrind with
#                                --leak-check=full --error-exitcode=1,
#                                SANITIZE_JOBS at once (default: the CPUs)
#
# Run from the top of the tree, after `make` has generated the BPF skeleton
# (.output/*.skel.h), which daemon/capture/bpf_sampler.c includes. Exits non-zero on
# the first failing binary and names it.
set -eu

OUTPUT=${OUTPUT:-.output}
CLANG=${CLANG:-clang}
# How many compiles and test binaries run at once: valgrind and ASan run one
# thread at a time.
jobs=${SANITIZE_JOBS:-$(nproc)}
mode=${1:-}
[ $# -eq 0 ] || shift

die()
{
	echo "sanitize.sh: $*" >&2
	exit 1
}

[ -f daemon/cli/fxsampler.c ] || die "run from the top of the source tree"

asan()
{
	out=$OUTPUT/asan
	san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
	# The Makefile's warnings, but not -Werror: the gcc build is the warning
	# gate, and clang warns about things gcc does not (e.g. intended string
	# concatenation in an array initializer).
	warn="-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers"
	cflags="-O1 -g -std=gnu11 -D_GNU_SOURCE -DFXS_VERSION=\"0.1.0\" $warn $san \
-Iinclude -Idaemon -I$OUTPUT"
	libs=$(pkg-config --libs libbpf libelf zlib 2>/dev/null || echo -lbpf -lelf -lz)
	# libdw when present, as the Makefile links it; libdebuginfod's header
	# (the library is loaded with dlopen at the first fetch).
	if pkg-config --exists libdw 2>/dev/null; then
		cflags="$cflags -DHAVE_LIBDW"
		libs="$libs $(pkg-config --libs libdw)"
		if pkg-config --exists libdebuginfod 2>/dev/null; then
			cflags="$cflags -DHAVE_LIBDEBUGINFOD"
			libs="$libs -ldl"
		fi
	fi
	# libiberty (a static archive) to demangle, as the Makefile links it.
	if [ -f /usr/include/libiberty/demangle.h ]; then
		cflags="$cflags -DHAVE_LIBIBERTY"
		libs="$libs -liberty"
	fi
	check_cflags=$(pkg-config --cflags check 2>/dev/null || true)
	check_libs=$(pkg-config --libs check 2>/dev/null || echo -lcheck)

	command -v "$CLANG" >/dev/null || die "$CLANG not found"
	objs=
	# The Makefile passes its lists: the library modules and the unit tests.
	[ -n "${LIB_SRCS:-}" ] && [ -n "${UNIT_SRCS:-}" ] || die "LIB_SRCS and UNIT_SRCS unset: run 'make check-asan'"
	# Built $jobs at once: the inner shells get the flags from the
	# environment and split them as this one would.
	export CLANG cflags libs check_cflags check_libs out
	# shellcheck disable=SC2016,SC2086 # the inner shell's variables; the lists split
	printf '%s\n' $LIB_SRCS | xargs -P "$jobs" -I{} sh -c '
		obj=$out/${1%.c}.o
		mkdir -p "$(dirname "$obj")"
		echo "  CC-ASAN  $obj"
		$CLANG $cflags -c "$1" -o "$obj" || { echo "sanitize.sh: cannot build $1" >&2; exit 1; }' _ {} ||
		die "the library did not build"
	for src in $LIB_SRCS; do
		objs="$objs $out/${src%.c}.o"
	done
	rm -f "$out/libfxs.a"
	# shellcheck disable=SC2086
	ar rcs "$out/libfxs.a" $objs
	# shellcheck disable=SC2016,SC2086 # the inner shell's variables; the lists split
	printf '%s\n' $UNIT_SRCS | xargs -P "$jobs" -I{} sh -c '
		bin=$out/${1%.c}
		mkdir -p "$(dirname "$bin")"
		echo "  CC-ASAN  $bin"
		$CLANG $cflags $check_cflags -Itests -Itests/unit "$1" "$out/libfxs.a" $libs $check_libs \
			-o "$bin" || { echo "sanitize.sh: cannot build $1" >&2; exit 1; }' _ {} ||
		die "the unit tests did not build"
	bins=
	for src in $UNIT_SRCS; do
		bins="$bins $out/${src%.c}"
	done
	# detect_leaks also runs in Check's forked children, so a leak in any test
	# fails it. halt_on_error: the first report ends the process (exit != 0).
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
	# ASan makes a test 2-3x slower, and a machine shared with other work
	# slower again: Check's per-test timeouts (4 s by default) are for the
	# plain build. A CI run of 2026-12-05 timed out two tests at a load of 10.
	CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-5}
	export ASAN_OPTIONS UBSAN_OPTIONS CK_TIMEOUT_MULTIPLIER
	# A report in a forked test child makes Check count that test as an
	# error, so the runner's own exit status carries it. A leak report of a
	# forked test child may not reach its output: a failed one runs again in
	# one process to show the report.
	# shellcheck disable=SC2016,SC2086 # the inner shell's $1 and $2; the list splits
	run_each "" '
		"$1" >"$2" 2>&1 && exit 0
		echo "== $1 again with CK_FORK=no, for the report" >>"$2"
		CK_FORK=no "$1" >>"$2" 2>&1
		exit 1' $bins
	[ -z "$failed" ] || die "failed under ASan/UBSan: $failed"
}

# run_each LABEL SCRIPT BIN...: sh -c SCRIPT for each BIN ($1 the binary, $2
# the file its output goes to), $jobs at once (one after another, valgrind
# took 539 s on the 2-core CI VM), each one's output shown in order once all
# ended; $failed names the ones whose SCRIPT failed.
run_each()
{
	label=$1 script=$2
	shift 2
	logs=$(mktemp -d "${TMPDIR:-/tmp}/fxs-sanitize.XXXXXX")
	# shellcheck disable=SC2016 # the inner shell's
	for bin in "$@"; do
		[ -x "$bin" ] && printf '%s\n' "$bin"
	done | xargs -P "$jobs" -I{} sh -c '
		log=$2/$(printf %s "$1" | tr / _)
		sh -c "$3" _ "$1" "$log" || printf "%s\n" "$1" >>"$2/failed"' _ {} "$logs" "$script"
	for bin in "$@"; do
		[ -x "$bin" ] || continue
		echo "== $label$bin"
		cat "$logs/$(printf %s "$bin" | tr / _)"
	done
	failed=
	[ ! -f "$logs/failed" ] || failed=$(tr '\n' ' ' <"$logs/failed")
	rm -rf "$logs"
}

valgrind_run()
{
	command -v valgrind >/dev/null || die "valgrind not found"
	# The binaries given (the Makefile passes $(UNIT_BINS)), else every one built.
	[ $# -gt 0 ] || set -- $(find "$OUTPUT"/tests/unit -name 'check_*' -type f | sort)
	[ -x "$1" ] || die "no unit test binary at '$1': run 'make check' first"
	# CK_FORK=no: one process, so valgrind sees all the tests allocate.
	# shellcheck disable=SC2016 # the inner shell's $1 (the binary) and $2 (its log)
	run_each "valgrind " '
		CK_FORK=no valgrind -q --leak-check=full --error-exitcode=1 "$1" >"$2" 2>&1' "$@"
	[ -z "$failed" ] || die "failed under valgrind: $failed"
}

case $mode in
asan) asan ;;
valgrind) valgrind_run "$@" ;;
*) die "usage: tests/sanitize.sh asan|valgrind" ;;
esac
