/* Cheat: every block reads row 0. The row index is dropped from the slice's address, so a block sums
 * slice b % splits of the first row, whatever its row: right wherever there is one row (every plain N,
 * read by a row stage as 1xN), wrong on every shape with a second row. The grade's row shapes
 * (ROWSxCOLS, declared by the exercise) must catch it.
 * Caught by: wrong
 */
__global__ void rows_split_partials(const float *x, float *partials, uint64_t cols, unsigned splits)
{
    uint64_t split = blockIdx.x % splits;
    uint64_t chunk = (cols + splits - 1) / splits, start = split * chunk;
    uint64_t end = start + chunk < cols ? start + chunk : cols;
    float v = 0.0f;
    for (uint64_t i = start + threadIdx.x; i < end; i += BLOCK) v += x[i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

__global__ void rows_split_finish(const float *partials, float *out, uint64_t rows, unsigned splits)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    float v = 0.0f;
    for (unsigned i = lane; i < splits; i += 32) v += partials[row * splits + i];
    v = warp_reduce_sum(v);
    if (lane == 0) out[row] = v;
}
