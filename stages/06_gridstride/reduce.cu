/* Stage 06: thread utilisation. In stages 02-05 a thread loads one element and then mostly idles
 * through the tree. Here each thread first adds many elements in registers, so the tree (and the
 * atomic) is paid once per many elements. */
#include "stage.h"
#include "levels.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu
#define LEETCUDA_BLOCK 128 /* the LeetCUDA article's block size */
#define LOG2_LEETCUDA_BLOCK tree_levels(LEETCUDA_BLOCK)

/* LeetCUDA reduce article §3.5: a grid-stride loop, with the article's 128 threads. The grid is sized
 * from the machine (blocks_per_sm), not from N; each thread walks the input in steps of the whole
 * grid, then the block reduces as in stage 05. The article writes per-block partials for the CPU;
 * with this few blocks one atomicAdd each (stage 03) is cheaper than a copy back. */
__global__ void reduce_gridstride(const float *x, float *out, uint64_t n)
{
    __shared__ TRACED(float) s_x[LEETCUDA_BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t stride = (uint64_t)gridDim.x * LEETCUDA_BLOCK;
    float sum = 0.0f;
    for (uint64_t i = (uint64_t)blockIdx.x * LEETCUDA_BLOCK + tid; i < n; i += stride) sum += TRACED_LD(x[i]);
    s_x[tid] = sum;
    __syncthreads();
    for (unsigned offset = LEETCUDA_BLOCK / 2; offset >= 32; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid < 32) {
        float v = s_x[tid];
        for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
        if (tid == 0) atomicAdd(out, v);
    }
}

static void run_gridstride(Run *r)
{
    unsigned blocks = (unsigned)r->sm_count * r->blocks_per_sm;
    uint64_t needed = (r->n + LEETCUDA_BLOCK - 1) / LEETCUDA_BLOCK;
    if (blocks > needed) blocks = (unsigned)needed; /* no block without work */
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float)));
    reduce_gridstride<<<blocks, LEETCUDA_BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK("reduce_gridstride");
    r->chain.serial = (double)((r->n + (uint64_t)blocks * LEETCUDA_BLOCK - 1) / ((uint64_t)blocks * LEETCUDA_BLOCK));
    r->chain.tree = LOG2_LEETCUDA_BLOCK;
    r->chain.atomic = blocks;
}

/* The block's sum as in chapter v5 (stage 05): shuffle within each warp, warp sums through shared
 * memory, warp 0 adds them and does the block's one atomicAdd. Both shuffle trees span a whole warp,
 * LOG2_WARP levels each (the second's lanes past WARPS add zeros). */
__device__ void block_sum_atomic(float v, float *out)
{
    __shared__ TRACED(float) warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < WARPS ? warp_sums[lane] : 0.0f;
        for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
        if (lane == 0) atomicAdd(out, v);
    }
}

/* Reduce blog §5: PER_THREAD elements per thread, a compile-time constant, so the loop is unrolled
 * and its PER_THREAD loads are all in flight at once. The elements of one step are BLOCK apart, so a
 * warp's loads stay coalesced. Then the block reduces as chapter v5 does (shuffle first). */
template <int PER_THREAD>
__global__ void reduce_per_thread(const float *x, float *out, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * BLOCK * PER_THREAD + threadIdx.x;
    float v = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++)
        if (i + (uint64_t)k * BLOCK < n) v += TRACED_LD(x[i + (uint64_t)k * BLOCK]);
    block_sum_atomic(v, out);
}

template <int PER_THREAD>
static void run_per_thread(Run *r)
{
    unsigned blocks = grid_for(r->n, (uint64_t)BLOCK * PER_THREAD, "reduce_per_thread");
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float)));
    reduce_per_thread<PER_THREAD><<<blocks, BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK("reduce_per_thread");
    r->chain.serial = PER_THREAD;
    r->chain.tree = LOG2_WARP + LOG2_WARP;
    r->chain.atomic = blocks;
}

/* Both ideas together: a grid of exactly as many blocks as the GPU holds at once (from the occupancy
 * calculator, so no block waits for a second wave), each thread walking the input in grid-sized
 * steps and taking PER_THREAD elements per step, all loaded before they are added. One load in
 * flight per thread (reduce_gridstride) is too few to cover DRAM latency; PER_THREAD are enough. */
template <int PER_THREAD>
__global__ void reduce_gridstride_per_thread(const float *x, float *out, uint64_t n)
{
    uint64_t step = (uint64_t)gridDim.x * BLOCK * PER_THREAD;
    float v = 0.0f;
    for (uint64_t i = (uint64_t)blockIdx.x * BLOCK * PER_THREAD + threadIdx.x; i < n; i += step) {
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++)
            if (i + (uint64_t)k * BLOCK < n) v += TRACED_LD(x[i + (uint64_t)k * BLOCK]);
    }
    block_sum_atomic(v, out);
}

template <int PER_THREAD>
static void run_gridstride_per_thread(Run *r)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_gridstride_per_thread<PER_THREAD>,
                                                             BLOCK, 0));
    uint64_t per_block = (uint64_t)BLOCK * PER_THREAD;
    uint64_t blocks = (uint64_t)r->sm_count * per_sm;
    if (blocks > (r->n + per_block - 1) / per_block) blocks = (r->n + per_block - 1) / per_block;
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float)));
    reduce_gridstride_per_thread<PER_THREAD><<<(unsigned)blocks, BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK("reduce_gridstride_per_thread");
    r->chain.serial = (double)((r->n + blocks * BLOCK - 1) / (blocks * BLOCK));
    r->chain.tree = LOG2_WARP + LOG2_WARP;
    r->chain.atomic = (double)blocks;
}

static const Kernel kernels[] = {
    {"reduce_gridstride_x1", "LeetCUDA reduce §3.5: grid-stride loop, 128 threads, 1 block per SM", run_gridstride, .blocks_per_sm = 1},
    {"reduce_gridstride_x2", "LeetCUDA reduce §3.5: grid-stride loop, 128 threads, 2 blocks per SM", run_gridstride, .blocks_per_sm = 2},
    {"reduce_gridstride_x4", "LeetCUDA reduce §3.5: grid-stride loop, 128 threads, 4 blocks per SM", run_gridstride, .blocks_per_sm = 4},
    {"reduce_gridstride_x8", "LeetCUDA reduce §3.5: grid-stride loop, 128 threads, 8 blocks per SM", run_gridstride, .blocks_per_sm = 8},
    {"reduce_gridstride_x16", "LeetCUDA reduce §3.5: grid-stride loop, 128 threads, 16 blocks per SM", run_gridstride, .blocks_per_sm = 16},
    {"reduce_gridstride_x32", "LeetCUDA reduce §3.5: grid-stride loop, 128 threads, 32 blocks per SM", run_gridstride, .blocks_per_sm = 32},
    {"reduce_per_thread_4", "reduce blog §5: 4 elements per thread (template)", run_per_thread<4>},
    {"reduce_per_thread_8", "reduce blog §5: 8 elements per thread (template)", run_per_thread<8>},
    {"reduce_per_thread_16", "reduce blog §5: 16 elements per thread (template)", run_per_thread<16>},
    {"reduce_gridstride_per_thread_8", "§3.5 + blog §5: full-occupancy grid, 8 loads in flight per thread",
     run_gridstride_per_thread<8>},
    {"reduce_gridstride_per_thread_16", "§3.5 + blog §5: full-occupancy grid, 16 loads in flight per thread",
     run_gridstride_per_thread<16>},
};

/* Its best kernel is drawn again beside stages 08 and 10; its 16-loads kernel is one of the flush check's probes. */
STAGE("06_gridstride", kernels, .flush_probes = {{"reduce_gridstride_per_thread_16", "reduce_gridstride_per_thread", "ordinary"}},
      .charts = {{"bandwidth", OWNS}, {"scaling"}, {"roofline"}, {"library"}},
      .trees = {{"reduce_gridstride_per_thread_16", "2^24"}});
