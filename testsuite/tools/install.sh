#!/bin/sh
# install.sh - `make install` into a temporary DESTDIR: every file in its
# place, the example program of examples/c built against the installed
# library through `pkg-config --cflags --libs nnef` (shared, then static)
# and run on a bundled model, the installed programs run, then `make
# uninstall` leaves no file and no directory it made behind; libnnef.so
# exports exactly the functions nnef.h declares; nnef.pc follows LIBDIR;
# the Python module goes where PYTHON finds it, imports and runs.
# Usage: sh testsuite/tools/install.sh BUILD [CFLAGS...]   (from make test;
# CFLAGS: the sanitizer flags the library was built with, if any)
set -u

build=${1:?usage: install.sh BUILD [CFLAGS...]}
shift
cflags="$*"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$(dirname "$0")/lib.sh"

root="$tmp/root"
prefix=/opt/nnefkit
cd "$top" || exit 1
expect_status 0 make --no-print-directory install BUILD="$build" PREFIX="$prefix" DESTDIR="$root"
for f in bin/nnef-check bin/nnef-flatten bin/nnef-run bin/nnef-datinfo lib/libnnef.a \
	lib/libnnef.so include/nnef.h lib/pkgconfig/nnef.pc share/man/man1/nnef-check.1; do
	if [ -e "$root$prefix/$f" ]; then ok; else bad "make install did not write $prefix/$f"; fi
done
version=$(sed -n 's/^#define NNEF_VERSION "\(.*\)"/\1/p' util/util.h)
so="$root$prefix/lib/libnnef.so.$version"
if [ -f "$so" ] && [ "$(readlink "$root$prefix/lib/libnnef.so")" = "libnnef.so.${version%%.*}" ]; then ok; else bad "libnnef.so links wrong: $(ls -l "$root$prefix/lib")"; fi
if readelf -d "$so" | grep -q "SONAME.*\[libnnef.so.${version%%.*}\]"; then ok; else bad "no soname libnnef.so.${version%%.*}"; fi
# exactly the functions declared in the installed nnef.h are exported (the
# names are read from the header now, so a function added there is
# expected too): a line declaring one starts with its type and has the
# name just before the first '('
sed -n 's/^[A-Za-z_][^(]*[ *]\(nnef_[A-Za-z0-9_]*\)(.*/\1/p' "$root$prefix/include/nnef.h" |
	sort -u >"$tmp/declared"
nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$tmp/exported"
if [ "$(wc -l <"$tmp/declared")" -gt 50 ]; then ok; else bad "found only $(wc -l <"$tmp/declared") functions in nnef.h"; fi
extra=$(comm -13 "$tmp/declared" "$tmp/exported" | head -5 | tr '\n' ' ')
if [ -z "$extra" ]; then ok; else bad "libnnef.so exports what nnef.h does not declare: $extra"; fi
missing=$(comm -23 "$tmp/declared" "$tmp/exported" | head -5 | tr '\n' ' ')
if [ -z "$missing" ]; then ok; else bad "libnnef.so does not export what nnef.h declares: $missing"; fi

# the example program, through pkg-config
export PKG_CONFIG_PATH="$root$prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
expect_status 0 pkg-config --exists nnef
expect_status 0 pkg-config --modversion nnef
expect_in "$tmp/out" "$version"
flags=$(pkg-config --cflags --libs nnef)
expect_status 0 cc -std=c11 -Wall -Wextra -Werror $cflags examples/c/print_shapes.c $flags -o "$tmp/shapes"
LD_LIBRARY_PATH="$root$prefix/lib" expect_status 0 "$tmp/shapes" examples/tiny_convnet
expect_in "$tmp/out" "tiny_convnet: valid, "
expect_in "$tmp/out" "probabilities: scalar[1,10]"
if readelf -d "$tmp/shapes" | grep -q "NEEDED.*libnnef.so.${version%%.*}"; then ok; else bad "the example is not linked to libnnef.so"; fi
LD_LIBRARY_PATH="$root$prefix/lib" expect_status 1 "$tmp/shapes" testsuite/golden/syntax/missing_semicolon.nnef
expect_in "$tmp/err" "error[E0202]: expected ';' after assignment"
# static: the archive and its private libraries
sflags=$(pkg-config --static --libs nnef | sed "s|-lnnef|$root$prefix/lib/libnnef.a|")
expect_status 0 cc -std=c11 $cflags $(pkg-config --cflags nnef) examples/c/print_shapes.c $sflags -o "$tmp/shapes_static"
expect_status 0 "$tmp/shapes_static" examples/residual_block
expect_in "$tmp/out" "output: scalar[1,8,16,16]"
# the installed programs and manual pages
expect_status 0 "$root$prefix/bin/nnef-check" examples/tiny_convnet
if command -v man >/dev/null 2>&1; then
	MANPATH="$root$prefix/share/man" expect_status 0 man -w nnef-check
fi

# the Python module, where the interpreter finds it, with its stubs; it
# needs no installed libnnef.so
python=${PYTHON:-/usr/bin/python3}
pymod=$(find "$root$prefix" -name 'nnefkit.*.so' | head -1)
pysite=$(dirname "${pymod:-.}")
if [ -n "$pymod" ] && [ -f "$pysite/nnefkit.pyi" ]; then ok; else bad "make install did not write the Python module and its stubs: $(find "$root$prefix" -name 'nnefkit*')"; fi
want=$("$python" -c 'import sysconfig; print(sysconfig.get_path("platlib", "posix_prefix", vars={"base": "'"$prefix"'", "platbase": "'"$prefix"'"}))')
if [ "$pysite" = "$root$want" ]; then ok; else bad "the Python module went to $pysite, not $root$want"; fi
if readelf -d "${pymod:-/dev/null}" 2>/dev/null | grep -q 'NEEDED.*libnnef'; then bad "the Python module needs libnnef.so"; else ok; fi
# a module built with SANITIZE=address loads into the uninstrumented
# interpreter with the sanitizer's runtime preloaded (as make test-python)
asan=
if readelf -d "${pymod:-/dev/null}" 2>/dev/null | grep -q 'NEEDED.*libasan'; then asan=$(${CC:-cc} -print-file-name=libasan.so); fi
LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0 PYTHONPATH="$pysite" expect_status 0 "$python" -c 'import nnefkit, sys; m = nnefkit.load(sys.argv[1]); print(m.valid, m.outputs, nnefkit.__file__)' examples/tiny_convnet
expect_in "$tmp/out" "True ('probabilities',) $pysite/nnefkit"

expect_status 0 make --no-print-directory uninstall BUILD="$build" PREFIX="$prefix" DESTDIR="$root"
left=$(find "$root" ! -type d | head -3)
if [ -z "$left" ]; then ok; else bad "make uninstall left $left"; fi
# nor the directories install made (PREFIX itself stays)
left=$(ls -A "$root$prefix" 2>&1 | tr '\n' ' ')
if [ -z "$left" ]; then ok; else bad "make uninstall left the directories $left"; fi

# nnef.pc gives the directories the library and header went to
root2="$tmp/root2"
expect_status 0 make --no-print-directory install BUILD="$build" PREFIX="$prefix" DESTDIR="$root2" \
	LIBDIR="$prefix/lib64"
expect_in "$root2$prefix/lib64/pkgconfig/nnef.pc" "libdir=$prefix/lib64"
expect_in "$root2$prefix/lib64/pkgconfig/nnef.pc" "includedir=$prefix/include"
# (the Python module goes where Python looks, under PREFIX/lib)
if [ -f "$root2$prefix/lib64/libnnef.so" ] && [ -z "$(find "$root2$prefix/lib" -name 'libnnef*' -o -name pkgconfig 2>/dev/null)" ]; then ok; else bad "LIBDIR not followed"; fi
expect_status 0 make --no-print-directory uninstall BUILD="$build" PREFIX="$prefix" DESTDIR="$root2" \
	LIBDIR="$prefix/lib64"
left=$(find "$root2$prefix" | sed "s|^$root2$prefix||" | tr '\n' ' ')
if [ "$left" = " " ]; then ok; else bad "make uninstall with LIBDIR left $left"; fi

# PREFIX=/usr/local: the module goes to a directory of Python's own path
# (Debian's /usr/local/lib/python3.X/dist-packages)
root3="$tmp/root3"
expect_status 0 make --no-print-directory install-python BUILD="$build" PREFIX=/usr/local DESTDIR="$root3"
pymod=$(find "$root3" -name 'nnefkit.*.so' | head -1)
pysite=$(dirname "${pymod:-.}" | sed "s|^$root3||")
if [ -n "$pymod" ] && "$python" -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$pysite"; then ok; else bad "PREFIX=/usr/local: the Python module went to $pysite, not on $python's path"; fi
expect_status 0 make --no-print-directory uninstall-python BUILD="$build" PREFIX=/usr/local DESTDIR="$root3"
left=$(find "$root3" ! -type d | head -3)
if [ -z "$left" ]; then ok; else bad "make uninstall-python left $left"; fi

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
