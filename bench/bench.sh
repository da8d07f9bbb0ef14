#!/bin/sh
# bench.sh - benchmarks of nnefkit (figures, not pass/fail).
# Usage: sh bench/bench.sh BINDIR WORKDIR [BASEBINDIR]
# With BASEBINDIR (make bench BASE=REV builds REV there), every figure of
# the front end is measured with both builds, the base one in brackets.
# Each figure is the least time (and the largest peak) of a few runs.
# BENCH_ONLY=torchvision runs only the section of nnef-run beside PyTorch
# on the corpus's torchvision networks (a few minutes; the whole bench
# takes about 10); PYTHON is the python with torch and torchvision
# (default /usr/bin/python3).
set -eu
bin=$1
work=$2
base=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"

run_timed() { # run_timed CMD...: "SECS KIB" of CMD, or nothing if it failed
	/usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || return 1
	cat "$work/time.txt"
}

# runs of each measured command: the least time is kept (and the largest
# peak), the build and its base taking turns, so that neither is the one
# run first on memory the system has just given back
RUNS=3

summary() { # summary FILE: "SECS KIB", the least time and largest peak
	awk 'NR == 1 || $1 < t { t = $1 } $2 > m { m = $2 } END { print t, m }' "$1"
}

measure() { # measure LABEL CMD...: wall time and peak memory of CMD
	label=$1
	shift
	cmd=""
	for a in "$@"; do
		case $a in "$bin"/*) a="$base/${a#"$bin"/}" ;; esac
		cmd="$cmd '$a'"
	done
	: >"$work/runs.txt"
	: >"$work/base_runs.txt"
	base_ok=1
	for i in $(seq $RUNS); do
		run_timed "$@" >>"$work/runs.txt" || {
			echo "bench: '$*' failed:" >&2
			head -5 "$work/stderr.txt" >&2
			exit 1
		}
		if [ -n "$base" ] && [ $base_ok = 1 ]; then
			eval "run_timed $cmd" >>"$work/base_runs.txt" || base_ok=0
		fi
	done
	line=$(summary "$work/runs.txt" | awk -v l="$label" '{ printf "%-44s %8.2f s %8d MiB", l, $1, $2 / 1024 }')
	if [ -n "$base" ]; then
		if [ $base_ok = 1 ]; then
			line="$line$(summary "$work/base_runs.txt" | awk '{ printf "   [base %6.2f s %6d MiB]", $1, $2 / 1024 }')"
		else
			line="$line   [base: failed]"
		fi
	fi
	echo "$line"
}

# ---- nnef-run beside PyTorch: the torchvision networks ----
# The 17 networks of the corpus's torchvision-nnef (torchvision 0.14,
# converted by NNEF-Tools) with generated weights, run by nnef-run and by
# PyTorch eager side by side: for each network nnef-run runs three times
# (the best run is shown: load and execute from nnef-run --profile) and a
# fourth without --profile for the peak RSS, then bench/torch_time.py
# times PyTorch (2 threads, the least of 5 runs after 2 warm-ups), so
# that both see the same spell of the host. ratio is exec_s / torch_s;
# the last row is the geometric mean of each column over the networks
# nnef-run ran and PyTorch did not fail. PyTorch ($PYTHON, default
# /usr/bin/python3, with Debian's python3-torch python3-torchvision) is a
# benchmark dependency only: without it the torch_s and ratio columns
# print "-". With BASE, the base build's load, execute (its run with the
# best execute of 3) and peak RSS follow in brackets, measured first.
# Defined here so that BENCH_ONLY=torchvision can run it alone; in a
# whole run it comes after the nnef-tools-examples networks.
torchvision_nets() {
	tv_dir=${NNEF_CORPUS:-$here/../../shared/corpus}/torchvision-nnef
	if [ ! -d "$tv_dir" ]; then
		echo "bench: no $tv_dir: torchvision networks skipped" >&2
		return 0
	fi
	python=${PYTHON:-/usr/bin/python3}
	tv_torch=1
	if ! "$python" -c 'import torch, torchvision' >/dev/null 2>&1; then
		tv_torch=0
		echo "bench: *** PyTorch SKIPPED: $python cannot import torch, torchvision (Debian: apt-get install python3-torch python3-torchvision) ***" >&2
	fi
	printf '%-20s %9s %9s %8s %9s %7s %s\n' network load_s exec_s rss_MiB torch_s ratio "${base:+  [base load_s exec_s rss_MiB]}"
	: >"$work/tv_rows.txt"
	for tv_net in "$tv_dir"/*.nnef; do
		net=$(basename "$tv_net" .nnef)
		# with BASE, the base build's run with the best execute time
		# of 3 (load and execute), and its peak RSS, first
		base_exec=-
		base_load=-
		base_rss=-
		for _ in 1 2 3; do
			[ -n "$base" ] || break
			le=$("$base/nnef-run" "$tv_net" --random-weights --random uniform --seed 1 \
				--profile 2>/dev/null | awk '/^total: load/ { print $3, $6 }') || le=
			[ -n "$le" ] || { base_exec=failed; break; }
			if [ "$base_exec" = - ] || awk -v a="${le#* }" -v b="$base_exec" 'BEGIN { exit !(a < b) }'; then
				base_load=${le% *}
				base_exec=${le#* }
			fi
		done
		if [ -n "$base" ] && [ "$base_exec" != failed ] &&
			/usr/bin/time -f %M -o "$work/time.txt" "$base/nnef-run" "$tv_net" \
				--random-weights --random uniform --seed 1 >/dev/null 2>&1; then
			base_rss=$(($(cat "$work/time.txt") / 1024))
		fi
		load_s=failed
		exec_s=failed
		for _ in 1 2 3; do
			"$bin/nnef-run" "$tv_net" --random-weights --random uniform \
				--seed 1 --profile >"$work/run.txt" 2>"$work/stderr.txt" || {
				echo "bench: nnef-run $net failed:" >&2
				head -5 "$work/stderr.txt" >&2
				load_s=failed
				exec_s=failed
				break
			}
			line=$(awk '/^total: load/ { l = $3; e = $6 } END { if (e != "") print l, e }' "$work/run.txt")
			if [ -z "$line" ]; then
				echo "bench: nnef-run $net: no 'total:' line" >&2
				load_s=failed
				exec_s=failed
				break
			fi
			if [ "$exec_s" = failed ] || awk -v a="${line#* }" -v b="$exec_s" 'BEGIN { exit !(a < b) }'; then
				load_s=${line% *}
				exec_s=${line#* }
			fi
		done
		rss=-
		if [ "$exec_s" != failed ]; then
			if /usr/bin/time -f %M -o "$work/time.txt" "$bin/nnef-run" "$tv_net" \
				--random-weights --random uniform --seed 1 >/dev/null 2>"$work/stderr.txt"; then
				rss=$(($(cat "$work/time.txt") / 1024))
			else
				echo "bench: nnef-run $net failed:" >&2
				head -5 "$work/stderr.txt" >&2
				rss=failed
			fi
		fi
		torch=-
		if [ $tv_torch = 1 ]; then
			torch=$("$python" "$here/torch_time.py" "$net" 2>"$work/stderr.txt" |
				awk -v n="$net" '$1 == n && $2 + 0 > 0 { print $2 }')
			if [ -z "$torch" ]; then
				echo "bench: PyTorch $net failed:" >&2
				tail -3 "$work/stderr.txt" >&2
				torch=failed
			fi
		fi
		awk -v n="$net" -v l="$load_s" -v e="$exec_s" -v r="$rss" -v t="$torch" \
			-v bl="$base_load" -v b="$base_exec" -v br="$base_rss" -v has_base="$base" \
			-v out="$work/tv_rows.txt" '
			function num(v) { return v ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ }
			function f(v, fmt) { return num(v) ? sprintf(fmt, v) : v }
			BEGIN {
				q = (num(e) && num(t) && t > 0) ? e / t : "-"
				printf "%-20s %9s %9s %8s %9s %7s", n, f(l, "%.3f"), f(e, "%.4f"), r, f(t, "%.4f"), f(q, "%.2f")
				if (has_base != "")
					printf "   [%6s %9s %7s]", f(bl, "%.3f"), f(b, "%.4f"), br
				printf "\n"
				print n, l, e, r, t, q, bl, b >>out
			}'
	done
	# the geometric means, over the networks nnef-run ran and PyTorch did
	# not fail (all those nnef-run ran when PyTorch was skipped)
	awk '
		function num(v) { return v ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ }
		function g(k, fmt) { return c[k] ? sprintf(fmt, exp(s[k] / c[k])) : "-" }
		num($3) && $5 != "failed" {
			for (i = 2; i <= 8; i++)
				if (i != 4 && num($i) && $i > 0) { s[i] += log($i); c[i]++ }
			rows++
		}
		END {
			printf "%-20s %9s %9s %8s %9s %7s", "geomean (" rows + 0 ")", g(2, "%.3f"), g(3, "%.4f"), "-", g(5, "%.4f"), g(6, "%.2f")
			if (c[8])
				printf "   [%6s %9s %7s]", g(7, "%.3f"), g(8, "%.4f"), "-"
			printf "\n"
		}' "$work/tv_rows.txt"
}

case ${BENCH_ONLY:-} in
'') ;;
torchvision)
	torchvision_nets
	exit 0
	;;
*)
	echo "bench: BENCH_ONLY=$BENCH_ONLY: no such section (the one there is: torchvision)" >&2
	exit 2
	;;
esac

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

# after the system has been idle: the host of a virtual machine takes back
# the memory a guest frees within seconds, and fresh memory costs more
# then; each of 3 runs follows 5 s of idling, the slowest is shown
idle_runs() { # idle_runs LABEL CMD...
	label=$1
	shift
	: >"$work/idle.txt"
	for i in 1 2 3; do
		sleep 5
		run_timed "$@" >>"$work/idle.txt" || { echo "bench: '$*' failed" >&2; exit 1; }
	done
	awk -v l="$label" 'NR == 1 || $1 > t { t = $1 } $2 > m { m = $2 } END { printf "%-44s %8.2f s %8d MiB\n", l, t, m / 1024 }' "$work/idle.txt"
}
idle_runs "nnef-check, 1,000,000 lines, after 5 s idle" "$bin/nnef-check" -q "$flat"

# linear growth: time and memory per operation of flat documents of 10k,
# 100k and 1M lines (one operation a line), net of what checking a tiny
# document takes (start-up, the standard library). Wall time and CPU time
# (user and system, both threads), measured by timeit (make bench builds
# it into WORKDIR): the least of 7 rounds in which the four documents
# take turns, so that a slow spell of the host falls on every size alike.
# The CPU time per operation is the work; a text of 256 KiB or more is
# parsed on a second thread, so its wall time per operation is less.
timeit=${TIMEIT:-$work/timeit}
if [ ! -x "$timeit" ]; then
	echo "bench: no $timeit (make bench builds it): linear growth skipped" >&2
else
	sizes="0 10000 100000 1000000"
	doc_of() { # doc_of N: the flat document of N lines, the tiny example for 0
		if [ $1 = 0 ]; then echo "$here/../examples/tiny_convnet/graph.nnef"; else echo "$work/flat_$1.nnef"; fi
	}
	for n in $sizes; do
		doc=$(doc_of $n)
		[ -f "$doc" ] || awk -v lines=$n -f "$here/gen_flat.awk" >"$doc"
		: >"$work/runs_$n.txt"
	done
	for round in 1 2 3 4 5 6 7; do
		for n in $sizes; do
			doc=$(doc_of $n)
			"$timeit" "$work/timeit.txt" "$bin/nnef-check" -q "$doc" >/dev/null 2>&1 || {
				echo "bench: nnef-check $doc failed" >&2
				exit 1
			}
			cat "$work/timeit.txt" >>"$work/runs_$n.txt"
		done
	done
	least() { # least N: "WALL_NS CPU_NS KIB" of size N, least times and largest peak
		awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } $3 > m { m = $3 } END { print w, c, m }' "$work/runs_$1.txt"
	}
	t0=$(least 0)
	: >"$work/linear.txt"
	for n in 10000 100000 1000000; do
		echo "$(least $n) $t0" | awk -v n=$n -v out="$work/linear.txt" '{
			us = ($1 - $4) / 1e3 / n; cpu = ($2 - $5) / 1e3 / n; b = ($3 - $6) * 1024 / n
			printf "nnef-check, %7d-line flat document: %6.3f s %5d MiB  %5.2f us/op (CPU %5.2f) %5d bytes/op\n", n, $1 / 1e9, $3 / 1024, us, cpu, b
			print us, cpu, b >>out }'
	done
	awk '{ for (k = 1; k <= 3; k++) { if (NR == 1 || $k < lo[k]) lo[k] = $k; if ($k > hi[k]) hi[k] = $k } }
		END { printf "nnef-check, growth from 10k to 1M lines: per op, wall time within %.2fx, CPU time within %.2fx, bytes within %.2fx\n", hi[1] / lo[1], hi[2] / lo[2], hi[3] / lo[3] }' "$work/linear.txt"
fi

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

# ---- nnef-run: the networks of the corpus with generated weights ----
# Each network runs three times (weights and inputs generated with a fixed
# seed); the best run is shown: load (parse, check, generate the data)
# and execute (the graph) from nnef-run --profile, and the GEMM throughput
# of the convolutions beside a plain sgemm of the same shapes from
# gemm_rate (make bench builds it), which runs the model as nnef-run
# does, then times the sgemm. The peak RSS comes from a fourth run without
# --profile. Targets, execution: alexnet <= 0.06 s, googlenet <= 0.10 s;
# conv >= 50% of the plain sgemm rate.
nets=${NNEF_CORPUS:-$here/../../shared/corpus}/nnef-tools-examples
gemm_rate=${GEMM_RATE:-$work/gemm_rate}
if [ -d "$nets" ]; then
	[ -x "$gemm_rate" ] || echo "bench: no $gemm_rate (make bench builds it): conv and sgemm rates skipped" >&2
	printf '%-12s %9s %9s %8s %10s %10s %6s\n' network load_s exec_s rss_MiB conv_GF/s sgemm_GF/s ratio
	for net in alexnet googlenet resnet vgg; do
		best=
		for run in 1 2 3; do
			"$bin/nnef-run" "$nets/$net.nnef" --random-weights --random uniform \
				--seed 1 --profile >"$work/run.txt" 2>"$work/stderr.txt" || {
				echo "bench: nnef-run $net failed:" >&2
				head -5 "$work/stderr.txt" >&2
				break
			}
			if [ -x "$gemm_rate" ]; then
				"$gemm_rate" "$nets/$net.nnef" >>"$work/run.txt" 2>"$work/stderr.txt" || {
					echo "bench: gemm_rate $net failed:" >&2
					head -5 "$work/stderr.txt" >&2
					break
				}
			fi
			line=$(awk '
				/^total: load/ { load = $3; exec = $6 }
				/^conv and deconv:/ { conv = $9; gemm = $18 }
				END { printf "%s %s %s %s", load, exec, conv, gemm }' "$work/run.txt")
			set -- $line
			if [ -z "$best" ] || awk -v a="$2" -v b="$best_exec" 'BEGIN { exit !(a < b) }'; then
				best=$line
				best_exec=$2
			fi
		done
		[ -n "$best" ] || continue
		/usr/bin/time -f "%M" -o "$work/time.txt" "$bin/nnef-run" "$nets/$net.nnef" \
			--random-weights --random uniform --seed 1 >/dev/null 2>"$work/stderr.txt" || {
			echo "bench: nnef-run $net failed:" >&2
			head -5 "$work/stderr.txt" >&2
			continue
		}
		rss=$(($(cat "$work/time.txt") / 1024))
		set -- $best
		awk -v n="$net" -v l="$1" -v e="$2" -v r="$rss" -v c="${3:-0}" -v g="${4:-0}" 'BEGIN {
			printf "%-12s %9.3f %9.3f %8d %10.1f %10.1f %5.0f%%\n", n, l, e, r, c, g, (g > 0 ? 100 * c / g : 0) }'
	done
else
	echo "bench: no $nets: nnef-run cases skipped" >&2
fi

# ---- nnef-run beside PyTorch: the torchvision networks (defined above) ----
torchvision_nets

# ---- nnef-run: tract's harness (tract's dialect) ----
# Each case of tract's harness with its io.npz runs on its inputs three
# times; the best run is shown: load (read, check, flatten, load the
# weights) and execute, beside the relative L2 error of the first output
# against the one tract gave.
harness=${NNEF_CORPUS:-$here/../../shared/corpus}/tract-harness
if [ -d "$harness" ]; then
	printf '%-40s %9s %9s %10s
' "tract case" load_s exec_s rel_L2
	for npz in $(find "$harness" -name io.npz | sort); do
		d=$(dirname "$npz")
		m=$d
		[ -f "$d/model.nnef.tgz" ] && m=$d/model.nnef.tgz
		case $d in */parallel-ops) cmp= ;; *) cmp="--compare-bundle $npz" ;; esac
		best=
		for run in 1 2 3; do
			"$bin/nnef-run" --dialect=tract -q "$m" --input-bundle "$npz" $cmp \
				--profile >"$work/run.txt" 2>"$work/stderr.txt" || {
				echo "bench: nnef-run ${d#"$harness"/} failed:" >&2
				head -3 "$work/stderr.txt" >&2
				break
			}
			line=$(awk '
				/relative L2 error/ && err == "" { err = $5; sub(/,$/, "", err) }
				/^total: load/ { load = $3; exec = $6 }
				END { printf "%s %s %s", load, exec, (err == "" ? "-" : err) }' "$work/run.txt")
			set -- $line
			if [ -z "$best" ] || awk -v a="$2" -v b="$best_exec" 'BEGIN { exit !(a < b) }'; then
				best=$line
				best_exec=$2
			fi
		done
		[ -n "$best" ] || continue
		set -- $best
		printf '%-40s %9.4f %9.4f %10s\n' "${d#"$harness"/}" "$1" "$2" "$3"
	done
else
	echo "bench: no $harness: tract cases skipped" >&2
fi

# ---- data: models with weights (spec 5.1) as a directory, .tar, .tgz ----
# gen_model (bench/module.mk builds it into WORKDIR) writes a chain of 3x3
# convolutions with float32 weights. nnef-check reads only the 128-byte
# header of each .dat, so checking a .tgz should cost little more than
# decompressing it: gzip -dc is the reference, timed in the same run.
# Until nnef-check reads models with data, these cases print "failed"
# and the run goes on. Disk: about 2.7 GiB in WORKDIR (the 256 MiB model,
# its .tar and .tgz, the 1 GiB model and its .tgz), generated once.
gen=${GEN_MODEL:-$work/gen_model}
if [ ! -x "$gen" ]; then
	echo "bench: no $gen (make bench builds it): data cases skipped" >&2
	exit 0
fi

try() { # try LABEL CMD...: like measure, but a failure prints "failed"
	label=$1
	shift
	if /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt"; then
		read -r secs kib <"$work/time.txt"
		printf '%-44s %8.2f s %8d MiB\n' "$label" "$secs" $((kib / 1024))
	else
		secs=
		printf '%-44s %8s\n' "$label" failed
		head -3 "$work/stderr.txt" | sed 's/^/bench:   /' >&2
	fi
}

ratio() { # ratio LABEL SECS REF_SECS: prints SECS / REF_SECS
	if [ -n "$2" ] && [ -n "$3" ]; then
		awk -v l="$1" -v a="$2" -v b="$3" 'BEGIN {
			if (b > 0) printf "bench: %s: %.2f (target <= 1.10)\n", l, a / b
			else printf "bench: %s: n/a (reference took 0 s)\n", l }'
	else
		printf 'bench: %s: n/a (a case failed)\n' "$1"
	fi
}

gen_once() { # gen_once DIR MIB: generates the model DIR unless there
	if [ ! -d "$1" ]; then
		rm -rf "$1.tmp"
		"$gen" "$1.tmp" "$2" 1
		mv "$1.tmp" "$1"
	fi
}

pack_once() { # pack_once DIR ARCHIVE TAR-FLAG: packs DIR unless packed
	if [ ! -f "$2" ]; then
		# graph.nnef first, then the label folders in name order
		members=$(cd "$1" && ls -d layer*)
		# shellcheck disable=SC2086 # the folder names split on purpose
		tar -C "$1" "$3" "$2.tmp" graph.nnef $members
		mv "$2.tmp" "$2"
	fi
}

describe() { # describe DIR ARCHIVE...: one line on the model's sizes
	line="bench: $(basename "$1"): $(grep -c '= conv(' "$1/graph.nnef") layers, $(($(du -sk "$1" | cut -f1) / 1024)) MiB"
	shift
	for a in "$@"; do
		line="$line, ${a##*.} $(($(wc -c <"$a") / 1048576)) MiB"
	done
	echo "$line"
}

m256="$work/model_256m"
gen_once "$m256" 256
pack_once "$m256" "$m256.tar" -cf
pack_once "$m256" "$m256.tgz" -czf
describe "$m256" "$m256.tar" "$m256.tgz"
try "gzip -dc, 256 MiB model .tgz (reference)" gzip -dc "$m256.tgz"
ref=$secs
try "nnef-check, 256 MiB model as .tgz" "$bin/nnef-check" -q "$m256.tgz"
ratio "ratio .tgz / gzip -dc, 256 MiB" "$secs" "$ref"
try "nnef-check, 256 MiB model as .tar" "$bin/nnef-check" -q "$m256.tar"
try "nnef-check, 256 MiB model as directory" "$bin/nnef-check" -q "$m256"

# peak memory must not grow with the data
m1g="$work/model_1g"
gen_once "$m1g" 1024
pack_once "$m1g" "$m1g.tgz" -czf
describe "$m1g" "$m1g.tgz"
try "gzip -dc, 1 GiB model .tgz (reference)" gzip -dc "$m1g.tgz"
ref=$secs
try "nnef-check, 1 GiB model as .tgz" "$bin/nnef-check" -q "$m1g.tgz"
ratio "ratio .tgz / gzip -dc, 1 GiB" "$secs" "$ref"
try "nnef-check, 1 GiB model as directory" "$bin/nnef-check" -q "$m1g"
