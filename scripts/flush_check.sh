#!/usr/bin/env bash
# Proves the L2 flush with hardware counters: Nsight Compute's dram__bytes_read.sum of every timed run,
# with ncu's own cache control off (--cache-control none), so that only the programs' flush stands
# between one run and the next.
# usage: scripts/flush_check.sh [CSV]   (needs a GPU, ncu and the built stage programs)
#   Probes one kernel of each load style at N = L2/4, L2/2 and 2 x L2 (fp32): ordinary loads (stage 06),
#   evict-first __ldcs loads (stage 08) and CUB's loads (cub::DeviceReduce, in stage 08's program).
#   Flushed: every run must read at least 99% of its input bytes from DRAM. Warm (--l2 warm, the
#   control that shows the counter can see L2 hits): at L2/4 the timed runs must read under half.
#   CSV gets gpu,probe,loads,n,input_bytes,l2,runs,dram_bytes_min,ratio_min,pass (ratio: DRAM bytes of
#   the run that read least, over the input bytes). Prints one line per reading: "ok ..." or "FAIL ...".
# Exit codes: 0 every reading as it must be, 1 a reading is not, 2 programs not built, 4 ncu missing.
set -u
cd "$(dirname "$0")/.."
out=${1:-}
command -v ncu >/dev/null || { echo "ncu not found: the flush check reads DRAM counters with Nsight Compute (it comes with the CUDA toolkit)" >&2; exit 4; }
for p in build/06_gridstride/reduce build/08_roofline/reduce; do
    [ -x "$p" ] || { echo "error: $p is not built (make all)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build/08_roofline/reduce --n 1 --kernel roofline_f32 --reps 1 --warmup 0 --csv "$tmp/dev.csv" >"$tmp/dev.log" 2>&1 ||
    { cat "$tmp/dev.log" >&2; exit 3; }
gpu=$(awk -F, 'NR == 2 { print $1 }' "$tmp/dev.csv")
l2_floats=$(awk -F, '$3 == "l2_size" { print $5 }' "$tmp/dev.csv")
[ -n "$l2_floats" ] || { echo "error: the program reported no L2 size" >&2; exit 3; }
[ -n "$out" ] && echo "gpu,probe,loads,n,input_bytes,l2,runs,dram_bytes_min,ratio_min,pass" >"$out"
failed=0

# probe NAME LOADS REGEX L2 N JUDGE_LAST PROGRAM ARGS...: profile the program's launches of the kernels
# matching REGEX; one run is one launch, or for CUB its kernels up to its single-tile pass. JUDGE_LAST:
# judge only the last K runs (the warm ones), 0: all.
probe() {
    local name=$1 loads=$2 regex=$3 l2=$4 n=$5 last=$6
    shift 6
    ncu --cache-control none --clock-control none --metrics dram__bytes_read.sum --print-units base --csv \
        --kernel-name regex:"$regex" "$@" --n "$n" --l2 "$l2" >"$tmp/ncu" 2>"$tmp/err"
    local rc=$?
    local line
    line=$(awk -v n="$n" -v l2="$l2" -v last="$last" '
        # ncu quotes every field of its CSV (a value may hold commas): split on the quotes.
        function split_quoted(s,   n) { n = 0; delete f; while (match(s, /"[^"]*"/)) { f[++n] = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) }; return n }
        /^"ID"/ { n = split_quoted($0); for (i = 1; i <= n; i++) col[f[i]] = i; next }
        !("Metric Value" in col) { next }
        {
            if (split_quoted($0) < col["Metric Value"] || f[col["Metric Name"]] != "dram__bytes_read.sum") next
            v = f[col["Metric Value"]]; gsub(/,/, "", v)
            kernel = f[col["Kernel Name"]]
            acc += v
            # A CUB run ends with its single-tile kernel; any other kernel is a run by itself.
            if (kernel !~ /DeviceReduce/ || kernel ~ /SingleTile/) { runs[++count] = acc; acc = 0 }
        }
        END {
            first = last > 0 && count > last ? count - last + 1 : 1
            min = -1
            for (i = first; i <= count; i++) if (min < 0 || runs[i] < min) min = runs[i]
            printf "%d %.0f", count - first + 1, min
        }' "$tmp/ncu")
    local runs=${line%% *} min=${line##* }
    local bytes=$((n * 4))
    local ratio pass
    if [ "$rc" -ne 0 ] || [ "${runs:-0}" -eq 0 ] || [ "$min" -lt 0 ] 2>/dev/null; then
        echo "FAIL $name ($loads), l2 $l2, N = $n: no reading (ncu exit $rc): $(tail -2 "$tmp/err" "$tmp/ncu" | tr '\n' ' ')"
        failed=$((failed + 1))
        return
    fi
    ratio=$(awk -v a="$min" -v b="$bytes" 'BEGIN { printf "%.4f", a / b }')
    if [ "$l2" = flushed ]; then
        pass=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.99) }')
        what="every one of $runs runs read >= 99% of the input from DRAM"
    else
        pass=$(awk -v r="$ratio" 'BEGIN { print (r < 0.5) }')
        what="the $runs warm runs read < 50% from DRAM (the counter sees L2 hits)"
    fi
    if [ "$pass" = 1 ]; then
        echo "ok   $name ($loads), l2 $l2, N = $n ($bytes bytes): $what; least $min bytes (ratio $ratio)"
    else
        echo "FAIL $name ($loads), l2 $l2, N = $n ($bytes bytes): not $what; least $min bytes (ratio $ratio)"
        failed=$((failed + 1))
    fi
    [ -n "$out" ] && echo "$gpu,$name,$loads,$n,$bytes,$l2,$runs,$min,$ratio,$pass" >>"$out"
}

common=(--reps 3 --warmup 0)
for n in $((l2_floats / 4)) $((l2_floats / 2)) $((l2_floats * 2)); do
    probe 06_gridstride:reduce_gridstride_per_thread_16 "ordinary loads" reduce_gridstride_per_thread flushed "$n" 0 \
        build/06_gridstride/reduce --kernel reduce_gridstride_per_thread_16 "${common[@]}"
    probe 08_roofline:roofline_f32 "__ldcs loads" reduce_roofline flushed "$n" 0 \
        build/08_roofline/reduce --kernel roofline_f32 "${common[@]}"
    probe 08_roofline:cub "cub::DeviceReduce::Sum" DeviceReduce flushed "$n" 0 \
        build/08_roofline/reduce --kernel roofline_f32 "${common[@]}"
done
n=$((l2_floats / 4))
probe 08_roofline:roofline_f32 "__ldcs loads" reduce_roofline warm "$n" 2 \
    build/08_roofline/reduce --kernel roofline_f32 --reps 2 --warmup 2
probe 08_roofline:cub "cub::DeviceReduce::Sum" DeviceReduce warm "$n" 2 \
    build/08_roofline/reduce --kernel roofline_f32 --reps 2 --warmup 2
[ "$failed" -eq 0 ]
