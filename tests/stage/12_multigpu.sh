# shellcheck shell=bash
# Stage 12 (the sum across GPUs with NCCL): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and
# $gpu (1 when a GPU is present) exist. The host half runs anywhere; the GPU half needs a GPU, and two
# for the G = 2 checks.

mg_make=(make --no-print-directory -s)
mg=build/12_multigpu/multigpu

expect "stage 12 with NCCL_HOME=/nonexistent: make stage-12 says NCCL is needed and where it looked, exit 2" 2 \
    "stage 12 needs NCCL, and it was not found \(looked in /nonexistent/include" -- "${mg_make[@]}" NCCL_HOME=/nonexistent stage-12
expect "stage 12 with NCCL_HOME=/nonexistent: make stage-12 run says so too, exit 2" 2 "stage 12 needs NCCL" -- \
    "${mg_make[@]}" NCCL_HOME=/nonexistent stage-12 run
if "${mg_make[@]}" -n NCCL_HOME=/nonexistent all 2>&1 | grep -q '12_multigpu/multigpu'; then
    bad "make all without NCCL still tries to build stage 12"
else
    ok "make all without NCCL leaves stage 12 out"
fi

"${mg_make[@]}" stage-12 >"$tmp/mg-build" 2>&1
mg_rc=$?
mg_found=1
if grep -q "stage 12 needs NCCL" "$tmp/mg-build"; then
    mg_found=0
    skipped "stage 12: $(head -n 1 "$tmp/mg-build")"
elif [ $mg_rc -eq 0 ] && [ -x $mg ]; then
    ok "stage 12 builds with NCCL, warnings as errors"
else
    mg_found=0
    bad "make stage-12 (exit $mg_rc):"
    tail -n 10 "$tmp/mg-build" | sed 's/^/     | /'
fi

# The common flags are tested for every program by tests/run.sh; here what is this stage's own.
if [ $mg_found = 1 ]; then
    expect "12 --help" 0 "--gpus G" -- $mg --help
    expect "12 --gpus 0" 2 "--gpus '0'" -- $mg --gpus 0
    expect "12 --gpus x" 2 "--gpus 'x'" -- $mg --gpus x
    expect "12 --sizes not a multiple of 4 bytes" 2 "multiple of 4 bytes" -- $mg --sizes 1M,6
    expect "12 --dtype f16" 2 "--dtype 'f16'" -- $mg --dtype f16
    expect "12 --rank without --nranks and --id-file" 2 "needs all three" -- $mg --rank 0
    expect "12 --rank outside --nranks" 2 "--rank 2: ranks run from 0" -- $mg --rank 2 --nranks 2 --id-file "$tmp/id"
    expect "12 one process per GPU with no GPU exits 3" 3 "no CUDA-capable GPU found" -- \
        env CUDA_VISIBLE_DEVICES= $mg --rank 1 --nranks 2 --id-file "$tmp/id" --id-timeout 1
    expect "12 MODE=processes with no GPU visible: make fails and says why" 2 "stage-12 run MODE=processes runs kernels on an NVIDIA GPU" -- \
        env CUDA_VISIBLE_DEVICES= "${mg_make[@]}" stage-12 run MODE=processes
    expect "12 unknown MODE" 2 "MODE=bogus: give MODE=threads" -- "${mg_make[@]}" stage-12 run MODE=bogus
    for tool in profile sanitize; do
        expect "make stage-12 $tool says its program is not a single-GPU stage program (exit 2)" 2 "not a single-GPU stage program" -- \
            "${mg_make[@]}" stage-12 $tool
    done
else
    for verb in check profile sanitize; do
        expect "make stage-12 $verb without NCCL says why, exit 2" 2 "stage 12 needs NCCL" -- "${mg_make[@]}" stage-12 $verb
    done
fi

# The stage's chart through the reporting program's plot: a missing gnuplot, another layout, and a small CSV of the
# program's layout (made up here only to exercise the script; committed charts come from measured CSVs,
# which tests/charts.sh draws).
{
    echo 'gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2,bits,bytes_read,speedup,x_cub'
    echo 'X,12_multigpu,sum_g2,f32,1048576,10,800,10,0,1,,flushed,same,4194304,,'
    echo 'X,12_multigpu,allreduce_g2,f32,262144,10,100,,0,1,,warm,same,1048576,,'
    echo 'X,12_multigpu,allreduce_g2,f32,1048576,20,200,,0,1,,warm,same,4194304,,'
    echo 'X,12_multigpu,allreduce_g2,bf16,524288,10,100,,0,1,,warm,same,1048576,,'
} >"$tmp/mg-plot.csv"
# Its charts, as the program's description saved beside the results names them.
printf 'stage: 12_multigpu\ncharts: multigpu+\n' >"$tmp/describe-12_multigpu.txt"
chart_script_tests "12 chart" "$tmp/mg-plot.csv" multigpu

# mg_rows CSV KERNEL: the rows of KERNEL, each reported; ok when there are WANT rows, all passing.
mg_rows() {
    local csv=$1 kernel=$2 want=$3 rows=0 failed=0
    while IFS=, read -r _ _ k dtype n _ _ _ rel pass_ _; do
        case $k in "$kernel"_g*) ;; *) continue ;; esac
        rows=$((rows + 1))
        [ "$pass_" = 1 ] || { failed=$((failed + 1)); echo "     | $k $dtype n=$n rel err $rel pass=$pass_"; }
    done < <(tail -n +2 "$csv" 2>/dev/null)
    [ $rows -eq "$want" ] && [ $failed -eq 0 ]
}

# mg_gpu_case NAME G MODE: the program through make, small sizes, --check; the CSV rows must pass.
mg_args="--check --n 1000003 --sizes 4K,1M,4M --reps 3 --warmup 1"
mg_gpu_case() {
    local name=$1 g=$2 mode=$3 csv=$tmp/mg-$2-$3.csv rc
    rm -f "$csv"
    "${mg_make[@]}" stage-12 run MODE=$mode GPUS=$g ARGS="$mg_args --csv $csv" >"$tmp/mg-run" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "all checks passed" "$tmp/mg-run" && mg_rows "$csv" sum 1 && mg_rows "$csv" allreduce 6; then
        ok "12 $name: the sum and the all-reduce (f32, bf16; 4 KiB to 4 MiB) pass"
    else
        bad "12 $name (exit $rc):"
        tail -n 15 "$tmp/mg-run" | sed 's/^/     | /'
    fi
}

if [ $mg_found = 1 ] && [ "$gpu" = 1 ]; then
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    mg_gpu_case "G = 1, one process" 1 threads
    mg_gpu_case "G = 1, one process per GPU" 1 processes
    a=$(awk -F, '$3 == "sum_g1" { print $9 }' "$tmp/mg-1-threads.csv" 2>/dev/null)
    b=$(awk -F, '$3 == "sum_g1_procs" { print $9 }' "$tmp/mg-1-processes.csv" 2>/dev/null)
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "12 G = 1: both modes give the same sum (rel err $a)"
    else bad "12 G = 1: the modes differ (rel err '$a' and '$b')"; fi
    expect "12 G = 1: busbw is 0 and the reason is printed" 0 "G = 1: busbw is 0" -- \
        $mg --gpus 1 --n 4096 --sizes 4K --dtype f32 --reps 1 --warmup 0
    expect "12 --gpus more than visible: exit 2" 2 "only $ngpu GPU" -- $mg --gpus $((ngpu + 1))
    if [ "$ngpu" -ge 2 ]; then
        mg_gpu_case "G = 2, one process" 2 threads
        mg_gpu_case "G = 2, one process per GPU" 2 processes
        rm -f "$tmp/mg-none"
        expect "12 rank 1 with no rank 0: gives up waiting for the id, exit 3" 3 "waited 1 s for rank 0" -- \
            $mg --rank 1 --nranks 2 --id-file "$tmp/mg-none" --id-timeout 1
    else
        skipped "12 G = 2 in both modes and the id-file timeout (one GPU)"
    fi
else
    reason=$([ $mg_found = 1 ] && echo "no GPU: nvidia-smi -L finds none" || echo "NCCL not found")
    skipped "12 G = 1 in both modes, G = 2 where two GPUs are present ($reason)"
fi
