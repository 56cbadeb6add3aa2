# shellcheck shell=bash
# Stage 13 (the exact sum) and its demo: sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and
# $gpu (1 when a GPU is present) exist.
# CCCL_HOME names a newer CCCL for every build; a folder that is not one is refused before anything is built.
expect "CCCL_HOME that is not a CCCL checkout is refused in one line, exit 2" 2 "CCCL_HOME=$tmp is not a CCCL checkout" -- \
    make --no-print-directory -s CCCL_HOME="$tmp" help
if [ "$gpu" = 1 ]; then
    expect "13 demo: every exact result is the host's exact sum, in fp32 and fp64, at every launch shape (two block sizes) and start" 0 \
        " 0 not the host's exact sum" -- build/13_exact/demo
    # The check is bit for bit (the error 0, the bound 0); data off fixed point's grid are refused.
    expect "13 windows_f32 on the wide data: the exact sum, bit for bit" 0 \
        "^windows_f32 +[-0-9.e+]+ +0\.00e\+00 +0\.00e\+00 +ok" -- \
        build/13_exact/reduce --kernel windows_f32 --n 1000003 --fill wide --reps 3 --check
    expect "13 fixed point refuses data off its grid (the wide fill)" 0 \
        "^fixed_point +skipped: a value is not a multiple of 2\^-24" -- \
        build/13_exact/reduce --kernel fixed_point --n 1000003 --fill wide --reps 3 --check
else
    skipped "13 demo and the exact kernels bit for bit (no GPU: nvidia-smi -L finds none)"
fi
