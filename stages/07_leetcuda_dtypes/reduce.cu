/* Stage 07: LeetCUDA's block_all_reduce_sum kernels, for every input type of the LeetCUDA reduce
 * article (fp32, fp16, bf16, fp8 e4m3/e5m2, int8), launched as LeetCUDA's launcher launches them.
 * Each kernel adds at three points, and LeetCUDA picks the precision of each per kernel:
 *   the pack   a thread's PACK elements (one 4-, 8- or 16-byte load, or a single element),
 *   the warp   the xor-shuffle tree over the warp's 32 threads,
 *   the warps  each warp's sum through shared memory, then reduced by warp 0;
 * then one atomicAdd of the block's sum into the fp32 result (int32 for int8). LeetCUDA writes one
 * kernel per combination; here one template takes the input type, the pack and the three
 * accumulator types, and the table below names each kernel's as block_all_reduce.cu has them. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <stdio.h>

#include "stage.h"
#include "levels.h"
#include "packed.h"

#define FULL_MASK 0xffffffffu

/* Warp reduce (xor butterfly): every lane ends with the sum of the warp, in T's precision. */
template <typename T>
__device__ __forceinline__ T warp_reduce_sum(T v)
{
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) v = v + __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

/* The block's sum is added to the fp32 result (int32 for int8), as LeetCUDA does. */
__device__ __forceinline__ void atomic_add_result(float *y, float s) { atomicAdd(y, s); }
__device__ __forceinline__ void atomic_add_result(float *y, __half s) { atomicAdd(y, __half2float(s)); }
__device__ __forceinline__ void atomic_add_result(float *y, __nv_bfloat16 s) { atomicAdd(y, __bfloat162float(s)); }
__device__ __forceinline__ void atomic_add_result(float *y, int s) { atomicAdd((int *)y, s); }

/* One tile of blockDim.x * PACK elements per block. Thread t adds elements [PACK t, PACK t + PACK) of
 * the tile in PackAcc, the warp adds its threads' sums in WarpAcc, warp 0 adds the warps' sums in
 * CrossAcc. Unlike LeetCUDA, nothing is read past n and no element past n is added: a thread whose
 * pack would cross n reads the elements before n one by one. The block size is blockDim.x (LeetCUDA
 * makes it a template parameter); warp 0 reduces all 32 lanes, with zeros past the last warp. */
template <typename In, int PACK, typename PackAcc, typename WarpAcc, typename CrossAcc>
__global__ void block_all_reduce_sum(const In *x, float *y, uint64_t n)
{
    __shared__ TRACED(CrossAcc) warp_sums[32];
    uint64_t i = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * PACK;
    PackAcc pack = PackAcc(0.0f);
    if (i + PACK <= n) {
        Packed<In, PACK> p = *reinterpret_cast<const Packed<In, PACK> *>(x + i);
#pragma unroll
        for (int k = 0; k < PACK; k++) pack = pack + static_cast<PackAcc>(p.elem[k]);
    } else {
        for (uint64_t j = i; j < n; j++) pack = pack + static_cast<PackAcc>(x[j]);
    }
    WarpAcc warp_sum = warp_reduce_sum(static_cast<WarpAcc>(pack));
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = (blockDim.x + 31) / 32;
    if (lane == 0) warp_sums[warp] = static_cast<CrossAcc>(warp_sum);
    __syncthreads();
    if (warp == 0) {
        CrossAcc block_sum = warp_reduce_sum(lane < warps ? warp_sums[lane] : CrossAcc(0.0f));
        if (lane == 0) atomic_add_result(y, block_sum);
    }
}

/* LeetCUDA's launcher, for an S x K input: a block per row, of K/PACK threads when that is one of
 * 32, 64, ..., 1024. Another K/PACK up to 1024 makes it throw (and with K not a multiple of PACK its S
 * tiles, laid end to end, miss the input's last S (K mod PACK) elements); a K/PACK past 1024, or a
 * 1-D input, takes its other branch: 1024/PACK threads per block, a block per 1024 elements. Here every
 * K that is not a whole power of two from 32 to 1024 packs takes that other branch. A plain N is one row. */
static unsigned leetcuda_threads(uint64_t k, int pack)
{
    uint64_t nt = k / pack;
    int per_row = k % pack == 0 && nt >= 32 && nt <= 1024 && (nt & (nt - 1)) == 0;
    return per_row ? (unsigned)nt : 1024u / pack;
}

/* Significand bits of an accumulator, for the error bound (chain.h: ACC_EXACT for integers). */
static int bits_of(float) { return 24; }
static int bits_of(__half) { return 11; }
static int bits_of(__nv_bfloat16) { return 8; }
static int bits_of(int) { return ACC_EXACT; }

/* The error bound's shape: the additions of a point done in fp16 or bf16 are the narrow part (span:
 * the elements summed in it before the next point widens the sum to fp32), those done in fp32 after
 * it are `wide`; then the chain of atomics. */
static AddChain leetcuda_shape(const int bits[3], int pack, unsigned threads, unsigned blocks)
{
    AddChain s = {0.0, 0.0, (double)blocks, 0, 0.0, 0.0};
    if (bits[2] == ACC_EXACT) {
        s.acc_bits = ACC_EXACT;
        return s;
    }
    const double adds[3] = {pack - 1.0, LOG2_WARP, LOG2_WARP};
    const double span[3] = {(double)pack, 32.0 * pack, (double)threads * pack};
    for (int p = 0; p < 3; p++) {
        if (bits[p] < 24 && adds[p] > 0) {
            *(p == 0 ? &s.serial : &s.tree) += adds[p];
            s.acc_bits = bits[p];
            s.span = span[p];
        } else if (s.acc_bits) {
            s.wide += adds[p];
        } else {
            *(p == 0 ? &s.serial : &s.tree) += adds[p];
        }
    }
    return s;
}

template <typename In, int PACK, typename PackAcc, typename WarpAcc, typename CrossAcc>
static void run_block_all_reduce(Run *r)
{
    /* A pack is read with one load, which must be aligned to its size: refuse an input that is not
     * (--offset), as LeetCUDA's kernels would fault on it. */
    if ((uintptr_t)r->data % sizeof(Packed<In, PACK>)) {
        static char why[96];
        snprintf(why, sizeof why, "the input is not %d-byte aligned, as its packed loads need",
                 (int)sizeof(Packed<In, PACK>));
        r->refuse = why;
        return;
    }
    unsigned threads = leetcuda_threads(r->cols, PACK);
    unsigned blocks = grid_for(r->n, (uint64_t)threads * PACK, "block_all_reduce_sum");
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float))); /* the atomics add onto a zero */
    block_all_reduce_sum<In, PACK, PackAcc, WarpAcc, CrossAcc><<<blocks, threads>>>((const In *)r->data, r->out, r->n);
    LAUNCH_CHECK("block_all_reduce_sum");
    const int bits[3] = {bits_of(PackAcc()), bits_of(WarpAcc()), bits_of(CrossAcc())};
    r->chain = leetcuda_shape(bits, PACK, threads, blocks);
}

#define SRC "LeetCUDA block_all_reduce_sum_"
typedef __half f16;
typedef __nv_bfloat16 bf16;
typedef __nv_fp8_e4m3 e4m3;
typedef __nv_fp8_e5m2 e5m2;

/* run_block_all_reduce<input, pack, pack's accumulator, warp's, warps'>; .acc is the narrowest of them
 * (the one whose overflow --fill large shows). The source text: the precision of the three points in
 * order ("-": a pack of one element, nothing added), and the threads per block (leetcuda_threads). */
static const Kernel kernels[] = {
    {"f32_f32", SRC "f32_f32_kernel (adds: -, fp32, fp32; K or 1024 threads)", run_block_all_reduce<float, 1, float, float, float>,
     .dtype = DT_F32, .acc = ACC_F32},
    {"f32x4_f32", SRC "f32x4_f32_kernel (adds: fp32, fp32, fp32; K/4 or 256 threads)",
     run_block_all_reduce<float, 4, float, float, float>, .dtype = DT_F32, .acc = ACC_F32},
    {"f16_f16", SRC "f16_f16_kernel (adds: -, fp16, fp32; K or 1024 threads)", run_block_all_reduce<f16, 1, f16, f16, float>,
     .dtype = DT_F16, .acc = ACC_F16},
    {"f16_f32", SRC "f16_f32_kernel (adds: -, fp32, fp32; K or 1024 threads)", run_block_all_reduce<f16, 1, float, float, float>,
     .dtype = DT_F16, .acc = ACC_F32},
    {"f16x2_f16", SRC "f16x2_f16_kernel (adds: fp16, fp16, fp32; K/2 or 512 threads)",
     run_block_all_reduce<f16, 2, f16, f16, float>, .dtype = DT_F16, .acc = ACC_F16},
    {"f16x2_f32", SRC "f16x2_f32_kernel (adds: fp16, fp32, fp32; K/2 or 512 threads)",
     run_block_all_reduce<f16, 2, f16, float, float>, .dtype = DT_F16, .acc = ACC_F16},
    {"f16x8_pack_f16", SRC "f16x8_pack_f16_kernel (adds: fp16, fp16, fp32; K/8 or 128 threads)",
     run_block_all_reduce<f16, 8, f16, f16, float>, .dtype = DT_F16, .acc = ACC_F16},
    {"f16x8_pack_f32", SRC "f16x8_pack_f32_kernel (adds: fp32, fp32, fp32; K/8 or 128 threads)",
     run_block_all_reduce<f16, 8, float, float, float>, .dtype = DT_F16, .acc = ACC_F32},
    {"bf16_bf16", SRC "bf16_bf16_kernel (adds: -, bf16, bf16; K or 1024 threads)", run_block_all_reduce<bf16, 1, bf16, bf16, bf16>,
     .dtype = DT_BF16, .acc = ACC_BF16},
    {"bf16_f32", SRC "bf16_f32_kernel (adds: -, fp32, fp32; K or 1024 threads)", run_block_all_reduce<bf16, 1, float, float, float>,
     .dtype = DT_BF16, .acc = ACC_F32},
    {"bf16x2_bf16", SRC "bf16x2_bf16_kernel (adds: bf16, bf16, bf16; K/2 or 512 threads)",
     run_block_all_reduce<bf16, 2, bf16, bf16, bf16>, .dtype = DT_BF16, .acc = ACC_BF16},
    {"bf16x2_f32", SRC "bf16x2_f32_kernel (adds: bf16, fp32, fp32; K/2 or 512 threads)",
     run_block_all_reduce<bf16, 2, bf16, float, float>, .dtype = DT_BF16, .acc = ACC_BF16},
    {"bf16x8_pack_bf16", SRC "bf16x8_pack_bf16_kernel (adds: bf16, bf16, bf16; K/8 or 128 threads)",
     run_block_all_reduce<bf16, 8, bf16, bf16, bf16>, .dtype = DT_BF16, .acc = ACC_BF16},
    {"bf16x8_pack_f32", SRC "bf16x8_pack_f32_kernel (adds: bf16, fp32, fp32; K/8 or 128 threads)",
     run_block_all_reduce<bf16, 8, bf16, float, float>, .dtype = DT_BF16, .acc = ACC_BF16},
    /* Not LeetCUDA's: bf16x8_pack_f32 as its name promises, the pack added in fp32 too. */
    {"bf16x8_pack_f32_fp32pack", "bf16x8_pack_f32 with its pack added in fp32 (adds: fp32, fp32, fp32; K/8 or 128 threads)",
     run_block_all_reduce<bf16, 8, float, float, float>, .dtype = DT_BF16, .acc = ACC_F32},
    {"fp8_e4m3_f16", SRC "fp8_e4m3_f16_kernel (adds: -, fp16, fp16; K or 1024 threads)", run_block_all_reduce<e4m3, 1, f16, f16, f16>,
     .dtype = DT_FP8_E4M3, .acc = ACC_F16},
    {"fp8_e4m3x16_pack_f16", SRC "fp8_e4m3x16_pack_f16_kernel (adds: fp16, fp16, fp16; K/16 or 64 threads)",
     run_block_all_reduce<e4m3, 16, f16, f16, f16>, .dtype = DT_FP8_E4M3, .acc = ACC_F16},
    {"fp8_e5m2_f16", SRC "fp8_e5m2_f16_kernel (adds: -, fp16, fp16; K or 1024 threads)", run_block_all_reduce<e5m2, 1, f16, f16, f16>,
     .dtype = DT_FP8_E5M2, .acc = ACC_F16},
    {"fp8_e5m2x16_pack_f16", SRC "fp8_e5m2x16_pack_f16_kernel (adds: fp16, fp16, fp16; K/16 or 64 threads)",
     run_block_all_reduce<e5m2, 16, f16, f16, f16>, .dtype = DT_FP8_E5M2, .acc = ACC_F16},
    {"i8_i32", SRC "i8_i32_kernel (adds: -, int32, int32; K or 1024 threads)", run_block_all_reduce<int8_t, 1, int, int, int>,
     .dtype = DT_I8, .acc = ACC_I32},
    {"i8x16_pack_i32", SRC "i8x16_pack_i32_kernel (adds: int32, int32, int32; K/16 or 64 threads)",
     run_block_all_reduce<int8_t, 16, int, int, int>, .dtype = DT_I8, .acc = ACC_I32},
};

/* Default sizes: the article's benchmark grid, S, K in {1024, 2048, 4096}, N = S * K, in its order.
 * Checked at sizes around the packs of 2, 8 and 16 elements. Benched on the shifted data (the tables)
 * and on the mean-zero random data too: the article's sums (about 233 for 2^20 elements) are those of
 * mean-zero data, and the README sets this run's beside them on the same kind. */
STAGE("07_leetcuda_dtypes", kernels, .bench_fills = "shifted random",
      .default_sizes = "1024x1024,1024x2048,1024x4096,2048x1024,2048x2048,2048x4096,4096x1024,4096x2048,4096x4096",
      .check_sizes = "1,7,8,9,15,16,17,1000003,2^24+3", .charts = {{"bandwidth", OWNS}, {"scaling"}, {"roofline"}, {"dtypes", OWNS}},
      .accuracy = "f16_f16 bf16_bf16", .trees = {{"f32x4_f32"}});
