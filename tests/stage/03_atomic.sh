# shellcheck shell=bash
# Stage 03 (atomics): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and $gpu (1 when a GPU is
# present) exist.
atomic=build/03_atomic/reduce
if [ "$gpu" = 1 ]; then
    # Non-finite input: the result must be NaN (+Inf), never a finite number called a pass.
    for f in nan inf; do
        $atomic --check --n 1000003 --fill $f --reps 1 --warmup 0 >"$tmp/nf" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && [ "$(awk -v f=$f '$1 ~ /^(reduce_shared_atomic|cub)$/ && $2 == f && $5 == "ok"' "$tmp/nf" | wc -l)" -eq 2 ]; then
            ok "03 --fill $f: the kernel and CUB give $f, reported as such"
        else
            bad "03 --fill $f (exit $rc)"; tail -n 4 "$tmp/nf" | sed 's/^/     | /'
        fi
    done
    expect "03 --fill ones gives exactly N" 0 "^reduce_shared_atomic +1000003 " -- \
        $atomic --n 1000003 --fill ones --reps 1 --check
else
    skipped "03 non-finite input gives NaN (+Inf), reported as such (no GPU: nvidia-smi -L finds none)"
    skipped "03 --fill ones gives exactly N (no GPU: nvidia-smi -L finds none)"
fi
