#!/usr/bin/env bash
# make bench: run every stage at every size into one CSV, then draw the charts.
# usage: scripts/bench.sh SIZES STAGE...   (SIZES as for --n, e.g. "2^16,2^20,2^24")
# Writes plots/results/<gpu>/results.csv (and, where a stage names kernels for it, their rows with the
# input left in L2), flush_check.csv (where ncu is installed) and the charts, and prints the bandwidth
# chart in the terminal. `make reference` then copies them to plots/reference/<gpu>/.
set -eu
cd "$(dirname "$0")/.."
sizes=$1
shift
mkdir -p plots/results
csv=plots/results/bench.csv
rm -f "$csv"
for s in "$@"; do
    echo "== $s"
    # A stage with sizes of its own (stage 07: the article's S x K grid) runs at those.
    list=$("build/$s/reduce" --list)
    n=$sizes
    [ "$(echo "$list" | sed -n 's/^default sizes: //p')" = "2^26" ] || n=$(echo "$list" | sed -n 's/^default sizes: //p')
    "build/$s/reduce" --n "$n" --csv "$csv"
    # The kernels a stage names for the cold/warm L2 chart: again, with the input left in L2.
    warm=$(echo "$list" | sed -n 's/^warm-L2 kernels: //p')
    if [ -n "$warm" ]; then
        echo "== $s, L2 warm: $warm"
        "build/$s/reduce" --n "$n" --kernel "$warm" --l2 warm --csv "$csv"
    fi
done
# Stage 11 (scan, histogram) has a program of its own, with the same CSV columns.
if [ -x build/11_scan_histogram/scan_histogram ]; then
    echo "== 11_scan_histogram"
    build/11_scan_histogram/scan_histogram --n "$sizes" --csv "$csv"
fi
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
    scripts/plot_scan_histogram.sh "$dir/results.csv" "$dir"
else
    echo "gnuplot not found: no charts drawn (make plot CSV=$dir/results.csv draws them where gnuplot is installed)"
fi
echo "results in $dir (make reference copies them to plots/reference/$slug and updates README.md)"
