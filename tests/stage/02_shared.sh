# shellcheck shell=bash
# Stage 02 (shared memory, sequential addressing): sourced by tests/run.sh once ok/bad/skipped/expect,
# $tmp and $gpu (1 when a GPU is present) exist.
# Sequential addressing has no bank conflict: the record's wavefronts, one per instruction, must be the
# ones Nsight Compute measures on the same launch (scripts/tree.sh agree exits 1 where a count differs).
if [ "$gpu" = 1 ] && command -v ncu >/dev/null; then
    expect "02 tree: reduce_shared's recorded wavefronts are those ncu measures" 0 "loads .* agree" -- \
        scripts/tree.sh agree 02_shared reduce_shared
else
    skipped "02 tree: the record's wavefronts against ncu's ($( [ "$gpu" = 1 ] && missing ncu || echo 'no GPU: nvidia-smi -L finds none'))"
fi
