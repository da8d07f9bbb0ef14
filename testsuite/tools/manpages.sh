#!/bin/sh
# manpages.sh - tests of the manual pages under man/ against the programs:
#   - mandoc finds nothing to say about any page (-T lint -W warning);
#   - the long options each program's --help lists are exactly those the
#     OPTIONS section of its page documents (the line after each .TP);
#   - every page of man1 has the sections a program's page needs, and
#     every SEE ALSO reference to a page of ours (nnef-*(1), nnef(3),
#     nnef-dat(5), nnef-diagnostics(7)) names a page that exists;
#   - the EXAMPLES of the man1 pages run: in a folder holding a copy of
#     examples/, each .EX/.EE line starting with "$ " (un-escaped from
#     roff) runs with sh -c, BINDIR first on PATH, and must exit 0, or N
#     when the line ends with "# exits N" (other lines are sample output);
#   - every function declared in api/nnef.h has its prototype in nnef(3);
#   - the example program of nnef(3) compiles against BINDIR/../libnnef.a
#     and prints the output shape of examples/tiny_convnet (skipped with a
#     note without a C compiler or that library).
# Usage: sh testsuite/tools/manpages.sh BINDIR [CFLAGS...]   (CFLAGS: the
# sanitizer flags the library was built with, to link the nnef(3) example)
set -u

bin=${1:?usage: manpages.sh BINDIR [CFLAGS...]}
bin=$(cd "$bin" && pwd)
shift
cflags="$*"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/lib.sh"

programs="nnef-check nnef-flatten nnef-run nnef-datinfo"
sections="NAME|SYNOPSIS|DESCRIPTION|OPTIONS|EXIT STATUS|EXAMPLES|FILES|SEE ALSO"

# A command of an example gets a minute at most, when timeout(1) exists.
limit=
if command -v timeout >/dev/null 2>&1; then limit="timeout 60"; fi

# section PAGE TITLE: the lines of section TITLE of PAGE (after its .SH,
# up to the next .SH).
section() {
	awk -v want="$2" '
		/^\.SH([ \t]|$)/ {
			t = $0
			sub(/^\.SH[ \t]*/, "", t)
			gsub(/"/, "", t)
			on = t == want
			next
		}
		on' "$1"
}

# unroff: standard input with the roff escapes the examples use replaced
# by the characters they stand for: \e, \-, \& and \(aq (others kept).
unroff() {
	awk '{
		out = ""
		s = $0
		while ((i = index(s, "\\")) > 0) {
			out = out substr(s, 1, i - 1)
			rest = substr(s, i + 1)
			if (substr(rest, 1, 1) == "e") { out = out "\\"; s = substr(rest, 2) }
			else if (substr(rest, 1, 1) == "-") { out = out "-"; s = substr(rest, 2) }
			else if (substr(rest, 1, 1) == "&") { s = substr(rest, 2) }
			else if (substr(rest, 1, 3) == "(aq") { out = out "\047"; s = substr(rest, 4) }
			else { out = out "\\"; s = rest }
		}
		print out s
	}'
}

# ---- mandoc lint ---------------------------------------------------------------
npages=0
for page in "$top"/man/man*/*.[1-9]; do
	[ -f "$page" ] && npages=$((npages + 1))
done
if [ "$npages" -ge 5 ]; then ok; else bad "only $npages manual pages under man/"; fi
if command -v mandoc >/dev/null 2>&1; then
	for page in "$top"/man/man*/*.[1-9]; do
		[ -f "$page" ] || continue
		mandoc -T lint -W warning "$page" >"$tmp/lint" 2>&1
		if [ -s "$tmp/lint" ]; then
			bad "mandoc -T lint -W warning ${page#"$top"/}:"
			sed 's/^/  /' "$tmp/lint" | head -8
		else
			ok
		fi
	done
else
	echo "manpages: mandoc not found; pages not linted"
fi
# tables fit in the 78 columns man sets text in on an 80-column terminal:
# a row's cells, 3 columns apart, after the page's indent of 7 and 7 more
# for each .RS around the table (roff's escapes counted as the one
# character they print); a table cannot wrap as running text does
for page in "$top"/man/man*/*.[1-9]; do
	[ -f "$page" ] || continue
	awk '/^\.RS/ { d++ } /^\.RE/ { d-- }
	     /^\.TS/ { t = 1; fmt = 1; next } /^\.TE/ { t = 0; next }
	     t && fmt { if ($0 ~ /\.$/) fmt = 0; next }
	     t { s = $0; gsub(/\\\([a-z][a-z]/, "x", s); gsub(/\\[-e&]/, "x", s)
		 n = split(s, c, "\t"); w = 7 + 7 * d + 3 * (n - 1)
		 for (i = 1; i <= n; i++) w += length(c[i])
		 if (w > 78) print FILENAME ":" FNR ": " w " columns" }' "$page" >"$tmp/wide"
	if [ -s "$tmp/wide" ]; then
		bad "a table row of ${page#"$top"/} is wider than 78 columns:"
		sed 's/^/  /' "$tmp/wide" | head -4
	else
		ok
	fi
done

# ---- options: --help against OPTIONS -----------------------------------------------
for prog in $programs; do
	page="$top/man/man1/$prog.1"
	if [ ! -f "$page" ]; then
		bad "$prog: no page man/man1/$prog.1"
		continue
	fi
	"$bin/$prog" --help >"$tmp/help" 2>&1 || bad "$prog --help exited non-zero"
	sed -n -e 's/^  -[A-Za-z0-9], --\([a-z0-9][a-z0-9-]*\).*/--\1/p' \
		-e 's/^      --\([a-z0-9][a-z0-9-]*\).*/--\1/p' "$tmp/help" |
		sort -u >"$tmp/helped"
	section "$page" OPTIONS | awk 'tp { print; tp = 0; next } /^\.TP/ { tp = 1 }' |
		sed 's/\\-/-/g' | grep -o -e '--[a-z0-9][a-z0-9-]*' | sort -u >"$tmp/documented"
	if [ -s "$tmp/helped" ]; then ok; else bad "$prog --help lists no option"; fi
	missing=$(comm -23 "$tmp/helped" "$tmp/documented" | tr '\n' ' ')
	extra=$(comm -13 "$tmp/helped" "$tmp/documented" | tr '\n' ' ')
	if [ -z "$missing" ]; then ok; else bad "$prog.1: options of --help not documented under OPTIONS: $missing"; fi
	if [ -z "$extra" ]; then ok; else bad "$prog.1: options documented under OPTIONS that --help does not list: $extra"; fi
	# the short forms too
	sed -n 's/^  \(-[A-Za-z0-9]\), --.*/\1/p' "$tmp/help" | sort -u >"$tmp/helped_short"
	section "$page" OPTIONS | awk 'tp { print; tp = 0; next } /^\.TP/ { tp = 1 }' |
		sed 's/\\-/-/g' | grep -o -E '(^| )-[A-Za-z0-9]([ ",]|$)' | tr -d ' ",' | sort -u >"$tmp/documented_short"
	if cmp -s "$tmp/helped_short" "$tmp/documented_short"; then ok; else bad "$prog.1: short options differ from --help: $(tr '\n' ' ' <"$tmp/helped_short")against $(tr '\n' ' ' <"$tmp/documented_short")"; fi
done

# ---- sections and references -------------------------------------------------------------
for page in "$top"/man/man1/*.1; do
	[ -f "$page" ] || continue
	name=${page#"$top"/}
	sed -n 's/^\.SH[ \t]*//p' "$page" | tr -d '"' >"$tmp/titles"
	echo "$sections" | tr '|' '\n' >"$tmp/wanted"
	while IFS= read -r s; do
		if grep -qx "$s" "$tmp/titles"; then ok; else bad "$name: no section $s"; fi
	done <"$tmp/wanted"
done
for page in "$top"/man/man*/*.[1-9]; do
	[ -f "$page" ] || continue
	name=${page#"$top"/}
	section "$page" "SEE ALSO" | sed 's/\\-/-/g' |
		sed -n 's/^\.[BI]R[ \t][ \t]*\([A-Za-z0-9_.-]*\)[ \t][ \t]*(\([1-9]\)).*/\1 \2/p' >"$tmp/refs"
	while read -r ref sec; do
		case $ref in
		nnef | nnef-*)
			if [ -f "$top/man/man$sec/$ref.$sec" ]; then ok; else bad "$name: SEE ALSO names $ref($sec), but there is no man/man$sec/$ref.$sec"; fi
			;;
		esac
	done <"$tmp/refs"
done

# ---- examples of the man1 pages -----------------------------------------------------------
for page in "$top"/man/man1/*.1; do
	[ -f "$page" ] || continue
	name=${page#"$top"/}
	section "$page" EXAMPLES | awk '/^\.EX/ { on = 1; next } /^\.EE/ { on = 0 } on' |
		sed -n 's/^\$ //p' | unroff >"$tmp/commands"
	n=$(wc -l <"$tmp/commands")
	if [ "$n" -ge 3 ]; then ok; else bad "$name: only $n example commands"; fi
	dir="$tmp/run"
	rm -rf "$dir"
	mkdir "$dir"
	cp -R "$top/examples" "$dir/"
	while IFS= read -r cmd; do
		want=$(printf '%s\n' "$cmd" | sed -n 's/.*#[ \t]*exits[ \t][ \t]*\([0-9][0-9]*\)[ \t]*$/\1/p')
		want=${want:-0}
		(cd "$dir" && PATH="$bin:$PATH" $limit sh -c "$cmd") </dev/null >"$tmp/out" 2>"$tmp/err"
		got=$?
		if [ "$got" -eq "$want" ]; then ok; else
			bad "$name: '$cmd' exited $got, want $want"
			sed 's/^/  stderr: /' "$tmp/err" | head -5
		fi
		if grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then
			bad "$name: '$cmd': sanitizer report"
			grep -m 3 'Sanitizer\|runtime error:' "$tmp/err"
		fi
	done <"$tmp/commands"
done

# ---- the examples of nnef-dat(5) -------------------------------------------------------------
# The od dump of its first example is what nnef-run writes for that tensor,
# byte for byte; its command lists the headers of a model.
page5="$top/man/man5/nnef-dat.5"
section "$page5" EXAMPLES | awk '/^\.EX/ { n++; next } /^\.EE/ { if (n == 1) exit } n == 1' | unroff >"$tmp/dump_doc"
mkdir -p "$tmp/dat5/model" "$tmp/dat5/out"
printf 'version 1.0;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [2, 2]);\n    c = constant(shape = [2, 2], value = [1.0, 2.0, 0.5, -1.0]);\n    y = mul(x, c);\n}\n' >"$tmp/dat5/model/graph.nnef"
expect_status 0 "$bin/nnef-run" "$tmp/dat5/model" --random uniform --output-dir "$tmp/dat5/out" --dump-all
if command -v od >/dev/null 2>&1 && [ -f "$tmp/dat5/out/c.dat" ]; then
	od -A d -t x1 "$tmp/dat5/out/c.dat" | sed 's/  */ /g; s/ $//' >"$tmp/dump_real"
	sed 's/  */ /g; s/ $//' "$tmp/dump_doc" >"$tmp/dump_doc2"
	if cmp -s "$tmp/dump_doc2" "$tmp/dump_real"; then ok; else
		bad "nnef-dat(5): the od dump differs from what nnef-run writes"
		diff "$tmp/dump_doc2" "$tmp/dump_real" | head -6
	fi
else
	bad "nnef-dat(5): no od, or nnef-run wrote no c.dat"
fi
section "$page5" EXAMPLES | awk '/^\.EX/ { n++; next } /^\.EE/ { on = 0 } n == 2' | sed -n 's/^\$ //p' | unroff >"$tmp/dat5_cmd"
if grep -q 'nnef-datinfo --stats model/' "$tmp/dat5_cmd"; then
	cp "$tmp/dat5/out/c.dat" "$tmp/dat5/model/c.dat"
	expect_status 0 sh -c "cd '$tmp/dat5' && PATH='$bin:$PATH' $(cat "$tmp/dat5_cmd")"
	expect_in "$tmp/out" "c      float32    32  [2,2]"
else
	bad "nnef-dat(5): its second example is not 'nnef-datinfo --stats model/'"
fi

# ---- every function of nnef.h in nnef(3) ----------------------------------------------------
# The names are read from the header now (a line declaring one starts with
# its type and has the name just before the first '('); each must have its
# prototype on a .B or .BI line of the page.
sed -n 's/^[A-Za-z_][^(]*[ *]\(nnef_[A-Za-z0-9_]*\)(.*/\1/p' "$top/api/nnef.h" | sort -u >"$tmp/declared"
if [ "$(wc -l <"$tmp/declared")" -gt 50 ]; then ok; else bad "found only $(wc -l <"$tmp/declared") functions in api/nnef.h"; fi
grep -E '^\.BI? ' "$top/man/man3/nnef.3" | grep -o 'nnef_[A-Za-z0-9_]*(' | tr -d '(' | sort -u >"$tmp/described"
undocumented=$(comm -23 "$tmp/declared" "$tmp/described" | tr '\n' ' ')
if [ -z "$undocumented" ]; then ok; else bad "nnef.3 does not describe these functions of nnef.h: $undocumented"; fi

# ---- the example program of nnef(3) ---------------------------------------------------------
page3="$top/man/man3/nnef.3"
lib="$bin/../libnnef.a"
if [ ! -f "$page3" ]; then
	bad "no page man/man3/nnef.3"
elif ! command -v cc >/dev/null 2>&1 || [ ! -f "$lib" ]; then
	echo "manpages: no cc or no $lib; the program of nnef(3) not compiled"
else
	section "$page3" EXAMPLES | awk '/^\.EX/ { n++; next } /^\.EE/ { if (n == 1) exit } n == 1' |
		unroff >"$tmp/outputs.c"
	blas=$(pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
	# shellcheck disable=SC2086
	if cc -std=c11 -Wall -Wextra -Werror $cflags -I"$top/api" -o "$tmp/outputs" "$tmp/outputs.c" \
		"$lib" $blas -ltar -lz -lm -pthread 2>"$tmp/cc"; then
		ok
		expect_status 0 "$tmp/outputs" "$top/examples/tiny_convnet"
		expect_in "$tmp/out" "probabilities: 1 10"
		printf 'version 1.0;\ngraph g( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = relu(x)\n}\n' >"$tmp/broken.nnef"
		expect_status 1 "$tmp/outputs" "$tmp/broken.nnef"
		expect_in "$tmp/err" "error[E0202]"
	else
		bad "the program of nnef(3) does not compile:"
		sed 's/^/  /' "$tmp/cc" | head -8
	fi
fi

echo "manpages: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
