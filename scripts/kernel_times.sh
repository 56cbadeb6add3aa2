#!/usr/bin/env bash
# The kernels' own times proven (docs/results.md): each kernel whose partial sums the CPU adds, at N, timed by its
# program (gpu_us: events around its launches alone) and by Nsight Compute in another run (gpu__time_duration.sum
# of the same launches): the two agree within the launch floor a launch plus 10%. CSV: a row per kernel; MOST:
# the first MOST such kernels alone (0: all).
# usage: scripts/kernel_times.sh [CSV] [N] [MOST]   Exit codes: 0 ok, 1 a time does not agree, 2 none to check or
# a run failed, 4 no ncu.
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
out=${1:-} n=${2:-16777216} most=${3:-0} failed=0 checked=0 runs=4 # a checked run and 3 timed ones (too few to be measured again)
need ncu "ncu not found: the kernels' times are checked with Nsight Compute (it comes with the CUDA toolkit)"
[ -n "$out" ] && echo "gpu,stage,kernel,n,gpu_us,finish_us,median_us,ncu_us,launches,tolerance_us,pass" >"$out"
for p in $(programs); do
    [[ $most -gt 0 && $checked -ge $most ]] && break
    single "$p" "note: $p is not built: its kernels' times are not checked" || continue
    # Which kernels the CPU finishes (the same at every N), from a short run; then those at N.
    rm -f "$tmp/small.csv" "$tmp/run.csv"
    "$p" --n 1024 --reps 1 --warmup 0 --csv "$tmp/small.csv" >"$tmp/run.log" 2>&1 ||
        { tail -n 5 "$tmp/run.log" >&2; die "$p --n 1024 failed"; }
    kernels=$(awk -F, "$named"' $c["pass"] != "" && $c["gpu_us"] != "" { print $c["kernel"] }' "$tmp/small.csv" |
        head -n "$([ "$most" -gt 0 ] && echo $((most - checked)) || echo -0)" | paste -sd,)
    [ -n "$kernels" ] || continue
    "$p" --n "$n" --kernel "$kernels" --csv "$tmp/run.csv" >"$tmp/run.log" 2>&1 ||
        { tail -n 5 "$tmp/run.log" >&2; die "$p --n $n --kernel $kernels failed"; }
    floor=$(awk -F, "$named"' $c["pass"] == "" && $c["kernel"] == "launch_floor" { print $c["median_us"]; exit }' "$tmp/run.csv")
    awk -F, "$named"' $c["pass"] != "" && $c["gpu_us"] != "" {
        print $c["kernel"], $c["gpu_us"], $c["finish_us"], $c["median_us"], $c["gpu"] }' "$tmp/run.csv" >"$tmp/parts"
    stage=$(describe "$p" stage) library=$(describe "$p" library_launches) baseline=$(describe "$p" baseline)
    while read -r kernel gpu_us finish_us median_us gpu; do
        [[ $most -gt 0 && $checked -ge $most ]] && break
        # Its launches alone: not the common kernels (flush, clocks), the library's, or the speed-up's baseline.
        skip="common_.*${library:+|.*(${library// /|}).*}"
        [[ -n $baseline && $baseline != "$kernel" ]] && skip+="|$baseline"
        ncu --cache-control none --clock-control none --print-units base --csv --kernel-name-base function \
            --kernel-name regex:"^(?!($skip)\$)" --metrics gpu__time_duration.sum \
            "$p" --kernel "$kernel" --n "$n" --reps $((runs - 1)) --warmup 0 </dev/null >"$tmp/ncu" 2>"$tmp/err" ||
            { tail -n 5 "$tmp/err" "$tmp/ncu" >&2; die "ncu of $p --kernel $kernel failed"; }
        read -r ncu_us launches < <(profilers ncu --mode kernels --last "$runs" --metrics gpu__time_duration.sum "$tmp/ncu") ||
            die "$stage $kernel: no reading of its launches"
        read -r tolerance pass < <(awk -v a="$gpu_us" -v b="$ncu_us" -v l="$launches" -v f="${floor:-0}" \
            'BEGIN { t = l * f + 0.1 * b; d = a - b; printf "%.3f %d\n", t, (d < 0 ? -d : d) <= t }')
        checked=$((checked + 1))
        verdict=ok
        if [ "$pass" != 1 ]; then verdict=FAIL failed=1; fi
        echo "$verdict $stage $kernel, N = $n: kernels $gpu_us us (events; whole run $median_us us, finish $finish_us us)," \
             "ncu $ncu_us us over $launches launch(es) a run, apart by at most $tolerance us"
        [ -n "$out" ] && echo "$gpu,$stage,$kernel,$n,$gpu_us,$finish_us,$median_us,$ncu_us,$launches,$tolerance,$pass" >>"$out"
    done <"$tmp/parts"
done
[ "$checked" -gt 0 ] || die "no built program has a kernel whose partial sums the CPU adds at N = $n"
exit "$failed"
