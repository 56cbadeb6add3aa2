/* Exercise 03: finish on the GPU without atomics.
 * reduce_shared_atomic (reduce.cu) adds each block's sum with an atomicAdd: the order of those
 * additions changes from run to run, and so do the last bits of the result. Finish instead with a
 * second launch: the first kernel writes one partial per block (as in stage 02), then one block of
 * BLOCK threads reduces the partials: each thread adds partials tid, tid + BLOCK, tid + 2*BLOCK, ...,
 * then the block's tree, and thread 0 writes the result. The order is fixed: the result is the same,
 * bit for bit, on every run (the "bits" column says "same").
 * Hint: in reduce_partials, loop for (uint64_t i = tid; i < count; i += BLOCK) v += partials[i];
 * Hint: the stub of reduce_partials below writes 0.
 * 提示：在 reduce_partials 中循环 for (uint64_t i = tid; i < count; i += BLOCK) v += partials[i];
 * 提示：下面 reduce_partials 的桩只写入 0。 */
#include "stage.h"
#include "levels.h"

#define BLOCK 256
#define LOG2_BLOCK tree_levels(BLOCK)

__global__ void reduce_block_partials(const float *x, float *partials, uint64_t n)
{
    __shared__ float s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + tid;
    s_x[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_x[0];
}

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__global__ void reduce_partials(const float *partials, float *out, uint64_t count)
{
    (void)partials;
    (void)count;
    if (threadIdx.x == 0) *out = 0.0f; /* TODO */
}
#endif

static void run_two_pass(Run *r)
{
    unsigned blocks = grid_for(r->n, BLOCK, "reduce_block_partials");
    reduce_block_partials<<<blocks, BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_block_partials");
    reduce_partials<<<1, BLOCK>>>(r->partials, r->out, blocks);
    LAUNCH_CHECK("reduce_partials");
    r->chain.serial = (double)((blocks + BLOCK - 1) / BLOCK);
    r->chain.tree = 2 * LOG2_BLOCK;
}

static const Kernel kernels[] = {
    {"reduce_two_pass", "exercise: per-block partials, then one block reduces them (no atomics)", run_two_pass},
};

/* Its text promises the same bits on every run, from a finish without float atomics. */
STAGE("03_atomic", kernels, .grade_promises = "same-bits no-float-atomics:reduce_partials");
