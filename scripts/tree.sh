#!/usr/bin/env bash
# make stage-NN tree (make help, docs/README.md): a block recorded by build/<stage>/tree, drawn (plots/lab/tree.gp).
# usage: scripts/tree.sh record STAGE [OPTIONS] | draw RECORD [PNG] | counts RECORD | readme [--check] | agree STAGE KERNEL
# Exit codes: 0 ok, 1 a difference, 2 usage or a bad record, 3 no usable GPU, 4 no gnuplot (PNG) or ncu (agree),
# 5 a kernel that cannot be recorded (why is printed).
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
cmd=${1:-} stage=${2:-} kernel=${3:-}
shift
draw() { # RECORD PNG: the terminal form, and the PNG (without gnuplot: a note, exit 4)
    local record=$1 png=$2 data=$tmp/data
    head -n 2 "$record" 2>/dev/null | grep -q '^step,thread,seq,op,bytes,addr,src$' ||
        { echo "error: $record is not a tree record (make stage-NN tree writes them)" >&2; return 2; }
    report tree --mode ascii "$record" || return 2
    command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot not found: no PNG drawn (apt-get install gnuplot-nox)" >&2; return 4; }
    rm -rf "$data" && mkdir "$data"
    report tree --mode data --dir "$data" "$record" >"$data/keys" || return 2
    key() { sed -n "s/^$1 //p" "$data/keys"; }
    gnuplot -e "dir='$data'; out='$png'; name='$(key title | tr -d "'")'; counts='$(key counts)'" \
        -e "threads=$(key threads); steps=$(key steps); accesses=$(key accesses); conflicts=$(key conflicts)" \
        -e "additions=$(key additions); unused=$(key unused); shuffles=$(key shuffles)" plots/lab/tree.gp || return 2
    echo "drawn: $png"
}
case $cmd in
record)
    [[ -n $stage && -d stages/$stage ]] || usage
    shift
    main=$(program_of "$stage") bin=build/$stage/tree
    [ "${PROGRAM:-}" = solution ] && bin=build/$stage/tree-solution
    [ -x "$bin" ] || { echo "error: stage $stage has no record build ($bin): make stage-NN tree records the kernels of" \
        "a stage on the common harness (stages/<stage>/reduce.cu${PROGRAM:+, with an exercise}); $main is a program" \
        "of its own, whose kernels it cannot record" >&2; exit 5; }
    # The folder of the GPU a record names in its first line.
    gpu_of() { sed -n '1s/.* threads, \(.*\) (sm_[0-9]*)$/\1/p' "$1" | slug | grep . || echo gpu; }
    # With --kernel: that kernel into plots/results/<gpu>/tree/; without, the stage's tree kernels into the
    # committed plots/reference/<gpu>/tree/<stage>/ (what a block records can depend on the GPU).
    if printf ' %s ' "$@" | grep -q ' --kernel '; then
        "$bin" "$@" --record "$tmp/record.csv" || exit $?
        kernel=$(printf '%s\n' "$@" | awk 'prev == "--kernel" { print; exit } { prev = $0 }')
        out=plots/results/$(gpu_of "$tmp/record.csv")/tree/$stage-$kernel
        mkdir -p "${out%/*}" && cp "$tmp/record.csv" "$out.csv"
        draw "$out.csv" "$out.png"
        exit
    fi
    kernels=$(describe "$main" tree_kernels | awk '{ print $1 }') # KERNEL N, one a line
    [ -n "$kernels" ] || die "$main --describe names no tree kernels: give one, ARGS=\"--kernel NAME\""
    drawn=0 # without gnuplot every kernel is still recorded and drawn on the terminal, and the exit is 4
    for k in $kernels; do
        "$bin" --kernel "$k" "$@" --record "$tmp/record.csv" || exit $?
        out=plots/reference/$(gpu_of "$tmp/record.csv")/tree/$stage/$k
        mkdir -p "${out%/*}" && cp "$tmp/record.csv" "$out.csv" || exit 2
        draw "$out.csv" "$out.png" || { rc=$?; [ $rc -eq 4 ] || exit $rc; drawn=4; }
    done
    # Without gnuplot a record new to its folder has no picture, which readme reports (1): the exit is still 4.
    "$0" readme || { rc=$?; [ $rc -eq 1 ] && [ $drawn -eq 4 ] || exit $rc; }
    exit $drawn ;;
draw) [ -n "${1:-}" ] || usage; draw "$1" "${2:-${1%.csv}.png}" ;;
counts) [ -f "${1:-}" ] || usage; report tree --mode counts "$1" ;;
readme) report tree-blocks "$@" ;;
agree) # the record's shared-memory wavefronts against Nsight Compute's, on the same launch of one block
    [[ -n $stage && -n $kernel ]] || usage
    need ncu "error: ncu not found: Nsight Compute comes with the CUDA toolkit"
    bin=build/$stage/tree main=$(program_of "$stage")
    if [ "${PROGRAM:-}" = solution ]; then bin=build/$stage/tree-solution main=build/$stage/solution; fi
    # --n 1 is one block of every kernel, all of whose threads still take part in its tree.
    "$bin" --kernel "$kernel" --n 1 --record "$tmp/record.csv" || exit $?
    report tree --mode counts "$tmp/record.csv" >"$tmp/record"
    ncu --clock-control none --kernel-name-base function --kernel-name regex:"^$kernel(<.*>)?\$" --launch-count 1 \
        --metrics "$shared_metrics" --csv "$main" --kernel "$kernel" --n 1 --reps 1 --warmup 0 >"$tmp/ncu" 2>"$tmp/err" ||
        { cat "$tmp/err" "$tmp/ncu" | tail -n 20; exit 1; }
    profilers ncu --mode shared --metrics "$shared_metrics" "$tmp/ncu" >"$tmp/measured" ||
        { echo "error: ncu measured no launch of $kernel:" >&2; tail -n 5 "$tmp/ncu" "$tmp/err" >&2; exit 1; }
    echo "$stage $kernel, one block: shared-memory instructions and wavefronts, the record's and Nsight Compute's"
    join "$tmp/record" "$tmp/measured" | awk '{ printf "  %s  record: %d instructions, %d wavefronts   ncu: %d instructions, " \
        "%d wavefronts   %s\n", $1 == "ld" ? "loads " : "stores", $2, $3, $4, $5, $3 == $5 ? "agree" : "DIFFER" }
        $3 != $5 { bad = 1 } END { exit bad }' ;;
*) usage ;;
esac
