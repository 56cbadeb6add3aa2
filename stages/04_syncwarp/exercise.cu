/* Exercise 04: the course chapter's v4.
 * The chapter's v4 is its v3 (stage 02's reduce_shared_two_loads: two elements per thread added while
 * loading, half the blocks) with the last warp unrolled. Write reduce_chapter_v4: load and add x[i]
 * and x[i + BLOCK] (i = blockIdx.x * 2 * BLOCK + tid, both checked against n), halve in shared memory
 * down to 64 values, then let warp 0 finish with warp_reduce_unrolled (given below: the last warp done
 * right for Volta and later), and write the block's sum to partials[blockIdx.x]: the CPU adds them.
 * Hint: start from reduce_shared_two_loads in stages/02_shared/reduce.cu and stop its loop at 64.
 * Hint: the stub below loads one element per thread, so half of the input is never added.
 * 提示：从 stages/02_shared/reduce.cu 中的 reduce_shared_two_loads 出发，让它的循环停在 64。
 * 提示：下面的桩每个线程只加载一个元素，所以一半的输入从未被加上。 */
#include "common.h"

#define BLOCK 256
#define LOG2_BLOCK 8

/* The unrolled last warp's first step reads s[tid + 32]: a block of fewer than 64 threads would read
 * past the values the tree leaves (the course chapter's §7.9 pitfall, and the check it recommends). */
static_assert(BLOCK >= 64, "the unrolled last warp needs a block of at least 64 threads");

/* The last warp, unrolled, for Volta and later: each step reads, waits for the warp, then writes. */
__device__ void warp_reduce_unrolled(volatile TRACED(float) *s, unsigned tid)
{
    float v = s[tid];
    for (unsigned offset = 32; offset > 0; offset /= 2) {
        v += s[tid + offset];
        __syncwarp();
        s[tid] = v;
        __syncwarp();
    }
}

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__global__ void reduce_chapter_v4(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * (2 * BLOCK) + tid;
    s_x[tid] = i < n ? x[i] : 0.0f; /* TODO: add x[i + BLOCK] too */
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 0; offset /= 2) { /* TODO: stop at 64 and unroll the last warp */
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_x[0];
}
#endif

static void run_chapter_v4(Run *r)
{
    unsigned blocks = grid_for(r->n, 2 * BLOCK, "reduce_chapter_v4");
    reduce_chapter_v4<<<blocks, BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_chapter_v4");
    r->host_partials = blocks;
    r->shape.serial = 1;
    r->shape.tree = LOG2_BLOCK;
}

static const Kernel kernels[] = {
    {"reduce_chapter_v4", "exercise: course chapter v4, v3's two loads and the unrolled last warp", run_chapter_v4},
};

STAGE("04_syncwarp", kernels);
