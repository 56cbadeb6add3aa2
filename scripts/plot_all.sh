#!/usr/bin/env bash
# make plot: draw the charts from a CSV with no GPU involved.
# usage: scripts/plot_all.sh [CSV]   (default: every committed plots/reference/*/results.csv)
# Writes the charts of scripts/plot.sh into plots/results/<gpu>/.
set -eu
cd "$(dirname "$0")/.."
csvs=${1:-$(ls plots/reference/*/results.csv 2>/dev/null || true)}
[ -n "$csvs" ] || { echo "error: no CSV given and no plots/reference/*/results.csv committed" >&2; exit 2; }
for csv in $csvs; do
    slug=$(scripts/gpu_folder.sh "$csv")
    out=plots/results/$slug
    mkdir -p "$out"
    scripts/plot.sh "$csv" "$out"
    echo "wrote the charts (bandwidth.png, scaling.png, and roofline.png / dtypes.png where the CSV has those stages) in $out from $csv"
done
