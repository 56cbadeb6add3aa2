# shellcheck shell=bash
# The classroom (docs/classroom.md): make handout and make stage-NN grade. Sourced by tests/run.sh once
# ok/bad/skipped/expect, solved, $no_solutions, $tmp and $gpu exist. The handout and grade's usage and
# compile steps run anywhere; grading the solutions, a stub and the cheat files (tests/grade/) needs a GPU.
echo "== the classroom: make handout, make stage-NN grade"
cr_make=(make --no-print-directory -s)
expect "make handout without OUT asks for one, exit 2" 2 "make handout OUT=DIR" -- env -u OUT "${cr_make[@]}" handout
if [ -z "$SOLVED" ]; then
    skipped "make handout, and no answer in it ($no_solutions)"
elif "${cr_make[@]}" handout OUT="$tmp/handout" >"$tmp/handout.log" 2>&1; then
    ok "make handout OUT=DIR writes a copy ($(head -c 60 "$tmp/handout.log")...)"
    expect "make handout into a folder that is not empty refuses, exit 2" 2 "not empty" -- "${cr_make[@]}" handout OUT="$tmp/handout"
    if [ ! -e "$tmp/handout/solutions" ] && [ ! -e "$tmp/handout/tests/grade" ] && [ -f "$tmp/handout/Makefile" ] &&
        [ "$(grep -l '提示' "$tmp"/handout/stages/*/exercise.cu | wc -l)" -eq "$(echo "$EXERCISES" | wc -w)" ]; then
        ok "the handout has every exercise with its hints in both languages, and no solutions/ or tests/grade/"
    else bad "the handout lacks an exercise's hints, or holds solutions/ or tests/grade/"; fi
    expect "no function body of solutions/ is anywhere in the handout" 0 "^ok: none of the" -- \
        python3 tests/no_answers.py solutions "$tmp/handout"
    # The search can fail: a solution's body pasted into a stage's file of the handout is found.
    cat solutions/*.cu >"$tmp/handout/stages/pasted.cu"
    expect "no_answers.py finds a solution pasted into a handout (exit 1)" 1 "stages/pasted.cu: a function body of" -- \
        python3 tests/no_answers.py solutions "$tmp/handout"
    rm "$tmp/handout/stages/pasted.cu"
    s=$(echo "$SOLVED" | head -n 1)
    expect "make stage-${s%%_*} solution in a handout says it has none, exit 2" 2 "has no solutions/$s.cu \(a handout\)" -- \
        "${cr_make[@]}" -C "$tmp/handout" "stage-${s%%_*}" solution
    if "${cr_make[@]}" -C "$tmp/handout" -n all 2>&1 | grep -qE 'solutions/|No rule'; then
        bad "make all in a handout still builds a solution, or cannot build"
    else ok "make all in a handout builds the stages and the exercise stubs alone"; fi
else
    bad "make handout OUT=DIR:"
    tail -n 5 "$tmp/handout.log" | sed 's/^/     | /'
fi

# make stage-NN grade: usage first, then the compile step (anywhere), then the runs (a GPU), on the stage
# whose cheat files tests/grade/ holds (a handout has none: its first exercise).
s=$(echo "$EXERCISES" | head -n 1)
for d in tests/grade/*/; do [ -f "stages/$(basename "$d")/exercise.cu" ] && s=$(basename "$d") && break; done
nn=${s%%_*}
expect "make grade without a stage asks for one, exit 2" 2 "name a stage: make stage-NN grade FILE=" -- "${cr_make[@]}" grade FILE=x.cu
expect "make stage-$nn grade without FILE asks for it, exit 2" 2 "give the student's file" -- "${cr_make[@]}" "stage-$nn" grade
expect "make stage-$nn grade FILE=missing: no such file, exit 2" 2 "FILE=$tmp/missing.cu: no such file" -- \
    "${cr_make[@]}" "stage-$nn" grade FILE="$tmp/missing.cu"
printf '__global__ void reduce_max_shuffle(\n' >"$tmp/broken.cu"
for bad_var in SEED=x RATIO=fast TIMEOUT=0; do
    expect "make stage-$nn grade $bad_var: a usage error, exit 2" 2 "${bad_var%%=*}=" -- \
        "${cr_make[@]}" "stage-$nn" grade FILE="$tmp/broken.cu" "$bad_var"
done
no_exercise=$(for d in stages/*/; do d=${d%/}; [ -f "$d/exercise.cu" ] || { echo "${d#stages/}"; break; }; done)
[ -z "$no_exercise" ] || expect "make grade STAGE=${no_exercise%%_*}: a stage without an exercise, exit 2" 2 "has no exercise" -- \
    "${cr_make[@]}" grade STAGE="${no_exercise%%_*}" FILE="$tmp/broken.cu"
expect "make stage-$nn grade: a file that does not compile gets its errors and a FAIL line in the class sheet" 2 \
    "compile: FAIL: .* does not compile" -- "${cr_make[@]}" "stage-$nn" grade FILE="$tmp/broken.cu" SEED=3 CLASS="$tmp/class.csv"
if [ "$(tail -n 1 "$tmp/class.csv" 2>/dev/null)" = "$tmp/broken.cu,$s,all,3,does not compile,-,-,-,FAIL" ] &&
    [ "$(head -n 1 "$tmp/class.csv")" = "file,stage,task,seed,correct,memcheck,racecheck,time_ratio,verdict" ]; then
    ok "the class sheet has its header and the file's line"
else bad "the class sheet: $(tr '\n' '|' <"$tmp/class.csv" 2>/dev/null)"; fi

if ! solved $s; then
    skipped "make stage-$nn grade on the solution, a stub and the cheat files ($no_solutions)"
elif [ "$gpu" != 1 ]; then
    expect "make stage-$nn grade without a GPU compiles the file, then says the runs need one (exit 3)" 2 \
        "compile: ok. The rest of the grade runs kernels" -- "${cr_make[@]}" "stage-$nn" grade FILE=solutions/$s.cu CLASS="$tmp/class.csv"
    skipped "make stage-NN grade on every solution, a stub and the cheat files (no GPU: nvidia-smi -L finds none)"
else
    # Grading takes half a minute a file: the stage with cheat files is graded here, its solution, its stub
    # and its cheats (every solution passes its stub's check in the GPU half of tests/run.sh).
    expect "$s: make grade passes the solution at hidden sizes" 0 "^PASS: solutions/$s.cu" -- \
        "${cr_make[@]}" grade STAGE="${s%%_*}" FILE="solutions/$s.cu" SEED=11 RATIO=1.5 CLASS="$tmp/class.csv"
    # The stub as a student's file: the "#else" branch of the exercise's "#ifdef SOLUTION_FILE".
    awk '/^#ifdef SOLUTION_FILE/ { on = 1; next } on && /^#else/ { keep = 1; next } keep && /^#endif/ { exit } keep' \
        stages/$s/exercise.cu >"$tmp/stub.cu"
    expect "$s: make grade fails the exercise's stub (a wrong sum)" 2 "^[a-z_0-9]+ +wrong " -- \
        "${cr_make[@]}" "stage-$nn" grade FILE="$tmp/stub.cu" SEED=11 CLASS="$tmp/class.csv"
    expect "$s cheat: right at the visible check sizes only, wrong at the hidden ones" 2 "^[a-z_0-9]+ +wrong " -- \
        "${cr_make[@]}" "stage-$nn" grade FILE=tests/grade/$s/visible_sizes.cu SEED=11 CLASS="$tmp/class.csv"
    if command -v compute-sanitizer >/dev/null; then
        expect "$s cheat: a read past the end of the input, right sums, caught by memcheck" 2 " ok +FINDING " -- \
            "${cr_make[@]}" "stage-$nn" grade FILE=tests/grade/$s/out_of_bounds.cu SEED=11 CLASS="$tmp/class.csv"
        expect "$s cheat: a shared-memory race, caught by racecheck (or by a wrong sum)" 2 " ok +clean +FINDING | wrong " -- \
            "${cr_make[@]}" "stage-$nn" grade FILE=tests/grade/$s/race.cu SEED=11 CLASS="$tmp/class.csv"
    else
        skipped "$s cheats: a read past the end and a race, caught by the sanitizers ($(missing compute-sanitizer))"
    fi
fi
