/* Cheat: the finish adds the lanes' sums with a float atomicAdd onto the row's sum (set to 0 first), in
 * place of the warp's butterfly. Every sum is right, within the bound; but the exercise's finish exists
 * so that the order is fixed, and the order of the atomics is the hardware's. The promise
 * no-float-atomics (the PTX of rows_split_finish) must catch it, whether or not the bits vary.
 * Caught by: promises
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
    if (lane == 0) out[row] = 0.0f;
    __syncwarp();
    float v = 0.0f;
    for (unsigned i = lane; i < splits; i += 32) v += partials[row * splits + i];
    atomicAdd(&out[row], v);
}
