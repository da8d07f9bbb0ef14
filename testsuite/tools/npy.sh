#!/bin/sh
# npy.sh - end-to-end tests of NumPy files in nnef-run: inputs from .npy
# files (--input) and .npz bundles (--input-bundle), outputs written as a
# bundle (--output-bundle) and compared with one (--compare-bundle), on
# graphs written here (every data type, both byte orders, shapes up to
# trailing singletons, the order of the input options, errors and their
# exit status, atomic writing), on the bundled examples, on every OpenVX
# conformance case of the corpus (bundles made at run time from its .dat
# files by nnef-run itself: a graph that copies its inputs; the runs from
# bundles must give what the runs from the .dat files give, and the
# bundles written must be those the copies write), and on a model of
# tract's corpus with its io.npz, written by NumPy.
# Usage: sh testsuite/tools/npy.sh BINDIR   (NNEF_CORPUS: the corpus;
# NNEF_REQUIRE_CORPUS set: a missing corpus is a failure)
set -u

bin=${1:?usage: npy.sh BINDIR}
bin=$(cd "$bin" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/lib.sh"

run="$bin/nnef-run"
di="$bin/nnef-datinfo"

# copy_graph FILE NAME:SHAPE:TYPE...: a graph that copies each input
# src_NAME (of SHAPE, "[1,2]", and NNEF TYPE) to the output NAME, so that
# nnef-run --output-bundle makes a bundle of arrays NAME of tensor files.
# (Its variables begin with cg_: a shell function shares its caller's.)
copy_graph() {
	cg_f=$1
	shift
	cg_ins= cg_outs= cg_body=
	for cg_spec in "$@"; do
		cg_name=${cg_spec%%:*} cg_rest=${cg_spec#*:}
		cg_shape=${cg_rest%%:*} cg_type=${cg_rest#*:}
		cg_ins="$cg_ins${cg_ins:+, }src_$cg_name"
		cg_outs="$cg_outs${cg_outs:+, }$cg_name"
		cg_body="$cg_body  src_$cg_name = external<$cg_type>(shape = $cg_shape);\n  $cg_name = copy(src_$cg_name);\n"
	done
	printf "version 1.0;\ngraph copy($cg_ins) -> ($cg_outs) {\n$cg_body}\n" >"$cg_f"
}

# spec_of FILE NAME: NAME:SHAPE:TYPE of the tensor file FILE (from
# nnef-datinfo), for copy_graph.
spec_of() {
	"$di" "$1" | awk -v n="$2" 'NR == 2 { t = $2 ~ /^float/ ? "scalar" : $2 ~ /^bool/ ? "logical" : "integer"; print n ":" $4 ":" t }'
}

# ---- usage ----------------------------------------------------------------------------
expect_status 0 "$run" --help
expect_in "$tmp/out" "--input-bundle=FILE"
expect_in "$tmp/out" "--output-bundle=FILE"
expect_in "$tmp/out" "--compare-bundle=FILE"
printf 'version 1.0;\ngraph g(x) -> (y) {\n  x = external(shape = [2, 2]);\n  y = mul(x, 2.0);\n}\n' >"$tmp/g.nnef"
expect_status 2 "$run" "$tmp/g.nnef" --input-bundle "$tmp/missing.npz"
expect_in "$tmp/err" "nnef-run: error[E0001]: cannot read '$tmp/missing.npz'"

# ---- .npy inputs: every data type of its kind, either byte order ------------------------
# float32 [2,2]: 1 2 3 4; big-endian float64 [2,2,1] (a trailing singleton)
{ npyhead '<f4' '(2, 2)'; le32 0x3f800000; le32 0x40000000; le32 0x40400000; le32 0x40800000; } >"$tmp/x.npy"
{ npyhead '>f8' '(2, 2, 1)' 2; bytes 63 240 0 0 0 0 0 0 64 0 0 0 0 0 0 0 64 8 0 0 0 0 0 0 64 16 0 0 0 0 0 0; } >"$tmp/xbe.npy"
# half [2,2]: 0.5 1.5 -2 1/3 rounded
{ npyhead '<f2' '(2, 2)'; bytes 0 56 0 62 0 192 85 53; } >"$tmp/xh.npy"
expect_status 0 "$run" "$tmp/g.nnef" --input "x=$tmp/x.npy" --stats
expect_in "$tmp/out" "y: scalar[2,2] min 2 max 8 mean 5 std"
expect_status 0 "$run" "$tmp/g.nnef" --input "x=$tmp/xbe.npy" --stats
expect_in "$tmp/out" "y: scalar[2,2] min 2 max 8 mean 5 std"
expect_status 0 "$run" "$tmp/g.nnef" --input "x=$tmp/xh.npy" --precision double --output-bundle "$tmp/h.npz"
expect_status 0 "$di" --stats "$tmp/h.npz"
expect_row y float64 64 "[2,2]" 32 - -4 3 0.166626 2.565793 0 0
# integers and logicals
printf 'version 1.0;\ngraph g(n, b) -> (m, c) {\n  n = external<integer>(shape = [3]);\n  b = external<logical>(shape = [3]);\n  m = copy(n);\n  c = not(b);\n}\n' >"$tmp/ib.nnef"
{ npyhead '>i2' '(3,)'; bytes 255 254 0 7 128 0; } >"$tmp/n.npy"
{ npyhead '<u1' '(3,)'; bytes 0 7 255; } >"$tmp/nu.npy"
{ npyhead '|b1' '(3,)'; bytes 1 0 2; } >"$tmp/b.npy"
expect_status 0 "$run" "$tmp/ib.nnef" --input "n=$tmp/n.npy" --input "b=$tmp/b.npy" --output-bundle "$tmp/ib.npz"
expect_status 0 "$di" --stats "$tmp/ib.npz"
expect_row m int64 64 "[3]" 24 - -32768 7 -10921 15448.16 0 0
expect_row c bool8 8 "[3]" 3 - 0 1 0.3333333 0.4714045 0 0
expect_status 0 "$run" "$tmp/ib.nnef" --input "n=$tmp/nu.npy" --input "b=$tmp/b.npy" --output-bundle "$tmp/ib2.npz"
expect_status 0 "$di" --stats "$tmp/ib2.npz"
expect_row m int64 64 "[3]" 24 - 0 255 87.33333 118.5927 0 0
# a shape or type that does not fit names the file
expect_status 2 "$run" "$tmp/ib.nnef" --input "n=$tmp/x.npy" --input "b=$tmp/b.npy"
expect_in "$tmp/err" "nnef-run: error[E1303]: '$tmp/x.npy' holds a tensor of shape [2,2], but the graph's input 'n' has shape [3]"
expect_status 2 "$run" "$tmp/ib.nnef" --input "n=$tmp/b.npy" --input "b=$tmp/b.npy"
expect_in "$tmp/err" "nnef-run: error[E1303]: '$tmp/b.npy' holds bool8 items, but the graph's input 'n' is integer"
# a broken .npy: the error at its byte
printf '\223NUMPY\001\000\020\000{"descr" "<f4"}\n' >"$tmp/bad.npy"
expect_status 2 "$run" "$tmp/g.nnef" --input "x=$tmp/bad.npy"
expect_in "$tmp/err" "nnef-run: error[E1403]: $tmp/bad.npy: byte 19: expected ':' after 'descr', found '\"'"

# a reference of tract's strings: not numbers (E1017)
mkdir -p "$tmp/strref"
{ header 96 0xffffffff $((0x5452 << 16 | 0x1000)) 2 2 2; le32 0; le32 0; le32 0; le32 0; } >"$tmp/strref/y.dat"
expect_status 2 "$run" "$tmp/g.nnef" --input "x=$tmp/x.npy" --compare "$tmp/strref"
expect_in "$tmp/err" "nnef-run: error[E1017]: '$tmp/strref/y.dat' holds strings (tract's item type 0x1000): they cannot be read as numbers"

# ---- inputs from a stream: '-' (standard input), /dev/stdin, a FIFO ---------------------
# read once, into memory, as many bytes as the header declares; .npy and .dat
expect_status 0 "$run" "$tmp/g.nnef" --input "x=$tmp/x.npy" --output-dir "$tmp/sd" --dump-all
mkfifo "$tmp/fifo"
for f in "$tmp/x.npy" "$tmp/sd/x.dat"; do
	expect_status 0 sh -c '"$1" "$2" --input x=- --stats <"$3"' sh "$run" "$tmp/g.nnef" "$f"
	expect_in "$tmp/out" "y: scalar[2,2] min 2 max 8 mean 5 std"
	expect_status 0 sh -c 'cat "$3" | "$1" "$2" --input x=- --stats' sh "$run" "$tmp/g.nnef" "$f"
	expect_in "$tmp/out" "y: scalar[2,2] min 2 max 8 mean 5 std"
	expect_status 0 sh -c 'cat "$3" | "$1" "$2" --input x=/dev/stdin --stats' sh "$run" "$tmp/g.nnef" "$f"
	expect_in "$tmp/out" "y: scalar[2,2] min 2 max 8 mean 5 std"
	# the writer gives up after a while should the reader never open it
	timeout 60 sh -c 'cat "$1" >"$2"' sh "$f" "$tmp/fifo" &
	expect_status 0 "$run" "$tmp/g.nnef" --input "x=$tmp/fifo" --stats
	expect_in "$tmp/out" "y: scalar[2,2] min 2 max 8 mean 5 std"
	wait
done
# cut short, going on, the wrong shape (said before the data is read)
npy_size=$(wc -c <"$tmp/x.npy")
expect_status 2 sh -c 'head -c $(($4 - 3)) "$3" | "$1" "$2" --input x=-' sh "$run" "$tmp/g.nnef" "$tmp/x.npy" "$npy_size"
expect_in "$tmp/err" "nnef-run: error[E1407]: <stdin>: the stream ends after $((npy_size - 3)) bytes; its header declares $npy_size"
expect_status 2 sh -c 'head -c 141 "$3" | "$1" "$2" --input x=-' sh "$run" "$tmp/g.nnef" "$tmp/sd/x.dat"
expect_in "$tmp/err" "nnef-run: error[E1009]: <stdin>: the stream ends after 141 bytes; its header declares 144"
expect_status 2 sh -c '{ cat "$3"; printf x; } | "$1" "$2" --input x=-' sh "$run" "$tmp/g.nnef" "$tmp/x.npy"
expect_in "$tmp/err" "nnef-run: error[E1407]: <stdin>: the stream goes on past the $npy_size bytes its header declares"
expect_status 2 sh -c '{ cat "$3"; printf 0123456789; } | "$1" "$2" --input x=-' sh "$run" "$tmp/g.nnef" "$tmp/sd/x.dat"
expect_in "$tmp/err" "nnef-run: error[E1009]: <stdin>: the stream goes on past the 144 bytes its header declares"
expect_status 2 sh -c 'cat "$3" | "$1" "$2" --input n=- --input "b=$4"' sh "$run" "$tmp/ib.nnef" "$tmp/x.npy" "$tmp/b.npy"
expect_in "$tmp/err" "nnef-run: error[E1303]: '<stdin>' holds a tensor of shape [2,2], but the graph's input 'n' has shape [3]"
expect_status 2 sh -c 'printf garbage | "$1" "$2" --input x=-' sh "$run" "$tmp/g.nnef"
expect_in "$tmp/err" "nnef-run: error[E1001]: <stdin>: 7 bytes, shorter than the 128-byte header of a tensor file"
# standard input is read once: by one input, or by the model
expect_status 2 "$run" "$tmp/ib.nnef" --input n=- --input b=-
expect_in "$tmp/err" "nnef-run: --input: 'n' and 'b' both read standard input ('-'), which can be read once"
expect_status 2 "$run" - --input x=- </dev/null
expect_in "$tmp/err" "nnef-run: --input: 'x' reads standard input ('-'), which the model is read from"

# ---- bundles: the order of the input options, comparing -----------------------------------
printf 'version 1.0;\ngraph g(x, z) -> (y, w) {\n  x = external(shape = [2, 2]);\n  z = external(shape = [1]);\n  y = mul(x, 2.0);\n  w = neg(z);\n}\n' >"$tmp/g2.nnef"
copy_graph "$tmp/mk.nnef" x:[2,2]:scalar extra:[2,2]:scalar
expect_status 0 "$run" "$tmp/mk.nnef" --input "src_x=$tmp/x.npy" --input "src_extra=$tmp/x.npy" --output-bundle "$tmp/in.npz"
mkdir -p "$tmp/dir"
{ header 4 32 0 1 1; le32 0x40a00000; } >"$tmp/dir/z.dat"
# x from the bundle (its array 'extra' ignored), z from the folder
expect_status 0 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/in.npz" --input-dir "$tmp/dir" --output-bundle "$tmp/o1.npz"
expect_empty "$tmp/err"
expect_status 0 "$di" --stats "$tmp/o1.npz"
expect_row y float32 32 "[2,2]" 16 - 2 8 5 2.236068 0 0
expect_row w float32 32 "[1]" 4 - -5 -5 -5 0 0 0
# --input wins over the bundle; z without data: a usage error
expect_status 0 "$run" "$tmp/g2.nnef" --input "x=$tmp/xh.npy" --input-bundle "$tmp/in.npz" --random uniform --output-bundle "$tmp/o2.npz"
expect_status 0 "$di" --stats "$tmp/o2.npz"
expect_row y float32 32 "[2,2]" 16 - -4 3 0.166626 2.565793 0 0
expect_status 2 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/in.npz"
expect_in "$tmp/err" "nnef-run: the graph input 'z' has no data: give --input z=FILE, --input-bundle, --input-dir or --random"
# comparing: ok, different (exit 1), missing (exit 2)
expect_status 0 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/in.npz" --input-dir "$tmp/dir" --compare-bundle "$tmp/o1.npz" --tolerance 0
expect_in "$tmp/out" "y: relative L2 error 0, max absolute error 0: ok"
expect_in "$tmp/out" "w: relative L2 error 0, max absolute error 0: ok"
expect_status 1 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/in.npz" --input-dir "$tmp/dir" --compare-bundle "$tmp/o2.npz"
expect_in "$tmp/out" "y: relative L2 error"
expect_in "$tmp/out" ": DIFFERENT"
expect_status 2 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/in.npz" --input-dir "$tmp/dir" --compare-bundle "$tmp/in.npz"
expect_in "$tmp/err" "nnef-run: error[E1412]: '$tmp/in.npz' has no array 'y'"
expect_in "$tmp/err" "hint: its arrays: 'x', 'extra'"
# integers and logicals compare exactly
expect_status 0 "$run" "$tmp/ib.nnef" --input "n=$tmp/n.npy" --input "b=$tmp/b.npy" --compare-bundle "$tmp/ib.npz"
expect_in "$tmp/out" "m: all 3 items equal: ok"
expect_in "$tmp/out" "c: all 3 items equal: ok"
expect_status 1 "$run" "$tmp/ib.nnef" --input "n=$tmp/nu.npy" --input "b=$tmp/b.npy" --compare-bundle "$tmp/ib.npz"
expect_in "$tmp/out" "m: 2 of 3 items differ (first: item 0 is 0, the reference -2): DIFFERENT"
# a bundle whose member fails its CRC: the input cannot be read (exit 2)
cp "$tmp/in.npz" "$tmp/crc.npz"
printf 'X' | dd of="$tmp/crc.npz" bs=1 seek=170 conv=notrunc 2>/dev/null
expect_status 2 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/crc.npz" --input-dir "$tmp/dir"
expect_in "$tmp/err" "nnef-run: error[E1408]: $tmp/crc.npz/x.npy: the member fails its CRC check: its data is corrupt"
# limits
expect_status 2 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/in.npz" --input-dir "$tmp/dir" --max-members=1
expect_in "$tmp/err" "error[E1411]: $tmp/in.npz: more than 1 members (raise the limit with --max-members)"

# ---- writing: atomic, with the other files ------------------------------------------------
expect_status 0 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/in.npz" --input-dir "$tmp/dir" --output-bundle "$tmp/w/o.npz" --output-dir "$tmp/w/dats"
expect_status 2 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/in.npz" --input-dir "$tmp/dir" --output-bundle "$tmp/nodir/o.npz" --output-dir "$tmp/w2"
expect_in "$tmp/err" "error[E1307]: cannot write '$tmp/nodir/o.npz'"
if [ ! -e "$tmp/w2/y.dat" ]; then ok; else bad "--output-dir written although the bundle was not"; fi
expect_no_tmp "$tmp"
mkdir -p "$tmp/w"
expect_status 0 "$run" "$tmp/g2.nnef" --input-bundle "$tmp/in.npz" --input-dir "$tmp/dir" --output-bundle "$tmp/w/o.npz" --output-dir "$tmp/w/dats"
if [ -f "$tmp/w/o.npz" ] && [ -f "$tmp/w/dats/y.dat" ]; then ok; else bad "the bundle and the tensor files are not both written"; fi
# the bundle of the outputs is the bundle of the copies of their files
copy_graph "$tmp/mk2.nnef" y:[2,2]:scalar w:[1]:scalar
expect_status 0 "$run" "$tmp/mk2.nnef" --input "src_y=$tmp/w/dats/y.dat" --input "src_w=$tmp/w/dats/w.dat" --output-bundle "$tmp/w/copy.npz"
expect_same "$tmp/w/o.npz" "$tmp/w/copy.npz"

# ---- the bundled examples ------------------------------------------------------------------
for ex in tiny_convnet residual_block; do
	m="$top/examples/$ex"
	expect_status 0 "$run" "$m" --random normal --seed 7 --output-dir "$tmp/$ex/ref" --dump-all --output-bundle "$tmp/$ex/ref.npz"
	specs=
	for i in $(sed -n 's/^graph[^(]*( *\([^)]*\)).*/\1/p' "$m/graph.nnef" | tr -d ' ' | tr ',' ' '); do
		specs="$specs $(spec_of "$tmp/$ex/ref/$i.dat" "$i")"
	done
	copy_graph "$tmp/$ex/copy.nnef" $specs
	inputs=
	for s in $specs; do inputs="$inputs --input src_${s%%:*}=$tmp/$ex/ref/${s%%:*}.dat"; done
	expect_status 0 "$run" "$tmp/$ex/copy.nnef" $inputs --output-bundle "$tmp/$ex/in.npz"
	# from the bundle: the very bundle of outputs the generated run wrote
	expect_status 0 "$run" "$m" --input-bundle "$tmp/$ex/in.npz" --output-bundle "$tmp/$ex/again.npz" --compare-bundle "$tmp/$ex/ref.npz" --tolerance 0
	expect_not_in "$tmp/out" "DIFFERENT"
	expect_same "$tmp/$ex/ref.npz" "$tmp/$ex/again.npz"
	# float64: a reference float32 agrees with
	expect_status 0 "$run" "$m" --input-bundle "$tmp/$ex/in.npz" --precision double --output-bundle "$tmp/$ex/d.npz"
	expect_status 0 "$di" "$tmp/$ex/d.npz"
	expect_in "$tmp/out" "float64"
	expect_not_in "$tmp/out" "float32"
	expect_status 0 "$run" "$m" --input-bundle "$tmp/$ex/in.npz" --compare-bundle "$tmp/$ex/d.npz"
	expect_not_in "$tmp/out" "DIFFERENT"
done

# ---- the corpus ----------------------------------------------------------------------------
corpus=${NNEF_CORPUS:-/work/shared/corpus}
cts="$corpus/openvx-cts-nnef"
if [ -d "$cts" ]; then
	# every conformance case: its input files as a bundle, its reference
	# outputs as another (copies made by nnef-run); the run from the
	# bundles reports what the run from the files reports, and the bundle
	# it writes is the copy of the files it writes
	n=0
	for d in "$cts"/*/; do
		d=${d%/}
		name=$(basename "$d")
		w="$tmp/cts/$name"
		mkdir -p "$w"
		ins=$(sed -n 's/^graph[^(]*( *\([^)]*\)).*/\1/p' "$d/graph.nnef" | tr -d ' ' | tr ',' ' ')
		outs=$(sed -n 's/^graph[^(]*([^)]*) *-> *( *\(.*\)).*/\1/p' "$d/graph.nnef" | tr -d ' ' | tr ',' ' ')
		specs= inputs=
		for i in $ins; do
			specs="$specs $(spec_of "$d/$i.dat" "$i")"
			inputs="$inputs --input src_$i=$d/$i.dat"
		done
		copy_graph "$w/in.nnef" $specs
		expect_status 0 "$run" -q "$w/in.nnef" $inputs --output-bundle "$w/in.npz"
		specs= refs= mine=
		for o in $outs; do
			specs="$specs $(spec_of "$d/$o.dat" "$o")"
			refs="$refs --input src_$o=$d/$o.dat"
			mine="$mine --input src_$o=$w/out/$o.dat"
		done
		copy_graph "$w/out.nnef" $specs
		expect_status 0 "$run" -q "$w/out.nnef" $refs --output-bundle "$w/ref.npz"
		expect_status 0 "$run" -q "$d" --input-dir "$d" --compare "$d" --output-dir "$w/out" --output-bundle "$w/out.npz"
		cp "$tmp/out" "$w/files.txt"
		expect_status 0 "$run" -q "$d" --input-bundle "$w/in.npz" --compare-bundle "$w/ref.npz"
		if cmp -s "$tmp/out" "$w/files.txt" && [ -s "$tmp/out" ]; then ok; else
			bad "$name: the comparison from bundles differs from the one from files:"
			diff "$w/files.txt" "$tmp/out" | head -4
		fi
		expect_status 0 "$run" -q "$w/out.nnef" $mine --output-bundle "$w/copy.npz"
		expect_same "$w/out.npz" "$w/copy.npz"
		n=$((n + 1))
	done
	if [ "$n" -ge 74 ]; then ok; else bad "only $n conformance cases found"; fi
else
	corpus_missing "$cts"
fi
# tract's parallel-ops runs with --lenient from its io.npz (NumPy wrote
# it), which holds the input only
d="$corpus/tract-harness/parallel-ops"
if [ -f "$d/io.npz" ]; then
	expect_status 0 "$run" --lenient -q "$d" --input-bundle "$d/io.npz" --stats
	expect_in "$tmp/out" "output: scalar[1,512,768]"
	expect_status 2 "$run" --lenient -q "$d" --input-bundle "$d/io.npz" --compare-bundle "$d/io.npz"
	expect_in "$tmp/err" "error[E1412]: '$d/io.npz' has no array 'output'"
else
	corpus_missing "$d/io.npz"
fi

corpus_summary npy.sh
echo "npy: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
