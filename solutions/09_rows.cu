/* Solution of stages/09_rows/exercise.cu (compiled in place of its stub): a row cut into `splits`
 * slices, a block's sum of each, then a warp per row adding the row's slice sums. */
#include "stage.h"

/* Block b: slice b % splits of row b / splits, [start, end) of chunk = ceil(cols / splits) elements
 * (the last slice shorter; in general a slice may even be empty, and then its sum is 0). */
__global__ void rows_split_partials(const float *x, float *partials, uint64_t cols, unsigned splits)
{
    uint64_t row = blockIdx.x / splits, split = blockIdx.x % splits;
    uint64_t chunk = (cols + splits - 1) / splits, start = split * chunk;
    uint64_t end = start + chunk < cols ? start + chunk : cols;
    const float *p = x + row * cols;
    float v = 0.0f;
    for (uint64_t i = start + threadIdx.x; i < end; i += BLOCK) v += p[i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

/* One warp per row: each lane adds every 32nd slice sum, then the warp's butterfly. A whole warp leaves
 * together when its row does not exist, so the shuffles' full mask holds. */
__global__ void rows_split_finish(const float *partials, float *out, uint64_t rows, unsigned splits)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float *p = partials + row * splits;
    float v = 0.0f;
    for (unsigned i = lane; i < splits; i += 32) v += p[i];
    v = warp_reduce_sum(v);
    if (lane == 0) out[row] = v;
}
