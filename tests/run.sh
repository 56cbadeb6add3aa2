#!/usr/bin/env bash
# The test suite behind `make test`. The host half runs anywhere: unit tests of common/, building
# every stage, the common flags of every program (make programs) with the same meaning everywhere, bad
# input, the no-GPU error, the teaching tools, charts and README tables from the committed reference
# results. The GPU half runs when a GPU is present (every kernel of every program verified at its check
# sizes with each of its check fills, as its --describe gives them) and is reported as skipped
# otherwise. Then the Colab notebook (tests/notebook.sh: read here, its shell cells run where a GPU is),
# and each stage's own tests, tests/stage/<stage>.sh, for every stage that has them.
# Ends with "N passed, N failed, N skipped"; exits 1 if anything failed.
set -u
cd "$(dirname "$0")/.."

pass=0 fail=0 skip=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
skipped() { echo "skip $*"; skip=$((skip + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The optional tools (gnuplot, shellcheck, nbformat, ncu, compute-sanitizer, cuobjdump): a test that
# needs one that is missing is skipped, and says which and how to install it: missing TOOL.
cuda_release=$({ command -v nvcc >/dev/null && nvcc --version || /usr/local/cuda/bin/nvcc --version; } 2>/dev/null |
    sed -n 's/.*release \([0-9]*\)\.\([0-9]*\),.*/\1-\2/p')
missing() {
    case $1 in
    gnuplot) echo "gnuplot is not installed: apt-get install gnuplot-nox" ;;
    shellcheck) echo "shellcheck is not installed: apt-get install shellcheck" ;;
    nbformat) echo "no python3 with the nbformat package: apt-get install python3-nbformat" ;;
    ncu) echo "ncu is not installed: Nsight Compute, in the CUDA toolkit (NVIDIA's package cuda-nsight-compute-${cuda_release:-X-Y})" ;;
    compute-sanitizer) echo "compute-sanitizer is not installed: in the CUDA toolkit (NVIDIA's package cuda-sanitizer-${cuda_release:-X-Y})" ;;
    cuobjdump) echo "cuobjdump is not installed: in the CUDA toolkit (NVIDIA's package cuda-cuobjdump-${cuda_release:-X-Y})" ;;
    esac
}

# One key of a program's --describe (no GPU needed): describe PROGRAM KEY.
describe() { "$1" --describe 2>/dev/null | sed -n "s/^$2: *//p"; }
# row_passes PASS FILL BOUND CHAIN N: whether a --check row (its CSV's pass, fill, rel_bound, chain and n)
# passes the tests. The wide data (values near 1e6) overflow the 8-bit and 16-bit formats and int32 sums:
# there, and only there, an overflow the harness expects (xfail) is a pass. A check whose bound is the
# whole sum (a result of 0 would pass) is a failure, but where one chain of additions runs through every
# input (a loop over all of them, an atomic per element): no smaller bound holds. A row unchecked for a
# bound of a thousandth of the sum or more (an atomic chain on integer data, the wide data's rows) still
# failed a result of 0.
row_passes() {
    [ "$1" = 1 ] || { [ "$1" = xfail ] && [ "$2" = wide ]; } ||
        { [ "$1" = unchecked ] && awk -v b="$3" -v c="$4" -v n="$5" 'BEGIN { exit !(b != "" && b + 0 < 1 || c != "" && c + 0 >= n + 0) }'; }
}
stage_of() { basename "$(dirname "$1")"; }
# The source a program is built from: build/<stage>/<program> <- stages/<stage>/<program>.cu.
source_of() { echo "stages/$(stage_of "$1")/$(basename "$1").cu"; }

# expect NAME CODE PATTERN -- CMD...: CMD exits with CODE and its output matches PATTERN.
expect() {
    local name=$1 code=$2 pattern=$3
    shift 4
    "$@" >"$tmp/out" 2>&1
    local rc=$?
    if [ "$rc" -eq "$code" ] && { [ -z "$pattern" ] || grep -qE -- "$pattern" "$tmp/out"; }; then
        ok "$name"
    else
        bad "$name (exit $rc, wanted $code and /$pattern/):"
        sed 's/^/     | /' "$tmp/out" | tail -n 5
    fi
}

# chart_script_tests LABEL CSV CHART: the reporting program's plot on a CSV made up to exercise it: without
# gnuplot (exit 4), on a file of another layout (exit 2), and drawing OUTDIR/CHART.png where gnuplot is
# installed.
chart_script_tests() {
    local label=$1 csv=$2 chart=$3 out=$tmp/$3-chart
    mkdir -p "$tmp/nognuplot"
    ln -sf "$(command -v bash)" "$tmp/nognuplot/"
    ln -sf "$(python3 -c 'import sys; print(sys.executable)')" "$tmp/nognuplot/python3"
    expect "$label: plot without gnuplot says so, exit 4" 4 "gnuplot not found" -- \
        env PATH="$tmp/nognuplot" python3 scripts/report plot "$csv" "$out"
    expect "$label: plot on a CSV of another layout, exit 2" 2 "not a results CSV" -- python3 scripts/report plot Makefile "$out"
    if ! command -v gnuplot >/dev/null; then
        skipped "$label: plot draws $chart.png ($(missing gnuplot))"
    elif python3 scripts/report plot "$csv" "$out" >"$tmp/chart.log" 2>&1 && [ "$(head -c 4 "$out/$chart.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then
        ok "$label: plot draws $chart.png"
    else
        bad "$label: plot, $chart.png:"; tail -n 5 "$tmp/chart.log" | sed 's/^/     | /'
    fi
}

echo "== host unit tests (common/host.c)"
mkdir -p build
if gcc -std=c11 -O2 -Wall -Wextra -Werror -fopenmp -Icommon tests/test_host.c common/host.c -lm -o build/test_host; then
    build/test_host >"$tmp/unit"
    while read -r status name; do
        if [ "$status" = ok ]; then ok "unit: $name"; else bad "unit: $name"; fi
    done <"$tmp/unit"
else
    bad "unit tests compile"
fi

echo "== scripts parse"
for script in scripts/*.sh tests/*.sh tests/stage/*.sh .ci/run; do
    if bash -n "$script" 2>"$tmp/parse"; then ok "bash -n $script"; else bad "bash -n $script: $(head -n 2 "$tmp/parse" | tr '\n' ' ')"; fi
done
if command -v shellcheck >/dev/null; then
    if shellcheck -S error scripts/*.sh tests/*.sh tests/stage/*.sh >"$tmp/shellcheck" 2>&1; then ok "shellcheck finds no errors in scripts/ and tests/"
    else bad "shellcheck -S error:"; head -n 10 "$tmp/shellcheck" | sed 's/^/     | /'; fi
else
    skipped "shellcheck over scripts/ and tests/ ($(missing shellcheck))"
fi

echo "== build every stage"
if make --no-print-directory all >"$tmp/build" 2>&1; then
    ok "make all builds every stage with warnings as errors"
else
    bad "make all:"
    tail -n 20 "$tmp/build" | sed 's/^/     | /'
fi
# Every stage's program as the Makefile knows them, and the single-GPU ones among those built (make all
# leaves out a program it cannot build here: its stage's tests say why).
PROGRAMS=$(make --no-print-directory -s programs)
SINGLE_GPU=
for p in $PROGRAMS; do
    [ -x "$p" ] && [ "$(describe "$p" gpus)" = one ] && SINGLE_GPU="$SINGLE_GPU $p"
done
if [ -n "$PROGRAMS" ] && [ "$(echo "$PROGRAMS" | xargs -n1 dirname | xargs -n1 basename | tr '\n' ' ')" = "$(ls -d stages/[0-9][0-9]_*/ | xargs -n1 basename | tr '\n' ' ')" ]; then
    ok "make programs names one program for every stage folder, in order"
else
    bad "make programs does not name one program per stage folder: $(echo $PROGRAMS)"
fi
EXERCISES=$(ls stages/*/exercise.cu | xargs -n1 dirname | xargs -n1 basename)
# The exercises whose solution is here: a handout (make handout) has none, and its tests skip theirs.
SOLVED=$(for s in $EXERCISES; do [ -f "solutions/$s.cu" ] && echo "$s"; done)
no_solutions="a handout: no solutions/ in this copy"
solved() { grep -qx "$1" <<<"$SOLVED"; }
expect "make without nvcc says the CUDA toolkit is needed" 2 "CUDA toolkit" -- \
    make --no-print-directory -s NVCC= need-nvcc
expect "make stage-NN run without a stage asks for one" 2 "name a stage" -- make --no-print-directory -s run
expect "the reference's program synopsis is the program's own --help" 0 "" -- bash scripts/docs.sh synopsis --check
# Where no GPU can be used, a verb that runs kernels says so before building anything, in at most four
# lines: the command typed, the notebook and the committed results to go to instead, what works here.
# Every stage's run (a program with a launcher of its own too), and the verbs of the first stage with a
# demo and of the first with an exercise.
first_demo=$(ls stages/*/demo.cu | head -n 1 | xargs dirname | xargs basename)
first_exercise=$(ls stages/*/exercise.cu | head -n 1 | xargs dirname | xargs basename)
nogpu_goals=$(for p in $PROGRAMS; do [ -x "$p" ] && s=$(stage_of "$p") && echo "stage-${s%%_*} run"; done
              echo "stage-${first_demo%%_*} demo"; echo "stage-${first_exercise%%_*} exercise"; echo bench; echo tour)
while read -r g; do
    rm -rf "$tmp/nogpu-build"
    expect "make $g with no usable GPU names the command, the notebook and the committed results, exit 2" 2 \
        "^make $g( BUILD=[^ ]*)? runs kernels on an NVIDIA GPU" -- env CUDA_VISIBLE_DEVICES= make --no-print-directory -s BUILD="$tmp/nogpu-build" $g
    if [ "$(grep -c . "$tmp/out")" -le 4 ] && grep -q 'notebooks/colab\.ipynb' "$tmp/out" && grep -q 'plots/reference/' "$tmp/out" &&
        [ ! -e "$tmp/nogpu-build" ]; then ok "make $g with no usable GPU: $(grep -c . "$tmp/out") lines, where to go, nothing built"
    else bad "make $g with no usable GPU printed $(grep -c . "$tmp/out") lines (at most 4, naming notebooks/colab.ipynb and plots/reference/) or built something"; fi
done <<<"$nogpu_goals"
make --no-print-directory -s help >"$tmp/help" 2>&1
for t in "stage-NN run" "stage-NN check" "stage-NN demo" "stage-NN diff" "stage-NN sass" "stage-NN profile" \
    "stage-NN sanitize" "stage-NN tree" "stage-NN exercise" "stage-NN solution" "make tour" "make audit" "make bench" \
    "make programs" "make toolkit" "make reference" "make docs" "make docs-check" "make plot" "make test" "make clean"; do
    if grep -qF -- "$t" "$tmp/help"; then ok "make help lists '$t'"; else bad "make help does not list '$t'"; fi
done
# One name per verb: a stage is acted on as make stage-NN VERB, never through a target of its own.
if grep -E 'make [a-z0-9-]+-(run|check|exercise|solution)' "$tmp/help" | grep -v '^  make docs-check ' >"$tmp/names"; then
    bad "make help lists a stage's verb under a name of its own: $(tr '\n' ' ' <"$tmp/names")"
else
    ok "make help names every verb as make stage-NN VERB"
fi
# A verb that does not apply to a stage says why and exits 2.
for d in stages/[0-9][0-9]_*/; do
    s=$(basename "$d")
    if [ ! -f "$d/demo.cu" ]; then
        expect "make stage-${s%%_*} demo: no demo, exit 2" 2 "has no demo" -- make --no-print-directory -s "stage-${s%%_*}" demo
    fi
    if [ ! -f "$d/exercise.cu" ]; then
        expect "make stage-${s%%_*} exercise: no exercise, exit 2" 2 "has no exercise" -- make --no-print-directory -s "stage-${s%%_*}" exercise
        expect "make stage-${s%%_*} solution: no exercise, exit 2" 2 "has no exercise" -- make --no-print-directory -s "stage-${s%%_*}" solution
    fi
done

# A PATH with the basic utilities (make among them, for make programs) and none of the CUDA tools.
mkdir -p "$tmp/bin"
for t in bash dirname basename cat sed awk grep ls xargs mktemp rm make head tail tr uniq sort; do ln -sf "$(command -v $t)" "$tmp/bin/"; done

# The toolkit: make toolkit names it; an nvcc older than the Makefile's NVCC_MIN is refused in one line;
# with no GPU and no ARCH, the architectures built are those of the list that nvcc supports (a fake
# nvcc of CUDA 12.5, whose list ends at compute_90, on a PATH without nvidia-smi).
expect "make toolkit names the nvcc, its CUDA release and the GPU code" 0 "CUDA [0-9]+\.[0-9]+ \(needs 12\.5 or newer\)" -- \
    make --no-print-directory -s toolkit
mkdir -p "$tmp/cuda12"
printf '#!/bin/sh\ncase "$1" in\n--version) echo "Cuda compilation tools, release $FAKE_RELEASE, V$FAKE_RELEASE.82" ;;\n--list-gpu-arch) printf "compute_%%s\\n" 50 75 80 86 89 90 ;;\n*) exit 1 ;;\nesac\n' >"$tmp/cuda12/nvcc"
chmod +x "$tmp/cuda12/nvcc"
expect "make refuses an nvcc of CUDA 12.4 in one line, exit 2" 2 "is CUDA 12\.4; building needs CUDA 12\.5 or newer" -- \
    env PATH="$tmp/bin" FAKE_RELEASE=12.4 make --no-print-directory -s NVCC="$tmp/cuda12/nvcc" need-nvcc
expect "make takes an nvcc of CUDA 12.10 (releases compare as versions)" 0 "" -- \
    env PATH="$tmp/bin" FAKE_RELEASE=12.10 make --no-print-directory -s NVCC="$tmp/cuda12/nvcc" need-nvcc
expect "without a GPU, CUDA 12.5 builds sm_75 ... sm_90 and PTX of sm_90 (no sm_100, sm_120)" 0 \
    "GPU code: -gencode arch=compute_75,code=sm_75 .*code=sm_89 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90$" -- \
    env PATH="$tmp/bin" FAKE_RELEASE=12.5 make --no-print-directory -s ARCH= NVCC="$tmp/cuda12/nvcc" toolkit

echo "== every program: the common flags, the same meaning everywhere (no GPU needed)"
common_flags="--n --kernel --list --describe --fill --seed --reps --warmup --csv --check --l2 --help"
describe_keys="stage|program|gpus|kernel|input types|fills|check fills|bench fills|default sizes|bench sizes|check sizes|edge sizes|row stage|baseline|warm-L2 kernels|flush probes|accuracy kernels|limit kernels|tree kernels|charts|csv|noisy spread|"
for p in $PROGRAMS; do
    s=$(stage_of "$p")
    if [ ! -x "$p" ]; then
        skipped "$s: $p is not built (the stage's own tests say why)"
        continue
    fi
    "$p" --help >"$tmp/help" 2>&1
    missing=$(for f in $common_flags; do grep -qE -- "(^|[[:space:]])$f([[:space:]]|$)" "$tmp/help" || echo "$f"; done | tr '\n' ' ')
    if [ -z "$missing" ]; then ok "$s --help lists every common flag"; else bad "$s --help does not list: $missing"; fi
    "$p" --describe >"$tmp/describe" 2>&1
    rc=$?
    keys=$(sed 's/:.*//' "$tmp/describe" | uniq | tr '\n' '|')
    if [ $rc -eq 0 ] && [ "$keys" = "$describe_keys" ]; then ok "$s --describe prints every key, in order"
    else bad "$s --describe (exit $rc) keys: $keys"; fi
    if [ "$(describe "$p" stage)" = "$s" ] && [ "$(describe "$p" program)" = "$(basename "$p")" ]; then
        ok "$s --describe names its stage and program"
    else
        bad "$s --describe names stage '$(describe "$p" stage)', program '$(describe "$p" program)'"
    fi
    fills=" $(describe "$p" fills) "
    unknown=$(for f in $(describe "$p" "check fills") $(describe "$p" "bench fills"); do [[ $fills == *" $f "* ]] || echo "$f"; done | tr '\n' ' ')
    if [ -n "$(describe "$p" "check fills")" ] && [ -n "$(describe "$p" "check sizes")" ] && [ -z "$unknown" ]; then
        ok "$s --describe: check sizes, and check and bench fills among its fills"
    else
        bad "$s --describe: check sizes '$(describe "$p" "check sizes")', check fills '$(describe "$p" "check fills")', not among its fills: $unknown"
    fi
    "$p" --list >"$tmp/list" 2>&1
    unknown=$(for k in $(describe "$p" "accuracy kernels"); do grep -qE "^  $k " "$tmp/list" || echo "$k"; done | tr '\n' ' ')
    if [ -z "$unknown" ]; then ok "$s --describe: its accuracy kernels are kernels of its table"
    else bad "$s --describe: accuracy kernels not in its table: $unknown"; fi
    unknown=$(for k in $(describe "$p" "limit kernels"); do grep -qE "^  $k " "$tmp/list" || echo "$k"; done | tr '\n' ' ')
    if [ -z "$unknown" ]; then ok "$s --describe: its limit kernels are kernels of its table"
    else bad "$s --describe: limit kernels not in its table: $unknown"; fi
    first=$("$p" --describe | awk '$1 == "kernel:" && $4 == "default" { print $2; exit }')
    expect "$s unknown flag" 2 "unknown option '--bogus'" -- "$p" --bogus
    expect "$s --n without a value" 2 "option --n needs a value" -- "$p" --n
    expect "$s --n 0" 2 "--n '0'" -- "$p" --n 0
    expect "$s --n -5" 2 "--n '-5'" -- "$p" --n -5
    expect "$s --n abc" 2 "--n 'abc'" -- "$p" --n abc
    expect "$s unknown --kernel" 2 "unknown kernel 'nope'" -- "$p" --kernel nope
    expect "$s --kernel with one unknown name in a list" 2 "unknown kernel 'nope'" -- "$p" --kernel "$first,nope"
    expect "$s unknown --fill" 2 "unknown fill 'zeros'" -- "$p" --fill zeros
    expect "$s --reps 0" 2 "--reps '0'" -- "$p" --reps 0
    expect "$s --warmup x" 2 "--warmup 'x'" -- "$p" --warmup x
    expect "$s --l2 with a bad value" 2 "--l2 'cold'" -- "$p" --l2 cold
    expect "$s --csv to an unwritable path" 2 "cannot write the CSV" -- "$p" --csv /nonexistent/dir/out.csv
    rm -f "$tmp/nogpu.csv"
    expect "$s with no GPU says so and exits 3" 3 "no CUDA-capable GPU found" -- \
        env CUDA_VISIBLE_DEVICES= "$p" --n 1000 --csv "$tmp/nogpu.csv"
    if [ ! -s "$tmp/nogpu.csv" ]; then ok "$s with no GPU writes no CSV row"; else bad "$s with no GPU wrote to its CSV"; fi
    # The stage harness's own flags, where the program has them.
    if grep -q -- '--offset' "$tmp/help"; then
        expect "$s --offset 16" 2 "--offset '16'" -- "$p" --offset 16
        expect "$s --offset x" 2 "--offset 'x'" -- "$p" --offset x
    fi
    if grep -q -- '--cond' "$tmp/help"; then
        expect "$s --cond 5 (below 10)" 2 "--cond '5'" -- "$p" --fill cond --cond 5
        expect "$s --cond x" 2 "--cond 'x'" -- "$p" --fill cond --cond x
        expect "$s --cond without --fill cond" 2 "of --fill cond only" -- "$p" --cond 1e8
        expect "$s --fill cond with two sizes" 2 "one size a run" -- "$p" --fill cond --n 1K,2K
    fi
    if grep -q -- '--cols' "$tmp/help" && [ "$(describe "$p" "row stage")" = no ]; then
        expect "$s --cols on a one-vector stage says it is for the row stage" 2 "for a row stage" -- "$p" --cols 32
    fi
    # The GPU engineer's tools: a program they do not drive says so (exit 2); a missing tool, exit 4.
    if [ "$(describe "$p" gpus)" = one ]; then
        expect "$s profile without ncu says so" 4 "ncu not found" -- env PATH="$tmp/bin" bash scripts/stage_tool.sh profile "$s"
        expect "$s sanitize without compute-sanitizer says so" 4 "compute-sanitizer not found" -- \
            env PATH="$tmp/bin" bash scripts/stage_tool.sh sanitize "$s"
    else
        for tool in profile sanitize; do
            expect "$s $tool says its program is not a single-GPU stage program (exit 2)" 2 "not a single-GPU stage program" -- \
                scripts/stage_tool.sh $tool "$s"
        done
    fi
done
for d in stages/*/demo.cu; do
    s=$(basename "$(dirname "$d")")
    expect "$s demo with no GPU exits 3" 3 "no CUDA-capable GPU found" -- env CUDA_VISIBLE_DEVICES= "build/$s/demo"
done

expect "make accuracy with no GPU says so in one line, exit 3" 3 "no CUDA-capable GPU found" -- \
    env CUDA_VISIBLE_DEVICES= bash scripts/accuracy.sh
[ "$(grep -c . "$tmp/out")" -le 2 ] && ok "make accuracy with no GPU: nothing but that line and the program it ran" ||
    bad "make accuracy with no GPU printed $(grep -c . "$tmp/out") lines"

echo "== teaching tools (no GPU needed)"
# diff: against the previous stage whose program is built from a file of the same name.
seen=
for p in $PROGRAMS; do
    s=$(stage_of "$p")
    num=${s%%_*}
    same=$(for q in $seen; do [ "$(basename "$q")" = "$(basename "$p")" ] && echo "$q"; done)
    if [ -z "$seen" ]; then
        expect "make stage-$num diff: the first stage has nothing before it" 0 "is the first" -- make --no-print-directory -s stage-$num diff
    elif [ -n "$same" ]; then
        expect "make stage-$num diff shows the change from the previous stage built the same way" 0 "^\+\+\+ $(source_of "$p")" -- \
            make --no-print-directory -s stage-$num diff
    else
        expect "make stage-$num diff says why a program of its own has no diff (exit 2)" 2 "a program of its own" -- \
            make --no-print-directory -s stage-$num diff
    fi
    seen="$seen $p"
done
for p in $PROGRAMS; do
    s=$(stage_of "$p")
    # A program with no __global__ of its own has no SASS to show: it says so before looking for the tool.
    if grep -q '__global__' "$(source_of "$p")"; then
        expect "$s sass without cuobjdump says so" 4 "cuobjdump not found" -- env PATH="$tmp/bin" bash scripts/stage_tool.sh sass "$s" nvcc
    else
        expect "$s sass: a program with no kernel of its own says so first, exit 2" 2 "compiles no kernel of its own" -- \
            env PATH="$tmp/bin" bash scripts/stage_tool.sh sass "$s" nvcc
    fi
done
for s in $EXERCISES; do
    if ! solved "$s"; then
        [ -x "build/$s/exercise" ] && ok "$s exercise stub builds ($no_solutions)" || bad "$s exercise stub builds"
    elif [ -x "build/$s/exercise" ] && [ -x "build/$s/solution" ]; then ok "$s exercise stub and solution build"
    else bad "$s exercise stub and solution build"; fi
done
expect "make stage-NN exercise without a stage asks for one" 2 "name a stage" -- make --no-print-directory -s exercise
# The stage must not give the exercise away: what the stub leaves to write (the functions and structs
# of its "#ifdef SOLUTION_FILE ... #else" branch) is defined nowhere in the stage's own program, and no
# stage's own file includes a solution: a stage's file holds every kernel its README teaches.
if grep -ln 'include.*solutions/' stages/*/*.cu | grep -v '/exercise\.cu$' >"$tmp/includes"; then
    bad "stage files include a solution: $(tr '\n' ' ' <"$tmp/includes")"
else ok "no stage's own file includes a solution"; fi
for s in $EXERCISES; do
    stub=stages/$s/exercise.cu
    program=$(source_of "$(echo "$PROGRAMS" | grep "^build/$s/")")
    names=$(awk '/^#ifdef SOLUTION_FILE/ { on = 1; next } on && /^#else/ { stub = 1; next } on && /^#endif/ { on = stub = 0 }
                 stub && /^[A-Za-z_].*[A-Za-z_][A-Za-z0-9_]* *(\(|\{|$)/ && !/;[ \t]*$/ {
                     line = $0; sub(/\(.*/, "", line); sub(/[ \t]*\{.*/, "", line); n = split(line, w, /[ \t*&]+/); print w[n] }' "$stub" | sort -u)
    [ -n "$names" ] || { bad "$stub: no stubbed function found in its #ifdef SOLUTION_FILE ... #else branch"; continue; }
    given=""
    for name in $names; do
        awk -v n="$name" '$0 ~ "^[A-Za-z_].*[^A-Za-z0-9_]" n " *(\\(|\\{|$)" && $0 !~ /;[ \t]*$/ || $0 ~ "^struct " n "( |$)" && $0 !~ /;/ { found = 1 } END { exit !found }' "$program" &&
            given="$given $name"
    done
    if [ -z "$given" ]; then ok "$program does not contain what $stub leaves to write ($(echo $names))"
    else bad "$program defines what its exercise leaves to write:$given"; fi
done
for stub in stages/*/exercise.cu; do
    en=$(grep -c '^ \* Hint:' "$stub")
    zh=$(grep -c '^ \* 提示：' "$stub")
    if [ "$en" -gt 0 ] && [ "$en" -eq "$zh" ]; then ok "$stub: $en hints in English and in Chinese"
    else bad "$stub: $en hints in English, $zh in Chinese"; fi
done

echo "== charts and README from the committed reference results"
source tests/charts.sh
# The reporting program's own tests (made-up CSVs, and the tables of the committed results).
python3 tests/test_report.py >"$tmp/report-tests" 2>&1
rc=$?
while read -r verdict line; do
    case $verdict in ok) ok "report: $line" ;; FAIL) bad "report: $line" ;; esac
done <"$tmp/report-tests"
[ $rc -le 1 ] || { bad "python3 tests/test_report.py (exit $rc)"; tail -n 5 "$tmp/report-tests" | sed 's/^/     | /'; }

echo "== every guide in English and Chinese, kept in step"
# The structure, not the translation: a README.md and its README.zh-CN.md have the same headings (level
# by level, in order), the same generated blocks (the same markers, each with as many table rows and
# charts: their numbers are checked against the CSV by make docs-check), and link to each other.
for readme in README.md docs/*.md stages/*/README.md; do
    [[ $readme == *.zh-CN.md ]] && continue
    zh=${readme%.md}.zh-CN.md
    if [ ! -f "$zh" ]; then bad "$readme has no Chinese sibling $zh"; continue; fi
    if [ "$(grep -o '^#*' "$readme" | tr '\n' ' ')" = "$(grep -o '^#*' "$zh" | tr '\n' ' ')" ]; then
        ok "$zh has the headings of $readme"
    else
        bad "$zh and $readme differ in their headings ($(grep -c '^#' "$readme") and $(grep -c '^#' "$zh"))"
    fi
    blocks() { awk '/^<!-- [a-z-]+:begin -->$/ { print; on = 1; rows = charts = 0; next }
                    /^<!-- [a-z-]+:end -->$/ { print rows + 0, charts + 0; print; on = 0; next }
                    on && /^\|/ { rows++ } on && /^!\[/ { charts++ }' "$1"; }
    if [ "$(blocks "$readme")" = "$(blocks "$zh")" ]; then ok "$zh has the generated blocks of $readme"
    else bad "$zh and $readme differ in their generated blocks"; fi
    if grep -qF "]($(basename "$zh"))" "$readme" && grep -qF "]($(basename "$readme"))" "$zh"; then ok "$readme and $zh link to each other"
    else bad "$readme and $zh do not link to each other"; fi
done
# Every column list a guide quotes, and every count of them, is the header the programs write
# (CSV_HEADER, common/program.h): a column added there and not in a guide fails here.
header=$(sed -n 's/^#define CSV_HEADER "\(.*\)"$/\1/p' common/program.h)
guides=(README*.md docs/*.md stages/*/README*.md)
quoted=$(grep -ohE '`gpu,stage,kernel,[a-z0-9_,]*`' "${guides[@]}" | tr -d '`' | sort -u)
counts=$(grep -ohE "every program's [0-9]+ columns|共用的 [0-9]+ 列" "${guides[@]}" | grep -oE '[0-9]+' | sort -u)
stale=$(printf '%s\n' "$quoted" | grep -vxF "$header" | tr '\n' ' ')
columns=$(printf '%s' "$header" | awk -F, '{ print NF }')
if [ -z "$header" ] || [ -z "$quoted" ]; then bad "no CSV_HEADER in common/program.h, or no guide quotes it"
elif [ -n "$stale" ]; then bad "guides quote CSV columns other than the programs' header ($header): $stale"
elif [ -n "$(printf '%s\n' "$counts" | grep -vx "$columns")" ]; then bad "guides count the CSV's columns as $(echo $counts), not $columns"
else ok "the CSV columns the guides quote ($(grep -lE '`gpu,stage,kernel,' "${guides[@]}" | wc -l) guides) are the $columns the programs write"; fi
# The front page is for a newcomer: short, the reference in docs/. Each stage README opens with the
# articles it follows, by their titles (《...》), and each title is in the front page's table of the
# articles, in both languages.
for readme in README.md README.zh-CN.md; do
    lines=$(wc -l <"$readme")
    if [ "$lines" -le 220 ]; then ok "$readme is short: $lines lines (at most 220; the reference is in docs/)"
    else bad "$readme has $lines lines (at most 220: the reference belongs in docs/)"; fi
done
articles() { awk '/^## (The articles|文章)$/ { on = 1; next } /^## / { on = 0 } on' "$1"; }
for readme in stages/*/README.md stages/*/README.zh-CN.md; do
    opening=$(awk 'NR > 1 && /^\*\*/ { on = 1 } on && /^$/ { exit } on' "$readme")
    titles=$(printf "%s" "$opening" | tr "\n" " " | grep -o "《[^》]*》" | sort -u)
    if [ -z "$titles" ]; then
        # A stage beyond the articles says so in its opening instead.
        if printf '%s\n' "$opening" | grep -qE 'beyond the articles|超出[^，。]*文章'; then ok "$readme opens saying it goes beyond the articles"
        else bad "$readme does not open with the articles it follows (a first bold paragraph naming 《titles》)"; fi
        continue
    fi
    unknown=$(while read -r t; do for top in README.md README.zh-CN.md; do articles "$top" | grep -qF "$t" || echo "$t in $top"; done; done <<<"$titles" | tr '\n' ' ')
    if [ -z "$unknown" ]; then ok "$readme opens with the articles it follows, each in both front pages' table ($(echo $titles))"
    else bad "$readme names articles missing from the front pages' table of the articles: $unknown"; fi
done
# No obsolete option forms that coreutils rejects with several files (tail -N A B): -n N everywhere.
obsolete=$(git ls-files 2>/dev/null | grep -E '\.(sh|mk|awk)$|^Makefile$|^\.ci/' | xargs grep -nE '\b(head|tail) -[0-9]' 2>/dev/null | tr '\n' ' ')
[ -z "$obsolete" ] && ok "head and tail take -n N in every script" || bad "head or tail with an obsolete -N option: $obsolete"

# A merge that left its conflict markers in a tracked file (a line that starts <<<<<<<, ======= or >>>>>>>).
conflicts=$(git ls-files 2>/dev/null | xargs grep -lE '^(<{7}|={7}|>{7})( |$)' 2>/dev/null | tr '\n' ' ')
if ! git rev-parse --git-dir >/dev/null 2>&1; then skipped "no file holds merge conflict markers (not a git checkout)"
elif [ -z "$conflicts" ]; then ok "no tracked file holds merge conflict markers"
else bad "tracked files hold merge conflict markers: $conflicts"; fi

echo "== GPU half"
gpu=0
if nvidia-smi -L >/dev/null 2>&1; then
    gpu=1
    first=$(echo $SINGLE_GPU | awk '{ print $1 }')
    expect "a GPU is present and a program runs on it" 0 "all kernels passed" -- "$first" --n 1 --reps 1 --warmup 0
fi
if [ "$gpu" = 1 ]; then
    # Every kernel of every single-GPU program at its check sizes, with each of its check fills.
    for p in $SINGLE_GPU; do
        s=$(stage_of "$p")
        sizes=$(describe "$p" "check sizes")
        for fill in $(describe "$p" "check fills"); do
            csv=$tmp/$s-$fill.csv
            "$p" --check --n "$sizes" --fill "$fill" --reps 3 --warmup 1 --csv "$csv" >"$tmp/run" 2>&1
            rc=$?
            rows=0
            while IFS=, read -r _ stage kernel dtype n _ _ _ rel pass_ _ _ _ _ _ _ _ bound _ chain; do
                [ "$stage" = 00_device ] && continue
                rows=$((rows + 1))
                name="$s $kernel ($dtype) n=$n fill=$fill"
                if row_passes "$pass_" "$fill" "$bound" "$chain" "$n"; then ok "$name"
                else bad "$name (rel err $rel, pass=$pass_)"; fi
            done < <(tail -n +2 "$csv" 2>/dev/null)
            # Every row, the device's too, has the columns its header names.
            if awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad || NR < 2 }' "$csv"; then ok "$s --check: every CSV row has the header's columns (fill $fill)"
            else bad "$s --check --fill $fill: a CSV row whose fields differ from its header's"; fi
            if [ "$rc" -eq 0 ] && [ "$rows" -gt 0 ]; then
                ok "$s --check exits 0 (fill $fill, $rows rows)"
            else
                bad "$s --check --fill $fill: exit $rc, $rows rows"
                tail -n 15 "$tmp/run" | sed 's/^/     | /'
            fi
        done
    done
    if command -v ncu >/dev/null; then
        # As many readings as the programs declare probes: three sizes each, and a warm control for
        # each probe of a program with warm-L2 kernels.
        want=0
        for p in $SINGLE_GPU; do
            probes=$(describe "$p" "flush probes" | wc -w)
            want=$((want + 3 * probes))
            [ -n "$(describe "$p" "warm-L2 kernels")" ] && want=$((want + probes))
        done
        scripts/flush_check.sh "$tmp/flush.csv" >"$tmp/flush" 2>&1
        rc=$?
        while read -r status line; do
            if [ "$status" = ok ]; then ok "L2 flush: $line"; else bad "L2 flush: $line"; fi
        done < <(grep -E '^(ok|FAIL) ' "$tmp/flush")
        [ $rc -eq 0 ] && [ "$want" -gt 0 ] && [ "$(grep -c '^ok ' "$tmp/flush")" -eq "$want" ] ||
            { bad "scripts/flush_check.sh exits $rc ($want readings wanted)"; tail -n 5 "$tmp/flush" | sed 's/^/     | /'; }
    else
        skipped "the L2 flush checked with DRAM counters ($(missing ncu))"
    fi
    # Fuzz: 50 sizes drawn from 1 ... 2^22 (seeded, the same every run), random data, every kernel.
    fuzz=$(awk 'BEGIN { srand(20261122); for (i = 0; i < 50; i++) printf "%s%d", i ? "," : "", 1 + int(rand() * 4194304) }')
    for p in $SINGLE_GPU; do
        s=$(stage_of "$p")
        "$p" --check --n "$fuzz" --reps 1 --warmup 0 --seed 7 --csv "$tmp/fuzz-$s.csv" >"$tmp/fuzz" 2>&1
        rc=$?
        rows=$(awk -F, 'NR > 1 && $2 != "00_device"' "$tmp/fuzz-$s.csv" | wc -l)
        failed=$(tail -n +2 "$tmp/fuzz-$s.csv" | while IFS=, read -r _ stage kernel _ n _ _ _ _ pass_ _ _ _ _ _ _ fill bound _ chain; do
            [ "$stage" = 00_device ] || row_passes "$pass_" "$fill" "$bound" "$chain" "$n" || printf '%s n=%s; ' "$kernel" "$n"
        done)
        if [ $rc -eq 0 ] && [ "$rows" -ge 50 ] && [ -z "$failed" ]; then ok "$s fuzz: $rows kernel runs at 50 random sizes pass"
        else bad "$s fuzz (exit $rc, $rows rows): $failed"; fi
    done
    for s in $EXERCISES; do
        expect "$s exercise stub fails its check" 1 "^FAIL: .*Hints" -- bash -c "set -o pipefail; scripts/stage_tool.sh exercise $s | tr '\n' ' '"
        if solved "$s"; then expect "$s solution passes its check" 0 "^PASS" -- scripts/stage_tool.sh solution $s
        else skipped "$s solution passes its check ($no_solutions)"; fi
    done
    command -v cuobjdump >/dev/null || skipped "make stage-NN sass on this GPU's build, in the stages' own tests ($(missing cuobjdump))"
    expect "make tour runs through every stage without waiting" 0 "Stage $(stage_of "$(echo "$PROGRAMS" | tail -n 1)")" -- \
        bash -c "make --no-print-directory -s tour </dev/null | grep -E '^Stage|^Diff from' | tail -n 3; exit \${PIPESTATUS[0]}"
else
    reason="no GPU: nvidia-smi -L finds none"
    for p in $SINGLE_GPU; do
        skipped "$(stage_of "$p"): every kernel at N = $(describe "$p" "check sizes"), fills $(describe "$p" "check fills") ($reason)"
    done
    skipped "the L2 flush checked with DRAM counters ($reason)"
    skipped "fuzz: every kernel at 50 random sizes ($reason)"
    for s in $EXERCISES; do skipped "$s exercise stub fails and its solution passes ($reason)"; done
    skipped "make tour ($reason)"
fi

echo "== the Colab notebook"
source tests/notebook.sh
source tests/tree.sh
source tests/classroom.sh
source tests/input.sh

# Each stage's own tests (tests/stage/<stage>.sh, sourced with ok/bad/skipped/expect, describe, $tmp
# and $gpu): the host half runs anywhere, the GPU half where $gpu is 1.
for d in stages/[0-9][0-9]_*/; do
    s=$(basename "$d")
    [ -f "tests/stage/$s.sh" ] || continue
    echo "== stage $s"
    source "tests/stage/$s.sh"
done

echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
