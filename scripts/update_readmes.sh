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

# Every generated block is made in the language of the README it goes into: lang=en or zh (captions and
# column headers; numbers, kernel names and charts are the same). say EN ZH prints the one of lang.
lang=en
say() { if [ "$lang" = zh ]; then printf '%s' "$2"; else printf '%s' "$1"; fi; }

# fill_both README MAKE: the block that the command MAKE prints, in English into a stage's README.md and
# in Chinese into its README.zh-CN.md (if any).
fill_both() {
    local zh=${1%.md}.zh-CN.md
    lang=en; $2 >"$tmp/block"
    fill "$1" stage-results "$tmp/block" "$tmp/stage.md"
    finish "$1" "$tmp/stage.md"
    if [ -f "$zh" ]; then
        lang=zh; $2 >"$tmp/block"
        fill "$zh" stage-results "$tmp/block" "$tmp/stage.md"
        finish "$zh" "$tmp/stage.md"
    fi
    lang=en
}

# results DIR PREFIX: the charts of DIR (linked as PREFIX/name.png), every kernel's table, the flush check.
results() {
    printf '![%s](%s/bandwidth.png)\n\n![%s](%s/scaling.png)\n\n' "$(say 'bandwidth per stage and kernel' '各阶段各 kernel 的带宽')" "$2" \
        "$(say 'bandwidth against N' '带宽随 N 的变化')" "$2"
    [ -f "$1/roofline.png" ] && printf '![%s](%s/roofline.png)\n\n' "$(say 'stage 08 against CUB and the speed of light' '阶段 08 对比 CUB 与光速')" "$2"
    [ -f "$1/l2.png" ] && printf '![%s](%s/l2.png)\n\n' "$(say 'time against N with L2 flushed and left warm' '刷新 L2 与保留 L2 时的时间随 N 的变化')" "$2"
    awk -F, -v mode=all -v lang=$lang -f scripts/tables.awk "$1/results.csv"
    flush_table "$1/flush_check.csv"
}

# flush_table CSV: the flush check's readings (scripts/flush_check.sh), if the run had ncu.
flush_table() {
    [ -f "$1" ] || return 0
    printf '\n%s\n\n' "$(say 'The L2 flush, checked with hardware counters (`scripts/flush_check.sh`: Nsight Compute, `dram__bytes_read.sum`, `--cache-control none`), the run that read least of each:' \
        'L2 刷新的硬件计数器检查（`scripts/flush_check.sh`：Nsight Compute，`dram__bytes_read.sum`，`--cache-control none`），每项取读得最少的一次运行：')"
    awk -F, -v head="$(say '| kernel | loads | N | input (MiB) | L2 | runs | DRAM bytes read / input | check |' '| kernel | 加载方式 | N | 输入 (MiB) | L2 | 运行次数 | DRAM 读取字节 / 输入 | 检查 |')" 'NR == 1 { next }
        !head_done++ { print head "\n|---|---|---:|---:|---|---:|---:|---|" }
        { split($2, p, ":"); printf "| %s `%s` | %s | %d | %.1f | %s | %d | %.4f | %s |\n", p[1], p[2], $3, $4, $5 / 1048576, $6, $7, $9, ($10 == 1 ? "ok" : "FAIL") }' "$1"
    printf '\n%s\n' "$(say 'Flushed: every run must read at least 99% of its input from DRAM. Warm (no flush, the input left in L2): the control, which must read under half, to show that the counter sees L2 hits.' \
        'flushed：每次运行必须至少从 DRAM 读到输入的 99%。warm（不刷新，输入留在 L2 中）：对照组，必须低于一半，以说明计数器能看到 L2 命中。')"
}

# top LANG: the top README's two blocks in LANG, into $tmp/all and $tmp/best.
top() {
    lang=$1
    { results "$img" "$img"
      for other in plots/reference/*/results.csv; do
          dir=$(dirname "$other")
          [ "$dir" = "$img" ] && continue
          printf '\n%s [%s/README.md](%s/README.md).\n' "$(say "The same on the $(awk -F, 'NR == 2 { print $1 }' "$other"):" "$(awk -F, 'NR == 2 { print $1 }' "$other") 上的同样结果：")" "$dir" "$dir"
      done; } >"$tmp/all"
    awk -F, -v mode=best -v lang=$lang -f scripts/tables.awk "$csv" >"$tmp/best"
    lang=en
}
for top_readme in README.md:en README.zh-CN.md:zh; do
    top "${top_readme#*:}"
    fill "${top_readme%%:*}" results "$tmp/all" "$tmp/readme1"
    fill "$tmp/readme1" stages "$tmp/best" "$tmp/readme2"
    finish "${top_readme%%:*}" "$tmp/readme2"
done

# stage_block: the block of stage $stage, in $lang.
stage_block() {
    case $stage in
    07_*) [ -f "$img/dtypes.png" ] && printf '![%s](../../%s/dtypes.png)\n\n' "$(say 'bandwidth and elements per second by input type' '各输入类型的带宽与每秒元素数')" "$img" ;;
    08_*) [ -f "$img/roofline.png" ] && printf '![%s](../../%s/roofline.png)\n\n' "$(say 'stage 08 against CUB and the speed of light' '阶段 08 对比 CUB 与光速')" "$img"
          [ -f "$img/l2.png" ] && printf '![%s](../../%s/l2.png)\n\n' "$(say 'time against N with L2 flushed and left warm' '刷新 L2 与保留 L2 时的时间随 N 的变化')" "$img" ;;
    10_*) [ -f "$img/library.png" ] && printf '![%s](../../%s/library.png)\n\n' "$(say 'the library and the precisions against stages 06 and 08' '库函数与各种精度对比阶段 06 和 08')" "$img" ;;
    11_*) [ -f "$img/scan_histogram.png" ] && printf '![%s](../../%s/scan_histogram.png)\n\n' "$(say 'scan and histogram bandwidth' 'scan 与直方图的带宽')" "$img" ;;
    09_*) [ -f "$img/rows.png" ] && printf '![%s](../../%s/rows.png)\n\n' "$(say 'GB/s against the row length, per kernel' '各 kernel 的 GB/s 随行长的变化')" "$img" ;;
    esac
    awk -F, -v mode=stage -v stage="$stage" -v lang=$lang -f scripts/tables.awk "$csv"
    case $stage in
    08_*) printf '\n%s\n\n' "$(say 'The targets, at every N of the run (>1: faster than CUB):' '各目标，在这次运行的每个 N 上（>1：比 CUB 快）：')"
          awk -F, -v stage="$stage" -v lang=$lang -f scripts/ratios.awk "$csv" ;;
    esac
}

for readme in stages/*/README.md; do
    stage=$(basename "$(dirname "$readme")")
    grep -q '<!-- stage-results:begin -->' "$readme" || continue
    awk -F, -v s="$stage" '$2 == s { found = 1 } END { exit !found }' "$csv" || continue
    fill_both "$readme" stage_block
done

# Stage 12 (several GPUs) has a CSV of its own, IMGDIR/multigpu.csv: the sum and the all-reduce table.
multigpu_block() {
    [ -f "$img/multigpu.png" ] && printf '![%s](../../%s/multigpu.png)\n\n' "$(say 'ncclAllReduce bus bandwidth against message size' 'ncclAllReduce 的总线带宽随消息大小的变化')" "$img"
    awk -F, -v sum="$(say '%s, %s: the sum of %d fp32 elements spread over the GPUs, each shard reduced by stage 08 and the partials all-reduced: %.1f µs, %.0f GB/s of input, check %s.' \
                          '%s，%s：%d 个 fp32 元素分布在各 GPU 上求和，每个分片由阶段 08 归约，部分和再做 all-reduce：%.1f µs，输入 %.0f GB/s，检查 %s。')" \
            -v head="$(say '| all-reduce | dtype | bytes per GPU | time (µs) | busbw (GB/s) | check |' '| all-reduce | dtype | 每个 GPU 的字节数 | 时间 (µs) | busbw (GB/s) | 检查 |')" 'NR == 1 { next }
        $3 ~ /^sum_/ { printf sum "\n\n", $1, $3, $5, $6, $7, ($10 == 1 ? "ok" : "FAIL"); next }
        !head_done++ { print head "\n|---|---|---:|---:|---:|---|" }
        { b = $5 * ($4 == "bf16" ? 2 : 4); size = (b >= 1073741824) ? b / 1073741824 " GiB" : b / 1048576 " MiB"
          printf "| `%s` | %s | %s | %.1f | %.1f | %s |\n", $3, $4, size, $6, $7, ($10 == 1 ? "ok" : "FAIL") }' "$img/multigpu.csv"
}
if [ -f "$img/multigpu.csv" ] && [ -f stages/12_multigpu/README.md ]; then
    fill_both stages/12_multigpu/README.md multigpu_block
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
