/* Exercise 05 (the course chapter's §7.6): two rewrites of v5 in the one-load, atomic-finish form of
 * reduce_warp_shuffle in reduce.cu (the chapter's exact v5 is reduce_chapter_v5 there).
 * 1. reduce_max_shuffle: the maximum instead of the sum. Replace + by fmaxf in both shuffle trees, and
 *    combine the blocks with an atomic max. CUDA has no float atomicMax. The stage's demo (demo.cu)
 *    builds one from an atomicCAS loop; here build it from the integer atomics on the float's bits,
 *    without atomicCAS: IEEE floats of one sign order like their bit patterns, so atomicMax on int
 *    serves the non-negative values and atomicMin on unsigned the negative ones. The padding past n
 *    must be -INFINITY, not 0. The harness checks the result against the exact maximum.
 * 2. reduce_cg: v5 with cooperative groups. cg::tiled_partition<32>(cg::this_thread_block()) gives the
 *    warp; cg::reduce(warp, v, cg::plus<float>()) replaces the shuffle loop; the warp sums still go
 *    through shared memory (block.sync() for the barrier), and thread 0 does the atomicAdd.
 * Hint: the result starts at -INFINITY for the max (the launcher sets it); see the atomic_max_float
 *       helper declared below and write its body with atomicMax and atomicMin, not atomicCAS.
 * Hint: the stubs below return the first element of each block (max) and only warp 0's sum (cg).
 * 提示：求最大值时结果从 -INFINITY 开始（由 launcher 设置）；参见下面声明的 atomic_max_float 辅助函数，用 atomicMax 和 atomicMin 写出它的函数体，不用 atomicCAS。
 * 提示：下面的桩返回每个线程块的第一个元素（max），以及只有 warp 0 的和（cg）。 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <math.h>

#include "stage.h"
#include "levels.h"

namespace cg = cooperative_groups;

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__device__ void atomic_max_float(float *address, float v)
{
    atomicExch(address, v); /* TODO: a real atomic maximum, from atomicMax and atomicMin on the bits */
}

__global__ void reduce_max_shuffle(const float *x, float *out, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
    float v = i < n ? x[i] : -INFINITY; /* TODO: the two shuffle trees with fmaxf */
    if (threadIdx.x == 0) atomic_max_float(out, v);
}

__global__ void reduce_cg(const float *x, float *out, uint64_t n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (block.thread_rank() == 0) atomicAdd(out, v); /* TODO: the other warps' sums */
}
#endif

static void run_max_shuffle(Run *r)
{
    static const float minus_inf = -INFINITY;
    unsigned blocks = grid_for(r->n, BLOCK, "reduce_max_shuffle");
    CUDA_CHECK(cudaMemcpyAsync(r->out, &minus_inf, sizeof minus_inf, cudaMemcpyHostToDevice));
    reduce_max_shuffle<<<blocks, BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK("reduce_max_shuffle");
}

static void run_cg(Run *r)
{
    unsigned blocks = grid_for(r->n, BLOCK, "reduce_cg");
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float)));
    reduce_cg<<<blocks, BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK("reduce_cg");
    r->chain.tree = LOG2_WARP + LOG2_WARP;
    r->chain.atomic = blocks;
}

static const Kernel kernels[] = {
    {"reduce_max_shuffle", "exercise (chapter §7.6): v5 computing the maximum", run_max_shuffle, .op = OP_MAX},
    {"reduce_cg", "exercise (chapter §7.6): v5 with cooperative groups' cg::reduce", run_cg},
};

/* Its text asks for the atomic max from the integer atomics, without atomicCAS. */
STAGE("05_shuffle", kernels, .grade_promises = "no-atomic-cas:reduce_max_shuffle");
