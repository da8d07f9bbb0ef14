#!/bin/sh
# golden-update.sh - rewrite testsuite/golden/*/X.err from the current
# nnef-check. Review `git diff testsuite/golden` before committing: the
# .err files are the specification of what users see.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/build/bin/nnef-check"
[ -x "$bin" ] || { echo "build first: make" >&2; exit 1; }
for dir in "$top"/testsuite/golden/*/; do
	cd "$dir"
	for f in *.nnef; do
		"$bin" --color=never "$f" 2>"${f%.nnef}.err" >/dev/null || true
	done
done
