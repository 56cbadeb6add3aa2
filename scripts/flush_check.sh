#!/usr/bin/env bash
# Proves the L2 flush with hardware counters: Nsight Compute's dram__bytes_read.sum of every timed run,
# with ncu's own cache control off (--cache-control none), so that only the programs' flush stands
# between one run and the next.
# usage: scripts/flush_check.sh [CSV]   (needs a GPU, ncu and the built programs: make all)
#   The probes are those every single-GPU program declares (make programs; --describe's "flush probes:",
#   each TABLE_KERNEL@GPU_FUNCTION_REGEX@LOADS: the kernel of its table to run, the GPU functions of
#   its runs that ncu reads, the word for their loads). A probe of a library kernel (cub) runs the
#   program's first default kernel of the same input type, after which the program runs the library.
#   Each probe at N = L2/4, L2/2 and 2 x L2 (in bytes of its input type): every run must read at least
#   99% of its input bytes from DRAM. For the probes of a program that also has warm-L2 kernels, the
#   control that shows the counter can see L2 hits (--l2 warm): at L2/4 the timed runs must read under half.
#   CSV gets gpu,probe,loads,n,input_bytes,l2,runs,dram_bytes_min,ratio_min,pass (probe: STAGE:KERNEL;
#   ratio: DRAM bytes of the run that read least, over the input bytes). Prints one line per reading:
#   "ok ..." or "FAIL ...".
# Exit codes: 0 every reading as it must be, 1 a reading is not, 2 no probe (programs not built),
# 3 the GPU's L2 size could not be read, 4 ncu missing.
set -u
cd "$(dirname "$0")/.."
out=${1:-}
command -v ncu >/dev/null || { echo "ncu not found: the flush check reads DRAM counters with Nsight Compute (it comes with the CUDA toolkit)" >&2; exit 4; }
source scripts/lib.sh
# The bytes of one element of an input type.
type_bytes() {
    case $1 in
    f32 | i32 | u32) echo 4 ;;
    f16 | bf16 | i16 | u16) echo 2 ;;
    fp8_* | i8 | u8) echo 1 ;;
    *) echo "error: unknown input type '$1'" >&2; exit 2 ;;
    esac
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One line per probe: PROGRAM STAGE:KERNEL REGEX LOADS KERNEL_TO_RUN ELEMENT_BYTES WARM_CONTROL(0|1).
: >"$tmp/probes"
for p in $(programs); do
    if [ ! -x "$p" ]; then
        echo "note: $p is not built: its flush probes, if any, are not run"
        continue
    fi
    [ "$(describe "$p" gpus)" = one ] || continue
    stage=$(describe "$p" stage)
    warm=0
    [ -n "$(describe "$p" "warm-L2 kernels")" ] && warm=1
    "$p" --describe | awk '$1 == "kernel:"' >"$tmp/kernels"
    for probe in $(describe "$p" "flush probes"); do
        kernel=${probe%%@*} rest=${probe#*@}
        regex=${rest%%@*} loads=${rest#*@}
        if [ "$rest" = "$probe" ] || [ "$loads" = "$rest" ] || [ -z "$kernel" ] || [ -z "$regex" ] || [ -z "$loads" ]; then
            echo "error: $p: flush probe '$probe' is not TABLE_KERNEL@GPU_FUNCTION_REGEX@LOADS" >&2
            exit 2
        fi
        read -r dtype kind < <(awk -v k="$kernel" '$2 == k { print $3, $4; exit }' "$tmp/kernels")
        [ -n "${dtype:-}" ] || { echo "error: $p: flush probe '$probe' names no kernel of its --describe" >&2; exit 2; }
        run=$kernel
        [ "$kind" = library ] && run=$(awk -v t="$dtype" '$3 == t && $4 == "default" { print $2; exit }' "$tmp/kernels")
        [ -n "$run" ] || { echo "error: $p: no default $dtype kernel to run the library probe '$probe' with" >&2; exit 2; }
        echo "$p $stage:$kernel $regex $loads $run $(type_bytes "$dtype") $warm" >>"$tmp/probes"
    done
done
[ -s "$tmp/probes" ] || { echo "error: no built program declares flush probes (make all builds them)" >&2; exit 2; }

# The GPU and its L2 size, from the 00_device rows of a run of the first probe's program.
read -r p _ _ _ run _ _ <"$tmp/probes"
"$p" --n 1 --kernel "$run" --reps 1 --warmup 0 --csv "$tmp/dev.csv" >"$tmp/dev.log" 2>&1 ||
    { cat "$tmp/dev.log" >&2; exit 3; }
gpu=$(awk -F, 'NR == 2 { print $1 }' "$tmp/dev.csv")
l2_floats=$(awk -F, '$2 == "00_device" && $3 == "l2_size" { print $5 }' "$tmp/dev.csv")
[ -n "$l2_floats" ] || { echo "error: the program reported no L2 size" >&2; exit 3; }
l2_bytes=$((l2_floats * 4))
[ -n "$out" ] && echo "gpu,probe,loads,n,input_bytes,l2,runs,dram_bytes_min,ratio_min,pass" >"$out"
failed=0

# The GPU functions of every probe that runs the same program the same way, as one regex: probes that
# share a run (a kernel and CUB after it) read one profile of it.
all_regex() { awk -v p="$1" -v r="$2" '$1 == p && $5 == r { printf "%s%s", (n++ ? "|" : ""), $3 }' "$tmp/probes"; }
# probe NAME LOADS REGEX L2 N JUDGE_LAST ELEMENT_BYTES PROGRAM ARGS...: profile the program's launches
# of the kernels matching REGEX; one run is one launch, or for CUB its kernels up to its single-tile
# pass. JUDGE_LAST: judge only the last K runs (the warm ones), 0: all.
probe() {
    local name=$1 loads=$2 regex=$3 l2=$4 n=$5 last=$6 size=$7
    shift 7
    local key rc=0
    key=$(printf '%s ' "$@" "$n" "$l2" | cksum | cut -d' ' -f1)
    if [ ! -f "$tmp/ncu.$key" ]; then
        ncu --cache-control none --clock-control none --metrics dram__bytes_read.sum --print-units base --csv \
            --kernel-name regex:"$(all_regex "$1" "$3")" "$@" --n "$n" --l2 "$l2" </dev/null >"$tmp/ncu.$key" 2>"$tmp/err.$key"
        echo $? >"$tmp/rc.$key"
    fi
    rc=$(cat "$tmp/rc.$key")
    local line
    line=$(python3 scripts/report ncu --mode flush --re "$regex" --last "$last" "$tmp/ncu.$key")
    local runs=${line%% *} min=${line##* }
    local bytes=$((n * size))
    local ratio pass
    if [ "$rc" -ne 0 ] || [ "${runs:-0}" -eq 0 ] || [ "$min" -lt 0 ] 2>/dev/null; then
        echo "FAIL $name ($loads loads), l2 $l2, N = $n: no reading (ncu exit $rc): $(tail -n 2 "$tmp/err.$key" "$tmp/ncu.$key" | tr '\n' ' ')"
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
        echo "ok   $name ($loads loads), l2 $l2, N = $n ($bytes bytes): $what; least $min bytes (ratio $ratio)"
    else
        echo "FAIL $name ($loads loads), l2 $l2, N = $n ($bytes bytes): not $what; least $min bytes (ratio $ratio)"
        failed=$((failed + 1))
    fi
    [ -n "$out" ] && echo "$gpu,$name,$loads,$n,$bytes,$l2,$runs,$min,$ratio,$pass" >>"$out"
}

# L2/4, L2/2 and 2 x L2.
for divisor in 4 2 0.5; do
    while read -r p name regex loads run size _; do
        n=$(awk -v b="$l2_bytes" -v d="$divisor" -v s="$size" 'BEGIN { printf "%.0f", b / d / s }')
        probe "$name" "$loads" "$regex" flushed "$n" 0 "$size" "$p" --kernel "$run" --reps 3 --warmup 0
    done <"$tmp/probes"
done
while read -r p name regex loads run size warm; do
    [ "$warm" = 1 ] || continue
    probe "$name" "$loads" "$regex" warm $((l2_bytes / 4 / size)) 2 "$size" "$p" --kernel "$run" --reps 2 --warmup 2
done <"$tmp/probes"
[ "$failed" -eq 0 ]
