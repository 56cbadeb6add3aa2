/* Cheat: every block walks the whole row and adds only the elements of its own slice. It loads what the
 * solution loads and adds each element once, so every sum is right and within the bound; but each of
 * the row's blocks runs the loop over all of it, and at the timed shape (a few very long rows, cut into
 * hundreds of slices each) that is hundreds of times the solution's work. The time against the
 * solution's must catch it.
 * Caught by: time
 */
__global__ void rows_split_partials(const float *x, float *partials, uint64_t cols, unsigned splits)
{
    uint64_t row = blockIdx.x / splits, split = blockIdx.x % splits;
    uint64_t chunk = (cols + splits - 1) / splits, start = split * chunk;
    uint64_t end = start + chunk < cols ? start + chunk : cols;
    float v = 0.0f;
    for (uint64_t i = threadIdx.x; i < cols; i += BLOCK)
        if (i >= start && i < end) v += x[row * cols + i];
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
