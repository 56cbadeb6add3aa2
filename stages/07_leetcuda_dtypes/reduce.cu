/* Stage 07: LeetCUDA's block_all_reduce_sum kernels, for every input type of the LeetCUDA reduce
 * article (fp32, fp16, bf16, fp8 e4m3/e5m2, int8), accumulating in the input's own precision or in
 * fp32 (int32 for int8), one element per thread or a pack of 2 to 16 per 16-byte load.
 * The article writes one kernel per (input, pack, accumulator); here one template covers them all,
 * with the article's structure: one tile per block, warp shuffles (xor), the warps' sums through
 * shared memory, one atomicAdd per block, the block size a template parameter. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <stdio.h>

#include "common.h"

#define NUM_THREADS 256
#define FULL_MASK 0xffffffffu

/* Warp reduce (xor butterfly): every lane ends with the sum of the warp, in T's precision. */
template <typename T>
__device__ __forceinline__ T warp_reduce_sum(T v)
{
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) v = v + __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

/* Block reduce: each warp's sum to shared memory, then warp 0 adds them. Warp 0 reduces all 32 lanes
 * with zeros past NUM_WARPS, so any NUM_WARPS is right; the article shuffles with width NUM_WARPS,
 * which is wrong unless NUM_WARPS is a power of two. The sum is valid in thread 0. */
template <int BLOCK, typename T>
__device__ __forceinline__ T block_reduce_sum(T v)
{
    constexpr int NUM_WARPS = (BLOCK + 31) / 32;
    __shared__ T warp_sums[NUM_WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_reduce_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_reduce_sum(lane < NUM_WARPS ? warp_sums[lane] : T(0.0f));
    return v;
}

/* The block's sum is added to the fp32 result (int32 for int8), as the article does. */
__device__ __forceinline__ void atomic_add_result(float *y, float s) { atomicAdd(y, s); }
__device__ __forceinline__ void atomic_add_result(float *y, __half s) { atomicAdd(y, __half2float(s)); }
__device__ __forceinline__ void atomic_add_result(float *y, __nv_bfloat16 s) { atomicAdd(y, __bfloat162float(s)); }
__device__ __forceinline__ void atomic_add_result(float *y, int s) { atomicAdd((int *)y, s); }

/* PACK consecutive elements read with one load: 16 bytes for f32x4, f16x8, bf16x8, fp8x16, i8x16. */
template <typename T, int PACK>
struct alignas(sizeof(T) * PACK) Pack {
    T v[PACK];
};

/* One tile of BLOCK * PACK elements per block; thread t reads elements [PACK t, PACK t + PACK) of it
 * and adds them in Acc. Unlike the article, nothing is read past n: a thread whose pack would cross
 * n reads the elements before n one by one (the tail when n is not a multiple of PACK). */
template <int BLOCK, typename In, int PACK, typename Acc>
__global__ void block_all_reduce_sum(const In *x, float *y, uint64_t n)
{
    uint64_t i = ((uint64_t)blockIdx.x * BLOCK + threadIdx.x) * PACK;
    Acc sum = Acc(0.0f);
    if (i + PACK <= n) {
        Pack<In, PACK> p = *reinterpret_cast<const Pack<In, PACK> *>(x + i);
#pragma unroll
        for (int k = 0; k < PACK; k++) sum = sum + static_cast<Acc>(p.v[k]);
    } else {
        for (uint64_t j = i; j < n; j++) sum = sum + static_cast<Acc>(x[j]);
    }
    sum = block_reduce_sum<BLOCK>(sum);
    if (threadIdx.x == 0) atomic_add_result(y, sum);
}

/* Significand bits of the accumulator, for the error bound (host.h: 0 = fp32). */
static int acc_bits(float) { return 0; }
static int acc_bits(__half) { return 11; }
static int acc_bits(__nv_bfloat16) { return 8; }
static int acc_bits(int) { return ACC_EXACT; }

template <typename In, int PACK, typename Acc>
static void run_block_all_reduce(Run *r)
{
    /* A pack is read with one load, which must be aligned to its size: refuse an input that is not
     * (--offset), as the article's kernels would fault on it. */
    if ((uintptr_t)r->data % sizeof(Pack<In, PACK>)) {
        static char why[96];
        snprintf(why, sizeof why, "the input is not %d-byte aligned, as its packed loads need",
                 (int)sizeof(Pack<In, PACK>));
        r->refuse = why;
        return;
    }
    uint64_t tile = (uint64_t)NUM_THREADS * PACK;
    unsigned blocks = grid_for(r->n, tile, "block_all_reduce_sum");
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float))); /* the atomics add onto a zero */
    block_all_reduce_sum<NUM_THREADS, In, PACK, Acc><<<blocks, NUM_THREADS>>>((const In *)r->data, r->out, r->n);
    LAUNCH_CHECK("block_all_reduce_sum");
    r->shape.serial = PACK;
    r->shape.tree = 5 + 5;
    r->shape.atomic = blocks;
    r->shape.acc_bits = acc_bits(Acc());
    r->shape.span = (double)tile;
}

#define SRC "LeetCUDA reduce: block_all_reduce_sum_"
typedef __half f16;
typedef __nv_bfloat16 bf16;
typedef __nv_fp8_e4m3 e4m3;
typedef __nv_fp8_e5m2 e5m2;

static const Kernel kernels[] = {
    {"f32_f32", SRC "f32_f32_kernel", run_block_all_reduce<float, 1, float>, .dtype = DT_F32, .acc = ACC_F32},
    {"f32x4_f32", SRC "f32x4_f32_kernel (float4 loads)", run_block_all_reduce<float, 4, float>,
     .dtype = DT_F32, .acc = ACC_F32},
    {"f16_f16", SRC "f16_f16_kernel", run_block_all_reduce<f16, 1, f16>, .dtype = DT_F16, .acc = ACC_F16},
    {"f16_f32", SRC "f16_f32_kernel", run_block_all_reduce<f16, 1, float>, .dtype = DT_F16, .acc = ACC_F32},
    {"f16x2_f16", SRC "f16x2_f16_kernel", run_block_all_reduce<f16, 2, f16>, .dtype = DT_F16, .acc = ACC_F16},
    {"f16x2_f32", SRC "f16x2_f32_kernel", run_block_all_reduce<f16, 2, float>, .dtype = DT_F16, .acc = ACC_F32},
    {"f16x8_pack_f16", SRC "f16x8_pack_f16_kernel (16-byte loads)", run_block_all_reduce<f16, 8, f16>,
     .dtype = DT_F16, .acc = ACC_F16},
    {"f16x8_pack_f32", SRC "f16x8_pack_f32_kernel (16-byte loads)", run_block_all_reduce<f16, 8, float>,
     .dtype = DT_F16, .acc = ACC_F32},
    {"bf16_bf16", SRC "bf16_bf16_kernel", run_block_all_reduce<bf16, 1, bf16>, .dtype = DT_BF16, .acc = ACC_BF16},
    {"bf16_f32", SRC "bf16_f32_kernel", run_block_all_reduce<bf16, 1, float>, .dtype = DT_BF16, .acc = ACC_F32},
    {"bf16x2_bf16", SRC "bf16x2_bf16_kernel", run_block_all_reduce<bf16, 2, bf16>, .dtype = DT_BF16, .acc = ACC_BF16},
    {"bf16x2_f32", SRC "bf16x2_f32_kernel", run_block_all_reduce<bf16, 2, float>, .dtype = DT_BF16, .acc = ACC_F32},
    {"bf16x8_pack_bf16", SRC "bf16x8_pack_bf16_kernel (16-byte loads)", run_block_all_reduce<bf16, 8, bf16>,
     .dtype = DT_BF16, .acc = ACC_BF16},
    {"bf16x8_pack_f32", SRC "bf16x8_pack_f32_kernel (16-byte loads)", run_block_all_reduce<bf16, 8, float>,
     .dtype = DT_BF16, .acc = ACC_F32},
    {"fp8_e4m3_f16", SRC "fp8_e4m3_f16_kernel", run_block_all_reduce<e4m3, 1, f16>,
     .dtype = DT_FP8_E4M3, .acc = ACC_F16},
    {"fp8_e4m3x16_pack_f16", SRC "fp8_e4m3x16_pack_f16_kernel (16-byte loads)", run_block_all_reduce<e4m3, 16, f16>,
     .dtype = DT_FP8_E4M3, .acc = ACC_F16},
    {"fp8_e5m2_f16", SRC "fp8_e5m2_f16_kernel", run_block_all_reduce<e5m2, 1, f16>,
     .dtype = DT_FP8_E5M2, .acc = ACC_F16},
    {"fp8_e5m2x16_pack_f16", SRC "fp8_e5m2x16_pack_f16_kernel (16-byte loads)", run_block_all_reduce<e5m2, 16, f16>,
     .dtype = DT_FP8_E5M2, .acc = ACC_F16},
    {"i8_i32", SRC "i8_i32_kernel", run_block_all_reduce<int8_t, 1, int>, .dtype = DT_I8, .acc = ACC_I32},
    {"i8x16_pack_i32", SRC "i8x16_pack_i32_kernel (16-byte loads)", run_block_all_reduce<int8_t, 16, int>,
     .dtype = DT_I8, .acc = ACC_I32},
};

/* Default sizes: the article's benchmark grid, S, K in {1024, 2048, 4096}, N = S * K. Checked at sizes
 * around the packs of 2, 8 and 16 elements. */
STAGE("07_leetcuda_dtypes", kernels,
      .sizes = "1024x1024,1024x2048,1024x4096,2048x1024,2048x2048,2048x4096,4096x1024,4096x2048,4096x4096",
      .check_sizes = "1,7,8,9,15,16,17,1000003,2^24+3", .charts = "bandwidth+ scaling roofline dtypes+");
