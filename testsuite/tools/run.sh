#!/bin/sh
# run.sh - end-to-end tests of nnef-run: usage and option values, models
# written here (statistics whose values are known, a variable updated over
# cycles, run-time and data errors at their positions), the conformance
# cases of the corpus (run, written, compared with their reference outputs,
# in float and double, as archives), and runs of nnef-flatten's output that
# must give the very same results.
# Usage: sh testsuite/tools/run.sh BINDIR   (NNEF_CORPUS: the corpus;
# NNEF_REQUIRE_CORPUS set: a missing corpus is a failure)
set -u

bin=${1:?usage: run.sh BINDIR}
bin=$(cd "$bin" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/lib.sh"

run="$bin/nnef-run"
flatten="$bin/nnef-flatten"
check="$bin/nnef-check"
di="$bin/nnef-datinfo"
golden="$top/testsuite/golden/syntax"

# expect_lines N: $tmp/out has N lines.
expect_lines() {
	n=$(wc -l <"$tmp/out")
	if [ "$n" -eq "$1" ]; then ok; else bad "$n lines of output, want $1"; fi
}

# expect_row FIELDS...: $tmp/out has a line whose fields (split on
# blanks) start with FIELDS.
expect_row() {
	want="$*"
	if awk -v want="$want" '{ $1 = $1 } index($0 " ", want " ") == 1 { found = 1 } END { exit !found }' "$tmp/out"; then ok; else
		bad "no row '$want' in:"
		sed 's/^/  out: /' "$tmp/out" | head -8
	fi
}

# expect_differ A B: files A and B both exist and differ.
expect_differ() {
	if [ -f "$1" ] && [ -f "$2" ] && ! cmp -s "$1" "$2"; then ok; else bad "$1 and $2 do not differ"; fi
}

# expect_nothing_in DIR: DIR does not exist or is empty.
expect_nothing_in() {
	if [ ! -e "$1" ] || [ -z "$(ls -A "$1")" ]; then ok; else bad "files written into $1: $(ls -A "$1" | head -3)"; fi
}

# expect_stat NAME COND: the --stats line of output NAME in $tmp/out
# satisfies the awk condition COND on min, max, mean, std.
expect_stat() {
	if awk -v name="$1:" '$1 == name { found = 1; min = $4; max = $6; mean = $8; std = $10; if (!('"$2"')) bad = 1 } END { exit !found || bad }' "$tmp/out"; then ok; else
		bad "statistics of $1 not $2:"
		sed 's/^/  out: /' "$tmp/out" | head -4
	fi
}

# expect_profile: $tmp/out is a --profile report.
expect_profile() {
	expect_in "$tmp/out" "time per operation kind (last cycle):"
	expect_in "$tmp/out" "the ten slowest operations:"
	if tail -1 "$tmp/out" | grep -Eq '^total: load [0-9]+\.[0-9]+ s, execute [0-9]+\.[0-9]+ s$'; then ok; else
		bad "the profile does not end with 'total: load X s, execute Y s': $(tail -1 "$tmp/out")"
	fi
}

# ---- tensor files (header, le32, bytes: lib.sh) ---------------------------
# float32 bit patterns
F0_5=0x3f000000 F1=0x3f800000 F2=0x40000000 F2_5=0x40200000 F3=0x40400000
F3_5=0x40600000 F4=0x40800000 F10=0x41200000 F11=0x41300000 F31=0x41f80000
F100=0x42c80000 F200=0x43480000

mkdir "$tmp/f"
f="$tmp/f"
{ header 8 32 0 1 2; le32 $F10; le32 $F0_5; } >"$f/x.dat"          # [10, 0.5]
{ header 8 32 0 1 2; le32 $F100; le32 $F200; } >"$f/x100.dat"      # [100, 200]
{ header 8 32 0 1 2; le32 $F11; le32 $F2_5; } >"$f/acc1.dat"       # [11, 2.5]
{ header 8 32 0 1 2; le32 $F31; le32 $F3_5; } >"$f/acc3.dat"       # [31, 3.5]
{ header 12 32 0 1 3; le32 $F1; le32 $F2; le32 $F3; } >"$f/x3.dat"  # [1, 2, 3]
{ header 8 32 1 1 2; le32 1; le32 2; } >"$f/u32.dat"               # uint32 [1, 2]
{ header 1 1 5 1 2; bytes 128; } >"$f/b2.dat"                      # bool1 [1, 0]
{ header 16 32 0 1 4; le32 $F1; le32 $F2; le32 $F3; le32 $F4; } >"$f/x4.dat"  # [1, 2, 3, 4]
{ header 1 1 5 1 4; bytes 160; } >"$f/c4.dat"                      # bool1 [1, 0, 1, 0]
{ header 12 32 4 1 3; le32 0; le32 3; le32 1; } >"$f/idx.dat"      # int32 [0, 3, 1]
{ header 12 32 4 1 3; le32 0; le32 3; le32 4; } >"$f/idx4.dat"     # int32 [0, 3, 4]
{ header 12 32 4 1 3; le32 2; le32 -1; le32 0; } >"$f/idxneg.dat"  # int32 [2, -1, 0]
{ header 4 32 4 1 1; le32 2; } >"$f/n2.dat"                        # int32 [2]

# acc: a model whose variable adds the input at each cycle; state/acc
# starts at [1, 2]
mkdir -p "$f/acc/state"
cat >"$f/acc/graph.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [2]);
    v = variable<scalar>(shape = [2], label = 'state/acc');
    s = add(v, x);
    y = update(v, s);
}
EOF2
{ header 8 32 0 1 2; le32 $F1; le32 $F2; } >"$f/acc/state/acc.dat"

# multi: outputs of each kind
cat >"$f/multi.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( s, n, b )
{
    x = external<scalar>(shape = [4]);
    s = mul(x, 2.0);
    n = argmax_reduce(x, axes = [0]);
    b = gt(x, 2.5);
}
EOF2

# gather: integer indices from a file
cat >"$f/gather.nnef" <<'EOF2'
version 1.0;
graph G( x, i ) -> ( y )
{
    x = external<scalar>(shape = [4]);
    i = external<integer>(shape = [3]);
    y = gather(x, i, axis = 0);
}
EOF2

# select: a logical input
cat >"$f/select.nnef" <<'EOF2'
version 1.0;
graph G( c, x ) -> ( y )
{
    c = external<logical>(shape = [4]);
    x = external<scalar>(shape = [4]);
    y = select(c, x, 0.0);
}
EOF2

# copy: many generated values; two: two generated inputs
cat >"$f/copy.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [64, 64]);
    y = copy(x);
}
EOF2
cat >"$f/two.nnef" <<'EOF2'
version 1.0;
graph G( a, b ) -> ( d )
{
    a = external<scalar>(shape = [256]);
    b = external<scalar>(shape = [256]);
    d = sub(a, b);
}
EOF2

# lin: a bare graph with variables and a generated input as outputs
cat >"$f/lin.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( y, z )
{
    x = external<scalar>(shape = [4, 16]);
    w = variable<scalar>(shape = [8, 16], label = 'w');
    b = variable<scalar>(shape = [1, 8], label = 'b');
    y = linear(x, w, b);
    z = copy(x);
}
EOF2

# custom: an operation declared without a body
cat >"$f/custom.nnef" <<'EOF2'
version 1.0;
extension KHR_enable_fragment_definitions;
fragment warp( x: tensor<scalar> ) -> ( y: tensor<scalar> );
graph G( input ) -> ( output )
{
    input = external(shape = [1, 3]);
    hidden = warp(input);
    output = add(hidden, input);
}
EOF2

# rank33: a tensor of a rank the interpreter does not run; huge: more
# memory than any machine has; quant: a variable of quantized codes with
# no graph.quant to decode them
ones=1
i=1
while [ "$i" -lt 33 ]; do ones="$ones, 1"; i=$((i + 1)); done
printf 'version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [%s]);\n    y = neg(x);\n}\n' "$ones" >"$f/rank33.nnef"
cat >"$f/huge.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( y )
{
    x = external(shape = [1000000, 1000000, 1000]);
    y = neg(x);
}
EOF2
mkdir -p "$f/quant"
cp "$f/acc/graph.nnef" "$f/quant/graph.nnef"
mkdir -p "$f/quant/state"
{ header 2 8 2 1 2; bytes 3 4; } >"$f/quant/state/acc.dat"

# ---- usage ---------------------------------------------------------------------
expect_status 0 "$run" --help
expect_in "$tmp/out" "Usage: nnef-run [OPTIONS] MODEL"
expect_in "$tmp/out" "--random-weights"
expect_in "$tmp/out" "--save-variables=DIR"
expect_empty "$tmp/err"
expect_status 0 "$run" -h
expect_status 0 "$run" --version
expect_in "$tmp/out" "(nnefkit) 0."
expect_status 0 "$run" -V
expect_status 2 "$run"
expect_in "$tmp/err" "nnef-run: no model given"
expect_in "$tmp/err" "Try 'nnef-run --help'."
expect_status 2 "$run" "$f/acc" "$f/multi.nnef"
expect_in "$tmp/err" "nnef-run: one model at a time"
expect_status 2 "$run" --no-such-option "$f/acc"
expect_in "$tmp/err" "Try 'nnef-run --help'."
expect_status 2 "$run" --input-dir "$f" "$f/missing.nnef"
expect_in "$tmp/err" "nnef-run: error[E0001]: cannot read '$f/missing.nnef': No such file or directory"
# bad option values
for o in "--tolerance=-1:--tolerance needs a non-negative number, not '-1'" \
	"--tolerance=nan:--tolerance needs a non-negative number, not 'nan'" \
	"--tolerance=:--tolerance needs a non-negative number, not ''" \
	"--cycles=0:--cycles needs a number from 1 to 100000000, not '0'" \
	"--cycles=-2:--cycles needs a number from 1 to 100000000, not '-2'" \
	"--precision=half:--precision must be float or double, not 'half'" \
	"--random=bogus:--random must be uniform or normal, not 'bogus'" \
	"--seed=x:--seed needs a non-negative integer, not 'x'" \
	"--seed=-1:--seed needs a non-negative integer, not '-1'" \
	"--seed=99999999999999999999999:--seed needs a non-negative integer" \
	"--input=x:--input needs NAME=FILE, not 'x'" \
	"--input==$f/x.dat:--input needs NAME=FILE, not '=$f/x.dat'" \
	"--input=x=:--input needs NAME=FILE, not 'x='"; do
	expect_status 2 "$run" "${o%%:*}" --input-dir "$f" "$f/acc"
	expect_in "$tmp/err" "nnef-run: ${o#*:}"
	expect_in "$tmp/err" "Try 'nnef-run --help'."
	expect_empty "$tmp/out"
done
expect_status 2 "$run" --dump-all --input-dir "$f" "$f/acc"
expect_in "$tmp/err" "nnef-run: --dump-all writes into --output-dir, which is not given"

# ---- statistics, exactly ---------------------------------------------------------
expect_status 0 "$run" --input x="$f/x4.dat" --stats "$f/multi.nnef"
expect_empty "$tmp/err"
expect_lines 3
expect_in "$tmp/out" "s: scalar[4] min 2 max 8 mean 5 std 2.5819889"
expect_in "$tmp/out" "n: integer[1] min 3 max 3 mean 3 std 0"
expect_in "$tmp/out" "b: logical[4] min 0 max 1 mean 0.5 std 0.577350269"
if [ "$(awk -F: '{ printf "%s ", $1 }' "$tmp/out")" = "s n b " ]; then ok; else bad "--stats lines not in the order of the graph's outputs"; fi
expect_status 0 "$run" --input x="$f/x4.dat" --input i="$f/idx.dat" --stats "$f/gather.nnef"
expect_in "$tmp/out" "y: scalar[3] min 1 max 4 mean 2.33333333 std 1.52752523"
expect_status 0 "$run" --input c="$f/c4.dat" --input x="$f/x4.dat" --stats "$f/select.nnef"
expect_in "$tmp/out" "y: scalar[4] min 0 max 3 mean 1 std 1.41421356"
# a logical output written by nnef-run reads back as an input
expect_status 0 "$run" --input x="$f/x4.dat" --output-dir "$tmp/multi" "$f/multi.nnef"
expect_empty "$tmp/out"
expect_status 0 "$run" --input c="$tmp/multi/b.dat" --input x="$f/x4.dat" --stats "$f/select.nnef"
expect_in "$tmp/out" "y: scalar[4] min 0 max 4 mean 1.75 std 2.06155281"

# ---- a variable over cycles ---------------------------------------------------------
expect_status 0 "$run" --input x="$f/x.dat" --stats --save-variables "$tmp/sv1" --output-dir "$tmp/o1" --dump-all "$f/acc"
expect_empty "$tmp/err"
expect_in "$tmp/out" "y: scalar[2] min 2.5 max 11 mean 6.75 std 6.01040764"
expect_same "$tmp/sv1/state/acc.dat" "$f/acc1.dat"
expect_same "$tmp/o1/y.dat" "$f/acc1.dat"
# --dump-all: the intermediate s, the input, the variable
expect_same "$tmp/o1/s.dat" "$f/acc1.dat"
expect_same "$tmp/o1/x.dat" "$f/x.dat"
if [ -f "$tmp/o1/v.dat" ]; then ok; else bad "--dump-all did not write the variable v"; fi
expect_no_tmp "$tmp/o1"
expect_status 0 "$run" --input x="$f/x.dat" --cycles 3 --stats --save-variables "$tmp/sv3" --output-dir "$tmp/o3" "$f/acc"
expect_empty "$tmp/err"
expect_in "$tmp/out" "y: scalar[2] min 3.5 max 31 mean 17.25 std 19.4454365"
expect_same "$tmp/sv3/state/acc.dat" "$f/acc3.dat"
expect_same "$tmp/o3/y.dat" "$f/acc3.dat"
if [ "$(ls "$tmp/o3")" = "y.dat" ]; then ok; else bad "--output-dir without --dump-all wrote $(ls "$tmp/o3" | tr '\n' ' ')"; fi
expect_no_tmp "$tmp/o3"
expect_no_tmp "$tmp/sv3"
# --statistics: those of the last cycle, the variable as it starts it
# ([1, 2] + 2 x = [21, 3]), with the sample deviation of two values
expect_status 0 "$run" --input x="$f/x.dat" --cycles 3 --statistics - "$f/acc"
expect_in "$tmp/out" '"v": {"min": 3.0, "max": 21.0, "mean": 12.0, "std": 12.727922061357855, "count": 2, "nan": 0, "inf": 0}'
expect_in "$tmp/out" '"y": {"min": 3.5, "max": 31.0, "mean": 17.25, "std": 19.445436482630058, "count": 2, "nan": 0, "inf": 0}'
# the runs left the model's own variable alone
{ header 8 32 0 1 2; le32 $F1; le32 $F2; } >"$tmp/acc0.dat"
expect_same "$f/acc/state/acc.dat" "$tmp/acc0.dat"
expect_status 0 "$run" --input x="$f/x.dat" --cycles=3 --profile "$f/acc"
expect_profile
expect_in "$tmp/out" "update"
expect_in "$tmp/out" "$f/acc/graph.nnef:6:9"
# --compare and --tolerance: [11, 2.5] against [31, 3.5] is a relative L2
# error of sqrt(401 / 973.25) = 0.642
mkdir "$tmp/ref3"
cp "$f/acc3.dat" "$tmp/ref3/y.dat"
expect_status 1 "$run" --input x="$f/x.dat" --compare "$tmp/ref3" "$f/acc"
expect_in "$tmp/out" "y: relative L2 error 0.642, max absolute error 20: DIFFERENT"
expect_status 1 "$run" --input x="$f/x.dat" --compare "$tmp/ref3" --tolerance 0.64 "$f/acc"
expect_in "$tmp/out" "DIFFERENT"
expect_status 0 "$run" --input x="$f/x.dat" --compare "$tmp/ref3" --tolerance 0.65 "$f/acc"
expect_in "$tmp/out" "y: relative L2 error 0.642, max absolute error 20: ok"
expect_status 0 "$run" --input x="$f/x.dat" --compare "$tmp/ref3" --tolerance 0 --cycles 3 "$f/acc"
expect_in "$tmp/out" "y: relative L2 error 0, max absolute error 0: ok"
# --precision double: float64 files, the same values
expect_status 0 "$run" --input x="$f/x.dat" --cycles 3 --precision double --output-dir "$tmp/od" --save-variables "$tmp/svd" --compare "$tmp/ref3" --tolerance 0 "$f/acc"
expect_status 0 "$di" "$tmp/od/y.dat" "$tmp/svd/state/acc.dat"
expect_row "$tmp/od/y.dat" float64 64 "[2]"
expect_row "$tmp/svd/state/acc.dat" float64 64 "[2]"
expect_status 0 "$run" --input x="$f/x.dat" --cycles 3 --compare "$tmp/od" --tolerance 0 "$f/acc"
# a reference of another shape
mkdir "$tmp/ref3s"
cp "$f/x3.dat" "$tmp/ref3s/y.dat"
expect_status 1 "$run" --input x="$f/x.dat" --compare "$tmp/ref3s" --tolerance 1e9 "$f/acc"
expect_in "$tmp/out" "y: the reference has shape [3], the output scalar[2]: DIFFERENT"
# integer outputs must match exactly, whatever the tolerance
mkdir "$tmp/refn"
cp "$tmp/multi/s.dat" "$tmp/multi/b.dat" "$tmp/refn/"
cp "$f/n2.dat" "$tmp/refn/n.dat"
expect_status 1 "$run" --input x="$f/x4.dat" --compare "$tmp/refn" --tolerance 1e9 "$f/multi.nnef"
expect_in "$tmp/out" "n: 1 of 1 items differ (first: item 0 is 3, the reference 2): DIFFERENT"
expect_in "$tmp/out" "b: all 4 items equal: ok"
expect_in "$tmp/out" "s: relative L2 error 0, max absolute error 0: ok"
expect_status 0 "$run" --input x="$f/x4.dat" --compare "$tmp/multi" --tolerance 0 "$f/multi.nnef"
# a missing reference
mkdir "$tmp/noref"
expect_status 2 "$run" --input x="$f/x.dat" --compare "$tmp/noref" "$f/acc"
expect_in "$tmp/err" "error[E0001]: cannot read '$tmp/noref/y.dat'"

# ---- inputs: --input, --input-dir, --random, --seed -----------------------------------------
mkdir "$tmp/in"
cp "$f/x.dat" "$tmp/in/x.dat"
expect_status 0 "$run" --input-dir "$tmp/in" --stats "$f/acc"
expect_in "$tmp/out" "y: scalar[2] min 2.5 max 11 "
# --input wins over --input-dir, and over --random
expect_status 0 "$run" --input-dir "$tmp/in" --input x="$f/x100.dat" --stats "$f/acc"
expect_in "$tmp/out" "y: scalar[2] min 101 max 202 mean 151.5 std 71.4177849"
expect_status 0 "$run" --random normal --input x="$f/x100.dat" --input-dir "$tmp/in" --stats "$f/acc"
expect_in "$tmp/out" "y: scalar[2] min 101 max 202 "
# a file of --input-dir wins over --random; a missing one is generated
expect_status 0 "$run" --input-dir "$tmp/in" --random uniform --stats "$f/acc"
expect_in "$tmp/out" "y: scalar[2] min 2.5 max 11 "
expect_status 0 "$run" --input-dir "$tmp/noref" --random uniform --stats "$f/acc"
expect_stat y "min >= 1 && max < 3 && min != 1"
expect_status 2 "$run" --input-dir "$tmp/noref" "$f/acc"
expect_in "$tmp/err" "error[E0001]: cannot read '$tmp/noref/x.dat'"
# the same seed reproduces the values bit for bit; another changes them
expect_status 0 "$run" --random uniform --seed 7 --output-dir "$tmp/s7a" "$f/copy.nnef"
expect_status 0 "$run" --random uniform --seed 7 --output-dir "$tmp/s7b" "$f/copy.nnef"
expect_status 0 "$run" --random uniform --seed 8 --output-dir "$tmp/s8" "$f/copy.nnef"
expect_status 0 "$run" --random uniform --output-dir "$tmp/s_" "$f/copy.nnef"
expect_status 0 "$run" --random uniform --seed 0 --output-dir "$tmp/s0" "$f/copy.nnef"
expect_status 0 "$run" --random normal --seed 7 --output-dir "$tmp/n7" "$f/copy.nnef"
expect_same "$tmp/s7a/y.dat" "$tmp/s7b/y.dat"
expect_differ "$tmp/s7a/y.dat" "$tmp/s8/y.dat"
expect_same "$tmp/s_/y.dat" "$tmp/s0/y.dat"
expect_differ "$tmp/s7a/y.dat" "$tmp/n7/y.dat"
# uniform in [0, 1); normal of mean 0 and deviation 1 (4096 values)
for s in 1 2; do
	expect_status 0 "$run" --random uniform --seed $s --stats "$f/copy.nnef"
	expect_stat y "min >= 0 && max < 1 && mean > 0.47 && mean < 0.53 && std > 0.27 && std < 0.31"
	expect_status 0 "$run" --random normal --seed $s --stats "$f/copy.nnef"
	expect_stat y "min < -2.5 && max > 2.5 && mean > -0.05 && mean < 0.05 && std > 0.95 && std < 1.05"
done
# two inputs get different values
expect_status 0 "$run" --random uniform --stats "$f/two.nnef"
expect_stat d "std > 0.3 && min < -0.5 && max > 0.5"
# --random-weights: a bare graph runs; the seed gives the weights
expect_status 0 "$run" --random-weights --input x="$f/x.dat" --seed 1 --output-dir "$tmp/w1" "$f/acc/graph.nnef"
expect_empty "$tmp/err"
expect_status 0 "$run" --random-weights --input x="$f/x.dat" --seed 1 --output-dir "$tmp/w1b" "$f/acc/graph.nnef"
expect_status 0 "$run" --random-weights --input x="$f/x.dat" --seed 2 --output-dir "$tmp/w2" "$f/acc/graph.nnef"
expect_same "$tmp/w1/y.dat" "$tmp/w1b/y.dat"
expect_differ "$tmp/w1/y.dat" "$tmp/w2/y.dat"
# a seed gives the same inputs and weights in float and in double
expect_status 0 "$run" --random uniform --random-weights --seed 3 --precision double --output-dir "$tmp/lind" "$f/lin.nnef"
expect_status 0 "$run" --random uniform --random-weights --seed 3 --compare "$tmp/lind" --tolerance 1e-5 "$f/lin.nnef"
if [ "$(grep -c ': ok$' "$tmp/out")" -eq 2 ]; then ok; else bad "float and double runs of one seed differ:"; sed 's/^/  out: /' "$tmp/out"; fi
# generated integer and logical variables are 0 and false: an index
# variable into an axis of extent 3 (as in swin_t's gather) stays valid
cat >"$f/index_var.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( y, k )
{
    x = external<scalar>(shape = [3, 4]);
    i = variable<integer>(shape = [], label = 'i');
    m = variable<logical>(shape = [4], label = 'm');
    g = gather(x, i, axis = 0);
    r = slice(x, axes = [0], begin = [0], end = [1]);
    s = select(m, 1.0, g);
    r0 = squeeze(r, axes = [0]);
    y = sub(s, r0);
    k = copy(i);
}
EOF2
expect_status 0 "$run" --random uniform --random-weights --seed 5 --stats "$f/index_var.nnef"
expect_in "$tmp/out" "y: scalar[4] min 0 max 0 mean 0 std 0"
expect_in "$tmp/out" "k: integer[] min 0 max 0"
# and the variables of a model directory without a data file
cp -r "$top/examples/tiny_convnet" "$tmp/tiny"
rm "$tmp/tiny/fc/bias.dat"
expect_status 1 "$run" --random uniform "$tmp/tiny"
expect_in "$tmp/err" "tiny/graph.nnef:21:15: error[E1101]: variable 'fc_bias' has no data file"
expect_status 0 "$run" --random uniform --random-weights --save-variables "$tmp/tinyv" "$tmp/tiny"
expect_same "$tmp/tinyv/fc/weights.dat" "$tmp/tiny/fc/weights.dat"
if [ -f "$tmp/tinyv/fc/bias.dat" ]; then ok; else bad "--save-variables did not write the generated fc/bias"; fi
# --save-variables writes every variable under its label, unchanged
expect_status 0 "$run" --random uniform --save-variables "$tmp/tinysv" "$top/examples/tiny_convnet"
for v in conv1/filter conv1/bias conv2/filter conv2/bias fc/weights fc/bias; do
	expect_same "$tmp/tinysv/$v.dat" "$top/examples/tiny_convnet/$v.dat"
done
# --input-shape re-shapes the inputs that get generated
expect_status 0 "$run" --random uniform --input-shape=input=2,8,16,16 --stats "$top/examples/residual_block"
expect_in "$tmp/out" "output: scalar[2,8,16,16] min 0 "
expect_status 2 "$run" --random uniform --input-shape=nosuch=1,2 "$top/examples/residual_block"
expect_in "$tmp/err" "'nosuch' is not an external of this model"

# ---- errors ------------------------------------------------------------------------
# a custom operation: its position, nothing written
expect_status 1 "$run" --random uniform --output-dir "$tmp/ocustom" "$f/custom.nnef"
expect_in "$tmp/err" "$f/custom.nnef:7:14: error[E1302]: 'warp' is a custom operation"
expect_nothing_in "$tmp/ocustom"
# data not matching the input: its shape, its item type (both named)
expect_status 2 "$run" --input x="$f/x3.dat" "$f/acc"
expect_in "$tmp/err" "error[E1303]: '$f/x3.dat' holds a tensor of shape [3], but the graph's input 'x' has shape [2]"
expect_status 2 "$run" --input x="$f/u32.dat" "$f/acc"
expect_in "$tmp/err" "error[E1303]: '$f/u32.dat' holds uint32 items, but the graph's input 'x' is scalar"
expect_status 2 "$run" --input x="$f/b2.dat" "$f/acc"
expect_in "$tmp/err" "error[E1303]: '$f/b2.dat' holds bool1 items, but the graph's input 'x' is scalar"
expect_status 2 "$run" --input x="$f/x4.dat" --input i="$f/x3.dat" "$f/gather.nnef"
expect_in "$tmp/err" "error[E1303]: '$f/x3.dat' holds float32 items, but the graph's input 'i' is integer"
expect_status 2 "$run" --input x="$f/x4.dat" --input c="$f/b2.dat" "$f/select.nnef"
expect_in "$tmp/err" "holds a tensor of shape [2], but the graph's input 'c' has shape [4]"
expect_status 2 "$run" --input x="$f/missing.dat" "$f/acc"
expect_in "$tmp/err" "error[E0001]: cannot read '$f/missing.dat'"
# a rank over the interpreter's limit, at the operation that makes it
expect_status 1 "$run" --random uniform --output-dir "$tmp/orank" "$f/rank33.nnef"
expect_in "$tmp/err" "$f/rank33.nnef:4:9: error[E1304]: 'external' gives a tensor of rank 33; nnef-run runs tensors of rank 32 at most"
expect_nothing_in "$tmp/orank"
# more memory than the machine has, before anything is allocated
expect_status 1 "$run" --random uniform --output-dir "$tmp/ohuge" "$f/huge.nnef"
expect_in "$tmp/err" "error[E1305]: running this graph needs 8e+06 GB of memory at least"
expect_nothing_in "$tmp/ohuge"
# an input with the 132-byte header of old NNEF-Tools: an error, read
# with --lenient (a warning)
{ header 8 32 0 1 2; le32 0; le32 $F10; le32 $F0_5; } >"$f/old132.dat"
expect_status 2 "$run" --input x="$f/old132.dat" "$f/acc"
expect_in "$tmp/err" "error[E1010]: $f/old132.dat: the header is 132 bytes long"
expect_status 0 "$run" --lenient --input x="$f/old132.dat" --stats "$f/acc"
expect_in "$tmp/err" "warning[E1010]"
expect_in "$tmp/out" "y: scalar[2] min 2.5 max 11 mean 6.75 std 6.01040764"
# --max-memory: a smaller limit than the machine's (relu's comparison is
# fused into its select, so its logicals take no memory)
expect_status 1 "$run" --random uniform --max-memory=10K --output-dir "$tmp/omem" "$top/examples/tiny_convnet"
expect_in "$tmp/err" "nnef-run: error[E1305]: running this graph needs 165088 bytes of memory at least (its tensors and variables), more than the 10240 bytes --max-memory allows"
expect_nothing_in "$tmp/omem"
expect_status 0 "$run" --random uniform --max-memory=1M "$top/examples/tiny_convnet"
# nothing asked for (no files, statistics, comparison or profile): one
# line says what ran and that nothing was written; -q keeps it quiet
expect_in "$tmp/out" "examples/tiny_convnet: ran the graph 'tiny_convnet' (1 cycle); nothing was written: give --output-dir, --output-bundle, --stats, --statistics or --compare for its outputs"
if [ "$(wc -l <"$tmp/out")" -eq 1 ]; then ok; else bad "a run with nothing asked for printed more than one line"; fi
expect_status 0 "$run" -q --random uniform --cycles 2 "$top/examples/tiny_convnet"
if [ -s "$tmp/out" ]; then bad "-q printed what ran"; else ok; fi
expect_status 0 "$run" --random uniform --stats "$top/examples/tiny_convnet"
expect_not_in "$tmp/out" "nothing was written"
expect_status 2 "$run" --random uniform --max-memory=lots "$top/examples/tiny_convnet"
# quantized codes without graph.quant, at the variable
expect_status 1 "$run" --input x="$f/x.dat" --output-dir "$tmp/oquant" "$f/quant"
expect_in "$tmp/err" "quant/graph.nnef:5:9: error[E1306]: variable 'state/acc': 'state/acc.dat' holds quantized codes, but graph.quant gives no linear quantization for 'v' to decode them with"
expect_nothing_in "$tmp/oquant"
# with graph.quant, the codes [3, 4] are (code - 2) * 0.5 = [0.5, 1]
cp -r "$f/quant" "$f/quant2"
echo '"v": zero_point_linear_quantize(zero_point = 2, scale = 0.5, bits = 8, signed = false, symmetric = false);' >"$f/quant2/graph.quant"
expect_status 0 "$run" --input x="$f/x.dat" --stats "$f/quant2"
expect_in "$tmp/out" "y: scalar[2] min 1.5 max 10.5 mean 6 std 6.36396103"
# ---- graph.quant applied (spec 7.1 Incorporating Quantization Info) ----
# Each quantization operation (4.9.5), per channel, and one the document
# defines, on x; h reads the quantized a. The expected values, computed by
# hand from the operations' definitions, are constants of a second graph.
mkdir -p "$f/q"
cat >"$f/q/graph.nnef" <<'EOF2'
version 1.0;
extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;
fragment step_quantize( x: tensor<scalar>, step: scalar ) -> ( y: tensor<scalar> )
{
    y = round(x / step) * step;
}
graph Q( d ) -> ( a, b, c, e, f, g, h, k )
{
    d = external(shape = [1]);
    x = constant(shape = [2, 4], value = [-1.0, -0.3, 0.05, 0.2, 0.26, 0.7, 1.2, 3.0]);
    a = copy(x);
    b = copy(x);
    c = copy(x);
    e = copy(x);
    f = copy(x);
    g = copy(x);
    h = mul(a, 2.0);
    k = copy(x);
}
EOF2
cat >"$f/q/graph.quant" <<'EOF2'
"a": linear_quantize(min = -1.0 * 0.5, max = 0.5, bits = 2 + 0);
"b": min_max_linear_quantize(min = -1.0, max = 1.0, bits = 3, signed = true, symmetric = true);
"c": zero_point_linear_quantize(zero_point = 2, scale = 0.25, bits = 3, signed = false, symmetric = false);
"e": logarithmic_quantize(max = 2.0, bits = 2);
"f": linear_quantize(min = [[-1.0], [0.0]], max = [[1.0], [2.0]], bits = 1);
"g": step_quantize(step = 0.5);
"k": zero_point_linear_quantize(zero_point = [[2], [0]], scale = [[0.25], [0.5]], bits = 3, signed = false, symmetric = false);
EOF2
# a: r = 3 steps over [-0.5, 0.5]; b: r = 6 over [-1, 1]; c: (clamp(round(x
# / 0.25) + 2, 0, 7) - 2) * 0.25; e: sign(x) 2^round(clamp(log2|x|, -2, 1));
# f: one step over [-1, 1] (row 0), [0, 2] (row 1); k: c's by row, row 1
# with zero point 0 and scale 0.5
cat >"$f/qexp.nnef" <<'EOF2'
version 1.0;
graph E( d ) -> ( a, b, c, e, f, g, h, k )
{
    d = external(shape = [1]);
    a = constant(shape = [2, 4], value = [-0.5, -0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.5, 0.5, 0.5]);
    b = constant(shape = [2, 4], value = [-1.0, -0.33333333, 0.0, 0.33333333, 0.33333333, 0.66666667, 1.0, 1.0]);
    c = constant(shape = [2, 4], value = [-0.5, -0.25, 0.0, 0.25, 0.25, 0.75, 1.25, 1.25]);
    e = constant(shape = [2, 4], value = [-1.0, -0.25, 0.25, 0.25, 0.25, 0.5, 1.0, 2.0]);
    f = constant(shape = [2, 4], value = [-1.0, -1.0, 1.0, 1.0, 0.0, 0.0, 2.0, 2.0]);
    g = constant(shape = [2, 4], value = [-1.0, -0.5, 0.0, 0.0, 0.5, 0.5, 1.0, 3.0]);
    h = constant(shape = [2, 4], value = [-1.0, -0.33333333, 0.33333333, 0.33333333, 0.33333333, 1.0, 1.0, 1.0]);
    k = constant(shape = [2, 4], value = [-0.5, -0.25, 0.0, 0.25, 0.5, 0.5, 1.0, 3.0]);
}
EOF2
expect_status 0 "$run" -q "$f/qexp.nnef" --random uniform --output-dir "$tmp/qexp"
for p in float double; do
	expect_status 0 "$run" "$f/q" --random uniform --precision $p --compare "$tmp/qexp" --tolerance 1e-6
	for o in a b c e f g h k; do expect_in "$tmp/out" "$o: relative L2 error"; done
	expect_not_in "$tmp/out" "DIFFERENT"
done
expect_status 0 "$run" "$f/q" --random uniform --plain --compare "$tmp/qexp" --tolerance 1e-6
expect_status 0 "$run" "$f/q" --random uniform --stats
expect_in "$tmp/out" "quantized: 7 tensors (graph.quant)"
expect_not_in "$tmp/err" "W1311"
# --no-quantize: in floating point, and said so
expect_status 1 "$run" "$f/q" --random uniform --no-quantize --stats --compare "$tmp/qexp"
expect_in "$tmp/out" "a: relative L2 error 2.52, max absolute error 2.5: DIFFERENT"
expect_in "$tmp/out" "quantized: none (--no-quantize; graph.quant names 7)"
expect_in "$tmp/err" "q/graph.quant:1:1: warning[W1311]: graph.quant quantizes 7 tensors, but quantization is turned off: they are computed in floating point"
# an input is quantized once fed: [10, 0.5] on 3 steps over [0, 2]
mkdir -p "$f/qin"
printf 'version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2]);\n    y = copy(x);\n}\n' >"$f/qin/graph.nnef"
echo '"x": linear_quantize(min = 0.0, max = 2.0, bits = 2);' >"$f/qin/graph.quant"
expect_status 0 "$run" --input x="$f/x.dat" --stats "$f/qin"
expect_in "$tmp/out" "y: scalar[2] min 0.666666687 max 2 mean 1.33333334"
# the output of a graph.quant with the wrong range is no longer "ok"
# against the float results
expect_status 0 "$run" --input x="$f/x.dat" --no-quantize -q --output-dir "$tmp/qfloat" "$f/qin"
expect_status 1 "$run" --input x="$f/x.dat" --compare "$tmp/qfloat" "$f/qin"
expect_in "$tmp/out" "y: relative L2 error"
expect_in "$tmp/out" "DIFFERENT"
# a variable is quantized after loading: [1, 2] on one step over [0, 3]
# is [0, 3]; s = v + x reads it; update still writes the variable
cp -r "$f/acc" "$f/qvar"
echo '"v": linear_quantize(min = 0.0, max = 3.0, bits = 1);' >"$f/qvar/graph.quant"
expect_status 0 "$run" --input x="$f/x.dat" --stats "$f/qvar"
expect_in "$tmp/out" "y: scalar[2] min 3.5 max 10 mean 6.75"
# nnef-check expands each quantizer on its tensor too (without adding it
# to the graph): what the run would find, the check finds
mkdir -p "$f/qbad"
cat >"$f/qbad/graph.nnef" <<'EOF2'
version 1.0;
extension KHR_enable_fragment_definitions;
fragment bad_quantize( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )
{
    y = reshape(x, shape = [n]);
}
graph G( x ) -> ( y, i )
{
    x = external(shape = [4]);
    y = copy(x);
    i = argmax_reduce(x, axes = [0]);
}
EOF2
echo '"y": bad_quantize(n = 7);' >"$f/qbad/graph.quant"
for t in "$check" "$run --random uniform"; do
	expect_status 1 $t "$f/qbad"
	expect_in "$tmp/err" "qbad/graph.nnef:5:28: error[E0917]: reshape: cannot reshape [4] (volume 4) to [7] (volume 7)"
	expect_in "$tmp/err" "note: in expansion of 'bad_quantize' at $f/qbad/graph.quant:1:6"
done
# a quantization of reals does not take an integer tensor
echo '"i": linear_quantize(min = 0.0, max = 1.0, bits = 8);' >"$f/qbad/graph.quant"
expect_status 1 "$check" "$f/qbad"
expect_in "$tmp/err" "qbad/graph.quant:1:6: error[E1203]: 'linear_quantize' quantizes a tensor<scalar>, and 'i' is a tensor<integer>"
# an input without data; --input for what is not an input
expect_status 2 "$run" "$f/acc"
expect_in "$tmp/err" "nnef-run: the graph input 'x' has no data: give --input x=FILE, --input-bundle, --input-dir or --random"
expect_in "$tmp/err" "Try 'nnef-run --help'."
expect_status 2 "$run" --input x="$f/x4.dat" "$f/gather.nnef"
expect_in "$tmp/err" "the graph input 'i' has no data"
expect_status 2 "$run" --input x="$f/x.dat" --input v="$f/x.dat" "$f/acc"
expect_in "$tmp/err" "nnef-run: --input: 'v' is not an input of the graph"
expect_in "$tmp/err" "Try 'nnef-run --help'."
# a bare graph's variables without --random-weights
expect_status 1 "$run" --input x="$f/x.dat" --output-dir "$tmp/obare" "$f/acc/graph.nnef"
expect_in "$tmp/err" "$f/acc/graph.nnef:5:9: error[E1303]: variable 'state/acc' has no data to run with"
expect_in "$tmp/err" "--random-weights generates them"
expect_nothing_in "$tmp/obare"
# --no-data on a model with tensor files: the hint says why they were not read
expect_status 1 "$run" --no-data --random uniform "$top/examples/tiny_convnet"
expect_in "$tmp/err" "error[E1303]: variable 'conv1/filter' has no data to run with"
expect_in "$tmp/err" "hint: --no-data leaves the model's tensor files unread: drop it, or generate weights with --random-weights"
# an index out of range, at the gather
expect_status 1 "$run" --input x="$f/x4.dat" --input i="$f/idx4.dat" --output-dir "$tmp/ogather" "$f/gather.nnef"
expect_in "$tmp/err" "$f/gather.nnef:6:9: error[E1301]: gather: index 4 (item 2 of the indices) is outside [0, 4)"
expect_nothing_in "$tmp/ogather"
expect_status 1 "$run" --input x="$f/x4.dat" --input i="$f/idxneg.dat" "$f/gather.nnef"
expect_in "$tmp/err" "$f/gather.nnef:6:9: error[E1301]: gather: index -1 (item 1 of the indices)"
# directories and files that cannot be written
: >"$tmp/plain"
expect_status 2 "$run" --input x="$f/x.dat" --output-dir "$tmp/plain/out" "$f/acc"
expect_in "$tmp/err" "nnef-run: cannot create the directory"
expect_status 2 "$run" --input x="$f/x.dat" --save-variables "$tmp/plain/sv" "$f/acc"
expect_in "$tmp/err" "nnef-run: cannot create the directory"
mkdir -p "$tmp/owrite/y.dat"
expect_status 2 "$run" --input x="$f/x.dat" --output-dir "$tmp/owrite" "$f/acc"
expect_in "$tmp/err" "error[E1307]: cannot write '$tmp/owrite/y.dat'"
expect_no_tmp "$tmp/owrite"
# the outputs are written all or nothing: the second output's name is a
# directory, so the first is not left either (nor the variables)
mkdir -p "$tmp/opart/n.dat"
expect_status 2 "$run" --input x="$f/x4.dat" --output-dir "$tmp/opart" "$f/multi.nnef"
expect_in "$tmp/err" "error[E1307]: cannot write '$tmp/opart/n.dat': Is a directory"
if [ ! -e "$tmp/opart/s.dat" ] && [ ! -e "$tmp/opart/b.dat" ]; then ok; else bad "a failed run left outputs: $(ls "$tmp/opart" | tr '\n' ' ')"; fi
expect_no_tmp "$tmp/opart"
mkdir -p "$tmp/svpart/state/acc.dat"
expect_status 2 "$run" --input x="$f/x.dat" --output-dir "$tmp/opart2" --dump-all --save-variables "$tmp/svpart" "$f/acc"
expect_in "$tmp/err" "error[E1307]: cannot write '$tmp/svpart/state/acc.dat': Is a directory"
expect_nothing_in "$tmp/opart2"
expect_no_tmp "$tmp/svpart"
# invalid models: the diagnostics of nnef-check, exit 1
expect_status 1 "$check" "$golden/missing_semicolon.nnef"
grep 'error\[' "$tmp/err" >"$tmp/check.err"
expect_status 1 "$run" --random uniform --output-dir "$tmp/oinvalid" "$golden/missing_semicolon.nnef"
expect_in "$tmp/err" "missing_semicolon.nnef:6:25: error[E0202]: expected ';' after assignment"
grep 'error\[' "$tmp/err" >"$tmp/run.err"
expect_same "$tmp/check.err" "$tmp/run.err"
expect_nothing_in "$tmp/oinvalid"
expect_status 1 "$run" --random uniform --input-shape=image=1,3,64,64 "$top/examples/tiny_convnet"
expect_in "$tmp/err" "error[E0917]: reshape: cannot reshape [1,32,2,2] (volume 128) to [1,32] (volume 32)"

# ---- nnef-flatten's output runs the same ------------------------------------------------
for m in tiny_convnet residual_block; do
	cp -r "$top/examples/$m" "$tmp/flat_$m"
	expect_status 0 "$flatten" -q "$top/examples/$m" -o "$tmp/flat_$m/graph.nnef"
	expect_status 0 "$run" --random uniform --seed 3 --output-dir "$tmp/ref_$m" "$top/examples/$m"
	expect_status 0 "$run" --random uniform --seed 3 --compare "$tmp/ref_$m" --tolerance 0 "$tmp/flat_$m"
	expect_in "$tmp/out" "relative L2 error 0, max absolute error 0: ok"
done
expect_not_in "$tmp/flat_residual_block/graph.nnef" "fragment"

# ---- --statistics: every tensor the graph names, as JSON ---------------------
# Values computed by hand: c's sample std is sqrt(14/3); sqrt and rcp of
# d give a NaN and an infinity, left out of the statistics and counted;
# a holds only NaNs (null statistics); i is an integer tensor, b a
# logical one (0 and 1). e is named, so it is not fused into max (as it
# is without --statistics); max's own comparison m_gt is not named, nor
# the result of neg(c) inside sqrt(...).
cat >"$f/hand.nnef" <<'EOF2'
version 1.0;
extension KHR_enable_operator_expressions;
graph G( x ) -> ( m, s, r, a, i, b )
{
    x = external<scalar>(shape = [4]);
    c = constant<scalar>(shape = [4], value = [1.0, 2.0, 3.0, 6.0]);
    d = constant<scalar>(shape = [4], value = [-1.0, 0.0, 1.0, 4.0]);
    e = neg(c);
    m = max(e, -2.5);
    s = sqrt(d);
    r = rcp(d);
    a = sqrt(neg(c));
    i = constant<integer>(shape = [3], value = [1, 2, 6]);
    b = lt(c, 2.5);
}
EOF2
# expect_json_stats FILE NAME MIN MAX MEAN STD COUNT NAN INF: the record
# of NAME in the JSON FILE (null where a statistic is null), numbers
# within 1e-12.
expect_json_stats() {
	got=$(jq -r --arg k "$2" '.[$k] | "\(.min) \(.max) \(.mean) \(.std) \(.count) \(.nan) \(.inf)"' "$1")
	if echo "$got" | awk -v want="$3 $4 $5 $6 $7 $8 $9" '{ n = split(want, w, " "); for (i = 1; i <= n; i++) { if (w[i] == "null" || $i == "null") { if (w[i] != $i) exit 1 } else { d = $i - w[i]; if (d < 0) d = -d; if (d > 1e-12) exit 1 } } }'; then ok; else bad "--statistics of $2: $got, want $3 $4 $5 $6 $7 $8 $9"; fi
}
expect_status 0 "$run" --random uniform --statistics "$tmp/hand.json" --stats "$f/hand.nnef"
expect_no_tmp "$tmp"
# --stats prints the same numbers for the outputs, and the NaN and
# infinity counts where there are any
expect_row "r:" "scalar[4]" min -1 max 1 mean 0.0833333333 std 1.01036297 nan 0 inf 1
expect_row "a:" "scalar[4]" min nan max nan mean nan std nan nan 4 inf 0
expect_row "i:" "integer[3]" min 1 max 6 mean 3 std 2.64575131
expect_row "m:" "scalar[4]" min -2.5 max -1 mean -2 std 0.707106781
if command -v jq >/dev/null 2>&1; then
	expect_status 0 jq -e 'type == "object"' "$tmp/hand.json"
	if [ "$(jq -r 'keys_unsorted | join(" ")' "$tmp/hand.json")" = "x c d e m s r a i b" ]; then ok; else bad "--statistics keys: $(jq -r 'keys_unsorted | join(" ")' "$tmp/hand.json"), want the named tensors in order"; fi
	expect_json_stats "$tmp/hand.json" c 1 6 3 2.1602468994692865 4 0 0
	expect_json_stats "$tmp/hand.json" e -6 -1 -3 2.1602468994692865 4 0 0
	expect_json_stats "$tmp/hand.json" m -2.5 -1 -2 0.70710678118654752 4 0 0
	expect_json_stats "$tmp/hand.json" s 0 2 1 1 3 1 0
	expect_json_stats "$tmp/hand.json" r -1 1 0.083333333333333333 1.0103629710818451 3 0 1
	expect_json_stats "$tmp/hand.json" a null null null null 0 4 0
	expect_json_stats "$tmp/hand.json" i 1 6 3 2.6457513110645907 3 0 0
	expect_json_stats "$tmp/hand.json" b 0 1 0.5 0.57735026918962576 4 0 0
	expect_status 0 jq -e '.x.count == 4 and .x.min >= 0 and .x.max < 1' "$tmp/hand.json"
else
	echo "SKIP: jq not found: the JSON of --statistics not read" >&2
fi
# standard output for -, after --stats' lines
expect_status 0 "$run" --random uniform --statistics - "$f/hand.nnef"
expect_json
expect_in "$tmp/out" '  "b": {"min": 0.0, "max": 1.0, "mean": 0.5, "std": 0.5773502691896257, "count": 4, "nan": 0, "inf": 0}'
# named tensors are not fused away; without --statistics e is
expect_status 0 "$run" --random uniform --plan "$f/hand.nnef"
expect_in "$tmp/out" "  e = neg  $f/hand.nnef:8:9  fused into m"
expect_status 0 "$run" --random uniform --plan --statistics "$tmp/hand2.json" "$f/hand.nnef"
expect_in "$tmp/out" "  e = neg  $f/hand.nnef:8:9  runs"
expect_in "$tmp/out" "  m_gt = gt  $f/hand.nnef:9:9 (in 'max')  fused into m"
expect_same "$tmp/hand.json" "$tmp/hand2.json"
# a file that cannot be written: an error, exit 2, nothing written (nor
# the other outputs: all or nothing)
touch "$tmp/plainfile"
expect_status 2 "$run" --random uniform --statistics "$tmp/plainfile/s.json" "$f/hand.nnef"
expect_in "$tmp/err" "nnef-run: error[E1307]: cannot write '$tmp/plainfile/s.json': Not a directory"
mkdir "$tmp/sdir"
expect_status 2 "$run" --random uniform --output-dir "$tmp/sout" --statistics "$tmp/sdir" "$f/hand.nnef"
expect_in "$tmp/err" "nnef-run: error[E1307]: cannot write '$tmp/sdir': Is a directory"
expect_nothing_in "$tmp/sout"
expect_nothing_in "$tmp/sdir"
expect_status 2 "$run" --random uniform --statistics "$tmp/nodir/s.json" "$f/hand.nnef"
expect_in "$tmp/err" "cannot write '$tmp/nodir/s.json'"
if [ ! -e "$tmp/nodir" ]; then ok; else bad "--statistics made $tmp/nodir"; fi
expect_status 2 "$run" --random uniform --statistics "$f/hand.nnef"
expect_in "$tmp/err" "no model given"
# standard output that cannot be written: exit 2
if [ -w /dev/full ]; then
	"$run" --random uniform --statistics - "$f/hand.nnef" >/dev/full 2>"$tmp/err"
	st=$?
	if [ "$st" -eq 2 ]; then ok; else bad "--statistics - into a full device exited $st, want 2"; fi
	expect_in "$tmp/err" "nnef-run: cannot write the output: No space left on device"
fi

# ---- the corpus --------------------------------------------------------------------
corpus=${NNEF_CORPUS:-}
cts="$corpus/openvx-cts-nnef"
nte="$corpus/nnef-tools-examples"
# the statistics of --stats (second file) against graph.stats (first):
# min, max, mean and std (graph.stats' std is the sample one, n - 1, as
# --stats prints it) within 1e-4 absolute plus 1e-4 relative; prints
# "checked bad"
cat >"$tmp/stats.awk" <<'EOF2'
FILENAME == ARGV[1] {
	if ($0 ~ /^    "[^"]*": \{/) { cur = $0; gsub(/^ *"|": \{.*$/, "", cur) }
	else if ($0 ~ /^        "(min|max|mean|std)": /) {
		k = $1; gsub(/[":]/, "", k); v = $2; sub(/,$/, "", v); want[cur, k] = v
	}
	next
}
$3 == "min" {
	lab = $1; sub(/:$/, "", lab)
	if (!((lab, "mean") in want)) next
	got["min"] = $4; got["max"] = $6; got["mean"] = $8
	got["std"] = $10
	for (k in got) {
		w = want[lab, k]; d = got[k] - w; if (d < 0) d = -d; if (w < 0) w = -w
		if (d > 1e-4 + 1e-4 * w) { printf "%s %s: %s, graph.stats says %s\n", lab, k, got[k], want[lab, k] >"/dev/stderr"; bad++ }
		checked++
	}
}
END { printf "%d %d\n", checked, bad }
EOF2
# --statistics (the file given, $1) against graph.stats ($2): every
# statistic of every tensor graph.stats has, within 1e-4 absolute plus
# 1e-4 relative; and the outputs' numbers are --stats' ($tmp/out) to its
# nine digits. Prints one line per difference, then "checked N".
stats_vs_graph() {
	jq -r --slurpfile got "$1" 'def abs: if . < 0 then -. else . end;
		[to_entries[] | .key as $k | .value | to_entries[] | .key as $s | .value as $w | $got[0][$k][$s] as $g
		 | if $g == null then "\($k) \($s): missing, graph.stats says \($w)"
		   elif (($g - $w) | abs) > 1e-4 + 1e-4 * ($w | abs) then "\($k) \($s): \($g), graph.stats says \($w)"
		   else empty end] as $bad
		| $bad[], "checked \([to_entries[] | .value | length] | add)"' "$2"
	jq -r 'to_entries[] | "\(.key) \(.value.min) \(.value.max) \(.value.mean) \(.value.std)"' "$1" >"$tmp/sj.txt"
	awk 'FNR == NR { if ($3 == "min") { n = $1; sub(/:$/, "", n); s[n] = $4 " " $6 " " $8 " " $10 } next }
	     ($1 in s) { g = sprintf("%.9g %.9g %.9g %.9g", $2, $3, $4, $5); if (g != s[$1]) print $1 ": --statistics " g ", --stats " s[$1] }' "$tmp/out" "$tmp/sj.txt"
}
if [ -n "$corpus" ] && [ -d "$cts" ]; then
	# every conformance case: runs, writes each output, compares equal
	# with what it wrote, within 1e-5 with its reference outputs, and in
	# double with float
	n=0 checked=0 json_checked=0
	for d in "$cts"/*/; do
		d=${d%/}
		name=$(basename "$d")
		out="$tmp/cts/$name"
		outs=$(sed -n 's/^graph[^(]*([^)]*) *-> *( *\(.*\)).*/\1/p' "$d/graph.nnef" | tr -d ' ' | tr ',' ' ')
		nout=$(echo $outs | wc -w)
		expect_status 0 "$run" -q "$d" --input-dir "$d" --output-dir "$out"
		expect_empty "$tmp/err"
		expect_empty "$tmp/out"
		for o in $outs; do
			if [ -f "$out/$o.dat" ]; then ok; else bad "$name: no $o.dat written"; fi
		done
		if [ "$nout" -ge 1 ] && [ "$(ls "$out" | wc -l)" -eq "$nout" ]; then ok; else bad "$name: $(ls "$out" | wc -l) files written for the outputs '$outs'"; fi
		expect_no_tmp "$out"
		expect_status 0 "$run" -q "$d" --input-dir "$d" --compare "$out" --tolerance 0
		if [ "$(grep -c ': ok$' "$tmp/out")" -eq "$nout" ]; then ok; else bad "$name: not $nout outputs ok against what it wrote"; fi
		expect_status 0 "$run" -q "$d" --input-dir "$d" --compare "$d" --stats --statistics "$tmp/stats.json"
		if [ "$(grep -c ': ok$' "$tmp/out")" -eq "$nout" ]; then ok; else bad "$name: not $nout outputs ok against the reference"; sed 's/^/  out: /' "$tmp/out" | head -4; fi
		if [ -f "$d/graph.stats" ] && command -v jq >/dev/null 2>&1; then
			stats_vs_graph "$tmp/stats.json" "$d/graph.stats" >"$tmp/sg.out"
			if [ "$(grep -cv '^checked ' "$tmp/sg.out")" -eq 0 ]; then ok; else bad "$name: --statistics differs from graph.stats or --stats:"; grep -v '^checked ' "$tmp/sg.out" | head -4; fi
			json_checked=$((json_checked + $(sed -n 's/^checked //p' "$tmp/sg.out")))
		fi
		if [ -f "$d/graph.stats" ]; then
			r=$(awk -f "$tmp/stats.awk" "$d/graph.stats" "$tmp/out" 2>"$tmp/stats.err")
			set -- $r
			checked=$((checked + $1))
			if [ "$2" -eq 0 ]; then ok; else bad "$name: --stats differs from graph.stats"; head -4 "$tmp/stats.err"; fi
		fi
		expect_status 0 "$run" -q "$d" --input-dir "$d" --precision double --compare "$out" --tolerance 1e-5
		n=$((n + 1))
	done
	if [ "$n" -ge 74 ]; then ok; else bad "only $n conformance cases found"; fi
	if [ "$checked" -ge 280 ]; then ok; else bad "only $checked output statistics compared with graph.stats"; fi
	if command -v jq >/dev/null 2>&1; then
		if [ "$json_checked" -ge 960 ]; then ok; else bad "only $json_checked statistics of --statistics compared with graph.stats"; fi
	else
		echo "SKIP: jq not found: --statistics not compared with graph.stats" >&2
	fi

	# archives: the members at the top, or in one folder
	for name in mnist split_channel deconv3x3_stride2x2 argmax_reduce_channel; do
		d="$cts/$name"
		tar -C "$d" -czf "$tmp/$name.tgz" . && tar -C "$cts" -czf "$tmp/${name}_top.tgz" "$name" || bad "cannot pack $d"
		for a in "$tmp/$name.tgz" "$tmp/${name}_top.tgz"; do
			expect_status 0 "$run" "$a" --input-dir "$d" --compare "$d"
			expect_not_in "$tmp/out" "DIFFERENT"
			expect_status 0 "$run" "$a" --input-dir "$d" --compare "$tmp/cts/$name" --tolerance 0
		done
	done

	# options on a real model
	d="$cts/mnist"
	expect_status 0 "$run" "$d" --input-dir "$d" --profile
	expect_profile
	expect_in "$tmp/out" "$d/graph.nnef:16:13"
	expect_status 0 "$run" "$d" --input-dir "$d" --dump-all --output-dir "$tmp/dump"
	for t in $(sed -n 's/^ *\([a-z_0-9]*\) = .*;$/\1/p' "$d/graph.nnef"); do
		if [ -f "$tmp/dump/$t.dat" ]; then ok; else bad "--dump-all did not write $t"; fi
	done
	expect_same "$tmp/dump/output.dat" "$tmp/cts/mnist/output.dat"
	expect_same "$tmp/dump/variable3.dat" "$d/variable3.dat"
	expect_no_tmp "$tmp/dump"
	expect_status 0 "$di" "$tmp/dump/conv1.dat" "$tmp/dump/max_pool2.dat"
	expect_row "$tmp/dump/conv1.dat" float32 32 "[3,8,28,28]"
	expect_row "$tmp/dump/max_pool2.dat" float32 32 "[3,16,4,4]"
	# an intermediate as dumped is what a graph ending there gives
	mkdir "$tmp/mnist_relu1"
	cp "$d"/*.dat "$tmp/mnist_relu1/"
	sed 's/-> ( output )/-> ( relu1 )/' "$d/graph.nnef" >"$tmp/mnist_relu1/graph.nnef"
	expect_status 0 "$run" "$tmp/mnist_relu1" --input-dir "$d" --compare "$tmp/dump" --tolerance 0
	expect_in "$tmp/out" "relu1: relative L2 error 0, max absolute error 0: ok"
	# a reference that differs: another case's output of the same shape
	expect_status 1 "$run" "$cts/conv3x3" --input-dir "$cts/conv3x3" --compare "$cts/conv3x3_nobias"
	expect_in "$tmp/out" "output: relative L2 error"
	expect_in "$tmp/out" ": DIFFERENT"
	expect_status 1 "$run" "$cts/argmax_reduce_channel" --input-dir "$cts/max_reduce_spatial" --compare "$cts/argmax_reduce_channel" --tolerance 1e9
	expect_in "$tmp/out" "items differ"
	expect_in "$tmp/out" ": DIFFERENT"
	# --input overrides --input-dir on a real model
	expect_status 0 "$run" "$cts/add_4d" --input-dir "$cts/add_4d" --input input2="$cts/add_4d/input1.dat" --output-dir "$tmp/add_twice"
	expect_differ "$tmp/add_twice/output.dat" "$tmp/cts/add_4d/output.dat"
	expect_status 0 "$run" "$cts/add_4d" --input input1="$cts/add_4d/input1.dat" --input input2="$cts/add_4d/input1.dat" --compare "$tmp/add_twice" --tolerance 0
	# an input file of another case, of another shape
	expect_status 2 "$run" "$cts/conv3x3" --input-dir "$cts/conv3x3" --input input="$cts/mnist/input.dat"
	expect_in "$tmp/err" "holds a tensor of shape [3,1,28,28], but the graph's input 'input' has shape [4,8,32,32]"

	# nnef-flatten's output gives the same results, to the bit
	for name in mnist softmax linear max_pool3x3_pad1-1 avg_pool3x3_pad0-1 deconv3x3_stride2x2 bilinear_upsample_symmetric_constant argmax_reduce_channel split_channel mean_reduce_spatial; do
		d="$cts/$name"
		mkdir "$tmp/flat_$name"
		cp "$d"/*.dat "$tmp/flat_$name/"
		expect_status 0 "$flatten" -q "$d" -o "$tmp/flat_$name/graph.nnef"
		expect_status 0 "$run" "$tmp/flat_$name" --input-dir "$d" --compare "$tmp/cts/$name" --tolerance 0
		expect_not_in "$tmp/out" "DIFFERENT"
	done
	expect_not_in "$tmp/flat_mnist/graph.nnef" "= max_pool("
	expect_not_in "$tmp/flat_mnist/graph.nnef" "= relu("
	expect_in "$tmp/flat_mnist/graph.nnef" "relu1 = select(relu1_gt, add1, 0.0);"
	for m in alexnet googlenet resnet; do
		expect_status 0 "$flatten" -q "$nte/$m.nnef" -o "$tmp/flat_$m.nnef"
		expect_status 0 "$run" -q "$nte/$m.nnef" --random-weights --random uniform --seed 5 --output-dir "$tmp/ref_$m"
		expect_status 0 "$run" -q "$tmp/flat_$m.nnef" --random-weights --random uniform --seed 5 --compare "$tmp/ref_$m" --tolerance 0
		expect_in "$tmp/out" "relative L2 error 0, max absolute error 0: ok"
	done
	# a bare graph's variables without --random-weights
	expect_status 1 "$run" "$nte/alexnet.nnef" --random uniform
	expect_in "$tmp/err" "alexnet.nnef:21:15: error[E1303]: variable 'alexnet_v2/conv1/kernel' has no data to run with"
else
	corpus_missing "$cts"
fi

# The float matrix product (interp/gemm.c) against CBLAS's (--plain) on
# shapes that end mid-tile and cross its blocks (96 rows, 256 deep, 1024
# columns), with either operand transposed, and with fewer rows than a
# tile (u, v, t: a row at a time), on 1, 2 and 3 threads; y and s have
# fewer columns than rows: split by rows, B packed in slabs of its depth
# (s: 3 of them); last panels of 12, 5, 8 and 18 columns (x, y, w, s: a
# kernel of half the width, or masked)
cat >"$f/gemm.nnef" <<'EOF2'
version 1.0;
graph G( a, b, c, d, e, f, g, h ) -> ( x, y, z, w, u, v, t, s )
{
    a = external<scalar>(shape = [197, 300]);
    b = external<scalar>(shape = [300, 1100]);
    c = external<scalar>(shape = [1100, 13]);
    d = external<scalar>(shape = [3, 13, 40]);
    e = external<scalar>(shape = [3, 300]);
    f = external<scalar>(shape = [300, 5]);
    g = external<scalar>(shape = [500, 2100]);
    h = external<scalar>(shape = [2100, 50]);
    x = matmul(a, b);
    y = matmul(b, a, transposeA = true, transposeB = true);
    z = matmul(c, b, transposeA = true, transposeB = true);
    w = matmul(d, d, transposeA = true);
    u = matmul(e, b);
    v = matmul(e, a, transposeB = true);
    t = matmul(f, b, transposeA = true);
    s = matmul(g, h);
}
EOF2
expect_status 0 "$run" --random normal --seed 9 --plain --output-dir "$tmp/gemm_plain" "$f/gemm.nnef"
for t in 1 2 3; do
	expect_status 0 "$run" --random normal --seed 9 --threads $t --compare "$tmp/gemm_plain" --tolerance 1e-6 --output-dir "$tmp/gemm_$t" "$f/gemm.nnef"
	if [ "$(grep -c ': ok$' "$tmp/out")" -eq 8 ]; then ok; else bad "the float product differs from CBLAS's on $t threads:"; sed 's/^/  out: /' "$tmp/out"; fi
done
for v in x y z w u v t s; do
	expect_same "$tmp/gemm_1/$v.dat" "$tmp/gemm_2/$v.dat"
	expect_same "$tmp/gemm_1/$v.dat" "$tmp/gemm_3/$v.dat"
done
expect_status 2 "$run" --threads 65 "$f/gemm.nnef"
expect_in "$tmp/err" "nnef-run: --threads needs a number from 0 to 64, not '65'"

# 3x3 convs by Winograd's F(2x2, 3x3) (interp/winograd.c) against the
# direct sum (--plain; spec 4.3.1 Convolution and Deconvolution): odd
# extents (a last tile half out), uneven padding, a border extended
# first, no padding, groups and a batch of 2; the plan names the method;
# 1 and 2 threads give the same bits
cat >"$f/wino.nnef" <<'EOF2'
version 1.0;
graph G( x, x2 ) -> ( a, b, c, d, e, n )
{
    x = external<scalar>(shape = [1, 16, 17, 19]);
    x2 = external<scalar>(shape = [2, 32, 16, 16]);
    f = variable<scalar>(shape = [16, 16, 3, 3], label = 'f');
    g = variable<scalar>(shape = [32, 16, 3, 3], label = 'g');
    h = variable<scalar>(shape = [16, 16, 3, 3], label = 'h');
    bias = variable<scalar>(shape = [1, 16], label = 'bias');
    a = conv(x, f, bias, padding = [(1, 1), (1, 1)]);
    b = conv(x, f, padding = [(0, 2), (2, 0)]);
    c = conv(x, f, border = 'reflect', padding = [(1, 1), (1, 1)]);
    d = conv(x2, g, groups = 2, padding = [(1, 1), (1, 1)]);
    e = conv(x, h, padding = [(0, 0), (0, 0)]);
    n = conv(x, f, stride = [2, 1], padding = [(1, 1), (1, 1)]);
}
EOF2
expect_status 0 "$run" --random-weights --random normal --seed 5 --plan --output-dir "$tmp/wino_1" --threads 1 "$f/wino.nnef"
if [ "$(grep -c 'conv .* runs by Winograd F(2x2, 3x3)$' "$tmp/out")" -eq 5 ] && grep -q 'n = conv .*  runs$' "$tmp/out"; then ok; else bad "the plan does not say which convs run by Winograd:"; sed 's/^/  out: /' "$tmp/out"; fi
expect_status 0 "$run" --random-weights --random normal --seed 5 --plain --plan "$f/wino.nnef"
if grep -q Winograd "$tmp/out"; then bad "--plain runs a conv by Winograd"; else ok; fi
expect_status 0 "$run" --random-weights --random normal --seed 5 --plain --compare "$tmp/wino_1" --tolerance 1e-6 "$f/wino.nnef"
if [ "$(grep -c ': ok$' "$tmp/out")" -eq 6 ]; then ok; else bad "Winograd's convs differ from the direct sum:"; sed 's/^/  out: /' "$tmp/out"; fi
expect_status 0 "$run" --random-weights --random normal --seed 5 --threads 2 --output-dir "$tmp/wino_2" "$f/wino.nnef"
for v in a b c d e n; do expect_same "$tmp/wino_1/$v.dat" "$tmp/wino_2/$v.dat"; done

# A conv's bias (a value per channel) added by the GEMM as it stores its
# output, against --plain (the bias after the product): groups of 24
# channels, stride 2, a thin product (8 channels: a row at a time), a 1x1
# conv (no im2col), 2 batch items; and a single bias value (added after)
cat >"$f/bias.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( a, b, c, d )
{
    x = external<scalar>(shape = [2, 64, 13, 11]);
    f = variable<scalar>(shape = [96, 16, 3, 3], label = 'f');
    g = variable<scalar>(shape = [8, 64, 1, 1], label = 'g');
    h = variable<scalar>(shape = [40, 64, 5, 5], label = 'h');
    bf = variable<scalar>(shape = [1, 96], label = 'bf');
    bg = variable<scalar>(shape = [1, 8], label = 'bg');
    bh = variable<scalar>(shape = [1, 40], label = 'bh');
    a = conv(x, f, bf, groups = 4, stride = [2, 2]);
    b = conv(x, g, bg);
    c = conv(x, h, bh, stride = [1, 2]);
    d = conv(x, h, 0.25);
}
EOF2
# against_plain NAME SEED WHAT OUTPUT...: graph $f/NAME.nnef on 1 and 3
# threads within 1e-6 of --plain (each OUTPUT ok, else "WHAT differs"),
# and the same bits on both
against_plain() {
	ap_name=$1 ap_seed=$2 ap_what=$3
	shift 3
	expect_status 0 "$run" --random-weights --random normal --seed "$ap_seed" --plain --output-dir "$tmp/${ap_name}_plain" "$f/$ap_name.nnef"
	for t in 1 3; do
		expect_status 0 "$run" --random-weights --random normal --seed "$ap_seed" --threads $t --compare "$tmp/${ap_name}_plain" --tolerance 1e-6 --output-dir "$tmp/${ap_name}_$t" "$f/$ap_name.nnef"
		if [ "$(grep -c ': ok$' "$tmp/out")" -eq $# ]; then ok; else bad "$ap_what differ from --plain's on $t threads:"; sed 's/^/  out: /' "$tmp/out"; fi
	done
	for v in "$@"; do expect_same "$tmp/${ap_name}_1/$v.dat" "$tmp/${ap_name}_3/$v.dat"; done
}
against_plain bias 6 "convs' biases" a b c d

# 2-D convs whose GEMM makes its panels of im2col from the input
# (strides 2 and 3, dilation, uneven padding, 'reflect'), against
# --plain's im2col, and the same bits on 1 and 3 threads
cat >"$f/panels.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( a, b, c )
{
    x = external<scalar>(shape = [2, 12, 23, 9]);
    f = variable<scalar>(shape = [16, 12, 3, 5], label = 'f');
    a = conv(x, f, stride = [2, 3], dilation = [2, 1], padding = [(0, 3), (4, 1)]);
    b = conv(x, f, dilation = [1, 2], padding = [(2, 2), (0, 0)]);
    c = conv(x, f, border = 'reflect', stride = [3, 2]);
}
EOF2
against_plain panels 8 "convs by panels" a b c

# concat, stack, pad and the reductions split among threads (results or
# passes of 32768 items and more) by output items, never a sum: the same
# bits on 1, 2 and 3 threads
cat >"$f/split.nnef" <<'EOF2'
version 1.0;
graph G( x, y ) -> ( c, l, k, p, q, m, s, u, v )
{
    x = external<scalar>(shape = [2, 40, 35, 33]);
    y = external<scalar>(shape = [2, 8, 35, 33]);
    c = concat([x, y, x], axis = 1);
    g = gt(y, 0.0);
    l = concat([g, g], axis = 3);
    k = stack([y, y, y], axis = 2);
    p = pad(x, padding = [(0, 0), (0, 0), (1, 1), (1, 1)], value = 0.5);
    q = pad(x, padding = [(1, 0), (2, 1), (3, -2), (-4, 5)], border = 'reflect');
    m = mean_reduce(x, axes = [3]);
    s = sum_reduce(x, axes = [2, 3]);
    u = max_reduce(x, axes = [1]);
    v = min_reduce(x, axes = [0, 3]);
}
EOF2
for t in 1 2 3; do
	expect_status 0 "$run" --random normal --seed 7 --threads $t --output-dir "$tmp/split_$t" "$f/split.nnef"
done
for v in c l k p q m s u v; do
	expect_same "$tmp/split_1/$v.dat" "$tmp/split_2/$v.dat"
	expect_same "$tmp/split_1/$v.dat" "$tmp/split_3/$v.dat"
done

# float exp (a vectorized loop of nnef-run's own) against libm's (--plain)
# over five ranges, 200,000 values each: within 1e-7 relative L2 (one
# unit in the last place is 6e-8)
cat >"$f/exp.nnef" <<'EOF2'
version 1.0;
extension KHR_enable_operator_expressions;
graph G( u ) -> ( a, b, c, d, e )
{
    u = external<scalar>(shape = [200000]);
    a = exp(mul(u, -8.0) - 80.0);
    b = exp(u - 10.0);
    c = exp(mul(u, 2.0) - 1.0);
    d = exp(u + 40.0);
    e = exp(mul(u, 1.7) + 87.0);
}
EOF2
expect_status 0 "$run" --random uniform --seed 2 --plain --output-dir "$tmp/exp_plain" "$f/exp.nnef"
expect_status 0 "$run" --random uniform --seed 2 --compare "$tmp/exp_plain" --tolerance 1e-7 "$f/exp.nnef"
if [ "$(grep -c ': ok$' "$tmp/out")" -eq 5 ]; then ok; else bad "float exp differs from libm's:"; sed 's/^/  out: /' "$tmp/out"; fi

# roi_resample of the whole map ([0, 0, H, W], spec 4.6.2) to a multiple
# of its extent is multilinear_upsample with border 'replicate' (spec
# 4.3.4) by each method: 'symmetric', 'asymmetric' and 'aligned' (the
# first and last outputs at the first and last rows), factors 2 and 3,
# a RoI per batch item; in float and in double, within 1e-6
cat >"$f/upsample.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( s2, a2, l2, s3, a3, l3 )
{
    x = external<scalar>(shape = [2, 3, 4, 5]);
    s2 = multilinear_upsample(x, factor = [2, 2], method = 'symmetric', border = 'replicate');
    a2 = multilinear_upsample(x, factor = [2, 2], method = 'asymmetric', border = 'replicate');
    l2 = multilinear_upsample(x, factor = [2, 2], method = 'aligned', border = 'replicate');
    s3 = multilinear_upsample(x, factor = [3, 3], method = 'symmetric', border = 'replicate');
    a3 = multilinear_upsample(x, factor = [3, 3], method = 'asymmetric', border = 'replicate');
    l3 = multilinear_upsample(x, factor = [3, 3], method = 'aligned', border = 'replicate');
}
EOF2
cat >"$f/roi_whole.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( s2, a2, l2, s3, a3, l3 )
{
    x = external<scalar>(shape = [2, 3, 4, 5]);
    rois = constant<scalar>(shape = [2, 4], value = [0.0, 0.0, 4.0, 5.0, 0.0, 0.0, 4.0, 5.0]);
    bi = constant<integer>(shape = [2, 1], value = [0, 1]);
    s2 = roi_resample(x, rois, bi, output_size = [8, 10], method = 'symmetric');
    a2 = roi_resample(x, rois, bi, output_size = [8, 10], method = 'asymmetric');
    l2 = roi_resample(x, rois, bi, output_size = [8, 10], method = 'aligned');
    s3 = roi_resample(x, rois, bi, output_size = [12, 15], method = 'symmetric');
    a3 = roi_resample(x, rois, bi, output_size = [12, 15], method = 'asymmetric');
    l3 = roi_resample(x, rois, bi, output_size = [12, 15], method = 'aligned');
}
EOF2
for p in float double; do
	expect_status 0 "$run" --random uniform --seed 4 --precision $p --output-dir "$tmp/upsample_$p" "$f/upsample.nnef"
	expect_status 0 "$run" --random uniform --seed 4 --precision $p --compare "$tmp/upsample_$p" --tolerance 1e-6 "$f/roi_whole.nnef"
	if [ "$(grep -c ': ok$' "$tmp/out")" -eq 6 ]; then ok; else bad "roi_resample of the whole map differs from multilinear_upsample in $p:"; sed 's/^/  out: /' "$tmp/out"; fi
done

# --plan: how each operation runs, printed before running: a view, a
# chain (neg, then max's comparison and select, in one pass), the counts;
# --dump-all and --plain fuse nothing
cat >"$f/plan.nnef" <<'EOF2'
version 1.0;
graph G( x ) -> ( m )
{
    x = external<scalar>(shape = [2, 3]);
    a = exp(x);
    r = reshape(a, shape = [6]);
    y = neg(r);
    m = max(y, 0.0);
}
EOF2
expect_status 0 "$run" --random uniform --plan "$f/plan.nnef"
expect_in "$tmp/out" "  a = exp  $f/plan.nnef:5:9  runs"
expect_in "$tmp/out" "  r = reshape  $f/plan.nnef:6:9  a view of its input"
expect_in "$tmp/out" "  y = neg  $f/plan.nnef:7:9  fused into m"
expect_in "$tmp/out" "  m_gt = gt  $f/plan.nnef:8:9 (in 'max')  fused into m"
expect_in "$tmp/out" "  m = select  $f/plan.nnef:8:9 (in 'max')  runs, computing 2 fused operations"
expect_in "$tmp/out" "plan: 6 operations: 3 run, 2 fused, 1 views, 0 with nothing to run"
for o in --plain --dump-all; do
	expect_status 0 "$run" --random uniform --plan $o --output-dir "$tmp/plan_out" "$f/plan.nnef"
	expect_in "$tmp/out" "plan: 6 operations: 6 run, 0 fused, 0 views, 0 with nothing to run"
done

# Faster paths against the primitives: --dump-all runs every primitive
# as it is (nothing fused), so a network whose outputs are the same bits
# with and without it computes its fused steps (max, min, relu and clamp
# as one select; chains of element-wise steps as one pass: densenet's
# batch normalizations, efficientnet's sigmoids) exactly as the
# primitives do. Random weights, fixed seed.
tvn="$corpus/torchvision-nnef"
if [ -n "$corpus" ] && [ -d "$tvn" ]; then
	for net in mobilenet_v2 squeezenet1_1 densenet121 efficientnet_b0; do
		expect_status 0 "$run" "$tvn/$net.nnef" --random-weights --random uniform --seed 3 --output-dir "$tmp/fast_$net"
		expect_status 0 "$run" "$tvn/$net.nnef" --random-weights --random uniform --seed 3 --dump-all --output-dir "$tmp/prim_$net" --statistics "$tmp/stp_$net.json"
		for f in "$tmp/fast_$net"/*.dat; do
			if cmp -s "$f" "$tmp/prim_$net/$(basename "$f")"; then ok; else bad "$net: $(basename "$f") differs between the fused run and the primitives'"; fi
		done
		rm -rf "$tmp/fast_$net" "$tmp/prim_$net"
	done
	# the threads split the work, never a sum: the same bits on 1 and 3
	# (densenet121's concats, inception_v3's pads, efficientnet_b0's means)
	for net in mobilenet_v2 resnet18 densenet121 inception_v3 efficientnet_b0; do
		expect_status 0 "$run" "$tvn/$net.nnef" --random-weights --random uniform --seed 3 --threads 1 --output-dir "$tmp/t1_$net" --statistics "$tmp/st1_$net.json"
		expect_status 0 "$run" "$tvn/$net.nnef" --random-weights --random uniform --seed 3 --threads 3 --output-dir "$tmp/t3_$net" --statistics "$tmp/st3_$net.json"
		# --statistics (taken in parts on the threads for a big tensor):
		# the same bits on 1 and 3 threads, and as when nothing is fused
		# (--dump-all above); a record for each tensor the document
		# names (the left sides of its graph), in order
		expect_same "$tmp/st1_$net.json" "$tmp/st3_$net.json"
		[ -f "$tmp/stp_$net.json" ] && expect_same "$tmp/stp_$net.json" "$tmp/st1_$net.json"
		if command -v jq >/dev/null 2>&1; then
			sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\) = .*/\1/p' "$tvn/$net.nnef" >"$tmp/names_$net"
			jq -r 'keys_unsorted[]' "$tmp/st1_$net.json" >"$tmp/keys_$net"
			if [ "$(wc -l <"$tmp/names_$net")" -ge 50 ] && cmp -s "$tmp/names_$net" "$tmp/keys_$net"; then ok; else bad "$net: the keys of --statistics are not the $(wc -l <"$tmp/names_$net") names of the document"; fi
		fi
		for f in "$tmp/t1_$net"/*.dat; do
			if cmp -s "$f" "$tmp/t3_$net/$(basename "$f")"; then ok; else bad "$net: $(basename "$f") differs between 1 and 3 threads"; fi
		done
		rm -rf "$tmp/t1_$net" "$tmp/t3_$net"
	done
	# every faster path (fused steps, views, the depthwise and batched
	# matmul kernels) against --plain, each primitive by its plain kernel:
	# within 1e-6 relative L2 on all 17 networks (random weights)
	for n in "$tvn"/*.nnef; do
		net=$(basename "$n" .nnef)
		expect_status 0 "$run" "$n" --random-weights --random uniform --seed 4 --output-dir "$tmp/fast_$net"
		expect_status 0 "$run" "$n" --random-weights --random uniform --seed 4 --plain --compare "$tmp/fast_$net" --tolerance 1e-6
		expect_in "$tmp/out" ": ok"
		rm -rf "$tmp/fast_$net"
	done
else
	corpus_missing "$tvn"
fi

corpus_summary run.sh
echo "run: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
