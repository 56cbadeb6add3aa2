# shellcheck shell=bash
# Stage 01 (naive reductions, and the CPU loop they start from): sourced by tests/run.sh once
# ok/bad/skipped/expect, describe, $tmp and $gpu (1 when a GPU is present) exist.
naive=build/01_naive/reduce
if "$naive" --describe | grep -qx "kernel: cpu_sequential f32 cpu f32" && [ "$(describe "$naive" baseline)" = reduce_global_inplace ]; then
    ok "01 --describe: cpu_sequential is a CPU row, and the speed-up baseline is the first GPU kernel"
else
    bad "01 --describe: cpu_sequential should be 'kernel: cpu_sequential f32 cpu f32' and the baseline reduce_global_inplace"
fi
if [ "$gpu" = 1 ]; then
    # 2^24 + 1 ones: the sequential fp32 sum stops growing at 2^24 (2^24 + 1 rounds back to 2^24); its one
    # chain runs through every input, so no bound below the whole sum holds and the row says "-" (not
    # checked), not ok; the GPU's trees add the same ones exactly.
    expect "01 cpu_sequential on 2^24+1 ones stops at 16777216, not checked; the tree kernels give 16777217" 0 \
        "cpu_sequential +16777216 .* - " -- $naive --n 2^24+1 --fill ones --reps 1 --check
    if grep -qE "^reduce_interleaved +16777217 .* ok" "$tmp/out"; then ok "01 reduce_interleaved sums 2^24+1 ones exactly"
    else bad "01 reduce_interleaved should sum 2^24+1 ones exactly"; fi
else
    skipped "01 the CPU loop's lost ones at 2^24+1 (no GPU: nvidia-smi -L finds none)"
fi
# The record's shared-memory wavefronts against Nsight Compute's on the same launch (one block): the
# interleaved tree (tid % (2*s): divergent, no bank conflict) and the exercise's strided one (index =
# 2*s*tid: 2-way and worse conflicts). scripts/tree.sh agree exits 1 where a count differs.
if [ "$gpu" = 1 ] && command -v ncu >/dev/null; then
    expect "01 tree: reduce_interleaved's recorded wavefronts are those ncu measures" 0 "loads .* agree" -- \
        scripts/tree.sh agree 01_naive reduce_interleaved
    if ! solved 01_naive; then
        skipped "01 tree: the strided solution's recorded wavefronts against ncu's ($no_solutions)"
    elif make --no-print-directory -s build/01_naive/tree-solution build/01_naive/solution >"$tmp/build" 2>&1; then
        expect "01 tree: the strided solution's recorded wavefronts (bank conflicts) are those ncu measures" 0 "loads .* agree" -- \
            env PROGRAM=solution scripts/tree.sh agree 01_naive reduce_interleaved_strided
    else
        bad "01 tree: build/01_naive/tree-solution builds"
    fi
else
    skipped "01 tree: the record's wavefronts against ncu's ($( [ "$gpu" = 1 ] && missing ncu || echo 'no GPU: nvidia-smi -L finds none'))"
fi
expect "01 tree: the kernel that halves in global memory cannot be recorded, and says why (exit 5)" 5 \
    "reduce_global_inplace cannot be recorded: it halves its slice in global memory" -- build/01_naive/tree --kernel reduce_global_inplace
