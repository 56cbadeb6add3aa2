/* Stage 10: the libraries. What stages 02-06 wrote by hand, taken from CUB and cooperative groups:
 * the whole reduction in one call, a block or a warp reduced in one line. Then the levels above the
 * block (a thread-block cluster adding its blocks' sums through distributed shared memory, sm_90+,
 * and three ways to finish across the grid) and the accumulator's precision: fp32, fp64 and
 * Kahan-compensated fp32 on the same loop. Every kernel but the first reads the input with stage 06's
 * loop (reduce_gridstride_per_thread_8), so the rows differ only in what the chapter changes. */
#include "stage.h" /* first: the record build (make stage-10 tree) records cooperative groups' own shuffles */
#include "levels.h"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/cub.cuh>

namespace cg = cooperative_groups;

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define PER_THREAD 8 /* loads in flight per thread and step, as in stage 06 */
#define CLUSTER 8    /* blocks per cluster: the largest size every sm_90+ GPU supports */
/* Levels of additions in a block's reduction: shuffles within a warp, then the WARPS warp sums by a
 * WARPS-lane shuffle tree, by a zero-padded 32-lane one, or added one after another by thread 0, as
 * cub::BlockReduce's default algorithm (BLOCK_REDUCE_WARP_REDUCTIONS) does (WARPS - 1 additions). */
#define TREE_CG_BLOCK (LOG2_WARP + tree_levels(WARPS))
#define TREE_TWO_WARPS (LOG2_WARP + LOG2_WARP)
#define TREE_CUB_BLOCK (LOG2_WARP + WARPS - 1)

/* The accumulators of chapter §7.7.4; all of them start at zero and add one value at a time. */
struct F32Sum {
    static constexpr int BITS = 0; /* significand bits of the accumulator, 0: fp32 */
    static constexpr bool COMPENSATED = false;
    float s = 0.0f;
    __device__ void add(float x) { s += x; }
    __device__ float value() const { return s; }
};

struct F64Sum {
    static constexpr int BITS = 53;
    static constexpr bool COMPENSATED = false;
    double s = 0.0;
    __device__ void add(double x) { s += x; }
    __device__ double value() const { return s; }
};

/* Kahan: c holds what the last addition lost (with the opposite sign) and is taken off the next
 * input, so the error stays about 2u sum|x| however many values are added. The compiler must not
 * reassociate (t - s) - y to 0, and nvcc does not. Once the sum is Inf or NaN, (t - s) - y would
 * turn an Inf into NaN: the compensation stops there. Host and device: cpu_kahan_f32 runs it too. */
struct KahanSum {
    static constexpr int BITS = 0;
    static constexpr bool COMPENSATED = true;
    float s = 0.0f, c = 0.0f;
    __host__ __device__ void add(float x)
    {
        float y = x - c;                      /* take off what the last addition gained */
        float t = s + y;
        c = isfinite(t) ? (t - s) - y : 0.0f; /* what this one gained beyond y (0 once t is Inf or NaN) */
        s = t;
    }
    __host__ __device__ float value() const { return s - c; }
};

/* Stage 06's grid-stride loop over fp32 (or int32) elements: PER_THREAD loads per step, BLOCK apart
 * (coalesced), all issued before they are added; elements past n count as zero. */
template <typename Sum, typename T>
__device__ __forceinline__ Sum thread_sum(const T *x, uint64_t n)
{
    Sum acc;
    uint64_t step = (uint64_t)gridDim.x * BLOCK * PER_THREAD;
    for (uint64_t i = (uint64_t)blockIdx.x * BLOCK * PER_THREAD + threadIdx.x; i < n; i += step) {
        T v[PER_THREAD];
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) v[k] = i + (uint64_t)k * BLOCK < n ? x[i + (uint64_t)k * BLOCK] : T(0);
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) acc.add(v[k]);
    }
    return acc;
}

/* As many blocks of `kernel` as the GPU holds at once, fewer when n does not need them all. */
static uint64_t full_grid(const void *kernel, uint64_t n, int sm_count)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0));
    uint64_t blocks = (uint64_t)sm_count * per_sm, needed = (n + BLOCK * PER_THREAD - 1) / (BLOCK * PER_THREAD);
    return blocks < needed ? blocks : needed;
}

/* The additions in thread_sum of the thread with the most elements (block 0, thread 0). */
static double loop_adds(uint64_t n, uint64_t blocks)
{
    uint64_t step = blocks * BLOCK * PER_THREAD;
    return (double)PER_THREAD * (double)((n + step - 1) / step);
}

/* ---- §7.7.1: CUB ----------------------------------------------------------------------------- */

/* The two-call idiom: with no storage, DeviceReduce::Sum only says how many bytes it needs; with them,
 * it reduces. The question and the cudaMalloc happen once per N, in the harness's first run, which is
 * checked but not timed; the timed runs find the storage ready. (It is kept to the end of the program.) */
static void run_cub_device_reduce_sum(Run *r)
{
    static void *temp = NULL;
    static size_t temp_bytes = 0;
    static uint64_t sized_for = 0;
    if (r->n != sized_for) {
        size_t need = 0;
        CUDA_CHECK(cub::DeviceReduce::Sum(NULL, need, r->in, r->out, (int64_t)r->n));
        if (need > temp_bytes || !temp) {
            if (temp) CUDA_CHECK(cudaFree(temp));
            temp_bytes = need ? need : 1;
            CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
        }
        sized_for = r->n;
    }
    size_t bytes = temp_bytes;
    CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, r->in, r->out, (int64_t)r->n));
    LAUNCH_CHECK("cub::DeviceReduce::Sum");
    r->chain = chain_cub_reduce(r->n, r->sm_count); /* the shape of CUB's source (chain.c) */
}

/* The block's sum in one call; it is valid in thread 0 only. */
__global__ void __launch_bounds__(BLOCK) cub_block_reduce(const float *x, uint64_t n, float *out)
{
    __shared__ cub::BlockReduce<float, BLOCK>::TempStorage temp;
    float sum = cub::BlockReduce<float, BLOCK>(temp).Sum(thread_sum<F32Sum>(x, n).value());
    if (threadIdx.x == 0) atomicAdd(out, sum);
}

/* Each warp's sum in one call (valid in its lane 0), the warp sums through shared memory, and warp 0
 * adds them with the same call: the structure of stage 05, the shuffles written by CUB. */
__global__ void __launch_bounds__(BLOCK) cub_warp_reduce(const float *x, uint64_t n, float *out)
{
    __shared__ cub::WarpReduce<float>::TempStorage temp[WARPS];
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float v = cub::WarpReduce<float>(temp[warp]).Sum(thread_sum<F32Sum>(x, n).value());
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = cub::WarpReduce<float>(temp[0]).Sum(lane < WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0) atomicAdd(out, v);
    }
}

/* The int32 accumulator of §7.7.1's WarpScan<int>: integer additions are exact. */
struct I32Sum {
    int s = 0;
    __device__ void add(int x) { s += x; }
    __device__ int value() const { return s; }
};

/* A warp's sum as a by-product of its scan: InclusiveSum's third argument, warp_aggregate, receives
 * the total of the warp's inputs in every lane (CUB broadcasts lane 31's inclusive value with one more
 * shuffle). Lane 0 of each warp adds it with one integer atomicAdd. The constructor takes a
 * TempStorage, one per warp that scans, declared like BlockReduce's; for int on a whole warp CUB
 * scans with shuffles and that storage is empty, but the declaration is still needed. */
__global__ void __launch_bounds__(BLOCK) cub_warp_scan_aggregate(const int *x, uint64_t n, int *out)
{
    __shared__ cub::WarpScan<int>::TempStorage temp[WARPS];
    int inclusive, warp_sum;
    cub::WarpScan<int>(temp[threadIdx.x / 32]).InclusiveSum(thread_sum<I32Sum>(x, n).value(), inclusive, warp_sum);
    if (threadIdx.x % 32 == 0) atomicAdd(out, warp_sum);
}

/* ---- §7.7.2-7.7.3: cooperative groups --------------------------------------------------------- */

/* cg::reduce on a 32-thread tile: the sum arrives in every lane, and there is no mask to get wrong.
 * Each warp then adds its sum with one atomicAdd: no shared memory, no barrier, 8 atomics per block. */
__global__ void __launch_bounds__(BLOCK) cg_reduce_warp_tile(const float *x, uint64_t n, float *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    float v = cg::reduce(warp, thread_sum<F32Sum>(x, n).value(), cg::plus<float>());
    if (warp.thread_rank() == 0) atomicAdd(out, v);
}

/* The whole block with cg: each warp's tile sum into shared memory, block.sync(), then the first
 * 8-thread tile of warp 0 reduces the 8 warp sums, and one atomicAdd per block. cg::reduce does not
 * take the thread_block itself (README: "what the chapter's code gets wrong"). */
__global__ void __launch_bounds__(BLOCK) cg_reduce_block(const float *x, uint64_t n, float *out)
{
    __shared__ TRACED(float) warp_sums[WARPS];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v = cg::reduce(warp, thread_sum<F32Sum>(x, n).value(), cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        cg::thread_block_tile<WARPS> first = cg::tiled_partition<WARPS>(warp);
        if (first.meta_group_rank() == 0) {
            v = cg::reduce(first, float(warp_sums[first.thread_rank()]), cg::plus<float>()); /* the value, not the slot */
            if (first.thread_rank() == 0) atomicAdd(out, v);
        }
    }
}

/* §7.7.2's 16-thread tiles: each warp tile cut in two, cg::reduce on each half (4 shuffle steps
 * instead of 5), the 16 tile sums through shared memory, and one 16-thread tile of warp 0 adds them (4
 * steps instead of cg_reduce_block's 3 for 8 warp sums). A tile cut from a warp tile counts its
 * meta_group_rank() within that warp (0 or 1), so the tile's index in the block takes both ranks. */
#define TILE 16
static_assert(BLOCK / TILE == TILE, "one tile adds the block's tile sums");
__global__ void __launch_bounds__(BLOCK) cg_reduce_tile16(const float *x, uint64_t n, float *out)
{
    __shared__ TRACED(float) tile_sums[BLOCK / TILE];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(warp);
    float v = cg::reduce(tile, thread_sum<F32Sum>(x, n).value(), cg::plus<float>());
    if (tile.thread_rank() == 0) tile_sums[warp.meta_group_rank() * (32 / TILE) + tile.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0 && tile.meta_group_rank() == 0) {
        v = cg::reduce(tile, float(tile_sums[tile.thread_rank()]), cg::plus<float>());
        if (tile.thread_rank() == 0) atomicAdd(out, v);
    }
}

/* The launcher of the kernels above: they end with atomicAdds of per-block (or per-warp) sums, of
 * float or int (the atomics then exact). */
template <typename T>
static void run_atomic(Run *r, void (*kernel)(const T *, uint64_t, T *), const char *name, double tree,
                       int atomics_per_block)
{
    uint64_t blocks = full_grid((const void *)kernel, r->n, r->sm_count);
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(T)));
    kernel<<<(unsigned)blocks, BLOCK>>>((const T *)r->data, r->n, (T *)r->out);
    LAUNCH_CHECK(name);
    r->chain.serial = loop_adds(r->n, blocks);
    r->chain.tree = tree;
    r->chain.atomic = (double)(blocks * atomics_per_block);
}

static void run_cub_block_reduce(Run *r) { run_atomic(r, cub_block_reduce, "cub_block_reduce", TREE_CUB_BLOCK, 1); }
static void run_cub_warp_reduce(Run *r) { run_atomic(r, cub_warp_reduce, "cub_warp_reduce", TREE_TWO_WARPS, 1); }
static void run_cg_reduce_warp_tile(Run *r)
{
    run_atomic(r, cg_reduce_warp_tile, "cg_reduce_warp_tile", LOG2_WARP, WARPS);
}
static void run_cg_reduce_block(Run *r) { run_atomic(r, cg_reduce_block, "cg_reduce_block", TREE_CG_BLOCK, 1); }
static void run_cg_reduce_tile16(Run *r)
{
    run_atomic(r, cg_reduce_tile16, "cg_reduce_tile16", tree_levels(TILE) + tree_levels(BLOCK / TILE), 1);
}
static void run_cub_warp_scan_aggregate(Run *r)
{
    run_atomic(r, cub_warp_scan_aggregate, "cub_warp_scan_aggregate", LOG2_WARP, WARPS);
}

/* ---- §7.8.1: a cluster of blocks, through distributed shared memory (sm_90+) ------------------ */

/* The blocks of a cluster can read each other's shared memory. Each block puts its sum in its own
 * shared memory; after cluster.sync() block 0 of the cluster reads the others' and makes the cluster's
 * one atomicAdd: CLUSTER times fewer atomics on the one address. The second cluster.sync() keeps every
 * block (and its shared memory) alive until block 0 has read it. Compiled for sm_90+ only; the table
 * says so, and the harness never launches it on an older GPU. */
__global__ void __launch_bounds__(BLOCK) cluster_dsmem_reduce(const float *x, uint64_t n, float *out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ cub::BlockReduce<float, BLOCK>::TempStorage temp;
    __shared__ float block_sum;
    cg::cluster_group cluster = cg::this_cluster();
    float v = cub::BlockReduce<float, BLOCK>(temp).Sum(thread_sum<F32Sum>(x, n).value()); /* in thread 0 */
    if (threadIdx.x == 0) block_sum = v;
    cluster.sync();
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        for (unsigned rank = 1; rank < cluster.num_blocks(); rank++) v += *cluster.map_shared_rank(&block_sum, rank);
        atomicAdd(out, v);
    }
    cluster.sync();
#endif
}

static void run_cluster_dsmem_reduce(Run *r)
{
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = CLUSTER;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(CLUSTER);
    config.blockDim = dim3(BLOCK);
    config.attrs = &attr;
    config.numAttrs = 1;
    int clusters = 0; /* clusters resident at once: the grid, as full_grid does for blocks */
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, cluster_dsmem_reduce, &config));
    uint64_t needed = (r->n + (uint64_t)CLUSTER * BLOCK * PER_THREAD - 1) / ((uint64_t)CLUSTER * BLOCK * PER_THREAD);
    uint64_t count = clusters < 1 ? 1 : (uint64_t)clusters < needed ? (uint64_t)clusters : needed;
    config.gridDim = dim3((unsigned)(count * CLUSTER));
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float)));
    CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_dsmem_reduce, (const float *)r->in, r->n, r->out));
    LAUNCH_CHECK("cluster_dsmem_reduce");
    r->chain.serial = loop_adds(r->n, count * CLUSTER) + (CLUSTER - 1);
    r->chain.tree = TREE_CUB_BLOCK;
    r->chain.atomic = (double)count;
}

/* ---- §7.8.1: the grid, three ways to finish ---------------------------------------------------- */

/* The three kernels below share the loop, the block's sum (CUB) written to partials[blockIdx.x] and the
 * finish's arithmetic (add_partials); they differ only in how the grid learns that every block's sum is
 * there. The grid is the same for all three, so they give the same bits, in every run. */
__device__ __forceinline__ void write_block_sum(const float *x, uint64_t n, float *partials)
{
    __shared__ cub::BlockReduce<float, BLOCK>::TempStorage temp;
    float v = cub::BlockReduce<float, BLOCK>(temp).Sum(thread_sum<F32Sum>(x, n).value()); /* in thread 0 */
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

/* One block adds count partials in a fixed order: thread t those at t, t + BLOCK, ..., then CUB the
 * thread sums. The loads bypass L1 (__ldcg), which may hold no other block's writes. */
__device__ __forceinline__ void add_partials(const float *partials, unsigned count, float *out)
{
    __shared__ cub::BlockReduce<float, BLOCK>::TempStorage temp;
    float v = 0.0f;
    for (unsigned b = threadIdx.x; b < count; b += BLOCK) v += __ldcg(&partials[b]);
    v = cub::BlockReduce<float, BLOCK>(temp).Sum(v);
    if (threadIdx.x == 0) *out = v;
}

/* One launch and a grid-wide barrier: after cg::this_grid().sync() every block's sum is written and
 * visible, and block 0 adds them. The barrier waits for every block, so every block must be resident
 * at once: only a cooperative launch (cudaLaunchCooperativeKernel) guarantees that, and refuses a grid
 * that does not fit. */
__global__ void __launch_bounds__(BLOCK) grid_sync_cooperative(const float *x, uint64_t n, float *out, float *partials)
{
    write_block_sum(x, n, partials);
    cg::this_grid().sync();
    if (blockIdx.x == 0) add_partials(partials, gridDim.x, out);
}

/* Blocks of grid_last_block that have written their sum. The last one sets it back to 0, so it is 0
 * before every launch (launches on one stream run one after another): nothing but the kernel is timed. */
__device__ unsigned grid_blocks_done;

/* One launch, no barrier: each block counts itself on grid_blocks_done after its sum, and the block
 * that counts last adds them all (stage 08's deterministic finish). Any grid works: no block waits. */
__global__ void __launch_bounds__(BLOCK) grid_last_block(const float *x, uint64_t n, float *out, float *partials)
{
    __shared__ bool last;
    write_block_sum(x, n, partials);
    if (threadIdx.x == 0) {
        __threadfence(); /* the sum is visible before the count says so */
        last = atomicAdd(&grid_blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence(); /* and the last block sees every other block's sum */
    add_partials(partials, gridDim.x, out);
    if (threadIdx.x == 0) grid_blocks_done = 0;
}

/* Two launches: the end of the first kernel is the grid-wide barrier, and a second kernel of one
 * block adds the sums (the partials stay in L2 between them). */
__global__ void __launch_bounds__(BLOCK) grid_block_sums(const float *x, uint64_t n, float *partials)
{
    write_block_sum(x, n, partials);
}

__global__ void __launch_bounds__(BLOCK) grid_add_partials(const float *partials, unsigned count, float *out)
{
    add_partials(partials, count, out);
}

/* The grid of all three: as many blocks of grid_sync_cooperative as the GPU holds at once (the most
 * its cooperative launch allows), fewer when n does not need them all. */
static unsigned grid_blocks(const Run *r)
{
    return (unsigned)full_grid((const void *)grid_sync_cooperative, r->n, r->sm_count);
}

/* The loop, the block's tree, then the finish: ceil(blocks / BLOCK) partials per thread and a tree. */
static void grid_shape(Run *r, unsigned blocks)
{
    r->chain.serial = loop_adds(r->n, blocks) + (double)((blocks + BLOCK - 1) / BLOCK);
    r->chain.tree = 2 * TREE_CUB_BLOCK;
}

static void run_grid_sync_cooperative(Run *r)
{
    static int supported = -1; /* the device's cudaDevAttrCooperativeLaunch, asked once */
    if (supported < 0) {
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
    }
    if (!supported) {
        r->refuse = "this GPU cannot launch a cooperative kernel (cudaDevAttrCooperativeLaunch is 0)";
        return;
    }
    unsigned blocks = grid_blocks(r);
    const float *x = r->in;
    uint64_t n = r->n;
    float *out = r->out, *partials = r->partials;
    void *args[] = {&x, &n, &out, &partials};
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)grid_sync_cooperative, blocks, BLOCK, args, 0, 0));
    LAUNCH_CHECK("grid_sync_cooperative");
    grid_shape(r, blocks);
}

static void run_grid_last_block(Run *r)
{
    unsigned blocks = grid_blocks(r);
    grid_last_block<<<blocks, BLOCK>>>(r->in, r->n, r->out, r->partials);
    LAUNCH_CHECK("grid_last_block");
    grid_shape(r, blocks);
}

static void run_grid_two_launches(Run *r)
{
    unsigned blocks = grid_blocks(r);
    grid_block_sums<<<blocks, BLOCK>>>(r->in, r->n, r->partials);
    LAUNCH_CHECK("grid_block_sums");
    grid_add_partials<<<1, BLOCK>>>(r->partials, blocks, r->out);
    LAUNCH_CHECK("grid_add_partials");
    grid_shape(r, blocks);
}

/* ---- §7.7.4: the accumulator's precision ------------------------------------------------------ */

/* One kernel for the three accumulators, so that only the accumulator differs: the loop in Sum, the
 * block's sum in Sum's type (CUB), each block's sum written to partials, and the last block to finish
 * adds them in index order with Sum again, then rounds to fp32 once (stage 08's deterministic finish:
 * no fp32 atomic to spoil the fp64 result, the same bits every run). */
template <typename Sum>
__global__ void __launch_bounds__(BLOCK) accumulate(const float *x, uint64_t n, float *out, void *partials,
                                                    unsigned *done)
{
    typedef decltype(Sum().value()) Acc;
    __shared__ typename cub::BlockReduce<Acc, BLOCK>::TempStorage temp;
    __shared__ bool last;
    Acc *sums = (Acc *)partials;
    Acc block = cub::BlockReduce<Acc, BLOCK>(temp).Sum(thread_sum<Sum>(x, n).value());
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = block;
        __threadfence(); /* the sum is visible before the count says so */
        last = atomicAdd(done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    Sum all;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) all.add(__ldcg(&sums[b]));
    Acc total = cub::BlockReduce<Acc, BLOCK>(temp).Sum(all.value());
    if (threadIdx.x == 0) {
        *out = (float)total;
        *done = 0;
    }
}

template <typename Sum>
static void run_accumulate(Run *r)
{
    typedef decltype(Sum().value()) Acc;
    uint64_t blocks = full_grid((const void *)accumulate<Sum>, r->n, r->sm_count);
    unsigned *done = (unsigned *)((Acc *)r->partials + blocks);
    CUDA_CHECK(cudaMemsetAsync(done, 0, sizeof(unsigned)));
    accumulate<Sum><<<(unsigned)blocks, BLOCK>>>(r->in, r->n, r->out, r->partials, done);
    LAUNCH_CHECK("accumulate");
    /* Kahan's loops count as 2 additions each (their error is about 2u sum|x| at any length), plus 1
     * for folding c into the sum; the block trees are not compensated. */
    double finish = Sum::COMPENSATED ? 3 : (double)((blocks + BLOCK - 1) / BLOCK);
    r->chain.serial = (Sum::COMPENSATED ? 3 : loop_adds(r->n, blocks)) + finish;
    r->chain.tree = 2 * TREE_CUB_BLOCK;
    r->chain.acc_bits = Sum::BITS;
    r->chain.atomic = Sum::BITS != 0 ? 1 : 0; /* fp64: the one rounding to the fp32 result */
}

/* Method 2 as the chapter's listing writes it: one loop, one Kahan accumulator, on the CPU, timed as
 * stage 01's cpu_sequential is. One loop of N additions is where compensation matters most: a plain
 * fp32 loop's error grows with N (stage 01's cpu_sequential with --fill wide), this one's stays near
 * 2u sum|x|. */
static void run_cpu_kahan(Run *r)
{
    CUDA_CHECK(cudaStreamSynchronize(0));
    KahanSum acc;
    for (uint64_t i = 0; i < r->n; i++) acc.add(r->host_in[i]);
    r->host_result = acc.value();
    r->has_host_result = 1;
    r->chain.serial = 3; /* the compensated loop: 2, folding c in: 1 */
}

/* Why make stage-10 tree cannot record a kernel built on CUB (cooperative groups' kernels it can). */
#define CUB_BLOCK_UNRECORDED "its block's sum is cub::BlockReduce's: " CUB_UNRECORDED " (stage 09's rows_block_per_row writes that reduction by hand, and is recorded)"

static const Kernel kernels[] = {
    {"cub_device_reduce_sum", "chapter §7.7.1: cub::DeviceReduce::Sum, the two-call temp-storage idiom",
     run_cub_device_reduce_sum, .no_tree = "it runs CUB's own kernels: " CUB_UNRECORDED},
    {"cub_block_reduce", "chapter §7.7.1: stage 06's loop, then cub::BlockReduce and one atomicAdd per block",
     run_cub_block_reduce, .no_tree = CUB_BLOCK_UNRECORDED},
    {"cub_warp_reduce", "chapter §7.7.1: cub::WarpReduce in every warp, then in warp 0", run_cub_warp_reduce,
     .no_tree = "its warps' sums are cub::WarpReduce's: " CUB_UNRECORDED},
    {"cg_reduce_warp_tile", "chapter §7.7.2-3: cg::reduce on each 32-thread tile, one atomicAdd per warp",
     run_cg_reduce_warp_tile},
    {"cg_reduce_block", "chapter §7.7.2: cg::reduce on warp tiles, then on an 8-thread tile of the warp sums",
     run_cg_reduce_block},
    {"cg_reduce_tile16", "chapter §7.7.2: cg::reduce on the 16-thread halves of each warp, then on one of their 16 sums",
     run_cg_reduce_tile16},
    {"cluster_dsmem_reduce", "chapter §7.8.1: clusters of 8 blocks add through distributed shared memory, one atomicAdd each",
     run_cluster_dsmem_reduce, .min_cc = 90, .needs = "thread block clusters and distributed shared memory",
     .no_tree = CUB_BLOCK_UNRECORDED},
    {"grid_sync_cooperative", "chapter §7.8.1, grid: block sums to memory, cg::this_grid().sync(), block 0 adds them",
     run_grid_sync_cooperative, .no_tree = CUB_BLOCK_UNRECORDED},
    {"grid_last_block", "chapter §7.8.1, grid: block sums to memory, the last block to count itself adds them",
     run_grid_last_block, .no_tree = CUB_BLOCK_UNRECORDED},
    {"grid_two_launches", "chapter §7.8.1, grid: block sums to memory, a second kernel of one block adds them",
     run_grid_two_launches, .no_tree = CUB_BLOCK_UNRECORDED},
    {"accumulate_f32", "chapter §7.7.4: fp32 accumulator, last block finishes in index order", run_accumulate<F32Sum>,
     .no_tree = CUB_BLOCK_UNRECORDED},
    {"accumulate_f64", "chapter §7.7.4 method 1: the same with an fp64 accumulator, one rounding to fp32",
     run_accumulate<F64Sum>, .acc = ACC_F64, .no_tree = CUB_BLOCK_UNRECORDED},
    {"accumulate_kahan_f32", "chapter §7.7.4 method 2: the same with a Kahan-compensated fp32 accumulator",
     run_accumulate<KahanSum>, .acc = ACC_KAHAN, .no_tree = CUB_BLOCK_UNRECORDED},
    {"cpu_kahan_f32", "chapter §7.7.4 method 2 as listed: one Kahan-compensated fp32 loop, on the CPU", run_cpu_kahan,
     .flags = ON_CPU, .acc = ACC_KAHAN},
    /* Last: the one int32 row, beside CUB on the same int32 data (the harness runs CUB once per run of
     * rows of one input type). */
    {"cub_warp_scan_aggregate", "chapter §7.7.1: cub::WarpScan<int>::InclusiveSum's warp_aggregate, one atomicAdd per warp",
     run_cub_warp_scan_aggregate, .dtype = DT_I32, .acc = ACC_I32, .no_tree = "its warps' sums are cub::WarpScan's: " CUB_UNRECORDED},
};

STAGE("10_library", kernels, .charts = {{"library", OWNS}}, .accuracy = "accumulate_f32 accumulate_kahan_f32 accumulate_f64 cpu_kahan_f32",
      .trees = {{"cg_reduce_block"}});
