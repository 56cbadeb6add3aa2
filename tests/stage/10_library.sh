# shellcheck shell=bash
# Stage 10 (the libraries) and its demo: sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and
# $gpu (1 when a GPU is present) exist.
library=build/10_library/reduce
if [ "$gpu" = 1 ]; then
    expect "10 demo: shuffles and shared memory both give every block's exact sum" 0 "every block's total is the exact sum" -- \
        build/10_library/demo
    # The three grid finishes share the grid, the loop, the block's sum and the finish's order of
    # additions: the same result at every size, the same bits in every run.
    $library --check --kernel grid_sync_cooperative,grid_last_block,grid_two_launches --n 1,257,1000003,2^24+1 \
        --reps 3 --warmup 1 >"$tmp/grid" 2>&1
    rc=$?
    differ=$(awk '/^N = / { size = $3 } $1 ~ /^grid_/ { rows++; if ($NF != "same") print size ": " $1 " varies"
                     if (!(size in result)) result[size] = $2; else if (result[size] != $2) print size ": " $1 " gives " $2 }
                  END { if (rows != 12) print rows + 0 " rows, not 12" }' "$tmp/grid")
    if [ $rc -eq 0 ] && [ -z "$differ" ]; then ok "10 the three grid finishes give the same bits at every size, in every run"
    else bad "10 the three grid finishes (exit $rc): $differ"; tail -n 6 "$tmp/grid" | sed 's/^/     | /'; fi
    # The warp shuffle article's int data (stage 05's check): the WarpScan aggregates sum to it exactly.
    expect "10 cub_warp_scan_aggregate gives the exact 51903600 of i % 100 over 2^20, the same in every run" 0 \
        "cub_warp_scan_aggregate +51903600 .* ok .* same" -- \
        $library --kernel cub_warp_scan_aggregate --n 2^20 --fill mod100 --reps 5 --check
    if command -v cuobjdump >/dev/null; then
        expect "make stage-10 sass: WarpScan's scan is SHFL.UP" 0 "SHFL.UP" -- make --no-print-directory -s stage-10 sass
    else
        skipped "make stage-10 sass: WarpScan's scan is SHFL.UP ($(missing cuobjdump))"
    fi
else
    skipped "10 demo, the grid finishes' equal bits, the WarpScan aggregate's exact sum (no GPU: nvidia-smi -L finds none)"
fi

# The Kahan exercise must fail with a plain fp32 sum: its long CPU loop (cpu_kahan_f32) on the wide data
# misses the compensated loop's bound, while the solution meets it.
if [ "$gpu" = 1 ] && [ -x build/10_library/solution ]; then
    cat >"$tmp/plain_sum.cu" <<'CU'
struct KahanSum {
    static constexpr bool COMPENSATED = true;
    float s = 0.0f, c = 0.0f;
    __host__ __device__ void add(float x) { s += x; }
    __host__ __device__ float value() const { return s; }
};
CU
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    if "$nvcc" -O3 -std=c++17 -arch=native -Icommon -Xcompiler -fopenmp -DSOLUTION_FILE="\"$tmp/plain_sum.cu\"" \
        stages/10_library/exercise.cu build/harness.o build/program.o build/speed_of_light.o build/gpu.o build/host.o build/baseline.o \
        -o "$tmp/plain_sum" >"$tmp/plain_sum.log" 2>&1; then
        expect "10 exercise with a plain fp32 sum fails its check on the wide data (the CPU loop)" 1 \
            "cpu_kahan_f32 .* FAIL" -- "$tmp/plain_sum" --check --n 1000003 --fill wide --reps 1 --warmup 0
        expect "10 exercise's solution passes the same check" 0 "all kernels passed" -- \
            build/10_library/solution --check --n 1000003 --fill wide --reps 1 --warmup 0
    else
        bad "10 exercise with a plain fp32 sum does not build: $(tail -n 3 "$tmp/plain_sum.log")"
    fi
else
    skipped "10 the Kahan exercise with a plain fp32 sum fails, its solution passes (no GPU: nvidia-smi -L finds none)"
fi
# cg::reduce is recorded from the cooperative groups headers themselves: the record's shared-memory
# instructions and wavefronts (the warp sums around block.sync()) must be the ones Nsight Compute measures.
if [ "$gpu" = 1 ] && command -v ncu >/dev/null; then
    expect "10 tree: cg_reduce_block's recorded wavefronts are those ncu measures" 0 "loads .* agree" -- \
        scripts/tree.sh agree 10_library cg_reduce_block
else
    skipped "10 tree: the record's wavefronts against ncu's ($( [ "$gpu" = 1 ] && missing ncu || echo 'no GPU: nvidia-smi -L finds none'))"
fi
