#!/bin/sh
# tract.sh - end-to-end tests of nnef-run on tract's dialect: every case of
# tract's harness in the corpus that comes with its inputs and expected
# outputs (io.npz, written by tract's own runs) reproduces them with
# --input-bundle and --compare-bundle; the symbols of the inputs' shapes
# are bound from the data given (and refused when the data disagree); a
# model inside the model runs (tract_core_submodel); scans show in
# --profile by name; datum types nnef-run does not compute are refused.
# Usage: sh testsuite/tools/tract.sh BINDIR   (NNEF_CORPUS: the corpus;
# NNEF_REQUIRE_CORPUS set: a missing corpus is a failure)
set -u

bin=${1:?usage: tract.sh BINDIR}
bin=$(cd "$bin" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/lib.sh"

run="$bin/nnef-run"
corpus=${NNEF_CORPUS:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/corpus}
harness="$corpus/tract-harness"

# ---- tract's harness: the cases with io.npz ---------------------------------------------
if [ -d "$harness" ]; then
	n=0
	for npz in $(find "$harness" -name io.npz | sort); do
		d=$(dirname "$npz")
		case $d in */parallel-ops) continue ;; esac # holds no outputs
		m=$d
		[ -f "$d/model.nnef.tgz" ] && m=$d/model.nnef.tgz
		expect_status 0 "$run" --dialect=tract -q "$m" --input-bundle "$npz" --compare-bundle "$npz"
		expect_not_in "$tmp/out" "DIFFERENT"
		if grep -q ': ok$' "$tmp/out"; then ok; else bad "$d: no output compared"; fi
		n=$((n + 1))
	done
	if [ "$n" -ge 20 ]; then ok; else bad "only $n cases of tract's harness with io.npz"; fi
	# parallel-ops' io.npz holds its input only: the float run must agree
	# with the double one (nnef-run's own reference)
	d="$harness/parallel-ops"
	expect_status 0 "$run" --dialect=tract -q "$d" --input-bundle "$d/io.npz" --precision double --output-bundle "$tmp/ref.npz"
	expect_status 0 "$run" --dialect=tract -q "$d" --input-bundle "$d/io.npz" --compare-bundle "$tmp/ref.npz" --tolerance 1e-6
	expect_in "$tmp/out" "output: relative L2 error"
	# graph.quant is applied (spec 7.1), unless --no-quantize, which
	# says so at its first entry
	expect_status 0 "$run" --dialect=tract "$harness/copy-requant" --random uniform
	expect_not_in "$tmp/err" "W1311"
	expect_status 0 "$run" --dialect=tract "$harness/copy-requant" --random uniform --no-quantize
	expect_in "$tmp/err" "copy-requant/graph.quant:1:1: warning[W1311]: graph.quant quantizes 2 tensors, but quantization is turned off: they are computed in floating point"
	# a scan is one step of --profile, by its name
	expect_status 0 "$run" --dialect=tract -q "$harness/gru-epilogue" --input-bundle "$harness/gru-epilogue/io.npz" --profile
	expect_in "$tmp/out" "tract_core_scan"
else
	corpus_missing "$harness"
fi

# ---- symbols bound from the inputs -------------------------------------------------------
# data made by nnef-run itself: a graph writing tensors of the shapes asked
mkdir -p "$tmp/data"
printf 'version 1.0;\ngraph g(a, b, c) -> (x4, y4, y5, x3) {\n  a = external(shape = [4, 2]);\n  b = external(shape = [4, 3]);\n  c = external(shape = [5, 3]);\n  x4 = copy(a);\n  y4 = copy(b);\n  y5 = copy(c);\n  x3 = copy(b);\n}\n' >"$tmp/make.nnef"
expect_status 0 "$run" -q "$tmp/make.nnef" --random uniform --seed 3 --output-dir "$tmp/data"
printf 'version 1.0;\nextension tract_registry tract_core;\nextension tract_symbol S;\ngraph g(x, y) -> (z) {\n  x = tract_core_external(shape = [S, 2], datum_type = "f32");\n  y = tract_core_external(shape = [S, 3], datum_type = "f32");\n  z = concat([x, y], axis = 1);\n}\n' >"$tmp/sym.nnef"
expect_status 0 "$run" --dialect=tract -q "$tmp/sym.nnef" --input x="$tmp/data/x4.dat" --input y="$tmp/data/y4.dat" --stats
expect_in "$tmp/out" "z: scalar[4,5]"
cp "$tmp/out" "$tmp/sym_files.out"
# from standard input: read once, for the symbol and for the run
expect_status 0 sh -c '"$1" --dialect=tract -q "$2" --input x=- --input y="$3" --stats <"$4"' sh "$run" "$tmp/sym.nnef" "$tmp/data/y4.dat" "$tmp/data/x4.dat"
expect_same "$tmp/out" "$tmp/sym_files.out"
expect_status 0 sh -c 'cat "$4" | "$1" --dialect=tract -q "$2" --input x=/dev/stdin --input y="$3" --stats' sh "$run" "$tmp/sym.nnef" "$tmp/data/y4.dat" "$tmp/data/x4.dat"
expect_same "$tmp/out" "$tmp/sym_files.out"
expect_status 1 "$run" --dialect=tract -q "$tmp/sym.nnef" --input x="$tmp/data/x4.dat" --input y="$tmp/data/y5.dat"
expect_in "$tmp/err" "nnef-run: error[E1303]: the data given for the input 'y' makes the symbol S 5 along axis 0, but the input 'x' makes it 4"
expect_status 1 "$run" --dialect=tract -q "$tmp/sym.nnef" --input x="$tmp/data/x3.dat" --input y="$tmp/data/y4.dat"
expect_in "$tmp/err" "nnef-run: error[E1303]: the data given for the input 'x' has extent 3 along axis 1, but the graph declares 2"
# an --input-shape given is kept; without data, the symbol stays unknown
expect_status 0 "$run" --dialect=tract -q "$tmp/sym.nnef" --input-shape x=2,2 --input-shape y=2,3 --random uniform --stats
expect_in "$tmp/out" "z: scalar[2,5]"
expect_status 1 "$run" --dialect=tract -q "$tmp/sym.nnef" --random uniform
expect_in "$tmp/err" "error[E1309]"

# ---- a model inside the model ------------------------------------------------------------
mkdir -p "$tmp/outer/inner"
printf 'version 1.0;\ngraph inner(u) -> (v) {\n  u = external(shape = [4, 2]);\n  v = add(mul(u, 2.0), 1.0);\n}\n' >"$tmp/outer/inner/graph.nnef"
printf 'version 1.0;\nextension tract_registry tract_core;\ngraph outer(x) -> (y) {\n  x = tract_core_external(shape = [4, 2], datum_type = "f32");\n  [y] = tract_core_submodel([x], label = "inner");\n}\n' >"$tmp/outer/graph.nnef"
printf 'version 1.0;\ngraph same(x) -> (y) {\n  x = external(shape = [4, 2]);\n  y = add(mul(x, 2.0), 1.0);\n}\n' >"$tmp/same.nnef"
expect_status 0 "$run" --dialect=tract -q "$tmp/same.nnef" --input x="$tmp/data/x4.dat" --output-dir "$tmp/same"
expect_status 0 "$run" --dialect=tract -q "$tmp/outer" --input x="$tmp/data/x4.dat" --compare "$tmp/same" --tolerance 0
expect_in "$tmp/out" "y: relative L2 error 0"

# ---- what nnef-run does not compute --------------------------------------------------------
printf 'version 1.0;\nextension tract_registry tract_core;\ngraph g(x) -> (y) {\n  x = tract_core_external(shape = [2], datum_type = "string");\n  y = copy(x);\n}\n' >"$tmp/str.nnef"
expect_status 1 "$run" --dialect=tract -q "$tmp/str.nnef" --random uniform
expect_in "$tmp/err" "of datum type string, which nnef-run does not compute"

corpus_summary tract.sh
echo "tract: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
