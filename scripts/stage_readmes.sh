#!/usr/bin/env bash
# Fill the "Measured" block of every stages/*/README.md from a results CSV, so that the numbers in
# a stage README are the ones the programs printed.
# usage: scripts/stage_readmes.sh [--check] CSV
#   Replaces the lines between <!-- stage-results:begin --> and <!-- stage-results:end --> with a
#   table of the stage's kernels and CUB at the largest N in CSV.
#   --check: change nothing; exit 1 (with a diff) if a README differs from what CSV gives.
set -eu
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
csv=${1:?usage: scripts/stage_readmes.sh [--check] CSV}
[ -f "$csv" ] || { echo "error: $csv not found" >&2; exit 2; }

table() { # stage
    awk -F, -v stage="$1" '
        NR == 1 || $2 == "00_device" { if ($3 == "dram_peak") peak = $7; next }
        { if ($5 + 0 > maxn) maxn = $5 + 0; gpu = $1 }
        { key = $2 SUBSEP $3 SUBSEP $5; row[key] = $0; if (!(($2 SUBSEP $3) in seen)) { seen[$2 SUBSEP $3] = 1; order[++count] = $2 SUBSEP $3 } }
        END {
            split(order[1], b, SUBSEP)   # first kernel of the file: stage 01 baseline
            split(row[b[1] SUBSEP b[2] SUBSEP maxn], base, ",")
            printf "%s, N = %d (%.0f MiB of fp32), medians with L2 flushed before every run; theoretical DRAM peak %.0f GB/s.\n\n", gpu, maxn, maxn * 4 / 1048576, peak
            print "| kernel | time (µs) | GB/s | % of peak | speed-up vs 01 | check |"
            print "|---|---:|---:|---:|---:|---|"
            for (i = 1; i <= count; i++) {
                split(order[i], k, SUBSEP)
                if (k[1] != stage || !((k[1] SUBSEP k[2] SUBSEP maxn) in row)) continue
                split(row[k[1] SUBSEP k[2] SUBSEP maxn], f, ",")
                printf "| `%s` | %.1f | %.0f | %.1f | %.1fx | %s |\n", f[3], f[6], f[7], f[8], base[6] / f[6], f[10] == 1 ? "ok" : "FAIL"
            }
        }' "$csv"
}

status=0
for readme in stages/*/README.md; do
    stage=$(basename "$(dirname "$readme")")
    grep -q '<!-- stage-results:begin -->' "$readme" || continue
    if ! awk -F, -v s="$stage" '$2 == s { found = 1 } END { exit !found }' "$csv"; then
        echo "note: $csv has no rows for $stage; its README is left as it is" >&2
        continue
    fi
    table "$stage" >"$readme.table"
    awk -v tf="$readme.table" '
        /<!-- stage-results:begin -->/ { print; while ((getline line < tf) > 0) print line; skip = 1; next }
        /<!-- stage-results:end -->/ { skip = 0 }
        !skip' "$readme" >"$readme.new"
    rm -f "$readme.table"
    if [ $check = 1 ]; then
        if ! diff -u "$readme" "$readme.new"; then
            echo "$readme differs from what $csv gives: run make reference" >&2
            status=1
        fi
        rm -f "$readme.new"
    else
        mv "$readme.new" "$readme"
    fi
done
exit $status
