#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Part of `make check`: docs/completion/fxsampler.bash under the real
# bash-completion library, driven as readline drives it (COMP_WORDS, COMP_CWORD):
#   - `fxsampler rec<TAB>` gives record, `fxsampler <TAB>` every command of --help;
#   - `fxsampler CMD --<TAB>` gives every option `fxsampler CMD --help` prints,
#     and `fxsamplerd --<TAB>` every option of `fxsamplerd --help`;
#   - `fxsampler report <TAB>` and `dump <TAB>` give .fxt files and folders,
#     not other files; `record -o <TAB>` gives .fxt files.
# Usage: tests/man/completion.sh [BINDIR] [COMPLETION_FILE]
set -uo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
BINDIR=${1:-$ROOT}
COMPLETION=${2:-$ROOT/docs/completion/fxsampler.bash}
LIB=/usr/share/bash-completion/bash_completion
if [ ! -f "$LIB" ]; then
	echo "SKIP: completion test needs bash-completion ($LIB; apt-get install bash-completion); NOT RUN"
	exit 0
fi
FAIL=0
bad() { FAIL=$((FAIL + 1)); printf 'FAIL: %s\n' "$*"; }

# complete LINE: the words bash would offer for LINE (the last word is the
# one being completed; a trailing blank starts an empty one), one a line.
complete_line() {
	bash --norc --noprofile -c '
		source "$1" && source "$2" || exit 1
		shopt -s extglob
		read -ra COMP_WORDS <<<"$3"
		[[ $3 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$3 COMP_POINT=${#3}
		fn=$(complete -p "${COMP_WORDS[0]}" | sed -E "s/.*-F ([^ ]+).*/\1/")
		"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$LIB" "$COMPLETION" "$1"
}

expect_exactly() {
	local line=$1 want=$2 got
	got=$(complete_line "$line" | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then echo "ok:   '$line' -> $got"
	else bad "'$line' -> '$got', expected '$want'"; fi
}

options_of() { grep -oE -- '(^|[][ ,|(])--[a-z][a-z-]*[a-z]' | sed -E 's/^[][ ,|(]//' | sort -u; }

expect_exactly "fxsampler rec" "record "
cmds=$("$BINDIR/fxsampler" --help | awk '/^  [a-z]+ / { print $1 }' | sort | tr '\n' ' ')
expect_exactly "fxsampler " "$cmds"

for c in record report dump status; do
	offered=$(complete_line "fxsampler $c --")
	for o in $("$BINDIR/fxsampler" "$c" --help | options_of); do
		grep -qxF -- "$o" <<<"$offered" || bad "'fxsampler $c --<TAB>' lacks $o"
	done
done
offered=$(complete_line "fxsamplerd --")
for o in $("$BINDIR/fxsamplerd" --help | sed '/^Configuration/,$d' | options_of); do
	grep -qxF -- "$o" <<<"$offered" || bad "'fxsamplerd --<TAB>' lacks $o"
done
[ "$FAIL" = 0 ] && echo "ok:   every option of --help is offered"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/sub"
touch "$T/a.fxt" "$T/b.fxt.gz" "$T/notes.txt"
cd "$T" || exit 1
expect_exactly "fxsampler report " "a.fxt b.fxt.gz sub "
expect_exactly "fxsampler dump " "a.fxt b.fxt.gz sub "
expect_exactly "fxsampler record -o " "a.fxt sub "

echo "completion: $FAIL failed"
[ "$FAIL" = 0 ]
