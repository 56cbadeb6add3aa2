#!/usr/bin/env bash
# What people read, from the committed results: the make verbs reference, docs, docs-check and plot.
# The reporting program (python3 scripts/report) writes every block and chart; this drives it.
# usage: scripts/docs.sh reference [GPU]   make reference: the last make bench (plots/results/GPU/:
#            results.csv, and multigpu.csv, flush_check.csv, the demos' demo-<stage>.txt, the programs'
#            describe-<stage>.txt, the accuracy lab's accuracy.csv and make limits' limits.csv where the
#            run has them) copied to plots/reference/GPU/, recorded as the GPU the front page shows
#            (plots/reference/primary), then make docs. GPU defaults to the only folder in plots/results/.
#        scripts/docs.sh docs              make docs: every generated block (the measured blocks, the
#            program synopsis where a program is built, the tree blocks) and, where gnuplot is
#            installed, the committed charts
#        scripts/docs.sh check             make docs-check: change nothing; exit 1, naming the file,
#            where a block would change, or naming the claim where a claim fails
#        scripts/docs.sh plot [CSV...]     make plot: the charts of CSVs (default: the committed
#            results) into plots/results/<gpu>/
#        scripts/docs.sh synopsis [--check]   the synopsis block only (the programs built: make all)
# Exit codes: 0 ok, 1 a difference or a failed claim (check), 2 usage or missing results, 4 python3
# (or, for charts, gnuplot) missing.
set -u
cd "$(dirname "$0")/.."
source scripts/lib.sh
command -v python3 >/dev/null 2>&1 ||
    { echo "python3 not found: the tables, charts and README blocks are made by scripts/report (apt-get install python3)" >&2; exit 4; }
report() { python3 scripts/report "$@"; }
primary() {
    local gpu
    gpu=$(cat plots/reference/primary 2>/dev/null) || { echo "error: no plots/reference/primary: run make bench and make reference" >&2; exit 2; }
    echo "plots/reference/$gpu"
}

# synopsis [--check]: the --help of the first single-GPU program, in the reference's synopsis block.
synopsis() {
    local p first='' status=0 block
    for p in $(programs); do
        if [ -x "$p" ] && [ "$(describe "$p" gpus)" = one ]; then first=$p; break; fi
    done
    [ -n "$first" ] || { echo "error: no single-GPU stage program is built (make all)" >&2; return 2; }
    block=$(mktemp)
    { echo '```'; echo "\$ $first --help"; "$first" --help; echo '```'; } >"$block"
    for page in docs/README.md docs/README.zh-CN.md; do
        report fill "$@" "$page" synopsis "$block" "make docs" || status=1
    done
    rm -f "$block"
    return $status
}

# charts DIR: the charts of a reference folder, drawn in it (gnuplot).
charts() {
    local csv
    for csv in "$1/results.csv" "$1/multigpu.csv"; do
        [ -f "$csv" ] && { report plot "$csv" "$1" || return $?; }
    done
    [ -f "$1/accuracy.csv" ] && { report plot-accuracy "$1/accuracy.csv" "$1/accuracy.png" || return $?; }
    return 0
}

# blocks [--check]: every generated block from the committed results.
blocks() {
    local dir status=0
    dir=$(primary) || exit 2
    report readmes "$@" "$dir/results.csv" "$dir" || status=1
    scripts/tree.sh readme "$@" || status=1
    if ls build/*/* >/dev/null 2>&1; then synopsis "$@" || status=1
    else echo "the program synopsis is not checked: no program is built (make all)"; fi
    return $status
}

cmd=${1:-}
shift || true
case $cmd in
reference)
    gpu=${1:-}
    if [ -z "$gpu" ]; then
        dirs=$(cd plots/results 2>/dev/null && ls -d */ 2>/dev/null | tr -d /) || true
        [ "$(echo "$dirs" | grep -c .)" -eq 1 ] ||
            { echo "error: name the GPU folder of plots/results to use (found: ${dirs:-none}; run make bench first)" >&2; exit 2; }
        gpu=$dirs
    fi
    src=plots/results/$gpu
    [ -f "$src/results.csv" ] || { echo "error: $src/results.csv not found: run make bench first" >&2; exit 2; }
    mkdir -p "plots/reference/$gpu"
    for f in "$src"/results.csv "$src"/multigpu.csv "$src"/flush_check.csv "$src"/accuracy.csv "$src"/limits.csv \
        "$src"/demo-*.txt "$src"/describe-*.txt; do
        [ -f "$f" ] && cp "$f" "plots/reference/$gpu/"
    done
    echo "$gpu" >plots/reference/primary
    charts "plots/reference/$gpu" || exit $?
    blocks
    echo "plots/reference/$gpu updated; the READMEs and docs/ regenerated from it"
    ;;
docs)
    if command -v gnuplot >/dev/null 2>&1; then
        for dir in plots/reference/*/; do charts "${dir%/}" || exit $?; done
    else
        echo "gnuplot not found: the committed charts are left as they are (apt-get install gnuplot-nox draws them)"
    fi
    blocks
    ;;
check)
    status=0
    blocks --check || status=1
    report claims || status=1
    exit $status
    ;;
plot)
    csvs=${*:-$(ls plots/reference/*/results.csv plots/reference/*/multigpu.csv 2>/dev/null || true)}
    [ -n "$csvs" ] || { echo "error: no CSV given and no plots/reference/*/results.csv committed" >&2; exit 2; }
    for csv in $csvs; do
        out=plots/results/$(gpu_folder "$csv")
        report plot "$csv" "$out" || exit $?
        echo "drew the charts of $csv in $out"
    done
    ;;
synopsis)
    synopsis "$@"
    ;;
*)
    sed -n '3,18p' "$0" | sed 's/^# //' >&2
    exit 2
    ;;
esac
