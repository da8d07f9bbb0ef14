#!/bin/sh
# datinfo.sh - end-to-end tests of nnef-datinfo: usage, tensor files
# written here byte by byte (every item type, statistics whose values are
# known, broken headers), models as a directory, a .tar and a .tgz, JSON,
# and the conformance cases of the corpus (their graph.stats).
# Usage: sh testsuite/tools/datinfo.sh BINDIR   (NNEF_CORPUS: the corpus;
# NNEF_REQUIRE_CORPUS set: a missing corpus is a failure)
set -u

bin=${1:?usage: datinfo.sh BINDIR}
bin=$(cd "$bin" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
di="$bin/nnef-datinfo"

. "$(dirname "$0")/lib.sh"

# expect_row FIELDS...: $tmp/out has a line whose fields (split on
# blanks) are exactly FIELDS.
expect_row() {
	want="$*"
	if awk -v want="$want" '{ $1 = $1 } $0 == want { found = 1 } END { exit !found }' "$tmp/out"; then ok; else
		bad "no row '$want' in:"
		sed 's/^/  out: /' "$tmp/out" | head -8
	fi
}

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
expect_in "$tmp/out" "Usage: nnef-datinfo [OPTIONS] FILE.dat..."
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
expect_in "$tmp/out" "{\"path\": \"$tmp/f32.dat\", \"type\": \"float32\", \"bits\": 32, \"shape\": [4], \"bytes\": 16, \"quantization\": null, \"stats\": {\"min\": 1.0, \"max\": 4.0, \"mean\": 2.5, \"std\": 1.118033988749895, \"count\": 4, \"nan\": 0, \"inf\": 0}}"
expect_in "$tmp/out" "\"shape\": []"
expect_in "$tmp/out" "\"type\": \"linear8\", \"bits\": 8, \"shape\": [3], \"bytes\": 3, \"quantization\": {\"min\": -2.0, \"max\": 2.5}"
expect_in "$tmp/out" "\"stats\": {\"min\": null, \"max\": null, \"mean\": null, \"std\": null, \"count\": 0, \"nan\": 1, \"inf\": 0}"
expect_in "$tmp/out" "\"type\": \"vendor 0x00010001\", \"bits\": 8, \"shape\": [2], \"bytes\": 2, \"quantization\": null, \"stats\": null}"
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
# archives list in archive order
(cd "$tmp/m" && tar -cf "$tmp/m.tar" graph.nnef fc/weights.dat conv1/filter.dat notes.txt conv1/bias.dat)
(cd "$tmp/m" && tar -czf "$tmp/m.tgz" ./conv1/filter.dat graph.nnef ./fc ./conv1/bias.dat)
expect_status 0 "$di" "$tmp/m.tar"
expect_empty "$tmp/err"
if [ "$(awk 'NR > 1 { printf "%s ", $1 }' "$tmp/out")" = "fc/weights conv1/filter conv1/bias " ]; then ok; else bad ".tar rows not in archive order"; cat "$tmp/out"; fi
expect_status 0 "$di" --stats "$tmp/m.tgz"
expect_empty "$tmp/err"
if [ "$(awk 'NR > 1 { printf "%s ", $1 }' "$tmp/out")" = "conv1/filter fc/weights conv1/bias " ]; then ok; else bad ".tgz rows not in archive order"; cat "$tmp/out"; fi
if [ "$(sort "$tmp/out")" = "$(sort "$tmp/dir.out")" ]; then ok; else bad ".tgz and directory rows differ"; fi
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
	expect_in "$tmp/out" "\"label\": \"output\", \"type\": \"float32\", \"bits\": 32, \"shape\": [4,16,32,32], \"bytes\": 262144, \"quantization\": null, \"stats\": {\"min\": -12.893287658691406, \"max\": 11.664341926574707"
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
elif [ -n "${NNEF_REQUIRE_CORPUS:-}" ]; then
	bad "corpus not found at '$corpus'"
else
	echo "datinfo: corpus not found at '$corpus'; corpus runs skipped"
fi

echo "datinfo: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
