#!/bin/sh
# layers.sh - the structure of libnnef (ARCHITECTURE): each module's
# external symbols carry the module's prefixes, and the folders include
# each other without a cycle, interp/ and port/ below model/ and api/.
#
#   sh testsuite/tools/layers.sh BUILD    (BUILD holds libnnef.a)
#
# The prefixes of a module are its name and the names of the types its
# public header defines (arena_ for Arena, sb_ for StrBuf...): one table,
# below; a prefix belongs to one module.

build=${1:?usage: layers.sh BUILD}
lib="$build/libnnef.a"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"

cat >"$tmp/prefixes" <<'EOF'
util util_ arena_ sb_ intern_ diag_ source_ dtype_ pmap_ loc_
lexer lex_
grammar parse_ ast_
sema sema_ ty_
shapes shape_ dim_ value_
flatten flat_ flatten_
datfile dat_ npy_ npz_ cont_
model model_
interp interp_ kern_
port port_
api nnef_ api_
EOF
modules=$(cut -d' ' -f1 "$tmp/prefixes")

# ---- prefixes ---------------------------------------------------------------

# no prefix is one of another module's, nor begins one
tr ' ' '\n' <"$tmp/prefixes" | grep '_$' | sort >"$tmp/all"
if [ -z "$(uniq -d "$tmp/all")" ]; then ok; else bad "prefixes in two modules: $(uniq -d "$tmp/all" | tr '\n' ' ')"; fi
for p in $(cat "$tmp/all"); do
	for q in $(cat "$tmp/all"); do
		case $q in "$p"?*) bad "prefix $q begins with prefix $p" ;; esac
	done
done

# the module of each object: the folder of its source (file names are
# unique across the tree; kernels compiled twice end in _f32/_f64)
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
(cd "$srcdir" && git ls-files '*.c' 2>/dev/null || find . -name '*.c' | sed 's|^\./||') |
	awk -F/ 'NF == 2 { sub(/\.c$/, "", $2); print $2, $1 }' >"$tmp/objects"
if [ -s "$tmp/objects" ] && [ -f "$lib" ]; then ok; else bad "no sources or no $lib"; fi

# (names beginning with __ are the compiler's: a sanitizer's __odr_asan.X)
nm -g --defined-only "$lib" 2>/dev/null | awk '
	/:$/ { obj = $0; sub(/:$/, "", obj); sub(/\.o$/, "", obj); sub(/_f(32|64)$/, "", obj); next }
	NF == 3 && $3 !~ /^__/ { print obj, $3 }' >"$tmp/symbols"
[ -s "$tmp/symbols" ] || bad "nm found no symbols in $lib"
# generated sources (the scanner, the parser, embedded texts) under BUILD
(cd "$build" && find . -name '*.c') | awk -F/ 'NF == 3 { sub(/\.c$/, "", $3); print $3, $2 }' >>"$tmp/objects"

checked=0
while read -r obj sym; do
	module=$(awk -v o="$obj" '$1 == o { print $2; exit }' "$tmp/objects")
	if [ -z "$module" ]; then bad "$obj.o: no source file of that name"; continue; fi
	prefixes=$(awk -v m="$module" '$1 == m { $1 = ""; print; exit }' "$tmp/prefixes")
	good=0
	for p in $prefixes; do
		case $sym in "$p"*) good=1 ;; esac
	done
	if [ $good = 1 ]; then checked=$((checked + 1)); else bad "$module/$obj.o defines '$sym': not one of $module's prefixes ($prefixes )"; fi
done <"$tmp/symbols"
[ "$checked" -gt 500 ] && ok || bad "only $checked symbols checked"

# ---- includes ----------------------------------------------------------------

# folder -> folder edges of the library's includes
for m in $modules; do
	for f in "$srcdir/$m"/*.[chly] "$srcdir/$m"/*.def; do
		[ -f "$f" ] || continue
		sed -n 's|^#include "\([a-z_]*\)/.*|\1|p' "$f" | grep -vx "$m" | grep -v '^build$' |
			sed "s|^|$m |"
	done
done | sort -u >"$tmp/edges"
[ -s "$tmp/edges" ] || bad "no includes found under $srcdir"
# tsort reports a cycle on standard error
if tsort "$tmp/edges" >/dev/null 2>"$tmp/cycle" && [ ! -s "$tmp/cycle" ]; then ok; else bad "the module graph has a cycle: $(tr '\n' ' ' <"$tmp/cycle")"; fi
# what the architecture forbids outright
for edge in "interp model" "interp api" "port api" "port model" "port interp" \
	"shapes flatten" "flatten model" "flatten lexer" "model api" "datfile model"; do
	if grep -qx "$edge" "$tmp/edges"; then bad "$(echo "$edge" | sed 's/ / includes /')"; else ok; fi
done
# interp/ may decode tensor files (datfile's codec) but opens no container
if grep -n 'cont_[a-z]*(\|Container' "$srcdir"/interp/*.[ch] >"$tmp/cont"; then bad "interp/ reads containers: $(head -1 "$tmp/cont")"; else ok; fi
# nothing but api/ is included from outside the library's layers
for m in $modules; do
	for t in tools testsuite bench python; do
		if grep -qx "$m $t" "$tmp/edges"; then bad "$m includes $t"; fi
	done
done

# the Python module (python/) is over nnef.h: it includes api/nnef.h and
# its own header, nothing else of the tree
if grep -n '^#include "' "$srcdir"/python/*.[ch] 2>/dev/null | grep -v '"api/nnef.h"\|"python/' >"$tmp/py"; then bad "python/ includes more than api/nnef.h: $(head -1 "$tmp/py")"; else ok; fi

echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
