#!/usr/bin/env bash
# make bench: every single-GPU program (make programs; "gpus: one" in its --describe) at its bench sizes,
# once for each of its bench fills, into one CSV; its warm-L2 kernels again with the input left in L2;
# then the flush check and the charts. A program on several GPUs is named with the make command that
# runs it. Writes plots/results/<gpu>/results.csv, flush_check.csv (where ncu is installed) and the
# charts, and prints the bandwidth chart in the terminal. `make reference` then copies them to
# plots/reference/<gpu>/.
# usage: scripts/bench.sh   (the programs built: make all)
set -eu
cd "$(dirname "$0")/.."
describe() { "$1" --describe | sed -n "s/^$2: *//p"; }
mkdir -p plots/results
csv=plots/results/bench.csv
rm -f "$csv"
for p in ${REDUCE_PROGRAMS:-$(make --no-print-directory -s programs)}; do
    if [ ! -x "$p" ]; then
        echo "== $p is not built (make all says why): not in this bench"
        continue
    fi
    stage=$(describe "$p" stage)
    if [ "$(describe "$p" gpus)" != one ]; then
        echo "== $stage runs on several GPUs: not run by make bench (make stage-${stage%%_*} run runs it)"
        continue
    fi
    sizes=$(describe "$p" "bench sizes")
    fills=$(describe "$p" "bench fills")
    warm=$(describe "$p" "warm-L2 kernels")
    [ -n "$sizes" ] && [ -n "$fills" ] || { echo "error: $p --describe names no bench sizes or no bench fills" >&2; exit 2; }
    for fill in $fills; do
        echo "== $stage, fill $fill"
        "$p" --n "$sizes" --fill "$fill" --csv "$csv"
        if [ -n "$warm" ]; then
            echo "== $stage, fill $fill, L2 warm: $warm"
            "$p" --n "$sizes" --fill "$fill" --kernel "${warm// /,}" --l2 warm --csv "$csv"
        fi
    done
done
slug=$(scripts/gpu_folder.sh "$csv")
dir=plots/results/$slug
mkdir -p "$dir"
mv "$csv" "$dir/results.csv"
# The flush, proven with hardware counters (needs Nsight Compute).
if command -v ncu >/dev/null; then
    echo "== the L2 flush, checked with ncu (dram__bytes_read.sum)"
    scripts/flush_check.sh "$dir/flush_check.csv" || echo "the flush check FAILED: see above"
else
    echo "ncu not found: the flush check (DRAM bytes of every timed run) is not run and no flush_check.csv is written"
fi
if command -v gnuplot >/dev/null; then
    scripts/plot.sh "$dir/results.csv" "$dir" --dumb
else
    echo "gnuplot not found: no charts drawn (make plot CSV=$dir/results.csv draws them where gnuplot is installed)"
fi
echo "results in $dir (make reference copies them to plots/reference/$slug and updates README.md)"
