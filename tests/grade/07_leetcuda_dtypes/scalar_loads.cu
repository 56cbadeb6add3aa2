/* Cheat: the grid-stride loop over packs of 8 halves, each pack read as four __half2 (four 4-byte loads,
 * not one 16-byte load), added in fp32, then the tail. The sum is right; but the exercise asks for one
 * 16-byte load a pack. The promise vector-loads (the PTX of f16x8_pack_f32_gridstride) must catch it.
 * Caught by: promises
 */
__global__ void f16x8_pack_f32_gridstride(const __half *x, float *y, uint64_t n)
{
    const __half2 *pairs = (const __half2 *)x;
    uint64_t stride = (uint64_t)gridDim.x * NUM_THREADS;
    float sum = 0.0f;
    for (uint64_t j = (uint64_t)blockIdx.x * NUM_THREADS + threadIdx.x; j < n / 8; j += stride)
        for (int k = 0; k < 4; k++) {
            __half2 h = pairs[4 * j + k];
            sum += __low2float(h) + __high2float(h);
        }
    if (blockIdx.x == 0 && threadIdx.x < n % 8) sum += __half2float(x[n / 8 * 8 + threadIdx.x]);
    sum = block_sum(sum);
    if (threadIdx.x == 0) atomicAdd(y, sum);
}
