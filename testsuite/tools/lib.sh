# lib.sh - what the end-to-end test scripts share (sourced, with $tmp
# set): counting passes and failures, running a command and checking its
# status, its output and its error stream.

pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# A group of tests that reads the corpus ($corpus, from NNEF_CORPUS) and
# did not find what it needs calls corpus_missing PATH: a failure when
# NNEF_REQUIRE_CORPUS is set (CI sets it), else counted; corpus_summary
# NAME then says once, on stderr, how many groups did not run.
corpus_skipped=0
corpus_first_missing=
corpus_missing() {
	if [ -n "${NNEF_REQUIRE_CORPUS:-}" ]; then
		bad "corpus: '$1' not found (NNEF_REQUIRE_CORPUS is set)"
		return
	fi
	corpus_skipped=$((corpus_skipped + 1))
	[ -n "$corpus_first_missing" ] || corpus_first_missing=$1
}
corpus_summary() {
	[ "$corpus_skipped" -eq 0 ] && return
	if [ -z "${corpus:-}" ]; then
		where="corpus not found (NNEF_CORPUS unset)"
	elif [ ! -d "$corpus" ]; then
		where="corpus not found at $corpus (set NNEF_CORPUS)"
	else
		where="corpus at $corpus lacks $corpus_first_missing"
	fi
	groups=groups
	[ "$corpus_skipped" -eq 1 ] && groups=group
	echo "SKIP: $where: $corpus_skipped $groups of corpus tests of $1 not run" >&2
}

# expect_status WANT CMD...: runs CMD with stdout/stderr in $tmp/out,
# $tmp/err and checks the exit status.
expect_status() {
	want=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else
		bad "'$*' exited $got, want $want"
		sed 's/^/  stderr: /' "$tmp/err" | head -5
	fi
	# a sanitizer's report (an ASan build) is a failure whatever the status
	if grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then
		bad "'$*': sanitizer report"
		grep -m 3 'Sanitizer\|runtime error:' "$tmp/err"
	fi
}

# expect_in FILE TEXT: FILE contains TEXT (fixed string).
expect_in() {
	if grep -qF -- "$2" "$1"; then ok; else bad "$(basename "$1") lacks '$2'"; fi
}

expect_not_in() {
	if grep -qF -- "$2" "$1"; then bad "$(basename "$1") has '$2'"; else ok; fi
}

expect_empty() {
	if [ -s "$1" ]; then bad "$(basename "$1") is not empty"; else ok; fi
}

# expect_row FIELDS...: $tmp/out has a line whose fields (split on
# blanks) are exactly FIELDS.
expect_row() {
	want="$*"
	if awk -v want="$want" '{ $1 = $1 } $0 == want { found = 1 } END { exit !found }' "$tmp/out"; then ok; else
		bad "no row '$want' in:"
		sed 's/^/  out: /' "$tmp/out" | head -8
	fi
}

# expect_no_tmp DIR: no temporary file (*.tmp*) left under DIR.
expect_no_tmp() {
	if [ -z "$(find "$1" -name '*.tmp*' | head -1)" ]; then ok; else bad "temporary files left in $1: $(find "$1" -name '*.tmp*' | head -3)"; fi
}

# expect_same A B: files A and B are byte for byte the same.
expect_same() {
	if cmp -s "$1" "$2"; then ok; else bad "$1 and $2 differ"; fi
}

# expect_json: $tmp/out is one valid JSON document (jq, or python3, says
# so; with neither, the check is skipped with a note).
expect_json() {
	if command -v jq >/dev/null 2>&1; then
		if jq -e . "$tmp/out" >/dev/null 2>"$tmp/jsonerr"; then ok; else bad "invalid JSON: $(head -1 "$tmp/jsonerr")"; fi
	elif command -v python3 >/dev/null 2>&1; then
		if python3 -m json.tool "$tmp/out" >/dev/null 2>"$tmp/jsonerr"; then ok; else bad "invalid JSON: $(head -1 "$tmp/jsonerr")"; fi
	else
		echo "note: neither jq nor python3: JSON not validated"
	fi
}

# ---- writing tensor files ----------------------------------------------------
# bytes N...: each N (0 to 255) as one byte.
bytes() {
	for b in "$@"; do
		printf "\\$(printf %03o "$b")"
	done
}

# le32 N: N as 4 bytes, little-endian.
le32() {
	bytes $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255))
}

# header LENGTH BITS CODE RANK EXTENT...: a 128-byte header (codes: 0
# float, 1 unsigned, 2 and 3 quantized, 4 signed, 5 bool); the 4-byte
# parameters in $params (none by default).
params=
header() {
	len=$1 bits=$2 code=$3 rank=$4
	shift 4
	bytes 78 239 1 0
	le32 "$len"
	le32 "$rank"
	i=0
	for e in "$@"; do le32 "$e"; i=$((i + 1)); done
	while [ "$i" -lt 8 ]; do le32 0; i=$((i + 1)); done
	le32 "$bits"
	le32 "$code"
	n=0
	for p in $params; do le32 "$p"; n=$((n + 4)); done
	head -c $((76 - n)) /dev/zero
}

# npyhead DESCR SHAPE [VERSION]: the header of a NumPy .npy as numpy.save
# writes it (SHAPE a Python tuple, "(2, 3)"), padded so that the data
# begins at a multiple of 64 bytes; the data follows it.
npyhead() {
	text="{'descr': '$1', 'fortran_order': False, 'shape': $2, }"
	pre=10
	[ "${3:-1}" -gt 1 ] && pre=12
	pad=$(( (64 - (pre + ${#text} + 1) % 64) % 64 ))
	len=$(( ${#text} + pad + 1 ))
	bytes 147 78 85 77 80 89 "${3:-1}" 0 $((len & 255)) $((len >> 8 & 255))
	[ "$pre" -eq 12 ] && bytes 0 0
	printf '%s%*s\n' "$text" "$pad" ""
}
