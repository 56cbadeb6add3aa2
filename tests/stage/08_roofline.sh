# shellcheck shell=bash
# Stage 08 (the roofline kernels): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and $gpu (1
# when a GPU is present) exist.
roofline=build/08_roofline/reduce
if [ "$gpu" = 1 ]; then
    expect "08 --offset 3: the kernels read a scalar head and are right on an unaligned input" 0 "all kernels passed" -- \
        $roofline --check --n 1000003,17 --offset 3 --reps 1 --warmup 0
    expect "08 at N = 2^31+17: every kernel right with 64-bit indices" 0 "all kernels passed" -- \
        $roofline --check --n 2^31+17 --reps 1 --warmup 0
    # The deterministic variant: the same bits on every one of 101 runs (the harness fails a kernel without
    # float atomics whose result moves), at sizes of one block, one wave and many tiles a block; and the
    # one-launch variant, whose last block resets the total, right on every run.
    expect "08 roofline_f32_deterministic: the same bits on 101 runs; roofline_f32_one_launch right on each" 0 "all kernels passed" -- \
        $roofline --check --n 1000,2^22+5,2^27+3 --kernel roofline_f32_deterministic,roofline_f32_one_launch --reps 101 --warmup 0
else
    skipped "08 an unaligned input; N = 2^31+17; 101 runs of the deterministic variant (no GPU: nvidia-smi -L finds none)"
fi
