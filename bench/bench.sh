#!/bin/sh
# bench.sh - benchmarks of nnefkit (figures, not pass/fail).
# Usage: sh bench/bench.sh BINDIR WORKDIR
set -eu
bin=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"

measure() { # measure LABEL CMD...: wall time and peak memory of CMD
	label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || {
		echo "bench: '$*' failed:" >&2
		head -5 "$work/stderr.txt" >&2
		exit 1
	}
	read -r secs kib <"$work/time.txt"
	printf '%-44s %8.2f s %8d MiB\n' "$label" "$secs" $((kib / 1024))
}

flat="$work/flat_1m.nnef"
if [ ! -f "$flat" ]; then
	awk -v lines=1000000 -f "$here/gen_flat.awk" >"$flat"
fi
printf 'bench: %s: %d lines, %d MiB\n' "$(basename "$flat")" \
	"$(wc -l <"$flat")" $(($(wc -c <"$flat") / 1048576))
measure "nnef-check, 1,000,000-line flat document" "$bin/nnef-check" -q "$flat"
# the same with every tensor's shape printed (shapes are always computed;
# this adds the listing)
measure "nnef-check --shapes, the same document" "$bin/nnef-check" -q --shapes "$flat"

for form in compositional flat; do
	doc="$work/blocks_100k_$form.nnef"
	if [ ! -f "$doc" ]; then
		awk -v calls=100000 -v form=$form -f "$here/gen_blocks.awk" >"$doc"
	fi
	printf 'bench: %s: %d lines, %d MiB\n' "$(basename "$doc")" \
		"$(wc -l <"$doc")" $(($(wc -c <"$doc") / 1048576))
	measure "nnef-check, 100,000 block calls, $form" "$bin/nnef-check" -q "$doc"
done

comp="$work/blocks_100k_compositional.nnef"
measure "nnef-flatten, 100,000 block calls" "$bin/nnef-flatten" -q "$comp" -o "$work/blocks_flat_out.nnef"
printf 'bench: the flat output has %d lines\n' "$(wc -l <"$work/blocks_flat_out.nnef")"

# add_n recurses once per tensor: time and memory must grow linearly
for n in 10000 20000 40000; do
	doc="$work/add_n_$n.nnef"
	[ -f "$doc" ] || awk -v n=$n -f "$here/gen_add_n.awk" >"$doc"
	measure "nnef-flatten, add_n over $n tensors" "$bin/nnef-flatten" -q "$doc" -o "$work/add_n_out.nnef"
done
