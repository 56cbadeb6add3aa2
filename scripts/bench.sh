#!/usr/bin/env bash
# make bench: every single-GPU program (make programs; "gpus: one" in its --describe) at its bench sizes,
# once for each of its bench fills, into one CSV; its warm-L2 kernels again with the input left in L2;
# then the flush check and the charts. While the programs run, a progress line; their tables go to
# plots/results/<gpu>/bench.log. A program on several GPUs is named with the make command that
# runs it. Writes plots/results/<gpu>/results.csv, flush_check.csv (where ncu is installed) and the
# charts, and prints the bandwidth chart in the terminal. `make reference` then copies them to
# plots/reference/<gpu>/.
# usage: scripts/bench.sh   (make bench builds the programs first, and passes BENCH_PROGRAMS, the ones it
# built, and BUILD_SECONDS, how long that took, which the last line prints with the run time)
set -eu
cd "$(dirname "$0")/.."
source scripts/lib.sh
mkdir -p plots/results
csv=plots/results/bench.csv
log=plots/results/bench.log
rm -f "$csv" "$log"
programs=()
for p in $(programs); do
    if [[ " ${BENCH_PROGRAMS:-$p} " != *" $p "* ]]; then
        s=$(basename "$(dirname "$p")")
        echo "== $s starts through a launcher of its own (several GPUs): not run by make bench (make stage-${s%%_*} run runs it)"
    elif [ ! -x "$p" ]; then
        echo "== $p is not built: not in this bench"
    elif [ "$(describe "$p" gpus)" != one ]; then
        s=$(describe "$p" stage)
        echo "== $s runs on several GPUs: not run by make bench (make stage-${s%%_*} run runs it)"
    else
        programs+=("$p")
    fi
done
# Progress: stage k of n, the size, the time so far and an estimate of what is left (the share of
# stages and sizes done so far, as if every stage took as long as the ones before). On a terminal one
# line that redraws itself; otherwise a line per size. The programs' tables go to the log.
start=$SECONDS
clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
progress() { # K STAGE WHAT SIZE I M
    local elapsed=$((SECONDS - start)) left line
    left=$(awk -v k="$1" -v n="${#programs[@]}" -v i="$5" -v m="$6" -v t="$elapsed" \
        'BEGIN { f = (k - 1 + (m > 0 ? (i - 1) / m : 0)) / n; printf "%d", (f > 0 && t > 0 ? t * (1 - f) / f : -1) }')
    [ "$left" -ge 0 ] && left="about $(clock "$left") left" || left="estimating what is left"
    line="[$1/${#programs[@]}] $2, $3, N = $4 ($5 of $6): $(clock $elapsed) so far, $left"
    if [ -t 1 ]; then printf '\r\033[K%s' "$line"; else echo "$line"; fi
}
# run K STAGE WHAT PROGRAM ARGS...: one run of a program, its output into the log, a progress line at
# each size it starts; its failures are printed.
run() {
    local k=$1 stage=$2 what=$3 sizes count i=0 rc
    shift 3
    sizes=$(printf '%s' "$*" | sed -n 's/.*--n \([^ ]*\).*/\1/p')
    count=$(printf '%s' "$sizes" | tr ',' '\n' | grep -c .)
    echo "== $stage, $what" >>"$log"
    set +e
    "$@" --csv "$csv" 2>&1 | tee -a "$log" | while IFS= read -r line; do
        case $line in "N = "*) i=$((i + 1)); n=${line#N = }; progress "$k" "$stage" "$what" "${n%%[ ,:]*}" "$i" "$count" ;; esac
    done
    rc=${PIPESTATUS[0]}
    set -e
    [ -t 1 ] && printf '\r\033[K'
    [ "$rc" = 0 ] || { echo "error: $stage ($what) exited with $rc: see $log" >&2; exit "$rc"; }
    awk -v s="== $stage, $what" '$0 == s { on = 1; next } /^== / { on = 0 } on && / FAIL( |$)/' "$log" | sed "s/^/$stage FAILED: /"
}
k=0
for p in "${programs[@]}"; do
    k=$((k + 1))
    stage=$(describe "$p" stage)
    sizes=$(describe "$p" "bench sizes")
    fills=$(describe "$p" "bench fills")
    warm=$(describe "$p" "warm-L2 kernels")
    [ -n "$sizes" ] && [ -n "$fills" ] || { echo "error: $p --describe names no bench sizes or no bench fills" >&2; exit 2; }
    for fill in $fills; do
        run $k "$stage" "fill $fill" "$p" --n "$sizes" --fill "$fill"
        [ -z "$warm" ] || run $k "$stage" "fill $fill, L2 warm: $warm" "$p" --n "$sizes" --fill "$fill" --kernel "${warm// /,}" --l2 warm
    done
done
echo "== the programs ran in $(clock $((SECONDS - start))) (their tables: $log)"
# The stages' demos (make stage-NN demo), their output kept beside the results as demo-<stage>.txt: a
# README can show a demo's measurement from it (<!-- demo-output:begin/end -->, python3 scripts/report readmes).
for p in "${programs[@]}"; do
    demo=$(dirname "$p")/demo
    [ -x "$demo" ] || continue
    stage=$(describe "$p" stage)
    echo "== $stage's demo"
    "$demo" >"plots/results/demo-$stage.txt" 2>&1 || { echo "error: $demo exited with $?: see plots/results/demo-$stage.txt" >&2; exit 1; }
done
slug=$(gpu_folder "$csv")
dir=plots/results/$slug
mkdir -p "$dir"
mv "$csv" "$dir/results.csv"
mv "$log" "$dir/bench.log"
for f in plots/results/demo-*.txt; do [ -f "$f" ] && mv "$f" "$dir/"; done
# What each program is, beside its rows: the reports read a stage's charts and kernels from it, with no
# build and no GPU (describe-<stage>.txt).
for p in $(programs); do
    [ -x "$p" ] && "$p" --describe >"$dir/describe-$(describe "$p" stage).txt"
done
# The flush, proven with hardware counters (needs Nsight Compute).
if command -v ncu >/dev/null; then
    echo "== the L2 flush, checked with ncu (dram__bytes_read.sum)"
    scripts/flush_check.sh "$dir/flush_check.csv" || echo "the flush check FAILED: see above"
else
    echo "ncu not found: the flush check (DRAM bytes of every timed run) is not run and no flush_check.csv is written"
fi
if ! command -v python3 >/dev/null; then
    echo "python3 not found: no charts drawn (the reporting program, scripts/report, needs it: apt-get install python3)"
elif command -v gnuplot >/dev/null; then
    python3 scripts/report plot "$dir/results.csv" "$dir" --dumb
else
    echo "gnuplot not found: no charts drawn (make plot CSV=$dir/results.csv draws them where gnuplot is installed)"
fi
echo "results in $dir (make reference copies them to plots/reference/$slug and updates the READMEs)"
echo "make bench: built in $(clock "${BUILD_SECONDS:-0}"), ran in $(clock $((SECONDS - start)))"
