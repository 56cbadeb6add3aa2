/* Stage 03: the GPU finishes the sum. Each block reduces its slice in shared memory as in stage 02,
 * then adds its partial sum to the result with one atomicAdd: no copy back, no CPU loop. */
#include "stage.h"
#include "levels.h"

#define BLOCK 128 /* the LeetCUDA article's block size */
#define LOG2_BLOCK tree_levels(BLOCK)

/* LeetCUDA reduce article §3.3: stage 02's reduce_shared_128, with an atomicAdd for the block's sum.
 * The order in which blocks' atomics land changes from run to run, so the last bits of the result can
 * too (the "bits" column). */
__global__ void reduce_shared_atomic(const float *x, float *out, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + tid;
    s_x[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, s_x[0]);
}

static void run_shared_atomic(Run *r)
{
    unsigned blocks = grid_for(r->n, BLOCK, "reduce_shared_atomic");
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float))); /* the atomics add onto a zero */
    reduce_shared_atomic<<<blocks, BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK("reduce_shared_atomic");
    r->chain.tree = LOG2_BLOCK;
    r->chain.atomic = blocks;
}

static const Kernel kernels[] = {
    {"reduce_shared_atomic", "LeetCUDA reduce §3.3: one atomicAdd per block, 128 threads", run_shared_atomic},
};

STAGE("03_atomic", kernels, .trees = {{"reduce_shared_atomic"}});
