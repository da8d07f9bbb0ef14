#!/bin/sh
# golden-update.sh - rewrite testsuite/golden/*/X.err from the current
# nnef-check (with --lenient for golden/lenient/, --dialect=tract for
# golden/tract/), and for golden/flatten/
# X.err and X.flat from nnef-flatten (options from a first line "#! ..."),
# and the reports of golden/port/ (testsuite/tools/port.sh).
# The X.shapes files of golden/shapes/ and golden/nets/ are worked out by
# hand from the specification and never rewritten. Review
# `git diff testsuite/golden` before committing: the .err files are the
# specification of what users see.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/build/bin/nnef-check"
flatten="$top/build/bin/nnef-flatten"
[ -x "$bin" ] && [ -x "$flatten" ] || { echo "build first: make" >&2; exit 1; }
for dir in "$top"/testsuite/golden/*/; do
	cd "$dir"
	[ "$(basename "$dir")" = port ] && continue # port.sh below
	[ "$(basename "$dir")" = run ] && continue # runs: their expected outputs are in them
	opt=
	[ "$(basename "$dir")" = lenient ] && opt=--lenient
	[ "$(basename "$dir")" = tract ] && opt=--dialect=tract
	for f in *.nnef; do
		[ -e "$f" ] || continue
		if [ "$(basename "$dir")" = flatten ]; then
			# options from a first line "#! OPTIONS"
			fopt=$(sed -n '1s/^#! //p' "$f")
			# shellcheck disable=SC2086
			if "$flatten" --color=never $fopt "$f" >"${f%.nnef}.flat" 2>"${f%.nnef}.err"; then :; else
				rm -f "${f%.nnef}.flat"
			fi
			continue
		fi
		# shellcheck disable=SC2086
		"$bin" --color=never $opt "$f" 2>"${f%.nnef}.err" >/dev/null || true
	done
done
# the portability reports of golden/port/ (NAME.out)
UPDATE=1 sh "$top/testsuite/tools/port.sh" "$top/build/bin"
