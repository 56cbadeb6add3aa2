#!/usr/bin/env bash
# See the tree: one block of a kernel, run with its shared-memory accesses and shuffles recorded
# (build/<stage>/tree, common/tree.h), drawn from the record by the reporting program (python3 scripts/report tree) and plots/lab/tree.gp.
# usage: scripts/tree.sh record STAGE [PROGRAM OPTIONS]   (make stage-NN tree [ARGS=...] [PROGRAM=solution])
#          with --kernel NAME: that kernel, into plots/results/<gpu>/tree/<stage>-<kernel>.csv and .png;
#          without: the kernels the stage's --describe names as its tree kernels (each at the size its
#          stage declares for it), into stages/<stage>/tree/ (the records and pictures its READMEs show),
#          and its READMEs' tree block regenerated; without gnuplot, each drawn on the terminal only (exit 4)
#        scripts/tree.sh draw RECORD.csv [PNG]   the compact form on the terminal, and PNG (default: the
#          record's name with .png) where gnuplot is installed
#        scripts/tree.sh counts RECORD.csv       the shared-memory instructions and wavefronts it implies
#        scripts/tree.sh readme [--check]        every stage README's tree block from the committed records
#          (--check: change nothing, exit 1 where a README or a picture differs from its record)
#        scripts/tree.sh agree STAGE KERNEL      the record's counts against Nsight Compute's on the same
#          launch (one block): shared-memory wavefronts of loads and of stores must be equal
# Exit codes: 0 ok, 1 a difference (readme --check, agree), 2 usage or a bad record, 3 no usable GPU,
# 4 a tool is missing (gnuplot for a PNG, ncu for agree), 5 a kernel that cannot be recorded (why is printed).
set -u
cd "$(dirname "$0")/.."
cmd=${1:-}
shift || true
usage() { sed -n '3,16p' "$0" | sed 's/^# //' >&2; exit 2; }
source scripts/lib.sh
slug() { tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-//; s/-$//'; }

# draw RECORD PNG: the terminal form, and the PNG (skipped, with a note, without gnuplot).
draw() {
    local record=$1 png=$2 tmp keys
    [ -f "$record" ] && head -n 2 "$record" | grep -q '^step,thread,seq,op,bytes,addr,src$' ||
        { echo "error: $record is not a tree record (make stage-NN tree writes them)" >&2; return 2; }
    python3 scripts/report tree --mode ascii "$record" || return 2
    command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot not found: no PNG drawn (apt-get install gnuplot-nox)" >&2; return 4; }
    tmp=$(mktemp -d)
    python3 scripts/report tree --mode data --dir "$tmp" "$record" >"$tmp/keys" || { rm -rf "$tmp"; return 2; }
    keys() { sed -n "s/^$1 //p" "$tmp/keys"; }
    gnuplot -e "dir='$tmp'; out='$png'; name='$(keys title | tr -d "'")'; counts='$(keys counts)'" \
        -e "threads=$(keys threads); steps=$(keys steps); accesses=$(keys accesses); conflicts=$(keys conflicts)" \
        -e "additions=$(keys additions); unused=$(keys unused); shuffles=$(keys shuffles)" \
        plots/lab/tree.gp || { rm -rf "$tmp"; return 2; }
    rm -rf "$tmp"
    echo "drawn: $png"
}

# record STAGE OPTIONS: the tree program's record of one kernel into the file the options end with.
record_one() {
    local bin=$1 out=$2
    shift 2
    "$bin" "$@" --record "$out"
}

case $cmd in
record)
    stage=${1:-}
    [ -n "$stage" ] && [ -d "stages/$stage" ] || usage
    shift
    main=$(programs | grep "^build/$stage/" | head -n 1)
    bin=build/$stage/tree
    [ "${PROGRAM:-}" = solution ] && bin=build/$stage/tree-solution
    if [ ! -x "$bin" ]; then
        echo "error: stage $stage has no record build ($bin): make stage-NN tree records the kernels of a stage on the common harness (stages/<stage>/reduce.cu${PROGRAM:+, with an exercise}); $main is a program of its own, whose kernels it cannot record" >&2
        exit 5
    fi
    if printf ' %s ' "$@" | grep -q ' --kernel '; then
        tmp=$(mktemp)
        trap 'rm -f "$tmp"' EXIT
        record_one "$bin" "$tmp" "$@" || exit $?
        kernel=$(printf '%s\n' "$@" | awk 'prev == "--kernel" { print; exit } { prev = $0 }')
        gpu=$(sed -n '1s/.* threads, \(.*\) (sm_[0-9]*)$/\1/p' "$tmp" | slug)
        dir=plots/results/${gpu:-gpu}/tree
        mkdir -p "$dir"
        cp "$tmp" "$dir/$stage-$kernel.csv"
        draw "$dir/$stage-$kernel.csv" "$dir/$stage-$kernel.png"
        exit $?
    fi
    kernels=$(describe "$main" "tree kernels")
    [ -n "$kernels" ] || { echo "error: $main --describe names no tree kernels: give one, ARGS=\"--kernel NAME\"" >&2; exit 2; }
    mkdir -p "stages/$stage/tree"
    drawn=0
    for k in $kernels; do
        record_one "$bin" "stages/$stage/tree/$k.csv" --kernel "$k" "$@" || exit $?
        # Without gnuplot every kernel is still recorded and drawn on the terminal (exit 4 at the end).
        draw "stages/$stage/tree/$k.csv" "stages/$stage/tree/$k.png"
        rc=$?
        [ $rc -eq 0 ] || [ $rc -eq 4 ] || exit $rc
        [ $rc -eq 4 ] && drawn=4
    done
    "$0" readme || exit $?
    exit $drawn
    ;;
draw)
    record=${1:-}
    [ -n "$record" ] || usage
    draw "$record" "${2:-${record%.csv}.png}"
    ;;
counts)
    [ -f "${1:-}" ] || usage
    python3 scripts/report tree --mode counts "$1"
    ;;
readme)
    python3 scripts/report tree-blocks "$@"
    ;;
agree)
    stage=${1:-}
    kernel=${2:-}
    [ -n "$stage" ] && [ -n "$kernel" ] || usage
    command -v ncu >/dev/null 2>&1 || { echo "error: ncu not found: Nsight Compute comes with the CUDA toolkit" >&2; exit 4; }
    bin=build/$stage/tree
    main=$(programs | grep "^build/$stage/" | head -n 1)
    if [ "${PROGRAM:-}" = solution ]; then bin=build/$stage/tree-solution; main=build/$stage/solution; fi
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # One block: --n 1 is one block of every kernel, all of whose threads still take part in its tree.
    record_one "$bin" "$tmp/record.csv" --kernel "$kernel" --n 1 || exit $?
    python3 scripts/report tree --mode counts "$tmp/record.csv" >"$tmp/record"
    metrics=smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
    metrics+=,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
    ncu --clock-control none --kernel-name-base function --kernel-name regex:"^$kernel(<.*>)?\$" --launch-count 1 \
        --metrics "$metrics" --csv "$main" --kernel "$kernel" --n 1 --reps 1 --warmup 0 >"$tmp/ncu" 2>"$tmp/err" ||
        { cat "$tmp/err" "$tmp/ncu" | tail -n 20; exit 1; }
    python3 scripts/report ncu --mode shared "$tmp/ncu" >"$tmp/measured" || { echo "error: ncu measured no launch of $kernel:" >&2; tail -n 5 "$tmp/ncu" "$tmp/err" >&2; exit 1; }
    echo "$stage $kernel, one block: shared-memory instructions and wavefronts, the record's and Nsight Compute's"
    join "$tmp/record" "$tmp/measured" | awk '
        { printf "  %s  record: %d instructions, %d wavefronts   ncu: %d instructions, %d wavefronts   %s\n", $1 == "ld" ? "loads " : "stores", $2, $3, $4, $5, $3 == $5 ? "agree" : "DIFFER"
          if ($3 != $5) bad = 1 }
        END { exit bad }'
    ;;
*)
    usage
    ;;
esac
