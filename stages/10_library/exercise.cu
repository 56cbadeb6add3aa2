/* Exercise 10: the Kahan-compensated accumulator.
 * accumulate<Sum> (as in reduce.cu) runs one loop and one finish for any accumulator Sum; F32Sum is
 * the plain fp32 one. Write KahanSum::add: keep a compensation c of what each addition lost, take it
 * off the next value, and let value() fold it into the sum. Its bound counts each compensated loop
 * as 2 additions, however long. The check runs it twice: in the GPU kernel, where each thread's loop
 * is short and a plain s += x would pass too, and in one long loop on the CPU (cpu_kahan_f32), where
 * a plain sum misses the bound on the wide fill (values near 1e6 and 1e-6) by far. Compare the rel.err
 * column of the rows on --fill wide, and the time: four additions per value instead of one.
 * Hint: add y = x - c (the value less what the last addition gained); with t = s + y, (t - s) is
 *   what was really added, so (t - s) - y is the new c; then s = t, and value() is s - c.
 * Hint: with an Inf in the input, (t - s) - y is Inf - Inf = NaN and the sum turns NaN: once t is not
 *   finite, keep c at 0 (try --fill inf). The stub below adds nothing.
 * 提示：加上 y = x - c（该值减去上一次加法多得的部分）；令 t = s + y，则 (t - s) 是真正加上的量，所以 (t - s) - y 是新的 c；然后 s = t，value() 返回 s - c。
 * 提示：输入中有 Inf 时，(t - s) - y 是 Inf - Inf = NaN，和会变成 NaN：一旦 t 不再是有限值，就让 c 保持为 0（试试 --fill inf）。下面的桩什么也没加。 */
#include <cub/cub.cuh>

#include "common.h"

#define BLOCK 256
#define PER_THREAD 8
#define TREE_CUB_BLOCK (5 + BLOCK / 32 - 1)

struct F32Sum {
    static constexpr bool COMPENSATED = false;
    float s = 0.0f;
    __device__ void add(float x) { s += x; }
    __device__ float value() const { return s; }
};

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
struct KahanSum {
    static constexpr bool COMPENSATED = true;
    float s = 0.0f, c = 0.0f;
    __host__ __device__ void add(float x) { (void)x; /* TODO: the compensated addition */ }
    __host__ __device__ float value() const { return s; }
};
#endif

/* Stage 06's grid-stride loop, PER_THREAD loads in flight per step. */
template <typename Sum>
__device__ __forceinline__ Sum thread_sum(const float *x, uint64_t n)
{
    Sum acc;
    uint64_t step = (uint64_t)gridDim.x * BLOCK * PER_THREAD;
    for (uint64_t i = (uint64_t)blockIdx.x * BLOCK * PER_THREAD + threadIdx.x; i < n; i += step) {
        float v[PER_THREAD];
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) v[k] = i + (uint64_t)k * BLOCK < n ? x[i + (uint64_t)k * BLOCK] : 0.0f;
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) acc.add(v[k]);
    }
    return acc;
}

/* Each block's sum to partials; the last block adds them in index order with Sum and writes the result. */
template <typename Sum>
__global__ void __launch_bounds__(BLOCK) accumulate(const float *x, uint64_t n, float *out, float *sums,
                                                    unsigned *done)
{
    __shared__ cub::BlockReduce<float, BLOCK>::TempStorage temp;
    __shared__ bool last;
    float block = cub::BlockReduce<float, BLOCK>(temp).Sum(thread_sum<Sum>(x, n).value());
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = block;
        __threadfence();
        last = atomicAdd(done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    Sum all;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) all.add(__ldcg(&sums[b]));
    float total = cub::BlockReduce<float, BLOCK>(temp).Sum(all.value());
    if (threadIdx.x == 0) {
        *out = total;
        *done = 0;
    }
}

template <typename Sum>
static void run_accumulate(Run *r)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, accumulate<Sum>, BLOCK, 0));
    uint64_t blocks = (uint64_t)r->sm_count * per_sm, needed = (r->n + BLOCK * PER_THREAD - 1) / (BLOCK * PER_THREAD);
    if (blocks > needed) blocks = needed;
    unsigned *done = (unsigned *)(r->partials + blocks);
    CUDA_CHECK(cudaMemsetAsync(done, 0, sizeof(unsigned)));
    accumulate<Sum><<<(unsigned)blocks, BLOCK>>>(r->in, r->n, r->out, r->partials, done);
    LAUNCH_CHECK("accumulate");
    uint64_t step = blocks * BLOCK * PER_THREAD;
    double loop = (double)PER_THREAD * (double)((r->n + step - 1) / step);
    double finish = (double)((blocks + BLOCK - 1) / BLOCK);
    r->shape.serial = Sum::COMPENSATED ? 3 + 3 : loop + finish; /* compensated loop: 2, folding c in: 1 */
    r->shape.tree = 2 * TREE_CUB_BLOCK;
}

/* The chapter's listing: one Kahan loop on the CPU (its bound: 3 additions however long the loop). */
static void run_cpu_kahan(Run *r)
{
    CUDA_CHECK(cudaStreamSynchronize(0));
    KahanSum acc;
    for (uint64_t i = 0; i < r->n; i++) acc.add(r->host_in[i]);
    r->host_result = acc.value();
    r->has_host_result = 1;
    r->shape.serial = 3;
}

static const Kernel kernels[] = {
    {"accumulate_f32", "§7.7.4: fp32 accumulator, last block finishes in index order", run_accumulate<F32Sum>},
    {"accumulate_kahan_f32", "exercise: §7.7.4 method 2, the Kahan-compensated fp32 accumulator",
     run_accumulate<KahanSum>, .acc = ACC_KAHAN},
    {"cpu_kahan_f32", "exercise: the same accumulator in one loop on the CPU", run_cpu_kahan, .flags = ON_CPU, .acc = ACC_KAHAN},
};

STAGE("10_library", kernels, .charts = "library+");
