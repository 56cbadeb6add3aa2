# shellcheck shell=bash
# Stage 01 (naive reductions, and the CPU loop they start from): sourced by tests/run.sh once
# ok/bad/skipped/expect, describe, $tmp and $gpu (1 when a GPU is present) exist.
naive=build/01_naive/reduce
if "$naive" --describe | grep -qx "kernel: cpu_sequential f32 cpu" && [ "$(describe "$naive" baseline)" = reduce_global_inplace ]; then
    ok "01 --describe: cpu_sequential is a CPU row, and the speed-up baseline is the first GPU kernel"
else
    bad "01 --describe: cpu_sequential should be 'kernel: cpu_sequential f32 cpu' and the baseline reduce_global_inplace"
fi
if [ "$gpu" = 1 ]; then
    # 2^24 + 1 ones: the sequential fp32 sum stops growing at 2^24 (2^24 + 1 rounds back to 2^24), within
    # its bound; the GPU's trees add the same ones exactly.
    expect "01 cpu_sequential on 2^24+1 ones stops at 16777216, within its bound; the tree kernels give 16777217" 0 \
        "cpu_sequential +16777216 .* ok" -- $naive --n 2^24+1 --fill ones --reps 1 --check
    if grep -qE "^reduce_interleaved +16777217 .* ok" "$tmp/out"; then ok "01 reduce_interleaved sums 2^24+1 ones exactly"
    else bad "01 reduce_interleaved should sum 2^24+1 ones exactly"; fi
else
    skipped "01 the CPU loop's lost ones at 2^24+1 (no GPU: nvidia-smi -L finds none)"
fi
