#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Perfetto's own trace processor (make check-perfetto) on `report --perfetto`'s
# copies of real captures, with SQL (tests/perfetto/check.py):
#   demo     the two-thread demo: Perfetto's perf_sample holds report's sample
#            count, each sample's time, thread and CPU as dump prints them, and
#            report --folded's stacks (the top 10, then all) from its callsites;
#   offcpu   record --off-cpu of threads blocked in sleep, a pipe read and a mutex:
#            each thread's blocked time in thread_state within 2 % of
#            report --off-cpu's, and each off-CPU stack a sample at its interval;
#   kernel   record --kernel: every sample, the kernel frames of type kernel;
#   host     record -a -F 99 for FXS_PERFETTO_HOST_SECONDS (5; 60 is the issue's
#            figure): every sample, loaded in under 10 s;
#   dump     dump reads every record of each capture and copy: none unknown or
#            malformed, no large record (Perfetto fails a whole file on one).
#
# TRACE_PROCESSOR names trace_processor_shell (default ../shared/perfetto/ beside
# the clone: Perfetto v58.2, which needs Debian's libprotobuf32); without it the
# tier SKIPs. Recording needs root; FXS_LIVE_LOCK=FILE takes that lock (flock)
# around each recording. FXS_BIN names fxsampler, FXS_PROGS the built tests/progs.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=${FXS_BIN:-$(pwd)/fxsampler}
progs=${FXS_PROGS:-$(pwd)/.output/progs}
tp=${TRACE_PROCESSOR:-$here/../../../shared/perfetto/trace_processor_shell}
host_s=${FXS_PERFETTO_HOST_SECONDS:-5}

skip()
{
	echo "SKIP: check-perfetto: $*; NOT RUN"
	exit 0
}

[ "$(id -u)" = 0 ] || skip "needs root (it records with BPF)"
[ -x "$tp" ] || skip "no Perfetto trace processor at '$tp' (set TRACE_PROCESSOR)"
"$tp" --version >/dev/null 2>&1 ||
	skip "'$tp' does not run here (Debian's libprotobuf32 missing? ldd names what)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fxs_perfetto.XXXXXX")
failed=1
cleanup()
{
	if [ "$failed" = 0 ]; then rm -rf "$tmp"; else echo "kept $tmp"; fi
}
trap cleanup EXIT

record()
{
	lock=
	[ -n "${FXS_LIVE_LOCK:-}" ] && lock="flock $FXS_LIVE_LOCK"
	$lock "$bin" record -q "$@" >/dev/null 2>"$tmp/record.log" || {
		cat "$tmp/record.log"
		echo "FAIL: record $*"
		exit 1
	}
}

check()
{
	TRACE_PROCESSOR=$tp FXS_BIN=$bin python3 "$here/check.py" "$@"
}

echo "== perfetto: $("$tp" --version 2>&1 | head -1)"

echo "== demo: two threads, every sample"
record -F 999 -o "$tmp/demo.fxt" -- "$progs/demo" 1 2
"$bin" report --perfetto "$tmp/demo.pf.fxt" "$tmp/demo.fxt" >/dev/null
check samples "$tmp/demo.fxt" "$tmp/demo.pf.fxt"

echo "== offcpu: sleep, pipe and mutex waits in thread_state"
record --off-cpu -o "$tmp/off.fxt" -- "$progs/offcpu" 1
"$bin" report --off-cpu --perfetto "$tmp/off.pf.fxt" "$tmp/off.fxt" >/dev/null
check offcpu "$tmp/off.fxt" "$tmp/off.pf.fxt"

echo "== kernel: record --kernel"
record --kernel -F 999 -o "$tmp/kernel.fxt" -- "$progs/offcpu" 1
"$bin" report --perfetto "$tmp/kernel.pf.fxt" "$tmp/kernel.fxt" >/dev/null
check kernel "$tmp/kernel.fxt" "$tmp/kernel.pf.fxt"

echo "== host: record -a -F 99 for ${host_s} s"
record -a -F 99 -d "${host_s}s" -o "$tmp/host.fxt"
"$bin" report --perfetto "$tmp/host.pf.fxt" "$tmp/host.fxt" >/dev/null
check host "$tmp/host.fxt" "$tmp/host.pf.fxt"

echo "== dump: every record of the captures and the copies"
check dump "$tmp"/*.fxt

failed=0
echo "check-perfetto: PASS"
