# shellcheck shell=bash
# Stage 10 (the libraries): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and $gpu (1 when a
# GPU is present) exist.
# The Kahan exercise must fail with a plain fp32 sum: its long CPU loop (cpu_kahan_f32) on the wide data
# misses the compensated loop's bound, while the solution meets it.
if [ "$gpu" = 1 ] && [ -x build/10_library/solution ]; then
    cat >"$tmp/plain_sum.cu" <<'CU'
struct KahanSum {
    static constexpr bool COMPENSATED = true;
    float s = 0.0f, c = 0.0f;
    __host__ __device__ void add(float x) { s += x; }
    __host__ __device__ float value() const { return s; }
};
CU
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    if "$nvcc" -O3 -std=c++17 -arch=native -Icommon -Xcompiler -fopenmp -DSOLUTION_FILE="\"$tmp/plain_sum.cu\"" \
        stages/10_library/exercise.cu build/harness.o build/program.o build/check.o build/host.o build/baseline.o \
        -o "$tmp/plain_sum" >"$tmp/plain_sum.log" 2>&1; then
        expect "10 exercise with a plain fp32 sum fails its check on the wide data (the CPU loop)" 1 \
            "cpu_kahan_f32 .* FAIL" -- "$tmp/plain_sum" --check --n 1000003 --fill wide --reps 1 --warmup 0
        expect "10 exercise's solution passes the same check" 0 "all kernels passed" -- \
            build/10_library/solution --check --n 1000003 --fill wide --reps 1 --warmup 0
    else
        bad "10 exercise with a plain fp32 sum does not build: $(tail -3 "$tmp/plain_sum.log")"
    fi
else
    skipped "10 the Kahan exercise with a plain fp32 sum fails, its solution passes (no GPU: nvidia-smi -L finds none)"
fi
