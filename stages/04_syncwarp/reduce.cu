/* Stage 04: the last 32 elements need no block-wide barrier. Once the tree is down to one warp,
 * __syncthreads (the whole block waits) can become __syncwarp (only the warp waits). */
#include "stage.h"
#include "levels.h"

#define BLOCK 256
#define LOG2_BLOCK tree_levels(BLOCK)
#define LEETCUDA_BLOCK 128 /* the LeetCUDA article's block size */
#define LOG2_LEETCUDA_BLOCK tree_levels(LEETCUDA_BLOCK)

/* The unrolled last warp's first step reads s[tid + 32]: a block of fewer than 64 threads would read
 * past the values the tree leaves (the course chapter's §7.9 pitfall, and the check it recommends). */
static_assert(BLOCK >= 64, "the unrolled last warp needs a block of at least 64 threads");

/* LeetCUDA reduce article §3.4.1, with its 128 threads: __syncthreads while more than a warp is busy,
 * then __syncwarp. Within a step the writers (tid < offset) and the elements they read (tid + offset)
 * do not overlap, and __syncwarp orders one step's writes before the next step's reads. */
__global__ void reduce_syncwarp(const float *x, float *out, uint64_t n)
{
    __shared__ TRACED(float) s_x[LEETCUDA_BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * LEETCUDA_BLOCK + tid;
    s_x[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned offset = LEETCUDA_BLOCK / 2; offset >= 32; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid < 32) {
        for (unsigned offset = 16; offset > 0; offset /= 2) {
            if (tid < offset) s_x[tid] += s_x[tid + offset];
            __syncwarp();
        }
        if (tid == 0) atomicAdd(out, s_x[0]);
    }
}

/* One block per `block` elements, one atomicAdd per block (all kernels here but v4). */
static void launch_block_atomic(Run *r, void (*kernel)(const float *, float *, uint64_t), const char *name,
                                unsigned block, int log2_block)
{
    unsigned blocks = grid_for(r->n, block, name);
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float))); /* the atomics add onto a zero */
    kernel<<<blocks, block>>>(r->in, r->out, r->n);
    LAUNCH_CHECK(name);
    r->chain.tree = log2_block;
    r->chain.atomic = blocks;
}

static void run_syncwarp(Run *r)
{
    launch_block_atomic(r, reduce_syncwarp, "reduce_syncwarp", LEETCUDA_BLOCK, LOG2_LEETCUDA_BLOCK);
}

/* Reduce blog §3's warpReduce (course chapter v4 calls a warp_reduce without printing its body),
 * correct on Volta and later: the last warp unrolled, every lane adding unconditionally. Since Volta
 * a warp's lanes are scheduled independently, so lane 5 reading s[21] may happen after lane 21 has
 * overwritten it. Each step therefore reads, waits for the whole warp (__syncwarp), then writes and
 * waits again; volatile keeps every access in shared memory. */
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

/* Load the block's slice into shared memory and halve it until 64 values are left in s_x[0..63]. */
__device__ void load_and_halve_to_64(TRACED(float) *s_x, const float *x, uint64_t n)
{
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + tid;
    s_x[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 32; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
}

/* Reduce blog §3 as it ends: each block's sum written to d_out[blockIdx.x] and the blocks' sums added
 * elsewhere (here on the CPU, inside the timed region). Stage 02's reduce_shared, the blog's §2, is the
 * same kernel with the same 256 threads and a __syncthreads at every level down to one value: the two
 * differ only in the last warp, which is what the blog says unrolling it saves. */
__global__ void reduce_unrolled_warp_partials(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    load_and_halve_to_64(s_x, x, n);
    if (tid < 32) {
        warp_reduce_unrolled(s_x, tid);
        if (tid == 0) partials[blockIdx.x] = s_x[0];
    }
}

static void run_unrolled_warp_partials(Run *r)
{
    unsigned blocks = grid_for(r->n, BLOCK, "reduce_unrolled_warp_partials");
    reduce_unrolled_warp_partials<<<blocks, BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_unrolled_warp_partials");
    r->host_partial_count = blocks;
    r->chain.tree = LOG2_BLOCK;
}

/* The same with stage 03's finish: one atomicAdd per block onto the result. */
__global__ void reduce_unrolled_warp(const float *x, float *out, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    load_and_halve_to_64(s_x, x, n);
    if (tid < 32) {
        warp_reduce_unrolled(s_x, tid);
        if (tid == 0) atomicAdd(out, s_x[0]);
    }
}

static void run_unrolled_warp(Run *r)
{
    launch_block_atomic(r, reduce_unrolled_warp, "reduce_unrolled_warp", BLOCK, LOG2_BLOCK);
}

/* Course chapter v4: its v3 (stage 02's reduce_shared_two_loads: two elements per thread added while
 * loading, both checked against n, half the blocks), the tree in shared memory down to 64 values, then
 * the last warp unrolled (warp_reduce_unrolled). Each block's sum goes to the host, as the chapter's. */
__global__ void reduce_chapter_v4(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * (2 * BLOCK) + tid;
    float v = i < n ? x[i] : 0.0f;
    if (i + BLOCK < n) v += x[i + BLOCK];
    s_x[tid] = v;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 32; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid < 32) {
        warp_reduce_unrolled(s_x, tid);
        if (tid == 0) partials[blockIdx.x] = s_x[0];
    }
}

static void run_chapter_v4(Run *r)
{
    unsigned blocks = grid_for(r->n, 2 * BLOCK, "reduce_chapter_v4");
    reduce_chapter_v4<<<blocks, BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_chapter_v4");
    r->host_partial_count = blocks;
    r->chain.serial = 1;
    r->chain.tree = LOG2_BLOCK;
}

/* Blog §3's warpReduce as written, kept to be caught (not run by default): plain shared memory, no
 * __syncwarp. It assumes what chapter v4's comment on its call says, that the 32 lanes run in
 * lock-step, which no GPU since Volta promises; the compiler may also keep s[tid] in a register
 * between the statements. A data race: compute-sanitizer's racecheck. */
__device__ void warp_reduce_racy(TRACED(float) *s, unsigned tid)
{
    s[tid] += s[tid + 32];
    s[tid] += s[tid + 16];
    s[tid] += s[tid + 8];
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}

__global__ void reduce_unrolled_warp_racy(const float *x, float *out, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    load_and_halve_to_64(s_x, x, n);
    if (tid < 32) {
        warp_reduce_racy(s_x, tid);
        if (tid == 0) atomicAdd(out, s_x[0]);
    }
}

static void run_unrolled_warp_racy(Run *r)
{
    launch_block_atomic(r, reduce_unrolled_warp_racy, "reduce_unrolled_warp_racy", BLOCK, LOG2_BLOCK);
}

static const Kernel kernels[] = {
    {"reduce_syncwarp", "LeetCUDA reduce §3.4.1: __syncwarp for the last 32 elements, 128 threads", run_syncwarp},
    {"reduce_unrolled_warp_partials", "reduce blog §3 as written: unrolled last warp, volatile + __syncwarp, sums on the CPU",
     run_unrolled_warp_partials},
    {"reduce_unrolled_warp", "reduce blog §3 with stage 03's finish: the same, one atomicAdd per block",
     run_unrolled_warp},
    {"reduce_chapter_v4", "course chapter v4: v3's two loads per thread + the unrolled last warp, sums on the CPU",
     run_chapter_v4},
    {"reduce_unrolled_warp_racy", "blog §3's warpReduce as written: no volatile, no __syncwarp (a race)",
     run_unrolled_warp_racy, .flags = NOT_DEFAULT},
};

STAGE("04_syncwarp", kernels, .trees = {{"reduce_syncwarp"}, {"reduce_unrolled_warp"}});
