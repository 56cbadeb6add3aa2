/* Exercise 09: several blocks per row.
 * A block per row (rows_block_per_row, and cub::DeviceSegmentedReduce alike) gives each row one block,
 * however long: 2 rows of a million floats (2x1000003) run on 2 of the GPU's SMs while the others
 * wait. rows_auto's rule, the largest group per row whose threads each still get ROW_SHARE elements,
 * goes one level further here: run_split below gives each row `splits` blocks when the rows alone are
 * too few to fill the GPU, and 1 otherwise. Write the two kernels it launches:
 * rows_split_partials: block b sums slice b % splits of row b / splits. The row is cut into `splits`
 *   slices of chunk = ceil(cols / splits) elements, the last one shorter; BLOCK threads stride along
 *   the slice, block_reduce_sum (below) adds their sums, and thread 0 writes partials[b]. With
 *   splits = 1 it is rows_block_per_row, and partials is the row sums themselves.
 * rows_split_finish (launched only when splits > 1): one warp per row, WARPS rows per block; the lanes
 *   stride over the row's `splits` partial sums, warp_reduce_sum, and lane 0 writes out[row].
 * A second kernel rather than atomics: the order is fixed, so every run gives the same bits.
 * Hint: the slice is [start, end) with start = split * chunk and end = min(start + chunk, cols); the
 *   row's elements are x[row * cols + i] with 64-bit row and i, as in reduce.cu.
 * Hint: the harness fills the row sums with NaN before the first run, so the finish must write each
 *   row's sum, not add onto it; a row with more than 32 slices needs the lanes' loop, not one slice a lane.
 * Hint: the stub below sums only the first BLOCK elements of each row in every block, and its finish
 *   takes the first slice's sum alone: with --fill ones a row of 1000 gives 128.
 * 提示：切片是 [start, end)，其中 start = split * chunk，end = min(start + chunk, cols)；行内元素是 x[row * cols + i]，row 和 i 都用 64 位，和 reduce.cu 一样。
 * 提示：第一次运行前，harness 把各行的和填成 NaN，所以收尾的 kernel 必须写入每一行的和，而不是往上加；一行超过 32 个切片时，需要各 lane 的循环，而不是每个 lane 一个切片。
 * 提示：下面的桩在每个线程块里都只加每行的前 BLOCK 个元素，它的收尾也只取第一个切片的和：--fill ones 时，一行 1000 个元素得到 128。 */
#include "stage.h"
#include "levels.h"

#define BLOCK 128
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu
#define ROW_SHARE 16 /* elements each thread still gets, at the least, as in reduce.cu */

__device__ __forceinline__ float warp_reduce_sum(float v)
{
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

/* As in reduce.cu: warp sums through shared memory, then one warp adds them; thread 0 has the block's
 * sum. Once per kernel (a second call would need a __syncthreads() first). */
__device__ __forceinline__ float block_reduce_sum(float v)
{
    __shared__ TRACED(float) warp_sums[WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_reduce_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = lane < WARPS ? warp_sums[lane] : 0.0f;
    return warp_reduce_sum(v);
}

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__global__ void rows_split_partials(const float *x, float *partials, uint64_t cols, unsigned splits)
{
    const float *p = x + (uint64_t)blockIdx.x / splits * cols;
    float v = threadIdx.x < cols ? p[threadIdx.x] : 0.0f; /* TODO: this block's slice, BLOCK threads striding */
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

__global__ void rows_split_finish(const float *partials, float *out, uint64_t rows, unsigned splits)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    if (row < rows && threadIdx.x % 32 == 0) out[row] = partials[row * splits]; /* TODO: all `splits` of them */
}
#endif

/* Blocks per row: enough for blocks_per_sm on every SM, as long as each thread still gets ROW_SHARE
 * elements of its slice; 1 when the rows alone fill the GPU, or are too short to cut. When it is more
 * than 1, rows x splits < rows + sm_count x blocks_per_sm: far inside Run.partials. */
static unsigned splits_for(const Run *r)
{
    uint64_t fill = ((uint64_t)r->sm_count * r->blocks_per_sm + r->rows - 1) / r->rows;
    uint64_t most = r->cols / (BLOCK * ROW_SHARE);
    uint64_t splits = fill < most ? fill : most;
    return splits > 1 ? (unsigned)splits : 1;
}

/* On an element's path: its thread's loop over the slice, block_reduce_sum's two butterflies, then the
 * row's partial sums, which any order adds with at most splits - 1 roundings on one path (the zeros
 * of lanes past them round nothing). */
static void run_split(Run *r)
{
    unsigned splits = splits_for(r);
    float *sums = splits > 1 ? r->partials : r->row_sums;
    rows_split_partials<<<grid_for(r->rows * splits, 1, "rows_split_partials"), BLOCK>>>(r->in, sums, r->cols, splits);
    LAUNCH_CHECK("rows_split_partials");
    if (splits > 1) {
        rows_split_finish<<<grid_for(r->rows, WARPS, "rows_split_finish"), BLOCK>>>(r->partials, r->row_sums, r->rows,
                                                                                   splits);
        LAUNCH_CHECK("rows_split_finish");
    }
    uint64_t chunk = (r->cols + splits - 1) / splits;
    r->chain.serial = (double)((chunk + BLOCK - 1) / BLOCK);
    r->chain.tree = LOG2_WARP + LOG2_WARP + (splits - 1);
}

static const Kernel kernels[] = {
    {"rows_split_per_row", "exercise: several blocks per row when the rows are too few to fill the GPU", run_split, 8},
};

/* The stage's odd shapes, and few long rows. On a GPU of 132 SMs (1056 blocks at 8 per SM): 33x4097 in
 * 2 slices a row, 5x65536 in 32, 3x2^20+7 in 352, 2x1000003 and 1x1000003 in 488 (the most that leave
 * each thread ROW_SHARE elements); the other shapes in 1. */
STAGE("09_rows", kernels, .default_sizes = "2x1000003,3x2^20+7,64x2^16,2^12x2^14",
      .check_sizes = "1x1,1x31,3x33,5x4,7x1000,1000x7,33x4097,2^16x33,5x65536,3x2^20+7,2x1000003,1x1000003", .rows = 1,
      .charts = {{"rows", OWNS}},
      /* Graded on many short rows, few long ones, one row and odd sizes on both axes, and timed on a few very long
       * rows, the case the exercise is about; its text promises the same bits, from a finish without atomics. */
      .grade_sizes = "1x1,1x31,3x33,5x4,1000x7,7x1000,33x4097,2x1000003,1x1048583,"
                     "2^10..2^14x2..64,9..300x2..5000,2..8x2^16..2^21,1..4x2^20..2^22",
      .grade_time = "4x2^22", .grade_promises = "same-bits no-float-atomics:rows_split_partials,rows_split_finish");
