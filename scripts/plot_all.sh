#!/usr/bin/env bash
# make plot: draw the charts from CSVs with no GPU involved.
# usage: scripts/plot_all.sh [CSV...]   (default: every committed plots/reference/*/results.csv and
#                                        plots/reference/*/multigpu.csv)
# Writes the charts of scripts/plot.sh (every plots/*.gp whose rows the CSV has) into plots/results/<gpu>/.
set -eu
cd "$(dirname "$0")/.."
csvs=${*:-$(ls plots/reference/*/results.csv plots/reference/*/multigpu.csv 2>/dev/null || true)}
[ -n "$csvs" ] || { echo "error: no CSV given and no plots/reference/*/results.csv committed" >&2; exit 2; }
for csv in $csvs; do
    out=plots/results/$(scripts/gpu_folder.sh "$csv")
    scripts/plot.sh "$csv" "$out"
    echo "drew the charts of $csv in $out"
done
