#!/usr/bin/env bash
# See the tree: one block of a kernel, run with its shared-memory accesses and shuffles recorded
# (build/<stage>/tree, common/tree.h), drawn from the record by scripts/tree.awk and plots/lab/tree.gp.
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
# shellcheck disable=SC2086 # one program a word
programs() { printf "%s\n" ${REDUCE_PROGRAMS:-$(make --no-print-directory -s programs)}; }
describe() { "$1" --describe | sed -n "s/^$2: *//p"; }
slug() { tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-//; s/-$//'; }

# draw RECORD PNG: the terminal form, and the PNG (skipped, with a note, without gnuplot).
draw() {
    local record=$1 png=$2 tmp keys
    [ -f "$record" ] && head -n 2 "$record" | grep -q '^step,thread,seq,op,bytes,addr,src$' ||
        { echo "error: $record is not a tree record (make stage-NN tree writes them)" >&2; return 2; }
    awk -v mode=ascii -f scripts/tree.awk "$record" || return 2
    command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot not found: no PNG drawn (apt-get install gnuplot-nox)" >&2; return 4; }
    tmp=$(mktemp -d)
    awk -v mode=data -v dir="$tmp" -f scripts/tree.awk "$record" >"$tmp/keys" || { rm -rf "$tmp"; return 2; }
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

# The README block of a stage: each tree kernel's picture, or how to make it.
readme_block() {
    local s=$1 lang=$2 k
    for k in $3; do
        if [ -f "stages/$s/tree/$k.csv" ]; then
            [ "$lang" = zh ] && echo "![$k 的归约树](tree/$k.png)" || echo "![the reduction tree of $k](tree/$k.png)"
            echo
            awk -v mode=counts -v adds=1 -f scripts/tree.awk "stages/$s/tree/$k.csv" | awk -v k="$k" -v lang="$lang" '
                { i[$1] = $2; w[$1] = $3 }
                END { if (lang == "zh") printf "`%s` 的一个线程块：共享内存读 %d 条指令、%d 个 wavefront；写 %d 条指令、%d 个 wavefront；%d 次加法，其中 %d 次的和没有任何结果用到。\n", k, i["ld"], w["ld"], i["st"], w["st"], i["add"], w["add"]
                      else printf "One block of `%s`: shared-memory loads %s, %s; stores %s, %s; %s, %d of them unused (no result needs their sums).\n", k, n(i["ld"], "instruction"), n(w["ld"], "wavefront"), n(i["st"], "instruction"), n(w["st"], "wavefront"), n(i["add"], "addition"), w["add"] }
                function n(c, what) { return c " " what (c == 1 ? "" : "s") }'
        else
            [ "$lang" = zh ] && echo "\`$k\` 尚未记录：在有 GPU 的机器上运行 make stage-${s%%_*} tree。" ||
                echo "\`$k\` is not recorded yet: run make stage-${s%%_*} tree on a machine with a GPU."
        fi
        echo
    done
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
    awk -v mode=counts -f scripts/tree.awk "$1"
    ;;
readme)
    check=0
    [ "${1:-}" = --check ] && check=1
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    status=0
    for main in $(programs); do
        s=$(basename "$(dirname "$main")")
        [ -x "$main" ] || continue
        kernels=$(describe "$main" "tree kernels")
        [ -n "$kernels" ] || continue
        for lang in en zh; do
            readme=stages/$s/README.md
            [ $lang = zh ] && readme=stages/$s/README.zh-CN.md
            readme_block "$s" $lang "$kernels" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/block"
            scripts/readme_fill.sh $([ $check = 1 ] && echo --check) "$readme" tree "$tmp/block" "scripts/tree.sh readme"
            rc=$?
            [ $rc -eq 2 ] && exit 2
            [ $rc -eq 0 ] || status=1
        done
        for k in $kernels; do
            if [ -f "stages/$s/tree/$k.csv" ] && [ ! -f "stages/$s/tree/$k.png" ]; then
                echo "stages/$s/tree/$k.csv has no picture: scripts/tree.sh draw stages/$s/tree/$k.csv" >&2
                status=1
            fi
        done
    done
    exit $status
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
    awk -v mode=counts -f scripts/tree.awk "$tmp/record.csv" >"$tmp/record"
    metrics=smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
    metrics+=,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
    ncu --clock-control none --kernel-name-base function --kernel-name regex:"^$kernel(<.*>)?\$" --launch-count 1 \
        --metrics "$metrics" --csv "$main" --kernel "$kernel" --n 1 --reps 1 --warmup 0 >"$tmp/ncu" 2>"$tmp/err" ||
        { cat "$tmp/err" "$tmp/ncu" | tail -n 20; exit 1; }
    awk -F'","' '
        /^"ID"/ { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }; next }
        !("Metric Name" in col) || !/^"[0-9]/ { next }
        { gsub(/^"|"$/, ""); v = $col["Metric Value"]; gsub(/,/, "", v); val[$col["Metric Name"]] = v; n++ }
        END { if (!n) exit 1
              printf "ld %d %d\nst %d %d\n", val["smsp__sass_inst_executed_op_shared_ld.sum"], val["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"],
                  val["smsp__sass_inst_executed_op_shared_st.sum"], val["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] }' \
        "$tmp/ncu" >"$tmp/measured" || { echo "error: ncu measured no launch of $kernel:" >&2; tail -n 5 "$tmp/ncu" "$tmp/err" >&2; exit 1; }
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
