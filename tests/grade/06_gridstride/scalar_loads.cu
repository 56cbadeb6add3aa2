/* Cheat: the grid-stride loop over groups of four floats, loaded one by one (four 4-byte loads, not
 * one 16-byte load), then the tail. The sum is right, and on a fast GPU not far off in time; but the
 * exercise asks for the 16-byte loads. The promise vector-loads (the PTX of reduce_gridstride_float4)
 * must catch it.
 * Caught by: promises
 */
__global__ void reduce_gridstride_float4(const float *x, float *out, uint64_t n)
{
    uint64_t stride = (uint64_t)gridDim.x * BLOCK;
    float sum = 0.0f;
    for (uint64_t j = (uint64_t)blockIdx.x * BLOCK + threadIdx.x; j < n / 4; j += stride)
        sum += (x[4 * j] + x[4 * j + 1]) + (x[4 * j + 2] + x[4 * j + 3]);
    if (blockIdx.x == 0 && threadIdx.x < n % 4) sum += x[n / 4 * 4 + threadIdx.x];
    block_sum_atomic(sum, out);
}
