# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What tests/cfi's scripts share (sourced): both tools' stacks folded and
# normalized alike, the share that reaches the entry, perf's top stacks
# against ours. FXS_LIVE_LOCK=FILE: locked runs take that lock (flock).

locked()
{
	if [ -n "${FXS_LIVE_LOCK:-}" ]; then flock "$FXS_LIVE_LOCK" "$@"; else "$@"; fi
}

# Normalize one frame name (stdin: one name a line).
NORM='
function norm(f) {
	if (f ~ / \(inlined\)$/ || f ~ / \[inlined\]$/) return ""
	if (f == "[unknown]" || f ~ /\+0x[0-9a-f]+$/) return "?"
	sub(/@.*/, "", f)
	sub(/^__GI_+/, "", f)
	sub(/^__libc_start_main_impl$/, "__libc_start_main", f)
	sub(/^_+/, "", f)
	return f
}
# From the main thread entry down: perf stacks of some stripped programs stop
# there while ours go on to _start, which is no difference of function.
function from_entry(s) {
	sub(/^(.*;)?libc_start_call_main;/, "libc_start_call_main;", s)
	return s
}'

# fxsampler's folded stacks (process;thread;root..leaf count) -> "stack<TAB>count", program's threads only.
fold_ours()
{
	awk -v comm="$1" "$NORM"'
	{
		n = split($0, a, " "); count = a[n]; line = substr($0, 1, length($0) - length(count) - 1)
		k = split(line, f, ";")
		if (index(f[2], comm) != 1) next
		s = ""
		for (i = 3; i <= k; i++) { g = norm(f[i]); if (g != "") s = s (s == "" ? "" : ";") g }
		sum[from_entry(s)] += count
	}
	END { for (s in sum) printf "%s\t%d\n", s, sum[s] }'
}

# perf script -F comm,tid,ip,sym -> the same.
fold_perf()
{
	awk -v comm="$1" "$NORM"'
	function flush() {
		if (keep && n) { s = ""; for (i = n; i >= 1; i--) s = s (s == "" ? "" : ";") st[i]; sum[from_entry(s)]++ }
		n = 0
	}
	/^[^ \t]/ { flush(); keep = index($1, substr(comm, 1, 15)) == 1; next }
	/^[ \t]*$/ { flush(); next }
	{
		addr = $1; $1 = ""; sub(/^ /, ""); name = $0
		if (addr ~ /^ffff/) next
		g = norm(name); if (g != "") st[++n] = g
	}
	END { flush(); for (s in sum) printf "%s\t%d\n", s, sum[s] }'
}

# Share of stacks that reach the entry, in per mille.
entry_share()
{
	awk -F '\t' '{ all += $2; if ($1 ~ /(^|;)(start|libc_start_call_main|start_thread)(;|$)/) e += $2 }
		END { printf "%d %d\n", all ? 1000 * e / all : 0, all }' "$1"
}

# The folded files given, added up stack by stack.
pool()
{
	cat "$@" | awk -F '\t' '{ sum[$1] += $2 } END { for (s in sum) printf "%s\t%d\n", s, sum[s] }'
}

# top_cmp RULE OURS PERF: perf's top 10 stacks of PERF against OURS (both
# folded; prints them), each of which must pass RULE:
#   within5  its share in OURS within 5 points of PERF's;
#   found    at 1 % or more, in OURS with at least half its share: the same
#            stacks, whatever the split of time between two leaves.
top_cmp()
{
	sort -t "$(printf '\t')" -k2,2nr "$3" | head -10 >"$3.top"
	awk -F '\t' -v rule="$1" -v on="$(total "$2")" -v pn="$(total "$3")" '
		FNR == NR { ours[$1] = $2; next }
		{ p = 100 * $2 / pn; o = 100 * ours[$1] / on; d = o - p; if (d < 0) d = -d
		  printf "  %5.1f%% %5.1f%%  %s\n", p, o, substr($1, length($1) > 110 ? length($1) - 109 : 1)
		  if (rule == "within5" ? d > 5 : p >= 1 && o < p / 2) bad++ }
		END { exit bad ? 1 : 0 }' "$2" "$3.top"
}

# How many stacks a folded file has.
total()
{
	awk -F '\t' '{ n += $2 } END { print n + 0 }' "$1"
}

