/* Stage 05: warp shuffles. Lanes of a warp read each other's registers (__shfl_*_sync) instead of
 * going through shared memory, and need no barrier among themselves. */
#include "common.h"

#define BLOCK 256
#define LOG2_BLOCK 8
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

/* Load the block's slice into shared memory and halve it until 32 values are left in s_x[0..31]. */
__device__ void load_and_halve_to_32(float *s_x, const float *x, uint64_t n)
{
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + tid;
    s_x[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset >= 32; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
}

/* LeetCUDA reduce article §3.4.2: the shared-memory tree down to 32 values, then warp 0 finishes
 * with __shfl_down_sync. Every lane named in the mask must execute the shuffle, so all 32 lanes of
 * warp 0 take part in every step (the upper lanes' results are simply not used). */
__global__ void reduce_shuffle_tail(const float *x, float *out, uint64_t n)
{
    __shared__ float s_x[BLOCK];
    unsigned tid = threadIdx.x;
    load_and_halve_to_32(s_x, x, n);
    if (tid < 32) {
        float v = s_x[tid];
        for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
        if (tid == 0) atomicAdd(out, v);
    }
}

/* One block per BLOCK elements, one atomicAdd per block (all kernels here but the xor one). */
static void launch_block_atomic(Run *r, void (*kernel)(const float *, float *, uint64_t), const char *name)
{
    unsigned blocks = grid_for(r->n, BLOCK, name);
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float))); /* the atomics add onto a zero */
    kernel<<<blocks, BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK(name);
    r->shape.tree = LOG2_BLOCK;
    r->shape.atomic = blocks;
}

static void run_shuffle_tail(Run *r) { launch_block_atomic(r, reduce_shuffle_tail, "reduce_shuffle_tail"); }

/* The article's form, kept to be caught (not run by default): the shuffle inside `if (tid < offset)`
 * with the full mask. The mask says all 32 lanes execute this shuffle while only `offset` do:
 * undefined behaviour. */
__global__ void reduce_shuffle_tail_divergent_mask(const float *x, float *out, uint64_t n)
{
    __shared__ float s_x[BLOCK];
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
    launch_block_atomic(r, reduce_shuffle_tail_divergent_mask, "reduce_shuffle_tail_divergent_mask");
}

/* Reduce blog §4: shuffle first. Every warp reduces its 32 values in registers,
 * lane 0 of each warp writes the warp's sum to shared memory, one barrier, and warp 0 reduces the
 * WARPS sums with shuffles again. One __syncthreads in all, instead of one per level. */
__device__ float warp_sum_down(float v)
{
    for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__global__ void reduce_warp_shuffle(const float *x, float *out, uint64_t n)
{
    __shared__ float warp_sums[WARPS];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + tid;
    float v = warp_sum_down(i < n ? x[i] : 0.0f);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum_down(lane < WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0) atomicAdd(out, v);
    }
}

static void run_warp_shuffle(Run *r)
{
    launch_block_atomic(r, reduce_warp_shuffle, "reduce_warp_shuffle");
    r->shape.tree = 5 + 5; /* 32 lanes, then up to 32 warp sums */
}

/* Course chapter v5: its v3 (two elements per thread added while loading, half the blocks), each warp's
 * sum by shuffles, the chapter's 32 warp sums (so 1024 threads) through shared memory, warp 0 adds them
 * by shuffles again, and each block's sum goes to the host, as the chapter's "host-side finalize". */
#define V5_BLOCK 1024

__global__ void __launch_bounds__(V5_BLOCK) reduce_chapter_v5(const float *x, float *partials, uint64_t n)
{
    __shared__ float warp_sums[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint64_t i = (uint64_t)blockIdx.x * (2 * V5_BLOCK) + tid;
    float v = i < n ? x[i] : 0.0f;
    if (i + V5_BLOCK < n) v += x[i + V5_BLOCK];
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
    unsigned blocks = grid_for(r->n, 2 * V5_BLOCK, "reduce_chapter_v5");
    reduce_chapter_v5<<<blocks, V5_BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_chapter_v5");
    r->host_partials = blocks;
    r->shape.serial = 1;
    r->shape.tree = 5 + 5; /* 32 lanes, then 32 warp sums */
}

/* Warp shuffle article §4: a butterfly with __shfl_xor_sync leaves the warp's sum in every lane
 * (an all-reduce); lane 0 of every warp adds it to the result. No shared memory at all, but one
 * atomic per 32 elements. */
__global__ void reduce_xor_allreduce_atomic(const float *x, float *out, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (unsigned mask = 16; mask > 0; mask /= 2) v += __shfl_xor_sync(FULL_MASK, v, mask);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

static void run_xor_allreduce_atomic(Run *r)
{
    launch_block_atomic(r, reduce_xor_allreduce_atomic, "reduce_xor_allreduce_atomic");
    r->shape.tree = 5;
    r->shape.atomic = (double)((r->n + 31) / 32); /* one atomic per warp */
}

static const Kernel kernels[] = {
    {"reduce_shuffle_tail", "LeetCUDA reduce §3.4.2: shared-memory tree, last warp with __shfl_down_sync",
     run_shuffle_tail},
    {"reduce_warp_shuffle", "reduce blog §4: shuffle first, warp sums in shared memory, one atomicAdd per block",
     run_warp_shuffle},
    {"reduce_chapter_v5", "course chapter v5: v3's two loads, shuffles, 32 warp sums (1024 threads), sums on the CPU",
     run_chapter_v5},
    {"reduce_xor_allreduce_atomic", "warp shuffle article §4: xor all-reduce per warp, lane 0 atomicAdd",
     run_xor_allreduce_atomic},
    {"reduce_shuffle_tail_divergent_mask", "LeetCUDA §3.4.2 as written: full mask inside if (tid < offset)",
     run_shuffle_tail_divergent_mask, .flags = NOT_DEFAULT},
};

STAGE("05_shuffle", kernels);
