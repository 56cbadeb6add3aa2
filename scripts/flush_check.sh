#!/usr/bin/env bash
# The L2 flush proven with DRAM counters (docs/results.md): every flush probe (--describe) at L2/4, L2/2 and
# 2 x L2 must read >= 99% of its input from DRAM; with the L2 warm at L2/4, < 50%. CSV: a row per reading.
# usage: scripts/flush_check.sh [CSV]   Exit codes: 0 ok, 1 a reading is not, 2 no probe, 3 no L2 size, 4 no ncu.
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
out=${1:-} failed=0
need ncu "ncu not found: the flush check reads DRAM counters with Nsight Compute (it comes with the CUDA toolkit)"
# element_bytes PROGRAM KERNEL: the bytes of one element KERNEL reads, as a run of it says (its CSV's
# bytes_read over n); the run's device rows, left in $tmp/dev.csv, name the GPU and its L2 below.
element_bytes() {
    rm -f "$tmp/dev.csv"
    "$1" --n 1024 --kernel "$2" --reps 1 --warmup 0 --csv "$tmp/dev.csv" >"$tmp/dev.log" 2>&1 ||
        { cat "$tmp/dev.log" >&2; return 1; }
    awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["kernel"] == k && $col["pass"] != "" { print $col["bytes_read"] / $col["n"]; exit }' \
        "$tmp/dev.csv"
}
# One line per probe: PROGRAM STAGE:KERNEL REGEX LOADS KERNEL_TO_RUN ELEMENT_BYTES WARM_CONTROL(0|1).
for p in $(programs); do
    single "$p" "note: $p is not built: its flush probes, if any, are not run" || continue
    warm=$([ -n "$(describe "$p" warm_l2_kernels)" ] && echo 1 || echo 0)
    describe "$p" kernels >"$tmp/kernels"
    describe "$p" flush_probes >"$tmp/flush_probes" # KERNEL FUNCTION LOADS, one probe a line
    while read -r kernel regex loads <&3; do
        probe="$kernel $regex $loads"
        read -r dtype kind < <(awk -v k="$kernel" '$1 == k { print $2, $3; exit }' "$tmp/kernels")
        [ -n "${dtype:-}" ] || die "$p: flush probe '$probe' names no kernel of its --describe"
        run=$kernel
        [ "$kind" = library ] && run=$(awk -v t="$dtype" '$2 == t && $3 == "default" { print $1; exit }' "$tmp/kernels")
        [ -n "$run" ] || die "$p: no default $dtype kernel to run the library probe '$probe' with"
        size=$(element_bytes "$p" "$run") || exit 3
        [ -n "$size" ] || die "$p: a run of $run at N = 1024 wrote no row of it (--csv)" 3
        echo "$p $(describe "$p" stage):$kernel $regex $loads $run $size $warm" >>"$tmp/probes"
    done 3<"$tmp/flush_probes"
done
[ -s "$tmp/probes" ] || die "no built program declares flush probes (make all builds them)"
# The GPU and its L2 size, from the device rows (pass empty) of the last probe's run.
gpu=$(awk -F, 'NR == 2 { print $1 }' "$tmp/dev.csv")
l2_floats=$(awk -F, "$named"' $c["pass"] == "" && $c["kernel"] == "l2_size" { print $c["n"] }' "$tmp/dev.csv")
[ -n "$l2_floats" ] || die "the program reported no L2 size" 3
l2_bytes=$((l2_floats * 4))
[ -n "$out" ] && echo "gpu,probe,loads,n,input_bytes,l2,runs,dram_bytes_min,ratio_min,pass" >"$out"
# probe L2 N LAST REPS WARMUP: the DRAM bytes of the runs of the probe just read ($p $name $regex $loads $run $size), of
# the last LAST (the warm ones; 0: all). Probes that run the same program and kernel read one profile of it.
probe() {
    local l2=$1 n=$2 last=$3 bytes=$(($2 * size)) key rc line runs min ratio pass what regexes
    set -- "$p" --kernel "$run" --reps "$4" --warmup "$5"
    key=$(printf '%s ' "$@" "$n" "$l2" | cksum | cut -d' ' -f1)
    if [ ! -f "$tmp/ncu.$key" ]; then
        regexes=$(awk -v p="$p" -v r="$run" '$1 == p && $5 == r { printf "%s%s", (n++ ? "|" : ""), $3 }' "$tmp/probes")
        ncu --cache-control none --clock-control none --metrics dram__bytes_read.sum --print-units base --csv \
            --kernel-name regex:"$regexes" "$@" --n "$n" --l2 "$l2" </dev/null >"$tmp/ncu.$key" 2>"$tmp/err.$key"
        echo $? >"$tmp/rc.$key"
    fi
    rc=$(cat "$tmp/rc.$key") line=$(profilers ncu --mode flush --re "$regex" --last "$last" \
        --metrics dram__bytes_read.sum --library "$(describe "$p" library_launches)" "$tmp/ncu.$key")
    runs=${line%% *} min=${line##* }
    if [ "$rc" -ne 0 ] || [ "${runs:-0}" -eq 0 ] || [ "$min" -lt 0 ] 2>/dev/null; then
        echo "FAIL $name ($loads loads), l2 $l2, N = $n: no reading (ncu exit $rc): $(tail -n 2 "$tmp/err.$key" "$tmp/ncu.$key" | tr '\n' ' ')"
        failed=$((failed + 1))
        return
    fi
    read -r ratio pass < <(awk -v a="$min" -v b="$bytes" -v l2="$l2" \
        'BEGIN { r = sprintf("%.4f", a / b); print r, (l2 == "flushed" ? r + 0 >= 0.99 : r + 0 < 0.5) }')
    what="the $runs warm runs read < 50% from DRAM (the counter sees L2 hits)"
    [ "$l2" = flushed ] && what="every one of $runs runs read >= 99% of the input from DRAM"
    [ "$pass" = 1 ] || { failed=$((failed + 1)); what="not $what"; }
    echo "$([ "$pass" = 1 ] && echo "ok  " || echo FAIL) $name ($loads loads), l2 $l2, N = $n ($bytes bytes): $what;" \
        "least $min bytes (ratio $ratio)"
    [ -n "$out" ] && echo "$gpu,$name,$loads,$n,$bytes,$l2,$runs,$min,$ratio,$pass" >>"$out"
}
# L2/4, L2/2 and 2 x L2; then the warm control at L2/4.
for divisor in 4 2 0.5; do
    while read -r p name regex loads run size _; do
        probe flushed "$(awk -v b="$l2_bytes" -v d="$divisor" -v s="$size" 'BEGIN { printf "%.0f", b / d / s }')" 0 3 0
    done <"$tmp/probes"
done
while read -r p name regex loads run size warm; do
    [ "$warm" = 1 ] && probe warm $((l2_bytes / 4 / size)) 2 2 2
done <"$tmp/probes"
[ "$failed" -eq 0 ]
