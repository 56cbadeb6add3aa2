#!/usr/bin/env bash
# The test suite behind `make test`. The host half runs anywhere: unit tests of common/, building
# every stage, bad input, the no-GPU error, charts and README tables from the committed reference
# results. The GPU half runs when a GPU is present (every kernel of every stage verified at odd
# sizes with random and ones data, the shuffle demo) and is reported as skipped otherwise.
# Ends with "N passed, N failed, N skipped"; exits 1 if anything failed.
set -u
cd "$(dirname "$0")/.."

pass=0 fail=0 skip=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
skipped() { echo "skip $*"; skip=$((skip + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The stages built on the common harness (stages/NN_*/reduce.cu); stage 12 has its own program.
STAGES=$(ls stages/[0-9][0-9]_*/reduce.cu | xargs -n1 dirname | xargs -n1 basename)
EXERCISES=$(for s in $STAGES; do [ -f "stages/$s/exercise.cu" ] && echo "$s"; done)

# The sizes a stage is verified at, as its program reports them.
check_sizes() { "build/$1/reduce" --list | sed -n 's/^check sizes: //p'; }

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
        sed 's/^/     | /' "$tmp/out" | tail -5
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
for script in scripts/*.sh tests/*.sh .ci/run; do
    if bash -n "$script" 2>"$tmp/parse"; then ok "bash -n $script"; else bad "bash -n $script: $(head -2 "$tmp/parse" | tr '\n' ' ')"; fi
done
if command -v shellcheck >/dev/null; then
    if shellcheck -S error scripts/*.sh tests/*.sh >"$tmp/shellcheck" 2>&1; then ok "shellcheck finds no errors in scripts/ and tests/"
    else bad "shellcheck -S error:"; head -10 "$tmp/shellcheck" | sed 's/^/     | /'; fi
else
    skipped "shellcheck over scripts/ and tests/ (shellcheck is not installed)"
fi

echo "== build every stage"
if make --no-print-directory all >"$tmp/build" 2>&1; then
    ok "make all builds every stage with warnings as errors"
else
    bad "make all:"
    tail -20 "$tmp/build" | sed 's/^/     | /'
fi
expect "make without nvcc says the CUDA toolkit is needed" 2 "CUDA toolkit" -- \
    make --no-print-directory -s NVCC= need-nvcc
expect "make stage-NN run without a stage asks for one" 2 "name a stage" -- make --no-print-directory -s run
make --no-print-directory -s help >"$tmp/help" 2>&1
for t in "stage-NN run" "stage-NN check" "stage-05 demo" "stage-NN diff" "stage-NN sass" "stage-NN profile" \
    "stage-NN sanitize" "stage-NN exercise" "stage-NN solution" "make tour" "make audit" "make bench" \
    "make reference" "make plot" "make test" "make clean"; do
    if grep -qF -- "$t" "$tmp/help"; then ok "make help lists '$t'"; else bad "make help does not list '$t'"; fi
done

echo "== every program: options and bad input (no GPU needed)"
for s in $STAGES; do
    p=build/$s/reduce
    expect "$s --help" 0 "--n N" -- $p --help
    expect "$s --list names its kernels" 0 "^  [a-z0-9]+_[a-z0-9_]+ +[A-Za-z]" -- $p --list
    expect "$s unknown flag" 2 "unknown option '--bogus'" -- $p --bogus
    expect "$s --n without a value" 2 "needs a value" -- $p --n
    expect "$s --n 0" 2 "--n '0'" -- $p --n 0
    expect "$s --n -5" 2 "--n '-5'" -- $p --n -5
    expect "$s --n abc" 2 "--n 'abc'" -- $p --n abc
    expect "$s unknown --kernel" 2 "unknown kernel 'nope'" -- $p --kernel nope
    expect "$s unknown --fill" 2 "unknown fill 'zeros'" -- $p --fill zeros
    expect "$s --reps 0" 2 "--reps '0'" -- $p --reps 0
    expect "$s --offset 16" 2 "--offset '16'" -- $p --offset 16
    expect "$s --offset x" 2 "--offset 'x'" -- $p --offset x
    expect "$s --l2 with a bad value" 2 "--l2 'cold'" -- $p --l2 cold
    expect "$s --kernel with one unknown name in a list" 2 "unknown kernel 'nope'" -- $p --kernel "$($p --list | awk 'NR == 2 { print $1 }'),nope"
    rm -f "$tmp/nogpu.csv"
    env CUDA_VISIBLE_DEVICES= $p --n 1000 --csv "$tmp/nogpu.csv" >/dev/null 2>&1
    if [ ! -s "$tmp/nogpu.csv" ]; then ok "$s with no GPU writes no CSV row"; else bad "$s with no GPU wrote to its CSV"; fi
    expect "$s --csv to an unwritable path" 2 "cannot write the CSV" -- $p --csv /nonexistent/dir/out.csv
    expect "$s with no GPU says so and exits 3" 3 "no CUDA-capable GPU found" -- \
        env CUDA_VISIBLE_DEVICES= $p --n 1000
done
expect "09 --rows without --cols is a usage error" 2 "--rows needs --cols" -- build/09_rows/reduce --rows 5
expect "09 --cols longer than the matrix is a usage error" 2 "each H must be at most" -- build/09_rows/reduce --n 1000 --cols 2000
expect "09 a bad matrix size is a usage error" 2 "--n '3x0'" -- build/09_rows/reduce --n 3x0
expect "--cols on a one-vector stage says it is for the row stage" 2 "for a row stage" -- build/06_gridstride/reduce --cols 32
expect "05_shuffle demo with no GPU exits 3" 3 "no CUDA-capable GPU found" -- \
    env CUDA_VISIBLE_DEVICES= build/05_shuffle/demo

echo "== teaching tools (no GPU needed)"
for s in $STAGES; do
    num=${s%%_*}
    if [ "$num" = 01 ]; then
        expect "make stage-$num diff: the first stage has nothing before it" 0 "is the first" -- make --no-print-directory -s stage-$num diff
    else
        expect "make stage-$num diff shows the change from the previous stage" 0 "^\+\+\+ stages/$s/reduce.cu" -- make --no-print-directory -s stage-$num diff
    fi
done
expect "make stage-12 profile says its program is not a single-GPU stage program (exit 2)" 2 "not a single-GPU stage program" -- \
    make --no-print-directory -s stage-12 profile
for d in stages/[0-9][0-9]_*/; do
    s=$(basename "$d")
    [ -f "$d/reduce.cu" ] && continue
    expect "make stage-${s%%_*} diff says why a program of its own has no diff (exit 2)" 2 "a program of its own" -- \
        make --no-print-directory -s "stage-${s%%_*}" diff
done
# A PATH with the basic utilities and none of the CUDA tools.
mkdir -p "$tmp/bin"
for t in bash dirname basename cat sed awk grep ls xargs mktemp rm; do ln -sf "$(command -v $t)" "$tmp/bin/"; done
expect "sass without cuobjdump says so" 4 "cuobjdump not found" -- env PATH="$tmp/bin" bash scripts/stage_tool.sh sass 05_shuffle nvcc
expect "profile without ncu says so" 4 "ncu not found" -- env PATH="$tmp/bin" bash scripts/stage_tool.sh profile 05_shuffle
expect "sanitize without compute-sanitizer says so" 4 "compute-sanitizer not found" -- env PATH="$tmp/bin" bash scripts/stage_tool.sh sanitize 05_shuffle
for s in $EXERCISES; do
    [ -x "build/$s/exercise" ] && [ -x "build/$s/solution" ] && ok "$s exercise stub and solution build" || bad "$s exercise stub and solution build"
done
expect "make stage-NN exercise without a stage asks for one" 2 "name a stage" -- make --no-print-directory -s exercise
# The stage must not give the exercise away: what the stub leaves to write (the functions and structs
# of its "#ifdef SOLUTION_FILE ... #else" branch) is defined nowhere in the stage's own program, which
# includes the solution where its kernels need that part.
for stub in stages/*/exercise.cu; do
    d=$(dirname "$stub")
    program=$d/reduce.cu
    [ -f "$program" ] || program=$(ls "$d"/*.cu | grep -v -e '/exercise\.cu$' -e '/demo\.cu$' | head -1)
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
refs=$(ls plots/reference/*/results.csv 2>/dev/null)
if [ -z "$refs" ]; then
    bad "reference results are committed under plots/reference/<gpu>/results.csv"
fi
[ "$(echo "$refs" | grep -c .)" -ge 2 ] && ok "reference results of more than one GPU are committed ($(echo $refs | xargs -n1 dirname | xargs -n1 basename | tr '\n' ' '))" ||
    bad "reference results of at least two GPUs are committed (found: $refs)"
is_png() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; }
for csv in $refs; do
    gpu=$(basename "$(dirname "$csv")")
    if ! command -v gnuplot >/dev/null; then
        skipped "charts render from $csv (gnuplot is not installed)"
    elif scripts/plot.sh "$csv" "$tmp/$gpu" >"$tmp/plot" 2>&1 && is_png "$tmp/$gpu/bandwidth.png" && is_png "$tmp/$gpu/scaling.png"; then
        ok "charts render from $csv"
        for chart in dtypes:',07_' roofline:',08_roofline,' l2:',warm$'; do
            if grep -q "${chart#*:}" "$csv"; then
                if is_png "$tmp/$gpu/${chart%%:*}.png"; then ok "${chart%%:*} chart renders from $csv"; else bad "${chart%%:*} chart renders from $csv"; fi
            fi
        done
    else
        bad "charts render from $csv:"
        tail -5 "$tmp/plot" | sed 's/^/     | /'
    fi
    bad_rows=$(awk -F, 'NR > 1 && $2 != "00_device" && $10 != 1' "$csv" | wc -l)
    if [ "$bad_rows" -eq 0 ]; then ok "every row of $csv passed verification"; else bad "$bad_rows rows of $csv failed verification"; fi
    # Physical limits. With L2 flushed, no row may be faster than DRAM can deliver the bytes its GB/s
    # counts, nor than the speed of light of the bytes it reads (the shortest launch floor plus those
    # bytes over the fastest read-only bandwidth of the run): N elements of the row's input type. Bytes
    # written are not counted there: a write can sit in L2 until after the timed run. 0.1%: the CSV's
    # rounding.
    over=$(awk -F, 'NR > 1 && $2 == "00_device" && $3 == "dram_peak" { peak = $7 }
        NR > 1 && $2 != "00_device" && $12 != "warm" && $7 + 0 > peak * 1.001 { printf "%s %s n=%s %s GB/s; ", $2, $3, $5, $7 }' "$csv")
    if [ -z "$over" ]; then ok "no flushed row of $csv exceeds the theoretical DRAM peak"; else bad "rows of $csv above the DRAM peak: $over"; fi
    beat=$(awk -F, 'NR > 1 && $2 == "00_device" { if ($3 == "read_sol" && $7 + 0 > sol) sol = $7 + 0
                                                  if ($3 == "launch_floor" && (floor == "" || $6 + 0 < floor)) floor = $6 + 0 }
        NR > 1 && $2 != "00_device" && $12 == "flushed" {
            size = $4 ~ /^(f32|i32)/ ? 4 : $4 ~ /^(f16|bf16|u16)/ ? 2 : $4 ~ /^(fp8|i8|u8)/ ? 1 : 0
            if (!size) { print "unknown input type " $4; exit }
            t[NR] = $6; b[NR] = $5 * size; name[NR] = $2 " " $3 " " $4 " n=" $5 }
        END { if (sol <= 0) { print "no read_sol row"; exit }
              for (r in t) { limit = floor + b[r] / sol / 1e3; if (t[r] * 1.001 < limit) printf "%s: %.2f us < %.2f us; ", name[r], t[r], limit } }' "$csv")
    if [ -z "$beat" ]; then ok "no flushed row of $csv beats the speed of light"; else bad "rows of $csv faster than the speed of light: $beat"; fi
    flush=$(dirname "$csv")/flush_check.csv
    if [ -f "$flush" ]; then
        readings=$(awk -F, 'NR > 1 && (($6 == "flushed" && $9 + 0 >= 0.99 && $8 + 0 >= 0.99 * $5) || ($6 == "warm" && $9 + 0 < 0.5)) && $10 == 1' "$flush" | wc -l)
        flushed=$(awk -F, 'NR > 1 && $6 == "flushed"' "$flush" | wc -l)
        if [ "$readings" -eq $(($(wc -l <"$flush") - 1)) ] && [ "$flushed" -ge 9 ]; then
            ok "$flush: every timed run read >= 99% of its input from DRAM ($flushed flushed readings, the warm controls under 50%)"
        else
            bad "$flush: $readings of $(($(wc -l <"$flush") - 1)) readings as they must be ($flushed flushed)"
        fi
    else
        bad "$flush: the flush check's readings are committed with the results (make bench on a machine with ncu)"
    fi
done
for csv in plots/reference/*/multigpu.csv; do
    [ -f "$csv" ] || continue
    over=$(awk -F, 'NR > 1 && $12 != "warm" && $8 != "" && $8 + 0 > 100.1 { printf "%s n=%s %s%%; ", $3, $5, $8 }' "$csv")
    if [ -z "$over" ]; then ok "no flushed row of $csv exceeds the DRAM peak of its GPUs"; else bad "rows of $csv above the DRAM peak: $over"; fi
done
if command -v gnuplot >/dev/null; then
    expect "make plot draws from the committed reference results" 0 "bandwidth.png" -- make --no-print-directory -s plot
else
    skipped "make plot draws from the committed reference results (gnuplot is not installed)"
fi
expect "README.md tables are the ones generated from the reference CSV" 0 "" -- scripts/reference.sh --check

echo "== every guide in English and Chinese, kept in step"
# The structure, not the translation: a README.md and its README.zh-CN.md have the same headings (level
# by level, in order), the same generated blocks (the same markers, each with as many table rows and
# charts: their numbers are checked against the CSV by reference.sh --check), and link to each other.
for readme in README.md stages/*/README.md; do
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
    if grep -q '](README.zh-CN.md)' "$readme" && grep -q '](README.md)' "$zh"; then ok "$readme and $zh link to each other"
    else bad "$readme and $zh do not link to each other"; fi
done

echo "== GPU half"
gpu=0
if nvidia-smi -L >/dev/null 2>&1; then
    gpu=1
    expect "a GPU is present and a stage program runs on it" 0 "all kernels passed" -- \
        build/01_naive/reduce --n 1 --reps 1 --warmup 0
fi
if [ "$gpu" = 1 ]; then
    for s in $STAGES; do
        sizes=$(check_sizes "$s")
        for fill in random ones; do
            csv=$tmp/$s-$fill.csv
            build/$s/reduce --check --n "$sizes" --fill $fill --reps 3 --warmup 1 --csv "$csv" >"$tmp/run" 2>&1
            rc=$?
            rows=0
            while IFS=, read -r _ stage kernel dtype n _ _ _ rel pass_ _; do
                [ "$stage" = 00_device ] && continue
                rows=$((rows + 1))
                name="$s $kernel ($dtype) n=$n fill=$fill"
                if [ "$pass_" = 1 ]; then ok "$name"; else bad "$name (rel err $rel, pass=$pass_)"; fi
            done < <(tail -n +2 "$csv" 2>/dev/null)
            if [ "$rc" -eq 0 ] && [ "$rows" -gt 0 ]; then
                ok "$s --check exits 0 (fill $fill, $rows rows)"
            else
                bad "$s --check --fill $fill: exit $rc, $rows rows"
                tail -15 "$tmp/run" | sed 's/^/     | /'
            fi
        done
    done
    expect "05_shuffle demo matches the programming guide's rules" 0 "all 288 values match" -- build/05_shuffle/demo
    if command -v ncu >/dev/null; then
        scripts/flush_check.sh "$tmp/flush.csv" >"$tmp/flush" 2>&1
        rc=$?
        while read -r status line; do
            if [ "$status" = ok ]; then ok "L2 flush: $line"; else bad "L2 flush: $line"; fi
        done < <(grep -E '^(ok|FAIL) ' "$tmp/flush")
        [ $rc -eq 0 ] && [ "$(grep -c '^ok ' "$tmp/flush")" -ge 11 ] || { bad "scripts/flush_check.sh exits $rc"; tail -5 "$tmp/flush" | sed 's/^/     | /'; }
    else
        skipped "the L2 flush checked with DRAM counters (ncu is not installed)"
    fi
    expect "a size that does not fit in GPU memory: bytes needed and free, exit 2" 2 "needs about [0-9]+ bytes .* [0-9]+ bytes free" -- \
        build/06_gridstride/reduce --n 2^40 --reps 1
    # Fuzz: 50 sizes drawn from 1 ... 2^22 (seeded, the same every run), random data, every kernel.
    fuzz=$(awk 'BEGIN { srand(20261122); for (i = 0; i < 50; i++) printf "%s%d", i ? "," : "", 1 + int(rand() * 4194304) }')
    for s in $STAGES; do
        build/$s/reduce --check --n "$fuzz" --reps 1 --warmup 0 --seed 7 --csv "$tmp/fuzz-$s.csv" >"$tmp/fuzz" 2>&1
        rc=$?
        rows=$(awk -F, 'NR > 1 && $2 != "00_device"' "$tmp/fuzz-$s.csv" | wc -l)
        failed=$(awk -F, 'NR > 1 && $2 != "00_device" && $10 != 1 { printf "%s n=%s; ", $3, $5 }' "$tmp/fuzz-$s.csv")
        if [ $rc -eq 0 ] && [ "$rows" -ge 50 ] && [ -z "$failed" ]; then ok "$s fuzz: $rows kernel runs at 50 random sizes pass"
        else bad "$s fuzz (exit $rc, $rows rows): $failed"; fi
    done
    # Non-finite input: the result must be NaN (+Inf), never a finite number called a pass.
    for f in nan inf; do
        build/03_atomic/reduce --check --n 1000003 --fill $f --reps 1 --warmup 0 >"$tmp/nf" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && [ "$(awk -v f=$f '$1 ~ /^(reduce_shared_atomic|cub)$/ && $2 == f && $5 == "ok"' "$tmp/nf" | wc -l)" -eq 2 ]; then
            ok "--fill $f: the kernel and CUB give $f, reported as such"
        else
            bad "--fill $f (exit $rc)"; tail -4 "$tmp/nf" | sed 's/^/     | /'
        fi
    done
    # Unaligned input: right, or refused by the vector kernels; never a fault.
    expect "--offset 1: every stage 06 kernel right on an unaligned input" 0 "all kernels passed" -- \
        build/06_gridstride/reduce --check --n 1000003 --offset 1 --reps 1 --warmup 0
    expect "--offset 3: stage 08's kernels read a scalar head and are right on an unaligned input" 0 "all kernels passed" -- \
        build/08_roofline/reduce --check --n 1000003,17 --offset 3 --reps 1 --warmup 0
    expect "08 at N = 2^31+17: every kernel right with 64-bit indices" 0 "all kernels passed" -- \
        build/08_roofline/reduce --check --n 2^31+17 --reps 1 --warmup 0
    expect "--offset 1: stage 07's packed kernels refuse it, the rest pass" 0 "f32x4_f32 +skipped: the input is not 16-byte aligned" -- \
        build/07_leetcuda_dtypes/reduce --check --n 1000003 --offset 1 --reps 1 --warmup 0
    # Values near each type's maximum: the narrow accumulators must overflow and say so (xfail), the
    # int32 one must stay exact, and an expected overflow is not a failure of --check.
    build/07_leetcuda_dtypes/reduce --fill large --n 4096 --reps 1 --warmup 0 --check --csv "$tmp/large.csv" >"$tmp/large" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "fp16 accumulator cannot hold" "$tmp/large"; then ok "07 --fill large: overflow reported, --check exits 0"; else bad "07 --fill large (exit $rc)"; fi
    for k in fp8_e4m3_f16 fp8_e4m3x16_pack_f16 fp8_e5m2_f16 fp8_e5m2x16_pack_f16 f16_f16 f16x2_f16 f16x8_pack_f16; do
        v=$(awk -F, -v k=$k '$3 == k { print $10 }' "$tmp/large.csv")
        if [ "$v" = xfail ]; then ok "07 $k overflows its fp16 accumulator: xfail"; else bad "07 $k with --fill large: '$v', wanted xfail"; fi
    done
    for s in $EXERCISES; do
        expect "$s exercise stub fails its check" 1 "^FAIL: .*Hints" -- bash -c "set -o pipefail; scripts/exercise.sh exercise $s | tr '\n' ' '"
        expect "$s solution passes its check" 0 "^PASS" -- scripts/exercise.sh solution $s
    done
    if command -v cuobjdump >/dev/null; then
        expect "make stage-07 sass: 16-byte loads in the pack kernels" 0 "LDG.128 [1-9]" -- make --no-print-directory -s stage-07 sass
        expect "make stage-05 sass: shuffles in the shuffle kernels" 0 "SHFL.DOWN [1-9]" -- make --no-print-directory -s stage-05 sass
    else
        bad "cuobjdump is missing on a machine with a GPU: make stage-NN sass cannot be checked"
    fi
    expect "make tour runs through every stage without waiting" 0 "Stage $(echo $STAGES | awk '{ print $NF }')" -- \
        bash -c "make --no-print-directory -s tour </dev/null | grep -E '^Stage|^Diff from' | tail -3; exit \${PIPESTATUS[0]}"
    for k in f16_f32 f16x8_pack_f32 i8_i32 i8x16_pack_i32; do
        v=$(awk -F, -v k=$k '$3 == k { print $10 }' "$tmp/large.csv")
        if [ "$v" = 1 ]; then ok "07 $k holds the large sums: pass"; else bad "07 $k with --fill large: '$v', wanted 1"; fi
    done
    expect "--fill ones gives exactly N" 0 "^reduce_shared_atomic +1000003 " -- \
        build/03_atomic/reduce --n 1000003 --fill ones --reps 1 --check
    # Row stage: random shapes (rows x cols, both odd or not), every kernel against its fp64 row sums,
    # --fill ones (every row sums to exactly cols), --rows/--cols, and a matrix past 2^31 elements.
    shapes=$(awk 'BEGIN { srand(909); for (i = 0; i < 30; i++) printf "%s%dx%d", i ? "," : "", 1 + int(rand() * 3000), 1 + int(rand() * 5000) }')
    build/09_rows/reduce --check --n "$shapes" --reps 1 --warmup 0 --seed 9 --offset 1 --csv "$tmp/rows.csv" >"$tmp/rows" 2>&1
    rc=$?
    rows=$(awk -F, 'NR > 1 && $2 == "09_rows"' "$tmp/rows.csv" | wc -l)
    failed=$(awk -F, 'NR > 1 && $2 == "09_rows" && $10 != 1 { printf "%s %s/%s; ", $3, $5, $11 }' "$tmp/rows.csv")
    if [ $rc -eq 0 ] && [ "$rows" -eq 180 ] && [ -z "$failed" ]; then ok "09 fuzz: 30 random shapes x 6 kernels (unaligned rows) pass"
    else bad "09 fuzz (exit $rc, $rows rows): $failed"; fi
    build/09_rows/reduce --check --rows 777 --cols 1000 --fill ones --reps 1 --warmup 0 --csv "$tmp/ones.csv" >"$tmp/ones" 2>&1
    exact=$(awk -F, 'NR > 1 && $2 == "09_rows" && $9 + 0 == 0 && $10 == 1' "$tmp/ones.csv" | wc -l)
    if [ $? -eq 0 ] && [ "$exact" -eq 6 ]; then ok "09 --fill ones: every kernel gives exactly 1000 for each of 777 rows"
    else bad "09 --fill ones: $exact of 6 kernels exact"; tail -8 "$tmp/ones" | sed 's/^/     | /'; fi
    expect "09 a matrix of 2^16 x 32769 (past 2^31 elements): every kernel passes" 0 "all kernels passed" -- \
        build/09_rows/reduce --check --n 2^16x32769 --reps 1 --warmup 0
else
    reason="no GPU: nvidia-smi -L finds none"
    for s in $STAGES; do
        sizes=$(check_sizes "$s")
        skipped "$s: every kernel at N = $sizes, random and ones ($reason)"
    done
    skipped "05_shuffle demo ($reason)"
    skipped "the L2 flush checked with DRAM counters ($reason)"
    skipped "07 --fill large: overflow reported as an expected failure ($reason)"
    for s in $EXERCISES; do skipped "$s exercise stub fails and its solution passes ($reason)"; done
    skipped "make stage-NN sass on the GPU machine ($reason)"
    skipped "make tour ($reason)"
    skipped "fuzz: every kernel at 50 random sizes ($reason)"
    skipped "non-finite and unaligned inputs ($reason)"
    skipped "--fill ones gives exactly N ($reason)"
    skipped "09 random shapes, --fill ones per row, a matrix past 2^31 elements ($reason)"
fi

echo "== stage 11: scan and histogram"
source tests/scan_histogram.sh

echo "== stage 12: several GPUs with NCCL"
source tests/multigpu.sh

echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
