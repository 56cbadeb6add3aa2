/* Cheat: the finish's lanes take the row's slice sums from a starting slice read off the SM's clock, so
 * each run splits them among the lanes differently. Every sum is right, within the bound, and there is
 * no atomic; but the order of the additions changes from run to run, and with it the last bits, which
 * the exercise promises never happens. The three same-bits runs on random data must catch it, where the
 * check's own two runs, by chance, have not.
 * Caught by: same-bits
 */
__global__ void rows_split_partials(const float *x, float *partials, uint64_t cols, unsigned splits)
{
    uint64_t row = blockIdx.x / splits, split = blockIdx.x % splits;
    uint64_t chunk = (cols + splits - 1) / splits, start = split * chunk;
    uint64_t end = start + chunk < cols ? start + chunk : cols;
    float v = 0.0f;
    for (uint64_t i = start + threadIdx.x; i < end; i += BLOCK) v += x[row * cols + i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

__global__ void rows_split_finish(const float *partials, float *out, uint64_t rows, unsigned splits)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    unsigned first = (unsigned)(__shfl_sync(FULL_MASK, clock64() >> 3, 0) % splits);
    float v = 0.0f;
    for (unsigned i = lane; i < splits; i += 32) v += partials[row * splits + (i + first) % splits];
    v = warp_reduce_sum(v);
    if (lane == 0) out[row] = v;
}
