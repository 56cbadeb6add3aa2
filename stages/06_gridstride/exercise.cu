/* Exercise 06: 16-byte loads in the grid-stride loop.
 * reduce_gridstride (reduce.cu) loads one float per step. Write reduce_gridstride_float4: view the
 * input as float4 (cudaMalloc's memory is 256-byte aligned, so x[4j] starts a 16-byte vector), walk the
 * n / 4 vectors with a grid-stride loop adding all four components, then add the last n % 4 floats
 * one by one (whichever thread gets them), and reduce the block as in reduce.cu. One LDG.128 instead
 * of four LDG.32: see make stage-06 sass. How far does it get compared with reduce_gridstride_x8?
 * Hint: const float4 *x4 = (const float4 *)x; for (uint64_t j = first; j < n / 4; j += stride) ...
 * Hint: the tail elements are x[n / 4 * 4 + t] for t < n % 4; the stub below skips them and the vectors.
 * 提示：const float4 *x4 = (const float4 *)x; for (uint64_t j = first; j < n / 4; j += stride) ...
 * 提示：尾部元素是 t < n % 4 时的 x[n / 4 * 4 + t]；下面的桩跳过了它们和所有向量。 */
#include "stage.h"
#include "levels.h"

#define BLOCK 256
#define LOG2_BLOCK tree_levels(BLOCK)
#define FULL_MASK 0xffffffffu

/* The block's sum and its one atomicAdd, as reduce_gridstride in reduce.cu does it. */
__device__ void block_sum_atomic(float sum, float *out)
{
    __shared__ float s_x[BLOCK];
    unsigned tid = threadIdx.x;
    s_x[tid] = sum;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset >= 32; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid < 32) {
        float v = s_x[tid];
        for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
        if (tid == 0) atomicAdd(out, v);
    }
}

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__global__ void reduce_gridstride_float4(const float *x, float *out, uint64_t n)
{
    float sum = 0.0f;
    if (blockIdx.x == 0 && threadIdx.x < n % 4) sum += x[n / 4 * 4 + threadIdx.x]; /* TODO: the float4 loop */
    block_sum_atomic(sum, out);
}
#endif

static void run_gridstride_float4(Run *r)
{
    if ((uintptr_t)r->in % sizeof(float4)) { /* --offset: a float4 load needs 16-byte alignment */
        r->refuse = "the input is not 16-byte aligned, as its float4 loads need";
        return;
    }
    unsigned blocks = (unsigned)r->sm_count * 8;
    uint64_t needed = (r->n / 4 + BLOCK - 1) / BLOCK;
    if (blocks > needed) blocks = needed ? (unsigned)needed : 1;
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float)));
    reduce_gridstride_float4<<<blocks, BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK("reduce_gridstride_float4");
    r->chain.serial = 4.0 * (double)((r->n / 4 + (uint64_t)blocks * BLOCK - 1) / ((uint64_t)blocks * BLOCK)) + 1;
    r->chain.tree = LOG2_BLOCK;
    r->chain.atomic = blocks;
}

static const Kernel kernels[] = {
    {"reduce_gridstride_float4", "exercise: grid-stride loop with float4 loads and a scalar tail",
     run_gridstride_float4},
};

/* Its text asks for 16-byte loads (float4). */
STAGE("06_gridstride", kernels, .grade_promises = "vector-loads:reduce_gridstride_float4");
