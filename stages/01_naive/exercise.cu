/* Exercise 01: the interleaved tree without the modulo.
 * reduce_interleaved (reduce.cu) picks its working threads with tid % (2*s) == 0 (an AND: nvcc unrolls
 * the loop, so 2*s is a constant power of two). The working threads are spread over the block: up to
 * s = 16 every warp has working lanes (half of them at s = 1, one at s = 16) and runs the level; from
 * s = 32 only 256/(2*s) threads work (4 at s = 32, in warps 0, 2, 4, 6) and the other warps have none.
 * Write reduce_interleaved_strided: at distance s, thread tid works on index = 2 * s * tid, adding
 * s_x[index + s] into s_x[index] when index < BLOCK. The working threads are now the first ones,
 * contiguous, and whole warps retire early. (Then look at its shared-memory bank conflicts with
 * make stage-01 profile: stage 02 removes them.)
 * Hint: for (unsigned s = 1; s < BLOCK; s *= 2) { unsigned index = 2 * s * tid; if (index < BLOCK) ...; __syncthreads(); }
 * Hint: the stub below only loads the block's slice; the tree is missing, so it sums one element per block.
 * 提示：for (unsigned s = 1; s < BLOCK; s *= 2) { unsigned index = 2 * s * tid; if (index < BLOCK) ...; __syncthreads(); }
 * 提示：下面的桩只加载了线程块负责的那一段；缺少归约树，所以每个线程块只加了一个元素。 */
#include "stage.h"
#include "levels.h"

#define BLOCK 256
#define LOG2_BLOCK tree_levels(BLOCK)

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__global__ void reduce_interleaved_strided(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + tid;
    s_x[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    /* TODO: the tree, with index = 2 * s * tid */
    if (tid == 0) partials[blockIdx.x] = s_x[0];
}
#endif

static void run_interleaved_strided(Run *r)
{
    unsigned blocks = grid_for(r->n, BLOCK, "reduce_interleaved_strided");
    reduce_interleaved_strided<<<blocks, BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_interleaved_strided");
    r->host_partial_count = blocks;
    r->chain.tree = LOG2_BLOCK;
}

static const Kernel kernels[] = {
    {"reduce_interleaved_strided", "exercise: the interleaved tree with index = 2*s*tid", run_interleaved_strided},
};

STAGE("01_naive", kernels);
