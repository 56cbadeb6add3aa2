# shellcheck shell=bash
# Stage 06 (grid-stride loops): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and $gpu (1 when
# a GPU is present) exist.
gridstride=build/06_gridstride/reduce
if [ "$gpu" = 1 ]; then
    # Unaligned input: right, or refused by the vector kernels; never a fault.
    expect "06 --offset 1: every kernel right on an unaligned input" 0 "all kernels passed" -- \
        $gridstride --check --n 1000003 --offset 1 --reps 1 --warmup 0
    expect "06 a size that does not fit in GPU memory: bytes needed and free, exit 2" 2 "needs about [0-9]+ bytes .* [0-9]+ bytes free" -- \
        $gridstride --n 2^40 --reps 1
else
    skipped "06 an unaligned input; a size that does not fit in GPU memory (no GPU: nvidia-smi -L finds none)"
fi
