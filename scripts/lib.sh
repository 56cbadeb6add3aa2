# shellcheck shell=bash
# What the scripts share; each runs `cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2` first.
set -u
tmp=$(mktemp -d) # a scratch folder, removed on exit
trap 'rm -rf "$tmp"' EXIT
# Nsight Compute's shared-memory instructions and wavefronts, of loads then of stores.
shared_metrics=smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
shared_metrics+=,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
# Every stage's program, one a line, in stage order (the Makefile's recipes pass them in REDUCE_PROGRAMS).
# shellcheck disable=SC2086 # one program a word
programs() { printf '%s\n' ${REDUCE_PROGRAMS:-$(make --no-print-directory -s programs)}; }
program_of() { programs | grep "^build/$1/" | head -n 1; } # STAGE: its program
stage_of() { basename "$(dirname "$1")"; } # PROGRAM: its stage
source_of() { echo "stages/$(stage_of "$1")/$(basename "$1").cu"; } # PROGRAM: the file it is built from
earlier() { programs | awk -v p="$1" '$0 == p { exit } { print }'; } # PROGRAM: the programs before it
previous() { earlier "$1" | grep "/$(basename "$1")\$" | tail -n 1; } # PROGRAM: the last of those of its name
describe() { python3 scripts/describe.py "$1" "$2"; } # PROGRAM KEY: one key of its --describe, as text (no GPU needed)
# EXERCISE PROGRAM: the tasks of an exercise's program, its kernels that neither PROGRAM (its stage's) nor the library has
tasks() { awk 'NR == FNR { theirs[$1]; next } $3 != "library" && !($1 in theirs) { print $1 }' <(describe "$2" kernels) <(describe "$1" kernels); }
need() { command -v "$1" >/dev/null 2>&1 || { echo "$2" >&2; exit 4; }; } # TOOL MESSAGE: exit 4 without TOOL
usage() { sed -n 3p "$0" | sed 's/^# //' >&2; exit 2; } # the usage line, the script's third, and exit 2
die() { echo "error: $1" >&2; exit "${2:-2}"; } # MESSAGE [CODE]: "error: MESSAGE", and exit CODE (2)
report() { python3 scripts/report "$@"; } # the reporting program
profilers() { python3 scripts/profilers.py "$@"; } # what ncu and cuobjdump print, read
slug() { tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-//; s/-$//'; } # "NVIDIA H200" -> nvidia-h200
# An awk rule that names a CSV's columns from its header: then $c["pass"] is the pass column of a row.
# shellcheck disable=SC2016,SC2034 # awk's own $, for the scripts that source this
named='NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }'
gpu_folder() { awk -F, 'NR == 2 { print $1 }' "$1" | slug; } # CSV: its GPU's folder in plots/results/
# PROGRAM NOTE: whether it is built and runs on one GPU; NOTE is said where it is not built.
single() { [ -x "$1" ] || { echo "$2"; return 1; }; [ "$(describe "$1" several_gpus)" = false ]; }

# ncu_skip PROGRAM: the launches a profile leaves out (a regex): the common kernels (flush, speed of light), and
# the baseline the program times for its speed-up unless it is one of its own kernels.
ncu_skip() {
    local baseline; baseline=$(describe "$1" baseline)
    [ -n "$baseline" ] && describe "$1" kernels | awk -v b="$baseline" '$1 == b { found = 1 } END { exit !found }' &&
        baseline=
    echo "common_.*${baseline:+|$baseline}"
}
keep() { # CSV NAME: the CSV moved to plots/results/<its GPU>/NAME; prints that folder
    local dir; dir=plots/results/$(gpu_folder "$1")
    echo "$dir"
    mkdir -p "$dir" && mv "$1" "$dir/$2"
}
chart() { # WHAT LATER COMMAND...: scripts/report COMMAND; without python3 or gnuplot, WHAT not drawn, LATER draws it
    if ! command -v python3 >/dev/null; then
        echo "python3 not found: no $1 drawn (the reporting program, scripts/report, needs it: apt-get install python3)"
    elif command -v gnuplot >/dev/null; then report "${@:3}"
    else echo "gnuplot not found: no $1 drawn ($2 where gnuplot is installed)"; fi
}
