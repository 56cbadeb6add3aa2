# shellcheck shell=bash
# Stage 12 (the sum across GPUs with NCCL): sourced by tests/run.sh once ok/bad/skipped/expect, bad_files
# (tests/input.sh), $tmp and $gpu (1 when a GPU is present) exist. The host half runs anywhere (its MPI
# part where make finds an MPI); the GPU half needs a GPU, and two for the G = 2 checks.

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

# MPI: the mpirun the Makefile uses ($MPI_HOME/bin, else the PATH), allowed to run as root (CI runs as root)
# and to start more ranks than the machine has cores.
mg_mpirun=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    "${MPI_HOME:+$MPI_HOME/bin/}mpirun")
mg_no_mpi="no MPI: make found neither MPI_HOME nor mpicc (apt-get install libopenmpi-dev openmpi-bin)"
expect "12 MODE=mpi without MPI: make says how to get it, exit 2" 2 "MODE=mpi needs MPI, and none was found .*libopenmpi-dev" -- \
    "${mg_make[@]}" MPI_HOME=/nonexistent stage-12 run MODE=mpi
# A dry run in a build folder of its own: the build without MPI, and the note that says how to get it
# (where NCCL is found: without it, make refuses stage 12 before MPI matters).
"${mg_make[@]}" -n BUILD="$tmp/mg-nompi" MPI_HOME=/nonexistent stage-12 >"$tmp/mg-nompi" 2>&1
if [ $mg_found = 0 ]; then
    skipped "12 without MPI: make stage-12 builds the threads mode alone (NCCL not found)"
elif grep -q "note: stage 12 built without MPI .*apt-get install libopenmpi-dev openmpi-bin" "$tmp/mg-nompi" &&
    grep -q "12_multigpu/multigpu\.cu" "$tmp/mg-nompi" && ! grep -qE -- "-lmpi|WITH_MPI" "$tmp/mg-nompi"; then
    ok "12 without MPI: make stage-12 builds the threads mode alone and says how to get MODE=mpi"
else
    bad "12 without MPI: make -n stage-12 does not build without MPI, or says nothing of it:"
    tail -n 5 "$tmp/mg-nompi" | sed 's/^/     | /'
fi
expect "12 MODE=processes is gone: exit 2, naming the two modes" 2 "MODE=processes: give MODE=threads .* or MODE=mpi" -- \
    "${mg_make[@]}" stage-12 run MODE=processes
if grep -qE "^[^#]*(nccl-id|id-file|wait -n)" stages/12_multigpu/stage.mk Makefile; then
    bad "12: stage.mk or the Makefile still starts the copies itself (an id file, a wait loop)"
else ok "12: no launcher of our own in the Makefile or stage.mk (mpirun starts the copies)"; fi

# The common flags are tested for every program by tests/run.sh; here what is this stage's own.
mg_mpi=0
if [ $mg_found = 1 ]; then
    expect "12 --help" 0 "--gpus G" -- $mg --help
    expect "12 --gpus 0" 2 "--gpus '0'" -- $mg --gpus 0
    expect "12 --gpus x" 2 "--gpus 'x'" -- $mg --gpus x
    expect "12 --sizes not a multiple of 4 bytes" 2 "multiple of 4 bytes" -- $mg --sizes 1M,6
    expect "12 --dtype f16" 2 "--dtype 'f16'" -- $mg --dtype f16
    expect "12 --ranks-only without --mpi" 2 "--ranks-only goes with --mpi" -- $mg --ranks-only
    expect "12 started by an MPI launcher without --mpi: exit 2" 2 "one of 2 ranks: give --mpi" -- env OMPI_COMM_WORLD_SIZE=2 $mg
    expect "12 unknown MODE" 2 "MODE=bogus: give MODE=threads" -- "${mg_make[@]}" stage-12 run MODE=bogus
    # --input: the sum of a file over the GPUs. The refusals every program shares (tests/input.sh's bad_files),
    # then this program's own; a good file goes on to the GPU check (exit 3 without one).
    bad_files $mg 12_multigpu '<f4' 1000003
    cp "$tmp/in.npy" "$tmp/mg-in.npy" && cp "$tmp/raw.bin" "$tmp/mg-in.bin"
    python3 tests/npy.py "$tmp/mg-half.npy" '<f2' 1000
    expect "12 --input of f16: refused, the sum takes f32, exit 2" 2 "holds f16 values; this program's kernels take: f32$" -- \
        $mg --input "$tmp/mg-half.npy"
    expect "12 --input: raw bytes with --dtype bf16 hold bf16, which the sum does not take, exit 2" 2 \
        "holds bf16 values; this program's kernels take: f32$" -- $mg --input "$tmp/mg-in.bin" --dtype bf16
    expect "12 --input with --sizes: the all-reduce does not run on a file, exit 2" 2 "do not run on a file" -- \
        $mg --input "$tmp/mg-in.npy" --sizes 4K
    expect "12 --input with --kernel allreduce: the file is the sum's, exit 2" 2 "which --kernel leaves out" -- \
        $mg --input "$tmp/mg-in.npy" --kernel allreduce
    expect "12 --input: a good file passes every check of the file, then the GPU is needed (exit 3)" 3 "" -- \
        env CUDA_VISIBLE_DEVICES= $mg --input "$tmp/mg-in.npy"
    expect "12 --input: raw bytes with --dtype f32 too (exit 3 at the GPU check)" 3 "" -- \
        env CUDA_VISIBLE_DEVICES= $mg --input "$tmp/mg-in.bin" --dtype f32
    for tool in profile sanitize; do
        expect "make stage-12 $tool says its program is not a single-GPU stage program (exit 2)" 2 "not a single-GPU stage program" -- \
            "${mg_make[@]}" stage-12 $tool
    done
    # Built with MPI or not: --mpi says which (without MPI: how to get it, exit 2).
    $mg --mpi --gpus 1 >"$tmp/mg-mpi" 2>&1
    if grep -q "built without MPI" "$tmp/mg-mpi"; then
        expect "12 --mpi in a build without MPI says how to get it, exit 2" 2 "built without MPI .*libopenmpi-dev openmpi-bin" -- $mg --mpi
        skipped "12 under mpirun: the ranks meet, the id broadcast, every rank at the GPU check ($mg_no_mpi)"
    elif ! command -v "${mg_mpirun[-1]}" >/dev/null; then
        skipped "12 under mpirun: ${mg_mpirun[-1]} not found (apt-get install openmpi-bin)"
    else
        mg_mpi=1
        expect "12 --mpi --gpus: each rank drives one GPU, exit 2" 2 "--gpus and --mpi" -- $mg --mpi --gpus 1
        # The id broadcast, without a GPU: rank 0 makes NCCL's unique id, MPI_Bcasts it, and lists what
        # every rank received; the same 16 hex digits for both ranks, and not those of another run.
        expect "12 mpirun -np 2 --ranks-only: the ranks meet before any GPU, exit 0" 0 "every rank holds rank 0's NCCL id" -- \
            timeout 120 "${mg_mpirun[@]}" -np 2 $mg --mpi --ranks-only
        ids=$(sed -n 's/^rank [01]: host .*, local rank [01] of 2, NCCL id \([0-9a-f]\{16\}\)$/\1/p' "$tmp/out" | sort -u)
        timeout 120 "${mg_mpirun[@]}" -np 2 $mg --mpi --ranks-only >"$tmp/mg-ids2" 2>&1
        if [ "$(sed -n 's/^rank [01]: .*NCCL id \([0-9a-f]*\)$/\1/p' "$tmp/out" | wc -l)" = 2 ] && [ "$(echo "$ids" | grep -c .)" = 1 ] &&
            ! grep -q "NCCL id $ids\$" "$tmp/mg-ids2"; then
            ok "12 the NCCL id broadcast: both ranks hold rank 0's id ($ids), and another run makes another"
        else
            bad "12 the NCCL id broadcast: the ranks' ids differ, are missing, or repeat in the next run:"
            sed 's/^/     | /' "$tmp/out" "$tmp/mg-ids2" | head -n 10
        fi
        # No GPU (none visible to any rank): each rank reaches the GPU check and says so, and mpirun
        # exits 3 within the limit; no copy is left running (the CSV path marks this run's copies).
        timeout 120 "${mg_mpirun[@]}" -np 2 env CUDA_VISIBLE_DEVICES= $mg --mpi --check --csv "$tmp/mg-orphan.csv" >"$tmp/mg-nogpu" 2>&1
        rc=$?
        sleep 1
        left=$(pgrep -f "$tmp/mg-orphan.csv" | wc -l)
        if [ $rc -eq 3 ] && [ "$(grep -c "no CUDA-capable GPU found" "$tmp/mg-nogpu")" -eq 2 ] && [ "$left" -eq 0 ]; then
            ok "12 mpirun -np 2 with no GPU: both ranks reach the GPU check, exit 3, no copy left running"
        else
            bad "12 mpirun -np 2 with no GPU (exit $rc, wanted 3; $left copies left):"
            tail -n 8 "$tmp/mg-nogpu" | sed 's/^/     | /'
        fi
        # One rank failing alone (rank 0, whose CSV cannot be written) ends the other, which waits for it
        # at the GPU check: MPI_Abort, exit 2, no copy left.
        timeout 120 "${mg_mpirun[@]}" -np 2 $mg --mpi --csv "$tmp/mg-none/x.csv" >"$tmp/mg-abort" 2>&1
        rc=$?
        sleep 1
        left=$(pgrep -f "$tmp/mg-none" | wc -l)
        if [ $rc -eq 2 ] && grep -q "cannot write the CSV file" "$tmp/mg-abort" && [ "$left" -eq 0 ]; then
            ok "12 mpirun -np 2, rank 0 failing alone: every rank ends (MPI_Abort), exit 2, no copy left running"
        else
            bad "12 mpirun -np 2, rank 0 failing alone (exit $rc, wanted 2; $left copies left):"
            tail -n 8 "$tmp/mg-abort" | sed 's/^/     | /'
        fi
        expect "12 MODE=mpi with no GPU visible: make fails and says why" 2 "stage-12 run MODE=mpi runs kernels on an NVIDIA GPU" -- \
            env CUDA_VISIBLE_DEVICES= "${mg_make[@]}" stage-12 run MODE=mpi
    fi
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
    env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        "${mg_make[@]}" stage-12 run MODE="$mode" GPUS="$g" ARGS="$mg_args --csv $csv" >"$tmp/mg-run" 2>&1
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
    expect "12 G = 1: busbw is 0 and the reason is printed" 0 "G = 1: busbw is 0" -- \
        $mg --gpus 1 --n 4096 --sizes 4K --dtype f32 --reps 1 --warmup 0
    expect "12 --gpus more than visible: exit 2" 2 "only $ngpu GPU" -- $mg --gpus $((ngpu + 1))
    # --input: the file this test wrote, summed over every GPU and checked; the table names it, the CSV's
    # row says input; and a file shorter than the GPUs are many.
    for g in 1 $([ "$ngpu" -ge 2 ] && echo 2); do
        rm -f "$tmp/mg-input.csv"
        expect "12 --input, G = $g: the sum of a .npy this test wrote passes its check" 0 "all checks passed" -- \
            $mg --gpus "$g" --input "$tmp/mg-in.npy" --check --reps 3 --warmup 1 --csv "$tmp/mg-input.csv"
        if grep -q "elements, input $tmp/mg-in.npy (f32), over $g GPU" "$tmp/out" &&
            [ "$(awk -F, -v k="sum_g$g" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 && $c["kernel"] == k { print $c["fill"] "," $c["n"] }' \
                "$tmp/mg-input.csv")" = input,1000003 ]; then ok "12 --input, G = $g: the table names the file, the CSV row says input"
        else bad "12 --input, G = $g: the table or the CSV does not name the input"; fi
    done
    if [ "$ngpu" -ge 2 ]; then
        python3 tests/npy.py "$tmp/mg-one.npy" '<f4' 1
        expect "12 --input of one element over 2 GPUs: exit 2" 2 "1 elements, fewer than the GPUs \(2\)" -- \
            $mg --gpus 2 --input "$tmp/mg-one.npy"
    fi
    if [ $mg_mpi = 1 ]; then
        mg_gpu_case "G = 1, under MPI" 1 mpi
        a=$(awk -F, '$3 == "sum_g1" { print $9 }' "$tmp/mg-1-threads.csv" 2>/dev/null)
        b=$(awk -F, '$3 == "sum_g1_procs" { print $9 }' "$tmp/mg-1-mpi.csv" 2>/dev/null)
        if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "12 G = 1: both modes give the same sum (rel err $a)"
        else bad "12 G = 1: the modes differ (rel err '$a' and '$b')"; fi
        expect "12 make stage-12 check MODE=mpi GPUS=1 passes" 0 "all checks passed" -- \
            env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${mg_make[@]}" stage-12 check MODE=mpi GPUS=1
        # One rank with a GPU and one without (Open MPI's -x gives each its own CUDA_VISIBLE_DEVICES): both
        # stop at the GPU check, the one with a GPU saying why, exit 3, and neither waits for the other.
        expect "12 mpirun: a rank without a GPU stops every rank, exit 3" 3 "stops: 1 of the 2 ranks found no usable GPU" -- \
            timeout 120 "${mg_mpirun[@]}" -np 1 -x CUDA_VISIBLE_DEVICES=0 $mg --mpi : -np 1 -x CUDA_VISIBLE_DEVICES= $mg --mpi
    else
        skipped "12 G = 1 under MPI, make stage-12 check MODE=mpi, a rank without a GPU ($mg_no_mpi, or no mpirun)"
    fi
    if [ "$ngpu" -ge 2 ]; then
        mg_gpu_case "G = 2, one process" 2 threads
        if [ $mg_mpi = 1 ]; then mg_gpu_case "G = 2, under MPI" 2 mpi
        else skipped "12 G = 2 under MPI ($mg_no_mpi, or no mpirun)"; fi
    else
        skipped "12 G = 2 in both modes (one GPU)"
    fi
else
    reason=$([ $mg_found = 1 ] && echo "no GPU: nvidia-smi -L finds none" || echo "NCCL not found")
    skipped "12 G = 1 in both modes, G = 2 where two GPUs are present ($reason)"
fi
