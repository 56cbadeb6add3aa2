# shellcheck shell=bash
# Stage 05 (warp shuffles) and its demo: sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and
# $gpu (1 when a GPU is present) exist.
if [ "$gpu" = 1 ]; then
    expect "05 demo matches the programming guide's rules" 0 "all 288 values match" -- build/05_shuffle/demo
    if command -v cuobjdump >/dev/null; then
        expect "make stage-05 sass: shuffles in the shuffle kernels" 0 "SHFL.DOWN [1-9]" -- make --no-print-directory -s stage-05 sass
    fi
else
    skipped "05 demo and its shuffles in the SASS (no GPU: nvidia-smi -L finds none)"
fi
