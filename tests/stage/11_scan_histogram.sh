# shellcheck shell=bash
# Stage 11 (scan and histogram): sourced by tests/run.sh once ok/bad/skipped/expect, describe, $tmp and
# $gpu (1 when a GPU is present) exist. The host half runs anywhere; the GPU half needs a GPU.

sh_make=(make --no-print-directory -s)
sh_dir=build/11_scan_histogram
sh=$sh_dir/scan_histogram

sh_solution=$(solved 11_scan_histogram && echo $sh_dir/solution)
if "${sh_make[@]}" $sh $sh_dir/exercise $sh_solution >"$tmp/sh-build" 2>&1; then
    ok "11 the program, its exercise stub${sh_solution:+ and its solution} build with warnings as errors"
else
    bad "11 build:"
    tail -n 15 "$tmp/sh-build" | sed 's/^/     | /'
fi

# The common flags are tested for every program by tests/run.sh; here what is this stage's own.
if [ -x $sh ]; then
    if "$sh" --describe | awk '$1 == "kernel:" && $2 == "scan_device_wide" && $4 == "default" { found = 1 } END { exit !found }'; then
        ok "11 --describe names its kernels (scan_device_wide among them)"
    else
        bad "11 --describe does not name scan_device_wide as a default kernel"
    fi
    expect "11 a --kernel list with one unknown name" 2 "unknown kernel 'nope'" -- $sh --kernel scan_warp,nope
    expect "11 the exercise with no GPU exits 3" 3 "no CUDA-capable GPU found" -- \
        env CUDA_VISIBLE_DEVICES= $sh_dir/exercise --n 1000
    if "$sh_dir/exercise" --describe | awk '$1 == "kernel:" && $4 == "default" { print $2 }' | grep -qx scan_exclusive; then
        ok "11 the exercise runs only its own kernel by default (scan_exclusive)"
    else
        bad "11 the exercise's --describe does not give scan_exclusive as its one default kernel"
    fi
    if "$sh" --describe | grep -q '^kernel: scan_exclusive '; then
        bad "11 the stage's program names the exercise's scan_exclusive"
    else ok "11 the stage's program does not have the exercise's kernel"; fi
    if grep -q '^ \* Hint:' stages/11_scan_histogram/exercise.cu; then ok "11 the exercise has hints"
    else bad "11 the exercise has no ' * Hint:' lines"; fi
fi
if grep -qx '<!-- stage-results:begin -->' stages/11_scan_histogram/README.md &&
    grep -qx '<!-- stage-results:end -->' stages/11_scan_histogram/README.md; then
    ok "11 README has the stage-results markers"
else
    bad "11 README lacks the <!-- stage-results:begin/end --> markers"
fi

# The stage's chart through the reporting program's plot: a missing gnuplot, another layout, and a small CSV of the
# programs' layout (made up here only to exercise the script; committed charts come from measured CSVs).
{
    echo 'gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2,bits,bytes_read,speedup,x_cub'
    for n in 1048576 16777216; do
        for k in scan_warp scan_block scan_device_wide scan_reduce_then_scan cub_inclusive_sum; do
            echo "X,11_scan_histogram,$k,i32,$n,10,$((n / 10000)),1,0,1,,flushed,same,$((n * 4)),,"
        done
        for dt in uniform skewed; do
            for k in histogram_global_atomics histogram_shared_privatized histogram_warp_aggregated cub_histogram_even; do
                echo "X,11_scan_histogram,$k,u8_$dt,$n,10,$((n / 20000)),1,0,1,,flushed,same,$n,,"
            done
            for k in histogram4096_global_atomics histogram4096_shared cub_histogram_even_4096; do
                echo "X,11_scan_histogram,$k,u16_$dt,$n,10,$((n / 30000)),1,0,1,,flushed,same,$((n * 2)),,"
            done
        done
    done
} >"$tmp/sh-plot.csv"
# Its charts, as the program's description saved beside the results names them.
printf 'stage: 11_scan_histogram\ncharts: scan_histogram+\n' >"$tmp/describe-11_scan_histogram.txt"
chart_script_tests "11 chart" "$tmp/sh-plot.csv" scan_histogram

# sh_rows CSV: every stage-11 row passes; prints the failing ones. Sets sh_count to the number of rows.
sh_rows() {
    local failed=0
    sh_count=0
    while IFS=, read -r _ stage k dtype n _ _ _ rel pass_ _; do
        [ "$stage" = 11_scan_histogram ] || continue
        sh_count=$((sh_count + 1))
        [ "$pass_" = 1 ] || { failed=$((failed + 1)); echo "     | $k $dtype n=$n wrong fraction $rel pass=$pass_"; }
    done < <(tail -n +2 "$1" 2>/dev/null)
    [ $failed -eq 0 ] && [ $sh_count -gt 0 ]
}

if [ "$gpu" = 1 ] && [ -x $sh ]; then
    sizes=$(describe $sh "check sizes")
    fills=$(describe $sh "check fills")
    rm -f "$tmp/sh-check.csv" "$tmp/sh-check"
    rc=0
    for fill in $fills; do
        $sh --check --n "$sizes" --fill "$fill" --reps 2 --warmup 1 --csv "$tmp/sh-check.csv" >>"$tmp/sh-check" 2>&1 || rc=$?
    done
    if [ $rc -eq 0 ] && grep -q "all kernels passed verification" "$tmp/sh-check" && sh_rows "$tmp/sh-check.csv"; then
        ok "11 every kernel and CUB pass their exact checks at N = $sizes, fills $fills ($sh_count rows)"
    else
        bad "11 check sizes, fills $fills (exit $rc):"
        grep -E 'FAIL|error' "$tmp/sh-check" | head -n 10 | sed 's/^/     | /'
    fi
    # One row per size, fill and kernel its --describe names (every one but a deliberately wrong one).
    kernels=$($sh --describe | awk '$1 == "kernel:" && $4 != "wrong"' | wc -l)
    want=$(( $(echo "$sizes" | tr ',' '\n' | grep -c .) * $(echo $fills | wc -w) * kernels ))
    if [ "${sh_count:-0}" -eq "$want" ]; then ok "11 the check wrote one CSV row per kernel, size and fill ($want)"
    else bad "11 the check wrote ${sh_count:-0} CSV rows, expected $want"; fi
    # Skewed data: the hand-written histograms and CUB agree bin for bin (each is checked against the
    # same exact CPU counts); here on a size with many blocks and a tail.
    expect "11 skewed data: every histogram gives CUB's exact counts" 0 "all kernels passed" -- \
        $sh --check --n 2^22+7 --fill skewed --kernel histogram_global_atomics,histogram_shared_privatized,histogram_warp_aggregated,cub_histogram_even,histogram4096_global_atomics,histogram4096_shared,cub_histogram_even_4096 --reps 1 --warmup 0
    expect "11 a scan of 2^31+5 elements (64-bit indices, three levels of block totals) passes" 0 "all kernels passed" -- \
        $sh --check --n 2^31+5 --kernel scan_device_wide,scan_reduce_then_scan,cub_inclusive_sum --reps 1 --warmup 0
    expect "11 the exercise stub fails its check (make exits 2: its recipe failed)" 2 "FAIL: the exercise of stage 11" -- \
        "${sh_make[@]}" stage-11 exercise
    if grep -q "  - " "$tmp/out"; then ok "11 a failing exercise prints its hints"; else bad "11 a failing exercise prints no hints"; fi
    expect "11 the exercise stub (the inclusive scan) is wrong from the first element" 1 "scan_exclusive +FAIL@index 0 " -- \
        $sh_dir/exercise --check --n 1 --kernel scan_exclusive --reps 1 --warmup 0
    if [ -n "$sh_solution" ]; then
        expect "11 the solution's exclusive scan at the edges of a tile and of a level of tile sums" 0 "all kernels passed" -- \
            $sh_dir/solution --check --n 1023,1024,1025,2^20,2^20+1 --kernel scan_exclusive --reps 1 --warmup 0
        expect "11 the solution passes" 0 "PASS: the solution of stage 11" -- "${sh_make[@]}" stage-11 solution
    else skipped "11 the solution passes ($no_solutions)"; fi
else
    reason=$([ "$gpu" = 1 ] && echo "the program did not build" || echo "no GPU: nvidia-smi -L finds none")
    skipped "11 every kernel at the check sizes with each check fill, exact checks ($reason)"
    skipped "11 skewed data gives CUB's exact counts; a scan of 2^31+5 elements ($reason)"
    skipped "11 the exercise stub fails and its solution passes ($reason)"
fi
