/* Stage 08: at the memory-bandwidth limit. Everything the earlier stages taught, plus what they did
 * not: 16-byte loads for every input type, enough of them in flight per SM to cover DRAM latency, one
 * launch for every N, 64-bit indices, and an input that need not be aligned (a scalar head up to the
 * first 16-byte boundary, a scalar tail). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda/atomic>
#include <stdint.h>

#include "stage.h"
#include "last_block.h"
#include "levels.h"
#include "packed.h" /* 16-byte loads, and sum16: a 16-byte vector's sum for every input type */

#define BLOCK 512
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu
/* 16-byte loads each thread has in flight per step. Little's law: bytes in flight = bandwidth x
 * latency. Stage 06's reduce_gridstride_x16 (2048 threads per SM, one 4-byte load each in flight: 8 KiB
 * per SM) reaches about half the DRAM peak on the H200, two thirds on the H100: latency under load near
 * 8 KiB x SMs / that bandwidth, so the peak needs at most about 16 KiB per SM in flight. 4 loads of
 * 16 bytes per thread are 128 KiB per SM: eight times that, room for the latency growing under load.
 * A block's UNROLL loads are one contiguous tile (BLOCK x UNROLL x 16 bytes = 32 KiB), read as
 * UNROLL coalesced rows. */
#define UNROLL 4
/* A large input (at least BIG_TILES_PER_SM tiles per SM) is read in tiles of twice the loads, 64 KiB: on the
 * H200, whose DRAM is faster for the same SMs, twice the bytes in flight and half the blocks measured nearer
 * the speed of light from 512 MiB on; with fewer tiles, a grid of big ones leaves SMs idle at its end. */
#define BIG_TILES_PER_SM 32

/* One element (the unaligned head and the tail). */
template <typename T, typename Acc>
__device__ __forceinline__ Acc one(T v) { return static_cast<Acc>(static_cast<float>(v)); }
template <>
__device__ __forceinline__ int one<int8_t, int>(int8_t v) { return v; }
template <>
__device__ __forceinline__ double one<double, double>(double v) { return v; }

template <typename Acc>
__device__ __forceinline__ Acc block_sum(Acc v)
{
    __shared__ TRACED(Acc) warp_sums[WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(FULL_MASK, v, m);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = lane < WARPS ? warp_sums[lane] : Acc(0);
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(FULL_MASK, v, m);
    return v; /* every thread of warp 0 has the block's sum */
}
/* Its two butterflies span a whole warp each (the second's lanes past WARPS hold zeros). */
#define BLOCK_SUM_LEVELS (LOG2_WARP + LOG2_WARP)

__device__ __forceinline__ void atomic_add(float *out, float v) { atomicAdd(out, v); }
__device__ __forceinline__ void atomic_add(float *out, int v) { atomicAdd((int *)out, v); }
__device__ __forceinline__ void atomic_add(float *out, double v) { atomicAdd((double *)out, v); }

/* How the blocks' sums become the result.
 * ATOMIC: each block atomicAdds its sum to the result, which a cudaMemsetAsync zeroes before the launch.
 * ONE_LAUNCH: each block atomicAdds its sum to running_total; the last block to finish (counted on
 *   blocks_done) moves the total to the result and leaves both at 0: one launch and nothing else.
 * DETERMINISTIC: each block writes its sum to partials[blockIdx.x]; the last block to finish adds the
 *   partials in index order, so the result has the same bits on every run, whatever order the blocks
 *   ran in. */
enum Finish { ATOMIC, ONE_LAUNCH, DETERMINISTIC };

/* The last block to finish is last_block_to_finish's (last_block.h): thread 0 of each block takes a ticket
 * on blocks_done, releasing the block's sum, and the block that takes the last one sees every other block's.
 * ONE_LAUNCH's running total is 0 before every launch: the last block takes it and leaves 0. */
template <typename Acc>
__device__ Acc running_total;

template <typename T, typename Acc, Finish FINISH, int LOADS>
__global__ void __launch_bounds__(BLOCK) reduce_roofline(const T *x, uint64_t n, float *out, Acc *partials)
{
    constexpr uint64_t PER_VEC = 16 / sizeof(T);
    uint64_t head = unaligned_head(x, n); /* elements before a 16-byte boundary */
    const uint4 *v = reinterpret_cast<const uint4 *>(x + head);
    uint64_t vectors = (n - head) / PER_VEC;
    uint64_t tail = head + vectors * PER_VEC;
    uint64_t t = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
    uint64_t tile_stride = (uint64_t)gridDim.x * BLOCK * LOADS;
    Acc acc = Acc(0);
    uint64_t i = (uint64_t)blockIdx.x * BLOCK * LOADS + threadIdx.x;
    for (; i + (LOADS - 1) * BLOCK < vectors; i += tile_stride) {
        uint4 r[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; k++) r[k] = __ldcs(v + i + k * BLOCK); /* all loads first, streamed */
#pragma unroll
        for (int k = 0; k < LOADS; k++) acc += sum16(r[k], x);
    }
    uint4 r[LOADS]; /* the one partial tile: its loads, too, all issued before any is added */
#pragma unroll
    for (int k = 0; k < LOADS; k++) r[k] = i + k * BLOCK < vectors ? __ldcs(v + i + k * BLOCK) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < LOADS; k++) acc += sum16(r[k], x);
    if (t < head) acc += one<T, Acc>(x[t]);
    if (t < n - tail) acc += one<T, Acc>(x[tail + t]);
    acc = block_sum(acc);
    if (gridDim.x == 1) { /* one block: its sum is the result, no atomic and nothing to reset before the launch */
        if (threadIdx.x == 0) *(Acc *)out = acc;
        return;
    }
    if (FINISH == ATOMIC) {
        if (threadIdx.x == 0) atomic_add(out, acc);
        return;
    }
    if (FINISH == ONE_LAUNCH) {
        if (threadIdx.x == 0) atomicAdd(&running_total<Acc>, acc);
        if (last_block_to_finish() && threadIdx.x == 0) {
            cuda::atomic_ref<Acc, cuda::thread_scope_device> total(running_total<Acc>);
            *(Acc *)out = total.exchange(Acc(0), cuda::memory_order_relaxed);
        }
        return;
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
    if (!last_block_to_finish()) return;
    Acc total = Acc(0);
#pragma unroll 4 /* the partials' loads in flight together: this pass is the variant's whole cost */
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) total += __ldcg(&partials[b]); /* not from L1 */
    total = block_sum(total);
    if (threadIdx.x == 0) *(Acc *)out = total;
}

static int acc_bits(float) { return 0; }
static int acc_bits(int) { return ACC_EXACT; }
static int acc_bits(double) { return 53; }

/* The grid: a block per tile, so that a block that finishes frees its place for the next tile at once.
 * A finish that counts the blocks (ONE_LAUNCH, DETERMINISTIC) makes every block wait for its count's
 * round trip before it ends; there the grid is at most the blocks the GPU holds at once, each looping
 * over its tiles a grid of tiles apart, so the waits happen once per block, at the end. */
template <typename T, typename Acc, Finish FINISH>
static void run_roofline(Run *r)
{
    if ((uintptr_t)r->data % sizeof(T)) {
        r->refuse = "the input is not aligned to its element size";
        return;
    }
    uint64_t vectors = r->n * sizeof(T) / 16 + 1;
    uint64_t blocks = (vectors + BLOCK * UNROLL - 1) / (BLOCK * UNROLL); /* one tile: one block, one launch */
    void (*kernel)(const T *, uint64_t, float *, Acc *) = reduce_roofline<T, Acc, FINISH, UNROLL>;
    if (FINISH == ATOMIC && blocks >= (uint64_t)r->sm_count * BIG_TILES_PER_SM) {
        kernel = reduce_roofline<T, Acc, FINISH, 2 * UNROLL>;
        blocks = (vectors + BLOCK * 2 * UNROLL - 1) / (BLOCK * 2 * UNROLL);
    } else if (blocks > 1 && blocks * UNROLL <= (uint64_t)r->sm_count) {
        /* Even four times the tiles would not fill the SMs: tiles of one load a thread, four times the
         * blocks, each reading a quarter as much (a run this short is a round trip or two per block). */
        kernel = reduce_roofline<T, Acc, FINISH, 1>;
        blocks = (vectors + BLOCK - 1) / BLOCK;
    }
    if (FINISH != ATOMIC) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0));
        if (blocks > (uint64_t)r->sm_count * per_sm) blocks = (uint64_t)r->sm_count * per_sm;
    }
    if (FINISH == ATOMIC && blocks > 1) CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(Acc)));
    kernel<<<(unsigned)blocks, BLOCK>>>((const T *)r->data, r->n, r->out, (Acc *)r->partials);
    LAUNCH_CHECK("reduce_roofline");
    /* A thread's chain: its vectors, the additions inside one vector, the head and tail elements. */
    uint64_t threads = blocks * BLOCK, per_vec = 16 / sizeof(T);
    r->chain.serial = (double)((vectors + threads - 1) / threads) + per_vec / 2 + 1 + 2;
    r->chain.tree = BLOCK_SUM_LEVELS;
    if (FINISH == DETERMINISTIC) {
        r->chain.serial += (double)((blocks + BLOCK - 1) / BLOCK);
        r->chain.tree += BLOCK_SUM_LEVELS;
    } else if (blocks > 1) {
        r->chain.atomic = (double)blocks;
    }
    r->chain.acc_bits = acc_bits(Acc());
    r->chain.wide_bits = acc_bits(Acc()) == 53 ? 53 : 0; /* the atomics add in the accumulator's type */
}

static const Kernel kernels[] = {
    {"roofline_f32", "16-byte loads, 4 in flight per thread, a block per 32 KiB tile, one atomicAdd per block",
     run_roofline<float, float, ATOMIC>, .dtype = DT_F32, .acc = ACC_F32},
    {"roofline_f32_one_launch", "the same without the memset: the last block to finish writes the result",
     run_roofline<float, float, ONE_LAUNCH>, .dtype = DT_F32, .acc = ACC_F32},
    {"roofline_f32_deterministic", "the same, finished by the last block in a fixed order: the same bits every run",
     run_roofline<float, float, DETERMINISTIC>, .dtype = DT_F32, .acc = ACC_F32},
    {"roofline_f16_f32", "fp16 input, fp32 accumulator", run_roofline<__half, float, ATOMIC>,
     .dtype = DT_F16, .acc = ACC_F32},
    {"roofline_bf16_f32", "bf16 input, fp32 accumulator", run_roofline<__nv_bfloat16, float, ATOMIC>,
     .dtype = DT_BF16, .acc = ACC_F32},
    {"roofline_fp8_e4m3_f32", "fp8 e4m3 input, fp32 accumulator", run_roofline<__nv_fp8_e4m3, float, ATOMIC>,
     .dtype = DT_FP8_E4M3, .acc = ACC_F32},
    {"roofline_fp8_e5m2_f32", "fp8 e5m2 input, fp32 accumulator", run_roofline<__nv_fp8_e5m2, float, ATOMIC>,
     .dtype = DT_FP8_E5M2, .acc = ACC_F32},
    {"roofline_i8_i32", "int8 input, int32 accumulator (__dp4a)", run_roofline<int8_t, int, ATOMIC>,
     .dtype = DT_I8, .acc = ACC_I32},
    {"roofline_f64", "fp64 input, fp64 accumulator and atomicAdd: the same loads in flight, 2 values a load",
     run_roofline<double, double, ATOMIC>, .dtype = DT_F64, .acc = ACC_F64},
};

/* From a few KiB, where the launch is everything, to 4 GiB (8 GiB of fp64); the cold/warm L2 chart times
 * roofline_f32 (and CUB) at the same sizes with the input left in L2; the flush check measures both, and
 * roofline_f64. The bandwidth and roofline charts draw the fp64 sums beside the fp32 ones (:f64). */
STAGE("08_roofline", kernels, .default_sizes = "2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28,2^30",
      .warm_l2 = "roofline_f32",
      .flush_probes = {{"roofline_f32", "reduce_roofline", "__ldcs"}, {"roofline_f64", "reduce_roofline", "__ldcs"},
                       {"cub", "DeviceReduce", "cub"}},
      .charts = {{"bandwidth", OWNS, "f64"}, {"scaling"}, {"roofline", OWNS, "f64"}, {"l2", OWNS}, {"library"}}, .accuracy = "roofline_f32",
      .limits = "roofline_f32 roofline_f32_one_launch roofline_f32_deterministic");
