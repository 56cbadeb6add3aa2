#!/usr/bin/env bash
# make stage-NN VERB (make help). Exit codes: 0 ok, 1 a finding or a failed step, 2 usage or an undriven program, 4 no tool.
# usage: scripts/stage_tool.sh diff|sass|profile|sanitize|exercise|solution STAGE | grade STAGE FILE | handout DIR
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
if [ "${1:-}" = handout ]; then # DIR: the repository without the answers (solutions/, tests/grade/'s cheat files)
    out=${2:-}
    [ -n "$out" ] || die "give the folder to write: make handout OUT=DIR"
    [ ! -e "$out" ] || [ -z "$(ls -A "$out" 2>/dev/null)" ] || die "OUT=$out exists and is not empty"
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then git ls-files --cached --others --exclude-standard >"$tmp/files"
    else find . -type f ! -path './.git/*' ! -path './build/*' ! -path './plots/results/*' | sed 's|^\./||' >"$tmp/files"; fi
    grep -vE '^(solutions|tests/grade)/' "$tmp/files" | while read -r f; do [ -f "$f" ] && echo "$f"; done >"$tmp/kept"
    mkdir -p "$out" || die "could not make $out" 1
    tar -cf - -T "$tmp/kept" | tar -xf - -C "$out" || die "could not write $out" 1
    echo "$out: a handout of $(wc -l <"$tmp/kept") files, without solutions/ (the answers) and tests/grade/ (the" \
        "graders' cheat files); make stage-NN exercise checks a student's work there (docs/classroom.md)"
    exit 0
fi
tool=${1:-} stage=${2:-}
[[ -n $tool && -n $stage && -d stages/$stage ]] || usage
shift 2
bin=$(program_of "$stage")
[ -n "$bin" ] || die "stages/$stage has no program (a reduce.cu, or a stage.mk that adds one)"
src=$(source_of "$bin")
nosass="$src compiles no kernel of its own (its GPU work is other stages' kernels and library calls): no SASS to show"
single_gpu_program() { # exit 2 unless $bin is a built single-GPU program (profile and sanitize drive those)
    [ -x "$bin" ] || die "$bin is not built (make stage-${stage%%_*} builds it or says why)"
    [ "$(describe "$bin" several_gpus)" = false ] || { echo "$bin is not a single-GPU stage program (its --describe" \
        "says several_gpus: true): make stage-NN $tool drives those; run its tool by hand on this one" >&2; exit 2; }
}
stubs_place() { # bodies NAME | rest, on stdin an exercise.cu: bodies: its code in the stubs' place, between the #else
    # of its "#ifdef SOLUTION_FILE" and the matching #endif, after a #line naming NAME; rest: every other line.
    # Exit 1 where there is no such #ifdef, #else and #endif.
    awk -v what="$1" -v name="${2:-}" '
        function directive(d) { return $0 ~ "^[ \t]*#[ \t]*" d "([ \t(]|$)" }
        BEGIN { gsub(/[\\"]/, "\\\\&", name) }
        state == 0 && $0 ~ /^[ \t]*#[ \t]*ifdef[ \t]+SOLUTION_FILE([ \t]|$)/ { state = 1; depth = 0; if (what == "rest") print; next }
        state == 1 || state == 2 {
            if (directive("if") || directive("ifdef") || directive("ifndef")) depth++
            else if (directive("endif") && depth > 0) depth--
            else if (directive("endif")) { state = state == 2 ? 3 : 4; if (what == "rest") print; next }
            else if (directive("else") && depth == 0 && state == 1) {
                state = 2; if (what == "bodies") printf "#line %d \"%s\"\n", NR + 1, name; else print; next }
        }
        what == "bodies" && state == 2 || what == "rest" && state != 2 { print }
        END { exit state != 3 }'
}
case $tool in
diff)
    [ -n "$(earlier "$bin")" ] || { echo "stage $stage is the first: there is nothing before it to compare with"; exit 0; }
    prev=$(previous "$bin")
    [ -n "$prev" ] || { echo "stage $stage is a program of its own ($src): no earlier stage is built from a" \
        "$(basename "$src") to diff against" >&2; exit 2; }
    echo "What changed from $(stage_of "$prev") to $stage (diff -u $(source_of "$prev") $src):"
    diff -u --color=auto "$(source_of "$prev")" "$src"
    [ $? -le 1 ] ;; # diff exits 1 when the files differ: that is the point here
sass)
    grep -q '__global__' "$src" || { echo "$nosass" >&2; exit 2; }
    need cuobjdump "error: cuobjdump not found: it comes with the CUDA toolkit (cuda-cuobjdump); make stage-NN sass needs it"
    nvcc=${1:?the Makefile passes NVCC and its flags}
    "$nvcc" "${@:2}" -Xptxas -v -c "$src" -o "$tmp/reduce.o" 2>"$tmp/ptxas" || { cat "$tmp/ptxas"; exit 1; }
    cuobjdump --dump-sass "$tmp/reduce.o" >"$tmp/sass" || exit 1
    grep -q 'Function : ' "$tmp/sass" || { echo "$nosass" >&2; exit 2; }
    cat "$tmp/sass"
    printf '\n%s\n' "Summary per kernel (instruction counts in the SASS above; registers and shared memory from ptxas -v):"
    profilers sass "$tmp/ptxas" "$tmp/sass" | "$(command -v cu++filt || command -v c++filt || echo cat)" ;;
profile)
    if [ -n "${PROGRAM:-}" ]; then # exercise or solution: the stage's exercise program (make stage-NN solution builds it)
        [[ $PROGRAM == exercise || $PROGRAM == solution ]] || die "PROGRAM=$PROGRAM: give exercise or solution"
        bin=build/$stage/$PROGRAM
        [ -x "$bin" ] || die "$bin is not built (make stage-${stage%%_*} $PROGRAM builds it)"
    fi
    single_gpu_program
    need ncu "error: ncu not found: Nsight Compute (ncu) comes with the CUDA toolkit; make stage-NN profile needs it and a GPU"
    # The table's columns, in the order scripts/profilers.py ncu --mode profile reads them; ncu reads one checked and one timed
    # run per kernel, the library's included. The program's own CSV gives N, to turn bytes into bytes per element.
    metrics=$(printf '%s,' dram__throughput.avg.pct_of_peak_sustained_elapsed \
        sm__warps_active.avg.pct_of_peak_sustained_active smsp__thread_inst_executed_per_inst_executed.ratio "$shared_metrics" \
        l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_ld.sum l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum \
        l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct lts__t_sector_hit_rate.pct dram__bytes_{read,write}.sum \
        l1tex__t_requests_pipe_lsu_mem_global_op_{atom,red}.sum \
        smsp__average_warps_issue_stalled_{long_scoreboard,barrier,short_scoreboard,membar}_per_issue_active.ratio \
        gpu__time_duration.sum)
    ncu --clock-control none --kernel-name-base function --kernel-name regex:"^(?!($(ncu_skip "$bin"))\$)" \
        --metrics "${metrics%,}" --csv "$bin" --n 16M --reps 1 --warmup 0 "$@" --csv "$tmp/rows.csv" >"$tmp/ncu" 2>"$tmp/err" ||
        { cat "$tmp/err" "$tmp/ncu" | tail -n 20; exit 1; }
    # N: that of the program's last row (each kernel's last launch is at the last size given)
    n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                 $c["pass"] != "" && $c["n"] != "" { n = $c["n"] } END { print n }' "$tmp/rows.csv" 2>/dev/null)
    echo "Nsight Compute, N = ${n:-?} (16M unless ARGS gives --n), clocks as the GPU sets them (--clock-control none); the last launch of each kernel:"
    echo "  dram%: DRAM throughput, % of peak; occ%: achieved occupancy; thr/inst: active threads per warp"
    echo "  instruction (32 = no divergence); ld/st wf: shared-memory wavefronts per shared load/store"
    echo "  instruction (1 = no bank conflict for 4-byte accesses, n = an n-way conflict; - = none executed);"
    echo "  sect/req: 32-byte sectors per global load request (4 = a warp's 4-byte loads fully coalesced);"
    echo "  ld B/el: bytes of the 32-byte sectors global loads asked L1 for, per input element (4 = each fp32"
    echo "  element loaded once; more: elements loaded again, or sectors partly used);"
    echo "  L1 hit%: share of those global load sectors found in L1; L2 hit%: share of all L2 sector accesses"
    echo "  (loads that missed L1, stores, atomics) found in L2;"
    echo "  rd B/el, wr B/el: DRAM bytes read and written, per input element (rd 4 = an fp32 input read from"
    echo "  DRAM once; ncu flushes the caches before each launch);"
    echo "  atomics: global atomic and reduction requests (ATOM + RED; a RED sets no scoreboard,"
    echo "  so an atomic hot spot shows in the time, not in long_sb);"
    echo "  stalls: warps stalled per issued instruction, on memory (long_sb), barriers, shared memory/"
    echo "  shuffles (short_sb), memory barriers"
    profilers ncu --mode profile --n "$n" --metrics "${metrics%,}" "$tmp/ncu" ;;
sanitize)
    single_gpu_program
    need compute-sanitizer "error: compute-sanitizer not found: it comes with the CUDA toolkit; make stage-NN sanitize needs it and a GPU"
    sizes=1000,100003 findings=0
    for t in memcheck "racecheck --racecheck-report hazard" synccheck initcheck; do
        # shellcheck disable=SC2086 # the tool and its options
        compute-sanitizer --tool $t --error-exitcode 9 "$bin" --n $sizes --reps 1 --warmup 0 --check >"$tmp/out" 2>&1; rc=$?
        summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$tmp/out" | tail -n 1 | sed 's/=* *//')
        [ $rc -eq 0 ] && { printf "%-10s every default kernel clean (N = %s): %s\n" "${t%% *}" $sizes "$summary"; continue; }
        printf "%-10s FINDING (exit %d): %s\n" "${t%% *}" $rc "$summary"
        grep -E "^=+ +(Invalid|Error|Race|Barrier|Uninitialized|.*hazard)" "$tmp/out" | head -n 8
        findings=$((findings + 1))
    done
    # The deliberately wrong kernels (run only when named): caught by racecheck, synccheck or the check.
    for k in $(describe "$bin" kernels | awk '$3 == "wrong" { print $1 }'); do
        printf '\n%s\n' "Deliberately wrong kernel $k (run on its own):"
        compute-sanitizer --tool racecheck --racecheck-report hazard "$bin" --kernel "$k" --n 1000 --reps 1 --warmup 0 >"$tmp/race" 2>&1
        compute-sanitizer --tool synccheck "$bin" --kernel "$k" --n 1000 --reps 1 --warmup 0 >"$tmp/sync" 2>&1
        "$bin" --kernel "$k" --n $sizes --reps 1 --warmup 0 --check >"$tmp/check" 2>&1; check_rc=$?
        echo "  racecheck: $(grep -E 'RACECHECK SUMMARY' "$tmp/race" | sed 's/=* *//')"
        grep -m2 -E "hazard" "$tmp/race" | sed 's/^=* */    /'
        echo "  synccheck: $(grep -E 'ERROR SUMMARY' "$tmp/sync" | sed 's/=* *//')"
        echo "  verification: $( [ $check_rc -eq 1 ] && echo "its sum FAILS the check (exit 1)" || echo "its sum passed the check this time (exit $check_rc)")"
        grep -qE "RACECHECK SUMMARY: [1-9]" "$tmp/race" || grep -qE "ERROR SUMMARY: [1-9]" "$tmp/sync" || [ $check_rc -eq 1 ] &&
            { echo "  caught, as expected: see the stage README for why this code is wrong"; continue; }
        echo "  NOT caught on this GPU by any of the three: undefined behaviour may still look right"
        findings=$((findings + 1))
    done
    [ $findings -eq 0 ] || { printf '\nsanitize: %s unexpected findings\n' $findings; exit 1; }
    printf '\nsanitize: no unexpected findings\n' ;;
exercise | solution)
    # At the check sizes with each check fill, up to the first that fails; a failing exercise prints the hints
    # of its exercise.cu.
    src=stages/$stage/exercise.cu bin=build/$stage/$tool
    [ -f "$src" ] || die "stage $stage has no exercise (no $src)"
    [ "$tool" = exercise ] || [ -f "solutions/$stage.cu" ] ||
        die "this copy has no solutions/$stage.cu (a handout): make stage-${stage%%_*} exercise checks your own work"
    sizes=$(describe "$bin" check_sizes) fills=$(describe "$bin" check_fills) status=0
    [[ -n $sizes && -n $fills ]] || die "$bin --describe names no check sizes or no check fills"
    for fill in $fills; do # exit 1: a failed check; anything else is no verdict on the exercise (no GPU, usage)
        "$bin" --check --n "$sizes" --fill "$fill" --reps 1 --warmup 0 >"$tmp/log" 2>&1 || status=$?
        [ $status -gt 1 ] && { tail -n 3 "$tmp/log"; exit $status; }
        [ $status -eq 0 ] || break
    done
    what="the $tool of stage $stage ($src$( [ "$tool" = solution ] && echo " with solutions/$stage.cu"))"
    [ $status -eq 0 ] && { echo "PASS: $what passes its check at N = $sizes, fills: $fills"; exit 0; }
    echo "FAIL: $what does not pass its check yet, on --fill $fill (the fills run in the order $fills, up to the first that fails). Failing rows:"
    grep -E '(^|[[:space:]])FAIL([@[:space:]]|$)' "$tmp/log" | head -n 8 | sed 's/^/  /'
    [ "$tool" = solution ] && exit 1
    echo "Hints (from $src):"
    awk '/^ \* (Hint:|提示：)/ { sub(/^ \* (Hint:|提示：) */, "  - "); hint = 1 }
        hint && /^ \*   / { sub(/^ \* */, "    ") }
        hint && !/^  - |^    / { hint = 0 }
        hint { sub(/ *\*\/ *$/, ""); print }' "$src"
    exit 1 ;;
grade)
    # The student's FILE in place of the exercise's stubs (the Makefile's GRADE_BUILD compiles it), per task: correct
    # at the exercise's declared sizes (some drawn from SEED), sanitizers clean, its promises kept, time at its declared
    # size against the solution's within RATIO (docs/classroom.md).
    file=${1:-} src=stages/$stage/exercise.cu
    [ -f "$src" ] || die "stage $stage has no exercise (no $src)"
    [ -n "$file" ] || die "give the student's file: make stage-${stage%%_*} grade FILE=student.cu"
    [ -f "$file" ] || die "FILE=$file: no such file"
    seed=${SEED:-$(($(date +%s) % 1000000000))} ratio=${RATIO:-1.5} limit=${TIMEOUT:-60} class=${CLASS:-plots/results/grades.csv}
    [[ $seed =~ ^[0-9]{1,9}$ ]] || die "SEED=$seed: give a whole number below 10^9 (the programs' --seed)"
    [[ $ratio =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "RATIO=$ratio: give a number such as 1.5"
    [[ $limit =~ ^[1-9][0-9]{0,4}$ ]] || die "TIMEOUT=$limit: give whole seconds"
    program=$bin bin=${GRADE_DIR:?the Makefile passes GRADE_DIR}/$(basename "$file" .cu) ref=build/$stage/solution
    echo "Grading $file as stage $stage's exercise: SEED=$seed RATIO=$ratio TIMEOUT=$limit (s)"
    sheet() { # TASK CORRECT MEMCHECK RACECHECK PROMISES RATIO VERDICT: a line of the class sheet
        [ -s "$class" ] || { mkdir -p "$(dirname "$class")" && echo "file,stage,task,seed,correct,memcheck,racecheck,promises,time_ratio,verdict" >"$class"; }
        echo "$file,$stage,$1,$seed,$2,$3,$4,$5,$6,$7" >>"$class"
    }
    mkdir -p "$GRADE_DIR"
    # A whole exercise.cu handed in includes SOLUTION_FILE, which the bodies alone never do (they would include
    # themselves): its code in the stubs' place, between the #else of its "#ifdef SOLUTION_FILE" and the matching
    # #endif, is what is graded, numbered by #line as in FILE, so that the compiler's errors name FILE's lines.
    bodies=$file
    if grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]+SOLUTION_FILE([[:space:]]|$)' "$file"; then
        bodies=$tmp/bodies.cu name=$(realpath "$file")
        stubs_place bodies "$name" <"$file" >"$bodies" ||
            die "FILE=$file includes SOLUTION_FILE, as the whole $src does, but has no \"#ifdef SOLUTION_FILE\" ... \"#else\" ... \"#endif\" around its stubs: keep the exercise's, or hand in the bodies alone"
        lines=$(sed -n '1s/^#line \([0-9]*\) .*/\1/p' "$bodies")
        printf '%s' "whole file: $file is the whole $src; its lines $lines-$((lines + $(wc -l <"$bodies") - 2)), in the stubs' place, are graded"
        if diff -q -w -B --strip-trailing-cr <(stubs_place rest <"$src") <(stubs_place rest <"$file") >/dev/null; then echo
        else echo "; outside them it differs from $src, and those changes are not graded (diff -w $src $file)"; fi
    fi
    # shellcheck disable=SC2086 # the compile command, word by word
    if ! timeout 600 ${GRADE_BUILD:?the Makefile passes GRADE_BUILD} -DSOLUTION_FILE="\"$(realpath "$bodies")\"" -keep \
        -keep-dir "$tmp" -o "$bin" >"$tmp/cc" 2>&1; then
        echo "compile: FAIL: $file does not compile in place of the stubs of $src; the compiler's first errors:"
        grep -m 5 'error' "$tmp/cc" | sed 's/^/  /'
        sheet all "does not compile" - - - - FAIL
        echo "FAIL: $file (stage $stage)"; exit 1
    fi
    # What the exercise asks (its program's --describe, docs/classroom.md): the sizes, the size it is timed at,
    # and what its text promises.
    declared=$(describe "$bin" grade_sizes) time_size=$(describe "$bin" grade_time) promises=$(describe "$bin" grade_promises)
    [[ $declared =~ ^[0-9^+x.,]+$ && $time_size =~ ^[0-9^+x]+$ ]] ||
        die "$bin --describe declares no grade sizes or no grade time that the grader can read"
    # The sizes: the declared ones, each LO..HI a whole number drawn from the seed (an LCG, the same on every
    # machine); a row stage's ROWSxCOLS draws each side that is a range.
    sizes="" x=$seed
    for size in ${declared//,/ }; do
        drawn=""
        for side in ${size//x/ }; do
            if [[ $side == *..* ]]; then
                lo=${side%%..*} hi=${side##*..} && lo=$((${lo//^/**})) hi=$((${hi//^/**}))
                ((lo >= 1 && hi >= lo)) || die "$bin --describe declares the grade size $size, whose range $side is empty"
                x=$((x * 6364136223846793005 + 1442695040888963407)) && side=$(((x >> 33 & 0x3fffffff) % (hi - lo + 1) + lo))
            fi
            drawn+=${drawn:+x}$side
        done
        sizes+=${sizes:+,}$drawn
    done
    # The promises about code, read in the PTX that the compile kept, in the body of each kernel named (NAME:K1,K2):
    # no-float-atomics, no atom or red on f16, bf16, f32 or f64; no-atomic-cas, no atom.cas; vector-loads, a 16-byte
    # global load. Code in a __noinline__ function is not seen; an order left to chance by other means is the
    # same-bits runs' to catch.
    broken=""
    for promise in $promises; do
        [[ $promise == *:* ]] || continue
        case ${promise%%:*} in
        no-float-atomics) want=0 what="a float atomic" pattern='(atom|red)\.([a-z0-9_]+\.)*(f16|f16x2|bf16|bf16x2|f32|f64)[ \t]' ;;
        no-atomic-cas) want=0 what="an atomicCAS" pattern='atom\.([a-z0-9_]+\.)*cas\.' ;;
        vector-loads) want=1 what="16-byte global load" pattern='ld\.global\.([a-z0-9_]+\.)*(v4\.(f32|b32|u32|s32)|v2\.(f64|b64|u64|s64))[ \t]' ;;
        *) die "$bin --describe promises ${promise%%:*}, which the grader does not know" ;;
        esac
        kernels=${promise#*:}
        for kernel in ${kernels//,/ }; do
            found=$(cat "$tmp"/*.ptx 2>/dev/null | PATTERN="^[ \t]*(@!?%p[0-9]+[ \t]+)?$pattern" awk -v k="$kernel" '
                /^\.(visible )?\.entry / { inside = $0 ~ ("[ _Z0-9]" k "[(A-Z]"); seen += inside } inside && /^}/ { inside = 0 }
                inside && $0 ~ ENVIRON["PATTERN"] { sub(/^[ \t]*(@!?%p[0-9]+[ \t]+)?/, ""); sub(/[ \t].*/, ""); print; exit }
                END { if (!seen) print "no kernel" }')
            if [ "$found" = "no kernel" ]; then broken+="${broken:+; }no kernel $kernel in the PTX"
            elif [ $want = 0 ] && [ -n "$found" ]; then broken+="${broken:+; }$kernel has $what ($found in its PTX), which the exercise rules out"
            elif [ $want = 1 ] && [ -z "$found" ]; then broken+="${broken:+; }$kernel has no $what in its PTX, which the exercise asks for"
            fi
        done
    done
    [ -z "$broken" ] || echo "promises: FAIL: $broken"
    if [ -n "$broken" ] && [ "${GPU_USABLE:-}" != yes ]; then # a verdict already, without running a kernel
        sheet all compiles - - broken - FAIL
        echo "FAIL: $file (stage $stage, SEED=$seed); the rest of the grade runs kernels, and CUDA can use no GPU here"; exit 1
    fi
    [ "${GPU_USABLE:-}" = yes ] || { echo "compile: ok. The rest of the grade runs kernels, and CUDA can use no GPU here" \
        "(nvidia-smi -L lists none, or CUDA_VISIBLE_DEVICES hides them)" >&2; exit 3; }
    fills=$(describe "$bin" check_fills) verdict=PASS offset=offset
    # The same-bits runs: random data where the program has it (values that round differently in every order).
    bits_fill=${fills%% *} && [[ " $(describe "$bin" fills) " == *" random "* ]] && bits_fill=random
    "$bin" --help | grep -q -- --offset || { offset="" && echo "an unaligned start: $bin has no --offset: not run"; }
    [ -x "$ref" ] || echo "time: no reference (no solutions/$stage.cu here): not timed"
    echo "sizes: $(tr ',' '\n' <<<"$declared" | wc -l) declared, $(tr ',' '\n' <<<"$declared" | grep -c '\.\.') of them drawn from the seed;" \
        "timed at N = $time_size; promised: ${promises:-nothing beyond the sum}"
    printf '%-28s %-10s %-9s %-9s %-9s %-14s %s\n' task correct memcheck racecheck promises "time (x ref)" verdict
    for task in $(tasks "$bin" "$program"); do
        correct=ok mem=skipped race=skipped time=- detail="" kept=-
        [ -z "$promises" ] || kept=kept
        [ -z "$broken" ] || kept=broken
        for run in $fills $offset; do # a wrong sum, a crash or a hang: the first one is the task's detail line
            args=(--fill "$run") && [ "$run" = offset ] && args=(--offset 1)
            timeout "$limit" "$bin" --check --kernel "$task" --n "$sizes" --seed "$seed" "${args[@]}" --reps 1 --warmup 0 >"$tmp/run" 2>&1
            rc=$?
            case $rc in
            0) continue ;;
            1) correct=wrong && detail=$(grep -m 1 -E '(^|[[:space:]])FAIL([@[:space:]]|$)' "$tmp/run")
               # The harness also fails a result whose bits changed between its runs with no atomic to explain
               # them; the size is that of the table above its note.
               varied_at=$(awk '/^N = / { n = $0; sub(/^N = /, "", n); sub(/[:,;].*/, "", n) }
                   /changed between runs with no atomics/ { print n; exit }' "$tmp/run")
               [ -z "$varied_at" ] || { correct=varies &&
                   detail="the check's runs at N = $varied_at (${args[*]}) gave different bits, with no atomic to explain them"; } ;;
            124) correct=hangs && detail="over $limit s (TIMEOUT) with ${args[*]}" ;;
            *) correct=crashes && detail="exit $rc with ${args[*]}: $(tail -n 1 "$tmp/run")" ;;
            esac
            break
        done
        if [[ $correct = varies && " $promises " == *" same-bits "* ]]; then
            kept=broken && detail="same bits: FAIL: $detail; the exercise promises the same bits on every run"
        elif [ "$correct" = varies ]; then detail="$detail: a race, or an order of additions left to chance"; fi
        [[ $correct != ok && $kept = kept && " $promises " == *" same-bits "* ]] && kept=skipped
        if [ "$correct" = ok ] && [[ " $promises " == *" same-bits "* ]]; then
            # Three runs at every size and the timed one: the CSV's bits column says whether they gave the same bits.
            rm -f "$tmp/bits.csv"
            timeout "$limit" "$bin" --kernel "$task" --n "$sizes,$time_size" --seed "$seed" --fill "$bits_fill" --reps 3 \
                --warmup 0 --csv "$tmp/bits.csv" >/dev/null 2>&1
            varied=$(awk -F, -v k="$task" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
                NR > 1 && $c["kernel"] == k { rows++; if ($c["bits"] != "same") { print ($c["cols"] ? $c["n"] / $c["cols"] "x" $c["cols"] : $c["n"]); exit } }
                END { if (!rows) print "none" }' "$tmp/bits.csv" 2>/dev/null || echo none)
            if [ "$varied" = none ]; then kept=broken && detail="same bits: no result from three runs of each size (--fill $bits_fill)"
            elif [ -n "$varied" ]; then kept=broken && detail="same bits: FAIL: three runs at N = $varied (--fill $bits_fill) gave different bits; the exercise promises the same bits on every run"
            fi
        fi
        [ -z "$broken" ] || detail=${detail:-promises: $broken}
        if [ "$correct" = ok ] && command -v compute-sanitizer >/dev/null; then
            # The harness's own kernels (common_*: the flush, the bandwidth tests) are left unchecked: they are
            # not the student's, and racecheck over them is slow.
            mem=clean race=clean own_kernels=(--kernel-name-exclude kns=common_)
            for n in 33 1000; do # one size a run: the input ends where its allocation does
                timeout $((limit * 5)) compute-sanitizer --tool memcheck --padding 1024 "${own_kernels[@]}" --error-exitcode 9 "$bin" --kernel "$task" --n $n --reps 1 --warmup 0 >"$tmp/mem" 2>&1 ||
                    { mem=FINDING && detail=$(grep -m 1 -E '^=+ +(Invalid|Error|Program hit)' "$tmp/mem") && break; }
            done
            timeout $((limit * 5)) compute-sanitizer --tool racecheck --racecheck-report hazard "${own_kernels[@]}" --error-exitcode 9 "$bin" --kernel "$task" \
                --n 1000 --reps 1 --warmup 0 >"$tmp/race" 2>&1 || { race=FINDING && detail=$(grep -m 1 -E 'hazard|RACECHECK SUMMARY' "$tmp/race"); }
        fi
        if [ "$correct" = ok ] && [ -x "$ref" ]; then # medians of 20 runs at the declared size, the student's and the solution's
            for b in "$bin" "$ref"; do
                rm -f "$tmp/t.csv" && timeout "$limit" "$b" --kernel "$task" --n "$time_size" --reps 20 --warmup 3 --csv "$tmp/t.csv" >/dev/null 2>&1
                awk -F, -v k="$task" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 && $c["kernel"] == k { print $c["median_us"]; exit }' "$tmp/t.csv" 2>/dev/null
            done >"$tmp/times"
            time=$(awk 'NR == 1 { s = $1 } NR == 2 && $1 > 0 { printf "%.2f", s / $1 }' "$tmp/times")
        fi
        ok=PASS # a time that could not be measured fails too
        [ "$correct" = ok ] && [ "$mem" != FINDING ] && [ "$race" != FINDING ] && [ "$kept" != broken ] || ok=FAIL
        if [ "$ok" = PASS ] && [ -x "$ref" ]; then awk -v t="${time:-0}" -v r="$ratio" 'BEGIN { exit !(t > 0 && t <= r) }' || ok=FAIL; fi
        [ "$ok" = PASS ] || verdict=FAIL
        printf '%-28s %-10s %-9s %-9s %-9s %-14s %s\n' "$task" "$correct" "$mem" "$race" "$kept" "${time:--}$([ -x "$ref" ] && echo " (<= $ratio)")" "$ok"
        [ -z "$detail" ] || echo "  $detail"
        sheet "$task" "$correct" "$mem" "$race" "$kept" "${time:--}" "$ok"
    done
    command -v compute-sanitizer >/dev/null || echo "memcheck, racecheck: compute-sanitizer is not installed (it comes with the CUDA toolkit): not run"
    echo "$verdict: $file (stage $stage, SEED=$seed); a line per task in $class"
    [ "$verdict" = PASS ] ;;
*) usage ;;
esac
