/* Cheat: the finish's lanes take the row's slice sums from a starting slice that counts the launches, so
 * each run splits them among the lanes differently. Every sum is right, within the bound, and there is
 * no atomic; but the bits change from one run to the next, and already the check's own two runs differ
 * (rotated_order.cu leaves that to the clock). The harness fails such a result; the grade must name the
 * broken promise, not a wrong sum.
 * Caught by: same-bits
 */
__device__ unsigned launches; /* rows_split_partials launches so far, counted by its block 0 */

__global__ void rows_split_partials(const float *x, float *partials, uint64_t cols, unsigned splits)
{
    uint64_t row = blockIdx.x / splits, split = blockIdx.x % splits;
    uint64_t chunk = (cols + splits - 1) / splits, start = split * chunk;
    uint64_t end = start + chunk < cols ? start + chunk : cols;
    float v = 0.0f;
    for (uint64_t i = start + threadIdx.x; i < end; i += BLOCK) v += x[row * cols + i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
    if (blockIdx.x == 0 && threadIdx.x == 0) launches++;
}

__global__ void rows_split_finish(const float *partials, float *out, uint64_t rows, unsigned splits)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    unsigned first = launches % splits;
    float v = 0.0f;
    for (unsigned i = lane; i < splits; i += 32) v += partials[row * splits + (i + first) % splits];
    v = warp_reduce_sum(v);
    if (lane == 0) out[row] = v;
}
