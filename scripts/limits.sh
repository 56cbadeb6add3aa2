#!/usr/bin/env bash
# make limits: what limits a kernel at each N, from Nsight Compute. Every single-GPU program that names
# limit kernels (its --describe's "limit kernels:") runs at each of its bench sizes under ncu, with ncu's
# cache control off (--cache-control none: the program's own L2 flush stands before every run, as when it
# is timed); the timed run of each limit kernel, and of CUB on the same data, is read:
#   time_us    gpu__time_duration (a CUB run: its kernels together)
#   dram_bytes dram__bytes_read: the bytes read from DRAM (at least the input: the flush works)
#   dram_pct   dram__throughput, % of the peak over the kernel's whole time (a CUB run: its longest kernel's)
#   occupancy  achieved occupancy, % of the warps an SM holds
#   long_sb    warps stalled waiting on a global load (long scoreboard), per instruction issued
#   membar     warps stalled on a memory fence (a release or acquire), per instruction issued
#   grid       the blocks of the launch (a CUB run: of its longest kernel)
# Writes plots/results/<gpu>/limits.csv: gpu,stage,kernel,dtype,n,launches,grid,time_us,dram_bytes,
# dram_pct,occupancy,long_sb,membar. `make reference` copies it beside the bench results; a stage's
# README shows its table (python3 scripts/report limits).
# usage: scripts/limits.sh   (the programs built: make all)
# Exit codes: 0 done, 2 a program or ncu failed, or no program names limit kernels, 3 no usable GPU,
# 4 ncu missing.
set -u
cd "$(dirname "$0")/.." || exit 2
command -v ncu >/dev/null || { echo "ncu not found: make limits reads hardware counters with Nsight Compute (it comes with the CUDA toolkit)" >&2; exit 4; }
source scripts/lib.sh
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size
metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p plots/results
csv=plots/results/limits.csv
echo "gpu,stage,kernel,dtype,n,launches,grid,time_us,dram_bytes,dram_pct,occupancy,long_sb,membar" >"$csv"
found=0
for p in $(programs); do
    [ -x "$p" ] || { echo "== $p is not built (make all says why): not profiled"; continue; }
    [ "$(describe "$p" gpus)" = one ] || continue
    kernels=$(describe "$p" "limit kernels")
    [ -n "$kernels" ] || continue
    found=1
    stage=$(describe "$p" stage)
    dtype=$("$p" --describe | awk -v k="${kernels%% *}" '$1 == "kernel:" && $2 == k { print $3; exit }')
    # Every launch but the common kernels (the flush, the speed-of-light kernels) and the baseline the
    # program times for its speed-up column, where that is not one of its own kernels.
    skip='common_.*'
    baseline=$(describe "$p" baseline)
    if [ -n "$baseline" ] && ! "$p" --describe | awk -v k="$baseline" '$1 == "kernel:" && $2 == k { f = 1 } END { exit !f }'; then
        skip="$skip|$baseline"
    fi
    gpu=
    for n in $(describe "$p" "bench sizes" | tr ',' ' '); do
        echo "== $stage, N = $n: cub $kernels"
        rm -f "$tmp/run.csv"
        # One checked run and one timed run of each: CUB first (the harness runs it before the kernels of
        # its input type), then the kernels in table order.
        ncu --cache-control none --clock-control none --kernel-name-base function --kernel-name regex:"^(?!($skip)\$)" \
            --metrics "$metrics" --print-units base --csv "$p" --n "$n" --kernel "${kernels// /,}" --reps 1 --warmup 0 \
            --csv "$tmp/run.csv" </dev/null >"$tmp/ncu" 2>"$tmp/err" ||
            { rc=$?; tail -n 5 "$tmp/err" "$tmp/ncu" >&2; [ "$rc" = 3 ] && exit 3; exit 2; }
        [ -n "$gpu" ] || gpu=$(awk -F, 'NR == 2 { print $1 }' "$tmp/run.csv")
        nn=$(awk -F, 'NR > 1 && $2 != "00_device" { print $5; exit }' "$tmp/run.csv")
        python3 scripts/report ncu --mode limits --gpu "$gpu" --stage "$stage" --n "$nn" --dtype "$dtype" \
            --names "cub $kernels" "$tmp/ncu" >>"$csv" || exit 2
    done
done
[ "$found" = 1 ] || { echo "error: no built program names limit kernels (--describe: limit kernels)" >&2; exit 2; }
dir=plots/results/$(gpu_folder "$csv")
mkdir -p "$dir"
mv "$csv" "$dir/limits.csv"
echo "results in $dir/limits.csv"
