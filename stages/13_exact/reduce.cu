/* Stage 13: a sum every GPU agrees on. An fp32 sum's bits depend on the order of its additions, and the
 * order on the grid; integer additions do not. Every finite fp32 value is an integer count of 2^-149
 * (the smallest subnormal) below 2^277, so the exact sum is an integer sum, the same for any order,
 * any grid and any GPU, rounded once at the end. The steps, each a row of the table:
 *   1. order matters: one fp32 kernel, three grids, three results;
 *   2. integers are associative: a fixed-point sum, exact for data on a known grid (and only those);
 *   3. the general method: every value into 32-bit digits of 2^-149 (a superaccumulator);
 *   4. the fast one: the same digits, filled a tile at a time by fp64 additions split exactly;
 *   5. fp64 input: three such windows in front of digits of 2^-1074, the smallest fp64 subnormal. */
#include <string.h>
#if __has_include(<cuda/execution.determinism.h>) /* a CCCL newer than CUDA 13.0's: CUB's determinism (below) */
#include <cub/device/device_reduce.cuh>
#include <cuda/execution.determinism.h>
#include <cuda/execution.require.h>
#define CUB_DETERMINISM 1
#endif

#include "stage.h"
#include "last_block.h" /* the last block to finish, as stage 08 finishes */
#include "levels.h"
/* Steps 3 to 5, the exact sums, are in exact_sum.cuh, which the exact-sum library (lib/) builds too; it
 * brings the block size, the warp's sums and the block's largest value that every step here uses. */
#include "exact_sum.cuh"

#define WARPS (BLOCK / 32)
#define NOT_16_ALIGNED "the input is not aligned to 16 bytes" /* why a kernel of 16-byte loads refuses it */

/* A block's sum, in thread 0. */
template <typename T>
__device__ __forceinline__ T block_sum(T v)
{
    __shared__ TRACED(T) warp_sums[WARPS];
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < WARPS ? T(warp_sums[threadIdx.x]) : T(0);
    if (threadIdx.x < 32) v = warp_sum(v);
    __syncthreads(); /* warp_sums is free again */
    return v;
}
/* Its levels: a warp's, then the warp sums' (the lanes past them add zeros, which round nothing). */
#define BLOCK_SUM_LEVELS (LOG2_WARP + tree_levels(WARPS))

/* ---- 1. order matters --------------------------------------------------------------------------- */

/* Stage 08's shape in fp32: each thread adds its 16-byte vectors a grid apart, the block adds its
 * threads, and the last block adds the blocks' sums in block order. Every run of one grid gives the same
 * bits; another grid puts other values in each thread's sum, and the bits change. */
__global__ void __launch_bounds__(BLOCK) float_sum(const float *x, uint64_t n, float *out, float *partials)
{
    const float4 *v = reinterpret_cast<const float4 *>(x);
    uint64_t vectors = n / 4, t = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
    float acc = 0.0f;
    for (uint64_t i = t; i < vectors; i += (uint64_t)gridDim.x * BLOCK) {
        float4 f = __ldcs(v + i);
        acc += (f.x + f.y) + (f.z + f.w);
    }
    if (t < n - vectors * 4) acc += x[vectors * 4 + t];
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence();
    }
    if (!last_block_to_finish()) return;
    float total = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) total += __ldcg(&partials[b]);
    total = block_sum(total);
    if (threadIdx.x == 0) *out = total;
}

enum { ONE_BLOCK, ONE_PER_SM, EIGHT_PER_SM };

template <int GRID>
static void run_float_sum(Run *r)
{
    if ((uintptr_t)r->in % 16) {
        r->refuse = NOT_16_ALIGNED;
        return;
    }
    unsigned blocks = GRID == ONE_BLOCK ? 1u : GRID == ONE_PER_SM ? (unsigned)r->sm_count : 8u * r->sm_count;
    float_sum<<<blocks, BLOCK>>>(r->in, r->n, r->out, r->partials);
    LAUNCH_CHECK("float_sum");
    /* A thread's vectors, the pairs inside one, the tail; the block's tree; then the blocks' sums: a thread's
     * share of them and the last block's tree. */
    uint64_t threads = (uint64_t)blocks * BLOCK;
    r->chain.serial = (double)((r->n / 4 + threads - 1) / threads) + 2 + 1 + (blocks > 1 ? (blocks + BLOCK - 1) / BLOCK : 0);
    r->chain.tree = blocks > 1 ? 2 * BLOCK_SUM_LEVELS : BLOCK_SUM_LEVELS;
}

/* ---- 2. integers are associative: fixed point ------------------------------------------------- */

/* Data on a grid of 2^-24 (the bench's data: multiples of 2^-23 below 2 in magnitude) are integers in
 * units of 2^-24; int64 adds them exactly in any order. The total becomes a float in one rounding
 * (__ll2float_rn) and a scaling by 2^-24 (exact). A value off the grid, or data whose sum could leave
 * int64, cannot be held: the launcher refuses them, which is why this is not the general method. */
#define FIXED_UNIT 0x1p24f
__device__ long long fixed_total; /* 0 before every launch: the last block resets it */

__global__ void __launch_bounds__(BLOCK) fixed_point_sum(const float *x, uint64_t n, float *out)
{
    const float4 *v = reinterpret_cast<const float4 *>(x);
    uint64_t vectors = n / 4, t = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
    long long acc = 0;
    for (uint64_t i = t; i < vectors; i += (uint64_t)gridDim.x * BLOCK) {
        float4 f = __ldcs(v + i);
        acc += __float2ll_rn(f.x * FIXED_UNIT) + __float2ll_rn(f.y * FIXED_UNIT) +
               __float2ll_rn(f.z * FIXED_UNIT) + __float2ll_rn(f.w * FIXED_UNIT);
    }
    if (t < n - vectors * 4) acc += __float2ll_rn(x[vectors * 4 + t] * FIXED_UNIT);
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
        atomicAdd((unsigned long long *)&fixed_total, (unsigned long long)acc);
        __threadfence();
    }
    if (last_block_to_finish() && threadIdx.x == 0) {
        cuda::atomic_ref<long long, cuda::thread_scope_device> total(fixed_total);
        *out = __ll2float_rn(total.exchange(0, cuda::memory_order_relaxed)) / FIXED_UNIT;
    }
}

/* Whether the host's copy of the input is on the grid, with sum|x| 2^24 far inside int64. The launcher
 * runs for every timed run, and a scan of the input then would be timed: the answer is kept for the input
 * it was asked of (its address, N and 257 values spread over it; other data there change those). */
static const char *fixed_point_refusal(const float *x, uint64_t n)
{
    static const float *seen;
    static uint64_t seen_n;
    static float seen_sample[257];
    static const char *why;
    float sample[257];
    for (int k = 0; k < 257; k++) sample[k] = x[(n - 1) * k / 256];
    if (x == seen && n == seen_n && !memcmp(sample, seen_sample, sizeof sample)) return why;
    memcpy(seen_sample, sample, sizeof sample);
    double abs_sum = 0.0;
    int on_grid = 1;
    for (uint64_t i = 0; i < n && on_grid; i++) {
        float scaled = x[i] * FIXED_UNIT;
        on_grid = isfinite(scaled) && scaled == truncf(scaled);
        abs_sum += fabsf(x[i]);
    }
    seen = x, seen_n = n;
    why = !on_grid ? "a value is not a multiple of 2^-24: fixed point in units of 2^-24 cannot hold it exactly"
        : abs_sum * FIXED_UNIT >= 0x1p62 ? "sum|x| 2^24 reaches 2^62: the int64 total could overflow" : NULL;
    return why;
}

static void run_fixed_point(Run *r)
{
    if ((uintptr_t)r->in % 16) {
        r->refuse = NOT_16_ALIGNED;
        return;
    }
    if ((r->refuse = fixed_point_refusal(r->host_in, r->n))) return;
    unsigned blocks = grid_for(r->n / 4 + 1, BLOCK * UNROLL, "fixed_point_sum");
    if (blocks > 8u * r->sm_count) blocks = 8u * r->sm_count;
    fixed_point_sum<<<blocks, BLOCK>>>(r->in, r->n, r->out);
    LAUNCH_CHECK("fixed_point_sum");
}

/* ---- 3, 4 and 5: exact_sum.cuh ------------------------------------------------------------------ */

/* The grid of a kernel of exact_sum.cuh (exact_grid). Its blocks per SM are asked once (*per_sm, the
 * caller's): the query is host time, and a launcher's host time is inside the timed region. */
template <typename KernelFn>
static unsigned digits_grid(Run *r, KernelFn kernel, int *per_sm, uint64_t vectors, unsigned per_thread)
{
    if (*per_sm == 0) CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, BLOCK, 0));
    return exact_grid(*per_sm, r->sm_count, vectors, per_thread);
}

static void run_digits(Run *r)
{
    if ((uintptr_t)r->in % 16) {
        r->refuse = NOT_16_ALIGNED;
        return;
    }
    static int per_sm;
    unsigned blocks = digits_grid(r, digits_sum, &per_sm, r->n / 4 + 1, 1);
    digits_sum<<<blocks, BLOCK>>>(r->in, r->n, r->out, (double *)r->partials);
    LAUNCH_CHECK("digits_sum");
}

template <typename T>
static void run_windows(Run *r)
{
    if ((uintptr_t)r->data % sizeof(T)) {
        r->refuse = "the input is not aligned to its element size";
        return;
    }
    static int per_sm;
    unsigned blocks = digits_grid(r, window_sum<T, BLOCK>, &per_sm, r->n * sizeof(T) / 16 + 1, UNROLL);
    window_sum<T, BLOCK><<<blocks, BLOCK>>>((const T *)r->data, r->n, r->out, (double *)r->partials);
    LAUNCH_CHECK("window_sum");
}

static void run_windows_f64(Run *r)
{
    if ((uintptr_t)r->data % sizeof(double)) {
        r->refuse = "the input is not aligned to its element size";
        return;
    }
    static int per_sm;
    unsigned blocks = digits_grid(r, window_sum_f64<BLOCK>, &per_sm, r->n / 2 + 1, UNROLL);
    if (r->n >= (uint64_t)blocks * VALUES_PER_BLOCK64) {
        r->refuse = "more than 2^29 values a block: the block's digits could overflow";
        return;
    }
    window_sum_f64<BLOCK><<<blocks, BLOCK>>>((const double *)r->data, r->n, (double *)r->out, r->partials);
    LAUNCH_CHECK("window_sum_f64");
}

/* CUB's own answers to order, in a CCCL newer than CUDA 13.0's (make CCCL_HOME=/path, README): DeviceReduce
 * with an execution environment that requires a determinism, found at compile time. gpu_to_gpu: the same
 * bits on every GPU (a reproducible floating-point accumulator, not exactly rounded); not_guaranteed: the
 * blocks' sums joined by atomics, in any order. The check takes CUB's ordinary shape (chain_cub_reduce),
 * which the accumulator's error stays within, and for the atomics a chain through every block of the
 * largest grid that shape allows. */
#ifdef CUB_DETERMINISM
static void run_cub_gpu_to_gpu(Run *r)
{
    CUDA_CHECK(cub::DeviceReduce::Reduce(r->in, r->out, (int64_t)r->n, cuda::std::plus<>{}, 0.0f,
                                         cuda::execution::require(cuda::execution::determinism::gpu_to_gpu)));
    r->chain = chain_cub_reduce(r->n, r->sm_count);
}

static void run_cub_not_guaranteed(Run *r)
{
    CUDA_CHECK(cub::DeviceReduce::Reduce(r->in, r->out, (int64_t)r->n, cuda::std::plus<>{}, 0.0f,
                                         cuda::execution::require(cuda::execution::determinism::not_guaranteed)));
    r->chain = chain_cub_reduce(r->n, r->sm_count);
    r->chain.atomic = fmin(ceil(r->n / 4096.0), 40.0 * r->sm_count);
}

/* gpu_to_gpu on fp64 input, in fp64: bounded as CUB's fp64 sum (common/cub.cu), every addition in fp64 and
 * tiles of 8 items a thread. */
static void run_cub_gpu_to_gpu_f64(Run *r)
{
    CUDA_CHECK(cub::DeviceReduce::Reduce((const double *)r->data, (double *)r->out, (int64_t)r->n, cuda::std::plus<>{},
                                         0.0, cuda::execution::require(cuda::execution::determinism::gpu_to_gpu)));
    r->chain = chain_cub_reduce(r->n, r->sm_count);
    r->chain.acc_bits = 53;
    r->chain.serial += 8.0;
}
#endif

/* Why make stage-13 tree cannot record an exact kernel. */
#define EXACT_NO_TREE "its sum is exact, the same in any order: there is no tree to draw"

static const Kernel kernels[] = {
    {"float_one_block", "1. order matters: fp32, each thread's vectors a grid apart, 1 block",
     run_float_sum<ONE_BLOCK>},
    {"float_block_per_sm", "1. the same kernel with a block per SM", run_float_sum<ONE_PER_SM>},
    {"float_8_blocks_per_sm", "1. the same kernel with 8 blocks per SM", run_float_sum<EIGHT_PER_SM>},
    {"fixed_point", "2. int64 in units of 2^-24: exact for data on that grid, refused otherwise", run_fixed_point,
     .acc = ACC_EXACT_SUM, .no_tree = EXACT_NO_TREE},
    {"digits", "3. every value into 32-bit digits of 2^-149 in shared memory, rounded once", run_digits,
     .acc = ACC_EXACT_SUM, .no_tree = EXACT_NO_TREE},
    {"windows_f32", "4. two exact fp64 windows in front of the digits, 16-byte loads", run_windows<float>,
     .dtype = DT_F32, .acc = ACC_EXACT_SUM, .no_tree = EXACT_NO_TREE},
    {"windows_f16", "4. the same for fp16 input", run_windows<__half>, .dtype = DT_F16, .acc = ACC_EXACT_SUM,
     .no_tree = EXACT_NO_TREE},
    {"windows_bf16", "4. the same for bf16 input", run_windows<__nv_bfloat16>, .dtype = DT_BF16,
     .acc = ACC_EXACT_SUM, .no_tree = EXACT_NO_TREE},
    {"windows_f64", "5. fp64 input: three exact fp64 windows in front of digits of 2^-1074", run_windows_f64,
     .dtype = DT_F64, .acc = ACC_EXACT_SUM, .no_tree = EXACT_NO_TREE},
#ifdef CUB_DETERMINISM
    {"cub_gpu_to_gpu_f64", "CUB's DeviceReduce requiring gpu_to_gpu determinism, fp64 (CCCL_HOME)",
     run_cub_gpu_to_gpu_f64, .dtype = DT_F64, .acc = ACC_F64, .no_tree = CUB_UNRECORDED},
    {"cub_gpu_to_gpu", "CUB's DeviceReduce requiring gpu_to_gpu determinism (CCCL_HOME)", run_cub_gpu_to_gpu,
     .no_tree = CUB_UNRECORDED},
    {"cub_not_guaranteed", "CUB's DeviceReduce requiring no determinism: atomics (CCCL_HOME)", run_cub_not_guaranteed,
     .no_tree = CUB_UNRECORDED},
#endif
};

STAGE("13_exact", kernels, .bench_fills = "shifted wide binades",
      .default_sizes = "2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28,2^30", .charts = {{"bandwidth", OWNS, "f64"}, {"scaling"}},
      .accuracy = "float_8_blocks_per_sm windows_f32");
