#!/bin/sh
# driver.sh - end-to-end tests of the programs: exit codes, --help,
# --version, options, output streams, real documents.
# Usage: sh testsuite/tools/driver.sh BINDIR   (NNEF_CORPUS: the corpus)
set -u

bin=${1:?usage: driver.sh BINDIR}
bin=$(cd "$bin" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
golden="$top/testsuite/golden/syntax"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/lib.sh"

check="$bin/nnef-check"
flatten_bin="$bin/nnef-flatten"

# ---- nnef-check: usage ----------------------------------------------
expect_status 0 "$check" --help
expect_in "$tmp/out" "Usage: nnef-check [OPTIONS] PATH..."
expect_in "$tmp/out" "--max-errors=N"
expect_empty "$tmp/err"
expect_status 0 "$check" -h
expect_status 0 "$check" --version
expect_in "$tmp/out" "(nnefkit) 0."
expect_status 0 "$check" -V
expect_status 2 "$check"
expect_in "$tmp/err" "no model given"
expect_status 2 "$check" --no-such-option x.nnef
expect_in "$tmp/err" "Try 'nnef-check --help'."
expect_status 2 "$check" --max-errors=many x.nnef
expect_in "$tmp/err" "--max-errors needs a number from 0 to 10000, not 'many'"
expect_status 2 "$check" --max-errors=10001 x.nnef
expect_in "$tmp/err" "--max-errors needs a number from 0 to 10000, not '10001'"
expect_status 2 "$check" --max-depth=2147483647 x.nnef
expect_in "$tmp/err" "nnef-check: --max-depth needs a number from 1 to 100000000, not '2147483647'"
expect_status 2 "$check" --max-depth=0 x.nnef
expect_in "$tmp/err" "--max-depth needs a number from 1 to 100000000, not '0'"
expect_status 2 "$check" --color=sometimes x.nnef
expect_in "$tmp/err" "--color must be auto, always or never"
# a value given to an option that takes none is said so, by its name
expect_status 2 "$check" --help=x
expect_in "$tmp/err" "nnef-check: --help takes no value"
expect_in "$tmp/err" "Try 'nnef-check --help'."
expect_status 2 "$check" --quiet=1 x.nnef
expect_in "$tmp/err" "nnef-check: --quiet takes no value"
expect_in "$tmp/err" "Try 'nnef-check --help'."
expect_status 2 "$check" --no-data=yes x.nnef
expect_in "$tmp/err" "nnef-check: --no-data takes no value"
expect_status 2 "$check" --shapes=yes x.nnef
expect_in "$tmp/err" "nnef-check: --shapes must be named or all, not 'yes'"
# a prefix of several long options is ambiguous (getopt says "unknown")
expect_status 2 "$check" --max x.nnef
expect_in "$tmp/err" "nnef-check: option '--max' is ambiguous: --max-errors, --max-depth, --max-nesting, --max-operations, --max-value-bytes, --max-archive-bytes, --max-member-bytes, --max-members"
expect_in "$tmp/err" "Try 'nnef-check --help'."
expect_status 2 "$check" --max-e=3 x.nnef
expect_not_in "$tmp/err" "ambiguous"

# ---- nnef-check: reading models ---------------------------------------
expect_status 2 "$check" "$tmp/missing.nnef"
expect_in "$tmp/err" "nnef-check: error[E0001]: cannot read '$tmp/missing.nnef': No such file or directory"
expect_in "$tmp/out" "unreadable"
mkdir "$tmp/emptydir"
expect_status 2 "$check" "$tmp/emptydir"
expect_in "$tmp/err" "error[E0002]"
printf 'version 1.0;\n' | gzip >"$tmp/model.tgz"
expect_status 2 "$check" "$tmp/model.tgz"
expect_in "$tmp/err" "error[E0003]"
expect_status 0 "$check" "$top/examples/tiny_convnet"
expect_in "$tmp/out" "examples/tiny_convnet: valid"
expect_empty "$tmp/err"
expect_status 0 "$check" "$top/examples/residual_block/graph.nnef"
expect_status 0 "$check" "$top/examples/residual_block/"

# ---- standard input ('-'): a graph document, named <stdin> everywhere ----------
expect_status 1 "$check" - <"$golden/missing_semicolon.nnef"
expect_in "$tmp/err" "<stdin>:6:25: error[E0202]: expected ';' after assignment"
expect_in "$tmp/out" "<stdin>: invalid (1 error)"
expect_status 0 "$check" - "$top/examples/tiny_convnet" <"$top/examples/residual_block/graph.nnef"
expect_in "$tmp/out" "<stdin>: valid; structure only"
expect_status 0 "$flatten_bin" - <"$top/examples/residual_block/graph.nnef"
expect_in "$tmp/out" "graph residual_net"
expect_status 0 "$bin/nnef-run" --random-weights --random uniform --stats - <"$top/examples/tiny_convnet/graph.nnef"
expect_in "$tmp/out" "probabilities: scalar[1,10]"
gzip -c "$top/examples/residual_block/graph.nnef" >"$tmp/stdin.gz"
expect_status 2 "$check" - <"$tmp/stdin.gz"
expect_in "$tmp/err" "nnef-check: error[E0001]: cannot read standard input: it holds an archive; give an archive by its path"
expect_in "$tmp/out" "<stdin>: unreadable"
expect_status 2 "$check" - - </dev/null
expect_in "$tmp/err" "nnef-check: standard input ('-') can be read once"
# a document over 1 GiB (sparse: nothing is read) is named as given
truncate -s 1100M "$tmp/huge.nnef" 2>/dev/null && {
	expect_status 1 "$check" "$tmp/huge.nnef"
	expect_in "$tmp/err" "nnef-check: error[E0006]: $tmp/huge.nnef has 1153433600 bytes; nnefkit reads documents of at most 1 GiB"
	rm -f "$tmp/huge.nnef"
}
# memory the system refuses is E0008, an unreadable model (exit 2),
# never a crash: with 600 MB of address space, for an array of 1e8 items
# (sanitized builds cannot start under such a limit: then skipped)
cat >"$tmp/oom.nnef" <<'EOF'
version 1.0;
extension KHR_enable_operator_expressions;
graph G( x ) -> ( y )
{
    x = external(shape = [length_of([0] * 100000000)]);
    y = copy(x);
}
EOF
if (ulimit -v 600000 && "$check" -q "$top/examples/residual_block/graph.nnef") >/dev/null 2>&1; then
	expect_status 2 sh -c 'ulimit -v 600000 && exec "$@"' sh "$check" --max-value-bytes=4G "$tmp/oom.nnef"
	expect_in "$tmp/err" "nnef-check: error[E0008]: '$tmp/oom.nnef': out of memory: checking it needs more memory than the system gave"
	expect_in "$tmp/out" "oom.nnef: unreadable"
	expect_status 2 sh -c 'ulimit -v 600000 && exec "$@"' sh "$check" --format=json --max-value-bytes=4G "$tmp/oom.nnef"
	expect_in "$tmp/out" '"code": "E0008"'
else
	echo "driver.sh: the E0008 test is skipped (nothing runs under ulimit -v here)"
fi
# special files are refused, never waited on
if command -v mkfifo >/dev/null 2>&1 && mkfifo "$tmp/fifo.nnef"; then
	expect_status 2 "$check" "$tmp/fifo.nnef"
	expect_in "$tmp/err" "error[E0001]: cannot read '$tmp/fifo.nnef': not a regular file or directory"
fi
# a document of 256 KiB or more is mapped from its file: one that shrinks
# while it is read is a read error (exit 2), never a crash
awk -v lines=400000 -f "$top/bench/gen_flat.awk" >"$tmp/shrinks.nnef"
"$check" "$tmp/shrinks.nnef" >"$tmp/out" 2>"$tmp/err" &
pid=$!
n=0 # cut it once it is mapped (the check has begun)
while [ $n -lt 1000 ] && kill -0 $pid 2>/dev/null && ! grep -q shrinks.nnef /proc/$pid/maps 2>/dev/null; do
	sleep 0.01
	n=$((n + 1))
done
: >"$tmp/shrinks.nnef"
wait $pid
st=$?
if [ "$st" -eq 0 ] && [ -s "$tmp/out" ]; then
	echo "driver.sh: the shrinking-document test is skipped (the check ended before the file was cut)"
else
	if [ "$st" -eq 2 ]; then ok; else bad "a document that shrinks: exit $st"; fi
	expect_in "$tmp/err" "nnef-check: error[E0001]: a file of the model shrank while it was being read; check it again when nothing writes to it"
fi
rm -f "$tmp/shrinks.nnef"

# ---- nnef-check: models and their data (spec 5.1, 5.2) ----------------------
expect_status 0 "$check" "$top/examples/tiny_convnet/graph.nnef"
expect_in "$tmp/out" "tiny_convnet/graph.nnef: valid; structure only, the data was not checked (a bare graph file holds none)"
expect_status 0 "$check" --no-data "$top/examples/tiny_convnet"
expect_in "$tmp/out" "examples/tiny_convnet: valid; structure only, the data was not checked (--no-data)"
cp -r "$top/examples/tiny_convnet" "$tmp/tiny"
rm "$tmp/tiny/fc/bias.dat"
expect_status 1 "$check" "$tmp/tiny"
expect_in "$tmp/err" "tiny/graph.nnef:21:15: error[E1101]: variable 'fc_bias' has no data file: the model holds no 'fc/bias.dat'"
(cd "$top/examples" && tar -czf "$tmp/tiny.tgz" tiny_convnet)
expect_status 0 "$check" "$tmp/tiny.tgz"
expect_in "$tmp/out" "tiny.tgz: valid"
# a limit exceeded rejects the model (exit 1), as an invalid one
expect_status 1 "$check" --max-members=3 "$tmp/tiny.tgz"
expect_in "$tmp/err" "error[E0006]"
expect_in "$tmp/err" "(raise the limit with --max-members)"
expect_in "$tmp/out" "tiny.tgz: invalid (1 error)"
expect_status 2 "$check" --max-archive-bytes=0 "$tmp/tiny.tgz"
expect_in "$tmp/err" "nnef-check: --max-archive-bytes needs a positive number (with an optional K, M, G or T), not '0'"
expect_status 0 "$check" --max-member-bytes=64K "$tmp/tiny.tgz"
head -c 2000 "$tmp/tiny.tgz" >"$tmp/cut.tgz"
expect_status 2 "$check" "$tmp/cut.tgz"
# which archive, where, and zlib's reason without its name of the stream
expect_in "$tmp/err" "nnef-check: error[E0003]: $tmp/cut.tgz: the gzip stream is cut short (in or after 'tiny_convnet/"
expect_in "$tmp/err" "'), after byte 2000 of the file: unexpected end of file"
expect_not_in "$tmp/err" "<fd:"
expect_status 0 "$flatten_bin" "$tmp/tiny.tgz"
expect_in "$tmp/out" "graph tiny_convnet( image ) -> ( probabilities )"
# archives and compressed files nnefkit does not read are said to be so,
# by their bytes (not read as a graph document: thousands of lexical
# errors), exit 2; on standard input too
printf 'PK\003\004\024\000\000\000' >"$tmp/m.zip"
printf '\3757zXZ\000\000\004' >"$tmp/m.tar.xz"
printf 'BZh91AY&SY' >"$tmp/m.tar.bz2"
printf '7z\274\257\047\034\000\004' >"$tmp/m.7z"
expect_status 2 "$check" "$tmp/m.zip"
expect_in "$tmp/err" "nnef-check: error[E0001]: cannot read '$tmp/m.zip': it is a zip archive, which nnefkit does not read; a model is a directory, a .tar or a gzip-compressed .tar (.tgz, .tar.gz): extract it, or pack it as one of those"
expect_in "$tmp/out" "m.zip: unreadable"
if [ "$(wc -l <"$tmp/err")" -eq 1 ]; then ok; else bad "a zip archive gave more than one line of errors"; fi
expect_status 2 "$check" "$tmp/m.tar.xz"
expect_in "$tmp/err" "it is an xz-compressed file (.xz, .txz), which nnefkit does not read"
expect_status 2 "$check" "$tmp/m.tar.bz2"
expect_in "$tmp/err" "it is a bzip2-compressed file (.bz2, .tbz2), which nnefkit does not read"
expect_status 2 "$bin/nnef-run" --random uniform "$tmp/m.7z"
expect_in "$tmp/err" "nnef-run: error[E0001]: cannot read '$tmp/m.7z': it is a 7-Zip archive, which nnefkit does not read"
expect_status 2 "$check" - <"$tmp/m.zip"
expect_in "$tmp/err" "nnef-check: error[E0001]: cannot read standard input: it is a zip archive, which nnefkit does not read; a model is a directory, a .tar or a gzip-compressed .tar, given by its path"
# a directory holding the model's folder alone is read as an archive of
# it is (its names relative to that folder)
mkdir "$tmp/outer"
cp -r "$top/examples/tiny_convnet" "$tmp/outer/"
expect_status 0 "$check" "$tmp/outer"
expect_in "$tmp/out" "outer: valid"
expect_status 0 "$bin/nnef-run" --random uniform --stats "$tmp/outer"
expect_in "$tmp/out" "probabilities: scalar[1,10]"
rm "$tmp/outer/tiny_convnet/fc/bias.dat"
expect_status 1 "$check" "$tmp/outer"
expect_in "$tmp/err" "outer/tiny_convnet/graph.nnef:21:15: error[E1101]: variable 'fc_bias' has no data file: the model holds no 'fc/bias.dat'"
mkdir "$tmp/outer/other"
echo notes >"$tmp/outer/other/notes.txt"
expect_status 2 "$check" "$tmp/outer"
expect_in "$tmp/err" "nnef-check: error[E0002]: '$tmp/outer' is a directory without graph.nnef (in it or in its one folder)"
# macOS metadata (AppleDouble '._' files, which macOS's tar adds): skipped
# unread with one warning, in a directory and in an archive alike
cp -r "$top/examples/tiny_convnet" "$tmp/mac"
printf '\000\005\026\007 metadata' >"$tmp/mac/._graph.nnef"
printf '\000\005\026\007 metadata' >"$tmp/mac/conv1/._filter.dat"
expect_status 0 "$check" "$tmp/mac"
expect_in "$tmp/err" "nnef-check: warning[W0009]: $tmp/mac: 2 macOS metadata files skipped ('._graph.nnef' and others): AppleDouble files"
expect_in "$tmp/out" "mac: valid (1 warning)"
(cd "$tmp/mac" && tar -czf "$tmp/mac.tgz" conv1/._filter.dat graph.nnef conv1/filter.dat conv1/bias.dat fc conv2)
expect_status 0 "$check" "$tmp/mac.tgz"
expect_in "$tmp/err" "warning[W0009]: $tmp/mac.tgz: 1 macOS metadata file skipped ('conv1/._filter.dat'): "
# said once, though nnef-run reads the archive a second time for the data
expect_status 0 "$bin/nnef-run" --random uniform --stats "$tmp/mac.tgz"
if [ "$(grep -c 'W0009' "$tmp/err")" -eq 1 ]; then ok; else bad "nnef-run says W0009 more than once"; cat "$tmp/err"; fi
expect_status 0 "$bin/nnef-datinfo" "$tmp/mac.tgz"
expect_not_in "$tmp/out" "._filter"
expect_in "$tmp/err" "nnef-datinfo: warning[W0009]"

# ---- nnef-check: verdicts and output ----------------------------------
expect_status 1 "$check" "$golden/missing_semicolon.nnef"
expect_in "$tmp/err" "missing_semicolon.nnef:6:25: error[E0202]: expected ';' after assignment"
expect_in "$tmp/out" "invalid (1 error)"
expect_status 1 "$check" -q "$golden/missing_semicolon.nnef"
expect_empty "$tmp/out"
expect_in "$tmp/err" "error[E0202]"
# the worst status wins
expect_status 1 "$check" "$top/examples/tiny_convnet" "$golden/missing_semicolon.nnef"
expect_status 2 "$check" "$golden/missing_semicolon.nnef" "$tmp/missing.nnef"
# warnings: valid, shown unless -q
expect_status 0 "$check" "$golden/unknown_extension.nnef"
expect_in "$tmp/err" "warning[W0303]"
expect_in "$tmp/out" "valid (1 warning)"
expect_status 0 "$check" -q "$golden/unknown_extension.nnef"
expect_empty "$tmp/err"
expect_empty "$tmp/out"
# --max-errors
expect_status 1 "$check" --max-errors=1 "$golden/many_errors.nnef"
expect_in "$tmp/err" "nnef-check: 3 more errors not shown (raise the limit with --max-errors)"
expect_in "$tmp/out" "invalid (4 errors, 1 shown)"
if [ "$(grep -c 'error\[' "$tmp/err")" -eq 1 ]; then ok; else bad "--max-errors=1 showed more than one error"; fi
expect_status 1 "$check" --max-errors=0 "$golden/many_errors.nnef"
if [ "$(grep -c 'error\[' "$tmp/err")" -eq 4 ]; then ok; else bad "--max-errors=0 did not show all 4 errors"; fi
expect_not_in "$tmp/err" "not shown"
# the first error shown does not depend on --max-errors: errors are sorted
# before the limit applies
for n in 1 5 20 0; do
	expect_status 1 "$check" --max-errors=$n "$golden/max_errors_first_shown.nnef"
	if head -1 "$tmp/err" | grep -q "max_errors_first_shown.nnef:4:1: error\[E0301\]"; then ok; else bad "--max-errors=$n: the first error is not the one on line 4"; fi
done
# colors: never by default when stderr is not a terminal; --color wins
expect_status 1 "$check" "$golden/missing_semicolon.nnef"
expect_not_in "$tmp/err" "$(printf '\033')"
expect_status 1 "$check" --color=always "$golden/missing_semicolon.nnef"
expect_in "$tmp/err" "$(printf '\033[1;31merror')"
expect_status 1 env NO_COLOR=1 "$check" --color=auto "$golden/missing_semicolon.nnef"
expect_not_in "$tmp/err" "$(printf '\033')"
# --color alone means always (GNU ls and grep); its value goes after '='
expect_status 1 "$check" --color "$golden/missing_semicolon.nnef"
expect_in "$tmp/err" "$(printf '\033[1;31merror')"
expect_status 1 "$check" --color=never "$golden/missing_semicolon.nnef"
expect_not_in "$tmp/err" "$(printf '\033')"

# ---- nnef-check: shapes -------------------------------------------------
expect_status 0 "$check" --shapes "$top/examples/tiny_convnet"
expect_in "$tmp/out" "examples/tiny_convnet: valid"
expect_in "$tmp/out" "conv1: scalar[1,16,32,32]"
expect_in "$tmp/out" "pool1: scalar[1,16,16,16]"
expect_in "$tmp/out" "probabilities: scalar[1,10]"
# by default the 16 tensors the document names (graph identifiers,
# variables), not those of the expansions of relu, max_pool, linear and
# softmax (relu1_gt, pool1_index, logits_matmul, probabilities_m, ...)
if [ "$(grep -c ': scalar\[\|: integer\[\|: logical\[' "$tmp/out")" -eq 16 ]; then ok; else bad "--shapes did not list the 16 named tensors of tiny_convnet"; fi
expect_not_in "$tmp/out" "pool1_index"
expect_not_in "$tmp/out" "relu1_gt"
expect_status 0 "$check" -q --shapes "$top/examples/tiny_convnet"
expect_not_in "$tmp/out" "valid"
expect_in "$tmp/out" "image: scalar[1,3,32,32]"
cp "$tmp/out" "$tmp/shapes_named"
expect_status 0 "$check" -q --shapes=named "$top/examples/tiny_convnet"
expect_same "$tmp/shapes_named" "$tmp/out"
# --shapes=all: every tensor, in definition order; the named ones among
# them in the same order
expect_status 0 "$check" -q --shapes=all "$top/examples/tiny_convnet"
if [ "$(grep -c ': scalar\[\|: integer\[\|: logical\[' "$tmp/out")" -eq 24 ]; then ok; else bad "--shapes=all did not list the 24 tensors of tiny_convnet"; fi
expect_in "$tmp/out" "pool1_index: integer[1,16,16,16]"
expect_in "$tmp/out" "relu1_gt: logical[1,16,32,32]"
grep -Fx -f "$tmp/shapes_named" "$tmp/out" >"$tmp/shapes_kept"
expect_same "$tmp/shapes_named" "$tmp/shapes_kept"
# a variable is listed wherever it is made (its data file has its label):
# here nested in an expression, whose other nested results are not named
cat >"$tmp/named.nnef" <<'EOF2'
version 1.0;
extension KHR_enable_operator_expressions;
graph G( input ) -> ( output )
{
    input = external(shape = [1, 3]);
    [a, b] = split(mul(input, variable(shape = [1, 3], label = 'scale')), axis = 1, ratios = [2, 1]);
    output = concat([exp(a), b], axis = 1);
}
EOF2
expect_status 0 "$check" -q --shapes "$tmp/named.nnef"
printf '%s\n' "input: scalar[1,3]" "a_variable: scalar[1,3]" "a: scalar[1,2]" "b: scalar[1,1]" "output: scalar[1,3]" >"$tmp/named_want"
expect_same "$tmp/named_want" "$tmp/out"
expect_status 0 "$check" -q --shapes=all "$tmp/named.nnef"
expect_in "$tmp/out" "a_mul: scalar[1,3]"
expect_in "$tmp/out" "output_exp: scalar[1,2]"
# no shapes for an invalid model
expect_status 1 "$check" --shapes "$golden/missing_semicolon.nnef"
expect_not_in "$tmp/out" "scalar["
# --input-shape re-propagates; errors it causes are errors of the model
expect_status 0 "$check" --shapes --input-shape=input=2,8,32,32 "$top/examples/residual_block"
expect_in "$tmp/out" "input: scalar[2,8,32,32]"
expect_in "$tmp/out" "output: scalar[2,8,32,32]"
expect_status 1 "$check" --input-shape=image=1,3,64,64 "$top/examples/tiny_convnet"
expect_in "$tmp/err" "error[E0917]: reshape: cannot reshape [1,32,2,2] (volume 128) to [1,32] (volume 32)"
expect_status 2 "$check" --input-shape=nosuch=1,2 "$top/examples/tiny_convnet"
expect_in "$tmp/err" "nnef-check: --input-shape: 'nosuch' is not an external of this model; its inputs are: image"
for bad in image image= =1,2 image=1,,2 image=1,-2 image=x image=1,2, image=99999999999999999999; do
	expect_status 2 "$check" "--input-shape=$bad" "$top/examples/tiny_convnet"
	expect_in "$tmp/err" "--input-shape needs NAME=D0,D1,... with positive extents, not '$bad'"
done
# a custom operation: shapes after it are unknown, with one note
cat >"$tmp/custom.nnef" <<'EOF2'
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
expect_status 0 "$check" --shapes "$tmp/custom.nnef"
expect_in "$tmp/err" "note[N0930]: the custom operation 'warp' gives results of unknown shape (spec chapter 6): 1 operation using them was not shape-checked"
expect_in "$tmp/out" "hidden: scalar[?]"
expect_in "$tmp/out" "output: scalar[?]"
expect_status 0 "$check" -q "$tmp/custom.nnef"
expect_empty "$tmp/err"

# ---- nnef-check: hostile input never crashes --------------------------
# (an exit status above 2 would mean a crash or a signal)
for f in "$check" /bin/sh "$golden/lex_non_ascii_identifier.nnef"; do
	head -c 20000 "$f" >"$tmp/garbage.nnef"
	"$check" -q "$tmp/garbage.nnef" >/dev/null 2>&1
	st=$?
	if [ "$st" -eq 1 ]; then ok; else bad "garbage from $f: exit $st"; fi
done
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "(["; }' >"$tmp/deep.nnef"
expect_status 1 "$check" -q "$tmp/deep.nnef"
# parentheses count toward the nesting limit (E0216, 1000 levels): a
# call and 999 parentheses are 1000 levels, one more is too many, and
# 20000 are reported the same way, never by a parser stack overflow
for n in 999 1000 20000; do
	awk -v n=$n 'BEGIN { printf "version 1.0;\nextension KHR_enable_operator_expressions;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = add(x, "; for (i = 0; i < n; i++) printf "("; printf "1.0"; for (i = 0; i < n; i++) printf ")"; printf ");\n}\n" }' >"$tmp/parens$n.nnef"
done
expect_status 0 "$check" -q "$tmp/parens999.nnef"
expect_status 1 "$check" -q "$tmp/parens1000.nnef"
expect_in "$tmp/err" "parens1000.nnef:6:1015: error[E0216]: nested too deeply (the limit is 1000 levels; raise it with --max-nesting)"
expect_status 1 "$check" -q "$tmp/parens20000.nnef"
expect_in "$tmp/err" "parens20000.nnef:6:1015: error[E0216]: nested too deeply (the limit is 1000 levels; raise it with --max-nesting)"
if [ "$(grep -c 'error\[' "$tmp/err")" -eq 1 ]; then ok; else bad "more than one error after E0216"; fi
awk 'BEGIN { printf "version 1.0;\nextension KHR_enable_operator_expressions;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = x + "; for (i = 0; i < 20000; i++) printf "- "; printf "1.0;\n}\n" }' >"$tmp/unary.nnef"
expect_status 1 "$check" -q "$tmp/unary.nnef"
expect_in "$tmp/err" "error[E0216]: nested too deeply (the limit is 1000 levels; raise it with --max-nesting)"
# --max-nesting moves the limit, up to 10000: the parser's stack and
# every stage's recursion take that depth (sanitizer builds too)
expect_status 0 "$check" -q --max-nesting=1001 "$tmp/parens1000.nnef"
expect_status 0 "$bin/nnef-flatten" -q --max-nesting=1001 -o "$tmp/parens1000_flat.nnef" "$tmp/parens1000.nnef"
expect_status 1 "$check" -q --max-nesting=10000 "$tmp/parens20000.nnef"
expect_in "$tmp/err" "parens20000.nnef:6:10015: error[E0216]: nested too deeply (the limit is 10000 levels; raise it with --max-nesting)"
awk -v n=9999 'BEGIN { printf "version 1.0;\nextension KHR_enable_operator_expressions;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = x"; for (i = 0; i < n; i++) printf " + (x"; for (i = 0; i < n; i++) printf ")"; printf ";\n}\n" }' >"$tmp/sum9999.nnef"
expect_status 0 "$check" -q --max-nesting=10000 "$tmp/sum9999.nnef"
expect_status 0 "$bin/nnef-run" -q --max-nesting=10000 --random uniform "$tmp/sum9999.nnef"
expect_status 1 "$check" -q "$tmp/sum9999.nnef"
expect_status 1 "$check" -q --max-nesting=10000 "$tmp/unary.nnef"
expect_in "$tmp/err" "error[E0216]: nested too deeply (the limit is 10000 levels; raise it with --max-nesting)"
expect_status 2 "$check" --max-nesting=0 "$tmp/unary.nnef"
expect_in "$tmp/err" "nnef-check: --max-nesting needs a number from 1 to 10000, not '0'"
expect_status 2 "$check" --max-nesting=10001 "$tmp/unary.nnef"
expect_in "$tmp/err" "nnef-check: --max-nesting needs a number from 1 to 10000, not '10001'"

# ---- compile-time values have a budget (E0811, --max-value-bytes) ---------------------
# 60-byte documents that asked for gigabytes: under a 1 GB address-space
# limit, when the build can run in one (a sanitizer build reserves more)
vlimit=1000000
(ulimit -v $vlimit && "$check" --version) >/dev/null 2>&1 || vlimit=unlimited
for v in "length_of([0] * 1000000000)" "length_of(range_of([0] * 100000000))" "length_of('a' * 2000000000)" "length_of([for i in range_of([0] * 100000000) yield i])"; do
	printf 'version 1.0;\nextension KHR_enable_operator_expressions;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [%s]);\n    y = copy(x);\n}\n' "$v" >"$tmp/budget.nnef"
	(ulimit -v $vlimit 2>/dev/null; "$check" "$tmp/budget.nnef") >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -eq 1 ]; then ok; else bad "$v: exit $st"; fi
	expect_in "$tmp/err" "budget.nnef:5:"
	expect_in "$tmp/err" "error[E0811]: compile-time values would take more than 268435456 bytes in all; raise the limit with --max-value-bytes"
done
printf 'version 1.0;\nextension KHR_enable_operator_expressions;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [length_of([0] * 100000)]);\n    y = copy(x);\n}\n' >"$tmp/budget.nnef"
expect_status 0 "$check" "$tmp/budget.nnef"
expect_status 1 "$check" --max-value-bytes=100K "$tmp/budget.nnef"
expect_in "$tmp/err" "would take more than 102400 bytes in all"
expect_status 2 "$check" --max-value-bytes=0 "$tmp/budget.nnef"

# ---- the number of operations has a limit (E0812, --max-operations) ---------------
expect_status 0 "$check" --max-operations=24 "$top/examples/tiny_convnet"
expect_status 1 "$check" --max-operations=23 "$top/examples/tiny_convnet"
expect_in "$tmp/err" "tiny_convnet/graph.nnef:23:21: error[E0812]: the flat graph would have more than 23 operations; raise the limit with --max-operations"
if [ "$(grep -c 'error\[' "$tmp/err")" -eq 1 ]; then ok; else bad "errors after E0812"; fi
expect_status 1 "$flatten_bin" --max-operations=5 -o "$tmp/ops.nnef" "$top/examples/tiny_convnet"
expect_in "$tmp/err" "error[E0812]"
if [ ! -e "$tmp/ops.nnef" ]; then ok; else bad "nnef-flatten wrote an output after E0812"; fi
expect_status 2 "$check" --max-operations=0 "$top/examples/tiny_convnet"
expect_in "$tmp/err" "--max-operations needs a number from 1 to 100000000, not '0'"

# ---- nnef-check: evaluation errors and --max-depth --------------------------
cat >"$tmp/deep.nnef" <<'EOF2'
version 1.0;
extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;
fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )
{
    y = f(x, n = n - 1) if n > 0 else x;
}
graph G( input ) -> ( output )
{
    input = external(shape = [1]);
    output = f(input, n = 30);
}
EOF2
expect_status 0 "$check" "$tmp/deep.nnef"
expect_status 1 "$check" --max-depth=10 "$tmp/deep.nnef"
expect_in "$tmp/err" "error[E0806]: compound expansions nested more than 10 deep"
expect_in "$tmp/err" "note: in expansion of 'f' at"
expect_status 2 "$check" --max-depth=0 "$tmp/deep.nnef"

# ---- documents of real exporters: vendor extensions, --declarations ---------
vendor="$top/testsuite/vendor"
# strict: the verdict is the spec's, said in a few lines, the summary first
expect_status 1 "$check" "$vendor/encoder.nnef"
expect_in "$tmp/out" "encoder.nnef: invalid (4 errors)"
head -n 1 "$tmp/err" >"$tmp/first"
expect_in "$tmp/first" "encoder.nnef:8:1: error[E0306]: this document uses vendor extensions (tract_registry, tract_core, tract_transformers, tract_assert): 10 quoted identifiers (the first at 15:5), 3 calls to vendor operations (the first, 'tract_transformers_rms_norm', at 17:21), 1 assertion (at 10:24)"
if [ "$(wc -l <"$tmp/err")" -le 30 ]; then ok; else bad "strict diagnostics of encoder.nnef take $(wc -l <"$tmp/err") lines"; fi
expect_in "$tmp/err" "encoder.nnef:17:21: error[E0601]: unknown operation 'tract_transformers_rms_norm' of the vendor extension 'tract_transformers'"
expect_in "$tmp/err" "give its declaration with --declarations FILE"
# --lenient alone: quoted identifiers and the assertion accepted, each
# vendor operation declared by its first call (one warning for all)
expect_status 0 "$check" --lenient "$vendor/encoder.nnef"
expect_in "$tmp/err" "encoder.nnef:17:21: warning[W0309]: 'tract_transformers_rms_norm' of the vendor extension 'tract_transformers' is not declared: taken as the custom operation 'fragment tract_transformers_rms_norm( input: tensor<scalar>, axis: integer, eps: scalar ) -> ( output: tensor<scalar> );'"
expect_in "$tmp/err" "note: 2 more vendor operations are taken so, each declared by its first call"
expect_in "$tmp/out" "encoder.nnef: valid (3 warnings)"
expect_status 0 "$flatten_bin" --lenient "$vendor/encoder.nnef"
expect_in "$tmp/out" "fragment tract_core_gelu( input: tensor<scalar> ) -> ( output: tensor<scalar> );"
# a vendor call that cannot be declared by its first call (an array of
# tensors) after one that was: an error of its own, not a crash
printf 'version 1.0;\nextension tract_registry tract_core;\ngraph G( a ) -> ( w )\n{\n    a = external<scalar>(shape = [2, 2]);\n    ah = tract_core_cast(a, to = "f16");\n    w = tract_core_einsum([ah, a], expr = "ij,jk->ik");\n}\n' >"$tmp/vendor_array.nnef"
expect_status 1 "$check" --lenient "$tmp/vendor_array.nnef"
expect_in "$tmp/err" "vendor_array.nnef:7:9: error[E0601]: unknown operation 'tract_core_einsum' of the vendor extension 'tract_core'"
# with the declarations (a directory, or its files one by one): valid
expect_status 0 "$check" --lenient --declarations "$vendor/declarations" "$vendor/encoder.nnef"
expect_in "$tmp/out" "encoder.nnef: valid (2 warnings)"
expect_in "$tmp/err" "encoder.nnef:15:5: warning[W0309]: i\"enc.0/proj.weight\" is a quoted identifier, a vendor extension: taken as the identifier it quotes"
expect_status 0 "$check" --lenient --declarations="$vendor/declarations/tract_core.nnef" --declarations "$vendor/declarations/tract_transformers.nnef" -q --shapes "$vendor/encoder.nnef"
expect_in "$tmp/out" 'i"enc.0/norm": scalar[1,4,16]'
# flattened: declared compounds expanded, the custom operation declared
# and kept, names quoted again; the output checks the same way
expect_status 0 "$flatten_bin" --lenient --declarations "$vendor/declarations" "$vendor/encoder.nnef" -o "$tmp/encoder_flat.nnef"
expect_in "$tmp/encoder_flat.nnef" "fragment tract_core_erf( x: tensor<scalar> ) -> ( y: tensor<scalar> );"
expect_in "$tmp/encoder_flat.nnef" 'i"enc.0/act" = mul(i"enc.0/norm", i"enc.0/act_div");'
expect_in "$tmp/encoder_flat.nnef" 'features = tract_core_erf(i"enc.0/res");'
expect_status 0 "$check" --lenient "$tmp/encoder_flat.nnef"
# a custom operation cannot be run: said before anything runs
expect_status 1 "$bin/nnef-run" --lenient --declarations "$vendor/declarations" --random uniform --random-weights "$vendor/encoder.nnef"
expect_in "$tmp/err" "encoder.nnef:20:16: error[E1302]: 'tract_core_erf' is a custom operation"
# declarations that cannot be read, or have errors, pointing into them
expect_status 2 "$check" --declarations "$tmp/no_such_declarations.nnef" "$vendor/encoder.nnef"
expect_in "$tmp/err" "nnef-check: error[E0001]: cannot read '$tmp/no_such_declarations.nnef'"
expect_status 1 "$check" --lenient --declarations "$vendor/declarations_bad.nnef" "$vendor/encoder.nnef"
expect_in "$tmp/err" "declarations_bad.nnef:3:10: error[E0502]: 'relu' is a standard operation and cannot be redefined"
expect_in "$tmp/err" "declarations_bad.nnef:6:12: error[E0201]"

# symbols (--lenient): flattened with their extension line, a fixed point;
# refused by nnef-run unless --input-shape fixes the input; the data of a
# variable checked against the extents that are known
symbols="$top/testsuite/golden/lenient/vendor_symbols.nnef"
expect_status 1 "$check" "$symbols"
expect_in "$tmp/err" "error[E0306]"
expect_status 0 "$flatten_bin" --lenient "$symbols" -o "$tmp/symbols_flat.nnef"
expect_in "$tmp/symbols_flat.nnef" "extension tract_symbol S;"
expect_in "$tmp/symbols_flat.nnef" "tokens = external(shape = [1, S, 16]);"
expect_in "$tmp/symbols_flat.nnef" "mask = reshape(tokens, shape = [S, T, 16], axis_start = 0, axis_count = 2);"
expect_status 0 "$flatten_bin" --lenient "$tmp/symbols_flat.nnef" -o "$tmp/symbols_flat2.nnef"
expect_same "$tmp/symbols_flat.nnef" "$tmp/symbols_flat2.nnef"
mkdir "$tmp/symrun"
printf 'version 1.0;\nextension tract_symbol S;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1, S, 4]);\n    y = relu(x);\n}\n' >"$tmp/symrun/graph.nnef"
expect_status 1 "$bin/nnef-run" --lenient --random uniform "$tmp/symrun"
expect_in "$tmp/err" "graph.nnef:5:9: error[E1309]: 'external' is given an extent of unknown value (a symbol of tract_symbol): nnef-run needs every shape, so the graph cannot be run"
expect_status 0 "$bin/nnef-run" --lenient --input-shape=x=1,3,4 --random uniform --stats "$tmp/symrun"
expect_in "$tmp/out" "y: scalar[1,3,4]"
printf 'version 1.0;\nextension tract_symbol S;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1, 10]);\n    w = variable(shape = [S, 4], label = %sw%s);\n    y = add(x, w);\n}\n' "'" "'" >"$tmp/symrun/graph.nnef"
cp "$top/examples/tiny_convnet/fc/bias.dat" "$tmp/symrun/w.dat"
expect_status 1 "$check" --lenient "$tmp/symrun"
expect_in "$tmp/err" "graph.nnef:6:9: error[E1102]: the data file 'w.dat' holds a tensor of shape [1,10], but variable 'w' has shape [S,4]"
printf 'version 1.0;\nextension tract_symbol S;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1, 10]);\n    w = variable(shape = [S, 10], label = %sw%s);\n    y = add(x, w);\n}\n' "'" "'" >"$tmp/symrun/graph.nnef"
expect_status 0 "$check" --lenient "$tmp/symrun"

# ---- tract's dialect: --dialect=tract (nnef-tract(7)) -----------------------
expect_status 2 "$check" --dialect=bogus "$top/examples/tiny_convnet"
expect_in "$tmp/err" "nnef-check: --dialect must be khronos or tract, not 'bogus'"
expect_status 2 "$flatten_bin" --dialect= "$top/examples/tiny_convnet"
expect_in "$tmp/err" "nnef-flatten: --dialect must be khronos or tract, not ''"
# strict: E0306 says which dialect reads the document
expect_status 1 "$check" "$vendor/encoder.nnef"
expect_in "$tmp/err" "it is written in tract's dialect of NNEF, which --dialect=tract reads"
expect_in "$tmp/err" "hint: check it with --dialect=tract"
# the dialect declares what tract's registries declare: an operation that
# none declares is still an error, a declaration given for it is used
expect_status 1 "$check" --dialect=tract "$vendor/encoder.nnef"
expect_in "$tmp/err" "encoder.nnef:18:20: error[E0601]: unknown operation 'tract_core_gelu' of the vendor extension 'tract_core'"
expect_status 0 "$check" --dialect=tract --declarations "$vendor/declarations/tract_core.nnef" -q --shapes "$vendor/encoder.nnef"
expect_in "$tmp/out" 'i"enc.0/norm": f32[1,4,16]'
# a Khronos document reads the same in both dialects (datum types aside)
expect_status 0 "$check" --dialect=tract -q --shapes "$top/examples/tiny_convnet"
expect_in "$tmp/out" "probabilities: f32[1,10]"
# symbols: symbolic shapes, a flat document in the dialect that is a fixed point
cat >"$tmp/tract.nnef" <<'EOF2'
version 1.0;
extension tract_registry tract_core;
extension tract_symbol S;
graph G( input ) -> ( output )
{
    input = tract_core_external(shape = [1, S, 8], datum_type = 'f16');
    w = variable<scalar>(shape = [1, 8, 4], label = 'w');
    y = matmul(input, tract_core_cast(w, to = 'f16'));
    output = concat([y, y], axis = 1);
}
EOF2
expect_status 0 "$check" --dialect=tract -q --shapes "$tmp/tract.nnef"
expect_in "$tmp/out" "output: f16[1,2*S,4]"
expect_status 1 "$check" -q "$tmp/tract.nnef"
expect_in "$tmp/err" "error[E0306]"
expect_status 0 "$flatten_bin" --dialect=tract "$tmp/tract.nnef" -o "$tmp/tract_flat.nnef"
expect_in "$tmp/tract_flat.nnef" "extension tract_registry tract_core;"
expect_in "$tmp/tract_flat.nnef" "input = tract_core_external(datum_type = 'f16', shape = [1, S, 8]);"
expect_status 0 "$flatten_bin" --dialect=tract "$tmp/tract_flat.nnef" -o "$tmp/tract_flat2.nnef"
expect_same "$tmp/tract_flat.nnef" "$tmp/tract_flat2.nnef"
# nnef-run: what it cannot run is said before anything runs, at its place:
# a symbol no data given binds; a variable of f16 items runs, its values
# those of its file (1.0 and 1.0: the same as adding 1)
expect_status 1 "$bin/nnef-run" --dialect=tract --random uniform --random-weights "$tmp/tract.nnef"
expect_in "$tmp/err" "tract.nnef:6:13: error[E1309]: 'tract_core_external' gives 'input' of shape [1,S,8], known only when the model runs: nnef-run needs every shape, so the graph cannot be run"
mkdir "$tmp/f16model"
{ printf '\116\357\001\000\004\000\000\000\001\000\000\000\002\000\000\000'; head -c 28 /dev/zero
  printf '\020\000\000\000\000\000\000\000'; head -c 76 /dev/zero; printf '\000\074\000\074'; } >"$tmp/f16model/w.dat"
printf 'version 1.0;\nextension tract_registry tract_core;\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [2]);\n    w = variable(shape = [2], label = %sw%s);\n    output = add(input, w);\n}\n' "'" "'" >"$tmp/f16model/graph.nnef"
expect_status 0 "$check" --dialect=tract -q --shapes "$tmp/f16model"
expect_in "$tmp/out" "w: f16[2]"
expect_status 0 "$bin/nnef-run" --dialect=tract --random uniform --seed 5 "$tmp/f16model" --output-dir "$tmp/f16out"
printf 'version 1.0;\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [2]);\n    output = add(input, 1.0);\n}\n' >"$tmp/plus1.nnef"
expect_status 0 "$bin/nnef-run" --random uniform --seed 5 "$tmp/plus1.nnef" --output-dir "$tmp/plus1out"
expect_same "$tmp/f16out/output.dat" "$tmp/plus1out/output.dat"
printf 'version 1.0;\nextension tract_symbol S;\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [1, S]);\n    output = exp(input);\n}\n' >"$tmp/symbolic.nnef"
expect_status 1 "$bin/nnef-run" --dialect=tract --random uniform "$tmp/symbolic.nnef"
expect_in "$tmp/err" "symbolic.nnef:5:13: error[E1309]: 'external' gives 'input' of shape [1,S], known only when the model runs: nnef-run needs every shape, so the graph cannot be run"
# JSON and SARIF say which dialect was used
if command -v jq >/dev/null 2>&1; then
	expect_status 0 "$check" --dialect=tract --format=json --shapes "$tmp/tract.nnef"
	jq -r '.models[0] | "\(.dialect) \(.tensors[] | select(.name == "output") | "\(.datum_type) \(.shape)")"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" 'tract f16 [1,"2*S",4]'
	expect_status 0 "$check" --format=json "$top/examples/tiny_convnet"
	jq -r '.models[0].dialect' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "khronos"
	expect_status 0 "$check" --dialect=tract --format=sarif "$tmp/tract.nnef"
	jq -r '.runs[0].properties.dialect' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "tract"
fi

# ---- nnef-flatten --------------------------------------------------------
flatten="$bin/nnef-flatten"
expect_status 0 "$flatten" --help
expect_in "$tmp/out" "Usage: nnef-flatten [OPTIONS] MODEL [-o FILE]"
expect_status 0 "$flatten" --version
expect_in "$tmp/out" "(nnefkit) 0."
expect_status 2 "$flatten"
expect_in "$tmp/err" "no model given"
expect_status 2 "$flatten" a.nnef b.nnef
expect_in "$tmp/err" "one model at a time"
expect_status 2 "$flatten" --bogus "$top/examples/tiny_convnet"
expect_status 2 "$flatten" "$tmp/missing.nnef"
expect_in "$tmp/err" "error[E0001]"
expect_status 0 "$flatten" "$top/examples/residual_block"
expect_in "$tmp/out" "graph residual_net( input ) -> ( output )"
expect_not_in "$tmp/out" "fragment"
expect_not_in "$tmp/out" "extension"
cp "$tmp/out" "$tmp/flat1.nnef"
# the output checks, and is a fixed point
expect_status 0 "$check" "$tmp/flat1.nnef"
expect_status 0 "$flatten" "$tmp/flat1.nnef"
if cmp -s "$tmp/out" "$tmp/flat1.nnef"; then ok; else bad "flattening the flat output changes it"; fi
# -o writes the file; an invalid model leaves an existing file alone
expect_status 0 "$flatten" "$top/examples/tiny_convnet" -o "$tmp/tiny.flat"
expect_empty "$tmp/out"
expect_in "$tmp/tiny.flat" "graph tiny_convnet( image ) -> ( probabilities )"
echo "previous content" >"$tmp/keep.flat"
expect_status 1 "$flatten" "$golden/missing_semicolon.nnef" -o "$tmp/keep.flat"
expect_in "$tmp/keep.flat" "previous content"
if ls "$tmp"/keep.flat.tmp* >/dev/null 2>&1; then bad "a temporary file was left behind"; else ok; fi
expect_status 2 "$flatten" "$top/examples/tiny_convnet" -o "$tmp/no/such/dir/x.nnef"
expect_in "$tmp/err" "cannot write"
# --keep
expect_status 0 "$flatten" --keep=relu "$top/examples/tiny_convnet"
expect_in "$tmp/out" "relu1 = relu(conv1);"
expect_status 0 "$flatten" --keep-standard "$top/examples/tiny_convnet"
expect_in "$tmp/out" "pool1 = max_pool(relu1"
expect_status 2 "$flatten" --keep=no_such_op "$top/examples/tiny_convnet"
expect_in "$tmp/err" "--keep: 'no_such_op' is not an operation of this model"
expect_status 0 "$flatten" --keep=conv_bn_relu "$top/examples/residual_block"
expect_in "$tmp/out" "extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;"
expect_in "$tmp/out" "fragment conv_bn_relu("
cp "$tmp/out" "$tmp/kept.nnef"
expect_status 0 "$check" "$tmp/kept.nnef"
# --annotate-shapes: a comment per operation; the output re-checks and is
# a fixed point
expect_status 0 "$flatten" --annotate-shapes "$top/examples/tiny_convnet"
expect_in "$tmp/out" "conv1 = conv(image, conv1_filter, conv1_bias, border = 'constant', padding = [(1, 1), (1, 1)], stride = [1, 1], dilation = [], groups = 1);  # scalar[1,16,32,32]"
expect_in "$tmp/out" "pool1_index = argmax_pool(relu1, size = [1, 1, 2, 2], border = 'ignore', padding = [], stride = [1, 1, 2, 2], dilation = []);  # integer[1,16,16,16]"
cp "$tmp/out" "$tmp/annotated.nnef"
expect_status 0 "$check" "$tmp/annotated.nnef"
expect_status 0 "$flatten" --annotate-shapes "$tmp/annotated.nnef"
if cmp -s "$tmp/out" "$tmp/annotated.nnef"; then ok; else bad "flattening the annotated output changes it"; fi
# --input-shape replaces an external's shape, in the output too
expect_status 0 "$flatten" --input-shape=image=1,3,16,16 "$top/examples/tiny_convnet"
expect_in "$tmp/out" "image = external(shape = [1, 3, 16, 16]);"
expect_status 1 "$flatten" --input-shape=image=4,3,64,64 --annotate-shapes "$top/examples/tiny_convnet"
expect_in "$tmp/err" "error[E0917]: reshape: cannot reshape [4,32,2,2] (volume 512) to [1,32] (volume 32)"
expect_status 2 "$flatten" --input-shape=conv1=1,2 "$top/examples/tiny_convnet"
expect_in "$tmp/err" "nnef-flatten: --input-shape: 'conv1' is not an external of this model; its inputs are: image"
expect_status 2 "$flatten" --input-shape=image=1,0 "$top/examples/tiny_convnet"
expect_in "$tmp/err" "nnef-flatten: --input-shape needs NAME=D0,D1,... with positive extents, not 'image=1,0'"
expect_status 1 "$flatten" --max-depth=10 "$tmp/deep.nnef"
expect_in "$tmp/err" "note: in expansion of"
expect_in "$tmp/err" "error[E0806]"

# ---- the programs' common surface ----------------------------------------------
for prog in nnef-check nnef-flatten nnef-run nnef-datinfo; do
	expect_status 0 "$bin/$prog" --help
	expect_in "$tmp/out" "Usage: $prog [OPTIONS]"
	expect_in "$tmp/out" "  -h, --help                  print this help and exit"
	expect_in "$tmp/out" "      --color[=WHEN]          color diagnostics: auto"
	# no help line is wider than 79 columns
	if awk 'length($0) > 79 { exit 1 }' "$tmp/out"; then ok; else bad "$prog --help has lines over 79 columns"; fi
	expect_status 0 "$bin/$prog" --version
	expect_in "$tmp/out" "$prog (nnefkit) 0."
	expect_status 2 "$bin/$prog" --frobnicate x
	expect_in "$tmp/err" "$prog: unknown option '--frobnicate'"
	expect_in "$tmp/err" "Try '$prog --help'."
	expect_status 2 "$bin/$prog" -Z x
	expect_in "$tmp/err" "$prog: unknown option '-Z'"
	expect_status 2 "$bin/$prog" x --max-members
	expect_in "$tmp/err" "$prog: --max-members needs a value (--max-members=N)"
	expect_in "$tmp/err" "Try '$prog --help'."
	expect_status 2 "$bin/$prog" --max-members=lots x
	expect_in "$tmp/err" "$prog: --max-members needs a positive number (with an optional K, M, G or T), not 'lots'"
	expect_in "$tmp/err" "Try '$prog --help'."
	# the program's name, never the path it was started by
	expect_not_in "$tmp/err" "$bin"
done
# the README documents every option of every program, in its section
for prog in nnef-check nnef-flatten nnef-run nnef-datinfo; do
	"$bin/$prog" --help | sed -n 's/^  \(-., \)\{0,1\} *\(--[a-z-]*\).*/\2/p' >"$tmp/opts"
	awk -v want="## Using $prog" '$0 == want { on = 1; next } /^## / { on = 0 } on' "$top/README.md" >"$tmp/section"
	while read -r opt; do
		if grep -q -- "\`$opt" "$tmp/section"; then ok; else bad "README's section on $prog lacks $opt"; fi
	done <"$tmp/opts"
done
expect_status 2 "$check" --format=xml x
expect_in "$tmp/err" "nnef-check: --format must be text, gcc, json or sarif, not 'xml'"
expect_status 2 "$flatten_bin" --format=svg x
expect_in "$tmp/err" "nnef-flatten: --format must be nnef or dot, not 'svg'"
expect_status 2 "$check" -j 1025 x
expect_in "$tmp/err" "nnef-check: --jobs needs a number from 0 to 1024, not '1025'"

# an error inside a fragment, and one inside a standard compound
cat >"$tmp/frag.nnef" <<'EOF2'
version 1.0;
extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;
fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )
{
    s = [1.0, 2.0];
    y = x * s[3];
}
graph G( input ) -> ( output )
{
    input = external(shape = [1]);
    output = f(input);
}
EOF2
cat >"$tmp/stdcomp.nnef" <<'EOF2'
version 1.0;
graph G( input, rois, index ) -> ( output )
{
    input = external(shape = [1, 3, 8, 8]);
    rois = external(shape = [2, 4]);
    index = external<integer>(shape = [2]);
    output = avg_roi_align(input, rois, index, output_size = [2, 2], sampling_rate = [2]);
}
EOF2

# ---- nnef-check --format=json ---------------------------------------------------
bad_doc="$golden/missing_semicolon.nnef"
expect_status 1 "$check" --format=json --shapes "$top/examples/tiny_convnet" "$bad_doc"
expect_json
expect_empty "$tmp/err"
if command -v jq >/dev/null 2>&1; then
	jq -r '.models[] | "\(.path) \(.verdict) \(.errors) \(.diagnostics | length) \(.tensors | length)"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "$top/examples/tiny_convnet valid 0 0 16"
	expect_in "$tmp/jq.out" "$bad_doc invalid 1 1 0"
	jq -r '.models[1].diagnostics[0] | "\(.level) \(.code) \(.file):\(.line):\(.column) \(.message)"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "error E0202 $bad_doc:6:25 expected ';' after assignment"
	jq -r '.models[0].tensors[] | select(.name == "probabilities") | "\(.type) \(.shape)"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" 'scalar [1,10]'
	# --shapes=all: every tensor, the expansions' too
	expect_status 0 "$check" --format=json --shapes=all "$top/examples/tiny_convnet"
	jq -r '.models[0] | "\(.tensors | length) \(.tensors | map(select(.name == "pool1_index")) | length)"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "24 1"
	# notes: the expansion stack of an error inside a fragment (frag.nnef)
	expect_status 1 "$check" --format=json "$tmp/frag.nnef"
	jq -r '.models[0].diagnostics[0] | "\(.code) \(.line):\(.column) \(.notes[0].message) \(.notes[0].line):\(.notes[0].column)"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "E0801 6:15 in expansion of 'f' at $tmp/frag.nnef:11:14 11:14"
	# bytes that are not UTF-8 in a message become U+FFFD
	printf 'version 1.0;\ngraph G( \377 ) -> ( y ) { }\n' >"$tmp/bytes.nnef"
	expect_status 1 "$check" --format=json "$tmp/bytes.nnef"
	expect_json
	# --max-errors: the counts say what was not listed
	expect_status 1 "$check" --format=json --max-errors=1 "$top/testsuite/golden/syntax/many_errors.nnef"
	jq -r '.models[0] | "\(.diagnostics | map(select(.level == "error")) | length) \(.errors_not_shown > 0)"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "1 true"
else
	echo "driver: jq not found; JSON fields not checked"
fi

# ---- nnef-check --format=sarif: the fields SARIF 2.1.0 requires --------------------
expect_status 2 "$check" --format=sarif "$top/examples/tiny_convnet" "$bad_doc" "$tmp/frag.nnef" "$tmp/missing.nnef"
expect_json
if command -v jq >/dev/null 2>&1; then
	# sarifLog: version, runs; run: tool.driver.name; result: message.text;
	# every ruleId a rule of the driver; regions with 1-based positions
	if jq -e '.version == "2.1.0" and (.runs | length) == 1 and (.runs[0].tool.driver.name | type) == "string"
		and all(.runs[0].results[]; (.message.text | type) == "string" and (.ruleId | type) == "string"
			and (.level | IN("error", "warning", "note")))
		and ([.runs[0].results[].ruleId] - [.runs[0].tool.driver.rules[].id] | length) == 0
		and all(.runs[0].results[].locations[].physicalLocation;
			(.artifactLocation.uri | type) == "string" and ((.region // {startLine: 1, startColumn: 1}) | .startLine >= 1 and .startColumn >= 1))' "$tmp/out" >/dev/null; then ok; else bad "SARIF lacks required fields"; fi
	jq -r '.runs[0].results[] | "\(.ruleId) \(.locations[0].physicalLocation.region.startLine // "-")"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "E0202 6"
	expect_in "$tmp/jq.out" "E0801 6"
	expect_in "$tmp/jq.out" "E0001 -"
	jq -r '.runs[0].results[] | select(.ruleId == "E0801") | .relatedLocations[0].message.text' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "in expansion of 'f'"
	# columns count code points ("columnKind": "unicodeCodePoints"): 'nope'
	# is at byte 63 after three two-byte characters, code point 60
	printf "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = pad(x, padding = [(0, 0)], border = '\303\251\303\251\303\251', value = nope);\n}\n" >"$tmp/utf8.nnef"
	expect_status 1 "$check" --format=sarif "$tmp/utf8.nnef"
	jq -r '.runs[0].columnKind as $k | .runs[0].results[] | select(.ruleId == "E0702") | .locations[0].physicalLocation.region | "\($k) \(.startLine):\(.startColumn)-\(.endColumn)"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "unicodeCodePoints 5:60-64"
	# an error inside a standard compound (stdcomp.nnef) is placed at the
	# user's call, the place in stdlib.nnef kept as a related location
	expect_status 1 "$check" --format=sarif "$tmp/stdcomp.nnef"
	jq -r '.runs[0].results[] | select(.ruleId == "E0801") | "\(.locations[0].physicalLocation.artifactLocation.uri | sub(".*/"; "")):\(.locations[0].physicalLocation.region.startLine) \([.relatedLocations[].physicalLocation.artifactLocation.uri] | join(" "))"' "$tmp/out" >"$tmp/jq.out"
	expect_in "$tmp/jq.out" "stdcomp.nnef:7 "
	expect_in "$tmp/jq.out" " stdlib.nnef"
fi

# ---- a bad tensor file: each format names it ----------------------------------------
# (the text in its message, relative to the model; JSON's "file" and
# SARIF's artifact as the graph.nnef beside it is named: model path first)
rm -rf "$tmp/baddat"
cp -R "$top/examples/tiny_convnet" "$tmp/baddat"
printf 'XX' | dd of="$tmp/baddat/conv1/filter.dat" bs=1 conv=notrunc 2>/dev/null
head -c 100 "$top/examples/tiny_convnet/fc/bias.dat" >"$tmp/baddat/fc/bias.dat"
(cd "$tmp" && tar -czf baddat.tgz baddat)
for m in "$tmp/baddat" "$tmp/baddat.tgz"; do
	at=$m
	case $m in *.tgz) at=$m/baddat ;; esac
	expect_status 1 "$check" "$m"
	expect_in "$tmp/err" "nnef-check: error[E1001]: conv1/filter.dat: not an NNEF tensor file: it starts with 0x58 0x58"
	expect_in "$tmp/err" "nnef-check: error[E1001]: fc/bias.dat: 100 bytes, shorter than the 128-byte header"
	if command -v jq >/dev/null 2>&1; then
		expect_status 1 "$check" --format=json "$m"
		jq -r '.models[0].diagnostics[] | "\(.code) \(.file) \(.line)"' "$tmp/out" >"$tmp/jq.out"
		expect_in "$tmp/jq.out" "E1001 $at/conv1/filter.dat null"
		expect_in "$tmp/jq.out" "E1001 $at/fc/bias.dat null"
		expect_status 1 "$check" --format=sarif "$m"
		jq -r '.runs[0].results[] | "\(.ruleId) \(.locations[0].physicalLocation.artifactLocation.uri) \(.locations[0].physicalLocation.region)"' "$tmp/out" >"$tmp/jq.out"
		expect_in "$tmp/jq.out" "E1001 $at/conv1/filter.dat null"
		expect_in "$tmp/jq.out" "E1001 $at/fc/bias.dat null"
	fi
done

# ---- nnef-check --format=gcc: a line per diagnostic, as GCC writes them ---------------
# a place, an expansion stack through the standard library, a hint, a
# downgraded error, a tensor file (named by its path), nothing to name
# (the program), a limit; summaries stay on standard output
cp "$top/testsuite/golden/lenient/extension_commas.nnef" "$tmp/commas.nnef"
printf 'version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2]);\n    y = rleu(x);\n}\n' >"$tmp/rleu.nnef"
(cd "$tmp" && "$check" --format=gcc --color=always --lenient frag.nnef stdcomp.nnef rleu.nnef commas.nnef baddat missing.nnef >gcc.out 2>gcc.err)
gcc_status=$?
if [ "$gcc_status" -eq 2 ]; then ok; else bad "--format=gcc exited $gcc_status, want 2"; fi
cat >"$tmp/gcc.want" <<'EOF2'
frag.nnef:6:15: error: index 3 is out of range for an array of length 2 [E0801]
frag.nnef:11:14: note: in expansion of 'f' at frag.nnef:11:14
stdlib.nnef:433:81: error: index 1 is out of range for an array of length 1 [E0801]
stdcomp.nnef:7:14: note: in expansion of 'avg_roi_align' at stdcomp.nnef:7:14
rleu.nnef:5:9: error: unknown operation 'rleu' [E0601]
rleu.nnef:5:9: note: hint: did you mean 'relu'?
commas.nnef:3:42: warning: extension names are separated by white space, not commas (an error, downgraded to a warning by --lenient) [E0215]
commas.nnef:3:42: note: hint: accepted because of --lenient; without it this is an error
baddat/conv1/filter.dat: error: conv1/filter.dat: not an NNEF tensor file: it starts with 0x58 0x58, not the magic 'N' 0xEF [E1001]
baddat/fc/bias.dat: error: fc/bias.dat: 100 bytes, shorter than the 128-byte header of a tensor file [E1001]
nnef-check: error: cannot read 'missing.nnef': No such file or directory [E0001]
EOF2
expect_same "$tmp/gcc.err" "$tmp/gcc.want"
expect_in "$tmp/gcc.out" "frag.nnef: invalid (1 error)"
expect_in "$tmp/gcc.out" "missing.nnef: unreadable"
expect_status 1 "$check" --format=gcc --max-errors=1 "$top/testsuite/golden/syntax/many_errors.nnef"
expect_in "$tmp/err" "nnef-check: note: 3 more errors not shown (raise the limit with --max-errors)"
if [ "$(grep -c . "$tmp/err")" -eq 2 ]; then ok; else bad "--format=gcc --max-errors=1 printed more than two lines"; fi
expect_status 1 "$check" --format=gcc -q "$tmp/rleu.nnef"
expect_empty "$tmp/out"
expect_in "$tmp/err" "rleu.nnef:5:9: error: unknown operation 'rleu' [E0601]"

# ---- nnef-check -j: the same output, in the order given ----------------------------
set -- "$top/examples/tiny_convnet" "$bad_doc" "$top/examples/residual_block" "$tmp/frag.nnef" "$tmp/missing.nnef" "$golden"/*.nnef
"$check" "$@" >"$tmp/seq.txt" 2>&1
st1=$?
"$check" -j 3 "$@" >"$tmp/par.txt" 2>&1
st3=$?
if [ "$st1" -eq "$st3" ] && [ "$st1" -eq 2 ]; then ok; else bad "-j 3 exits $st3, one at a time $st1"; fi
expect_same "$tmp/seq.txt" "$tmp/par.txt"
# diagnostics come before their model's summary line in one file
if awk -v f="$bad_doc" 'index($0, f ":6:25: error[E0202]") == 1 { d = NR } $0 == f ": invalid (1 error)" { s = NR } END { exit !(d && s && d < s) }' "$tmp/seq.txt"; then ok; else bad "diagnostics and summary out of order"; fi
# -j 0: as many at a time as processors online, the same output
"$check" -j 0 "$@" >"$tmp/par0.txt" 2>&1
st0=$?
if [ "$st0" -eq "$st1" ]; then ok; else bad "-j 0 exits $st0, one at a time $st1"; fi
expect_same "$tmp/seq.txt" "$tmp/par0.txt"
"$check" -j 2 --format=json "$@" >"$tmp/par.json" 2>/dev/null
"$check" --format=json "$@" >"$tmp/seq.json" 2>/dev/null
expect_same "$tmp/seq.json" "$tmp/par.json"

# ---- nnef-flatten --format=dot -------------------------------------------------
expect_status 0 "$flatten_bin" --format=dot "$top/examples/residual_block"
expect_in "$tmp/out" 'digraph "residual_net" {'
expect_in "$tmp/out" "[label=\"output: [1,8,16,16]\"]"
if command -v dot >/dev/null 2>&1; then
	expect_status 0 dot -Tsvg "$tmp/out"
fi
expect_status 2 "$flatten_bin" --format=dot --annotate-shapes "$top/examples/residual_block"
expect_in "$tmp/err" "--annotate-shapes goes with --format=nnef"
expect_status 0 "$flatten_bin" --format=dot -o "$tmp/rb.dot" "$top/examples/residual_block"
expect_in "$tmp/rb.dot" "digraph"
# --fold-weights: the variables are lines of their consumers' labels, no
# node of their own; kept compounds show their arguments
expect_status 0 "$flatten_bin" --format=dot --fold-weights --keep-standard "$top/examples/tiny_convnet"
expect_in "$tmp/out" 'op3 [label="conv\npadding = [(1, 1), (1, 1)]\nstride = [1, 1]\nconv1/filter: [16,3,3,3]\nconv1/bias: [1,16]"];'
expect_in "$tmp/out" 'op5 [label="max_pool\nsize = [1, 1, 2, 2]\nborder = '"'ignore'"'\nstride = [1, 1, 2, 2]", style=rounded];'
expect_in "$tmp/out" 'op14 [label="linear\nfc/weights: [10,32]\nfc/bias: [1,10]", style=rounded];'
expect_not_in "$tmp/out" "cylinder"
if command -v dot >/dev/null 2>&1; then
	cp "$tmp/out" "$tmp/folded.dot"
	expect_status 0 dot -Tsvg "$tmp/folded.dot"
fi
expect_status 2 "$flatten_bin" --fold-weights "$top/examples/tiny_convnet"
expect_in "$tmp/err" "nnef-flatten: --fold-weights goes with --format=dot"

# ---- a full or closed standard output is an error, exit 2 ----------------------------
if [ -w /dev/full ]; then
	for cmd in "nnef-check $top/examples/tiny_convnet" "nnef-check --help" "nnef-flatten $top/examples/tiny_convnet" \
		"nnef-run --random uniform --stats $top/examples/tiny_convnet" "nnef-datinfo $top/examples/tiny_convnet"; do
		set -- $cmd
		prog=$1
		shift
		"$bin/$prog" "$@" >/dev/full 2>"$tmp/err"
		st=$?
		if [ "$st" -eq 2 ]; then ok; else bad "$cmd >/dev/full exited $st, want 2"; fi
		expect_in "$tmp/err" "$prog: cannot write the output: No space left on device"
	done
fi
for cmd in "nnef-flatten" "nnef-check -q --shapes"; do
	set -- $cmd
	prog=$1
	shift
	{ "$bin/$prog" "$@" "$top/examples/residual_block" 2>"$tmp/err"; echo $? >"$tmp/st"; } | head -c 1 >/dev/null
	# a pipe closed before the end: EPIPE, reported (when the output
	# outgrew the pipe's buffer before it closed)
	st=$(cat "$tmp/st")
	if [ "$st" -eq 0 ] || { [ "$st" -eq 2 ] && grep -q "$prog: cannot write the output: Broken pipe" "$tmp/err"; }; then ok; else bad "$cmd | head exited $st: $(cat "$tmp/err")"; fi
done
bigdoc="$tmp/big.nnef"
awk 'BEGIN { print "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);"; for (i = 0; i < 20000; i++) printf "    t%d = neg(%s);\n", i, i ? "t" (i - 1) : "x"; print "    y = copy(t19999);\n}" }' >"$bigdoc"
{ "$bin/nnef-flatten" "$bigdoc" 2>"$tmp/err"; echo $? >"$tmp/st"; } | head -c 10 >/dev/null
if [ "$(cat "$tmp/st")" -eq 2 ]; then ok; else bad "nnef-flatten | head exited $(cat "$tmp/st"), want 2"; fi
expect_in "$tmp/err" "nnef-flatten: cannot write the output: Broken pipe"

# ---- writing through a symbolic link updates its target ---------------------------
mkdir "$tmp/linkdir"
: >"$tmp/linkdir/real.nnef"
ln -s real.nnef "$tmp/linkdir/link.nnef"
expect_status 0 "$flatten_bin" -o "$tmp/linkdir/link.nnef" "$top/examples/residual_block"
if [ -L "$tmp/linkdir/link.nnef" ] && grep -q "graph residual_net" "$tmp/linkdir/real.nnef"; then ok; else bad "-o through a link replaced the link"; fi
ln -s "$tmp/linkdir/new.nnef" "$tmp/dangling.nnef"
expect_status 0 "$flatten_bin" -o "$tmp/dangling.nnef" "$top/examples/residual_block"
if [ -L "$tmp/dangling.nnef" ] && [ -s "$tmp/linkdir/new.nnef" ]; then ok; else bad "-o through a dangling link did not make its target"; fi
# on an error the file is left as it was
cp "$tmp/linkdir/real.nnef" "$tmp/before.nnef"
expect_status 1 "$flatten_bin" -o "$tmp/linkdir/link.nnef" "$golden/missing_semicolon.nnef"
expect_same "$tmp/before.nnef" "$tmp/linkdir/real.nnef"

# ---- output files get the mode a redirection would give ----------------------------
(umask 027 && "$flatten_bin" -o "$tmp/mode.nnef" "$top/examples/residual_block")
if [ "$(stat -c %a "$tmp/mode.nnef")" = 640 ]; then ok; else bad "nnef-flatten -o under umask 027 made mode $(stat -c %a "$tmp/mode.nnef")"; fi
chmod 604 "$tmp/mode.nnef"
(umask 077 && "$flatten_bin" -o "$tmp/mode.nnef" "$top/examples/residual_block")
if [ "$(stat -c %a "$tmp/mode.nnef")" = 604 ]; then ok; else bad "rewriting a file changed its mode to $(stat -c %a "$tmp/mode.nnef")"; fi
(umask 022 && "$bin/nnef-run" --random uniform --output-dir "$tmp/modeout" "$top/examples/residual_block")
if [ "$(stat -c %a "$tmp/modeout/output.dat")" = 644 ]; then ok; else bad "nnef-run wrote mode $(stat -c %a "$tmp/modeout/output.dat")"; fi

# ---- nnef-check: every corpus document ---------------------------------
corpus=${NNEF_CORPUS:-}
if [ -n "$corpus" ] && [ -d "$corpus" ]; then
	n=0
	for d in "$corpus"/openvx-cts-nnef/*/ "$corpus"/nnef-tools-examples/*.nnef; do
		"$check" -q "$d" >"$tmp/out" 2>"$tmp/err"
		st=$?
		if [ "$st" -eq 0 ] && [ ! -s "$tmp/err" ] && [ ! -s "$tmp/out" ]; then ok; else
			bad "corpus $d: exit $st"
			head -5 "$tmp/err"
		fi
		"$flatten" -q "$d" >"$tmp/c1.nnef" 2>"$tmp/err" &&
			"$flatten" -q "$tmp/c1.nnef" >"$tmp/c2.nnef" 2>>"$tmp/err"
		st=$?
		if [ "$st" -eq 0 ] && cmp -s "$tmp/c1.nnef" "$tmp/c2.nnef"; then ok; else
			bad "corpus $d: nnef-flatten exit $st or not a fixed point"
			head -5 "$tmp/err"
		fi
		n=$((n + 1))
	done
	if [ "$n" -ge 78 ]; then ok; else bad "only $n corpus documents found"; fi
	# every conformance case also as a .tar, a .tgz, and a .tgz whose
	# members sit in one top folder (spec 5.1: the same container)
	mkdir -p "$tmp/packed"
	n=0
	for d in "$corpus"/openvx-cts-nnef/*/; do
		name=$(basename "$d")
		tar -C "$d" -cf "$tmp/packed/$name.tar" . &&
			tar -C "$d" -czf "$tmp/packed/$name.tgz" . &&
			tar -C "$d/.." -czf "$tmp/packed/${name}_top.tgz" "$name" ||
			bad "cannot pack $d"
		for a in "$tmp/packed/$name.tar" "$tmp/packed/$name.tgz" "$tmp/packed/${name}_top.tgz"; do
			"$check" -q "$a" >"$tmp/out" 2>"$tmp/err"
			st=$?
			if [ "$st" -eq 0 ] && [ ! -s "$tmp/err" ] && [ ! -s "$tmp/out" ]; then ok; else
				bad "corpus $a: exit $st"
				head -5 "$tmp/err"
			fi
		done
		rm -f "$tmp/packed/$name.tar" "$tmp/packed/$name.tgz" "$tmp/packed/${name}_top.tgz"
		n=$((n + 1))
	done
	if [ "$n" -ge 74 ]; then ok; else bad "only $n conformance cases packed"; fi
	# tract's test models (tract-harness/, nnef-tract(7)): valid in tract's
	# dialect, every tensor of a known shape and datum type, flattened to a
	# fixed point
	n=0
	for d in $(find "$corpus/tract-harness" -name graph.nnef -o -name '*.nnef.tgz' | sort); do
		case $d in */graph.nnef) d=$(dirname "$d") ;; esac
		"$check" --dialect=tract -q --shapes=all "$d" >"$tmp/out" 2>"$tmp/err"
		st=$?
		if [ "$st" -eq 0 ] && ! grep -q ' error\[' "$tmp/err"; then ok; else
			bad "tract corpus $d: exit $st"
			head -5 "$tmp/err"
		fi
		if grep -v -E '^[^ ]+: (bool|[uif](8|16|32|64)|tdim|string)\[[^]?]*\]$' "$tmp/out" | grep -q .; then
			bad "tract corpus $d: a tensor without a known shape or datum type"
			grep -v -E '^[^ ]+: (bool|[uif](8|16|32|64)|tdim|string)\[[^]?]*\]$' "$tmp/out" | head -3
		else ok; fi
		"$flatten" --dialect=tract -q "$d" >"$tmp/c1.nnef" 2>"$tmp/err" &&
			"$flatten" --dialect=tract -q "$tmp/c1.nnef" >"$tmp/c2.nnef" 2>>"$tmp/err"
		st=$?
		if [ "$st" -eq 0 ] && cmp -s "$tmp/c1.nnef" "$tmp/c2.nnef"; then ok; else
			bad "tract corpus $d: nnef-flatten --dialect=tract exit $st or not a fixed point"
			head -5 "$tmp/err"
		fi
		n=$((n + 1))
	done
	if [ "$n" -eq 36 ]; then ok; else bad "$n tract-harness cases found, not 36"; fi
else
	corpus_missing "$corpus"
fi

corpus_summary driver.sh
echo "driver: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
