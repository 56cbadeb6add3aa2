#!/usr/bin/env bash
# Regenerate the measured numbers of README.md and of every stages/*/README.md from a results CSV,
# so that every number in a README is one the programs printed.
# usage: scripts/update_readmes.sh [--check] CSV IMGDIR
#   README.md and README.zh-CN.md, between <!-- results:begin --> and <!-- results:end -->: the charts
#   IMGDIR/*.png, every kernel's numbers, the flush check (IMGDIR/flush_check.csv) and links to the
#   other GPUs' results; between <!-- stages:begin --> and <!-- stages:end -->: the best kernel
#   of each stage. stages/NN_*/README.md, between <!-- stage-results:begin --> and
#   <!-- stage-results:end --> (and the same in its README.zh-CN.md): that stage's kernels (and the dtypes chart in stage 07's, the
#   roofline and L2 charts in stage 08's). plots/reference/<gpu>/README.md, whole, for every GPU
#   folder: its charts and tables, the page the top README links for the GPUs it does not show.
#   --check: change nothing; exit 1 (with a diff) where a README differs from what CSV gives.
set -eu
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
csv=${1:?usage: scripts/update_readmes.sh [--check] CSV IMGDIR}
img=${2:?usage: scripts/update_readmes.sh [--check] CSV IMGDIR}
[ -f "$csv" ] || { echo "error: $csv not found" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# fill IN MARKER CONTENT OUT: IN with the lines between the marker pair replaced by CONTENT.
fill() {
    grep -q "^<!-- $2:begin -->$" "$1" && grep -q "^<!-- $2:end -->$" "$1" ||
        { echo "error: $1 lacks the lines <!-- $2:begin --> and <!-- $2:end -->" >&2; exit 2; }
    awk -v tag="$2" -v tf="$3" '
        $0 == "<!-- " tag ":begin -->" { print; while ((getline line < tf) > 0) print line; skip = 1; next }
        $0 == "<!-- " tag ":end -->" { skip = 0 }
        !skip' "$1" >"$4"
}

# finish FILE NEW: compare (--check) or replace FILE by NEW.
finish() {
    if [ $check = 1 ]; then
        diff -u "$1" "$2" || { echo "$1 differs from what $csv gives: run make reference" >&2; status=1; }
    else
        cp "$2" "$1"
    fi
}

# fill_both README CONTENT: a stage's README.md and its README.zh-CN.md (if any) get the same block.
fill_both() {
    local zh=${1%.md}.zh-CN.md
    fill "$1" stage-results "$2" "$tmp/stage.md"
    finish "$1" "$tmp/stage.md"
    if [ -f "$zh" ]; then
        fill "$zh" stage-results "$2" "$tmp/stage.md"
        finish "$zh" "$tmp/stage.md"
    fi
}

# results DIR PREFIX: the charts of DIR (linked as PREFIX/name.png), every kernel's table, the flush check.
results() {
    printf '![bandwidth per stage and kernel](%s/bandwidth.png)\n\n![bandwidth against N](%s/scaling.png)\n\n' "$2" "$2"
    [ -f "$1/roofline.png" ] && printf '![stage 08 against CUB and the speed of light](%s/roofline.png)\n\n' "$2"
    [ -f "$1/l2.png" ] && printf '![time against N with L2 flushed and left warm](%s/l2.png)\n\n' "$2"
    awk -F, -v mode=all -f scripts/tables.awk "$1/results.csv"
    flush_table "$1/flush_check.csv"
}

# flush_table CSV: the flush check's readings (scripts/flush_check.sh), if the run had ncu.
flush_table() {
    [ -f "$1" ] || return 0
    printf '\nThe L2 flush, checked with hardware counters (`scripts/flush_check.sh`: Nsight Compute, `dram__bytes_read.sum`, `--cache-control none`), the run that read least of each:\n\n'
    awk -F, 'NR == 1 { next }
        !head++ { print "| kernel | loads | N | input (MiB) | L2 | runs | DRAM bytes read / input | check |\n|---|---|---:|---:|---|---:|---:|---|" }
        { split($2, p, ":"); printf "| %s `%s` | %s | %d | %.1f | %s | %d | %.4f | %s |\n", p[1], p[2], $3, $4, $5 / 1048576, $6, $7, $9, ($10 == 1 ? "ok" : "FAIL") }' "$1"
    printf '\nFlushed: every run must read at least 99%% of its input from DRAM. Warm (no flush, the input left in L2): the control, which must read under half, to show that the counter sees L2 hits.\n'
}

{ results "$img" "$img"
  for other in plots/reference/*/results.csv; do
      dir=$(dirname "$other")
      [ "$dir" = "$img" ] && continue
      printf '\nThe same on the %s: [%s/README.md](%s/README.md).\n' "$(awk -F, 'NR == 2 { print $1 }' "$other")" "$dir" "$dir"
  done; } >"$tmp/all"
awk -F, -v mode=best -f scripts/tables.awk "$csv" >"$tmp/best"
for top in README.md README.zh-CN.md; do
    fill $top results "$tmp/all" "$tmp/readme1"
    fill "$tmp/readme1" stages "$tmp/best" "$tmp/readme2"
    finish $top "$tmp/readme2"
done

for readme in stages/*/README.md; do
    stage=$(basename "$(dirname "$readme")")
    grep -q '<!-- stage-results:begin -->' "$readme" || continue
    awk -F, -v s="$stage" '$2 == s { found = 1 } END { exit !found }' "$csv" || continue
    { case $stage in
      07_*) [ -f "$img/dtypes.png" ] && printf '![bandwidth and elements per second by input type](../../%s/dtypes.png)\n\n' "$img" ;;
      08_*) [ -f "$img/roofline.png" ] && printf '![stage 08 against CUB and the speed of light](../../%s/roofline.png)\n\n' "$img"
            [ -f "$img/l2.png" ] && printf '![time against N with L2 flushed and left warm](../../%s/l2.png)\n\n' "$img" ;;
      10_*) [ -f "$img/library.png" ] && printf '![the library and the precisions against stages 06 and 08](../../%s/library.png)\n\n' "$img" ;;
      11_*) [ -f "$img/scan_histogram.png" ] && printf '![scan and histogram bandwidth](../../%s/scan_histogram.png)\n\n' "$img" ;;
      09_*) [ -f "$img/rows.png" ] && printf '![GB/s against the row length, per kernel](../../%s/rows.png)\n\n' "$img" ;;
      esac
      awk -F, -v mode=stage -v stage="$stage" -f scripts/tables.awk "$csv"
      case $stage in
      08_*) printf '\nThe targets, at every N of the run (>1: faster than CUB):\n\n'
            awk -F, -v stage="$stage" -f scripts/ratios.awk "$csv" ;;
      esac; } >"$tmp/stage"
    fill_both "$readme" "$tmp/stage"
done

# Stage 12 (several GPUs) has a CSV of its own, IMGDIR/multigpu.csv: the sum and the all-reduce table.
readme=stages/12_multigpu/README.md
if [ -f "$img/multigpu.csv" ] && [ -f "$readme" ]; then
    { [ -f "$img/multigpu.png" ] && printf '![ncclAllReduce bus bandwidth against message size](../../%s/multigpu.png)\n\n' "$img"
      awk -F, 'NR == 1 { next }
        $3 ~ /^sum_/ { printf "%s, %s: the sum of %d fp32 elements spread over the GPUs, each shard reduced by stage 08 and the partials all-reduced: %.1f µs, %.0f GB/s of input, check %s.\n\n", $1, $3, $5, $6, $7, ($10 == 1 ? "ok" : "FAIL"); next }
        !head++ { print "| all-reduce | dtype | bytes per GPU | time (µs) | busbw (GB/s) | check |\n|---|---|---:|---:|---:|---|" }
        { b = $5 * ($4 == "bf16" ? 2 : 4); size = (b >= 1073741824) ? b / 1073741824 " GiB" : b / 1048576 " MiB"
          printf "| `%s` | %s | %s | %.1f | %.1f | %s |\n", $3, $4, size, $6, $7, ($10 == 1 ? "ok" : "FAIL") }' "$img/multigpu.csv"; } >"$tmp/stage"
    fill_both "$readme" "$tmp/stage"
fi
# Each GPU's own page: everything the top README shows for the primary GPU.
for other in plots/reference/*/results.csv; do
    dir=$(dirname "$other")
    { printf '# Reference results: %s\n\n' "$(awk -F, 'NR == 2 { print $1 }' "$other")"
      printf 'Generated by `make reference` from [results.csv](results.csv) (`make bench` on this GPU); do not edit.\n\n'
      results "$dir" .
      printf '\n## Best kernel of each stage\n\n'
      awk -F, -v mode=best -f scripts/tables.awk "$other"
      if grep -q ',08_roofline,' "$other"; then
          printf '\n## Stage 08: x CUB and the speed of light at every N\n\n'
          awk -F, -v stage=08_roofline -f scripts/ratios.awk "$other"
      fi; } >"$tmp/gpu.md"
    if [ $check = 1 ] && [ ! -f "$dir/README.md" ]; then
        echo "$dir/README.md is missing: run make reference" >&2
        status=1
    else
        [ -f "$dir/README.md" ] || : >"$dir/README.md"
        finish "$dir/README.md" "$tmp/gpu.md"
    fi
done
exit $status
