#!/usr/bin/env bash
# Regenerate the measured numbers of README.md and of every stages/*/README.md from a results CSV,
# so that every number in a README is one the programs printed.
# usage: scripts/update_readmes.sh [--check] CSV IMGDIR
#   README.md and README.zh-CN.md (the front page), between <!-- front:begin --> and <!-- front:end -->:
#   the chart whose plots/*.gp header says "readme: front"; between <!-- stages:begin --> and
#   <!-- stages:end -->: the best kernel of each stage. docs/results.md and docs/results.zh-CN.md,
#   between <!-- results:begin --> and <!-- results:end -->: the charts of IMGDIR whose header says
#   "readme: top", every kernel's numbers, the flush check (IMGDIR/flush_check.csv) and links to the
#   other GPUs' results; between <!-- accuracy:begin --> and <!-- accuracy:end -->: the accuracy lab's
#   chart and tables (IMGDIR/accuracy.csv, make accuracy). stages/NN_*/README.md, between
#   <!-- stage-results:begin --> and <!-- stage-results:end --> (and the same in its README.zh-CN.md):
#   the charts that stage owns (token NAME+ in its rows' charts column) whose header says "readme:
#   stage", and that stage's table: its kernels from CSV, or, for a stage whose rows are in
#   IMGDIR/multigpu.csv (several GPUs), its sum and its all-reduce at every size; for the stage that
#   owns the roofline chart, its targets at every N too; for a stage with a cited.csv, an article's own
#   figures (copied there, with their source: a chain of steps, a benchmark grid, or claimed ratios)
#   beside the run's (scripts/cited.awk); for a stage with a targets.csv, each target met or not on every
#   committed GPU (scripts/targets.awk); for a stage with an every_n.txt, the times of the kernels it
#   names at every N (scripts/times.awk). plots/reference/<gpu>/README.md, whole, for
#   every GPU folder: its charts and tables, the page the top README links for the GPUs it does not show.
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
    awk -v tag="$2" -v block="$3" -f scripts/readme_block.awk "$1" >"$4"
}

# finish FILE NEW: compare (--check) or replace FILE by NEW.
finish() {
    if [ $check = 1 ]; then
        diff -u "$1" "$2" || { echo "$1 differs from what $csv gives: run make reference" >&2; status=1; }
    else
        cp "$2" "$1"
    fi
}

# columns CSV... -- PROGRAM: run the awk PROGRAM over results CSVs, their columns read by name
# ($col["stage"]) through scripts/csv.awk; PROGRAM sets `need` to the columns it reads.
columns() {
    local files=()
    while [ "$1" != -- ]; do files+=("$1"); shift; done
    awk -f scripts/csv.awk -f <(printf '%s' "$2") "${files[@]}"
}

# Every generated block is made in the language of the README it goes into: lang=en or zh (captions and
# column headers; numbers, kernel names and charts are the same). say EN ZH prints the one of lang.
lang=en
say() { if [ "$lang" = zh ]; then printf '%s' "$2"; else printf '%s' "$1"; fi; }

# key FILE KEY: the value of "# KEY: value" in the header of the chart FILE (scripts/plot.sh tells the keys).
key() { sed -n "/^#/!q; s/^# $2: *//p" "$1"; }

# The charts: where each goes (readme) and its alt text, by name.
declare -A readme_of alt_of
for gp in plots/*.gp; do
    name=$(key "$gp" chart)
    [ -n "$name" ] || continue
    readme_of[$name]=" $(key "$gp" readme) "
    alt_of[$name]=$(key "$gp" alt)
done

# chart_stages CSV...: for every chart token of the CSVs, in the order of its first appearance:
# NAME <tab> the numbers of the stages that own it <tab> the numbers of the others, space-separated.
chart_stages() {
    columns "$@" -- '
        BEGIN { need = "stage charts" }
        !($col["stage"] in seen) {
            seen[$col["stage"]] = 1
            number = substr($col["stage"], 1, index($col["stage"], "_") - 1)
            count = split($col["charts"], tokens, " ")
            for (i = 1; i <= count; i++) {
                name = tokens[i]; owned = sub(/\+$/, "", name)
                if (!(name in charts)) { charts[name] = 1; order[++names] = name }
                if (owned) own[name] = own[name] " " number; else others[name] = others[name] " " number
            }
        }
        END { for (i = 1; i <= names; i++) printf "%s\t%s\t%s\n", order[i], own[order[i]], others[order[i]] }'
}

# numbers LIST: the stage numbers of LIST as a phrase in lang ("a, b and c"; in Chinese "a、b 和 c").
numbers() {
    local list phrase='' i
    read -ra list <<<"$1"
    for ((i = 0; i < ${#list[@]}; i++)); do
        if [ "$i" -eq 0 ]; then phrase=${list[i]}
        elif [ "$i" -eq $((${#list[@]} - 1)) ]; then phrase="$phrase$(say ' and ' ' 和 ')${list[i]}"
        else phrase="$phrase$(say ', ' '、')${list[i]}"; fi
    done
    printf '%s' "$phrase"
}

# images WHERE DIR PREFIX CSV...: the images of the charts that go to WHERE (front: the front page's
# picture; top: the results pages; or stage:NN_name for the charts that stage owns) and are drawn in DIR, linked as PREFIX/NAME.png, in the order of the
# chart tokens in the CSVs, with the alt text in lang.
images() {
    local where=$1 dir=$2 prefix=$3 name own others alt
    shift 3
    while IFS=$'\t' read -r name own others; do
        [ -n "${alt_of[$name]+set}" ] && [ -f "$dir/$name.png" ] || continue
        case $where in
        top | front) [[ ${readme_of[$name]} == *" $where "* ]] || continue ;;
        stage:*) [[ ${readme_of[$name]} == *" stage "* ]] && owns "${where#stage:}" "$name" "$@" || continue ;;
        esac
        alt=$(say "${alt_of[$name]% | *}" "${alt_of[$name]#* | }")
        alt=${alt//"{stage}"/$(numbers "$own")}
        alt=${alt//"{others}"/$(numbers "$others")}
        printf '![%s](%s/%s.png)\n\n' "$alt" "$prefix" "$name"
    done < <(chart_stages "$@")
}

# owns STAGE NAME CSV...: whether the rows of STAGE carry the token NAME+.
owns() {
    local stage=$1 name=$2
    shift 2
    columns "$@" -- 'BEGIN { need = "stage charts" }
        $col["stage"] == "'"$stage"'" && index(" " $col["charts"] " ", " '"$name"'+ ") { found = 1; exit }
        END { exit !found }'
}

# owner NAME CSV: the stage that owns the chart NAME, if any.
owner() {
    columns "$2" -- 'BEGIN { need = "stage charts" }
        index(" " $col["charts"] " ", " '"$1"'+ ") { print $col["stage"]; exit }'
}

# gpu_of CSV: the GPU of a results CSV.
gpu_of() { columns "$1" -- 'BEGIN { need = "gpu" } { print $col["gpu"]; exit }'; }

# results DIR PREFIX: the charts of DIR (linked as PREFIX/name.png), every kernel's table, the flush check.
results() {
    images top "$1" "$2" "$1/results.csv"
    awk -f scripts/csv.awk -v mode=all -v lang=$lang -f scripts/tables.awk "$1/results.csv"
    flush_table "$1/flush_check.csv"
}

# flush_table CSV: the flush check's readings (scripts/flush_check.sh), if the run had ncu.
flush_table() {
    [ -f "$1" ] || return 0
    printf '\n%s\n\n' "$(say 'The L2 flush, checked with hardware counters (`scripts/flush_check.sh`: Nsight Compute, `dram__bytes_read.sum`, `--cache-control none`), the run that read least of each:' \
        'L2 刷新的硬件计数器检查（`scripts/flush_check.sh`：Nsight Compute，`dram__bytes_read.sum`，`--cache-control none`），每项取读得最少的一次运行：')"
    columns "$1" -- 'BEGIN { need = "probe loads n input_bytes l2 runs ratio_min pass"
                             head = "'"$(say '| kernel | loads | N | input (MiB) | L2 | runs | DRAM bytes read / input | check |' '| kernel | 加载方式 | N | 输入 (MiB) | L2 | 运行次数 | DRAM 读取字节 / 输入 | 检查 |')"'" }
        !head_done++ { print head "\n|---|---|---:|---:|---|---:|---:|---|" }
        { split($col["probe"], p, ":")
          printf "| %s `%s` | %s | %d | %.1f | %s | %d | %.4f | %s |\n", p[1], p[2], $col["loads"], $col["n"], $col["input_bytes"] / 1048576, $col["l2"], $col["runs"], $col["ratio_min"], ($col["pass"] == 1 ? "ok" : "FAIL") }'
    printf '\n%s\n' "$(say 'Flushed: every run must read at least 99% of its input from DRAM. Warm (no flush, the input left in L2): the control, which must read under half, to show that the counter sees L2 hits.' \
        'flushed：每次运行必须至少从 DRAM 读到输入的 99%。warm（不刷新，输入留在 L2 中）：对照组，必须低于一半，以说明计数器能看到 L2 命中。')"
}

# accuracy DIR PREFIX: the accuracy lab's chart (linked as PREFIX/accuracy.png) and tables, from DIR/accuracy.csv.
accuracy() {
    if [ ! -f "$1/accuracy.csv" ]; then
        say 'No accuracy results are committed for this GPU (`make accuracy`, then `make reference`).' \
            '这块 GPU 还没有提交精度结果（先 `make accuracy`，再 `make reference`）。'
        printf '\n'
        return 0
    fi
    [ -f "$1/accuracy.png" ] && printf '![%s](%s/accuracy.png)\n\n' "$(say 'relative error against N and against the condition number' '相对误差随 N 和随条件数的变化')" "$2"
    printf '%s\n\n' "$(say "$(gpu_of "$1/accuracy.csv"), \`make accuracy\`:" "$(gpu_of "$1/accuracy.csv")，\`make accuracy\`：")"
    awk -f scripts/csv.awk -v lang=$lang -f scripts/accuracy.awk "$1/accuracy.csv"
}

# top LANG: the blocks of the front page (README.md: its picture, the best kernel of each stage) and
# of the results page (docs/results.md: every kernel, the flush check, the accuracy lab) in LANG, into
# $tmp/front, $tmp/best, $tmp/all and $tmp/accuracy. The results page links from docs/, one folder down.
top() {
    lang=$1
    images front "$img" "$img" "$csv" >"$tmp/front"
    sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp/front"
    { results "$img" "../$img"
      for other in plots/reference/*/results.csv; do
          dir=$(dirname "$other")
          [ "$dir" = "$img" ] && continue
          printf '\n%s [%s/README.md](../%s/README.md).\n' "$(say "The same on the $(gpu_of "$other"):" "$(gpu_of "$other") 上的同样结果：")" "$dir" "$dir"
      done; } >"$tmp/all"
    awk -f scripts/csv.awk -v mode=best -v lang=$lang -f scripts/tables.awk "$csv" >"$tmp/best"
    accuracy "$img" "../$img" >"$tmp/accuracy"
    lang=en
}
for top_readme in README.md:docs/results.md:en README.zh-CN.md:docs/results.zh-CN.md:zh; do
    IFS=: read -r front_page results_page top_lang <<<"$top_readme"
    top "$top_lang"
    fill "$front_page" front "$tmp/front" "$tmp/readme1"
    fill "$tmp/readme1" stages "$tmp/best" "$tmp/readme2"
    finish "$front_page" "$tmp/readme2"
    fill "$results_page" results "$tmp/all" "$tmp/readme1"
    fill "$tmp/readme1" accuracy "$tmp/accuracy" "$tmp/readme2"
    finish "$results_page" "$tmp/readme2"
done

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

# stage_block: the block of stage $stage, whose rows are in $stage_csv, in $lang.
stage_block() {
    images "stage:$stage" "$img" "../../$img" "$stage_csv"
    if [ "$stage_csv" = "$csv" ]; then
        awk -f scripts/csv.awk -v mode=stage -v stage="$stage" -v lang=$lang -f scripts/tables.awk "$csv"
    else
        sizes_table "$stage_csv"
    fi
    # An article's own measurements beside this run's, where the stage keeps them (stages/NN_*/cited.csv).
    if [ -f "stages/$stage/cited.csv" ]; then
        printf '\n'
        awk -f scripts/csv.awk -v cited="stages/$stage/cited.csv" -v stage="$stage" -v lang=$lang -f scripts/cited.awk "$stage_csv"
    fi
    # Kernels whose differences show at small N, where the stage names them (stages/NN_*/every_n.txt).
    if [ -f "stages/$stage/every_n.txt" ]; then
        printf '\n'
        awk -f scripts/csv.awk -v stage="$stage" -v kernels="$(tr -s ' \n' '  ' <"stages/$stage/every_n.txt")" -v lang="$lang" \
            -f scripts/times.awk "$stage_csv"
    fi
    # The stage's targets on every GPU's committed results, where it has them (stages/NN_*/targets.csv).
    if [ -f "stages/$stage/targets.csv" ] && [ "$stage_csv" = "$csv" ]; then
        printf '\n%s\n\n' "$(say "The stage's targets (\`targets.csv\`), on every GPU's committed results: the worst ratio over the sizes, and where:" \
            '本阶段的目标（`targets.csv`），在每块 GPU 已提交的结果上：各规模中最差的比值及其位置：')"
        awk -f scripts/csv.awk -v stage="$stage" -v targets="stages/$stage/targets.csv" -v lang=$lang -f scripts/targets.awk plots/reference/*/results.csv
    fi
    if owns "$stage" roofline "$stage_csv"; then
        printf '\n%s\n\n' "$(say 'The targets, at every N of the run (>1: faster than CUB):' '各目标，在这次运行的每个 N 上（>1：比 CUB 快）：')"
        awk -f scripts/csv.awk -v stage="$stage" -v lang=$lang -f scripts/ratios.awk "$stage_csv"
    fi
    # What limits the stage's limit kernels at each N, where make limits measured them (limits.csv).
    if [ "$stage_csv" = "$csv" ] && [ -f "$img/limits.csv" ] &&
        columns "$img/limits.csv" -- 'BEGIN { need = "stage" } $col["stage"] == "'"$stage"'" { found = 1; exit } END { exit !found }'; then
        printf '\n%s\n\n' "$(say "What limits each N: Nsight Compute's counters of the timed run (\`make limits\`, $(gpu_of "$img/limits.csv")):" \
            "每个 N 的限制因素：被计时那次运行的 Nsight Compute 计数器（\`make limits\`，$(gpu_of "$img/limits.csv")）：")"
        awk -f scripts/csv.awk -v stage="$stage" -v lang=$lang -f scripts/limits.awk "$img/limits.csv"
        for other in plots/reference/*/limits.csv; do
            [ "$(dirname "$other")" = "$img" ] && continue
            printf '\n%s\n' "$(say "The same counters on the $(gpu_of "$other"): [limits.csv](../../$other)." "$(gpu_of "$other") 上的同样计数器：[limits.csv](../../$other)。")"
        done
    fi
}

# sizes_table CSV: the program that runs on several GPUs: its sum (kernels sum_*), as a sentence, and its
# all-reduce at every size. Each GPU's shard is summed by the kernels of the stage that owns the roofline chart.
sizes_table() {
    local via
    via=$(owner roofline "$csv")
    via=${via%%_*}
    columns "$1" -- 'BEGIN { need = "gpu kernel dtype n median_us gbps pass bytes_read"
            sum = "'"$(say "%s, %s: the sum of %d fp32 elements spread over the GPUs, each shard reduced by stage $via and the partials all-reduced: %.1f µs, %.0f GB/s of input, check %s." \
                           "%s，%s：%d 个 fp32 元素分布在各 GPU 上求和，每个分片由阶段 $via 归约，部分和再做 all-reduce：%.1f µs，输入 %.0f GB/s，检查 %s。")"'"
            head = "'"$(say '| all-reduce | dtype | bytes per GPU | time (µs) | busbw (GB/s) | check |' '| all-reduce | dtype | 每个 GPU 的字节数 | 时间 (µs) | busbw (GB/s) | 检查 |')"'" }
        { ok = $col["pass"] == 1 ? "ok" : "FAIL" }
        $col["kernel"] ~ /^sum_/ { printf sum "\n\n", $col["gpu"], $col["kernel"], $col["n"], $col["median_us"], $col["gbps"], ok; next }
        !head_done++ { print head "\n|---|---|---:|---:|---:|---|" }
        { b = $col["bytes_read"]; size = (b >= 1073741824) ? b / 1073741824 " GiB" : b / 1048576 " MiB"
          printf "| `%s` | %s | %s | %.1f | %.1f | %s |\n", $col["kernel"], $col["dtype"], size, $col["median_us"], $col["gbps"], ok }'
}

for readme in stages/*/README.md; do
    stage=$(basename "$(dirname "$readme")")
    grep -q '<!-- stage-results:begin -->' "$readme" || continue
    for stage_csv in "$csv" "$img/multigpu.csv"; do
        [ -f "$stage_csv" ] && columns "$stage_csv" -- 'BEGIN { need = "stage" } $col["stage"] == "'"$stage"'" { found = 1; exit } END { exit !found }' || continue
        fill_both "$readme" stage_block
        break
    done
done

# A stage README with the lines <!-- demo-output:begin --> and <!-- demo-output:end -->: its demo's
# output on the primary GPU (make bench keeps it as demo-<stage>.txt), and where the others' is.
demo_block() {
    printf '%s\n\n```\n' "$(say "\`make stage-${stage%%_*} demo\` on the $(gpu_of "$csv"), from its reference results:" \
        "$(gpu_of "$csv") 上的 \`make stage-${stage%%_*} demo\`，取自它的参考结果：")"
    cat "$img/demo-$stage.txt"
    printf '```\n'
    for other in plots/reference/*/demo-"$stage".txt; do
        [ "$(dirname "$other")" = "$img" ] && continue
        local gpu_name
        gpu_name=$(gpu_of "$(dirname "$other")/results.csv")
        printf '\n%s\n' "$(say "The same on the $gpu_name: [$(basename "$other")](../../$other)." "$gpu_name 上的同样输出：[$(basename "$other")](../../$other)。")"
    done
}
for readme in stages/*/README.md; do
    grep -qx '<!-- demo-output:begin -->' "$readme" || continue
    stage=$(basename "$(dirname "$readme")")
    [ -f "$img/demo-$stage.txt" ] || { echo "error: $readme shows its demo's output, and $img/demo-$stage.txt is missing: run make bench" >&2; exit 2; }
    for lang in en zh; do
        file=$readme
        [ $lang = zh ] && file=${readme%.md}.zh-CN.md
        [ -f "$file" ] || continue
        demo_block >"$tmp/block"
        fill "$file" demo-output "$tmp/block" "$tmp/demo.md"
        finish "$file" "$tmp/demo.md"
    done
    lang=en
done

# Each GPU's own page: everything the top README shows for the primary GPU.
for other in plots/reference/*/results.csv; do
    dir=$(dirname "$other")
    roofline=$(owner roofline "$other")
    { printf '# Reference results: %s\n\n' "$(gpu_of "$other")"
      printf 'Generated by `make reference` from [results.csv](results.csv) (`make bench` on this GPU); do not edit.\n\n'
      results "$dir" .
      printf '\n## Best kernel of each stage\n\n'
      awk -f scripts/csv.awk -v mode=best -f scripts/tables.awk "$other"
      if [ -n "$roofline" ]; then
          printf '\n## Stage %s: x CUB and the speed of light at every N\n\n' "${roofline%%_*}"
          awk -f scripts/csv.awk -v stage="$roofline" -f scripts/ratios.awk "$other"
      fi
      printf '\n## Accuracy\n\n'
      accuracy "$dir" .; } >"$tmp/gpu.md"
    if [ $check = 1 ] && [ ! -f "$dir/README.md" ]; then
        echo "$dir/README.md is missing: run make reference" >&2
        status=1
    else
        [ -f "$dir/README.md" ] || : >"$dir/README.md"
        finish "$dir/README.md" "$tmp/gpu.md"
    fi
done
exit $status
