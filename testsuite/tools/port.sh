#!/bin/sh
# port.sh - the portability report end to end: golden reports (every
# target) of the hand-written graphs of testsuite/golden/port/, the
# bundled examples and the four networks of the corpus; --target and
# --require-target: exit codes, messages, JSON.
# Usage: sh testsuite/tools/port.sh BINDIR   (NNEF_CORPUS: the corpus)
#        UPDATE=1 sh testsuite/tools/port.sh BINDIR   rewrites the goldens
set -u

bin=${1:?usage: port.sh BINDIR}
bin=$(cd "$bin" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
golden="$top/testsuite/golden/port"
corpus=${NNEF_CORPUS:-$top/../shared/corpus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/lib.sh"

check="$bin/nnef-check"
targets="--target=openvx --target=openvino --target=coreml --target=onnx:9 --target=onnx:13"

# report NAME PATH: the report of every target on PATH (run from $top, the
# corpus named CORPUS) against golden/port/NAME.out.
report() {
	# shellcheck disable=SC2086
	(cd "$top" && "$check" --color=never --no-data $targets "$2") 2>"$tmp/err" | sed "s|$corpus|CORPUS|g" >"$tmp/out"
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$tmp/out" "$golden/$1.out"
		return
	fi
	if cmp -s "$tmp/out" "$golden/$1.out"; then ok; else
		bad "report of $2 differs from golden/port/$1.out"
		diff "$golden/$1.out" "$tmp/out" | head -10
	fi
}

# ---- golden reports --------------------------------------------------------------
for f in "$golden"/*.nnef; do
	name=$(basename "$f" .nnef)
	report "$name" "testsuite/golden/port/$name.nnef"
done
report example-tiny_convnet examples/tiny_convnet
report example-residual_block examples/residual_block
if [ -d "$corpus/nnef-tools-examples" ]; then
	for n in alexnet googlenet resnet vgg; do
		report "corpus-$n" "$corpus/nnef-tools-examples/$n.nnef"
	done
else
	corpus_missing "$corpus/nnef-tools-examples"
fi
corpus_summary port.sh
[ "${UPDATE:-0}" = 1 ] && { echo "port: goldens rewritten"; exit 0; }

# ---- options -----------------------------------------------------------------------
tiny="$top/examples/tiny_convnet"
expect_status 2 "$check" --target=onnx "$tiny"
expect_in "$tmp/err" "nnef-check: --target must be openvx, openvino, coreml or onnx:N (an ONNX operator set from 1 to 23), not 'onnx'"
expect_in "$tmp/err" "Try 'nnef-check --help'."
expect_status 2 "$check" --require-target=onnx:24 "$tiny"
expect_in "$tmp/err" "--require-target must be openvx"
expect_status 2 "$check" --target=tflite "$tiny"
# a portable model passes --require-target; a report never changes the
# verdict; a model a required target cannot express exits 1
expect_status 0 "$check" --require-target=onnx:13 "$tiny"
expect_in "$tmp/out" "onnx:13: 16/16 operations portable; 0 need rewriting"
expect_status 0 "$check" --target=coreml --target=onnx:7 "$golden/windows.nnef"
expect_in "$tmp/out" "need rewriting"
expect_status 1 "$check" --require-target=openvx "$golden/windows.nnef"
expect_in "$tmp/err" "nnef-check: '$golden/windows.nnef' is not portable to openvx:"
expect_in "$tmp/err" "operations need rewriting (--require-target)"
expect_in "$tmp/out" "windows.nnef: valid"
# -q: the report asked for all the same, no summary line; the exit
# status stays
expect_status 1 "$check" -q --require-target=openvx "$golden/windows.nnef"
expect_in "$tmp/out" "openvx: "
expect_not_in "$tmp/out" "windows.nnef: valid"
expect_in "$tmp/err" "is not portable to openvx"
expect_status 0 "$check" -q --target=onnx:13 "$tiny"
expect_in "$tmp/out" "onnx:13: 16/16 operations portable; 0 need rewriting"
# one report per target however often it is named
expect_status 0 "$check" --target=openvx --target=openvx --target=onnx:13 "$tiny"
[ "$(grep -c '^openvx: .* operations portable' "$tmp/out")" = 1 ] && ok || bad "two reports of one target"
# no report of an invalid model
expect_status 1 "$check" --target=openvx "$top/testsuite/golden/syntax/missing_semicolon.nnef"
expect_not_in "$tmp/out" "operations portable"
# JSON carries the same
expect_status 0 "$check" --format=json --target=openvx --target=onnx:13 "$tiny"
expect_json
expect_in "$tmp/out" '"portability": ['
expect_in "$tmp/out" '"target": "onnx:13", "title": "ONNX operator set", "failed": false, "operations": 16, "portable": 16'
expect_in "$tmp/out" '{"operation": "conv", "target_operation": "Conv", "cite": "Conv-1"'
expect_status 1 "$check" --format=json --require-target=openvx "$golden/windows.nnef"
expect_json
expect_in "$tmp/out" '"problem": "border = '\''reflect'\'' is not expressible (constant,ignore only)"'

echo "port: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
