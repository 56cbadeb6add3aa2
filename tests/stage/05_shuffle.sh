# shellcheck shell=bash
# Stage 05 (warp shuffles) and its demo: sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and
# $gpu (1 when a GPU is present) exist.
if [ "$gpu" = 1 ]; then
    expect "05 demo matches the programming guide's rules" 0 "all 352 values match" -- build/05_shuffle/demo
    expect "05 demo: xor with width 16, lanes 0-15 keep their own value (the partner is in a later group)" 0 \
        "laneMask 16, width 16\) +0 +1 +2 +3 +4 +5 +6 +7 +8 +9 +10 +11 +12 +13 +14 +15 +0 +1 " -- build/05_shuffle/demo
    # The warp shuffle article's own check: int data i % 100 over 2^20 elements sums to exactly 51903600,
    # with the same bits in every run (integer atomics).
    expect "05 the shuffle article's int all-reduce gives its exact 51903600, the same in every run" 0 \
        "reduce_xor_allreduce_int +51903600 .* ok .* same" -- \
        build/05_shuffle/reduce --kernel reduce_xor_allreduce_int --n 2^20 --fill mod100 --reps 5 --check
    if command -v cuobjdump >/dev/null; then
        expect "make stage-05 sass: shuffles in the shuffle kernels" 0 "SHFL.DOWN [1-9]" -- make --no-print-directory -s stage-05 sass
    else
        skipped "make stage-05 sass: shuffles in the shuffle kernels ($(missing cuobjdump))"
    fi
else
    skipped "05 demo, the int all-reduce's exact sum, and its shuffles in the SASS (no GPU: nvidia-smi -L finds none)"
fi
# Shuffle first: one store a warp and one load of the 32 warp sums; the record's counts must be those
# Nsight Compute measures on the same launch.
if [ "$gpu" = 1 ] && command -v ncu >/dev/null; then
    expect "05 tree: reduce_warp_shuffle's recorded wavefronts are those ncu measures" 0 "loads .* agree" -- \
        scripts/tree.sh agree 05_shuffle reduce_warp_shuffle
else
    skipped "05 tree: the record's wavefronts against ncu's ($( [ "$gpu" = 1 ] && missing ncu || echo 'no GPU: nvidia-smi -L finds none'))"
fi
