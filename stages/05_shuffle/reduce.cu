/* Stage 05: warp shuffles. Lanes of a warp read each other's registers (__shfl_*_sync) instead of
 * going through shared memory, and need no barrier among themselves. */
#include "stage.h"
#include "levels.h"

#define FULL_MASK 0xffffffffu
#define LEETCUDA_BLOCK 128 /* the LeetCUDA article's block size */
#define LOG2_LEETCUDA_BLOCK tree_levels(LEETCUDA_BLOCK)
#define BLOCK_1024 1024    /* the reduce blog's reduce_v3, the chapter's v5 (32 warp sums), the shuffle article */
#define LOG2_WARPS_1024 tree_levels(BLOCK_1024 / 32)
#define BLOG_BLOCK 256     /* the reduce blog's reduce4: the block its §2 comment "s = 128" implies */
#define BLOG_WARPS (BLOG_BLOCK / 32)
#define LOG2_BLOG_WARPS tree_levels(BLOG_WARPS)

/* Load the block's slice into shared memory and halve it until 32 values are left in s_x[0..31]. */
__device__ void load_and_halve_to_32(TRACED(float) *s_x, const float *x, uint64_t n)
{
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * LEETCUDA_BLOCK + tid;
    s_x[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned offset = LEETCUDA_BLOCK / 2; offset >= 32; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
}

/* LeetCUDA reduce article §3.4.2, with its 128 threads: the shared-memory tree down to 32 values, then
 * warp 0 finishes with __shfl_down_sync. Every lane named in the mask must execute the shuffle, so all
 * 32 lanes of warp 0 take part in every step (the upper lanes' results are simply not used). */
__global__ void reduce_shuffle_tail(const float *x, float *out, uint64_t n)
{
    __shared__ TRACED(float) s_x[LEETCUDA_BLOCK];
    unsigned tid = threadIdx.x;
    load_and_halve_to_32(s_x, x, n);
    if (tid < 32) {
        float v = s_x[tid];
        for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
        if (tid == 0) atomicAdd(out, v);
    }
}

/* One block per `block` elements, one atomicAdd per block (the xor kernels: one per warp). */
template <typename T>
static void launch_block_atomic(Run *r, void (*kernel)(const T *, T *, uint64_t), const char *name, unsigned block)
{
    unsigned blocks = grid_for(r->n, block, name);
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(T))); /* the atomics add onto a zero */
    kernel<<<blocks, block>>>((const T *)r->data, (T *)r->out, r->n);
    LAUNCH_CHECK(name);
    r->chain.atomic = blocks;
}

static void run_shuffle_tail(Run *r)
{
    launch_block_atomic(r, reduce_shuffle_tail, "reduce_shuffle_tail", LEETCUDA_BLOCK);
    r->chain.tree = LOG2_LEETCUDA_BLOCK;
}

/* The article's form, kept to be caught (not run by default): the shuffle inside `if (tid < offset)`
 * with the full mask. The mask says all 32 lanes execute this shuffle while only `offset` do:
 * undefined behaviour. */
__global__ void reduce_shuffle_tail_divergent_mask(const float *x, float *out, uint64_t n)
{
    __shared__ TRACED(float) s_x[LEETCUDA_BLOCK];
    unsigned tid = threadIdx.x;
    load_and_halve_to_32(s_x, x, n);
    float v = s_x[tid];
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        if (tid < offset) v += __shfl_down_sync(FULL_MASK, v, offset);
        __syncwarp();
    }
    if (tid == 0) atomicAdd(out, v);
}

static void run_shuffle_tail_divergent_mask(Run *r)
{
    launch_block_atomic(r, reduce_shuffle_tail_divergent_mask, "reduce_shuffle_tail_divergent_mask", LEETCUDA_BLOCK);
    r->chain.tree = LOG2_LEETCUDA_BLOCK;
}

__device__ float warp_sum_down(float v)
{
    for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

/* Reduce blog §4's reduce4: shuffle first. Every warp reduces its 32 values in registers, lane 0 of
 * each warp writes the warp's sum to shared memory, one barrier, and warp 0 reduces the warps' sums
 * with shuffles again; each block's sum goes to d_out[blockIdx.x], added elsewhere (here on the CPU,
 * inside the timed region). One __syncthreads in all, instead of one per level. The blog sizes
 * warpLevelSums with blockDim.x / warpSize, which does not compile; here the block is a constant. Its
 * 256 threads are those of the blog's §2 and §3 (stage 02's reduce_shared, stage 04's
 * reduce_unrolled_warp_partials): the same loads and the same finish, three ways to reduce a block. */
__global__ void __launch_bounds__(BLOG_BLOCK) reduce_warp_shuffle_partials(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) warp_sums[BLOG_WARPS];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint64_t i = (uint64_t)blockIdx.x * BLOG_BLOCK + tid;
    float v = warp_sum_down(i < n ? x[i] : 0.0f);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum_down(lane < BLOG_WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0) partials[blockIdx.x] = v;
    }
}

static void run_warp_shuffle_partials(Run *r)
{
    unsigned blocks = grid_for(r->n, BLOG_BLOCK, "reduce_warp_shuffle_partials");
    reduce_warp_shuffle_partials<<<blocks, BLOG_BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_warp_shuffle_partials");
    r->host_partial_count = blocks;
    r->chain.tree = LOG2_WARP + LOG2_BLOG_WARPS; /* lanes past the warp sums add zeros, which round nothing */
}

/* Reduce blog §4's reduce_v3, its 优化写法 ("optimised form"), launched with 1024 threads by its launch_reduction:
 * the same shuffles, one atomicAdd per block onto the result. Its s_y[32] holds a sum for each of the
 * at most 32 warps of a block; it never zeroes its output before the atomics (here the launcher does). */
__global__ void __launch_bounds__(BLOCK_1024) reduce_warp_shuffle(const float *x, float *out, uint64_t n)
{
    __shared__ TRACED(float) warp_sums[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK_1024 + tid;
    float v = warp_sum_down(i < n ? x[i] : 0.0f);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum_down(lane < BLOCK_1024 / 32 ? warp_sums[lane] : 0.0f);
        if (lane == 0) atomicAdd(out, v);
    }
}

static void run_warp_shuffle(Run *r)
{
    launch_block_atomic(r, reduce_warp_shuffle, "reduce_warp_shuffle", BLOCK_1024);
    r->chain.tree = LOG2_WARP + LOG2_WARPS_1024; /* 32 lanes, then 32 warp sums */
}

/* Course chapter v5: its v3 (two elements per thread added while loading, half the blocks), each warp's
 * sum by shuffles, the chapter's 32 warp sums (so 1024 threads) through shared memory, warp 0 adds them
 * by shuffles again, and each block's sum goes to the host, as the chapter's "host-side finalize". */
__global__ void __launch_bounds__(BLOCK_1024) reduce_chapter_v5(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) warp_sums[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint64_t i = (uint64_t)blockIdx.x * (2 * BLOCK_1024) + tid;
    float v = i < n ? x[i] : 0.0f;
    if (i + BLOCK_1024 < n) v += x[i + BLOCK_1024];
    v = warp_sum_down(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum_down(warp_sums[lane]);
        if (lane == 0) partials[blockIdx.x] = v;
    }
}

static void run_chapter_v5(Run *r)
{
    unsigned blocks = grid_for(r->n, 2 * BLOCK_1024, "reduce_chapter_v5");
    reduce_chapter_v5<<<blocks, BLOCK_1024>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_chapter_v5");
    r->host_partial_count = blocks;
    r->chain.serial = 1;
    r->chain.tree = LOG2_WARP + LOG2_WARPS_1024; /* 32 lanes, then 32 warp sums */
}

/* Warp shuffle article §4: a butterfly with __shfl_xor_sync leaves the warp's sum in every lane
 * (an all-reduce); lane 0 of every warp adds it to the result. No shared memory at all, but one
 * atomic per 32 elements. The article sums int data (i % 100, --fill mod100) with 1024 threads:
 * integer additions are exact and associative, so the result is the same in every run whatever
 * order the atomics land in. In fp32 (the other row) it is neither. */
template <typename T>
__global__ void reduce_xor_allreduce(const T *x, T *out, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    T v = i < n ? x[i] : T(0);
    for (unsigned mask = 16; mask > 0; mask /= 2) v += __shfl_xor_sync(FULL_MASK, v, mask);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

template <typename T>
static void run_xor_allreduce(Run *r)
{
    launch_block_atomic(r, reduce_xor_allreduce<T>, "reduce_xor_allreduce", BLOCK_1024);
    r->chain.tree = LOG2_WARP;
    r->chain.atomic = (double)((r->n + 31) / 32); /* one atomic per warp */
}

static const Kernel kernels[] = {
    {"reduce_shuffle_tail", "LeetCUDA reduce §3.4.2: shared-memory tree, last warp with __shfl_down_sync, 128 threads",
     run_shuffle_tail},
    {"reduce_warp_shuffle_partials", "reduce blog §4 (reduce4): shuffle first, 8 warp sums in shared memory, 256 threads, "
     "sums on the CPU", run_warp_shuffle_partials},
    {"reduce_warp_shuffle", "reduce blog §4 (reduce_v3): shuffle first, 32 warp sums in shared memory, 1024 threads",
     run_warp_shuffle},
    {"reduce_chapter_v5", "course chapter v5: v3's two loads, shuffles, 32 warp sums (1024 threads), sums on the CPU",
     run_chapter_v5},
    {"reduce_xor_allreduce_atomic", "warp shuffle article §4 in fp32: xor all-reduce per warp, lane 0 atomicAdd, 1024 threads",
     run_xor_allreduce<float>},
    {"reduce_xor_allreduce_int", "warp shuffle article §4 as written: int data, exact (--fill mod100 --n 2^20: 51903600)",
     run_xor_allreduce<int>, .dtype = DT_I32, .acc = ACC_I32},
    {"reduce_shuffle_tail_divergent_mask", "LeetCUDA §3.4.2 as written: full mask inside if (tid < offset)",
     run_shuffle_tail_divergent_mask, .flags = NOT_DEFAULT,
     .no_tree = "its shuffles name all 32 lanes while only some execute them: undefined behaviour, and a shuffle "
                "waiting for lanes that never come can hang the block"},
};

STAGE("05_shuffle", kernels, .trees = {{"reduce_shuffle_tail"}, {"reduce_warp_shuffle"}});
