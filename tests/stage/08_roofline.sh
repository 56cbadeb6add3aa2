# shellcheck shell=bash
# Stage 08 (the roofline kernels): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and $gpu (1
# when a GPU is present) exist.
roofline=build/08_roofline/reduce
if [ "$gpu" = 1 ]; then
    expect "08 --offset 3: the kernels read a scalar head and are right on an unaligned input" 0 "all kernels passed" -- \
        $roofline --check --n 1000003,17 --offset 3 --reps 1 --warmup 0
    expect "08 at N = 2^31+17: every kernel right with 64-bit indices" 0 "all kernels passed" -- \
        $roofline --check --n 2^31+17 --reps 1 --warmup 0
else
    skipped "08 an unaligned input; N = 2^31+17 (no GPU: nvidia-smi -L finds none)"
fi
