/* Stage 02: shared memory. Each block loads its slice once into shared memory and reduces it there,
 * with sequential addressing; the per-block partial sums are still finished on the CPU. */
#include "stage.h"
#include "levels.h"

#define BLOCK 256
#define LOG2_BLOCK tree_levels(BLOCK)
#define LEETCUDA_BLOCK 128 /* the LeetCUDA article's block size */

/* LeetCUDA reduce article §3.2, reduce blog §2, course chapter v2. At each step the first `offset`
 * threads add the element `offset` away: the active threads stay contiguous, so whole warps drop out
 * together (no divergence until offset < 32). The article sizes the array with blockDim.x, which does
 * not compile: the size must be a constant, here the template's. LeetCUDA runs it with 128 threads,
 * the blog with 256 (its comment "s = 128" is the first step of 256); the chapter gives no size, and
 * its v3 (below) keeps the blog's 256. */
template <unsigned B>
__global__ void reduce_shared(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[B];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * B + tid;
    s_x[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned offset = B / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_x[0];
}

template <unsigned B>
static void run_shared(Run *r)
{
    unsigned blocks = grid_for(r->n, B, "reduce_shared");
    reduce_shared<B><<<blocks, B>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_shared");
    r->host_partial_count = blocks;
    r->chain.tree = tree_levels(B);
}

/* Course chapter v3: every thread adds two elements, BLOCK apart, while loading. Half as many
 * blocks, and the first level of the tree is done in registers instead of shared memory. */
__global__ void reduce_shared_two_loads(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * (2 * BLOCK) + tid;
    float v = i < n ? x[i] : 0.0f;
    if (i + BLOCK < n) v += x[i + BLOCK];
    s_x[tid] = v;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_x[0];
}

static void run_shared_two_loads(Run *r)
{
    unsigned blocks = grid_for(r->n, 2 * BLOCK, "reduce_shared_two_loads");
    reduce_shared_two_loads<<<blocks, BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_shared_two_loads");
    r->host_partial_count = blocks;
    r->chain.serial = 1;
    r->chain.tree = LOG2_BLOCK;
}

static const Kernel kernels[] = {
    {"reduce_shared_128", "LeetCUDA reduce §3.2: sequential addressing, 128 threads", run_shared<LEETCUDA_BLOCK>},
    {"reduce_shared", "reduce blog §2 / course chapter v2: sequential addressing, 256 threads", run_shared<BLOCK>},
    {"reduce_shared_two_loads", "course chapter v3: first add during the load, half the blocks",
     run_shared_two_loads},
};

STAGE("02_shared", kernels, .trees = {{"reduce_shared"}});
