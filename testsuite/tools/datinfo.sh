#!/bin/sh
# datinfo.sh - end-to-end tests of nnef-datinfo: usage, tensor files
# written here byte by byte (every item type, tract's Q4_0 blocks and
# strings, statistics whose values are known, broken headers), NumPy .npy
# files and .npz bundles, models as a directory, a .tar and a .tgz, JSON,
# the golden broken files of testsuite/golden/tensors (their exact
# diagnostics), and the corpus: the conformance cases (their graph.stats),
# tract's Q4_0 weights and the io.npz bundles NumPy wrote.
# Usage: sh testsuite/tools/datinfo.sh BINDIR   (NNEF_CORPUS: the corpus;
# NNEF_REQUIRE_CORPUS set: a missing corpus is a failure)
set -u

bin=${1:?usage: datinfo.sh BINDIR}
bin=$(cd "$bin" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
di="$bin/nnef-datinfo"

. "$(dirname "$0")/lib.sh"

# expect_lines N: $tmp/out has N lines.
expect_lines() {
	n=$(wc -l <"$tmp/out")
	if [ "$n" -eq "$1" ]; then ok; else bad "$n lines of output, want $1"; fi
}


# float32 [4]: 1, 2, 3, 4 (mean 2.5, population std 1.118034)
{ header 16 32 0 1 4; le32 0x3f800000; le32 0x40000000; le32 0x40400000; le32 0x40800000; } >"$tmp/f32.dat"
# int8 [2,3]: -3 -2 -1 0 1 5 (mean 0, std sqrt(40/6) = 2.581989)
{ header 6 8 4 2 2 3; bytes 253 254 255 0 1 5; } >"$tmp/i8.dat"
# bool1 [10]: 1 0 1 1 0 0 0 1 1 1, most significant bit first (mean 0.6,
# std 0.4898979)
{ header 2 1 5 1 10; bytes 177 192; } >"$tmp/b1.dat"
# float16 [2]: 1, -2 (mean -0.5, std 1.5)
{ header 4 16 0 1 2; bytes 0 60 0 192; } >"$tmp/f16.dat"
# float64, rank 0: 0.5
{ header 8 64 0 0; bytes 0 0 0 0 0 0 224 63; } >"$tmp/scalar.dat"
# uint3 [32768]: 0 1 2 ... 7 repeated (the bytes 0x05 0x39 0x77 hold 8
# items), 4 chunks (mean 3.5, std sqrt(5.25) = 2.291288)
bytes 5 57 119 >"$tmp/pat"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cat "$tmp/pat" "$tmp/pat" >"$tmp/pat2"; mv "$tmp/pat2" "$tmp/pat"; done
{ header 12288 3 1 1 32768; cat "$tmp/pat"; } >"$tmp/u3.dat"
# float32 [3]: 1, NaN, +inf
{ header 12 32 0 1 3; le32 0x3f800000; le32 0x7fc00000; le32 0x7f800000; } >"$tmp/nan.dat"
# float32 [1]: NaN only
{ header 4 32 0 1 1; le32 0x7fc00000; } >"$tmp/allnan.dat"
# linear8 (1.0.2 code 0x10), min -2, max 2.5 [3]: codes 0, 255, 51 are
# -2, 2.5, -1.1 (mean -0.2)
params="0xc0000000 0x40200000"
{ header 3 8 16 1 3; bytes 0 255 51; } >"$tmp/lin.dat"
params=
# a vendor's type (vendor 1, type 1), 8 bits [2]
{ header 2 8 0x10001 1 2; bytes 1 2; } >"$tmp/vendor.dat"
# not a tensor file
{ bytes 127 69 76 70; head -c 200 /dev/zero; } >"$tmp/elf.dat"
# float32 [1] with the 132-byte header of old NNEF-Tools: 7.0
{ header 4 32 0 1 1; le32 0; le32 0x40e00000; } >"$tmp/old.dat"
# float32 [4], cut after 2 items
{ header 16 32 0 1 4; le32 0x3f800000; le32 0x40000000; } >"$tmp/cut.dat"
: >"$tmp/empty.dat"

# ---- usage -------------------------------------------------------------------
expect_status 0 "$di" --help
expect_in "$tmp/out" "Usage: nnef-datinfo [OPTIONS] FILE..."
expect_in "$tmp/out" "--max-member-bytes=N"
expect_empty "$tmp/err"
expect_status 0 "$di" -h
expect_status 0 "$di" --version
expect_in "$tmp/out" "(nnefkit) 0."
expect_status 0 "$di" -V
expect_status 2 "$di"
expect_in "$tmp/err" "nnef-datinfo: no file given"
expect_in "$tmp/err" "Try 'nnef-datinfo --help'."
expect_empty "$tmp/out"
expect_status 2 "$di" --no-such-option "$tmp/f32.dat"
expect_in "$tmp/err" "Try 'nnef-datinfo --help'."
expect_status 2 "$di" --max-errors=3 "$tmp/f32.dat"
expect_status 2 "$di" --color=sometimes "$tmp/f32.dat"
expect_in "$tmp/err" "nnef-datinfo: --color must be auto, always or never, not 'sometimes'"
for opt in --max-archive-bytes=0 --max-archive-bytes=12X --max-member-bytes= --max-member-bytes=1KB; do
	expect_status 2 "$di" "$opt" "$tmp/f32.dat"
	expect_in "$tmp/err" "needs a positive number (with an optional K, M, G or T)"
	expect_in "$tmp/err" "Try 'nnef-datinfo --help'."
done
expect_status 2 "$di" --max-members=0 "$tmp/f32.dat"
expect_in "$tmp/err" "nnef-datinfo: --max-members needs a positive number (with an optional K, M, G or T), not '0'"
expect_status 0 "$di" --max-archive-bytes=1K --max-member-bytes=2M --max-members=5 "$tmp/f32.dat"

# ---- headers -----------------------------------------------------------------
expect_status 0 "$di" "$tmp/f32.dat"
expect_empty "$tmp/err"
expect_row PATH TYPE BITS SHAPE BYTES QUANTIZATION
expect_row "$tmp/f32.dat" float32 32 "[4]" 16 -
expect_lines 2
expect_status 0 "$di" "$tmp/f32.dat" "$tmp/i8.dat" "$tmp/b1.dat" "$tmp/f16.dat" "$tmp/scalar.dat" "$tmp/u3.dat" "$tmp/lin.dat"
expect_empty "$tmp/err"
expect_lines 8
expect_row "$tmp/i8.dat" int8 8 "[2,3]" 6 -
expect_row "$tmp/b1.dat" bool1 1 "[10]" 2 -
expect_row "$tmp/f16.dat" float16 16 "[2]" 4 -
expect_row "$tmp/scalar.dat" float64 64 "[]" 8 -
expect_row "$tmp/u3.dat" uint3 3 "[32768]" 12288 -
expect_row "$tmp/lin.dat" linear8 8 "[3]" 3 min=-2 max=2.5
# the columns line up: every line is as long as the title line up to
# the start of the last column
if awk 'NR == 1 { at = index($0, "QUANTIZATION") } NR > 1 && substr($0, at - 2, 2) != "  " { bad = 1 } END { exit bad }' "$tmp/out"; then ok; else bad "columns not aligned"; sed 's/^/  out: /' "$tmp/out"; fi

# ---- statistics ---------------------------------------------------------------
expect_status 0 "$di" --stats "$tmp/f32.dat" "$tmp/i8.dat" "$tmp/b1.dat" "$tmp/f16.dat" "$tmp/scalar.dat" "$tmp/u3.dat" "$tmp/lin.dat" "$tmp/nan.dat" "$tmp/allnan.dat"
expect_empty "$tmp/err"
expect_row PATH TYPE BITS SHAPE BYTES QUANTIZATION MIN MAX MEAN STD NAN INF
expect_row "$tmp/f32.dat" float32 32 "[4]" 16 - 1 4 2.5 1.118034 0 0
expect_row "$tmp/i8.dat" int8 8 "[2,3]" 6 - -3 5 0 2.581989 0 0
expect_row "$tmp/b1.dat" bool1 1 "[10]" 2 - 0 1 0.6 0.4898979 0 0
expect_row "$tmp/f16.dat" float16 16 "[2]" 4 - -2 1 -0.5 1.5 0 0
expect_row "$tmp/scalar.dat" float64 64 "[]" 8 - 0.5 0.5 0.5 0 0 0
expect_row "$tmp/u3.dat" uint3 3 "[32768]" 12288 - 0 7 3.5 2.291288 0 0
expect_row "$tmp/lin.dat" linear8 8 "[3]" 3 min=-2 max=2.5 -2 2.5 -0.2 1.944222 0 0
expect_row "$tmp/nan.dat" float32 32 "[3]" 12 - 1 1 1 0 1 1
expect_row "$tmp/allnan.dat" float32 32 "[1]" 4 - - - - - 1 0

# ---- warnings and errors --------------------------------------------------------
# a vendor type: listed with a warning, no statistics
expect_status 0 "$di" --stats "$tmp/vendor.dat"
expect_in "$tmp/err" "nnef-datinfo: warning[W1011]: $tmp/vendor.dat: vendor item type 0x0001 of vendor 0x0001: the data is not decoded"
expect_row "$tmp/vendor.dat" vendor 0x00010001 8 "[2]" 2 - - - - - - -
expect_status 0 "$di" -q "$tmp/vendor.dat"
expect_empty "$tmp/err"
# bad magic: an error, the row left out, the valid files still listed
expect_status 1 "$di" "$tmp/elf.dat"
expect_in "$tmp/err" "nnef-datinfo: error[E1001]: $tmp/elf.dat: not an NNEF tensor file: it starts with 0x7f 0x45, not the magic 'N' 0xEF"
expect_empty "$tmp/out"
expect_status 1 "$di" "$tmp/f32.dat" "$tmp/elf.dat" "$tmp/i8.dat"
expect_lines 3
expect_not_in "$tmp/out" "elf.dat"
expect_row "$tmp/i8.dat" int8 8 "[2,3]" 6 -
expect_status 1 "$di" -q "$tmp/elf.dat"
expect_in "$tmp/err" "error[E1001]"
expect_status 1 "$di" --color=always "$tmp/elf.dat"
expect_in "$tmp/err" "$(printf '\033[1;31merror')"
expect_status 1 "$di" "$tmp/elf.dat"
expect_not_in "$tmp/err" "$(printf '\033')"
# the 132-byte header: an error, a warning with --lenient (and the data
# read after it)
expect_status 1 "$di" "$tmp/old.dat"
expect_in "$tmp/err" "error[E1010]: $tmp/old.dat: the header is 132 bytes long"
expect_in "$tmp/err" "hint: rewrite the file with a 128-byte header, or pass --lenient to read it"
expect_status 0 "$di" --lenient --stats "$tmp/old.dat"
expect_in "$tmp/err" "warning[E1010]"
expect_row "$tmp/old.dat" float32 32 "[1]" 4 - 7 7 7 0 0 0
expect_status 0 "$di" -q --lenient "$tmp/old.dat"
expect_empty "$tmp/err"
# a truncated file, an empty one, a missing one
expect_status 1 "$di" "$tmp/cut.dat"
expect_in "$tmp/err" "error[E1009]: $tmp/cut.dat: the file has 136 bytes; the header and 16 bytes of data make 144"
expect_status 1 "$di" "$tmp/empty.dat"
expect_in "$tmp/err" "error[E1001]"
expect_status 2 "$di" "$tmp/missing.dat"
expect_in "$tmp/err" "nnef-datinfo: error[E0001]: cannot read '$tmp/missing.dat': No such file or directory"
expect_status 2 "$di" "$tmp/missing.dat" "$tmp/f32.dat"
expect_row "$tmp/f32.dat" float32 32 "[4]" 16 -

# ---- JSON ---------------------------------------------------------------------
cp "$tmp/f32.dat" "$tmp/q\"uo\\te	tab.dat"
expect_status 0 "$di" --format=json --stats "$tmp/f32.dat" "$tmp/scalar.dat" "$tmp/lin.dat" "$tmp/allnan.dat" "$tmp/vendor.dat" "$tmp/q\"uo\\te	tab.dat"
expect_json
expect_in "$tmp/out" "{\"path\": \"$tmp/f32.dat\", \"type\": \"float32\", \"dtype\": \"f32\", \"bits\": 32, \"shape\": [4], \"bytes\": 16, \"quantization\": null, \"stats\": {\"min\": 1.0, \"max\": 4.0, \"mean\": 2.5, \"std\": 1.118033988749895, \"count\": 4, \"nan\": 0, \"inf\": 0}}"
expect_in "$tmp/out" "\"shape\": []"
expect_in "$tmp/out" "\"type\": \"linear8\", \"dtype\": \"f32\", \"bits\": 8, \"shape\": [3], \"bytes\": 3, \"quantization\": {\"min\": -2.0, \"max\": 2.5}"
expect_in "$tmp/out" "\"stats\": {\"min\": null, \"max\": null, \"mean\": null, \"std\": null, \"count\": 0, \"nan\": 1, \"inf\": 0}"
expect_in "$tmp/out" "\"type\": \"vendor 0x00010001\", \"dtype\": null, \"bits\": 8, \"shape\": [2], \"bytes\": 2, \"quantization\": null, \"stats\": null}"
expect_in "$tmp/out" "q\\\"uo\\\\te\\u0009tab.dat"
expect_in "$tmp/out" "\"errors\": 0"
expect_not_in "$tmp/out" "\"label\""
expect_status 0 "$di" --format=json "$tmp/f32.dat"
expect_json
expect_not_in "$tmp/out" "\"stats\""
expect_status 1 "$di" --format=json "$tmp/elf.dat" "$tmp/cut.dat" "$tmp/f32.dat"
expect_json
expect_in "$tmp/out" "\"errors\": 2"
expect_in "$tmp/out" "f32.dat"
expect_status 1 "$di" --format=json "$tmp/elf.dat"
expect_json
expect_in "$tmp/out" "\"files\": []"

# ---- models: a directory, a .tar, a .tgz ------------------------------------------------
mkdir -p "$tmp/m/conv1" "$tmp/m/fc"
printf 'version 1.0;\n' >"$tmp/m/graph.nnef"
cp "$tmp/f32.dat" "$tmp/m/conv1/filter.dat"
cp "$tmp/i8.dat" "$tmp/m/conv1/bias.dat"
cp "$tmp/lin.dat" "$tmp/m/fc/weights.dat"
echo notes >"$tmp/m/notes.txt"
expect_status 0 "$di" "$tmp/m"
expect_empty "$tmp/err"
expect_lines 4
expect_row LABEL TYPE BITS SHAPE BYTES QUANTIZATION
if [ "$(awk 'NR > 1 { printf "%s ", $1 }' "$tmp/out")" = "conv1/bias conv1/filter fc/weights " ]; then ok; else bad "directory rows not in name order"; cat "$tmp/out"; fi
expect_row conv1/filter float32 32 "[4]" 16 -
expect_row fc/weights linear8 8 "[3]" 3 min=-2 max=2.5
expect_status 0 "$di" --stats "$tmp/m/"
expect_row conv1/filter float32 32 "[4]" 16 - 1 4 2.5 1.118034 0 0
expect_row conv1/bias int8 8 "[2,3]" 6 - -3 5 0 2.581989 0 0
cp "$tmp/out" "$tmp/dir.out"
expect_status 0 "$di" --format=json "$tmp/m"
expect_json
expect_in "$tmp/out" "{\"path\": \"conv1/filter.dat\", \"label\": \"conv1/filter\", \"type\": \"float32\""
# the JSON document names its producer, as nnef-check's does
expect_in "$tmp/out" "\"tool\": \"nnefkit\","
expect_in "$tmp/out" "\"version\": \"0."
# archives list as a directory does, whatever order they hold members in
# (folder by folder: conv1/bias before conv1.x/a, as in the directory)
mkdir -p "$tmp/m/conv1.x"
cp "$tmp/f32.dat" "$tmp/m/conv1.x/a.dat"
expect_status 0 "$di" --stats "$tmp/m"
cp "$tmp/out" "$tmp/dir.out"
if [ "$(awk 'NR > 1 { printf "%s ", $1 }' "$tmp/out")" = "conv1/bias conv1/filter conv1.x/a fc/weights " ]; then ok; else bad "directory rows not in name order"; cat "$tmp/out"; fi
(cd "$tmp/m" && tar -cf "$tmp/m.tar" graph.nnef fc/weights.dat conv1.x/a.dat conv1/filter.dat notes.txt conv1/bias.dat)
(cd "$tmp/m" && tar -czf "$tmp/m.tgz" ./conv1/filter.dat ./conv1.x graph.nnef ./fc ./conv1/bias.dat)
expect_status 0 "$di" --stats "$tmp/m.tar"
expect_empty "$tmp/err"
expect_same "$tmp/dir.out" "$tmp/out"
expect_status 0 "$di" --stats "$tmp/m.tgz"
expect_empty "$tmp/err"
expect_same "$tmp/dir.out" "$tmp/out"
rm -r "$tmp/m/conv1.x"
# a model goes alone
expect_status 2 "$di" "$tmp/m" "$tmp/f32.dat"
expect_in "$tmp/err" "nnef-datinfo: '$tmp/m' is a model; give one model alone, or .dat files"
expect_status 2 "$di" "$tmp/f32.dat" "$tmp/m.tgz"
# limits: exceeding one rejects the archive (exit 1)
expect_status 1 "$di" --max-member-bytes=100 "$tmp/m.tar"
expect_in "$tmp/err" "error[E0006]"
expect_in "$tmp/err" "raise it with --max-member-bytes"
expect_status 1 "$di" --max-members=2 "$tmp/m.tgz"
expect_in "$tmp/err" "error[E0006]"
expect_status 1 "$di" --max-archive-bytes=2K "$tmp/m.tgz"
expect_in "$tmp/err" "--max-archive-bytes"
# a cut archive
head -c 300 "$tmp/m.tgz" >"$tmp/cut.tgz"
expect_status 2 "$di" "$tmp/cut.tgz"
expect_in "$tmp/err" "error[E0003]"
# an invalid member: reported with the model's path, the others listed
cp "$tmp/elf.dat" "$tmp/m/fc/bad.dat"
expect_status 1 "$di" "$tmp/m"
expect_in "$tmp/err" "error[E1001]: $tmp/m/fc/bad.dat: not an NNEF tensor file"
expect_lines 4
expect_not_in "$tmp/out" "fc/bad"
rm "$tmp/m/fc/bad.dat"
# an old header in a model, with --lenient and --stats
cp "$tmp/old.dat" "$tmp/m/old.dat"
(cd "$tmp/m" && tar -czf "$tmp/old.tgz" old.dat)
expect_status 1 "$di" "$tmp/old.tgz"
expect_in "$tmp/err" "error[E1010]: $tmp/old.tgz/old.dat"
expect_status 0 "$di" --lenient --stats "$tmp/old.tgz"
expect_row old float32 32 "[1]" 4 - 7 7 7 0 0 0
rm "$tmp/m/old.dat"
# a link is never followed
ln -s "$tmp/f32.dat" "$tmp/m/link.dat"
expect_status 1 "$di" "$tmp/m"
expect_in "$tmp/err" "error[E0005]: $tmp/m/link.dat: a link, not a tensor file"
rm "$tmp/m/link.dat"
if mkfifo "$tmp/m/fifo.dat" 2>/dev/null; then
	expect_status 1 "$di" "$tmp/m"
	expect_in "$tmp/err" "error[E0005]: $tmp/m/fifo.dat: a special file"
	rm "$tmp/m/fifo.dat"
fi
# a model without tensor files
mkdir "$tmp/nodat"
printf 'version 1.0;\n' >"$tmp/nodat/graph.nnef"
expect_status 0 "$di" "$tmp/nodat"
expect_in "$tmp/err" "no tensor files"
expect_empty "$tmp/out"

# ---- tract's item types ------------------------------------------------------------------
TR=$((0x5452 << 16))
# Q4_0 [1,32] in tract's order: scale 1.0 (0x3c00), the codes 0..15 twice,
# items q - 8: -8 .. 7 twice (mean -0.5, std sqrt(21.25) = 4.609772)
q40_nibbles="16 50 84 118 152 186 220 254"
{ header 18 0xffffffff $((TR | 0x2040)) 2 1 32; bytes 0 60 $q40_nibbles $q40_nibbles; } >"$tmp/q40.dat"
# the same codes in GGML's order: byte k holds the items k (low nibble)
# and k + 16 (high): the codes 0..15, 0..15 are the bytes 0x00 .. 0xff
{ header 18 0xffffffff $((TR | 0x3040)) 2 1 32; bytes 0 60 0 17 34 51 68 85 102 119 136 153 170 187 204 221 238 255; } >"$tmp/q40g.dat"
# scale -2 (0xc000), every code 8: items -0 (listed as 0), and one code 0
# of a subnormal scale 2^-24 (0x0001): -8 * 2^-24
{ header 36 0xffffffff $((TR | 0x2040)) 2 2 32; bytes 0 192 136 136 136 136 136 136 136 136 136 136 136 136 136 136 136 136; bytes 1 0 128 136 136 136 136 136 136 136 136 136 136 136 136 136 136 136; } >"$tmp/q40s.dat"
# strings [3]: "", "café", "😀" (data length as tract's writer puts it:
# 3 * 24 = 72)
{ header 72 0xffffffff $((TR | 0x1000)) 1 3; le32 0; le32 5; bytes 99 97 102 195 169; le32 4; bytes 240 159 152 128; } >"$tmp/str.dat"
# strings [1] with the data length of their true size, and bits 0xFFFF
{ header 7 0xffff $((TR | 0x1000)) 1 1; le32 3; bytes 97 98 99; } >"$tmp/str2.dat"
expect_status 0 "$di" --stats "$tmp/q40.dat" "$tmp/q40g.dat" "$tmp/q40s.dat" "$tmp/str.dat" "$tmp/str2.dat"
expect_empty "$tmp/err"
expect_row "$tmp/q40.dat" q4_0 4294967295 "[1,32]" 18 - -8 7 -0.5 4.609772 0 0
expect_row "$tmp/q40g.dat" q4_0_ggml 4294967295 "[1,32]" 18 - -8 7 -0.5 4.609772 0 0
expect_row "$tmp/q40s.dat" q4_0 4294967295 "[2,32]" 36 - -4.768372e-07 0 -7.450581e-09 5.913715e-08 0 0
expect_row "$tmp/str.dat" string 4294967295 "[3]" 72 - - - - - - -
expect_row "$tmp/str2.dat" string 65535 "[1]" 7 - - - - - - -
expect_status 0 "$di" --format=json "$tmp/q40.dat" "$tmp/str.dat" "$tmp/f16.dat" "$tmp/vendor.dat"
expect_json
expect_in "$tmp/out" "\"type\": \"q4_0\", \"dtype\": \"f32\", \"bits\": 4294967295, \"shape\": [1,32], \"bytes\": 18,"
expect_in "$tmp/out" "\"type\": \"string\", \"dtype\": \"string\", \"bits\": 4294967295"
expect_in "$tmp/out" "\"type\": \"float16\", \"dtype\": \"f16\""
expect_in "$tmp/out" "\"type\": \"vendor 0x00010001\", \"dtype\": null"
# a tract string tensor whose bytes do not fit: found with --stats only
{ header 72 0xffffffff $((TR | 0x1000)) 1 3; le32 0; le32 9; bytes 99 97 102 195 169; le32 4; bytes 240 159 152 128; } >"$tmp/strbad.dat"
expect_status 0 "$di" "$tmp/strbad.dat"
expect_status 1 "$di" --stats "$tmp/strbad.dat"
expect_in "$tmp/err" "error[E1016]: $tmp/strbad.dat: the data ends after 21 bytes, within string 2 of 3"

# ---- NumPy .npy files and .npz bundles ------------------------------------------------
# (npyhead: lib.sh)
# float32 [2,2]: 1 2 3 4 (mean 2.5, std 1.118034)
{ npyhead '<f4' '(2, 2)'; le32 0x3f800000; le32 0x40000000; le32 0x40400000; le32 0x40800000; } >"$tmp/f4.npy"
# big-endian float16 [3], version 2.0: 1/3 rounded (0x3555), 2^-24 (0x0001), -2 (0xc000)
{ npyhead '>f2' '(3,)' 2; bytes 53 85 0 1 192 0; } >"$tmp/f2be.npy"
# int64 scalar, version 3.0: -5
{ npyhead '<i8' '()' 3; bytes 251 255 255 255 255 255 255 255; } >"$tmp/i8.npy"
# bool [4]: 1 0 2 0 (2 is true)
{ npyhead '|b1' '(4,)'; bytes 1 0 2 0; } >"$tmp/b1.npy"
# uint16 [0]: an empty array
npyhead '<u2' '(0, 3)' >"$tmp/empty.npy"
expect_status 0 "$di" --stats "$tmp/f4.npy" "$tmp/f2be.npy" "$tmp/i8.npy" "$tmp/b1.npy" "$tmp/empty.npy"
expect_empty "$tmp/err"
expect_row "$tmp/f4.npy" float32 32 "[2,2]" 16 - 1 4 2.5 1.118034 0 0
expect_row "$tmp/f2be.npy" float16 16 "[3]" 6 - -2 0.333252 -0.5555827 1.030379 0 0
expect_row "$tmp/i8.npy" int64 64 "[]" 8 - -5 -5 -5 0 0 0
expect_row "$tmp/b1.npy" bool8 8 "[4]" 4 - 0 1 0.5 0.5 0 0
expect_row "$tmp/empty.npy" uint16 16 "[0,3]" 0 - - - - - 0 0
expect_status 0 "$di" --format=json "$tmp/f2be.npy"
expect_json
expect_in "$tmp/out" "{\"path\": \"$tmp/f2be.npy\", \"type\": \"float16\", \"dtype\": \"f16\", \"descr\": \">f2\", \"bits\": 16, \"shape\": [3], \"bytes\": 6, \"quantization\": null}"
# a bundle written by nnef-run: arrays listed by name when it is alone
mkdir -p "$tmp/id"
printf 'version 1.0;\ngraph g(x) -> (a, b) {\n  x = external(shape = [2, 2]);\n  a = copy(x);\n  b = gt(x, 2.5);\n}\n' >"$tmp/id/graph.nnef"
expect_status 0 "$bin/nnef-run" "$tmp/id" --input "x=$tmp/f4.npy" --output-bundle "$tmp/ab.npz"
expect_status 0 "$di" --stats "$tmp/ab.npz"
expect_empty "$tmp/err"
expect_row ARRAY TYPE BITS SHAPE BYTES QUANTIZATION MIN MAX MEAN STD NAN INF
expect_row a float32 32 "[2,2]" 16 - 1 4 2.5 1.118034 0 0
expect_row b bool8 8 "[2,2]" 4 - 0 1 0.5 0.5 0 0
expect_lines 3
# ... and with other files, by member
expect_status 0 "$di" "$tmp/f4.npy" "$tmp/ab.npz" "$tmp/f32.dat"
expect_row "$tmp/ab.npz/a.npy" float32 32 "[2,2]" 16 -
expect_row "$tmp/ab.npz/b.npy" bool8 8 "[2,2]" 4 -
expect_lines 5
expect_status 0 "$di" --format=json "$tmp/ab.npz"
expect_json
expect_in "$tmp/out" "{\"path\": \"$tmp/ab.npz/b.npy\", \"array\": \"b\", \"type\": \"bool8\", \"dtype\": \"bool\", \"descr\": \"|b1\""
# the limits of archives bound a bundle too
expect_status 1 "$di" --max-members=1 "$tmp/ab.npz"
expect_in "$tmp/err" "error[E1411]: $tmp/ab.npz: more than 1 members (raise the limit with --max-members)"
expect_empty "$tmp/out"
expect_status 1 "$di" --max-member-bytes=100 "$tmp/ab.npz"
expect_in "$tmp/err" "error[E1411]: $tmp/ab.npz: member 'a.npy' declares 144 bytes, more than the limit of 100 (raise it with --max-member-bytes)"
expect_status 1 "$di" --max-archive-bytes=200 "$tmp/ab.npz"
expect_in "$tmp/err" "error[E1411]: $tmp/ab.npz: its members declare more than 200 bytes in all (raise the limit with --max-archive-bytes)"
# a bundle whose end record declares 60000 members is refused before its
# directory is read
cp "$tmp/ab.npz" "$tmp/many.npz"
size=$(wc -c <"$tmp/many.npz")
bytes 96 234 96 234 | dd of="$tmp/many.npz" bs=1 seek=$((size - 14)) conv=notrunc 2>/dev/null
expect_status 1 "$di" --max-members=1000 "$tmp/many.npz"
expect_in "$tmp/err" "error[E1411]: $tmp/many.npz: more than 1000 members (raise the limit with --max-members)"
# not a regular file, a missing one, an empty bundle
expect_status 2 "$di" "$tmp/missing.npz"
expect_in "$tmp/err" "error[E0001]"
printf 'PK\005\006\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >"$tmp/none.npz"
expect_status 0 "$di" "$tmp/none.npz"
expect_in "$tmp/err" "nnef-datinfo: $tmp/none.npz: no arrays (no member is NAME.npy)"
expect_empty "$tmp/out"

# ---- golden broken files: exact diagnostics ----------------------------------------------
# each file of testsuite/golden/tensors (made by its generate.py), read
# with --stats in that folder, writes exactly its .err to standard error;
# an error there means exit status 1 or 2, none 0
gold="$top/testsuite/golden/tensors"
ngold=0
for f in "$gold"/*.npy "$gold"/*.npz "$gold"/*.dat; do
	[ -e "$f" ] || continue
	name=$(basename "$f")
	base=${name%.*}
	(cd "$gold" && "$di" --stats "$name") >"$tmp/out" 2>"$tmp/err"
	st=$?
	if cmp -s "$tmp/err" "$gold/$base.err"; then ok; else
		bad "$name: standard error differs from $base.err:"
		diff "$gold/$base.err" "$tmp/err" | head -6
	fi
	if grep -q 'error\[' "$gold/$base.err"; then
		if [ "$st" -eq 1 ] || [ "$st" -eq 2 ]; then ok; else bad "$name: exit status $st, want 1 or 2"; fi
	elif [ "$st" -eq 0 ]; then ok; else bad "$name: exit status $st, want 0"; fi
	if grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then bad "$name: sanitizer report"; fi
	ngold=$((ngold + 1))
done
if [ "$ngold" -ge 44 ]; then ok; else bad "only $ngold golden tensor files"; fi
# every code of a tensor file's own is among them
for code in E1007 E1008 E1009 E1014 E1015 E1016 W1011 E1401 E1402 E1403 E1404 E1405 E1406 E1407 E1408 E1409 E1410 E1411 W1413; do
	if cat "$gold"/*.err | grep -q "\[$code\]"; then ok; else bad "no golden tensor file gives $code"; fi
done

# ---- the corpus -----------------------------------------------------------------------
corpus=${NNEF_CORPUS:-/work/shared/corpus}
cts="$corpus/openvx-cts-nnef"
# compares the table of --stats (second file) with graph.stats (first),
# for the graph's inputs, outputs and variable labels (graph.nnef, third);
# graph.stats gives the sample standard deviation (n - 1)
cat >"$tmp/cmp.awk" <<'EOF2'
FILENAME == ARGV[1] {
	if ($0 ~ /^    "[^"]*": \{/) { cur = $0; gsub(/^ *"|": \{.*$/, "", cur) }
	else if ($0 ~ /^        "(min|max|mean|std)": /) {
		k = $1; gsub(/[":]/, "", k); v = $2; sub(/,$/, "", v); want[cur, k] = v
	}
	next
}
FILENAME == ARGV[2] {
	s = $0
	while (match(s, /label = '[^']*'/)) {
		use[substr(s, RSTART + 9, RLENGTH - 10)] = 1
		s = substr(s, RSTART + RLENGTH)
	}
	next
}
FNR > 1 {
	lab = $1
	if (!(lab ~ /^(input|output)[0-9]*$/ || lab in use) || !((lab, "mean") in want)) next
	s = $4; gsub(/[][]/, "", s); n = split(s, e, ","); cnt = 1
	for (i = 1; i <= n; i++) cnt *= e[i]
	got["min"] = $7; got["max"] = $8; got["mean"] = $9
	got["std"] = cnt > 1 ? $10 * sqrt(cnt / (cnt - 1)) : $10
	for (k in got) {
		d = got[k] - want[lab, k]; if (d < 0) d = -d
		w = want[lab, k]; if (w < 0) w = -w
		if (d > 1e-6 + 2e-5 * w) { printf "%s %s: %s, graph.stats says %s\n", lab, k, got[k], want[lab, k]; bad++ }
		checked++
	}
}
END { printf "%d %d\n", checked, bad }
EOF2
if [ -d "$cts/conv3x3" ]; then
	case="$cts/conv3x3"
	# as files
	expect_status 0 "$di" "$case/bias.dat" "$case/filter.dat" "$case/input.dat" "$case/output.dat"
	expect_empty "$tmp/err"
	expect_row "$case/filter.dat" float32 32 "[16,8,3,3]" 4608 -
	expect_row "$case/output.dat" float32 32 "[4,16,32,32]" 262144 -
	expect_lines 5
	# as a model directory, .tar and .tgz
	expect_status 0 "$di" "$case"
	expect_empty "$tmp/err"
	expect_lines 5
	expect_row bias float32 32 "[1,16]" 64 -
	expect_row filter float32 32 "[16,8,3,3]" 4608 -
	expect_row input float32 32 "[4,8,32,32]" 131072 -
	expect_row output float32 32 "[4,16,32,32]" 262144 -
	if [ "$(awk 'NR > 1 { printf "%s ", $1 }' "$tmp/out")" = "bias filter input output " ]; then ok; else bad "corpus directory rows not in name order"; fi
	cp "$tmp/out" "$tmp/case.out"
	tar -cf "$tmp/case.tar" -C "$case" .
	tar -czf "$tmp/case.tgz" -C "$case" .
	for a in "$tmp/case.tar" "$tmp/case.tgz"; do
		expect_status 0 "$di" "$a"
		expect_empty "$tmp/err"
		if [ "$(sort "$tmp/out")" = "$(sort "$tmp/case.out")" ]; then ok; else bad "$(basename "$a"): rows differ from the directory's"; cat "$tmp/out"; fi
	done
	expect_status 0 "$di" --stats "$tmp/case.tgz"
	expect_row filter float32 32 "[16,8,3,3]" 4608 - -0.9991177 0.9986688 0.01607724 0.5833912 0 0
	expect_status 0 "$di" --format=json --stats "$case"
	expect_json
	expect_in "$tmp/out" "\"label\": \"output\", \"type\": \"float32\", \"dtype\": \"f32\", \"bits\": 32, \"shape\": [4,16,32,32], \"bytes\": 262144, \"quantization\": null, \"stats\": {\"min\": -12.893287658691406, \"max\": 11.664341926574707"
	expect_status 0 "$di" "$cts/argmax_reduce_channel/output.dat"
	expect_row "$cts/argmax_reduce_channel/output.dat" int32 32 "[4,1,32,32]" 16384 -
	# every case: valid, and statistics as in its graph.stats
	n=0 checked=0
	for d in "$cts"/*/; do
		n=$((n + 1))
		expect_status 0 "$di" -q --stats "$d"
		expect_empty "$tmp/err"
		[ -f "$d/graph.stats" ] || continue
		r=$(awk -f "$tmp/cmp.awk" "$d/graph.stats" "$d/graph.nnef" "$tmp/out")
		set -- $r
		checked=$((checked + $1))
		if [ "$2" -eq 0 ]; then ok; else bad "$d: statistics differ from graph.stats"; awk -f "$tmp/cmp.awk" "$d/graph.stats" "$d/graph.nnef" "$tmp/out" | head -4; fi
	done
	if [ "$n" -ge 74 ]; then ok; else bad "only $n conformance cases found"; fi
	if [ "$checked" -ge 800 ]; then ok; else bad "only $checked statistics compared with graph.stats"; fi
else
	corpus_missing "$cts/conv3x3"
fi
# tract's test cases: Q4_0 weights (the arange of their shape, quantized)
# in a model and alone, and the io.npz bundles NumPy wrote
th="$corpus/tract-harness"
if [ -d "$th/conv-q40" ]; then
	expect_status 0 "$di" --stats "$th/q40_linear_followed_slice/linear__var0_q4_0.dat"
	expect_empty "$tmp/err"
	expect_row "$th/q40_linear_followed_slice/linear__var0_q4_0.dat" q4_0 4294967295 "[16,96]" 864 - 0 1535 778.9255 448.5625 0 0
	expect_status 0 "$di" --stats "$th/conv-q40/conv2d/model.nnef.tgz"
	expect_empty "$tmp/err"
	expect_row weight q4_0 4294967295 "[8,128,3,3]" 5184 - 0 9216 4623.099 2661.841 0 0
	expect_row bias float32 32 "[8]" 32 - -0.01294971 0.01678692 0.002835685 0.0100004 0 0
	expect_status 0 "$di" --stats "$th/conv-q40/conv2d/io.npz"
	expect_row input_0 float32 32 "[1,128,3,6]" 9216 - 3 2303 1151.503 665.1029 0 0
	expect_row output_0 float32 32 "[1,8,1,4]" 128 - 1035084416 11751992320 6.387906e+09 3.502307e+09 0 0
	expect_status 0 "$di" --stats "$th/test_all_reduce/io.npz"
	expect_row input_0 bool8 8 "[3,3]" 9 - 0 1 0.5555556 0.496904 0 0
	expect_status 0 "$di" "$th/sign-abs-integers/io.npz"
	expect_row abs_folded int64 64 "[6]" 48 -
	nnpz=0
	for f in "$th"/*/io.npz "$th"/*/*/io.npz; do
		[ -f "$f" ] || continue
		expect_status 0 "$di" -q --stats "$f"
		expect_empty "$tmp/err"
		nnpz=$((nnpz + 1))
	done
	if [ "$nnpz" -ge 14 ]; then ok; else bad "only $nnpz io.npz bundles found"; fi
	for f in "$th"/*/model.nnef.tgz "$th"/*/*/model.nnef.tgz; do
		[ -f "$f" ] || continue
		expect_status 0 "$di" -q --stats "$f"
		expect_empty "$tmp/err"
	done
else
	corpus_missing "$th/conv-q40"
fi

corpus_summary datinfo.sh
echo "datinfo: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
