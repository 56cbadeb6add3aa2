#!/usr/bin/env bash
# make bench (make help), which passes BENCH_PROGRAMS (those it built) and BUILD_SECONDS (how long that took).
set -e
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
csv=plots/results/bench.csv log=plots/results/bench.log programs=()
mkdir -p plots/results
rm -f "$csv" "$log"
for p in $(programs); do
    s=$(stage_of "$p") not="not run by make bench (make stage-${s%%_*} run runs it)" built=" ${BENCH_PROGRAMS:-$p} "
    if [[ $built != *" $p "* ]]; then echo "== $s starts through a launcher of its own (several GPUs): $not"
    elif single "$p" "== $p is not built: not in this bench"; then programs+=("$p")
    elif [ -x "$p" ]; then echo "== $s runs on several GPUs: $not"; fi
done
# Progress: stage k of n, size, time so far and left (were each stage as long as those before); redrawn on a terminal.
start=$SECONDS
clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
progress() { # K WHAT SIZE I
    local t=$((SECONDS - start)) left line
    left=$(awk -v k="$1" -v n="${#programs[@]}" -v i="$4" -v m="$count" -v t="$t" \
        'BEGIN { f = (k - 1 + (m > 0 ? (i - 1) / m : 0)) / n; printf "%d", (f > 0 && t > 0 ? t * (1 - f) / f : -1) }')
    [ "$left" -ge 0 ] && left="about $(clock "$left") left" || left="estimating what is left"
    line="[$1/${#programs[@]}] $stage, $2, N = $3 ($4 of $count): $(clock $t) so far, $left"
    if [ -t 1 ]; then printf '\r\033[K%s' "$line"; else echo "$line"; fi
}
run() { # K WHAT ARGS...: a run of the stage's program, its tables into the log, its failures printed
    local k=$1 what=$2 i=0 rc; shift 2
    echo "== $stage, $what" >>"$log"
    "$p" "$@" --csv "$csv" 2>&1 | tee -a "$log" | while IFS= read -r line; do
        case $line in "N = "*) i=$((i + 1)); n=${line#N = }; progress "$k" "$what" "${n%%[ ,:]*}" "$i" ;; esac
    done
    rc=${PIPESTATUS[0]}
    [ -t 1 ] && printf '\r\033[K'
    [ "$rc" = 0 ] || die "$stage ($what) exited with $rc: see $log" "$rc"
    awk -v s="== $stage, $what" '$0 == s { on = 1; next } /^== / { on = 0 } on && / FAIL( |$)/' "$log" | sed "s/^/$stage FAILED: /"
}
k=0
for p in "${programs[@]}"; do
    k=$((k + 1)) stage=$(describe "$p" stage)
    sizes=$(describe "$p" bench_sizes) fills=$(describe "$p" bench_fills) warm=$(describe "$p" warm_l2_kernels)
    [[ -n $sizes && -n $fills ]] || die "$p --describe names no bench sizes or no bench fills"
    count=$(tr ',' '\n' <<<"$sizes" | grep -c .)
    for fill in $fills; do
        run $k "fill $fill" --n "$sizes" --fill "$fill"
        [ -z "$warm" ] || run $k "fill $fill, L2 warm: $warm" --n "$sizes" --fill "$fill" --kernel "${warm// /,}" --l2 warm
    done
done
echo "== the programs ran in $(clock $((SECONDS - start))) (their tables: $log)"
# The stages' demos, their output kept beside the results as demo-<stage>.txt (a README can show it).
for p in "${programs[@]}"; do
    [ -x "${p%/*}/demo" ] || continue
    stage=$(describe "$p" stage) out=plots/results/demo-$stage.txt
    echo "== $stage's demo"
    "${p%/*}/demo" >"$out" 2>&1 || die "${p%/*}/demo exited with $?: see $out" 1
done
dir=$(keep "$csv" results.csv)
mv "$log" "$dir/bench.log"
for f in plots/results/demo-*.txt; do [ -f "$f" ] && mv "$f" "$dir/"; done
# What each program is, beside its rows: the reports read a stage's charts and kernels from it.
for p in $(programs); do [ -x "$p" ] && "$p" --describe >"$dir/describe-$(describe "$p" stage).json"; done
if command -v ncu >/dev/null; then
    echo "== the L2 flush, checked with ncu (dram__bytes_read.sum)"
    scripts/flush_check.sh "$dir/flush_check.csv" || echo "the flush check FAILED: see above"
else echo "ncu not found: the flush check (DRAM bytes of every timed run) is not run and no flush_check.csv is written"; fi
if command -v ncu >/dev/null; then
    echo "== the kernels' own times where the CPU finishes, checked with ncu (gpu__time_duration.sum)"
    scripts/kernel_times.sh "$dir/kernel_times.csv" || echo "the kernels' times check FAILED: see above"
else echo "ncu not found: the kernels' own times are not checked and no kernel_times.csv is written"; fi
chart charts "make plot CSV=$dir/results.csv draws them" plot "$dir/results.csv" "$dir" --dumb
echo "results in $dir (make reference copies them to plots/reference/${dir#plots/results/} and updates the READMEs)"
echo "make bench: built in $(clock "${BUILD_SECONDS:-0}"), ran in $(clock $((SECONDS - start)))"
