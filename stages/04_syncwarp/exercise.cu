/* Exercise 04: the course chapter's v4 in full.
 * The chapter's v4 keeps v3's first add during the load (two elements per thread, half the blocks)
 * and unrolls the last warp. Write reduce_unrolled_warp_two_loads: load and add x[i] and
 * x[i + BLOCK] (i = blockIdx.x * 2 * BLOCK + tid, both checked against n), halve in shared memory
 * down to 64 values, then the last warp done right for Volta and later: volatile shared memory and
 * __syncwarp between reading and writing (see warp_reduce_unrolled in reduce.cu).
 * Hint: copy reduce_unrolled_warp from reduce.cu and change only the load and the launch's grid.
 * Hint: the stub below loads one element per thread, so half of the input is never added.
 * 提示：从 reduce.cu 复制 reduce_unrolled_warp，只改加载和 launch 的网格大小。
 * 提示：下面的桩每个线程只加载一个元素，所以一半的输入从未被加上。 */
#include "common.h"

#define BLOCK 256
#define LOG2_BLOCK 8

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__global__ void reduce_unrolled_warp_two_loads(const float *x, float *out, uint64_t n)
{
    __shared__ float s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * (2 * BLOCK) + tid;
    s_x[tid] = i < n ? x[i] : 0.0f; /* TODO: add x[i + BLOCK] too */
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 0; offset /= 2) { /* TODO: stop at 64 and unroll the last warp */
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, s_x[0]);
}
#endif

static void run_unrolled_warp_two_loads(Run *r)
{
    unsigned blocks = grid_for(r->n, 2 * BLOCK, "reduce_unrolled_warp_two_loads");
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float)));
    reduce_unrolled_warp_two_loads<<<blocks, BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK("reduce_unrolled_warp_two_loads");
    r->shape.serial = 1;
    r->shape.tree = LOG2_BLOCK;
    r->shape.atomic = blocks;
}

static const Kernel kernels[] = {
    {"reduce_unrolled_warp_two_loads", "exercise: chapter v4 with v3's two loads per thread",
     run_unrolled_warp_two_loads},
};

STAGE("04_syncwarp", kernels);
