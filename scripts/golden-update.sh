#!/bin/sh
# golden-update.sh - rewrite testsuite/golden/*/X.err from the current
# nnef-check (with --lenient for golden/lenient/). Review `git diff testsuite/golden` before committing: the
# .err files are the specification of what users see.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/build/bin/nnef-check"
[ -x "$bin" ] || { echo "build first: make" >&2; exit 1; }
for dir in "$top"/testsuite/golden/*/; do
	cd "$dir"
	opt=
	[ "$(basename "$dir")" = lenient ] && opt=--lenient
	for f in *.nnef; do
		[ -e "$f" ] || continue
		# shellcheck disable=SC2086
		"$bin" --color=never $opt "$f" 2>"${f%.nnef}.err" >/dev/null || true
	done
done
