#!/bin/sh
# diagdoc.sh - tests of the manual pages nnef-diagnostics(7) and
# nnef-dat(5): every code of util/diag_codes.def has its entry in
# nnef-diagnostics(7) (".SS CODE \(em SUMMARY", the summary as in the
# table) and no entry names a code the table lacks; every runnable example
# of an entry, un-escaped from roff, produces the entry's code; few entries
# go without one; and mandoc finds nothing to say about either page.
#
# A runnable example is an .EX/.EE block of an entry:
#   - a document: its first line starts with "version "; the block is
#     written to graph.nnef in an empty folder and checked with nnef-check;
#   - commands: its lines starting with "$ " are shell commands, and those
#     starting with "> " continue them (the body of a here-document); they
#     run in order in an empty folder with BINDIR first on PATH (other
#     lines would be output shown to the reader, and are not run).
# The output (standard output and error together) must hold "[CODE]".
#
# Usage: sh testsuite/tools/diagdoc.sh BINDIR
set -u

bin=${1:?usage: diagdoc.sh BINDIR}
bin=$(cd "$bin" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
page7="$top/man/man7/nnef-diagnostics.7"
page5="$top/man/man5/nnef-dat.5"
table="$top/util/diag_codes.def"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/lib.sh"

# The entries allowed to go without a runnable example, two: E1308 (a
# model that is not valid, asked to run) comes only from the library,
# when a program calls nnef_runner_new with an invalid model; the tools
# never do. E0008 (out of memory) needs the system to refuse memory:
# driver.sh provokes it under ulimit -v (which sanitized builds cannot
# run under) and the unit suite oom fails every allocation in turn. E1312
# (a run interrupted) comes only from nnef_runner_interrupt, which no tool
# calls: the Python module does on Ctrl-C (testsuite/python). Every other code can be produced from outside, if sometimes
# through an option (E0006: --max-members), another program (E0808:
# nnef-flatten --keep; E13xx: nnef-run) or a size no machine has (E1305:
# the memory a graph needs is compared with the machine's before anything
# is allocated). Raise this only with a reason written here.
max_unrunnable=3

# ---- the table and the entries -------------------------------------------------
sed -n 's/^DIAG_CODE(\([A-Z][0-9]*\), *[A-Z]*, *"\(.*\)")$/\1 \2/p' "$table" >"$tmp/table"
if [ -s "$tmp/table" ]; then ok; else bad "no codes read from $table"; fi

# The awk program writes $tmp/entries ("CODE SUMMARY" per .SS entry,
# un-escaped), $tmp/ex/N.doc or $tmp/ex/N.sh for each runnable example,
# with N.code holding its entry's code, and $tmp/runnable (the codes of the
# entries with at least one runnable example).
mkdir "$tmp/ex"
awk -v dir="$tmp" '
# rep(s, from, to): s with every "from" replaced by "to", literally.
function rep(s, from, to,   out, i) {
	out = ""
	while ((i = index(s, from)) > 0) {
		out = out substr(s, 1, i - 1) to
		s = substr(s, i + length(from))
	}
	return out s
}
# The few roff escapes the pages use, back to the characters they stand for.
function unroff(s) {
	s = rep(s, "\\e", "\001")
	s = rep(s, "\\(rs", "\001")
	s = rep(s, "\\&", "")
	s = rep(s, "\\-", "-")
	s = rep(s, "\\(aq", "\047")
	s = rep(s, "\\(dq", "\"")
	s = rep(s, "\\(ga", "`")
	s = rep(s, "\\(ti", "~")
	s = rep(s, "\\(ha", "^")
	s = rep(s, "\\(em", "--")
	return rep(s, "\001", "\\")
}
function finish(   kind, f) {
	if (nlines == 0 || code == "")
		return
	if (block[1] ~ /^version /)
		kind = "doc"
	else if (block[1] ~ /^\$ /)
		kind = "sh"
	else
		return
	n++
	f = dir "/ex/" n
	print code >(f ".code")
	close(f ".code")
	for (i = 1; i <= nlines; i++) {
		if (kind == "doc")
			print block[i] >(f ".doc")
		else if (block[i] ~ /^[$>] / || block[i] == ">")
			print substr(block[i], 3) >(f ".sh")
	}
	close(f "." kind)
	if (!(code in seen)) {
		seen[code] = 1
		print code >(dir "/runnable")
	}
}
/^\.SH / { code = "" }
/^\.SS / {
	code = ""
	if (match($0, /^\.SS [A-Z][0-9][0-9][0-9][0-9] \\\(em /)) {
		code = substr($0, 5, 5)
		print code, unroff(substr($0, RLENGTH + 1)) >(dir "/entries")
	}
	next
}
/^\.EX/ { inex = 1; nlines = 0; next }
/^\.EE/ { inex = 0; finish(); next }
inex { block[++nlines] = unroff($0) }
END { close(dir "/entries"); close(dir "/runnable") }
' "$page7"
touch "$tmp/entries" "$tmp/runnable"

# every code of the table has one entry with its summary, and no entry
# names a code the table lacks (one line per problem from awk)
awk '
NR == FNR {
	code = $1
	sub(/^[^ ]* /, "")
	want[code] = $0
	order[++n] = code
	next
}
{
	code = $1
	sub(/^[^ ]* /, "")
	count[code]++
	got[code] = $0
	if (!(code in want))
		print code ": nnef-diagnostics.7 has an entry for it, but util/diag_codes.def has no such code"
}
END {
	for (i = 1; i <= n; i++) {
		c = order[i]
		if (count[c] + 0 != 1)
			print c ": " count[c] + 0 " entries in nnef-diagnostics.7, want 1"
		else if (got[c] != want[c])
			print c ": the entry says \"" got[c] "\", the table \"" want[c] "\""
	}
}' "$tmp/table" "$tmp/entries" >"$tmp/problems"
if [ -s "$tmp/problems" ]; then
	while IFS= read -r line; do bad "$line"; done <"$tmp/problems"
else ok; fi

# ---- the examples --------------------------------------------------------------
# Each example runs in its own folder, four at a time; then the outputs
# are checked in order.
if command -v timeout >/dev/null 2>&1; then to="timeout 30"; else to=; fi

# run_example BASE: runs the example BASE.doc or BASE.sh in BASE.run/,
# its output in BASE.out.
run_example() {
	mkdir "$1.run"
	if [ -e "$1.doc" ]; then
		cp "$1.doc" "$1.run/graph.nnef"
		(cd "$1.run" && $to "$bin/nnef-check" graph.nnef) >"$1.out" 2>&1
	else
		(cd "$1.run" && PATH="$bin:$PATH" $to sh "$1.sh") >"$1.out" 2>&1
	fi
}

jobs=0
for f in "$tmp"/ex/*.code; do
	[ -e "$f" ] || continue
	run_example "${f%.code}" &
	jobs=$((jobs + 1))
	if [ "$jobs" -ge 4 ]; then
		wait
		jobs=0
	fi
done
wait

for f in "$tmp"/ex/*.code; do
	[ -e "$f" ] || continue
	base=${f%.code}
	code=$(cat "$f")
	if [ -e "$base.doc" ]; then what="the document of $code"; else what="the commands of $code"; fi
	if grep -qF -- "[$code]" "$base.out"; then ok; else
		bad "$what: no [$code] in the output:"
		sed 's/^/  out: /' "$base.out" | head -6
	fi
	if grep -q 'Sanitizer\|runtime error:' "$base.out"; then
		bad "$what: sanitizer report"
	fi
done

# few entries without a runnable example
total=$(wc -l <"$tmp/entries")
runnable=$(wc -l <"$tmp/runnable")
without=$((total - runnable))
if [ "$without" -le "$max_unrunnable" ]; then ok; else
	bad "$without entries without a runnable example, at most $max_unrunnable allowed:"
	awk 'NR == FNR { r[$1] = 1; next } !($1 in r) { print "  " $1 }' "$tmp/runnable" "$tmp/entries"
fi
echo "diagdoc: $runnable of $total entries have runnable examples"

# ---- escapes -------------------------------------------------------------------
# A backslash for the reader is roff's \e: a bare \n is roff's register
# interpolation, and printf 'version 1.0;\ngraph...' rendered as
# "version 1.0;0raph" (the examples above still ran: un-escaping keeps it).
for p in "$page7" "$page5" "$top/man/man7/nnef-tract.7"; do
	awk '{ s = $0; gsub(/\\e/, "", s); gsub(/\\\\/, "", s) } index(s, "\\n") { print FILENAME ":" FNR ": " $0 }' "$p" >"$tmp/esc"
	if [ -s "$tmp/esc" ]; then
		bad "$(basename "$p") has a bare backslash-n (roff's register interpolation; a backslash for the reader is \\e):"
		sed 's/^/  /' "$tmp/esc" | head -5
	else ok; fi
done

# ---- mandoc --------------------------------------------------------------------
if command -v mandoc >/dev/null 2>&1; then
	for p in "$page7" "$page5"; do
		mandoc -T lint -W warning "$p" >"$tmp/lint" 2>&1
		if [ -s "$tmp/lint" ]; then
			bad "mandoc -T lint finds problems in $(basename "$p"):"
			sed 's/^/  /' "$tmp/lint" | head -10
		else ok; fi
	done
else
	echo "diagdoc: mandoc is not installed; the lint of the pages is skipped"
fi

echo "diagdoc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
