# lib.sh - what the end-to-end test scripts share (sourced, with $tmp
# set): counting passes and failures, running a command and checking its
# status, its output and its error stream.

pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

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
