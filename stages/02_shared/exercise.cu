/* Exercise 02: four loads per thread.
 * reduce_shared_two_loads (reduce.cu, the course chapter's v3) adds two elements, BLOCK apart, while
 * loading, and launches half the blocks. Write reduce_shared_four_loads: four elements, BLOCK apart,
 * a quarter of the blocks. Every load must be checked against n. Does it double the bandwidth again?
 * Hint: i = blockIdx.x * (4 * BLOCK) + tid; add x[i + k * BLOCK] for k = 0..3 when i + k * BLOCK < n.
 * Hint: the stub below loads only the first of the four elements.
 * 提示：i = blockIdx.x * (4 * BLOCK) + tid；当 i + k * BLOCK < n 时，对 k = 0..3 累加 x[i + k * BLOCK]。
 * 提示：下面的桩只加载了四个元素中的第一个。 */
#include "stage.h"
#include "levels.h"

#define BLOCK 256
#define LOG2_BLOCK tree_levels(BLOCK)

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__global__ void reduce_shared_four_loads(const float *x, float *partials, uint64_t n)
{
    __shared__ float s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * (4 * BLOCK) + tid;
    s_x[tid] = i < n ? x[i] : 0.0f; /* TODO: the other three elements */
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_x[0];
}
#endif

static void run_shared_four_loads(Run *r)
{
    unsigned blocks = grid_for(r->n, 4 * BLOCK, "reduce_shared_four_loads");
    reduce_shared_four_loads<<<blocks, BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_shared_four_loads");
    r->host_partial_count = blocks;
    r->chain.serial = 3;
    r->chain.tree = LOG2_BLOCK;
}

static const Kernel kernels[] = {
    {"reduce_shared_four_loads", "exercise: four elements per thread while loading", run_shared_four_loads},
};

STAGE("02_shared", kernels);
