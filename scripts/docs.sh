#!/usr/bin/env bash
# make reference, docs, docs-check and plot (make help says what each does), through the reporting program.
# usage: scripts/docs.sh reference [GPU] | docs | check | plot [CSV...] | synopsis [--check]
# Exit codes: 0 ok, 1 a difference or a failed claim, 2 usage or missing results, 4 python3 (gnuplot) missing.
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
need python3 "python3 not found: the tables, charts and README blocks are made by scripts/report (apt-get install python3)"
synopsis() { # [--check]: the --help of the first single-GPU program, in the reference's synopsis block
    local first page status=0
    first=$(for p in $(programs); do single "$p" "" >/dev/null && echo "$p" && break; done)
    [ -n "$first" ] || { echo "error: no single-GPU stage program is built (make all)" >&2; return 2; }
    { echo '```'; echo "\$ $first --help"; "$first" --help; echo '```'; } >"$tmp/synopsis"
    for page in docs/README{,.zh-CN}.md; do report fill "$@" "$page" synopsis "$tmp/synopsis" "make docs" || status=1; done
    return $status
}
words() { awk '{ printf "%s`%s`", (NR > 1 ? " " : ""), $0 }'; } # its lines, each a code span, on one line
grading() { # [--check]: docs/classroom's table of what make stage-NN grade checks of each exercise (its program's --describe)
    local src stage bin page promises status=0
    for src in stages/*/exercise.cu; do
        stage=$(basename "$(dirname "$src")")
        [ -x "build/$stage/exercise" ] && [ -x "$(program_of "$stage")" ] ||
            { echo "the grading table is not checked: build/$stage/exercise or its stage's program is not built (make all)"; return 0; }
    done
    for page in docs/classroom{,.zh-CN}.md; do
        case $page in
        *.zh-CN.md) echo "| 练习 | 任务 | 检查的规模（LO..HI：由种子抽取） | 计时的规模 | 检查的承诺 |" ;;
        *) echo "| exercise | tasks | sizes checked (LO..HI: drawn from the seed) | timed at | promises checked |" ;;
        esac >"$tmp/grading"
        echo "|---|---|---|---|---|" >>"$tmp/grading"
        for src in stages/*/exercise.cu; do
            stage=$(basename "$(dirname "$src")") && bin=build/$stage/exercise
            promises=$(describe "$bin" grade_promises)
            printf '| `%s` | %s | `%s` | `%s` | %s |\n' "$stage" "$(tasks "$bin" "$(program_of "$stage")" | words)" \
                "$(sizes=$(describe "$bin" grade_sizes) && echo "${sizes//,/, }")" "$(describe "$bin" grade_time)" \
                "$( [ -n "$promises" ] && tr ' ' '\n' <<<"$promises" | sed 's/,/, /g' | words || echo -)"
        done >>"$tmp/grading"
        report fill "$@" "$page" grading "$tmp/grading" "make docs" || status=1
    done
    return $status
}
stage_table() { # [--check]: the front pages' table of the stages, from the stages' READMEs (scripts/stage_table.py)
    local lang page status=0
    for lang in en zh; do
        page=README.md
        [ "$lang" = en ] || page=README.zh-CN.md
        python3 scripts/stage_table.py "$lang" >"$tmp/stage-table" || return 2
        report fill "$@" "$page" stage-table "$tmp/stage-table" "make docs" || status=1
    done
    return $status
}
charts() { # DIR: the charts of a reference folder, drawn in it (gnuplot)
    for csv in results multigpu; do [ ! -f "$1/$csv.csv" ] || report plot "$1/$csv.csv" "$1" || return $?; done
    [ ! -f "$1/accuracy.csv" ] || report plot-accuracy "$1/accuracy.csv" "$1/accuracy.png"
}
blocks() { # [--check]: every generated block from the committed results of the primary GPU
    local gpu status=0
    gpu=$(cat plots/reference/primary 2>/dev/null) || die "no plots/reference/primary: run make bench and make reference"
    [ -f "plots/reference/$gpu/results.csv" ] ||
        die "plots/reference/$gpu/results.csv not found (plots/reference/primary names $gpu): run make bench and make reference"
    report readmes "$@" "plots/reference/$gpu/results.csv" "plots/reference/$gpu" || status=1
    scripts/tree.sh readme "$@" || status=1
    if ls build/*/* >/dev/null 2>&1; then synopsis "$@" || status=1
    else echo "the program synopsis is not checked: no program is built (make all)"; fi
    grading "$@" || status=1
    stage_table "$@" || status=1
    return $status
}
cmd=${1:-}
shift
case $cmd in
reference)
    gpu=${1:-$(for d in plots/results/*/; do [ -d "$d" ] && basename "$d"; done)}
    [ "$(echo "$gpu" | grep -c .)" -eq 1 ] ||
        die "name the GPU folder of plots/results to use (found: ${gpu:-none}; run make bench first)"
    src=plots/results/$gpu dst=plots/reference/$gpu
    [ -f "$src/results.csv" ] || die "$src/results.csv not found: run make bench first"
    mkdir -p "$dst"
    for f in "$src"/{results,multigpu,flush_check,kernel_times,accuracy,limits}.csv "$src"/{demo,sass,profile}-*.txt "$src"/describe-*.json; do
        [ -f "$f" ] && cp "$f" "$dst/"
    done
    # The commit the copied run measured (HEAD: bench on a committed tree), for the reference's page and claims.
    if head=$(git rev-parse --verify -q HEAD 2>/dev/null) && [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ]; then
        echo "$head" >"$dst/measured_at"
        [ -z "$(git status --porcelain -- 'stages/*/*.cu' 'stages/*/*.mk' common)" ] || echo "warning: kernel or" \
            "harness files differ from HEAD ($head): $dst/measured_at names HEAD, commit and bench again" >&2
    else
        rm -f "$dst/measured_at"
        echo "not a git checkout: $dst/measured_at not written (the commit measured is not recorded)" >&2
    fi
    echo "$gpu" >plots/reference/primary
    charts "$dst" || exit $?
    blocks
    echo "$dst updated; the READMEs and docs/ regenerated from it" ;;
docs)
    if ! command -v gnuplot >/dev/null 2>&1; then
        echo "gnuplot not found: the committed charts are left as they are (apt-get install gnuplot-nox draws them)"
    else for dir in plots/reference/*/; do charts "${dir%/}" || exit $?; done; fi
    blocks ;;
check)
    blocks --check; status=$? # 0 or 1 (no primary GPU: exit 2)
    report claims || status=1
    exit $status ;;
plot)
    csvs=${*:-$(ls plots/reference/*/results.csv plots/reference/*/multigpu.csv 2>/dev/null)}
    [ -n "$csvs" ] || die "no CSV given and no plots/reference/*/results.csv committed"
    for csv in $csvs; do
        out=plots/results/$(gpu_folder "$csv")
        report plot "$csv" "$out" || exit $?
        echo "drew the charts of $csv in $out"
    done ;;
synopsis) synopsis "$@" ;;
*) usage ;;
esac
