/* Stage 09: one sum per row. The input is a [batch, hidden] matrix (rows x cols, row-major), the pattern
 * inside softmax and LayerNorm; the output is one sum per row. Two ways to split the work (the matrix
 * article, §2 and §3): one warp per row for short rows, one block per row for long ones, each with
 * scalar and with 128-bit packed loads (§4), and the block reduce written with cub::BlockReduce. */
#include <cub/cub.cuh>

#include "common.h"

#define BLOCK 128 /* the article's block size: 4 warps, so 4 rows per block in the warp-per-row kernels */
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

/* The article's Packed<T, N>: N values that move as one aligned load (N x sizeof(T) = 16 bytes here). */
template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
    T elem[N];
};
#define PACK 4 /* floats in 128 bits */

__device__ __forceinline__ float warp_reduce_sum(float v)
{
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(FULL_MASK, v, mask);
    return v; /* every lane has the warp's sum */
}

/* Warp sums through shared memory, then one warp adds them. Called once per kernel: a second call
 * would need a __syncthreads() first, or it would overwrite warp_sums while warp 0 still reads them. */
__device__ __forceinline__ float block_reduce_sum(float v)
{
    __shared__ float warp_sums[WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_reduce_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = lane < WARPS ? warp_sums[lane] : 0.0f;
    return warp_reduce_sum(v); /* thread 0 has the block's sum */
}

/* This thread's share of one row p[0..cols), as thread `lane` of `width`: 16-byte packs where the row
 * allows them. A row starts on a 16-byte boundary only when cols is a multiple of 4 (and the matrix
 * is aligned), so a scalar head runs up to the first boundary and a scalar tail finishes; the article
 * asserts cols % 4 == 0 instead and assumes the alignment. */
__device__ __forceinline__ float packed_share(const float *p, uint64_t cols, unsigned lane, unsigned width);
/* It is this stage's exercise (make stage-09 exercise): its code is the solution, compiled in here, so
 * that this file does not give the answer away. */
#include "../../solutions/09_rows.cu"

/* One warp per row, WARPS rows per block. The article has no row check: with rows not a multiple of
 * WARPS, the last block's extra warps read and write past the matrix. Here a whole warp leaves
 * together, so the shuffles' full mask stays true. 64-bit offsets: rows x cols passes 2^32. */
__global__ void __launch_bounds__(BLOCK) rows_warp_per_row(const float *x, float *out, uint64_t rows, uint64_t cols)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float *p = x + row * cols;
    float v = 0.0f;
    for (uint64_t i = lane; i < cols; i += 32) v += p[i];
    v = warp_reduce_sum(v);
    if (lane == 0) out[row] = v;
}

__global__ void __launch_bounds__(BLOCK) rows_warp_per_row_packed(const float *x, float *out, uint64_t rows,
                                                                  uint64_t cols)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    float v = warp_reduce_sum(packed_share(x + row * cols, cols, lane, 32));
    if (lane == 0) out[row] = v;
}

/* One block per row: BLOCK threads stride along it, then the block's reduce. */
__global__ void __launch_bounds__(BLOCK) rows_block_per_row(const float *x, float *out, uint64_t cols)
{
    const float *p = x + (uint64_t)blockIdx.x * cols;
    float v = 0.0f;
    for (uint64_t i = threadIdx.x; i < cols; i += BLOCK) v += p[i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

__global__ void __launch_bounds__(BLOCK) rows_block_per_row_packed(const float *x, float *out, uint64_t cols)
{
    float v = block_reduce_sum(packed_share(x + (uint64_t)blockIdx.x * cols, cols, threadIdx.x, BLOCK));
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* The same with the library's block reduce in place of block_reduce_sum. */
__global__ void __launch_bounds__(BLOCK) rows_block_per_row_cub(const float *x, float *out, uint64_t cols)
{
    typedef cub::BlockReduce<float, BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    float v = BlockReduce(temp).Sum(packed_share(x + (uint64_t)blockIdx.x * cols, cols, threadIdx.x, BLOCK));
    if (threadIdx.x == 0) out[blockIdx.x] = v; /* BlockReduce's result is valid in thread 0 only */
}

/* Additions on one row's longest path: a thread's loop (scalar, or packs plus the 2 inside a pack and
 * the head and tail elements), then the reduce's levels. */
static double serial_adds(uint64_t cols, unsigned threads, int packed)
{
    return packed ? (double)((cols / PACK + threads - 1) / threads) + 2 + 2 : (double)((cols + threads - 1) / threads);
}

/* One warp per row (WARPS rows per block), or one block per row; tree: the reduce's levels. */
static void launch_warp_rows(Run *r, void (*kernel)(const float *, float *, uint64_t, uint64_t), const char *name,
                             int packed)
{
    kernel<<<grid_for(r->rows, WARPS, name), BLOCK>>>(r->in, r->row_sums, r->rows, r->cols);
    LAUNCH_CHECK(name);
    r->shape.serial = serial_adds(r->cols, 32, packed);
    r->shape.tree = 5;
}

static void launch_block_rows(Run *r, void (*kernel)(const float *, float *, uint64_t), const char *name, int packed,
                              double tree)
{
    kernel<<<grid_for(r->rows, 1, name), BLOCK>>>(r->in, r->row_sums, r->cols);
    LAUNCH_CHECK(name);
    r->shape.serial = serial_adds(r->cols, BLOCK, packed);
    r->shape.tree = tree;
}

static void run_warp(Run *r)
{
    launch_warp_rows(r, rows_warp_per_row, "rows_warp_per_row", 0);
}

static void run_warp_packed(Run *r)
{
    launch_warp_rows(r, rows_warp_per_row_packed, "rows_warp_per_row_packed", 1);
}

static void run_block(Run *r)
{
    launch_block_rows(r, rows_block_per_row, "rows_block_per_row", 0, 5 + 5);
}

static void run_block_packed(Run *r)
{
    launch_block_rows(r, rows_block_per_row_packed, "rows_block_per_row_packed", 1, 5 + 5);
}

static void run_block_cub(Run *r)
{
    launch_block_rows(r, rows_block_per_row_cub, "rows_block_per_row_cub", 1, 5 + WARPS); /* warp reduce, then warp sums */
}

static const Kernel kernels[] = {
    {"rows_warp_per_row", "article §2: one warp per row, xor-shuffle warpReduceSum", run_warp},
    {"rows_block_per_row", "article §3: one block per row, blockReduceSum (warp sums through shared memory)", run_block},
    {"rows_warp_per_row_packed", "article §4.1: the same with Packed<float, 4> loads, any cols and alignment",
     run_warp_packed},
    {"rows_block_per_row_packed", "article §4.2: the same with Packed<float, 4> loads, any cols and alignment",
     run_block_packed},
    {"rows_block_per_row_cub", "article §3: cub::BlockReduce in place of blockReduceSum, packed loads", run_block_cub},
};

/* Default: 2^26 floats (256 MiB) as rows of 32 ... 65536 columns; check: odd shapes. */
STAGE("09_rows", kernels,
      .sizes = "2^21x32,2^20x64,2^19x128,2^18x256,2^17x512,2^16x1024,2^15x2048,2^14x4096,2^13x8192,2^12x16384,"
               "2^11x32768,2^10x65536",
      .check_sizes = "1x1,1x31,3x33,5x4,7x1000,1000x7,33x4097,2^16x33,1000003x1,2x1000003", .rows = 1,
      .charts = "rows+");
