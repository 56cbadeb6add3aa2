#!/usr/bin/env bash
# make plot: draw the charts from a CSV with no GPU involved.
# usage: scripts/plot_all.sh [CSV]   (default: every committed plots/reference/*/results.csv)
# Writes plots/results/<gpu>/bandwidth.png and scaling.png.
set -eu
cd "$(dirname "$0")/.."
csvs=${1:-$(ls plots/reference/*/results.csv 2>/dev/null || true)}
[ -n "$csvs" ] || { echo "error: no CSV given and no plots/reference/*/results.csv committed" >&2; exit 2; }
for csv in $csvs; do
    slug=$(awk -F, 'NR == 2 { print $1 }' "$csv" | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-//; s/-$//')
    out=plots/results/$slug
    mkdir -p "$out"
    scripts/plot.sh "$csv" "$out"
    echo "wrote $out/bandwidth.png and $out/scaling.png from $csv"
done
