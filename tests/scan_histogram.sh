# shellcheck shell=bash
# Stage 11 (scan and histogram): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and $gpu (1 when
# a GPU is present) exist. The host half runs anywhere; the GPU half needs a GPU.

echo "== stage 11: scan and histogram"
# Until the top Makefile includes the fragment, name it here as well.
sh_make=(make --no-print-directory -s)
grep -q 'stages/11_scan_histogram/stage.mk' Makefile || sh_make+=(-f Makefile -f stages/11_scan_histogram/stage.mk)
sh_dir=build/11_scan_histogram
sh=$sh_dir/scan_histogram

if "${sh_make[@]}" $sh $sh_dir/exercise $sh_dir/solution >"$tmp/sh-build" 2>&1; then
    ok "11 the program, its exercise stub and its solution build with warnings as errors"
else
    bad "11 build:"
    tail -15 "$tmp/sh-build" | sed 's/^/     | /'
fi

if [ -x $sh ]; then
    expect "11 --help" 0 "--n N" -- $sh --help
    expect "11 --list names the kernels" 0 "^  scan_device_wide +any N" -- $sh --list
    expect "11 --list shows the check sizes" 0 "^check sizes: " -- $sh --list
    expect "11 unknown flag" 2 "unknown option '--bogus'" -- $sh --bogus
    expect "11 --n without a value" 2 "needs a value" -- $sh --n
    expect "11 --n 0" 2 "--n '0'" -- $sh --n 0
    expect "11 --n abc" 2 "--n 'abc'" -- $sh --n abc
    expect "11 unknown --kernel" 2 "unknown kernel 'nope'" -- $sh --kernel scan_warp,nope
    expect "11 unknown --fill" 2 "unknown fill 'random'" -- $sh --fill random
    expect "11 --reps 0" 2 "--reps '0'" -- $sh --reps 0
    expect "11 --csv to an unwritable path" 2 "cannot write the CSV" -- $sh --csv /nonexistent/dir/out.csv
    rm -f "$tmp/sh-nogpu.csv"
    expect "11 with no GPU says so and exits 3" 3 "no CUDA-capable GPU found" -- \
        env CUDA_VISIBLE_DEVICES= $sh --n 1000 --csv "$tmp/sh-nogpu.csv"
    if [ ! -s "$tmp/sh-nogpu.csv" ]; then ok "11 with no GPU writes no CSV row"; else bad "11 with no GPU wrote to its CSV"; fi
    expect "11 the exercise with no GPU exits 3" 3 "no CUDA-capable GPU found" -- \
        env CUDA_VISIBLE_DEVICES= $sh_dir/exercise --n 1000
    expect "11 the exercise runs only its two kernels by default" 0 "^  scan_warp .*not run by default" -- \
        $sh_dir/exercise --list
    if grep -q '^ \* Hint:' stages/11_scan_histogram/exercise.cu; then ok "11 the exercise has hints"
    else bad "11 the exercise has no ' * Hint:' lines"; fi
fi
if grep -qx '<!-- stage-results:begin -->' stages/11_scan_histogram/README.md &&
    grep -qx '<!-- stage-results:end -->' stages/11_scan_histogram/README.md; then
    ok "11 README has the stage-results markers"
else
    bad "11 README lacks the <!-- stage-results:begin/end --> markers"
fi

# The chart script: a missing gnuplot, another layout, and a small CSV of the program's layout (made up
# here only to exercise the script; committed charts come from measured CSVs).
mkdir -p "$tmp/shbin"
for t in bash dirname basename cat sed awk grep head sort mktemp rm mkdir; do ln -sf "$(command -v $t)" "$tmp/shbin/"; done
{
    echo 'gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2'
    for n in 1048576 16777216; do
        for k in scan_warp scan_block scan_device_wide scan_reduce_then_scan cub_inclusive_sum; do
            echo "X,11_scan_histogram,$k,i32,$n,10,$((n / 10000)),1,0,1,,flushed"
        done
        for dt in uniform skewed; do
            for k in histogram_global_atomics histogram_shared_privatized histogram_warp_aggregated cub_histogram_even; do
                echo "X,11_scan_histogram,$k,u8_$dt,$n,10,$((n / 20000)),1,0,1,,flushed"
            done
            for k in histogram4096_global_atomics histogram4096_shared cub_histogram_even_4096; do
                echo "X,11_scan_histogram,$k,u16_$dt,$n,10,$((n / 30000)),1,0,1,,flushed"
            done
        done
    done
} >"$tmp/sh-plot.csv"
expect "plot_scan_histogram.sh without gnuplot says so, exit 4" 4 "gnuplot not found" -- \
    env PATH="$tmp/shbin" bash scripts/plot_scan_histogram.sh "$tmp/sh-plot.csv" "$tmp/sh-plot"
expect "plot_scan_histogram.sh on a CSV of another layout, exit 2" 2 "does not start with the header" -- \
    bash scripts/plot_scan_histogram.sh Makefile "$tmp/sh-plot"
if command -v gnuplot >/dev/null; then
    if bash scripts/plot_scan_histogram.sh "$tmp/sh-plot.csv" "$tmp/sh-plot" >"$tmp/sh-plot.log" 2>&1 &&
        [ "$(head -c 4 "$tmp/sh-plot/scan_histogram.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then
        ok "plot_scan_histogram.sh draws the scan and histogram chart"
    else
        bad "plot_scan_histogram.sh:"; tail -5 "$tmp/sh-plot.log" | sed 's/^/     | /'
    fi
else
    skipped "plot_scan_histogram.sh draws a chart (gnuplot not installed)"
fi

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
    sizes=$($sh --list | sed -n 's/^check sizes: //p')
    rm -f "$tmp/sh-check.csv"
    $sh --check --n "$sizes" --fill both --reps 2 --warmup 1 --csv "$tmp/sh-check.csv" >"$tmp/sh-check" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "all kernels passed verification" "$tmp/sh-check" && sh_rows "$tmp/sh-check.csv"; then
        ok "11 every kernel and CUB pass their exact checks at N = $sizes, uniform and skewed ($sh_count rows)"
    else
        bad "11 check sizes, both data sets (exit $rc):"
        grep -E 'FAIL|error' "$tmp/sh-check" | head -10 | sed 's/^/     | /'
    fi
    # Per size: 5 scan rows; per data set, 4 rows of 256 bins and 3 of 4096.
    want=$(( $(echo "$sizes" | tr ',' '\n' | grep -c .) * (5 + 2 * (4 + 3)) ))
    if [ "${sh_count:-0}" -eq "$want" ]; then ok "11 the check wrote one CSV row per kernel, size and data set ($want)"
    else bad "11 the check wrote ${sh_count:-0} CSV rows, expected $want"; fi
    # Skewed data: the hand-written histograms and CUB agree bin for bin (each is checked against the
    # same exact CPU counts); here on a size with many blocks and a tail.
    expect "11 skewed data: every histogram gives CUB's exact counts" 0 "all kernels passed" -- \
        $sh --check --n 2^22+7 --fill skewed --kernel histogram_global_atomics,histogram_shared_privatized,histogram_warp_aggregated,cub_histogram_even,histogram4096_global_atomics,histogram4096_shared,cub_histogram_even_4096 --reps 1 --warmup 0
    expect "11 a scan of 2^31+5 elements (64-bit indices, three levels of block totals) passes" 0 "all kernels passed" -- \
        $sh --check --n 2^31+5 --kernel scan_device_wide,scan_reduce_then_scan,cub_inclusive_sum --reps 1 --warmup 0
    expect "11 the exercise stub fails its check (make exits 2: its recipe failed)" 2 "FAIL: the exercise of stage 11" -- \
        "${sh_make[@]}" scan-histogram-exercise
    if grep -q "  - " "$tmp/out"; then ok "11 a failing exercise prints its hints"; else bad "11 a failing exercise prints no hints"; fi
    expect "11 the exercise stub passes where one tile is the whole scan" 0 "all kernels passed" -- \
        $sh_dir/exercise --check --n 1,257,1024 --kernel scan_device_wide --reps 1 --warmup 0
    expect "11 the solution passes" 0 "PASS: the solution of stage 11" -- "${sh_make[@]}" scan-histogram-solution
else
    reason=$([ "$gpu" = 1 ] && echo "the program did not build" || echo "no GPU: nvidia-smi -L finds none")
    skipped "11 every kernel at the check sizes with uniform and skewed data, exact checks ($reason)"
    skipped "11 skewed data gives CUB's exact counts; a scan of 2^31+5 elements ($reason)"
    skipped "11 the exercise stub fails and its solution passes ($reason)"
fi
