#!/usr/bin/env bash
# The GPU engineer's tools, one stage at a time (called by make stage-NN diff|sass|profile|sanitize).
# usage: scripts/stage_tool.sh diff|sass|profile|sanitize|exercise|solution STAGE [NVCC NVCCFLAGS...]
# A stage's program is the one make programs names, build/<stage>/<program>, built from
# stages/<stage>/<program>.cu; profile and sanitize read its --describe.
#   diff      diff -u of the stage's program against that of the previous stage built from a file of the
#             same name (colour on a terminal); a program of its own says so instead
#   sass      the SASS of the stage's kernels (cuobjdump) and one summary line per kernel: load widths,
#             shuffles, barriers, atomics, registers and shared memory (from ptxas -v)
#   profile   Nsight Compute on the stage's kernels: DRAM throughput, occupancy, threads per
#             instruction, shared-memory wavefronts per shared instruction (bank conflicts), global
#             sectors per request (coalescing), global atomic requests, the main stall reasons; PROGRAM=exercise|solution
#             profiles the stage's exercise program instead
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck on every default kernel at
#             small N; then each deliberately wrong kernel, to show what catches it
#   exercise, solution   the check of the stage's exercise or its solution; a failing exercise prints
#             its hints (exit 1; 2: the stage has no exercise)
# Exit codes: 0 ok, 1 a finding (sanitize) or a failed step, 2 usage or a program these tools do not
# drive, 4 a tool is missing.
set -u
cd "$(dirname "$0")/.."
source scripts/lib.sh
tool=${1:-}
stage=${2:-}
[ -n "$tool" ] && [ -n "$stage" ] && [ -d "stages/$stage" ] || { echo "usage: scripts/stage_tool.sh diff|sass|profile|sanitize|exercise|solution STAGE" >&2; exit 2; }
shift 2
programs=$(programs)
bin=$(echo "$programs" | grep "^build/$stage/" | head -n 1)
[ -n "$bin" ] || { echo "error: stages/$stage has no program (a reduce.cu, or a stage.mk that adds one)" >&2; exit 2; }
source_of() { echo "stages/$(basename "$(dirname "$1")")/$(basename "$1").cu"; }
src=$(source_of "$bin")

need() { # need TOOL WHAT
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "error: $1 not found: $2" >&2
    exit 4
}


# profile and sanitize drive a single-GPU program (its --describe says "gpus: one").
single_gpu_program() {
    [ -x "$bin" ] || { echo "error: $bin is not built (make stage-${stage%%_*} builds it or says why)" >&2; exit 2; }
    [ "$(describe "$bin" gpus)" = one ] && return 0
    echo "$bin is not a single-GPU stage program (its --describe says gpus: $(describe "$bin" gpus)): make stage-NN $tool drives those; run its tool by hand on this one" >&2
    exit 2
}

case $tool in
diff)
    # The nearest earlier stage whose program is built from a file of the same name.
    earlier=$(echo "$programs" | awk -v b="$bin" '$0 == b { exit } { print }')
    prev_bin=$(echo "$earlier" | awk -v name="$(basename "$bin")" -F/ '$NF == name' | tail -n 1)
    if [ -z "$earlier" ]; then
        echo "stage $stage is the first: there is nothing before it to compare with"
        exit 0
    fi
    if [ -z "$prev_bin" ]; then
        echo "stage $stage is a program of its own ($src): no earlier stage is built from a $(basename "$src") to diff against" >&2
        exit 2
    fi
    prev=$(basename "$(dirname "$prev_bin")")
    prev_src=$(source_of "$prev_bin")
    echo "What changed from $prev to $stage (diff -u $prev_src $src):"
    diff -u --color=auto "$prev_src" "$src"
    [ $? -le 1 ] # diff exits 1 when the files differ: that is the point here
    ;;
sass)
    if ! grep -q '__global__' "$src"; then
        echo "$src compiles no kernel of its own (its GPU work is other stages' kernels and library calls): no SASS to show" >&2
        exit 2
    fi
    need cuobjdump "it comes with the CUDA toolkit (cuda-cuobjdump); make stage-NN sass needs it"
    nvcc=${1:?the Makefile passes NVCC and its flags}
    shift
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # Registers and shared memory per kernel, from the assembler's report.
    "$nvcc" "$@" -Xptxas -v -c "$src" -o "$tmp/reduce.o" 2>"$tmp/ptxas" || { cat "$tmp/ptxas"; exit 1; }
    cuobjdump --dump-sass "$tmp/reduce.o" >"$tmp/sass" || exit 1
    if ! grep -q 'Function : ' "$tmp/sass"; then
        echo "$src compiles no kernel of its own (its GPU work is other stages' kernels and library calls): no SASS to show" >&2
        exit 2
    fi
    demangle=cat
    command -v cu++filt >/dev/null 2>&1 && demangle=cu++filt
    [ "$demangle" = cat ] && command -v c++filt >/dev/null 2>&1 && demangle=c++filt
    cat "$tmp/sass"
    echo
    echo "Summary per kernel (instruction counts in the SASS above; registers and shared memory from ptxas -v):"
    python3 scripts/report sass "$tmp/ptxas" "$tmp/sass" | $demangle
    ;;
profile)
    # PROGRAM=exercise or solution: the stage's exercise program instead (make stage-NN solution builds it).
    if [ -n "${PROGRAM:-}" ]; then
        case $PROGRAM in exercise | solution) ;; *) echo "error: PROGRAM=$PROGRAM: give exercise or solution" >&2; exit 2 ;; esac
        bin=build/$stage/$PROGRAM
        [ -x "$bin" ] || { echo "error: $bin is not built (make stage-${stage%%_*} $PROGRAM builds it)" >&2; exit 2; }
    fi
    single_gpu_program
    need ncu "Nsight Compute (ncu) comes with the CUDA toolkit; make stage-NN profile needs it and a GPU"
    metrics=dram__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
    metrics+=,smsp__thread_inst_executed_per_inst_executed.ratio
    metrics+=,smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
    metrics+=,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
    metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
    metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
    metrics+=,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
    metrics+=,gpu__time_duration.sum
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # One checked run and one timed run per kernel, CUB's kernels included: every kernel of the run but
    # the common ones (common/: the flush, the busy kernel, the output hash, the speed-of-light kernels,
    # all named common_*) and the baseline the program times for its speed-up column (its --describe's
    # baseline:), unless that is one of the stage's own kernels.
    skip='common_.*'
    baseline=$(describe "$bin" baseline)
    if [ -n "$baseline" ] && ! "$bin" --describe | awk -v k="$baseline" '$1 == "kernel:" && $2 == k { found = 1 } END { exit !found }'; then
        skip="$skip|$baseline"
    fi
    ncu --clock-control none --kernel-name-base function --kernel-name regex:"^(?!($skip)\$)" --metrics "$metrics" --csv \
        "$bin" --n 16M --reps 1 --warmup 0 "$@" >"$tmp/ncu" 2>"$tmp/err" || { cat "$tmp/err" "$tmp/ncu" | tail -n 20; exit 1; }
    echo "Nsight Compute, N = 16M (or the --n given), clocks as the GPU sets them (--clock-control none); the last launch of each kernel:"
    echo "  dram%: DRAM throughput, % of peak; occ%: achieved occupancy; thr/inst: active threads per warp"
    echo "  instruction (32 = no divergence); ld/st wf: shared-memory wavefronts per shared load/store"
    echo "  instruction (1 = no bank conflict for 4-byte accesses, n = an n-way conflict; - = none executed);"
    echo "  sect/req: 32-byte sectors per global load request (4 = a warp's 4-byte loads fully coalesced);"
    echo "  atomics: global atomic and reduction requests (ATOM + RED; a RED sets no scoreboard,"
    echo "  so an atomic hot spot shows in the time, not in long_sb);"
    echo "  stalls: warps stalled per issued instruction, on memory (long_sb), barriers, shared memory/"
    echo "  shuffles (short_sb), memory barriers"
    awk -F'","' '
        /^"ID"/ { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }; next }
        !("Metric Name" in col) || !/^"[0-9]/ { next }
        { gsub(/^"|"$/, "") ; k = $col["Kernel Name"]; sub(/\(.*/, "", k); sub(/^void /, "", k); m = $col["Metric Name"]; v = $col["Metric Value"]
          gsub(/,/, "", v); if (!(k in seen)) { seen[k] = 1; order[++n] = k }; val[k, m] = v }
        function per(k, a, b) { return val[k, b] + 0 > 0 ? sprintf("%.2f", val[k, a] / val[k, b]) : "-" }
        END {
            printf "%-50s %7s %6s %8s %6s %6s %8s %10s %8s %8s %8s %7s %9s\n", "kernel", "dram%", "occ%", "thr/inst", "ld wf", "st wf",
                "sect/req", "atomics", "long_sb", "barrier", "short_sb", "membar", "time(us)"
            for (i = 1; i <= n; i++) { k = order[i]
                printf "%-50s %7.1f %6.1f %8.1f %6s %6s %8s %10d %8.2f %8.2f %8.2f %7.2f %9.1f\n", substr(k, 1, 50),
                    val[k, "dram__throughput.avg.pct_of_peak_sustained_elapsed"], val[k, "sm__warps_active.avg.pct_of_peak_sustained_active"],
                    val[k, "smsp__thread_inst_executed_per_inst_executed.ratio"],
                    per(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"),
                    per(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_st.sum"),
                    per(k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
                    val[k, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] + val[k, "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"],
                    val[k, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"],
                    val[k, "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"],
                    val[k, "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"],
                    val[k, "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio"],
                    val[k, "gpu__time_duration.sum"] / 1000 }
        }' "$tmp/ncu"
    ;;
sanitize)
    single_gpu_program
    need compute-sanitizer "it comes with the CUDA toolkit; make stage-NN sanitize needs it and a GPU"
    sizes=1000,100003
    findings=0
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for t in memcheck racecheck synccheck initcheck; do
        extra=
        [ $t = racecheck ] && extra="--racecheck-report hazard"
        compute-sanitizer --tool $t $extra --error-exitcode 9 "$bin" --n $sizes --reps 1 --warmup 0 --check >"$tmp/out" 2>&1
        rc=$?
        summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$tmp/out" | tail -n 1 | sed 's/=* *//')
        if [ $rc -eq 0 ]; then
            printf "%-10s every default kernel clean (N = %s): %s\n" $t $sizes "$summary"
        else
            printf "%-10s FINDING (exit %d): %s\n" $t $rc "$summary"
            grep -E "^=+ +(Invalid|Error|Race|Barrier|Uninitialized|.*hazard)" "$tmp/out" | head -n 8
            findings=$((findings + 1))
        fi
    done
    # The deliberately wrong kernels (run only when named).
    for k in $("$bin" --describe | awk '$1 == "kernel:" && $4 == "wrong" { print $2 }'); do
        echo
        echo "Deliberately wrong kernel $k (run on its own):"
        compute-sanitizer --tool racecheck --racecheck-report hazard "$bin" --kernel $k --n 1000 --reps 1 --warmup 0 >"$tmp/race" 2>&1
        compute-sanitizer --tool synccheck "$bin" --kernel $k --n 1000 --reps 1 --warmup 0 >"$tmp/sync" 2>&1
        "$bin" --kernel $k --n $sizes --reps 1 --warmup 0 --check >"$tmp/check" 2>&1
        check_rc=$?
        echo "  racecheck: $(grep -E 'RACECHECK SUMMARY' "$tmp/race" | sed 's/=* *//')"
        grep -m2 -E "hazard" "$tmp/race" | sed 's/^=* */    /'
        echo "  synccheck: $(grep -E 'ERROR SUMMARY' "$tmp/sync" | sed 's/=* *//')"
        echo "  verification: $( [ $check_rc -eq 1 ] && echo "its sum FAILS the check (exit 1)" || echo "its sum passed the check this time (exit $check_rc)")"
        caught=0
        grep -qE "RACECHECK SUMMARY: [1-9]" "$tmp/race" && caught=1
        grep -qE "ERROR SUMMARY: [1-9]" "$tmp/sync" && caught=1
        [ $check_rc -eq 1 ] && caught=1
        if [ $caught = 1 ]; then
            echo "  caught, as expected: see the stage README for why this code is wrong"
        else
            echo "  NOT caught on this GPU by any of the three: undefined behaviour may still look right"
            findings=$((findings + 1))
        fi
    done
    echo
    [ $findings -eq 0 ] && echo "sanitize: no unexpected findings" || echo "sanitize: $findings unexpected findings"
    [ $findings -eq 0 ]
    ;;
exercise | solution)
    # The check of the stage's exercise (or its solution), built by make as build/<stage>/exercise
    # (solution), at the check sizes and with each check fill its --describe gives: pass or fail; on a
    # failing exercise, the hints from stages/NN_*/exercise.cu (its " * Hint:" and " * 提示：" lines).
    src=stages/$stage/exercise.cu
    [ -f "$src" ] || { echo "error: stage $stage has no exercise (no $src)" >&2; exit 2; }
    bin=build/$stage/$tool
    sizes=$(describe "$bin" "check sizes")
    fills=$(describe "$bin" "check fills")
    [ -n "$sizes" ] && [ -n "$fills" ] || { echo "error: $bin --describe names no check sizes or no check fills" >&2; exit 2; }
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    status=0
    for fill in $fills; do
        "$bin" --check --n "$sizes" --fill "$fill" --reps 1 --warmup 0 >>"$log" 2>&1
        rc=$?
        # 1: a failed check; anything else is not a verdict on the exercise (no GPU, a usage error).
        [ $rc -gt 1 ] && { tail -n 3 "$log"; exit $rc; }
        [ $rc -ne 0 ] && status=1
    done
    what="the $tool of stage $stage ($src$( [ "$tool" = solution ] && echo " with solutions/$stage.cu"))"
    if [ $status -eq 0 ]; then
        echo "PASS: $what passes its check at N = $sizes, fills: $fills"
        exit 0
    fi
    echo "FAIL: $what does not pass its check yet. Failing rows:"
    grep -E '(^|[[:space:]])FAIL([@[:space:]]|$)' "$log" | head -n 8 | sed 's/^/  /'
    if [ "$tool" = exercise ]; then
        echo "Hints (from $src):"
        awk '/^ \* (Hint:|提示：)/ { sub(/^ \* (Hint:|提示：) */, "  - "); hint = 1 }
             hint && /^ \*   / { sub(/^ \* */, "    ") }
             hint && !/^  - |^    / { hint = 0 }
             hint { sub(/ *\*\/ *$/, ""); print }' "$src"
    fi
    exit 1
    ;;
*)
    echo "usage: scripts/stage_tool.sh diff|sass|profile|sanitize|exercise|solution STAGE" >&2
    exit 2
    ;;
esac
