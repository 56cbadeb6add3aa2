#!/usr/bin/env bash
# make reference: make the last `make bench` the committed reference results.
# usage: scripts/reference.sh [--check] [GPU]
#   Copies plots/results/<GPU>/ (results.csv, and multigpu.csv, flush_check.csv, the demos' output
#   demo-<stage>.txt, the accuracy lab's accuracy.csv and make limits' limits.csv where the run has them) to
#   plots/reference/<GPU>/ and draws their charts there
#   (scripts/plot.sh, scripts/plot_accuracy.sh), records GPU in
#   plots/reference/primary as the results README.md shows, and regenerates the READMEs' tables.
#   GPU defaults to the only folder in plots/results/. NVLINK_GBPS and NVLINK_LABEL (scripts/plot.sh)
#   draw a link figure the CSV does not hold on the all-reduce chart.
#   --check: change nothing; exit 1 if README.md differs from what the primary reference CSV gives.
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = --check ]; then
    gpu=$(cat plots/reference/primary 2>/dev/null) || { echo "error: no plots/reference/primary: run make bench and make reference" >&2; exit 1; }
    exec scripts/update_readmes.sh --check "plots/reference/$gpu/results.csv" "plots/reference/$gpu"
fi
gpu=${1:-}
if [ -z "$gpu" ]; then
    dirs=$(cd plots/results 2>/dev/null && ls -d */ 2>/dev/null | tr -d /) || true
    if [ "$(echo "$dirs" | grep -c .)" -ne 1 ]; then
        echo "error: name the GPU folder of plots/results to use (found: ${dirs:-none}; run make bench first)" >&2
        exit 2
    fi
    gpu=$dirs
fi
src=plots/results/$gpu
[ -f "$src/results.csv" ] || { echo "error: $src/results.csv not found: run make bench first" >&2; exit 2; }
mkdir -p "plots/reference/$gpu"
[ -f "$src/flush_check.csv" ] && cp "$src/flush_check.csv" "plots/reference/$gpu/"
for f in "$src"/demo-*.txt; do [ -f "$f" ] && cp "$f" "plots/reference/$gpu/"; done
for data in results.csv multigpu.csv; do
    [ -f "$src/$data" ] || continue
    cp "$src/$data" "plots/reference/$gpu/"
    scripts/plot.sh "$src/$data" "plots/reference/$gpu"
done
[ -f "$src/limits.csv" ] && cp "$src/limits.csv" "plots/reference/$gpu/"
if [ -f "$src/accuracy.csv" ]; then
    cp "$src/accuracy.csv" "plots/reference/$gpu/"
    scripts/plot_accuracy.sh "$src/accuracy.csv" "plots/reference/$gpu/accuracy.png"
fi
echo "$gpu" >plots/reference/primary
scripts/update_readmes.sh "plots/reference/$gpu/results.csv" "plots/reference/$gpu"
echo "plots/reference/$gpu updated; README.md regenerated from it"
