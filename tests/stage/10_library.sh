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

# The pairwise exercise: its stub is the plain fp32 loop, right on random data (within the pairwise
# bound there) but several times past it on the wide data, where its sum grows past 1e11; the solution
# meets the bound on the same data.
if [ "$gpu" = 1 ] && [ -x build/10_library/exercise ] && [ -x build/10_library/solution ]; then
    expect "10 exercise: the stub's plain loop is within the pairwise bound on random data" 0 "all kernels passed" -- \
        build/10_library/exercise --check --n 1000003 --fill random --reps 1 --warmup 0
    expect "10 exercise: the stub's plain loop misses the pairwise bound on the wide data" 1 "cpu_pairwise_f32 .* FAIL" -- \
        build/10_library/exercise --check --n 1000003 --fill wide --reps 1 --warmup 0
    expect "10 exercise's solution passes the same check" 0 "all kernels passed" -- \
        build/10_library/solution --check --n 1000003 --fill wide --reps 1 --warmup 0
else
    skipped "10 the pairwise exercise's plain loop fails on the wide data, its solution passes ($( [ "$gpu" = 1 ] && echo 'not built' || echo 'no GPU: nvidia-smi -L finds none'))"
fi
# cg::reduce is recorded from the cooperative groups headers themselves: the record's shared-memory
# instructions and wavefronts (the warp sums around block.sync()) must be the ones Nsight Compute measures.
if [ "$gpu" = 1 ] && command -v ncu >/dev/null; then
    expect "10 tree: cg_reduce_block's recorded wavefronts are those ncu measures" 0 "loads .* agree" -- \
        scripts/tree.sh agree 10_library cg_reduce_block
else
    skipped "10 tree: the record's wavefronts against ncu's ($( [ "$gpu" = 1 ] && missing ncu || echo 'no GPU: nvidia-smi -L finds none'))"
fi
