#!/usr/bin/env bash
# make limits (make help): each limit kernel and the library's at each bench size under ncu, its cache control off.
# Exit codes: 0 done, 2 a program or ncu failed, or no program names limit kernels, 3 no usable GPU, 4 no ncu.
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
need ncu "ncu not found: make limits reads hardware counters with Nsight Compute (it comes with the CUDA toolkit)"
# The counters of limits.csv's columns from time_us on, in their order (scripts/profilers.py ncu --mode limits reads so).
metrics=gpu__time_duration.sum,dram__bytes_read.sum,launch__grid_size
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
csv=plots/results/limits.csv found=0
mkdir -p plots/results
echo "gpu,stage,kernel,dtype,n,launches,grid,time_us,dram_bytes,dram_pct,occupancy,long_sb,membar" >"$csv"
for p in $(programs); do
    single "$p" "== $p is not built (make all says why): not profiled" || continue
    kernels=$(describe "$p" limit_kernels)
    [ -n "$kernels" ] || continue
    found=1 stage=$(describe "$p" stage) skip=$(ncu_skip "$p") gpu=
    dtype=$(describe "$p" kernels | awk -v k="${kernels%% *}" '$1 == k { print $2; exit }')
    library=$(describe "$p" kernels | awk -v t="$dtype" '$2 == t && $3 == "library" { print $1; exit }')
    [ -n "$library" ] || die "$p --describe names no library kernel of type $dtype to set beside its limit kernels"
    sizes=$(describe "$p" bench_sizes)
    for n in ${sizes//,/ }; do
        echo "== $stage, N = $n: $library $kernels"
        rm -f "$tmp/run.csv"
        # A checked and a timed run of each: the library's first (run before its input type's kernels), then table order.
        ncu --cache-control none --clock-control none --kernel-name-base function --kernel-name regex:"^(?!($skip)\$)" \
            --metrics "$metrics" --print-units base --csv "$p" --n "$n" --kernel "${kernels// /,}" --reps 1 --warmup 0 \
            --csv "$tmp/run.csv" </dev/null >"$tmp/ncu" 2>"$tmp/err" ||
            { rc=$?; tail -n 5 "$tmp/err" "$tmp/ncu" >&2; exit $((rc == 3 ? 3 : 2)); }
        [ -n "$gpu" ] || gpu=$(awk -F, 'NR == 2 { print $1 }' "$tmp/run.csv")
        nn=$(awk -F, "$named"' $c["pass"] != "" { print $c["n"]; exit }' "$tmp/run.csv")
        profilers ncu --mode limits --gpu "$gpu" --stage "$stage" --n "$nn" --dtype "$dtype" \
            --metrics "$metrics" --names "$library $kernels" --library "$(describe "$p" library_launches)" \
            "$tmp/ncu" >>"$csv" || exit 2
    done
done
[ "$found" = 1 ] || die "no built program names limit kernels (--describe: limit kernels)"
echo "results in $(keep "$csv" limits.csv)/limits.csv"
