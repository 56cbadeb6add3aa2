/* Exercise 07: f16x8_pack_f32 beyond one tile per block.
 * With one tile per block, f16x8_pack_f32 issues one 16-byte load per thread and stays below CUB
 * (see this stage's README). Write f16x8_pack_f32_gridstride: a grid of 8 blocks per SM, each thread
 * walking the packs of 8 halves in grid-sized steps (pack j covers halves 8j .. 8j+7), adding them in
 * fp32; the last n % 8 halves one by one; then the block's sum and one atomicAdd, as in reduce.cu.
 * Compare its GB/s with the cub row of the fp16 group.
 * Hint: const uint4 *p = (const uint4 *)x; a uint4 holds 8 halves: reinterpret it as __half2 h[4]
 *       and add __low2float / __high2float of each.
 * Hint: the stub below adds only the tail.
 * 提示：const uint4 *p = (const uint4 *)x；一个 uint4 装着 8 个 half：把它重新解释为 __half2 h[4]，把每个的 __low2float / __high2float 加起来。
 * 提示：下面的桩只加了尾部。 */
#include <cuda_fp16.h>

#include "stage.h"
#include "levels.h"

#define NUM_THREADS 256
#define WARPS (NUM_THREADS / 32)
#define FULL_MASK 0xffffffffu

__device__ float block_sum(float v)
{
    __shared__ float warp_sums[WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(FULL_MASK, v, mask);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = lane < WARPS ? warp_sums[lane] : 0.0f;
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__global__ void f16x8_pack_f32_gridstride(const __half *x, float *y, uint64_t n)
{
    float sum = 0.0f;
    if (blockIdx.x == 0 && threadIdx.x < n % 8) sum += __half2float(x[n / 8 * 8 + threadIdx.x]); /* TODO: the packs */
    sum = block_sum(sum);
    if (threadIdx.x == 0) atomicAdd(y, sum);
}
#endif

static void run_f16x8_pack_f32_gridstride(Run *r)
{
    if ((uintptr_t)r->data % 16) { /* --offset: a pack of 8 halves is one 16-byte load */
        r->refuse = "the input is not 16-byte aligned, as its packed loads need";
        return;
    }
    unsigned blocks = (unsigned)r->sm_count * 8;
    uint64_t needed = (r->n / 8 + NUM_THREADS - 1) / NUM_THREADS;
    if (blocks > needed) blocks = needed ? (unsigned)needed : 1;
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float)));
    f16x8_pack_f32_gridstride<<<blocks, NUM_THREADS>>>((const __half *)r->data, r->out, r->n);
    LAUNCH_CHECK("f16x8_pack_f32_gridstride");
    r->chain.serial = 8.0 * (double)((r->n / 8 + (uint64_t)blocks * NUM_THREADS - 1) / ((uint64_t)blocks * NUM_THREADS)) + 1;
    r->chain.tree = LOG2_WARP + LOG2_WARP;
    r->chain.atomic = blocks;
}

static const Kernel kernels[] = {
    {"f16x8_pack_f32_gridstride", "exercise: f16x8_pack_f32 walking many tiles per block",
     run_f16x8_pack_f32_gridstride, .dtype = DT_F16, .acc = ACC_F32},
};

/* Its text asks for packs of 8 halves, one 16-byte load each. */
STAGE("07_leetcuda_dtypes", kernels, .default_sizes = "4096x4096", .check_sizes = "1,7,8,9,15,16,17,1000003,2^24+3",
      .grade_promises = "vector-loads:f16x8_pack_f32_gridstride");
